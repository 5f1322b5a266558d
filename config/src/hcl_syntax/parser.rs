//! The parser: hclsyntax's recursive descent (`parser.go`,
//! `parser_template.go`) with an explicit stack of frames in place of the
//! call stack, so that no nesting of the text can overflow the thread's
//! stack.
//!
//! Each of hclsyntax's parsing functions that calls another (a body, an
//! attribute, a block, an expression and each kind of term, a template) is
//! a frame here: where Go calls, the frame returns [`Next::Call`] with
//! itself and the frame to run; where Go returns, it returns
//! [`Next::Return`] with the value, and the frame below resumes with it and
//! whether errors were found inside it (Go's `diags.HasErrors()` on the
//! callee's diagnostics). Recovery after an error is Go's, step for step
//! (the same tokens skipped, the same later errors suppressed), since an
//! error found later can be the one Terraform shows first.
//!
//! Every step either reads a token or moves to another frame, and no frame
//! is entered without reading a token first or after, so the work is linear
//! in the number of tokens.

use std::borrow::Cow;

use super::ast::{Attribute, Block, Body, Expr, Item};
use super::body::{BlockFrame, BodyFrame};
use super::error::{Detail, Errors};
use super::expr::{
    BinaryFrame, CallFrame, ForFrame, ObjectFrame, OperandFrame, ParenFrame, TernaryFrame,
    TupleFrame,
};
use super::peeker::Peeker;
use super::template::TemplateFrame;
use super::token::{Kind, Span, Token};

/// One of hclsyntax's parsing functions in progress.
pub(super) enum Frame {
    Body(Box<BodyFrame>),
    Attribute(super::body::AttributeFrame),
    Block(Box<BlockFrame>),
    Ternary(TernaryFrame),
    Binary(BinaryFrame),
    Operand(OperandFrame),
    Paren(ParenFrame),
    Tuple(TupleFrame),
    Object(Box<ObjectFrame>),
    For(Box<ForFrame>),
    Call(CallFrame),
    Template(Box<TemplateFrame>),
}

/// How deep the text may nest: expressions in expressions (brackets,
/// parentheses, calls, templates, `for`, indexes, conditionals), blocks in
/// blocks and unary operators on their operands, together. Far beyond any
/// real configuration (a few dozen levels); Terraform's parser runs out of
/// its goroutine's 1 GB stack between 85 000 and 100 000 levels of
/// brackets. Deeper text is refused (docs/behaviour.md, D34), which bounds
/// the parser's frames, at most four a level, to a few megabytes.
pub const MAX_NESTING: usize = 65_536;

/// What the driver knows of a frame: whether errors were found in it, and
/// whether it counts towards [`MAX_NESTING`].
#[derive(Debug, Clone, Copy, Default)]
struct FrameMark {
    errs: bool,
    nests: bool,
}

/// What a frame returns.
pub(super) enum Value {
    Body(Body),
    Item(Option<Item>),
    Expr(Expr),
}

/// A finished frame's value, and whether errors were found inside it.
pub(super) struct Done {
    pub(super) value: Value,
    pub(super) errs: bool,
}

impl Done {
    pub(super) fn expr(self) -> Expr {
        match self.value {
            Value::Expr(e) => e,
            _ => Expr::other(Span::default()),
        }
    }
}

/// What a frame does next.
pub(super) enum Next {
    /// Run the second frame, then resume the first with its value.
    Call(Frame, Frame),
    /// Finish with this value.
    Return(Value),
}

pub(super) struct Parser<'t> {
    pub(super) p: Peeker<'t>,
    pub(super) errors: Errors,
    /// hclsyntax's recovery mode: set at the first error after which the
    /// parser skips ahead, and never cleared; it silences most errors.
    pub(super) recovery: bool,
    frames: Vec<Frame>,
    /// Each frame's mark, the running one's last.
    marks: Vec<FrameMark>,
    /// How many frames that nest are open (see [`MAX_NESTING`]).
    nesting: usize,
    /// How many kept blocks, tuples and objects are open.
    pub(super) kept_depth: usize,
    pub(super) steps: u64,
}

