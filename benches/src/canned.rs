//! A driver that runs a [`Transfer`] (a discovery, a registry request) against
//! canned responses, the way a transport would, without sockets.

use std::time::Instant;

use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode, header};
use tfdisco_core::{Action, Error, Goal, Transfer, TransportError, TransportErrorKind};

use crate::documents::TYPICAL;

/// How many body bytes a transport hands over at once (hyper's usual read).
pub const CHUNK: usize = 16 * 1024;

/// One response, built before the measurement starts.
#[derive(Clone, Debug)]
pub struct Response {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Response {
    /// A redirect to `location`.
    pub fn redirect(status: StatusCode, location: &'static str) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(header::LOCATION, HeaderValue::from_static(location));
        Response {
            status,
            headers,
            body: Vec::new(),
        }
    }

    /// A 200 `application/json` document; with `declared`, a `Content-Length`.
    pub fn json(body: &[u8], declared: bool) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if declared {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        }
        Response {
            status: StatusCode::OK,
            headers,
            body: body.to_vec(),
        }
    }
}

impl Response {
    /// The same response with one more header.
    pub fn with_header(mut self, name: header::HeaderName, value: &'static str) -> Response {
        self.headers.insert(name, HeaderValue::from_static(value));
        self
    }
}

/// The machine benchmarks' answers to a discovery: a 301 to
/// `/disco/v1.json`, then the typical document.
pub fn redirect_then_typical() -> [Response; 2] {
    [
        Response::redirect(StatusCode::MOVED_PERMANENTLY, "/disco/v1.json"),
        Response::json(TYPICAL.as_bytes(), true),
    ]
}

/// Drives `discovery` (any transfer) to its result: the n-th request gets the
/// n-th response (a request past the last one fails as a refused
/// connection), bodies arrive in [`CHUNK`]-sized pieces, and the clock stands
/// still at `now`.
pub fn run<G: Goal>(
    discovery: &mut Transfer<G>,
    responses: &[Response],
    now: Instant,
) -> Result<G::Output, Error> {
    let mut next = responses.iter();
    loop {
        match discovery.poll() {
            Action::Send(_request) => match next.next() {
                Some(response) => {
                    discovery.handle_head(response.status, &response.headers, now);
                    for chunk in response.body.chunks(CHUNK) {
                        if !discovery.is_receiving() {
                            break;
                        }
                        discovery.handle_body(chunk, now);
                    }
                    discovery.handle_end(now);
                }
                None => discovery.handle_error(
                    TransportError::new(TransportErrorKind::Connect, "connection refused"),
                    now,
                ),
            },
            Action::Receive => unreachable!("bodies are read right after their head"),
            // The clock stands still: a wait is over at once.
            Action::Wait(until) => discovery.handle_timeout(until),
            Action::Done(result) => return result,
            other => unreachable!("an action this driver does not know: {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfdisco_core::{Config, Hostname, Transfer};

    #[test]
    fn one_redirect_then_the_typical_document() {
        let host = Hostname::parse("app.terraform.io").expect("valid");
        let responses = redirect_then_typical();
        let now = Instant::now();
        let mut d = Transfer::discovery(host, &Config::default(), None, now).expect("starts");
        let services = run(&mut d, &responses, now).expect("discovered");
        assert_eq!(d.redirects(), 1);
        assert_eq!(
            services.service_url("modules.v1").expect("listed").as_str(),
            "https://app.terraform.io/api/registry/v1/modules/"
        );
    }

    #[test]
    fn the_provider_versions_document_reads_completely() {
        use tfdisco_core::Transfer;
        let body = crate::documents::provider_versions();
        assert!(body.len() > 300 * 1024, "{} bytes", body.len());
        let (services, source) = crate::documents::provider_versions_request();
        let now = Instant::now();
        let mut transfer =
            Transfer::provider_versions(&services, &source, &Config::default(), None, now)
                .expect("starts");
        let answer = run(&mut transfer, &[Response::json(&body, true)], now).expect("versions");
        assert_eq!(answer.versions.len(), 700);
        assert!(answer.versions.iter().all(|v| v.platforms.len() == 14));
        assert!(answer.warnings.is_empty(), "null warnings read as none");
    }
}
