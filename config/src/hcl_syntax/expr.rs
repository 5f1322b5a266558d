//! Expressions (hclsyntax's `ParseExpression` and everything below it:
//! conditionals, binary operators, terms and their traversals,
//! parentheses, tuples, objects, `for` expressions, function calls).

use super::ast::{Expr, ExprKind, ObjectKey, Reference};
use super::error::Detail;
use super::frame::{
    BinaryFrame, CallFrame, Done, ForFrame, ForStage, Frame, Next, ObjectFrame, ObjectStage,
    OperandFrame, OperandStage, ParenFrame, TemplateFrame, TernaryFrame, TernaryStage, TupleFrame,
    Value,
};
use super::literal::is_number;
use super::state::Parser;
use super::token::{Kind, Span, Token};

/// What tells a tuple's items from an object's, for [`Parser::item_end`]:
/// the closing bracket, the separators and the errors about them (a
/// summary and a detail each).
struct Collection {
    close: Kind,
    /// Whether a line break separates items too, as a comma does.
    newline_separates: bool,
    unterminated: (&'static str, &'static str),
    missing_separator: (&'static str, &'static str),
}

const TUPLE: Collection = Collection {
    close: Kind::CBrack,
    newline_separates: false,
    unterminated: (
        "Unterminated tuple constructor expression",
        "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
    ),
    missing_separator: (
        "Missing item separator",
        "Expected a comma to mark the beginning of the next item.",
    ),
};

const OBJECT: Collection = Collection {
    close: Kind::CBrace,
    newline_separates: true,
    unterminated: (
        "Unterminated object constructor expression",
        "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
    ),
    missing_separator: (
        "Missing attribute separator",
        "Expected a newline or comma to mark the beginning of the next attribute.",
    ),
};

const INVALID_FOR: &str = "Invalid 'for' expression";

