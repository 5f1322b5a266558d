//! A command's failure: one line for people, an exit code for scripts.

use std::fmt;

use crate::exit;

/// What went wrong, and the exit code it means.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) message: String,
    /// The `kind` shown in `--json` output.
    pub(crate) kind: &'static str,
}

impl Failure {
    pub(crate) fn new(code: u8, kind: &'static str, message: impl fmt::Display) -> Failure {
        Failure {
            code,
            message: message.to_string(),
            kind,
        }
    }
}

impl From<tfdisco_core::Error> for Failure {
    fn from(e: tfdisco_core::Error) -> Failure {
        Failure::new(exit::for_kind(e.kind()), e.kind().as_str(), e)
    }
}

impl From<std::io::Error> for Failure {
    /// A closed stdout (`tfdisco … | head`) ends the command quietly.
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::new(exit::SUCCESS, BROKEN_PIPE, "")
        } else {
            Failure::new(exit::DISCOVERY_FAILED, "io", e)
        }
    }
}

/// The kind of a failure that is not worth a message.
pub(crate) const BROKEN_PIPE: &str = "broken_pipe";
