//! The discovery state machine: fetch, redirect, parse (go-anchors §2.3, §2.5).

mod content_type;
mod redirect;

use std::time::Instant;

use http::header::{ACCEPT, AUTHORIZATION, CONTENT_LENGTH, LOCATION, USER_AGENT};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, Uri};
use tracing::debug;
use url::Url;

use crate::{Config, Credentials, Error, Hostname, Services, TransportError, TransportErrorKind};

/// Where every host keeps its discovery document.
pub const DISCOVERY_PATH: &str = "/.well-known/terraform.json";

/// What the driver of a [`Discovery`] must do next.
///
/// [`Discovery::poll`] returns the same action until the driver reports what
/// happened with one of the `handle_*` methods.
#[derive(Debug)]
#[must_use]
pub enum Action {
    /// Perform this request and report the response head with
    /// [`Discovery::handle_head`] (or a failure with
    /// [`Discovery::handle_error`]). A redirect is just another `Send`.
    Send(Request<()>),
    /// Read the response body: report each chunk with
    /// [`Discovery::handle_body`] and its end with [`Discovery::handle_end`].
    /// When `poll` stops returning `Receive`, stop reading and drop the body.
    Receive,
    /// Discovery is over; drop any response still open.
    Done(Result<Services, Error>),
}

/// One discovery of one host, as a state machine without I/O.
///
/// It starts from a [`Hostname`], a [`Config`], optional [`Credentials`] and
/// the current time; it emits requests and consumes responses. It never reads
/// a clock: every `now` comes from the driver, and [`Discovery::poll_timeout`]
/// says when the driver must call [`Discovery::handle_timeout`].
///
/// ```text
///             new()
///               │
///               ▼
///        ┌── Request ◀──────────┐  Send(request)
///        │      │ handle_head   │
///        │      ├── 301…308 ────┘  (at most max_redirects times)
///        │      ├── 200 ───────▶ Body  Receive: handle_body…, handle_end
///        │      ├── 404 ──────┐        │
///        │      └── other ──┐ │        │
///        ▼                  ▼ ▼        ▼
///   handle_error /        Done(Result<Services, Error>)
///   handle_timeout ───────▶
/// ```
#[derive(Debug)]
pub struct Discovery {
    host: Hostname,
    config: Config,
    /// The credentials and the first request's URL, whose host they stay
    /// within (D4); `None` once dropped, or when there were none.
    credentials: Option<(Credentials, Url)>,
    url: Url,
    redirects: u32,
    deadline: Option<Instant>,
    state: State,
}

#[derive(Debug)]
enum State {
    Request(Uri),
    Body(Vec<u8>),
    Done(Result<Services, Error>),
}

impl Discovery {
    /// Starts discovering `host`'s services at time `now`.
    ///
    /// `credentials` are sent only as D4 allows. A host in
    /// [`Config::with_plain_http_host`] is fetched over plain http.
    pub fn new(
        host: Hostname,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Discovery {
        let scheme = if config.allows_plain_http(host.host(), host.port()) {
            "http"
        } else {
            "https"
        };
        debug!(target: "tfdisco", host = %host, "discovery started");
        let deadline = now.checked_add(config.timeout());
        let (url, state) = match discovery_url(&host, scheme) {
            Ok(url) => {
                let state = request_state(&url);
                (url, state)
            }
            Err(e) => (placeholder_url(), State::Done(Err(e))),
        };
        Discovery {
            host,
            config: config.clone(),
            credentials: credentials
                .filter(|_| url.scheme() == "https")
                .map(|c| (c, url.clone())),
            url,
            redirects: 0,
            deadline,
            state,
        }
    }

    /// What the driver must do next.
    pub fn poll(&mut self) -> Action {
        match &self.state {
            State::Request(uri) => Action::Send(self.request(uri.clone())),
            State::Body(_) => Action::Receive,
            State::Done(result) => Action::Done(result.clone()),
        }
    }

    /// When the driver must call [`Discovery::handle_timeout`]: the end of the
    /// time allowed for the whole discovery. `None` once done (or when the
    /// configured timeout is too large to represent).
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self.state {
            State::Done(_) => None,
            _ => self.deadline,
        }
    }