impl Parser<'_> {
    pub(super) fn ternary(&mut self, mut f: TernaryFrame, ret: Option<Done>) -> Next {
        match f.stage {
            TernaryStage::Start => {
                f.start = self.peek().span;
                f.stage = TernaryStage::Cond;
                Next::Call(Frame::Ternary(f), Frame::Binary(BinaryFrame::new()))
            }
            TernaryStage::Cond => {
                let done = ret.expect("the condition's value");
                let errs = done.errs;
                let cond = done.expr();
                if self.recovery && errs {
                    return Next::Return(Value::Expr(cond));
                }
                if self.peek().kind != Kind::Question {
                    return Next::Return(Value::Expr(cond));
                }
                self.read();
                f.cond = Some(cond);
                f.stage = TernaryStage::True;
                Next::Call(Frame::Ternary(f), Frame::expression())
            }
            TernaryStage::True => {
                let errs = ret.is_some_and(|d| d.errs);
                let cond = f.cond.take().unwrap_or_else(|| Expr::other(f.start));
                if self.recovery && errs {
                    return Next::Return(Value::Expr(cond));
                }
                let colon = self.peek();
                if colon.kind != Kind::Colon {
                    self.error(
                        "Missing false expression in conditional",
                        "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                        colon.span,
                    );
                    return Next::Return(Value::Expr(cond));
                }
                self.read();
                f.cond = Some(cond);
                f.stage = TernaryStage::False;
                Next::Call(Frame::Ternary(f), Frame::expression())
            }
            TernaryStage::False => {
                let done = ret.expect("the false value");
                let errs = done.errs;
                let value = done.expr();
                if self.recovery && errs {
                    let cond = f.cond.take().unwrap_or_else(|| Expr::other(f.start));
                    return Next::Return(Value::Expr(cond));
                }
                Next::Return(Value::Expr(Expr::other(f.start.to(value.span))))
            }
        }
    }

    pub(super) fn binary(&mut self, mut f: BinaryFrame, ret: Option<Done>) -> Next {
        let Some(done) = ret else {
            return Next::Call(Frame::Binary(f), Frame::Operand(OperandFrame::new()));
        };
        let errs = done.errs;
        let operand = done.expr();
        let value = match f.lhs.take() {
            None => operand,
            Some(lhs) => Expr::other(lhs.span.to(operand.span)),
        };
        if self.recovery && errs {
            return Next::Return(Value::Expr(value));
        }
        if self.peek().kind.is_binary_operator() {
            self.read();
            f.lhs = Some(value);
            return Next::Call(Frame::Binary(f), Frame::Operand(OperandFrame::new()));
        }
        Next::Return(Value::Expr(value))
    }

    pub(super) fn operand(&mut self, mut f: OperandFrame, ret: Option<Done>) -> Next {
        match f.stage {
            OperandStage::Term => {
                if let Some(child) = self.term(&mut f) {
                    if let OperandStage::Term = f.stage {
                        f.stage = OperandStage::AfterTerm;
                    }
                    return Next::Call(Frame::Operand(f), child);
                }
            }
            OperandStage::AfterTerm => {
                f.value = ret.map(Done::expr);
            }
            OperandStage::Unary(op) => {
                let operand = ret.map(Done::expr);
                let end = operand.map_or(op, |e| e.span);
                f.value = Some(Expr::other(op.to(end)));
            }
            OperandStage::Index => {
                let errs = ret.is_some_and(|d| d.errs);
                if self.recovery && errs {
                    self.recover(Kind::CBrack);
                } else {
                    let close = self.read();
                    if close.kind != Kind::CBrack && !self.recovery {
                        // hclsyntax's subject points at `close`, which is
                        // then set to the bracket recovery finds.
                        let found = self.recover(Kind::CBrack);
                        self.error(
                            "Missing close bracket on index",
                            "The index operator must end with a closing bracket (\"]\").",
                            found.span,
                        );
                    }
                }
                self.p.pop_newlines();
            }
        }
        self.traversals(f)
    }

    /// `parseExpressionTerm`: a term read at once (the value set in `f`),
    /// or the frame that reads it.
    fn term(&mut self, f: &mut OperandFrame) -> Option<Frame> {
        let start = self.peek();
        match start.kind {
            Kind::OParen => Some(Frame::Paren(ParenFrame { open: None })),
            Kind::NumberLit => {
                let token = self.read();
                let text = self.token_text(token);
                let kind = if is_number(text) {
                    ExprKind::Number(text.to_owned())
                } else {
                    self.error(
                        "Invalid number literal",
                        "Failed to recognize the value of this number literal.",
                        token.span,
                    );
                    ExprKind::Other
                };
                f.value = Some(Expr {
                    kind,
                    span: token.span,
                });
                None
            }
            Kind::Ident => {
                let token = self.read();
                if matches!(self.peek().kind, Kind::OParen | Kind::DoubleColon) {
                    return Some(Frame::Call(CallFrame {
                        name: token,
                        open: None,
                    }));
                }
                let kind = match self.token_text(token) {
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    "null" => ExprKind::Null,
                    name => ExprKind::Reference(Box::new(Reference {
                        root: Some(name.to_owned()),
                        attrs: Vec::new(),
                        only_attrs: true,
                        parenthesized: false,
                    })),
                };
                f.value = Some(Expr {
                    kind,
                    span: token.span,
                });
                None
            }
            Kind::OQuote | Kind::OHeredoc => {
                let open = self.read();
                Some(Frame::Template(Box::new(TemplateFrame::new(open))))
            }
            Kind::Minus | Kind::Bang => {
                let op = self.read();
                f.stage = OperandStage::Unary(op.span);
                // The operand, then (as `Unary`) this frame again.
                Some(Frame::Operand(OperandFrame::new()))
            }
            Kind::OBrack => Some(Frame::Tuple(TupleFrame {
                open: start.span,
                items: Vec::new(),
                keep: false,
                for_expr: false,
            })),
            Kind::OBrace => Some(Frame::Object(Box::new(ObjectFrame {
                open: start.span,
                items: Vec::new(),
                keep: false,
                stage: ObjectStage::Items,
            }))),
            _ => {
                let (summary, detail) = if start.kind == Kind::Eof {
                    (
                        "Missing expression",
                        "Expected the start of an expression, but found the end of the file.",
                    )
                } else {
                    (
                        "Invalid expression",
                        "Expected the start of an expression, but found an invalid expression token.",
                    )
                };
                self.error_outside_recovery(summary, detail, start.span);
                self.recovery = true;
                f.value = Some(Expr::other(start.span));
                None
            }
        }
    }

    /// `parseExpressionTraversals`: `.name`, `.0`, `.*`, `[key]` and `[*]`
    /// steps, until something else follows. A `[*]` splat takes the steps
    /// after it, which hclsyntax reads in a nested call; they are read here
    /// in the same loop, which reads the same tokens.
    fn traversals(&mut self, mut f: OperandFrame) -> Next {
        // After `-` or `!` the operand has taken the steps.
        if let OperandStage::Unary(_) = f.stage {
            return Next::Return(Value::Expr(
                f.value
                    .take()
                    .unwrap_or_else(|| Expr::other(Span::default())),
            ));
        }
        let mut value = f
            .value
            .take()
            .unwrap_or_else(|| Expr::other(Span::default()));
        loop {
            let next = self.peek();
            match next.kind {
                Kind::Dot => {
                    self.read();
                    let attr = self.peek();
                    match attr.kind {
                        Kind::Ident => {
                            self.read();
                            let name = self.token_text(attr).to_owned();
                            step(&mut value, &mut f.stepped, Some(name));
                        }
                        Kind::NumberLit => {
                            let number = self.read();
                            self.legacy_index(number, number.span, false);
                            step(&mut value, &mut f.stepped, None);
                        }
                        Kind::Star => {
                            self.read();
                            step(&mut value, &mut f.stepped, None);
                            if self.attribute_splat(attr) {
                                continue;
                            }
                        }
                        _ => {
                            self.error(
                                "Invalid attribute name",
                                "An attribute name is required after a dot.",
                                attr.span,
                            );
                            step(&mut value, &mut f.stepped, None);
                            self.recovery = true;
                        }
                    }
                }
                Kind::OBrack => {
                    self.read();
                    step(&mut value, &mut f.stepped, None);
                    if self.peek().kind == Kind::Star {
                        self.read();
                        let close = self.read();
                        if close.kind != Kind::CBrack && !self.recovery {
                            // hclsyntax's subject points at `close`, which
                            // is then set to the bracket recovery finds.
                            let found = self.recover(Kind::CBrack);
                            self.error(
                                "Missing close bracket on splat index",
                                "The star for a full splat operator must be immediately followed by a closing bracket (\"]\").",
                                found.span,
                            );
                        }
                    } else {
                        self.p.push_newlines(false);
                        f.stage = OperandStage::Index;
                        f.value = Some(value);
                        return Next::Call(Frame::Operand(f), Frame::expression());
                    }
                }
                _ => break,
            }
        }
        if f.stepped {
            value.span.end = value.span.end.max(self.prev_span().end);
        }
        Next::Return(Value::Expr(value))
    }

    /// A number after a dot (`a.0`): a legacy index, refused when it is two
    /// (`a.0.1` scans as `a` `.` `0.1`). `subject` is where hclsyntax
    /// points for that error; `splat` says whether it is in an
    /// attribute-only splat.
    fn legacy_index(&mut self, number: Token, subject: Span, splat: bool) {
        let text = self.token_text(number);
        if let Some((first, second)) = text.split_once('.') {
            let detail = if splat {
                format!(
                    "When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax with a full splat expression [*] instead, like [{first}][{second}]."
                )
            } else {
                format!(
                    "When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [{first}][{second}]."
                )
            };
            self.error("Invalid legacy index syntax", Detail::from(detail), subject);
        } else if !is_number(text) {
            self.error(
                "Invalid number literal",
                "Failed to recognize the value of this number literal.",
                number.span,
            );
        }
    }

    /// The steps of an attribute-only splat after `.*` (`star`): `.name`
    /// and `.0`. Returns whether it ended at an invalid step, after which
    /// the traversal goes on from where it stopped.
    fn attribute_splat(&mut self, star: Token) -> bool {
        while self.peek().kind == Kind::Dot {
            self.read();
            let next = self.peek();
            if next.kind == Kind::NumberLit {
                let number = self.read();
                // hclsyntax points at the star for this one.
                self.legacy_index(number, star.span, true);
                continue;
            }
            if next.kind != Kind::Ident {
                if !self.recovery {
                    if next.kind == Kind::Star {
                        self.error(
                            "Nested splat expression not allowed",
                            "A splat expression (*) cannot be used inside another attribute-only splat expression.",
                            next.span,
                        );
                    } else {
                        self.error(
                            "Invalid attribute name",
                            "An attribute name is required after a dot.",
                            star.span,
                        );
                    }
                }
                self.recovery = true;
                return true;
            }
            self.read();
        }
        false
    }

    pub(super) fn paren(&mut self, mut f: ParenFrame, ret: Option<Done>) -> Next {
        let Some(open) = f.open else {
            f.open = Some(self.read().span);
            self.p.push_newlines(false);
            return Next::Call(Frame::Paren(f), Frame::expression());
        };
        let done = ret.expect("the inner expression");
        let errs = done.errs;
        let inner = done.expr();
        if errs {
            self.recover(Kind::CParen);
            self.p.pop_newlines();
            return Next::Return(Value::Expr(inner));
        }
        let close = self.peek();
        if close.kind != Kind::CParen {
            self.error(
                "Unbalanced parentheses",
                "Expected a closing parenthesis to terminate the expression.",
                close.span,
            );
            self.recovery = true;
        }
        let close = self.read();
        self.p.pop_newlines();
        let kind = match inner.kind {
            ExprKind::Reference(mut reference) => {
                reference.parenthesized = true;
                ExprKind::Reference(reference)
            }
            kind => kind,
        };
        Next::Return(Value::Expr(Expr {
            kind,
            span: open.to(close.span),
        }))
    }

    pub(super) fn tuple(&mut self, mut f: TupleFrame, ret: Option<Done>) -> Next {
        match ret {
            None => {
                self.read(); // `[`
                self.p.push_newlines(false);
                let next = self.peek();
                if self.is_keyword(next, "for") {
                    f.for_expr = true;
                    let open = Token {
                        kind: Kind::OBrack,
                        span: f.open,
                    };
                    return Next::Call(Frame::Tuple(f), Frame::For(Box::new(ForFrame::new(open))));
                }
                f.keep = self.keep_nested(true);
                if f.keep {
                    self.kept_depth += 1;
                }
            }
            Some(done) if f.for_expr => {
                self.p.pop_newlines();
                return Next::Return(done.value);
            }
            Some(done) => {
                let errs = done.errs;
                let item = done.expr();
                if f.keep {
                    f.items.push(item);
                }
                if let Some(close) = self.item_end(&TUPLE, f.open, errs) {
                    return self.finish_tuple(f, close);
                }
            }
        }
        if self.peek().kind == Kind::CBrack {
            let close = self.read();
            return self.finish_tuple(f, close.span);
        }
        Next::Call(Frame::Tuple(f), Frame::expression())
    }

    /// After an item of a tuple or an object (`errs`: whether errors were
    /// found in it): the closing bracket, where the collection ends (after
    /// skipping to it on an error), or `None` after a separator.
    fn item_end(&mut self, c: &Collection, open: Span, errs: bool) -> Option<Span> {
        if self.recovery && errs {
            return Some(self.recover(c.close).span);
        }
        let next = self.peek();
        if next.kind == c.close {
            return Some(self.read().span);
        }
        if next.kind != Kind::Comma && !(c.newline_separates && next.kind == Kind::Newline) {
            let ((summary, detail), subject) = if next.kind == Kind::Eof {
                (c.unterminated, open)
            } else {
                (c.missing_separator, next.span)
            };
            self.error_outside_recovery(summary, detail, subject);
            return Some(self.recover(c.close).span);
        }
        self.read(); // the separator
        None
    }

    fn finish_tuple(&mut self, f: TupleFrame, close: Span) -> Next {
        let open = f.open;
        let kept = f.keep.then_some(ExprKind::Tuple(f.items));
        self.finish_collection(kept, open, close)
    }

    /// The end of a tuple or an object (`kept`: its value, when kept).
    fn finish_collection(&mut self, kept: Option<ExprKind>, open: Span, close: Span) -> Next {
        self.p.pop_newlines();
        let kind = match kept {
            Some(kind) => {
                self.kept_depth -= 1;
                kind
            }
            None => ExprKind::Other,
        };
        Next::Return(Value::Expr(Expr {
            kind,
            span: open.to(close),
        }))
    }

    pub(super) fn object(&mut self, mut f: Box<ObjectFrame>, ret: Option<Done>) -> Next {
        match std::mem::replace(&mut f.stage, ObjectStage::Items) {
            ObjectStage::Items => {
                // Only on the first step: nothing was called yet.
                self.read(); // `{`
                self.p.push_newlines(false);
                let next = self.peek();
                let is_for = self.is_keyword(next, "for");
                self.p.pop_newlines();
                if is_for {
                    f.stage = ObjectStage::For;
                    let open = Token {
                        kind: Kind::OBrace,
                        span: f.open,
                    };
                    return Next::Call(Frame::Object(f), Frame::For(Box::new(ForFrame::new(open))));
                }
                self.p.push_newlines(true);
                f.keep = self.keep_nested(true);
                if f.keep {
                    self.kept_depth += 1;
                }
            }
            ObjectStage::For => {
                let done = ret.expect("the for expression");
                return Next::Return(done.value);
            }
            ObjectStage::Key { force_expression } => {
                let done = ret.expect("the key");
                let errs = done.errs;
                let key = done.expr();
                if self.recovery && errs {
                    let close = self.recover(Kind::CBrace);
                    return self.finish_object(*f, close.span);
                }
                let next = self.peek();
                if next.kind != Kind::Equal && next.kind != Kind::Colon {
                    if !self.recovery {
                        match next.kind {
                            Kind::Newline | Kind::Comma => self.error(
                                "Missing attribute value",
                                "Expected an attribute value, introduced by an equals sign (\"=\").",
                                next.span,
                            ),
                            Kind::Ident => self.error(
                                "Missing key/value separator",
                                "Expected an equals sign (\"=\") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.",
                                next.span,
                            ),
                            Kind::Eof => {
                                let (summary, detail) = OBJECT.unterminated;
                                self.error(summary, detail, f.open);
                            }
                            _ => self.error(
                                "Missing key/value separator",
                                "Expected an equals sign (\"=\") to mark the beginning of the attribute value.",
                                next.span,
                            ),
                        }
                    }
                    let close = self.recover(Kind::CBrace);
                    return self.finish_object(*f, close.span);
                }
                self.read(); // `=` or `:`
                f.stage = ObjectStage::Value(object_key(key, force_expression));
                return Next::Call(Frame::Object(f), Frame::expression());
            }
            ObjectStage::Value(key) => {
                let done = ret.expect("the value");
                let errs = done.errs;
                let value = done.expr();
                if f.keep {
                    f.items.push((key, value));
                }
                if let Some(close) = self.item_end(&OBJECT, f.open, errs) {
                    return self.finish_object(*f, close);
                }
            }
        }
        loop {
            let next = self.peek();
            match next.kind {
                Kind::Newline => {
                    self.read();
                }
                Kind::CBrace => {
                    let close = self.read();
                    return self.finish_object(*f, close.span);
                }
                kind => {
                    f.stage = ObjectStage::Key {
                        force_expression: kind == Kind::OParen,
                    };
                    return Next::Call(Frame::Object(f), Frame::expression());
                }
            }
        }
    }

    fn finish_object(&mut self, f: ObjectFrame, close: Span) -> Next {
        let open = f.open;
        let kept = f.keep.then_some(ExprKind::Object(f.items));
        self.finish_collection(kept, open, close)
    }

    pub(super) fn for_expr(&mut self, mut f: Box<ForFrame>, ret: Option<Done>) -> Next {
        let close_kind = f.close_kind();
        match f.stage {
            ForStage::Start => {
                self.p.push_newlines(false);
                self.read(); // `for`
                let next = self.peek();
                if next.kind != Kind::Ident {
                    return self.invalid_for(
                        &f,
                        close_kind,
                        "For expression requires variable name after 'for'.",
                        next.span,
                    );
                }
                self.read();
                if self.peek().kind == Kind::Comma {
                    self.read();
                    let next = self.peek();
                    if next.kind != Kind::Ident {
                        return self.invalid_for(
                            &f,
                            close_kind,
                            "For expression requires value variable name after comma.",
                            next.span,
                        );
                    }
                    self.read();
                }
                let next = self.peek();
                if !self.is_keyword(next, "in") {
                    return self.invalid_for(
                        &f,
                        close_kind,
                        "For expression requires the 'in' keyword after its name declarations.",
                        next.span,
                    );
                }
                self.read();
                f.stage = ForStage::Collection;
                Next::Call(Frame::For(f), Frame::expression())
            }
            ForStage::Collection => {
                let errs = ret.is_some_and(|d| d.errs);
                if self.recovery && errs {
                    return self.for_failed(&f, close_kind);
                }
                let next = self.peek();
                if next.kind != Kind::Colon {
                    return self.invalid_for(
                        &f,
                        close_kind,
                        "For expression requires a colon after the collection expression.",
                        next.span,
                    );
                }
                self.read();
                f.stage = ForStage::Value;
                Next::Call(Frame::For(f), Frame::expression())
            }
            ForStage::Value => {
                let done = ret.expect("the value");
                let errs = done.errs;
                let value = done.expr();
                if self.peek().kind == Kind::FatArrow {
                    self.read();
                    f.key = Some((value, errs));
                    f.stage = ForStage::ValueAfterKey;
                    return Next::Call(Frame::For(f), Frame::expression());
                }
                f.value = Some((value, errs));
                self.for_after_values(f, close_kind)
            }
            ForStage::ValueAfterKey => {
                let done = ret.expect("the value");
                let errs = done.errs;
                f.value = Some((done.expr(), errs));
                self.for_after_values(f, close_kind)
            }
            ForStage::Condition => {
                let errs = ret.is_some_and(|d| d.errs);
                if self.recovery && errs {
                    let close = self.recover(close_kind);
                    self.p.pop_newlines();
                    return Next::Return(Value::Expr(Expr {
                        kind: ExprKind::For,
                        span: f.open.span.to(close.span),
                    }));
                }
                self.for_close(&f, close_kind)
            }
        }
    }

    /// An invalid `for` expression: `detail` at `subject` (outside
    /// recovery mode), the rest skipped.
    fn invalid_for(
        &mut self,
        f: &ForFrame,
        close_kind: Kind,
        detail: &'static str,
        subject: Span,
    ) -> Next {
        self.error_outside_recovery(INVALID_FOR, detail, subject);
        self.for_failed(f, close_kind)
    }

    fn for_failed(&mut self, f: &ForFrame, close_kind: Kind) -> Next {
        let close = self.recover(close_kind);
        self.p.pop_newlines();
        Next::Return(Value::Expr(Expr {
            kind: ExprKind::For,
            span: f.open.span.to(close.span),
        }))
    }

    fn for_after_values(&mut self, mut f: Box<ForFrame>, close_kind: Kind) -> Next {
        let key_errs = f.key.as_ref().is_some_and(|k| k.1);
        let value_errs = f.value.as_ref().is_some_and(|v| v.1);
        if self.recovery && (key_errs || value_errs) {
            return self.for_failed(&f, close_kind);
        }
        if self.peek().kind == Kind::Ellipsis {
            f.group = Some(self.read().span);
        }
        let next = self.peek();
        if self.is_keyword(next, "if") {
            self.read();
            f.stage = ForStage::Condition;
            return Next::Call(Frame::For(f), Frame::expression());
        }
        self.for_close(&f, close_kind)
    }

    fn for_close(&mut self, f: &ForFrame, close_kind: Kind) -> Next {
        let next = self.peek();
        let close = if next.kind == close_kind {
            self.read()
        } else {
            self.error_outside_recovery(
                INVALID_FOR,
                "Extra characters after the end of the 'for' expression.",
                next.span,
            );
            self.recover(close_kind)
        };
        if !f.object {
            if let Some((key, _)) = &f.key {
                self.error(
                    INVALID_FOR,
                    "Key expression is not valid when building a tuple.",
                    key.span,
                );
            }
            if let Some(group) = f.group {
                self.error(
                    INVALID_FOR,
                    "Grouping ellipsis (...) cannot be used when building a tuple.",
                    group,
                );
            }
        } else if f.key.is_none() {
            let span = f.value.as_ref().map_or(next.span, |v| v.0.span);
            self.error(
                INVALID_FOR,
                "Key expression is required when building an object.",
                span,
            );
        }
        self.p.pop_newlines();
        Next::Return(Value::Expr(Expr {
            kind: ExprKind::For,
            span: f.open.span.to(close.span),
        }))
    }

    pub(super) fn call(&mut self, mut f: CallFrame, ret: Option<Done>) -> Next {
        let name = f.name.span;
        let Some(open) = f.open else {
            let mut open = self.read();
            while open.kind == Kind::DoubleColon {
                let next = self.read();
                if next.kind != Kind::Ident {
                    return self.unopened_call(
                        name,
                        "Missing function name",
                        "Function scope resolution symbol :: must be followed by a function name in this scope.",
                        next.span,
                    );
                }
                open = self.read();
            }
            if open.kind != Kind::OParen {
                return self.unopened_call(
                    name,
                    "Missing open parenthesis",
                    "Function selector must be followed by an open parenthesis to begin the function call.",
                    open.span,
                );
            }
            f.open = Some(open);
            self.p.push_newlines(false);
            return self.call_argument(f);
        };
        let errs = ret.is_some_and(|d| d.errs);
        if self.recovery && errs {
            self.recover(Kind::CParen);
            return self.close_call(name);
        }
        let sep = self.read();
        match sep.kind {
            Kind::CParen => return self.close_call(name),
            Kind::Ellipsis => {
                if self.peek().kind != Kind::CParen {
                    self.error_outside_recovery(
                        "Missing closing parenthesis",
                        "An expanded function argument (with ...) must be immediately followed by closing parentheses.",
                        sep.span,
                    );
                    self.recover(Kind::CParen);
                } else {
                    self.read();
                }
                return self.close_call(name);
            }
            Kind::Comma => {}
            Kind::Eof => {
                self.error(
                    "Unterminated function call",
                    "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.",
                    name.to(open.span),
                );
                self.recover(Kind::CParen);
                return self.close_call(name);
            }
            _ => {
                self.error(
                    "Missing argument separator",
                    "A comma is required to separate each function argument from the next.",
                    sep.span,
                );
                self.recover(Kind::CParen);
                return self.close_call(name);
            }
        }
        if self.peek().kind == Kind::CParen {
            self.read();
            return self.close_call(name);
        }
        Next::Call(Frame::Call(f), Frame::expression())
    }

    /// A call (its name at `name`) whose `(` does not follow: the error,
    /// then the call skipped past the next parentheses.
    fn unopened_call(
        &mut self,
        name: Span,
        summary: &'static str,
        detail: &'static str,
        subject: Span,
    ) -> Next {
        self.error(summary, detail, subject);
        self.recover_over(Kind::OParen);
        self.finish_call(name)
    }

    fn call_argument(&mut self, f: CallFrame) -> Next {
        if self.peek().kind == Kind::CParen {
            self.read();
            return self.close_call(f.name.span);
        }
        Next::Call(Frame::Call(f), Frame::expression())
    }

    fn close_call(&mut self, name: Span) -> Next {
        self.p.pop_newlines();
        self.finish_call(name)
    }

    fn finish_call(&mut self, name: Span) -> Next {
        let end = self.prev_span();
        Next::Return(Value::Expr(Expr {
            kind: ExprKind::Call,
            span: name.to(end),
        }))
    }
}

