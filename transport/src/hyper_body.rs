//! Glue for transports built on hyper's HTTP/1.1 client: request bodies,
//! reading `Incoming` chunk by chunk, and classifying hyper's errors.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use tfdisco_core::http::Request;
use tfdisco_core::{TransportError, TransportErrorKind};

/// The core's request with its body (empty for a GET), as hyper sends it.
pub fn request(request: Request<Bytes>) -> Request<Full<Bytes>> {
    request.map(Full::new)
}

/// The next data chunk of `body`; trailers and empty frames are skipped.
pub async fn next_chunk(body: &mut Incoming) -> Option<Result<Bytes, TransportError>> {
    loop {
        match body.frame().await? {
            Ok(frame) => match frame.into_data() {
                Ok(data) if !data.is_empty() => return Some(Ok(data)),
                _ => continue,
            },
            Err(e) => return Some(Err(error(e))),
        }
    }
}

/// The class of a hyper error: malformed HTTP is
/// [`TransportErrorKind::Other`], a broken or closed connection
/// [`TransportErrorKind::Io`].
pub fn error_kind(e: &hyper::Error) -> TransportErrorKind {
    if e.is_parse() || e.is_parse_status() || e.is_user() {
        TransportErrorKind::Other
    } else if e.is_timeout() {
        TransportErrorKind::Timeout
    } else {
        TransportErrorKind::Io
    }
}

/// A hyper error as a transport error of [`error_kind`].
pub fn error(e: hyper::Error) -> TransportError {
    TransportError::new(error_kind(&e), e)
}
