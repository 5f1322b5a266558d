//! The one error type of the core, the transport failures it wraps, and the
//! failures that keep a transfer from starting.

mod start;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http::StatusCode;
use url::Url;

use crate::{HostnameError, RegistryCall, ServiceIdError, SourceError};

pub use start::StartError;

/// Everything that can go wrong in discovery and in reading its result.
///
/// URLs are boxed to keep the error (and every `Result` carrying it) small.
///
/// Messages name what was wrong and where (the input, the URL, the status,
/// the header value) and never contain credentials. Where Go has the same
/// failure the message keeps Go's words, so people can search for them.
/// [`Error::kind`] gives a stable identifier for programs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Error {
    /// The hostname the caller gave is not valid (the error names it).
    InvalidHostname(HostnameError),
    /// A valid hostname that no URL can carry (`foo.123` reads as a bad IPv4 address).
    UnusableHostname {
        /// The hostname.
        host: String,
        /// Why no discovery URL can be built.
        reason: String,
    },
    /// The service id the caller gave does not parse.
    InvalidServiceId(ServiceIdError),
    /// The host offers no service of that name.
    ServiceNotProvided {
        /// The host's display form.
        host: String,
        /// The service name (before the dot).
        service: String,
    },
    /// The host offers the service, but not in the requested version.
    VersionNotSupported {
        /// The host's display form.
        host: String,
        /// The service name.
        service: String,
        /// The requested version as the dialect shows it.
        version: String,
    },
    /// The document's URL for a service is unusable.
    InvalidServiceUrl {
        /// The host's display form.
        host: String,
        /// The service id.
        id: String,
        /// What is wrong, in Go's words (`unsupported scheme ftp`).
        problem: String,
    },
    /// The document's `login.v1`-style OAuth client definition is unusable.
    InvalidOAuthClient {
        /// The host's display form.
        host: String,
        /// The service id.
        id: String,
        /// What is wrong, in Go's words.
        problem: String,
    },
    /// The transport could not perform a request (DNS, connect, TLS, I/O).
    Transport {
        /// The request URL.
        url: Box<Url>,
        /// What the transport reported.
        error: TransportError,
    },
    /// The transfer, or one attempt of it, did not finish within the time
    /// allowed.
    Timeout {
        /// The request under way when time ran out.
        url: Box<Url>,
        /// The time allowed: for the whole transfer, or for each attempt.
        timeout: Duration,
        /// True when the time allowed for one attempt ran out (a registry
        /// request's, RETRY-8); false for the whole transfer's.
        per_attempt: bool,
    },
    /// The server answered with a status other than 200, 404 or a redirect.
    Status {
        /// The request URL.
        url: Box<Url>,
        /// The status.
        status: StatusCode,
    },
    /// The `Content-Type` header is missing or does not parse.
    MalformedContentType {
        /// The request URL.
        url: Box<Url>,
        /// The header as received (empty when missing).
        value: String,
    },
    /// The media type is not `application/json`.
    UnsupportedContentType {
        /// The request URL.
        url: Box<Url>,
        /// The media type, lower-cased, without parameters.
        media_type: String,
    },
    /// The response's `Content-Encoding` is neither gzip nor identity.
    UnsupportedContentEncoding {
        /// The request URL.
        url: Box<Url>,
        /// The header as received (a list when there were several).
        encoding: String,
    },
    /// A gzip body that does not decode.
    InvalidGzip {
        /// The request URL.
        url: Box<Url>,
        /// What the decoder found wrong.
        problem: String,
    },
    /// The document is larger than the limit (D6: declared or streamed,
    /// counted after gzip decoding).
    BodyTooLarge {
        /// The request URL.
        url: Box<Url>,
        /// The limit in bytes.
        limit: u64,
        /// The `Content-Length`, when the server declared one.
        declared: Option<u64>,
    },
    /// The document is not a JSON object (nor `null`).
    InvalidJson {
        /// The final discovery URL.
        url: Box<Url>,
        /// The JSON parser's message, with line and column.
        message: String,
    },
    /// A redirect without a `Location` header.
    MissingLocation {
        /// The request URL.
        url: Box<Url>,
        /// The redirect status.
        status: StatusCode,
    },
    /// A redirect whose `Location` cannot be followed.
    InvalidLocation {
        /// The request URL.
        url: Box<Url>,
        /// The header value as received.
        location: Box<str>,
        /// What is wrong with it.
        problem: Box<str>,
    },
    /// A redirect from https to plain http (D5).
    InsecureRedirect {
        /// The request URL.
        url: Box<Url>,
        /// The http URL it redirected to.
        location: String,
    },
    /// More redirects than allowed.
    TooManyRedirects {
        /// The request that answered with one redirect too many.
        url: Box<Url>,
        /// Where it pointed.
        location: String,
        /// The configured limit.
        max: u32,
    },
    /// A provider or module source address that does not parse, or one a
    /// registry request cannot use (a bare type, a legacy namespace).
    InvalidSource {
        /// What the caller gave.
        input: String,
        /// Why it cannot be used, in the Go implementations' words.
        error: SourceError,
    },
    /// An argument of a registry request that cannot be used (a version or
    /// platform that does not parse).
    InvalidArgument {
        /// What is wrong, naming the argument.
        message: String,
    },
    /// A local file could not be read or written: a filesystem mirror's
    /// package, a mirror folder's staging file (the driver of a lock or
    /// mirror run reports it; the core itself never touches files).
    LocalFile {
        /// The file.
        path: PathBuf,
        /// What went wrong, in the operating system's (or the reader's)
        /// words.
        problem: String,
    },
    /// The registry answered 404: it has no such provider, module, version
    /// or platform.
    NotFound {
        /// The request URL.
        url: Box<Url>,
        /// What was not found, as Terraform says it.
        message: String,
    },
    /// A registry response that parses but cannot be used: a missing
    /// `X-Terraform-Get`, a checksum that is not 64 hex digits, a platform
    /// other than the one asked for, an unsupported protocol.
    InvalidResponse {
        /// The final request URL.
        url: Box<Url>,
        /// What is wrong with it.
        problem: String,
    },
    /// A failure of a registry request: `error` says what went wrong, and
    /// the message names the request instead of the discovery document.
    /// [`Error::kind`], [`Error::url`] and [`Error::status`] are `error`'s.
    Registry {
        /// Which request failed.
        call: RegistryCall,
        /// What went wrong.
        error: Box<Error>,
    },
    /// A failure the retry policy retries, given up on: every attempt the
    /// policy allows failed, or the next one could not start before the
    /// deadline. [`Error::kind`], [`Error::url`] and [`Error::status`] are
    /// the last failure's.
    GaveUp {
        /// The attempts made.
        attempts: u32,
        /// Why no further attempt was made.
        reason: GiveUpReason,
        /// The last attempt's failure.
        last: Box<Error>,
    },
}

