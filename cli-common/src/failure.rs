//! A command's failure: one line for people, an exit code for scripts.

use std::fmt;
use std::process::ExitCode;

use tfdisco_runs::{OptionError, kinds};

use crate::exit;

/// What went wrong, and the exit code it means: a failure of the tool
/// itself (a bad option, say), or a discovery or registry error.
#[derive(Debug)]
pub struct Failure {
    /// The exit code (`crate::exit`).
    pub code: u8,
    /// The line for people.
    pub message: String,
    /// The `kind` shown in `--json` output.
    pub kind: &'static str,
    /// A suggestion for people, printed after the message.
    pub hint: Option<&'static str>,
    /// The core error behind it, which `--json` reports on stdout.
    pub error: Option<Box<tfdisco_core::Error>>,
}

impl Failure {
    /// A failure of `kind` with `message`, exiting with `code`.
    pub fn new(code: u8, kind: &'static str, message: impl fmt::Display) -> Failure {
        Failure {
            code,
            message: message.to_string(),
            kind,
            hint: None,
            error: None,
        }
    }
}

impl From<tfdisco_core::Error> for Failure {
    fn from(e: tfdisco_core::Error) -> Failure {
        let mut failure = Failure::new(exit::for_kind(e.kind()), e.kind().as_str(), &e);
        failure.hint = hint(&e);
        failure.error = Some(Box::new(e));
        failure
    }
}

/// What to try next, for the failures people hit most.
pub fn hint(e: &tfdisco_core::Error) -> Option<&'static str> {
    use tfdisco_core::{Error, TransportErrorKind};
    match e {
        Error::Transport { error, .. }
            if matches!(
                error.kind(),
                TransportErrorKind::Tls | TransportErrorKind::Certificate
            ) =>
        {
            Some("if the server uses a private CA, trust it with --ca-file FILE (or SSL_CERT_FILE)")
        }
        Error::InsecureRedirect { .. } => {
            Some("for a development server, allow plain http with --insecure-http HOST")
        }
        Error::Timeout { .. } => Some("allow more time with --timeout SECS"),
        _ => None,
    }
}

impl From<std::io::Error> for Failure {
    /// A closed stdout (`tfdisco … | head`) ends the command quietly.
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::new(exit::SUCCESS, BROKEN_PIPE, "")
        } else {
            Failure::new(exit::FAILED, "io", e)
        }
    }
}

/// The kind of a failure that is not worth a message.
pub const BROKEN_PIPE: &str = "broken_pipe";

/// Runs a command; with `json`, a failure that carries a core error is
/// printed as JSON on stdout, `{"error": {kind, message}}` (the library's
/// serialization of the error). The exit code is the same either way.
pub fn report(json: bool, result: Result<u8, Failure>) -> Result<u8, Failure> {
    match result {
        Err(Failure {
            code,
            error: Some(error),
            ..
        }) if json => {
            println!("{}", json_text(&serde_json::json!({ "error": error })));
            Ok(code)
        }
        other => other,
    }
}

/// A report as the library serializes it (one line of JSON): what every
/// `--json` prints.
pub fn json_text(report: &impl serde::Serialize) -> String {
    serde_json::to_string(report).unwrap_or_else(|e| {
        serde_json::json!({ "error": { "kind": "json", "message": e.to_string() } }).to_string()
    })
}

/// An option that cannot be used: a usage error (exit 2).
pub fn option_failure(e: impl Into<OptionError>) -> Failure {
    Failure::new(exit::USAGE, kinds::INVALID_OPTION, e.into())
}

/// The exit code of a command's `result`; a failure is printed on stderr
/// first, as `PROGRAM: message` and its hint (a closed stdout quietly).
pub fn exit_code(program: &str, result: Result<u8, Failure>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) if f.kind == BROKEN_PIPE => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{program}: {}", f.message);
            if let Some(hint) = f.hint {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(f.code)
        }
    }
}
