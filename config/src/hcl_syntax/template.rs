//! Quoted strings and heredocs (hclsyntax's `parseTemplateInner`,
//! `parseTemplateParts`, `flushHeredocTemplateParts` and the
//! `templateParser` that matches `%{ if }` / `%{ for }` directives with
//! their ends).

use tfdisco_core::go_quote;

use super::ast::{Expr, ExprKind};
use super::error::Detail;
use super::frame::{Done, Frame, Next, Part, TemplateFrame, TemplateStage, Value};
use super::position::{clusters_len, graphemes};
use super::state::Parser;
use super::token::{Kind, Span, Token};

const CONTROL_KEYWORDS: [&str; 5] = ["if", "for", "else", "endif", "endfor"];

impl Parser<'_> {
    pub(super) fn template(&mut self, mut f: Box<TemplateFrame>, ret: Option<Done>) -> Next {
        let start = match f.start {
            Some(start) => start,
            None => {
                let start = self.peek().span;
                f.start = Some(start);
                start
            }
        };
        let end_kind = f.end_kind();
        match f.stage {
            TemplateStage::Parts => {}
            TemplateStage::Interp => {
                self.close_sequence(&mut f, |parser, close| {
                    parser.unclosed_interpolation(close, start, end_kind);
                });
                f.parts.push(Part::Interp);
            }
            TemplateStage::If(opener) => {
                let span = opener.span.to(self.peek().span);
                f.parts.push(Part::If(span));
                self.close_directive(&mut f, "if");
            }
            TemplateStage::For(opener) => {
                let span = opener.span.to(self.peek().span);
                f.parts.push(Part::For(span));
                self.close_directive(&mut f, "for");
            }
        }
        f.stage = TemplateStage::Parts;
        let _ = ret;
        let end = loop {
            let next = self.read();
            if next.kind == end_kind {
                break next.span;
            }
            let ltrim = std::mem::take(&mut f.ltrim_next);
            let can_trim_prev = std::mem::take(&mut f.next_can_trim_prev);
            match next.kind {
                Kind::StringLit | Kind::QuotedLit => {
                    let mut value = self.string_value(next);
                    if ltrim {
                        value = value.trim_start_matches(char::is_whitespace).to_owned();
                    }
                    f.parts.push(Part::Literal(value));
                    f.next_can_trim_prev = true;
                }
                Kind::TemplateInterp | Kind::TemplateControl => {
                    if can_trim_prev
                        && self.token_text(next).ends_with('~')
                        && let Some(Part::Literal(value)) = f.parts.last_mut()
                    {
                        let trimmed = value.trim_end_matches(char::is_whitespace).len();
                        value.truncate(trimmed);
                    }
                    self.p.push_newlines(false);
                    if next.kind == Kind::TemplateInterp {
                        f.stage = TemplateStage::Interp;
                        return Next::Call(Frame::Template(f), Frame::expression());
                    }
                    if let Some(child) = self.directive(&mut f, next) {
                        return Next::Call(Frame::Template(f), child);
                    }
                }
                _ => {
                    self.error_outside_recovery(
                        "Unterminated template string",
                        "No closing marker was found for the string.",
                        next.span,
                    );
                    break self.recover(end_kind).span;
                }
            }
        };
        self.finish_template(*f, end)
    }

    /// The keyword of a `%{` directive and what follows it up to the
    /// expression, if it has one (returning the frame that reads it).
    fn directive(&mut self, f: &mut TemplateFrame, opener: Token) -> Option<Frame> {
        let keyword = self.peek();
        if keyword.kind != Kind::Ident {
            self.error_outside_recovery(
                "Invalid template directive",
                "A template directive keyword (\"if\", \"for\", etc) is expected at the beginning of a %{ sequence.",
                keyword.span,
            );
            self.recover(Kind::TemplateSeqEnd);
            self.p.pop_newlines();
            return None;
        }
        self.read();
        let word = self.token_text(keyword);
        match word {
            "if" => {
                f.stage = TemplateStage::If(opener);
                Some(Frame::expression())
            }
            "else" | "endif" | "endfor" => {
                let span = opener.span.to(self.peek().span);
                f.parts.push(match word {
                    "else" => Part::Else(span),
                    "endif" => Part::EndIf(span),
                    _ => Part::EndFor(span),
                });
                self.close_directive(f, word);
                None
            }
            "for" => {
                let failed = |parser: &mut Self, detail: &'static str| {
                    if !parser.recovery {
                        let span = parser.peek().span;
                        parser.error("Invalid 'for' directive", detail, span);
                    }
                    parser.recover(Kind::TemplateSeqEnd);
                    parser.p.pop_newlines();
                    None
                };
                if self.peek().kind != Kind::Ident {
                    return failed(self, "For directive requires variable name after 'for'.");
                }
                self.read();
                if self.peek().kind == Kind::Comma {
                    self.read();
                    if self.peek().kind != Kind::Ident {
                        return failed(
                            self,
                            "For directive requires value variable name after comma.",
                        );
                    }
                    self.read();
                }
                let next = self.peek();
                if !self.is_keyword(next, "in") {
                    return failed(self, "For directive requires 'in' keyword after names.");
                }
                self.read();
                f.stage = TemplateStage::For(opener);
                Some(Frame::expression())
            }
            given => {
                if !self.recovery {
                    let suggestion = CONTROL_KEYWORDS
                        .iter()
                        .find(|k| levenshtein(given, k) < 3)
                        .map_or(String::new(), |k| format!(" Did you mean {}?", go_quote(k)));
                    self.error(
                        "Invalid template control keyword",
                        Detail::from(format!(
                            "{} is not a valid template control keyword.{suggestion}",
                            go_quote(given)
                        )),
                        keyword.span,
                    );
                }
                self.recover(Kind::TemplateSeqEnd);
                self.p.pop_newlines();
                None
            }
        }
    }

    /// The `}` (or `~}`) that ends a directive.
    fn close_directive(&mut self, f: &mut TemplateFrame, keyword: &str) {
        self.close_sequence(f, |parser, close| {
            parser.error(
                format!("Extra characters in {keyword} marker"),
                "Expected a closing brace to end the sequence, but found extra characters.",
                close.span,
            );
        });
    }

    /// The `}` (or `~}`) that ends a `${` or `%{` sequence: anything else
    /// is reported by `extra` (outside recovery mode) and skipped.
    fn close_sequence(&mut self, f: &mut TemplateFrame, extra: impl FnOnce(&mut Self, Token)) {
        let close = self.peek();
        if close.kind != Kind::TemplateSeqEnd {
            if !self.recovery {
                extra(self, close);
            }
            self.recover(Kind::TemplateSeqEnd);
        } else {
            self.read();
            if self.token_text(close).starts_with('~') {
                f.ltrim_next = true;
            }
        }
        self.p.pop_newlines();
    }

    /// The error for `close`, which stands where a `${` sequence's `}`
    /// should (`start`: the template's first token, `end_kind`: what ends
    /// the template).
    fn unclosed_interpolation(&mut self, close: Token, start: Span, end_kind: Kind) {
        match close.kind {
            Kind::Eof => self.error(
                "Unclosed template interpolation sequence",
                "There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.",
                start,
            ),
            Kind::Colon => self.error(
                "Extra characters after interpolation expression",
                "Template interpolation doesn't expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with \"$${\" instead of just \"${\".",
                close.span,
            ),
            Kind::CQuote | Kind::OQuote if end_kind == Kind::CQuote => self.error(
                "Unclosed template interpolation sequence",
                "There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.",
                start,
            ),
            _ => self.error(
                "Extra characters after interpolation expression",
                "Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with \"$${\" instead of just \"${\".",
                close.span,
            ),
        }
    }

    fn finish_template(&mut self, mut f: TemplateFrame, end: Span) -> Next {
        if f.parts.is_empty() {
            f.parts.push(Part::Literal(String::new()));
        }
        if self.token_text(f.open).starts_with("<<-") {
            flush_heredoc(&mut f.parts);
        }
        self.match_directives(&f.parts, end);
        let span = f.open.span.to(self.prev_span());
        let literal = f.parts.iter().all(|p| matches!(p, Part::Literal(_)));
        let kind = if literal {
            let mut text = String::new();
            for part in &f.parts {
                if let Part::Literal(value) = part {
                    text.push_str(value);
                }
            }
            ExprKind::String(text)
        } else {
            ExprKind::Template
        };
        Next::Return(Value::Expr(Expr { kind, span }))
    }

    /// The `templateParser`'s errors: directives matched with their ends,
    /// with a stack of the open `if` and `for` directives in place of its
    /// recursion. `end` is where the template ends.
    fn match_directives(&mut self, parts: &[Part], end: Span) {
        // Each open directive: its span, whether it is an `if`, and whether
        // its `else` was seen.
        let mut open: Vec<(Span, bool, bool)> = Vec::new();
        for part in parts {
            match *part {
                Part::Literal(_) | Part::Interp => {}
                Part::If(span) => open.push((span, true, false)),
                Part::For(span) => open.push((span, false, false)),
                Part::Else(span) => match open.last_mut() {
                    Some((_, true, in_else @ false)) => *in_else = true,
                    Some(&mut (at, true, true)) => {
                        self.error(
                            "Unexpected else directive",
                            Detail::At {
                                before: "Already in the else clause for the if started at ".into(),
                                at,
                                after: ".",
                            },
                            span,
                        );
                        open.pop();
                    }
                    Some((_, false, _)) => {
                        self.error(
                            "Unexpected else directive",
                            "An else clause is not expected for a for directive.",
                            span,
                        );
                        open.pop();
                    }
                    None => self.unbalanced("else", span),
                },
                Part::EndIf(span) => self.end_directive(&mut open, true, span),
                Part::EndFor(span) => self.end_directive(&mut open, false, span),
            }
        }
        // Each directive still open is missing its end, innermost first.
        while let Some((at, is_if, _)) = open.pop() {
            let (before, after) = if is_if {
                (
                    "The if directive at ",
                    " is missing its corresponding endif directive.",
                )
            } else {
                (
                    "The for directive at ",
                    " is missing its corresponding endfor directive.",
                )
            };
            self.error(
                "Unexpected end of template",
                Detail::At {
                    before: before.into(),
                    at,
                    after,
                },
                end,
            );
        }
    }

    /// An `endif` (`ends_if`) or an `endfor` at `span`: it ends the
    /// innermost open directive, which must be of its kind.
    fn end_directive(&mut self, open: &mut Vec<(Span, bool, bool)>, ends_if: bool, span: Span) {
        let (name, expecting) = if ends_if {
            (
                "endif",
                "Expecting an endfor directive corresponding to the for directive at ",
            )
        } else {
            (
                "endfor",
                "Expecting an endif directive for the if started at ",
            )
        };
        match open.last() {
            Some(&(_, is_if, _)) if is_if == ends_if => {}
            Some(&(at, _, _)) => self.error(
                format!("Unexpected {name} directive"),
                Detail::At {
                    before: expecting.into(),
                    at,
                    after: ".",
                },
                span,
            ),
            None => return self.unbalanced(name, span),
        }
        open.pop();
    }

    fn unbalanced(&mut self, name: &str, span: Span) {
        self.error(
            format!("Unexpected {name} directive"),
            "The control directives within this template are unbalanced.",
            span,
        );
    }
}