/// Why a transfer stopped retrying ([`Error::GaveUp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GiveUpReason {
    /// Every attempt the policy allows failed.
    AttemptsExhausted,
    /// The next attempt could not start before the deadline.
    PastDeadline {
        /// The wait before it (`None`: longer than any clock can count).
        wait: Option<Duration>,
        /// True when the wait was the server's `Retry-After`.
        from_retry_after: bool,
        /// The time allowed for the whole transfer.
        timeout: Duration,
    },
}

/// A stable, coarse name for an [`Error`], for programs and exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::InvalidHostname`], [`Error::UnusableHostname`].
    InvalidHostname,
    /// [`Error::InvalidServiceId`].
    InvalidServiceId,
    /// [`Error::ServiceNotProvided`].
    ServiceNotProvided,
    /// [`Error::VersionNotSupported`].
    VersionNotSupported,
    /// [`Error::InvalidServiceUrl`].
    InvalidServiceUrl,
    /// [`Error::InvalidOAuthClient`].
    InvalidOAuthClient,
    /// [`Error::Transport`] when the TLS handshake failed (an untrusted or
    /// wrong certificate, say: [`TransportErrorKind::Certificate`] or
    /// [`TransportErrorKind::Tls`]).
    Tls,
    /// [`Error::Transport`] for every other failure (DNS, connect, proxy, I/O).
    Network,
    /// [`Error::Timeout`].
    Timeout,
    /// [`Error::Status`].
    Status,
    /// [`Error::MalformedContentType`], [`Error::UnsupportedContentType`].
    ContentType,
    /// [`Error::UnsupportedContentEncoding`], [`Error::InvalidGzip`].
    ContentEncoding,
    /// [`Error::BodyTooLarge`].
    TooLarge,
    /// [`Error::InvalidJson`].
    Json,
    /// [`Error::MissingLocation`], [`Error::InvalidLocation`], [`Error::InsecureRedirect`],
    /// [`Error::TooManyRedirects`].
    Redirect,
    /// [`Error::InvalidSource`].
    InvalidSource,
    /// [`Error::InvalidArgument`].
    InvalidArgument,
    /// [`Error::LocalFile`].
    LocalFile,
    /// [`Error::NotFound`].
    NotFound,
    /// [`Error::InvalidResponse`].
    InvalidResponse,
}

