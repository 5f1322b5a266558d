//! Why a transfer could not start ([`StartError`]), kept apart from what a
//! running transfer fails with ([`Error`]).

use std::fmt;

use super::{Error, ErrorKind};

/// Why a transfer could not start: what was asked for cannot be requested, and
/// nothing was sent.
///
/// The `Transfer` constructors (`Transfer::discovery`, `Transfer::provider_versions`,
/// …) return it; a transfer that started can only end in an [`Error`] of what
/// happened on the network and in the answer. It is one of:
///
/// - [`Error::UnusableHostname`]: a valid hostname no URL can carry
///   (`foo.123` reads as a bad IPv4 address);
/// - [`Error::InvalidSource`]: a source address a registry request cannot
///   use (a bare provider type, a legacy namespace);
/// - [`Error::InvalidArgument`]: a version or platform that does not parse,
///   or a URL that cannot be requested;
/// - [`Error::ServiceNotProvided`], [`Error::VersionNotSupported`],
///   [`Error::InvalidServiceUrl`]: the host's services give no usable
///   endpoint for the request.
///
/// It becomes that [`Error`] with `?` or [`StartError::into_error`], which
/// is what the clients return (their calls discover a host, then start a
/// transfer, then run it).
///
/// ```
/// use std::time::Instant;
/// use tfdisco_core::{Config, ErrorKind, Transfer, Hostname};
///
/// let host = Hostname::parse("foo.123")?;
/// let error = Transfer::discovery(host, &Config::default(), None, Instant::now()).unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::InvalidHostname);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct StartError(Error);

impl StartError {
    /// Wraps a failure found before the first request. Only errors of the
    /// kinds listed on [`StartError`] are made into one.
    pub(crate) fn new(error: Error) -> StartError {
        debug_assert!(
            matches!(
                error,
                Error::UnusableHostname { .. }
                    | Error::InvalidSource { .. }
                    | Error::InvalidArgument { .. }
                    | Error::ServiceNotProvided { .. }
                    | Error::VersionNotSupported { .. }
                    | Error::InvalidServiceUrl { .. }
            ),
            "not a start error: {error:?}"
        );
        StartError(error)
    }

    /// The stable kind of the failure.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind()
    }

    /// The failure, as the [`Error`] the clients return.
    pub fn error(&self) -> &Error {
        &self.0
    }

    /// The failure, as the [`Error`] the clients return.
    pub fn into_error(self) -> Error {
        self.0
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl From<StartError> for Error {
    fn from(error: StartError) -> Error {
        error.0
    }
}