/// `flushHeredocTemplateParts`: the smallest indentation of the heredoc's
/// lines (in grapheme clusters; blank lines do not count, and a line that
/// starts with an interpolation or directive has none) is removed from
/// each line that starts with literal text.
fn flush_heredoc(parts: &mut [Part]) {
    let mut min = usize::MAX;
    let mut newline = true;
    let mut adjust = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if newline {
            newline = false;
            let spaces = match part {
                Part::Literal(value) => {
                    let trimmed = value.trim_start_matches(char::is_whitespace);
                    if trimmed.is_empty() && value.ends_with('\n') {
                        usize::MAX
                    } else {
                        adjust.push(i);
                        graphemes(&value[..value.len() - trimmed.len()])
                    }
                }
                _ => 0,
            };
            min = min.min(spaces);
        }
        if let Part::Literal(value) = part
            && value.ends_with('\n')
        {
            newline = true;
        }
    }
    if min == usize::MAX {
        return;
    }
    for i in adjust {
        if let Part::Literal(value) = &mut parts[i] {
            let cut = clusters_len(value, min);
            value.drain(..cut);
        }
    }
}

/// The Levenshtein distance of two words (in characters).
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let value = (prev + cost).min(row[j] + 1).min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = value;
        }
    }
    row[b.len()]
}