impl ErrorKind {
    /// A snake_case name: `invalid_hostname`, `network`, `too_large`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidHostname => "invalid_hostname",
            ErrorKind::InvalidServiceId => "invalid_service_id",
            ErrorKind::ServiceNotProvided => "service_not_provided",
            ErrorKind::VersionNotSupported => "version_not_supported",
            ErrorKind::InvalidServiceUrl => "invalid_service_url",
            ErrorKind::InvalidOAuthClient => "invalid_oauth_client",
            ErrorKind::Tls => "tls",
            ErrorKind::Network => "network",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Status => "status",
            ErrorKind::ContentType => "content_type",
            ErrorKind::ContentEncoding => "content_encoding",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::Json => "json",
            ErrorKind::Redirect => "redirect",
            ErrorKind::InvalidSource => "invalid_source",
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::LocalFile => "local_file",
            ErrorKind::NotFound => "not_found",
            ErrorKind::InvalidResponse => "invalid_response",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    /// The coarse kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidHostname(_) | Error::UnusableHostname { .. } => {
                ErrorKind::InvalidHostname
            }
            Error::InvalidServiceId(_) => ErrorKind::InvalidServiceId,
            Error::ServiceNotProvided { .. } => ErrorKind::ServiceNotProvided,
            Error::VersionNotSupported { .. } => ErrorKind::VersionNotSupported,
            Error::InvalidServiceUrl { .. } => ErrorKind::InvalidServiceUrl,
            Error::InvalidOAuthClient { .. } => ErrorKind::InvalidOAuthClient,
            Error::Transport { error, .. }
                if matches!(
                    error.kind(),
                    TransportErrorKind::Tls | TransportErrorKind::Certificate
                ) =>
            {
                ErrorKind::Tls
            }
            Error::Transport { .. } => ErrorKind::Network,
            Error::Timeout { .. } => ErrorKind::Timeout,
            Error::Status { .. } => ErrorKind::Status,
            Error::MalformedContentType { .. } | Error::UnsupportedContentType { .. } => {
                ErrorKind::ContentType
            }
            Error::UnsupportedContentEncoding { .. } | Error::InvalidGzip { .. } => {
                ErrorKind::ContentEncoding
            }
            Error::BodyTooLarge { .. } => ErrorKind::TooLarge,
            Error::InvalidJson { .. } => ErrorKind::Json,
            Error::MissingLocation { .. }
            | Error::InvalidLocation { .. }
            | Error::InsecureRedirect { .. }
            | Error::TooManyRedirects { .. } => ErrorKind::Redirect,
            Error::InvalidSource { .. } => ErrorKind::InvalidSource,
            Error::InvalidArgument { .. } => ErrorKind::InvalidArgument,
            Error::LocalFile { .. } => ErrorKind::LocalFile,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::InvalidResponse { .. } => ErrorKind::InvalidResponse,
            Error::Registry { error, .. } => error.kind(),
            Error::GaveUp { last, .. } => last.kind(),
        }
    }

    /// True for the caller's own mistakes (a bad hostname or service id), as
    /// opposed to what a server did.
    pub fn is_caller_error(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::InvalidHostname
                | ErrorKind::InvalidServiceId
                | ErrorKind::InvalidSource
                | ErrorKind::InvalidArgument
        )
    }

    /// True when the discovery ran out of time.
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Timeout { .. } => true,
            Error::GaveUp { last, .. } => last.is_timeout(),
            Error::Registry { error, .. } => error.is_timeout(),
            _ => false,
        }
    }

    /// The request URL at fault, for errors that happened during discovery.
    pub fn url(&self) -> Option<&Url> {
        match self {
            Error::Transport { url, .. }
            | Error::Timeout { url, .. }
            | Error::Status { url, .. }
            | Error::MalformedContentType { url, .. }
            | Error::UnsupportedContentType { url, .. }
            | Error::UnsupportedContentEncoding { url, .. }
            | Error::InvalidGzip { url, .. }
            | Error::BodyTooLarge { url, .. }
            | Error::InvalidJson { url, .. }
            | Error::MissingLocation { url, .. }
            | Error::InvalidLocation { url, .. }
            | Error::InsecureRedirect { url, .. }
            | Error::TooManyRedirects { url, .. }
            | Error::NotFound { url, .. }
            | Error::InvalidResponse { url, .. } => Some(&**url),
            Error::GaveUp { last, .. } => last.url(),
            Error::Registry { error, .. } => error.url(),
            _ => None,
        }
    }

    /// The HTTP status, for errors about a response status.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Status { status, .. } | Error::MissingLocation { status, .. } => Some(*status),
            Error::GaveUp { last, .. } => last.status(),
            Error::Registry { error, .. } => error.status(),
            _ => None,
        }
    }
}

