//! Bodies, attributes and blocks (hclsyntax's `ParseBody`,
//! `ParseBodyItem`, `finishParsingBodyAttribute`, `finishParsingBodyBlock`,
//! `parseSingleAttrBody`, `parseQuotedStringLiteral`).

use tfdisco_core::go_quote;

use super::ast::{Attribute, Block, Body, Expr, Item};
use super::error::Detail;
use super::frame::{AttributeFrame, BlockFrame, BlockStage, BodyFrame, Done, Frame, Next, Value};
use super::state::Parser;
use super::token::{Kind, Span};

const ITEM_REQUIRED: &str = "Argument or block definition required";
const ITEM_REQUIRED_HERE: &str = "An argument or block definition is required here.";
const ITEM_REQUIRED_EQUALS: &str = "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.";

impl Parser<'_> {
    pub(super) fn body(&mut self, mut f: BodyFrame, ret: Option<Done>) -> Next {
        if let Some(done) = ret {
            match done.value {
                Value::Item(Some(Item::Attribute(attr))) => {
                    if let Some(&existing) = f.names.get(&attr.name) {
                        let detail = Detail::At {
                            before: format!(
                                "The argument {} was already set at ",
                                go_quote(&attr.name)
                            ),
                            at: existing,
                            after: ". Each argument may be set only once.",
                        };
                        self.error("Attribute redefined", detail, attr.name_span);
                    } else {
                        f.names.insert(attr.name.clone(), attr.name_span);
                        if f.keep {
                            f.items.push(Item::Attribute(attr));
                        }
                    }
                }
                Value::Item(Some(block @ Item::Block(_))) if f.keep => f.items.push(block),
                _ => {}
            }
        }
        loop {
            let next = self.peek();
            if next.kind == f.end {
                self.read();
                return self.finish_body(f);
            }
            match next.kind {
                Kind::Newline => {
                    self.read();
                }
                Kind::Ident => {
                    if let Some(child) = self.body_item(f.keep) {
                        return Next::Call(Frame::Body(Box::new(f)), child);
                    }
                }
                _ => {
                    let bad = self.read();
                    if !self.recovery {
                        match bad.kind {
                            Kind::OQuote => self.error(
                                "Invalid argument name",
                                "Argument names must not be quoted.",
                                bad.span,
                            ),
                            Kind::Eof if f.end == Kind::CBrace => self.error(
                                "Unclosed configuration block",
                                "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                                f.start,
                            ),
                            Kind::Eof => self.error(
                                "Unclosed configuration body",
                                "Found end of file before the end of this configuration body.",
                                f.start,
                            ),
                            _ => self.error(
                                ITEM_REQUIRED,
                                ITEM_REQUIRED_HERE,
                                bad.span,
                            ),
                        }
                    }
                    self.recover(f.end);
                    return self.finish_body(f);
                }
            }
        }
    }

    /// Skips the rest of the item (`recoverAfterBodyItem`), then reports
    /// that an argument or block definition is required at `subject`.
    fn item_required(&mut self, detail: &'static str, subject: Span) {
        self.recover_after_body_item();
        self.error(ITEM_REQUIRED, detail, subject);
    }

    fn finish_body(&mut self, f: BodyFrame) -> Next {
        if f.end == Kind::CBrace && f.keep {
            self.kept_depth -= 1;
        }
        Next::Return(Value::Body(Body { items: f.items }))
    }

    /// `ParseBodyItem`: an attribute or a block after a name, or `None`
    /// when neither follows (the error found and skipped).
    fn body_item(&mut self, keep: bool) -> Option<Frame> {
        let ident = self.read();
        let next = self.peek();
        match next.kind {
            Kind::Equal => Some(Frame::Attribute(AttributeFrame::new(ident, false, keep))),
            Kind::OQuote | Kind::OBrace | Kind::Ident => Some(Frame::Block(Box::new(BlockFrame {
                ident,
                labels: Vec::new(),
                stage: BlockStage::Labels,
                open_brace: ident.span,
                mark: None,
                keep,
            }))),
            _ => {
                self.item_required(ITEM_REQUIRED_EQUALS, ident.span);
                None
            }
        }
    }

    pub(super) fn attribute(&mut self, mut f: AttributeFrame, ret: Option<Done>) -> Next {
        if !f.started {
            f.started = true;
            self.read(); // `=`
            return Next::Call(Frame::Attribute(f), Frame::expression());
        }
        let (value, errs) = match ret {
            Some(done) => {
                let errs = done.errs;
                (done.expr(), errs)
            }
            None => (Expr::other(f.name.span), false),
        };
        if self.recovery && errs {
            self.recover_after_body_item();
        } else if !f.single_line {
            let end = self.peek();
            if end.kind != Kind::Newline && end.kind != Kind::Eof {
                let (summary, detail) = if end.kind == Kind::Comma {
                    (
                        "Unexpected comma after argument",
                        "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
                    )
                } else {
                    (
                        "Missing newline after argument",
                        "An argument definition must end with a newline.",
                    )
                };
                self.error_outside_recovery(summary, detail, end.span);
                self.recover_after_body_item();
            } else {
                self.read();
            }
        }
        let name = self.token_text(f.name).to_owned();
        let value = if f.keep {
            value
        } else {
            Expr::other(value.span)
        };
        Next::Return(Value::Item(Some(attribute_item(name, f.name.span, value))))
    }

    pub(super) fn block(&mut self, mut f: Box<BlockFrame>, ret: Option<Done>) -> Next {
        match f.stage {
            BlockStage::Labels => self.block_labels(f),
            BlockStage::Body => {
                let body = match ret.map(|d| d.value) {
                    Some(Value::Body(body)) => body,
                    _ => Body::default(),
                };
                self.finish_block(*f, body)
            }
            BlockStage::SingleLine => {
                let body = match ret.map(|d| d.value) {
                    Some(Value::Item(Some(item))) => Body { items: vec![item] },
                    _ => Body::default(),
                };
                self.close_single_line(&mut f);
                self.finish_block(*f, body)
            }
        }
    }

    fn block_labels(&mut self, mut f: Box<BlockFrame>) -> Next {
        loop {
            let token = self.peek();
            match token.kind {
                Kind::OBrace => {
                    f.open_brace = self.read().span;
                    break;
                }
                Kind::OQuote => {
                    let label = self.quoted_string_literal();
                    if f.keep {
                        f.labels.push(label);
                    }
                }
                Kind::Ident => {
                    let token = self.read();
                    if f.keep {
                        f.labels.push(self.token_text(token).to_owned());
                    }
                }
                kind => {
                    match kind {
                        Kind::Equal => self.error(
                            "Invalid block definition",
                            "The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.",
                            token.span,
                        ),
                        Kind::Newline => self.error(
                            "Invalid block definition",
                            "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
                            token.span,
                        ),
                        _ if !self.recovery => self.error(
                            "Invalid block definition",
                            "Either a quoted string block label or an opening brace (\"{\") is expected here.",
                            token.span,
                        ),
                        _ => {}
                    }
                    self.recover_after_body_item();
                    let kind = self.token_text(f.ident).to_owned();
                    let item = block_item(kind, f.ident.span, f.labels, Body::default());
                    return Next::Return(Value::Item(Some(item)));
                }
            }
        }
        let keep_body = self.keep_nested(f.keep);
        match self.peek().kind {
            Kind::Newline | Kind::Eof | Kind::CBrace => {
                f.stage = BlockStage::Body;
                if keep_body {
                    self.kept_depth += 1;
                }
                let body = BodyFrame::new(Kind::CBrace, f.open_brace, keep_body);
                Next::Call(Frame::Block(f), Frame::Body(Box::new(body)))
            }
            _ => {
                f.stage = BlockStage::SingleLine;
                f.mark = Some(self.errors.mark());
                // `parseSingleAttrBody`.
                let ident = self.read();
                if ident.kind != Kind::Ident {
                    self.item_required(ITEM_REQUIRED_HERE, ident.span);
                    return self.block(f, None);
                }
                let next = self.peek();
                match next.kind {
                    Kind::Equal => {
                        let attr = AttributeFrame::new(ident, true, keep_body);
                        Next::Call(Frame::Block(f), Frame::Attribute(attr))
                    }
                    Kind::OQuote | Kind::OBrace | Kind::Ident => {
                        self.recover_after_body_item();
                        let name = go_quote(self.token_text(ident));
                        self.error(
                            "Argument definition required",
                            Detail::from(format!(
                                "A single-line block definition can contain only a single argument. If you meant to define argument {name}, use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block."
                            )),
                            ident.span.to(next.span),
                        );
                        self.block(f, None)
                    }
                    _ => {
                        self.item_required(ITEM_REQUIRED_EQUALS, ident.span);
                        self.block(f, None)
                    }
                }
            }
        }
    }

    /// After a one-line block's attribute: its closing brace.
    fn close_single_line(&mut self, f: &mut BlockFrame) {
        let mark = f.mark.unwrap_or_else(|| self.errors.mark());
        let next = self.peek();
        let invalid = "Invalid single-argument block definition";
        match next.kind {
            Kind::CBrace => {
                self.read();
                return;
            }
            Kind::Comma => self.errors.push_before(
                mark,
                invalid,
                "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.",
                next.span,
            ),
            Kind::Newline => self.errors.push_before(
                mark,
                invalid,
                "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
                next.span,
            ),
            Kind::Eof if !self.recovery => self.errors.push_before(
                mark,
                "Unclosed configuration block",
                "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                f.open_brace,
            ),
            _ if !self.recovery => self.errors.push_before(
                mark,
                invalid,
                "A single-line block definition must end with a closing brace immediately after its single argument definition.",
                next.span,
            ),
            _ => {}
        }
        if matches!(next.kind, Kind::Comma | Kind::Newline) || !self.recovery {
            self.mark_error();
        }
        self.recover(Kind::CBrace);
    }

    fn finish_block(&mut self, f: BlockFrame, body: Body) -> Next {
        let eol = self.peek();
        if eol.kind == Kind::Newline || eol.kind == Kind::Eof {
            self.read();
        } else {
            self.error_outside_recovery(
                "Missing newline after block definition",
                "A block definition must end with a newline.",
                eol.span,
            );
            self.recover_after_body_item();
        }
        let kind = self.token_text(f.ident).to_owned();
        let item = block_item(kind, f.ident.span, f.labels, body);
        Next::Return(Value::Item(Some(item)))
    }

    /// `parseQuotedStringLiteral`: a block label, a quoted string without
    /// template sequences.
    fn quoted_string_literal(&mut self) -> String {
        let open = self.read();
        let mut value = String::new();
        debug_assert_eq!(open.kind, Kind::OQuote);
        loop {
            let token = self.read();
            match token.kind {
                Kind::CQuote => break,
                Kind::QuotedLit => {
                    let piece = self.string_value(token);
                    value.push_str(&piece);
                }
                Kind::TemplateControl | Kind::TemplateInterp => {
                    let which = if token.kind == Kind::TemplateControl {
                        "%"
                    } else {
                        "$"
                    };
                    self.error(
                        "Invalid string literal",
                        Detail::from(format!(
                            "Template sequences are not allowed in this string. To include a literal {}, double it (as \"{which}{which}\") to escape it.",
                            go_quote(which)
                        )),
                        token.span,
                    );
                    value.push_str(which);
                    value.push_str("{ ... }");
                    self.recover(Kind::TemplateSeqEnd);
                }
                Kind::Eof => {
                    self.error(
                        "Unterminated string literal",
                        "Unable to find the closing quote mark before the end of the file.",
                        token.span,
                    );
                    break;
                }
                _ => {
                    self.error(
                        "Invalid string literal",
                        "This item is not valid in a string literal.",
                        token.span,
                    );
                    self.recover(Kind::CQuote);
                    break;
                }
            }
        }
        value
    }
}

/// An attribute and a block as a body item.
fn attribute_item(name: String, name_span: Span, value: Expr) -> Item {
    Item::Attribute(Attribute {
        name,
        name_span,
        value,
    })
}

fn block_item(kind: String, kind_span: Span, labels: Vec<String>, body: Body) -> Item {
    Item::Block(Block {
        kind,
        kind_span,
        labels,
        body,
    })
}