impl<'t> Parser<'t> {
    pub(super) fn new(text: &'t str) -> Parser<'t> {
        Parser {
            p: Peeker::new(text),
            errors: Errors::default(),
            recovery: false,
            frames: Vec::new(),
            marks: Vec::new(),
            nesting: 0,
            kept_depth: 0,
            steps: 0,
        }
    }

    /// Parses the whole text as a body (`ParseConfig`).
    pub(super) fn parse(&mut self) -> Body {
        let start = self.prev_span();
        let top = BodyFrame::new(Kind::Eof, start, true);
        self.frames.push(Frame::Body(Box::new(top)));
        self.marks.push(FrameMark::default());
        let mut ret: Option<Done> = None;
        while let Some(frame) = self.frames.pop() {
            self.steps += 1;
            let next = match frame {
                Frame::Body(f) => self.body(*f, ret.take()),
                Frame::Attribute(f) => self.attribute(f, ret.take()),
                Frame::Block(f) => self.block(f, ret.take()),
                Frame::Ternary(f) => self.ternary(f, ret.take()),
                Frame::Binary(f) => self.binary(f, ret.take()),
                Frame::Operand(f) => self.operand(f, ret.take()),
                Frame::Paren(f) => self.paren(f, ret.take()),
                Frame::Tuple(f) => self.tuple(f, ret.take()),
                Frame::Object(f) => self.object(f, ret.take()),
                Frame::For(f) => self.for_expr(f, ret.take()),
                Frame::Call(f) => self.call(f, ret.take()),
                Frame::Template(f) => self.template(f, ret.take()),
            };
            match next {
                Next::Call(parent, child) => {
                    // Every nesting goes through a new expression, a
                    // block's body or a unary operator's operand.
                    let nests = matches!(child, Frame::Ternary(_) | Frame::Body(_))
                        || matches!((&parent, &child), (Frame::Operand(_), Frame::Operand(_)));
                    if nests {
                        self.nesting += 1;
                        if self.nesting > MAX_NESTING {
                            let at = self.peek().span;
                            self.errors.abort(
                                "Too deeply nested",
                                format!(
                                    "This file nests blocks, brackets, templates, conditionals or unary operators more than {MAX_NESTING} levels deep, more than tfdisco reads."
                                ),
                                at,
                            );
                            self.frames.clear();
                            self.marks.clear();
                            return Body::default();
                        }
                    }
                    self.frames.push(parent);
                    self.frames.push(child);
                    self.marks.push(FrameMark { errs: false, nests });
                }
                Next::Return(value) => {
                    let mark = self.marks.pop().unwrap_or_default();
                    if mark.nests {
                        self.nesting -= 1;
                    }
                    if let Some(parent) = self.marks.last_mut() {
                        parent.errs |= mark.errs;
                    }
                    ret = Some(Done {
                        value,
                        errs: mark.errs,
                    });
                }
            }
        }
        match ret {
            Some(Done {
                value: Value::Body(body),
                ..
            }) => body,
            _ => Body::default(),
        }
    }

    pub(super) fn steps(&self) -> u64 {
        self.steps + self.p.steps + self.p.lexer_steps()
    }

    // The peeker, with the scanner's errors going where they belong.

    pub(super) fn peek(&mut self) -> Token {
        self.p.peek(&mut self.errors)
    }

    pub(super) fn read(&mut self) -> Token {
        self.p.read(&mut self.errors)
    }

    pub(super) fn prev_span(&mut self) -> Span {
        self.p.prev_span(&mut self.errors)
    }

    pub(super) fn token_text(&self, token: Token) -> &'t str {
        token.text(self.p.text())
    }

