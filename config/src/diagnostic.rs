//! Problems found while loading CLI configuration. None of them is fatal.

use std::fmt;
use std::path::{Path, PathBuf};

/// How serious a [`Diagnostic`] is. As in Terraform and OpenTofu, neither
/// stops anything: the CLI prints them and goes on with what could be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Something in the configuration is wrong and was skipped.
    Error,
    /// Something looks off but nothing was lost (a missing override file).
    Warning,
}

/// One problem with the CLI configuration: a file that cannot be read or
/// parsed, a block with an invalid hostname, a second `credentials_helper`.
///
/// [`message`](Diagnostic::message) (also what `Display` shows) is the Go
/// text where Go has one, e.g. ``The credentials "bad host" block has an
/// invalid hostname: …``; [`file`](Diagnostic::file) and
/// [`line`](Diagnostic::line) say where, when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    severity: Severity,
    summary: String,
    detail: Option<String>,
    file: Option<PathBuf>,
    line: Option<usize>,
    column: Option<usize>,
}

impl Diagnostic {
    pub(crate) fn error(summary: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: None,
            file: None,
            line: None,
            column: None,
        }
    }

    /// An error with a summary and a detail, as the CLIs word them.
    pub fn with_detail(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: Some(detail.into()),
            file: None,
            line: None,
            column: None,
        }
    }

    pub(crate) fn warning(summary: impl Into<String>, detail: Option<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            summary: summary.into(),
            detail,
            file: None,
            line: None,
            column: None,
        }
    }

    /// The same diagnostic, about `file` (at `line`, when known).
    pub fn at(mut self, file: &Path, line: Option<usize>) -> Diagnostic {
        self.file = Some(file.to_owned());
        self.line = line;
        self
    }

    pub(crate) fn at_column(mut self, column: usize) -> Diagnostic {
        self.column = Some(column);
        self
    }

    /// How serious it is.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// The one-line summary, e.g. `Error parsing /home/me/.tofurc: line 3,
    /// column 7: …`.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// More detail, when there is some.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The summary and, when there is one, the detail: `summary: detail`.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The file the problem is in, when it is in one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The line (from 1) the problem is on, when known.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The column (from 1, in characters as Terraform counts them) the
    /// problem starts at, when known: for syntax errors in configurations
    /// and lock files.
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// The message after where the problem is, as compilers print theirs:
    /// `main.tf:3:7: message`, `/home/me/.tofurc:3: message`,
    /// `/home/me/.tofurc: message`, or the message alone.
    pub fn located(&self) -> String {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => match self.column {
                Some(column) => format!("{}:{line}:{column}: {self}", file.display()),
                None => format!("{}:{line}: {self}", file.display()),
            },
            (Some(file), None) => format!("{}: {self}", file.display()),
            _ => self.to_string(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary)?;
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        Ok(())
    }
}
