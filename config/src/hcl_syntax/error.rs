//! Syntax errors: every one the parser finds is offered, and the one
//! Terraform would show first is kept: Terraform sorts diagnostics by
//! where their subject starts, then where it ends, keeping the order they
//! were found in otherwise (`tfdiags.Diagnostics.Sort`), and hclsyntax
//! lists the scanner's errors before the parser's.

use std::borrow::Cow;
use std::fmt;

use super::position::line_column;
use super::token::Span;

/// The first syntax error of a text, in hclsyntax's words, with where it
/// is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    summary: Cow<'static, str>,
    detail: String,
    line: usize,
    column: usize,
    offset: usize,
}

impl SyntaxError {
    /// hclsyntax's summary (`Invalid expression`, `Unclosed configuration
    /// block`, …).
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// hclsyntax's detail.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The line (from 1) of the error's subject.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column (from 1, in grapheme clusters) of the error's subject.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The byte offset (from 0) of the error's subject.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.line, self.column, self.summary, self.detail
        )
    }
}

impl std::error::Error for SyntaxError {}

/// A diagnostic's detail: text, or text around a range of the file written
/// as hcl's `Range.String` writes it (`main.tf:3,5-8`), made only for the
/// error that is shown.
#[derive(Debug, Clone)]
pub(crate) enum Detail {
    Text(Cow<'static, str>),
    At {
        before: String,
        at: Span,
        after: &'static str,
    },
}

impl From<&'static str> for Detail {
    fn from(text: &'static str) -> Detail {
        Detail::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Detail {
    fn from(text: String) -> Detail {
        Detail::Text(Cow::Owned(text))
    }
}

#[derive(Debug, Clone)]
struct Found {
    summary: Cow<'static, str>,
    detail: Detail,
    subject: Span,
    /// Where it is in hclsyntax's list: the scanner's errors first (0),
    /// then the parser's, in the order found.
    order: (u8, u64, u8),
}

/// The errors found so far, of which only the first in Terraform's order
/// is kept.
#[derive(Debug, Default)]
pub(crate) struct Errors {
    first: Option<Found>,
    /// An error that stopped the parser: the one shown, whatever else was
    /// found.
    aborted: Option<Found>,
    found: u64,
    parser_found: u64,
}

/// A place in the parser's list of errors, to put an error before those
/// found since (see [`Errors::mark`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark(u64);

impl Errors {
    fn offer(&mut self, found: Found) {
        let key = |f: &Found| (f.subject.start, f.subject.end, f.order);
        if self
            .first
            .as_ref()
            .is_none_or(|first| key(&found) < key(first))
        {
            self.first = Some(found);
        }
    }

    /// An error of the scanner's.
    pub(crate) fn lexical(&mut self, summary: &'static str, detail: &'static str, subject: Span) {
        self.found += 1;
        let order = (0, self.found, 0);
        self.offer(Found {
            summary: Cow::Borrowed(summary),
            detail: detail.into(),
            subject,
            order,
        });
    }

    /// An error of the parser's.
    pub(crate) fn push(
        &mut self,
        summary: impl Into<Cow<'static, str>>,
        detail: impl Into<Detail>,
        subject: Span,
    ) {
        self.found += 1;
        self.parser_found += 1;
        let order = (1, self.found, 1);
        self.offer(Found {
            summary: summary.into(),
            detail: detail.into(),
            subject,
            order,
        });
    }

    /// An error after which the parser stops.
    pub(crate) fn abort(&mut self, summary: &'static str, detail: String, subject: Span) {
        self.aborted = Some(Found {
            summary: Cow::Borrowed(summary),
            detail: detail.into(),
            subject,
            order: (2, 0, 0),
        });
    }

    /// The place after the errors found so far.
    pub(crate) fn mark(&self) -> Mark {
        Mark(self.found + 1)
    }

    /// An error that hclsyntax lists before those found since `mark`.
    pub(crate) fn push_before(
        &mut self,
        mark: Mark,
        summary: &'static str,
        detail: &'static str,
        subject: Span,
    ) {
        self.offer(Found {
            summary: Cow::Borrowed(summary),
            detail: detail.into(),
            subject,
            order: (1, mark.0, 0),
        });
    }

    /// How many errors the parser (not the scanner) found.
    pub(crate) fn parser_errors(&self) -> u64 {
        self.parser_found
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// The first error, with its position in `text` (named `filename` in
    /// details that name a place).
    pub(crate) fn into_first(self, text: &str, filename: &str) -> Option<SyntaxError> {
        let found = self.aborted.or(self.first)?;
        let (line, column) = line_column(text, found.subject.start);
        let detail = match found.detail {
            Detail::Text(text) => text.into_owned(),
            Detail::At { before, at, after } => {
                format!("{before}{}{after}", range_string(text, filename, at))
            }
        };
        Some(SyntaxError {
            summary: found.summary,
            detail,
            line,
            column,
            offset: found.subject.start,
        })
    }
}

/// hcl's `Range.String()`: `file:line,column-column`, or
/// `file:line,column-line,column` across lines.
fn range_string(text: &str, filename: &str, span: Span) -> String {
    let (l1, c1) = line_column(text, span.start);
    let (l2, c2) = line_column(text, span.end);
    if l1 == l2 {
        format!("{filename}:{l1},{c1}-{c2}")
    } else {
        format!("{filename}:{l1},{c1}-{l2},{c2}")
    }
}