    /// The host being discovered.
    pub fn host(&self) -> &Hostname {
        &self.host
    }

    /// The URL of the current (or last) request. For a host that no URL can
    /// carry (the discovery is done with [`Error::UnusableHostname`]) this is a
    /// placeholder.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// How many redirects have been followed so far.
    pub fn redirects(&self) -> u32 {
        self.redirects
    }

    /// True when the current request carries credentials.
    pub fn sends_credentials(&self) -> bool {
        self.credentials.is_some()
    }

    /// Reports the status and headers of the response to the last `Send`.
    pub fn handle_head(&mut self, status: StatusCode, headers: &HeaderMap, now: Instant) {
        if !matches!(self.state, State::Request(_)) || self.check_deadline(now) {
            return;
        }
        self.state = if redirect::is_followed(status) {
            // Go treats an empty Location like a missing one.
            match headers.get(LOCATION).filter(|l| !l.is_empty()) {
                Some(location) => self.follow(status, location),
                None => State::Done(Err(Error::MissingLocation {
                    url: self.url.clone().into(),
                    status,
                })),
            }
        } else if status == StatusCode::NOT_FOUND {
            State::Done(Ok(Services::none(
                self.host.clone(),
                self.url.clone(),
                self.config.dialect(),
            )))
        } else if status != StatusCode::OK {
            State::Done(Err(Error::Status {
                url: self.url.clone().into(),
                status,
            }))
        } else {
            self.accept_ok(headers)
        };
        self.trace_outcome();
    }

    /// Reports a chunk of the response body. Once the body passes the limit
    /// the discovery fails (D6) and `poll` stops asking for more.
    pub fn handle_body(&mut self, chunk: &[u8]) {
        let State::Body(body) = &mut self.state else {
            return;
        };
        let limit = self.config.body_limit();
        if body.len() as u64 + chunk.len() as u64 > limit {
            self.state = State::Done(Err(Error::BodyTooLarge {
                url: self.url.clone().into(),
                limit,
                declared: None,
            }));
            self.trace_outcome();
            return;
        }
        body.extend_from_slice(chunk);
    }

    /// Reports the end of the response body.
    pub fn handle_end(&mut self, now: Instant) {
        if !matches!(self.state, State::Body(_)) || self.check_deadline(now) {
            return;
        }
        let body = match &mut self.state {
            State::Body(body) => std::mem::take(body),
            _ => return,
        };
        self.state = State::Done(Services::from_json(
            self.host.clone(),
            self.url.clone(),
            self.config.dialect(),
            &body,
        ));
        self.trace_outcome();
    }

