//! What a request sends besides its headers (UPLOAD): its method and, for
//! the requests that write (an OCI registry's blob uploads and manifests),
//! a body. A goal says it once ([`Goal::method`](super::Goal::method),
//! [`Goal::body`](super::Goal::body)); the engine decides what each request
//! of the transfer sends: a redirect by 301, 302 or 303 turns a request that
//! is not a GET or HEAD into a GET without a body (Go's client does the
//! same), 307 and 308 send it again as it was; only idempotent methods are
//! retried.

use bytes::Bytes;
use http::{HeaderValue, Method, StatusCode};

/// A request body and its `Content-Type`. Cheap to clone (the bytes are
/// shared), so a retried or redirected request sends it again without a
/// copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The `Content-Type` it is sent with.
    pub content_type: HeaderValue,
    /// The bytes.
    pub bytes: Bytes,
}

/// The method and body of the transfer's current request.
#[derive(Clone, Debug)]
pub(super) struct Outgoing {
    pub(super) method: Method,
    pub(super) body: Option<Body>,
}

impl Outgoing {
    /// After a redirect with `status`: 301, 302 and 303 make a GET of
    /// anything but a GET or HEAD, its body dropped.
    pub(super) fn redirected(&mut self, status: StatusCode) {
        let changes = matches!(
            status,
            StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND | StatusCode::SEE_OTHER
        );
        if changes && self.method != Method::GET && self.method != Method::HEAD {
            self.method = Method::GET;
            self.body = None;
        }
    }

    /// Whether a failed request may be sent again: GET, HEAD, PUT and
    /// DELETE (RFC 9110's idempotent methods), not a POST or PATCH of an
    /// upload session.
    pub(super) fn may_retry(&self) -> bool {
        matches!(
            self.method,
            Method::GET | Method::HEAD | Method::PUT | Method::DELETE | Method::OPTIONS
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outgoing(method: Method) -> Outgoing {
        Outgoing {
            method,
            body: Some(Body {
                content_type: HeaderValue::from_static("application/octet-stream"),
                bytes: Bytes::from_static(b"x"),
            }),
        }
    }

    #[test]
    fn redirects_and_retries() {
        for (status, method, after, body) in [
            (StatusCode::SEE_OTHER, Method::PUT, Method::GET, false),
            (StatusCode::FOUND, Method::POST, Method::GET, false),
            (
                StatusCode::MOVED_PERMANENTLY,
                Method::PATCH,
                Method::GET,
                false,
            ),
            (
                StatusCode::TEMPORARY_REDIRECT,
                Method::PUT,
                Method::PUT,
                true,
            ),
            (
                StatusCode::PERMANENT_REDIRECT,
                Method::POST,
                Method::POST,
                true,
            ),
            (StatusCode::FOUND, Method::HEAD, Method::HEAD, true),
        ] {
            let mut o = outgoing(method.clone());
            o.redirected(status);
            assert_eq!(
                (o.method, o.body.is_some()),
                (after, body),
                "{status} {method}"
            );
        }
        assert!(outgoing(Method::PUT).may_retry());
        assert!(outgoing(Method::HEAD).may_retry());
        assert!(!outgoing(Method::POST).may_retry());
        assert!(!outgoing(Method::PATCH).may_retry());
    }
}
