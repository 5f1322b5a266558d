//! What the configuration and lock-file readers share: files read with a
//! size limit (the CLI configuration's and OCI credentials' readers too), HCL native syntax parsed as Terraform parses it
//! (docs/behaviour.md, TFCFG-8), and line numbers of byte offsets.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use crate::Diagnostic;
use crate::hcl_syntax::{self, Body, Span};

/// Files larger than this are not read (they are a mistake): CLI
/// configuration files, `.tf` files, lock files and Docker-style
/// credentials files.
pub(crate) const MAX_FILE_SIZE: u64 = 16 << 20;

/// A UTF-8 text file of at most [`MAX_FILE_SIZE`] bytes.
pub(crate) fn read_limited(path: &Path) -> io::Result<String> {
    let bytes = read_limited_bytes(path)?;
    String::from_utf8(bytes).map_err(|_| io::Error::other("file is not valid UTF-8"))
}

/// A file of at most [`MAX_FILE_SIZE`] bytes.
pub(crate) fn read_limited_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(io::Error::other("file is larger than 16 MiB"));
    }
    Ok(bytes)
}

/// Parses HCL native syntax as Terraform does. A syntax error is one
/// diagnostic, Terraform's first, in hclsyntax's words, with the file,
/// line and column.
pub(crate) fn parse_body(path: &Path, text: &str) -> Result<Body, Diagnostic> {
    hcl_syntax::parse(text, &path.display().to_string()).map_err(|e| {
        Diagnostic::with_detail(e.summary(), e.detail())
            .at(path, Some(e.line()))
            .at_column(e.column())
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

    /// The line a parsed item starts on.
    pub(crate) fn of(&self, span: Span) -> Option<usize> {
        Some(self.line(span.start))
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
    fn syntax_errors_name_the_file_line_and_column() {
        let diag = parse_body(Path::new("x.tf"), "a = 1\nb = (2\n").expect_err("unbalanced");
        assert_eq!(diag.summary(), "Unbalanced parentheses");
        assert_eq!((diag.line(), diag.column()), (Some(3), Some(1)));
        assert_eq!(
            diag.located(),
            "x.tf:3:1: Unbalanced parentheses: Expected a closing parenthesis to terminate the expression."
        );
        let diag = parse_body(Path::new("x.tf"), "a = 1\na = 2\n").expect_err("twice");
        assert_eq!(
            diag.to_string(),
            "Attribute redefined: The argument \"a\" was already set at x.tf:1,1-2. Each argument may be set only once."
        );
    }

    #[test]
    fn deep_text_is_read() {
        let text = format!("a = {}1{}\n", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_body(Path::new("x.tf"), &text).is_ok());
    }
}