/// A traversal step on `value`: an attribute name, or another step.
fn step(value: &mut Expr, stepped: &mut bool, attr: Option<String>) {
    *stepped = true;
    if let ExprKind::Reference(reference) = &mut value.kind
        && !reference.parenthesized
    {
        match attr {
            Some(name) if reference.only_attrs => reference.attrs.push(name),
            _ => reference.only_attrs = false,
        }
        return;
    }
    value.kind = ExprKind::Reference(Box::new(Reference {
        root: None,
        attrs: Vec::new(),
        only_attrs: false,
        parenthesized: false,
    }));
}

/// An object's key: a bare name (`null`, `true` and `false` too) is its
/// text unless the key is in parentheses (`ObjectConsKeyExpr`'s
/// `ForceNonLiteral`).
fn object_key(key: Expr, force_expression: bool) -> ObjectKey {
    if !force_expression {
        match key.kind {
            ExprKind::Null => return ObjectKey::Name("null".to_owned()),
            ExprKind::Bool(b) => return ObjectKey::Name(b.to_string()),
            _ => {}
        }
    }
    if !force_expression
        && let ExprKind::Reference(reference) = &key.kind
        && let Reference {
            root: Some(name),
            only_attrs: true,
            parenthesized: false,
            ..
        } = &**reference
        && reference.attrs.is_empty()
    {
        return ObjectKey::Name(name.clone());
    }
    ObjectKey::Expr(key)
}
