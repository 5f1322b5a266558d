//! The parser's state, which every frame reads and writes: the tokens,
//! the errors, hclsyntax's recovery mode and each open frame's mark, with
//! the steps all frames share (reading tokens, reporting errors, and
//! hclsyntax's recovery). The driver is in [`super::parser`].

use std::borrow::Cow;

use super::error::{Detail, Errors};
use super::peeker::Peeker;
use super::token::{Kind, Span, Token};

/// What the driver knows of a frame: whether errors were found in it, and
/// whether it counts towards [`super::MAX_NESTING`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FrameMark {
    pub(super) errs: bool,
    pub(super) nests: bool,
}

pub(super) struct Parser<'t> {
    pub(super) p: Peeker<'t>,
    pub(super) errors: Errors,
    /// hclsyntax's recovery mode: set at the first error after which the
    /// parser skips ahead, and never cleared; it silences most errors.
    pub(super) recovery: bool,
    /// Each open frame's mark, the running one's last.
    marks: Vec<FrameMark>,
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
            marks: Vec::new(),
            kept_depth: 0,
            steps: 0,
        }
    }

    /// A frame entered, the running one from now on.
    pub(super) fn enter_frame(&mut self, nests: bool) {
        self.marks.push(FrameMark { errs: false, nests });
    }

    /// The running frame finished: its mark, its errors counted as the
    /// frame's below too.
    pub(super) fn leave_frame(&mut self) -> FrameMark {
        let mark = self.marks.pop().unwrap_or_default();
        if let Some(parent) = self.marks.last_mut() {
            parent.errs |= mark.errs;
        }
        mark
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

    /// An error, unless in recovery mode, which silences most errors
    /// (hclsyntax's `if !p.recovery { diags = append(diags, …) }`).
    pub(super) fn error_outside_recovery(
        &mut self,
        summary: impl Into<Cow<'static, str>>,
        detail: impl Into<Detail>,
        subject: Span,
    ) {
        if !self.recovery {
            self.error(summary, detail, subject);
        }
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