/// What the request was for, in the messages of the errors every transfer
/// can meet: Go's words for a discovery, the request's name for the others.
#[derive(Clone, Copy)]
pub(crate) struct Subject {
    /// `failed to request …`
    pub(crate) request: &'static str,
    /// `… {url} returned …`
    pub(crate) url: &'static str,
    /// `… from {url} is …`
    pub(crate) response: &'static str,
    /// `the whole … may take`
    pub(crate) whole: &'static str,
}

const DISCOVERY: Subject = Subject {
    request: "discovery document",
    url: "discovery URL",
    response: "discovery doc response",
    whole: "discovery",
};

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f, DISCOVERY)
    }
}

impl Error {
    /// A local file or folder at `path` that could not be read or written:
    /// the [`Error::LocalFile`] every driver (lock, install, mirror, OCI
    /// module download, push) reports it as.
    pub fn local_file(path: &std::path::Path, error: std::io::Error) -> Error {
        Error::LocalFile {
            path: path.to_owned(),
            problem: error.to_string(),
        }
    }

    fn describe(&self, f: &mut fmt::Formatter<'_>, subject: Subject) -> fmt::Result {
        let failed = RequestFailed(subject.request);
        let Subject {
            url: at, response, ..
        } = subject;
        match self {
            Error::InvalidHostname(e) => fmt::Display::fmt(e, f),
            Error::UnusableHostname { host, reason } => {
                write!(f, "cannot build a discovery URL for host {host}: {reason}")
            }
            Error::InvalidServiceId(e) => fmt::Display::fmt(e, f),
            Error::ServiceNotProvided { host, service } => {
                write!(f, "host {host} does not provide a {service} service")
            }
            Error::VersionNotSupported {
                host,
                service,
                version,
            } => write!(
                f,
                "host {host} does not support {service} version {version}"
            ),
            Error::InvalidServiceUrl { host, id, problem } => write!(
                f,
                "host {host}: service {id}: failed to parse service URL: {problem}"
            ),
            Error::InvalidOAuthClient { host, problem, .. } => write!(f, "host {host}: {problem}"),
            Error::Transport { url, error } => {
                write!(f, "{failed}: Get \"{url}\": {error}")
            }
            Error::Timeout {
                url,
                timeout,
                per_attempt: false,
            } => write!(
                f,
                "{failed}: Get \"{url}\": timed out (the whole {} may take {timeout:?})",
                subject.whole
            ),
            Error::Timeout {
                url,
                timeout,
                per_attempt: true,
            } => write!(
                f,
                "{failed}: Get \"{url}\": timed out (each attempt may take {timeout:?})"
            ),
            Error::Status { url, status } => {
                write!(f, "{failed}: {} (GET {url})", StatusText(*status))
            }
            Error::MalformedContentType { url, value } => {
                write!(f, "{at} {url} has a malformed Content-Type {value:?}")
            }
            Error::UnsupportedContentType { url, media_type } => write!(
                f,
                "{at} {url} returned an unsupported Content-Type {media_type:?}"
            ),
            Error::UnsupportedContentEncoding { url, encoding } => write!(
                f,
                "{at} {url} returned an unsupported Content-Encoding {encoding:?} \
                 (gzip and identity are accepted)"
            ),
            Error::InvalidGzip { url, problem } => {
                write!(f, "{response} from {url} is not valid gzip: {problem}")
            }
            Error::BodyTooLarge {
                url,
                limit,
                declared: Some(n),
            } => write!(
                f,
                "{response} from {url} is too large (got {n} bytes; limit {limit})"
            ),
            Error::BodyTooLarge {
                url,
                limit,
                declared: None,
            } => write!(
                f,
                "{response} from {url} is too large (more than {limit} bytes)"
            ),
            Error::InvalidJson { url, message } => write!(
                f,
                "failed to decode {} from {url} as a JSON object: {message}",
                subject.request
            ),
            Error::MissingLocation { url, status } => write!(
                f,
                "{failed}: {} without a Location header (GET {url})",
                StatusText(*status)
            ),
            Error::InvalidLocation {
                url,
                location,
                problem,
            } => write!(
                f,
                "{failed}: redirect from {url} to unusable Location {location:?}: {problem}"
            ),
            Error::InsecureRedirect { url, location } => write!(
                f,
                "{failed}: refusing to follow redirect from {url} to {location}: \
                 plain http is only allowed for development hosts"
            ),
            Error::TooManyRedirects { url, location, max } => write!(
                f,
                "{failed}: Get \"{location}\": too many redirects \
                 (stopped after {max}; redirected from {url})"
            ),
            Error::InvalidSource { input, error } => {
                write!(f, "invalid source address {input:?}: {error}")
            }
            Error::InvalidArgument { message } => f.write_str(message),
            Error::LocalFile { path, problem } => write!(f, "{}: {problem}", path.display()),
            Error::NotFound { url, message } => write!(f, "{message} (GET {url})"),
            Error::InvalidResponse { url, problem } => {
                write!(f, "invalid {response} from {url}: {problem}")
            }
            Error::Registry { call, error } => error.describe(f, call.subject()),
            Error::GaveUp {
                attempts,
                reason: GiveUpReason::AttemptsExhausted,
                last,
            } => {
                last.describe(f, subject)?;
                write!(f, " (gave up after {attempts} attempts)")
            }
            Error::GaveUp {
                attempts,
                reason:
                    GiveUpReason::PastDeadline {
                        wait,
                        from_retry_after,
                        timeout,
                    },
                last,
            } => {
                last.describe(f, subject)?;
                write!(f, " (attempt {attempts}; not retried: ")?;
                match (wait, from_retry_after) {
                    (Some(wait), true) => {
                        write!(f, "the server asked to wait {wait:?} (Retry-After)")?
                    }
                    (None, _) => f.write_str(
                        "the server asked to wait longer than any clock counts (Retry-After)",
                    )?,
                    (Some(wait), false) => write!(f, "the next attempt would wait {wait:?}")?,
                }
                write!(f, ", past the end of the {timeout:?} allowed)")
            }
        }
    }
}