    /// Whether `token` is the identifier `word` (hclsyntax's keywords).
    pub(super) fn is_keyword(&self, token: Token, word: &str) -> bool {
        token.kind == Kind::Ident && self.token_text(token) == word
    }

    /// An error found in the running frame.
    pub(super) fn error(
        &mut self,
        summary: impl Into<Cow<'static, str>>,
        detail: impl Into<Detail>,
        subject: Span,
    ) {
        self.errors.push(summary, detail, subject);
        self.mark_error();
    }

    pub(super) fn mark_error(&mut self) {
        if let Some(mark) = self.marks.last_mut() {
            mark.errs = true;
        }
    }

    /// A string literal token's value, its escape errors found in the
    /// running frame.
    pub(super) fn string_value(&mut self, token: Token) -> String {
        let before = self.errors.parser_errors();
        let text = self.token_text(token);
        let quoted = token.kind == Kind::QuotedLit;
        let value = super::literal::string_value(text, token.span.start, quoted, &mut self.errors);
        if self.errors.parser_errors() != before {
            self.mark_error();
        }
        value
    }

    /// Whether kept values may nest one level deeper here.
    pub(super) fn keep_nested(&self, keep: bool) -> bool {
        keep && self.kept_depth < super::ast::MAX_KEPT_DEPTH
    }

    // hclsyntax's recovery.

    /// `recover`: skips to the token `end` that closes the current
    /// bracket (counting nested ones), or the end of the text, and returns
    /// it.
    pub(super) fn recover(&mut self, end: Kind) -> Token {
        let start = end.opposite();
        self.recovery = true;
        let mut nest = 0usize;
        loop {
            let token = self.read();
            let mut kind = token.kind;
            if end == Kind::TemplateSeqEnd && kind == Kind::TemplateControl {
                kind = Kind::TemplateInterp;
            }
            if Some(kind) == start {
                nest += 1;
            } else if kind == end {
                if nest == 0 {
                    return token;
                }
                nest -= 1;
            } else if kind == Kind::Eof {
                return token;
            }
        }
    }

    /// `recoverOver`: skips to the next `start` bracket, then past the
    /// bracket it opens.
    pub(super) fn recover_over(&mut self, start: Kind) {
        loop {
            let token = self.read();
            if token.kind == start || token.kind == Kind::Eof {
                break;
            }
        }
        if let Some(end) = start.opposite() {
            self.recover(end);
        }
    }

    /// `recoverAfterBodyItem`: skips past the line break that ends the
    /// current item, outside any brackets.
    pub(super) fn recover_after_body_item(&mut self) {
        self.recovery = true;
        let mut open: Vec<Kind> = Vec::new();
        loop {
            let token = self.read();
            match token.kind {
                Kind::Newline if open.is_empty() => break,
                Kind::Eof => break,
                Kind::OBrace
                | Kind::OBrack
                | Kind::OParen
                | Kind::OQuote
                | Kind::OHeredoc
                | Kind::TemplateInterp
                | Kind::TemplateControl => open.push(token.kind),
                Kind::CBrace | Kind::CBrack | Kind::CParen | Kind::CQuote | Kind::CHeredoc => {
                    let opener = token.kind.opposite();
                    while open.last().is_some_and(|&k| Some(k) != opener) {
                        open.pop();
                    }
                    open.pop();
                }
                Kind::TemplateSeqEnd => {
                    while open
                        .last()
                        .is_some_and(|&k| k != Kind::TemplateInterp && k != Kind::TemplateControl)
                    {
                        open.pop();
                    }
                    open.pop();
                }
                _ => {}
            }
        }
    }
}

/// An attribute and a block as a body item.
pub(super) fn attribute_item(name: String, name_span: Span, value: Expr) -> Item {
    Item::Attribute(Attribute {
        name,
        name_span,
        value,
    })
}

pub(super) fn block_item(kind: String, kind_span: Span, labels: Vec<String>, body: Body) -> Item {
    Item::Block(Block {
        kind,
        kind_span,
        labels,
        body,
    })
}