    /// Reports that the driver's timer for [`Discovery::poll_timeout`] fired.
    /// Before the deadline this does nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        if !matches!(self.state, State::Done(_)) {
            self.check_deadline(now);
        }
    }

    /// Reports that the transport could not perform the request or read the
    /// response.
    pub fn handle_error(&mut self, error: TransportError) {
        if matches!(self.state, State::Done(_)) {
            return;
        }
        self.state = State::Done(Err(if error.kind() == TransportErrorKind::Timeout {
            Error::Timeout {
                url: self.url.clone().into(),
                timeout: self.config.timeout(),
            }
        } else {
            Error::Transport {
                url: self.url.clone().into(),
                error,
            }
        }));
        self.trace_outcome();
    }

    /// Fails the discovery if `now` is past the deadline; true if it did.
    fn check_deadline(&mut self, now: Instant) -> bool {
        let expired = self.deadline.is_some_and(|d| now >= d);
        if expired {
            self.state = State::Done(Err(Error::Timeout {
                url: self.url.clone().into(),
                timeout: self.config.timeout(),
            }));
            self.trace_outcome();
        }
        expired
    }

    fn request(&self, uri: Uri) -> Request<()> {
        let mut headers = HeaderMap::with_capacity(3);
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        headers.insert(USER_AGENT, self.config.user_agent().clone());
        if let Some((credentials, _)) = &self.credentials {
            headers.insert(AUTHORIZATION, credentials.authorization().clone());
        }
        let mut request = Request::new(());
        *request.method_mut() = Method::GET;
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        request
    }

    fn follow(&mut self, status: StatusCode, location: &HeaderValue) -> State {
        let next = match redirect::target(&self.url, location.as_bytes(), &self.config) {
            Ok(next) => next,
            Err(redirect::Refusal::Unusable(problem)) => {
                return State::Done(Err(Error::InvalidLocation {
                    url: self.url.clone().into(),
                    location: String::from_utf8_lossy(location.as_bytes()).into(),
                    problem: problem.into(),
                }));
            }
            Err(redirect::Refusal::Insecure(next)) => {
                return State::Done(Err(Error::InsecureRedirect {
                    url: self.url.clone().into(),
                    location: next.into(),
                }));
            }
        };
        if self.redirects >= self.config.max_redirects() {
            return State::Done(Err(Error::TooManyRedirects {
                url: self.url.clone().into(),
                location: next.into(),
                max: self.config.max_redirects(),
            }));
        }
        let leaves_scope = self
            .credentials
            .as_ref()
            .is_some_and(|(_, initial)| !redirect::may_carry_credentials(initial, &next));
        if leaves_scope {
            // D4: once dropped, credentials stay dropped for the whole chain.
            self.credentials = None;
            debug!(target: "tfdisco", host = %self.host, to = %next, "credentials dropped on redirect");
        }
        debug!(target: "tfdisco", host = %self.host, status = status.as_u16(), from = %self.url, to = %next, "following redirect");
        self.redirects += 1;
        let state = request_state(&next);
        self.url = next;
        state
    }

    fn accept_ok(&self, headers: &HeaderMap) -> State {
        if let Err(refusal) = content_type::check(headers) {
            let url = self.url.clone().into();
            return State::Done(Err(match refusal {
                content_type::Refusal::Malformed(value) => {
                    Error::MalformedContentType { url, value }
                }
                content_type::Refusal::Unsupported(media_type) => {
                    Error::UnsupportedContentType { url, media_type }
                }
            }));
        }
        let limit = self.config.body_limit();
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(n) = declared.filter(|&n| n > limit) {
            return State::Done(Err(Error::BodyTooLarge {
                url: self.url.clone().into(),
                limit,
                declared: Some(n),
            }));
        }
        // Reserve what the server declared; it cannot exceed the limit.
        let capacity = declared.unwrap_or(0).min(limit).min(usize::MAX as u64) as usize;
        State::Body(Vec::with_capacity(capacity))
    }

    fn trace_outcome(&self) {
        match &self.state {
            State::Done(Ok(services)) => {
                debug!(target: "tfdisco", host = %self.host, url = %self.url, services = services.len(), "discovery succeeded");
            }
            State::Done(Err(error)) => {
                debug!(target: "tfdisco", host = %self.host, %error, "discovery failed");
            }
            _ => {}
        }
    }
}

/// `<scheme>://<host>/.well-known/terraform.json` for `host`.
pub(crate) fn discovery_url(host: &Hostname, scheme: &str) -> Result<Url, Error> {
    // Concatenated by hand: `format!` costs as much here as a third of the
    // URL parse that follows.
    let host_text = host.as_str();
    let mut text = String::with_capacity(scheme.len() + 3 + host_text.len() + DISCOVERY_PATH.len());
    for piece in [scheme, "://", host_text, DISCOVERY_PATH] {
        text.push_str(piece);
    }
    Url::parse(&text).map_err(|e| Error::UnusableHostname {
        host: host.to_string(),
        reason: e.to_string(),
    })
}

/// The state that sends a request to `url`.
fn request_state(url: &Url) -> State {
    match Uri::try_from(url.as_str()) {
        Ok(uri) => State::Request(uri),
        Err(e) => State::Done(Err(Error::InvalidLocation {
            url: url.clone().into(),
            location: url.as_str().into(),
            problem: e.to_string().into(),
        })),
    }
}

fn placeholder_url() -> Url {
    Url::parse("https://invalid./").expect("a constant, valid URL")
}