/// The message already includes the text of wrapped errors, so `source` only
/// goes deeper than that text (a transport error's own cause).
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport { error, .. } => std::error::Error::source(error),
            Error::GaveUp { last, .. } => last.source(),
            Error::Registry { error, .. } => error.source(),
            _ => None,
        }
    }
}

/// For `?` after [`Hostname::parse`](crate::Hostname::parse): the message
/// names the input.
impl From<HostnameError> for Error {
    fn from(error: HostnameError) -> Error {
        Error::InvalidHostname(error)
    }
}

impl From<ServiceIdError> for Error {
    fn from(e: ServiceIdError) -> Error {
        Error::InvalidServiceId(e)
    }
}

/// `failed to request …`.
struct RequestFailed(&'static str);

impl fmt::Display for RequestFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed to request {}", self.0)
    }
}

/// Go's status text: `500 Internal Server Error`; just the code when unknown.
struct StatusText(StatusCode);

impl fmt::Display for StatusText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.canonical_reason() {
            Some(reason) => write!(f, "{} {reason}", self.0.as_u16()),
            None => write!(f, "{}", self.0.as_u16()),
        }
    }
}

/// What a transport reports when it cannot perform a request.
///
/// Transports classify their failures so callers can tell a refused
/// connection from a certificate problem without parsing messages.
#[derive(Clone, Debug)]
pub struct TransportError {
    kind: TransportErrorKind,
    source: Arc<dyn std::error::Error + Send + Sync>,
}

/// The class of a [`TransportError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// DNS resolution or the TCP connection failed.
    Connect,
    /// The server's certificate was refused: untrusted, expired, or for
    /// another name. Never retried.
    Certificate,
    /// The TLS handshake failed otherwise (no common protocol, a server that
    /// does not speak TLS, a broken handshake).
    Tls,
    /// The proxy refused or failed the tunnel.
    Proxy,
    /// The connection broke while a response was being read.
    Io,
    /// The transport's own timer, armed from [`crate::Transfer::poll_timeout`],
    /// fired: the transfer's earliest timer fires (the deadline: [`Error::Timeout`]).
    Timeout,
    /// Anything else, including HTTP protocol violations.
    Other,
}

impl TransportError {
    /// A transport failure of `kind`, caused by `source`.
    pub fn new(
        kind: TransportErrorKind,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> TransportError {
        TransportError {
            kind,
            source: Arc::from(source.into()),
        }
    }

    /// The class of failure.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.source.fmt(f)
    }
}

/// `Display` shows the cause's message, so `source` is the cause's own cause.
impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.source()
    }
}
