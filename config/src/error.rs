//! The errors of credentials lookups, helper programs and credential stores.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use tfdisco_core::Hostname;

use crate::Origin;

/// Why a credentials lookup, store or forget failed.
///
/// The messages keep the Go implementations' texts where Go has the same
/// failure (docs/behaviour.md, CRED-7, CRED-8). No message contains a token.
///
/// [`CredentialsSource`](tfdisco_core::CredentialsSource) and
/// [`CredentialsStore`](crate::CredentialsStore) return errors boxed; those
/// produced by this crate downcast to `Error`:
///
/// ```
/// use tfdisco_config::{Error, HelperProgram};
///
/// let err = HelperProgram::new("relative/helper", Vec::<String>::new()).expect_err("relative");
/// assert!(matches!(err, Error::HelperPathNotAbsolute { .. }));
/// let boxed: tfdisco_core::CredentialsError = Box::new(err);
/// assert!(boxed.downcast_ref::<Error>().is_some());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A helper program was given by a relative path (Go panics here).
    HelperPathNotAbsolute {
        /// The path as given.
        path: PathBuf,
    },
    /// The helper program could not be started.
    HelperStart {
        /// The helper's executable.
        executable: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The helper program exited unsuccessfully and said why on stderr.
    HelperFailed {
        /// The helper's executable.
        executable: PathBuf,
        /// Its standard error, without trailing white space (at most 64 KiB).
        stderr: String,
    },
    /// The helper program exited unsuccessfully without writing to stderr.
    HelperNoMessage {
        /// The helper's executable.
        executable: PathBuf,
    },
    /// The output of a helper's `get` is not a JSON object (or `null`), or
    /// the token in it cannot be sent in an HTTP header.
    HelperMalformedOutput {
        /// The helper's executable.
        executable: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The helper program did not finish in time and was killed.
    HelperTimeout {
        /// The helper's executable.
        executable: PathBuf,
        /// How long it was given.
        timeout: Duration,
    },
    /// A configured token cannot be sent in an HTTP header (control
    /// characters, line breaks, or not UTF-8).
    InvalidToken {
        /// Where the token comes from.
        origin: Origin,
    },
    /// The host's credentials are in a CLI config file other than
    /// `credentials.tfrc.json`, which tfdisco never edits.
    Unwritable {
        /// The host.
        host: Hostname,
    },
    /// There is nowhere to store credentials (no home directory, and no
    /// helper program).
    NoStore,
    /// `credentials.tfrc.json` could not be read, parsed or replaced.
    CredentialsFile {
        /// What went wrong, naming the file.
        message: String,
        /// The I/O error behind it, if any.
        source: Option<io::Error>,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::HelperPathNotAbsolute { path } => write!(
                f,
                "credentials helper requires absolute path to executable, not {}",
                path.display()
            ),
            Error::HelperStart { executable, source } => {
                write!(f, "failed to run {}: {source}", executable.display())
            }
            Error::HelperFailed { executable, stderr } => {
                write!(f, "error in {}: {stderr}", executable.display())
            }
            Error::HelperNoMessage { executable } => write!(
                f,
                "error in {}, but it produced no error message",
                executable.display()
            ),
            Error::HelperMalformedOutput { executable, detail } => {
                write!(
                    f,
                    "malformed output from {}: {detail}",
                    executable.display()
                )
            }
            Error::HelperTimeout {
                executable,
                timeout,
            } => write!(
                f,
                "{} did not finish within {timeout:?} and was killed",
                executable.display()
            ),
            Error::InvalidToken { origin } => write!(
                f,
                "the token from {origin} contains characters that cannot be sent in an HTTP header"
            ),
            Error::Unwritable { host } => write!(
                f,
                "cannot change credentials for {}: existing manually-configured credentials in a CLI config file",
                host.display()
            ),
            Error::NoStore => f.write_str("no credentials store is available"),
            Error::CredentialsFile { message, .. } => f.write_str(message),
        }
    }
}

/// The messages already include the underlying I/O error (as Go's do), so
/// `source()` is not set: error reporters would print it twice.
impl std::error::Error for Error {}
