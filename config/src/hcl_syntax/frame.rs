//! The parser's frames: each of hclsyntax's parsing functions in progress
//! (see [`super::parser`]), with what it has read so far, and what a frame
//! returns or runs next. The steps of each frame are in `body.rs`,
//! `expr.rs` and `template.rs`.

use std::collections::HashMap;

use super::ast::{Body, Expr, Item, ObjectKey};
use super::error::Mark;
use super::token::{Kind, Span, Token};

/// One of hclsyntax's parsing functions in progress.
pub(super) enum Frame {
    Body(Box<BodyFrame>),
    Attribute(AttributeFrame),
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

impl Frame {
    /// `ParseExpression`: a new expression, from its conditional down.
    pub(super) fn expression() -> Frame {
        Frame::Ternary(TernaryFrame::new())
    }
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

/// `ParseBody(end)`: items up to `end` (the end of the text, or `}`).
pub(super) struct BodyFrame {
    pub(super) end: Kind,
    /// The token before the body (its `{`), for "Unclosed configuration
    /// block".
    pub(super) start: Span,
    /// Each attribute's name and where it is, for "Attribute redefined".
    pub(super) names: HashMap<String, Span>,
    pub(super) items: Vec<Item>,
    pub(super) keep: bool,
}

impl BodyFrame {
    pub(super) fn new(end: Kind, start: Span, keep: bool) -> BodyFrame {
        BodyFrame {
            end,
            start,
            names: HashMap::new(),
            items: Vec::new(),
            keep,
        }
    }
}

/// `finishParsingBodyAttribute`: `=` and the expression after a name.
pub(super) struct AttributeFrame {
    pub(super) name: Token,
    pub(super) single_line: bool,
    pub(super) keep: bool,
    pub(super) started: bool,
}

impl AttributeFrame {
    pub(super) fn new(name: Token, single_line: bool, keep: bool) -> AttributeFrame {
        AttributeFrame {
            name,
            single_line,
            keep,
            started: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BlockStage {
    Labels,
    /// In the body of a block written on several lines.
    Body,
    /// In the single attribute of a one-line block.
    SingleLine,
}

/// `finishParsingBodyBlock`: labels, then the body, after a block's type.
pub(super) struct BlockFrame {
    pub(super) ident: Token,
    pub(super) labels: Vec<String>,
    pub(super) stage: BlockStage,
    pub(super) open_brace: Span,
    /// Where the one-line body's errors start: an error about how the block
    /// ends is listed before them.
    pub(super) mark: Option<Mark>,
    pub(super) keep: bool,
}

/// `parseTernaryConditional`: `cond ? true : false`, or just `cond`.
pub(super) struct TernaryFrame {
    pub(super) stage: TernaryStage,
    pub(super) start: Span,
    pub(super) cond: Option<Expr>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TernaryStage {
    Start,
    Cond,
    True,
    False,
}

impl TernaryFrame {
    pub(super) fn new() -> TernaryFrame {
        TernaryFrame {
            stage: TernaryStage::Start,
            start: Span::default(),
            cond: None,
        }
    }
}

/// `parseBinaryOps` over all precedence levels at once: operands
/// separated by binary operators. Which operators bind tighter does not
/// change which tokens are read, and the values kept do not depend on it.
pub(super) struct BinaryFrame {
    pub(super) lhs: Option<Expr>,
}

impl BinaryFrame {
    pub(super) fn new() -> BinaryFrame {
        BinaryFrame { lhs: None }
    }
}

/// `parseExpressionWithTraversals`: a term (`parseExpressionTerm`) and the
/// attribute, index and splat steps after it.
pub(super) struct OperandFrame {
    pub(super) stage: OperandStage,
    /// The term, and then the term with its steps.
    pub(super) value: Option<Expr>,
    /// Whether a traversal step was read.
    pub(super) stepped: bool,
}

#[derive(Clone, Copy)]
pub(super) enum OperandStage {
    Term,
    /// After the term's frame (parentheses, a collection, a call, a
    /// template).
    AfterTerm,
    /// After the operand of `-` or `!`.
    Unary(Span),
    /// After the key of an index step `[key]`.
    Index,
}

impl OperandFrame {
    pub(super) fn new() -> OperandFrame {
        OperandFrame {
            stage: OperandStage::Term,
            value: None,
            stepped: false,
        }
    }
}

/// `( expression )`.
pub(super) struct ParenFrame {
    pub(super) open: Option<Span>,
}

/// `parseTupleCons`.
pub(super) struct TupleFrame {
    pub(super) open: Span,
    pub(super) items: Vec<Expr>,
    pub(super) keep: bool,
    /// The frame is waiting for a `for` expression.
    pub(super) for_expr: bool,
}

/// `parseObjectCons`.
pub(super) struct ObjectFrame {
    pub(super) open: Span,
    pub(super) items: Vec<(ObjectKey, Expr)>,
    pub(super) keep: bool,
    pub(super) stage: ObjectStage,
}

pub(super) enum ObjectStage {
    Items,
    Key { force_expression: bool },
    Value(ObjectKey),
    For,
}

/// `finishParsingForExpr`.
pub(super) struct ForFrame {
    pub(super) open: Token,
    pub(super) object: bool,
    pub(super) stage: ForStage,
    pub(super) key: Option<(Expr, bool)>,
    pub(super) value: Option<(Expr, bool)>,
    pub(super) group: Option<Span>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ForStage {
    Start,
    Collection,
    Value,
    ValueAfterKey,
    Condition,
}

impl ForFrame {
    pub(super) fn new(open: Token) -> ForFrame {
        ForFrame {
            open,
            object: open.kind == Kind::OBrace,
            stage: ForStage::Start,
            key: None,
            value: None,
            group: None,
        }
    }

    pub(super) fn close_kind(&self) -> Kind {
        if self.object {
            Kind::CBrace
        } else {
            Kind::CBrack
        }
    }
}

/// `finishParsingFunctionCall`.
pub(super) struct CallFrame {
    pub(super) name: Token,
    pub(super) open: Option<Token>,
}

/// One piece of a template, as `templateToken`s are.
#[derive(Debug)]
pub(super) enum Part {
    Literal(String),
    Interp,
    If(Span),
    Else(Span),
    EndIf(Span),
    For(Span),
    EndFor(Span),
}

/// Where a template's frame resumes.
#[derive(Clone, Copy)]
pub(super) enum TemplateStage {
    Parts,
    /// After the expression of `${`.
    Interp,
    /// After the condition of `%{ if`.
    If(Token),
    /// After the collection of `%{ for`.
    For(Token),
}

/// `parseTemplateInner`: the parts of a quoted string or a heredoc.
pub(super) struct TemplateFrame {
    pub(super) open: Token,
    pub(super) stage: TemplateStage,
    /// The token after the opening one, for errors about the whole
    /// template.
    pub(super) start: Option<Span>,
    pub(super) parts: Vec<Part>,
    pub(super) ltrim_next: bool,
    pub(super) next_can_trim_prev: bool,
}

impl TemplateFrame {
    pub(super) fn new(open: Token) -> TemplateFrame {
        TemplateFrame {
            open,
            stage: TemplateStage::Parts,
            start: None,
            parts: Vec::new(),
            ltrim_next: false,
            next_can_trim_prev: false,
        }
    }

    pub(super) fn end_kind(&self) -> Kind {
        if self.open.kind == Kind::OHeredoc {
            Kind::CHeredoc
        } else {
            Kind::CQuote
        }
    }
}
