//! What the configuration and lock-file readers share: files read with a
//! size limit, HCL text parsed behind the nesting check (docs/behaviour.md,
//! CFG-9), and line numbers of byte offsets.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use hcl::edit::structure::Body;

use crate::{Diagnostic, nesting};

/// Files larger than this are not read, as for the CLI configuration.
pub(crate) const MAX_FILE_SIZE: u64 = 16 << 20;

/// A UTF-8 text file of at most [`MAX_FILE_SIZE`] bytes.
pub(crate) fn read_limited(path: &Path) -> io::Result<String> {
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(io::Error::other("file is larger than 16 MiB"));
    }
    String::from_utf8(bytes).map_err(|_| io::Error::other("file is not valid UTF-8"))
}

/// Parses HCL native syntax, refusing first what the parser would take too
/// long to read (CFG-9). A refusal or syntax error is one diagnostic with
/// the file and line.
pub(crate) fn parse_body(path: &Path, text: &str) -> Result<Body, Diagnostic> {
    if let Err(rejected) = nesting::check(text) {
        return Err(Diagnostic::with_detail(
            "Unsupported HCL text",
            format!(
                "line {}, column {}: {}",
                rejected.line, rejected.column, rejected.reason
            ),
        )
        .at(path, Some(rejected.line)));
    }
    hcl::edit::parser::parse_body(text).map_err(|e| {
        let at = e.location();
        if e.message().contains("redefined attribute") {
            // The parser refuses a second attribute of the same name, as
            // HCL does; say it in HCL's words.
            let key: String = e
                .line()
                .chars()
                .skip(at.column().saturating_sub(1))
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == '-')
                .collect();
            return Diagnostic::with_detail(
                "Attribute redefined",
                format!(
                    "The argument {} was already set. Each argument may be set only once.",
                    tfdisco_core::go_quote(&key)
                ),
            )
            .at(path, Some(at.line()));
        }
        Diagnostic::with_detail(
            "Invalid HCL syntax",
            format!(
                "line {}, column {}: {}",
                at.line(),
                at.column(),
                e.message()
            ),
        )
        .at(path, Some(at.line()))
    })
}

/// Line numbers (from 1) of byte offsets, in logarithmic time each.
pub(crate) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { starts }
    }

    /// The line of `offset`; the last line for offsets past the end.
    pub(crate) fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }

    /// The line a parsed item starts on, when the parser kept its span.
    pub(crate) fn of(&self, item: &impl hcl::edit::Span) -> Option<usize> {
        item.span().map(|span| self.line(span.start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_offsets() {
        let lines = Lines::new("a\nbc\n\nd");
        assert_eq!(
            [0, 1, 2, 4, 5, 6, 99].map(|o| lines.line(o)),
            [1, 1, 2, 2, 3, 4, 4]
        );
    }

    #[test]
    fn deep_text_is_refused_before_parsing() {
        let text = format!("a = {}1{}\n", "[".repeat(40), "]".repeat(40));
        let diag = parse_body(Path::new("x.tf"), &text).expect_err("too deep");
        assert_eq!(diag.summary(), "Unsupported HCL text");
        assert_eq!(diag.line(), Some(1));
    }
}
