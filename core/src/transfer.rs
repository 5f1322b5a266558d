//! The engine every request runs on: one request (a GET of a JSON document,
//! a download streamed into a sink, a write with its body) under the rules
//! all of tfdisco's requests share, for a [`Goal`] that says what the answer
//! means. Discovery is one goal (`crate::discovery`); the rules themselves
//! are listed, each with the test that pins it, in `docs/behaviour.md`.

mod body;
mod content_type;
pub(crate) mod gzip;
mod redirect;
mod retry;
mod timer;
mod upload;

use std::fmt;
use std::time::Instant;

use http::HeaderName;
use http::header::{
    ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, LOCATION, USER_AGENT,
};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, Uri};
use tracing::debug;
use url::Url;

use crate::{
    Config, Credentials, Error, GiveUpReason, Hostname, RequestKind, StartError, TransportError,
    TransportErrorKind,
};

use retry::RetryAfter;
use timer::{Timer, Timers};

pub use retry::{DEFAULT_REGISTRY_ATTEMPT_TIMEOUT, Retry, RetryPolicy};
pub use upload::Body;
use upload::Outgoing;

/// The header registry requests announce the CLI version in.
const X_TERRAFORM_VERSION: HeaderName = HeaderName::from_static("x-terraform-version");

/// What a [`Transfer`] is for: which final responses are answers, and what the
/// answer is.
///
/// The engine applies every HTTP rule itself (redirects, where credentials
/// may go, plain http, the deadline, `Content-Type`, the size limit, the
/// headers), with the settings of the goal's [`RequestKind`]; a goal only
/// sees the final response, after redirects.
pub trait Goal {
    /// What a successful transfer gives. Cloned once, when the driver takes it.
    type Output: Clone + fmt::Debug;

    /// What is being fetched, for traces: `"discovery"`, for example, gives
    /// the events `discovery started`, `discovery succeeded`, ….
    const NAME: &'static str;

    /// Which kind of request this is: its limits, retries, headers and
    /// checks are the [`Config`]'s for that kind.
    const KIND: RequestKind = RequestKind::Discovery;

    /// The host the transfer is about (the discovered host; a registry
    /// address's host), named in traces.
    fn host(&self) -> &Hostname;

    /// A final response head arrived from `url`: a status that is not a
    /// followed redirect. Say whether to read its body as a JSON document or
    /// to finish now.
    fn on_head(&mut self, url: &Url, status: StatusCode, headers: &HeaderMap)
    -> Next<Self::Output>;

    /// The whole body of the response [`Goal::on_head`] asked to read, from
    /// `url`, decoded, within the size limit (and for a discovery, of
    /// `Content-Type` `application/json`). It is the goal's to keep:
    /// discovery keeps it as the document's text without a copy.
    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<Self::Output, Error>;

    /// A piece of the body of a response [`Goal::on_head`] asked to stream
    /// ([`Next::Stream`]), decoded, in order, within the size limit; nothing
    /// of it is kept by the engine. An error ends the transfer.
    fn on_chunk(&mut self, _url: &Url, _chunk: &[u8]) -> Result<(), Error> {
        Ok(())
    }

    /// The end of a streamed body: the answer.
    fn on_stream_end(&mut self, url: &Url) -> Result<Self::Output, Error> {
        Err(Error::InvalidResponse {
            url: url.clone().into(),
            problem: format!("a {} does not read a streamed body", Self::NAME),
        })
    }

    /// The method of the goal's first request: GET unless the goal writes
    /// (UPLOAD).
    fn method(&self) -> Method {
        Method::GET
    }

    /// The body of the goal's first request, with its `Content-Type`:
    /// none unless the goal writes (UPLOAD). A driver sends it with the
    /// request [`Transfer::request_body`] names.
    fn body(&self) -> Option<Body> {
        None
    }

    /// Headers of the goal's own (an upload chunk's `Content-Range`), added
    /// to every request it makes after the engine's.
    fn request_headers(&self, _headers: &mut HeaderMap) {}

    /// The `Accept` header the goal's requests send, instead of the kind's
    /// (an OCI manifest names the media types it takes). `None`: the
    /// kind's.
    fn accept(&self) -> Option<HeaderValue> {
        None
    }

    /// The failure [`Transfer::poll`] reports: registry goals wrap it so its
    /// message names their request. Unchanged by default.
    fn present_error(&self, error: Error) -> Error {
        error
    }
}

/// What a [`Goal`] makes of a final response head.
#[derive(Debug)]
pub enum Next<T> {
    /// Read the body: a JSON document, within the size limit (and for a
    /// discovery, of `Content-Type` `application/json`).
    ReadDocument,
    /// Hand the body to [`Goal::on_chunk`] as it arrives, keeping nothing,
    /// then ask [`Goal::on_stream_end`] for the answer: a download.
    Stream,
    /// The transfer is over, with this result.
    Finish(Result<T, Error>),
}

/// What the driver of a [`Transfer`] must do next.
///
/// [`Transfer::poll`] returns the same action until the driver reports what
/// happened with one of the `handle_*` methods. More actions may be added;
/// a driver that meets one it does not know should report
/// [`Transfer::handle_error`] and poll again.
#[derive(Debug)]
#[must_use]
#[non_exhaustive]
pub enum Action<T> {
    /// Perform this request and report the response head with
    /// [`Transfer::handle_head`] (or a failure with [`Transfer::handle_error`]).
    /// A redirect is just another `Send`.
    Send(Request<()>),
    /// Read the response body: report each chunk with [`Transfer::handle_body`]
    /// and its end with [`Transfer::handle_end`]. When `poll` stops returning
    /// `Receive`, stop reading and drop the body.
    Receive,
    /// Nothing is in flight: wait until this instant, then report the time
    /// with [`Transfer::handle_timeout`].
    Wait(Instant),
    /// The transfer is over; drop any response still open.
    Done(Result<T, Error>),
}

/// One request and its answer, as a state machine without I/O: a GET of a
/// JSON document, a download streamed to the goal, a HEAD, or a write (PUT,
/// PATCH, POST) with its body. Redirects, credentials, deadline, retries,
/// content type and size are decided here; what the answer means is the
/// [`Goal`]'s.
///
/// It never reads a clock: every `now` comes from the driver, and
/// [`Transfer::poll_timeout`] says when the driver must next call
/// [`Transfer::handle_timeout`]. [`Discovery`](crate::Discovery) is a `Transfer`
/// whose goal is a host's discovery document.
///
/// ```text
///            Transfer::get / Transfer::discovery / …
///                       │
///                       ▼
///        ┌──────────▶ Send ──────────────────────────┐ handle_error, deadline
///        │              │ handle_head                │
///        │  redirect ◀──┤ (≤ max_redirects)          │
///        │              ├── goal: read ─▶ Receive ───┼── handle_body…, handle_end ─┐
///        │              │                  │         │                             │
///        │  retry: 429, 5xx (not 501),     │ limit,  │                             │
///        │  a connection failure           │ error   │                             │
///        │              ▼                  │         │                             │
///        └── handle_timeout ── Wait        │         │                             │
///                 (the retry timer)  │     │         │                             │
///              no time / attempts ───┤     │         │                             │
///                       ├── goal: done ────┼─────────┤                             │
///                       ▼                  ▼         ▼                             ▼
///                      Done(Result<G::Output, Error>) ◀─────────────────────────────┘
/// ```
///
/// # Inputs in each state
///
/// | `poll` returns | inputs that act                                   | ignored                          |
/// |----------------|---------------------------------------------------|----------------------------------|
/// | `Send`         | `handle_head`, `handle_error`, `handle_timeout`   | `handle_body`, `handle_end`      |
/// | `Receive`      | `handle_body`, `handle_end`, `handle_error`, `handle_timeout` | `handle_head`        |
/// | `Wait`         | `handle_timeout`                                  | everything else                  |
/// | `Done`         | none                                              | everything                       |
///
/// Every `handle_*` first fires the timers due at its `now` (so a head that
/// arrives after the deadline is a timeout, not an answer); if one fired,
/// the input, meant for the state before, is dropped; otherwise it acts if
/// the state accepts it. An input the state ignores changes
/// nothing, so a driver can never put the machine in a wrong state.
/// `handle_timeout` before the earliest timer does nothing.
pub struct Transfer<G: Goal> {
    goal: G,
    config: Config,
    /// The first request's URL once a redirect moved away from it (`None`:
    /// it is `url`): the scope of the credentials (D4). Moved here, never
    /// cloned.
    first: Option<Url>,
    /// The URL of the current (or last) request.
    url: Url,
    /// The method and body of the current request (UPLOAD).
    outgoing: Outgoing,
    /// The goal's own, for a retry from the first URL.
    first_outgoing: Outgoing,
    /// The credentials the first request of each attempt carries (only
    /// over https).
    credentials: Option<Credentials>,
    /// True once a redirect of this attempt left their scope (D4).
    credentials_dropped: bool,
    redirects: u32,
    requests: u32,
    attempt: u32,
    /// The retry being waited for.
    retry: Option<Retry>,
    timers: Timers,
    state: State<G::Output>,
}

enum State<T> {
    Send(Uri),
    /// A body being read, kept whole (`false`) or streamed (`true`).
    Receive(body::Body, bool),
    Wait,
    Done(Result<T, Error>),
}

impl<G: Goal> Transfer<G> {
    /// Starts a transfer for `goal`, its first request to `url`, at time `now`.
    ///
    /// `credentials` are sent only over https, and on redirects only as D4
    /// allows. The overall deadline is `now` plus [`Config::timeout`]. A URL
    /// that cannot go into a request line is a [`StartError`]
    /// ([`Error::InvalidArgument`]).
    pub fn get(
        goal: G,
        url: Url,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Transfer<G>, StartError> {
        let uri = Uri::try_from(url.as_str()).map_err(|e| {
            StartError::new(Error::InvalidArgument {
                message: format!("cannot request {url}: {e}"),
            })
        })?;
        debug!(target: "tfdisco", host = %goal.host(), url = %url, "{} started", G::NAME);
        let outgoing = Outgoing {
            method: goal.method(),
            body: goal.body(),
        };
        let mut transfer = Transfer {
            first_outgoing: outgoing.clone(),
            outgoing,
            goal,
            config: config.clone(),
            credentials: credentials.filter(|_| url.scheme() == "https"),
            credentials_dropped: false,
            first: None,
            url,
            redirects: 0,
            requests: 1,
            attempt: 1,
            retry: None,
            timers: Timers::default(),
            state: State::Send(uri),
        };
        transfer.timers.set(
            Timer::Deadline,
            now.checked_add(config.timeout_for(G::KIND)),
        );
        transfer.start_attempt(now);
        Ok(transfer)
    }

    /// The retry policy of this transfer's kind of request.
    fn policy(&self) -> &RetryPolicy {
        self.config.retry_policy_for(G::KIND)
    }

    /// Arms the timer of the attempt starting at `now`, if attempts have
    /// one (RETRY-8).
    fn start_attempt(&mut self, now: Instant) {
        let end = self
            .policy()
            .attempt_timeout()
            .and_then(|timeout| now.checked_add(timeout));
        self.timers.set(Timer::Attempt, end);
    }

    /// What the driver must do next.
    pub fn poll(&mut self) -> Action<G::Output> {
        match &self.state {
            State::Send(uri) => Action::Send(self.request(uri.clone())),
            State::Receive(..) => Action::Receive,
            State::Wait => match self.timers.get(Timer::Retry) {
                Some(at) => Action::Wait(at),
                None => unreachable!("the retry timer is armed while waiting"),
            },
            State::Done(Ok(output)) => Action::Done(Ok(output.clone())),
            State::Done(Err(error)) => Action::Done(Err(self.goal.present_error(error.clone()))),
        }
    }

    /// When the driver must next call [`Transfer::handle_timeout`]: the
    /// earliest of the transfer's timers (the end of the wait before a retry,
    /// the end of the time allowed for the whole transfer). `None` once done,
    /// or when no timer is armed (a timeout too large to represent).
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self.state {
            State::Done(_) => None,
            _ => self.timers.next().map(|(_, at)| at),
        }
    }

    /// True once `poll` returns [`Action::Done`].
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// True while `poll` returns [`Action::Send`]: a request to perform, or
    /// whose response head is awaited.
    pub fn is_sending(&self) -> bool {
        matches!(self.state, State::Send(_))
    }

    /// True while `poll` returns [`Action::Receive`].
    pub fn is_receiving(&self) -> bool {
        matches!(self.state, State::Receive(..))
    }

    /// True while `poll` returns [`Action::Wait`]: the transfer waits to retry.
    pub fn is_waiting(&self) -> bool {
        matches!(self.state, State::Wait)
    }

    /// The retry being waited for, while [`Transfer::is_waiting`].
    pub fn retry(&self) -> Option<&Retry> {
        self.retry.as_ref()
    }

    /// The current attempt, from 1 ([`RetryPolicy`]).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// What the transfer is for.
    pub fn goal(&self) -> &G {
        &self.goal
    }

    /// The goal back, the transfer dropped: a request that must be made again
    /// with other credentials (an OCI registry's challenge) starts a new
    /// transfer with it.
    pub fn into_goal(self) -> G {
        self.goal
    }

    /// The configuration it runs under.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The URL of the current (or last) request.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// How many redirects have been followed so far.
    pub fn redirects(&self) -> u32 {
        self.redirects
    }

    /// How many requests the transfer has asked for so far, the current one
    /// included. A driver can compare it before and after an input to tell
    /// whether the request it is performing is still the current one.
    pub fn requests(&self) -> u32 {
        self.requests
    }

    /// The body the current request sends (UPLOAD), while
    /// [`Transfer::poll`] returns [`Action::Send`]; `None` for a request
    /// without one (every GET and HEAD, and a write a 301, 302 or 303 made
    /// a GET).
    pub fn request_body(&self) -> Option<&Body> {
        self.outgoing.body.as_ref()
    }

    /// True when the current request carries credentials.
    pub fn sends_credentials(&self) -> bool {
        self.credentials.is_some() && !self.credentials_dropped
    }

    /// Reports the status and headers of the response to the last `Send`.
    pub fn handle_head(&mut self, status: StatusCode, headers: &HeaderMap, now: Instant) {
        if self.expire(now) || !matches!(self.state, State::Send(_)) {
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
        } else if retry::is_retried_status(status)
            && self.policy().attempts() > 1
            && self.outgoing.may_retry()
        {
            let cause = Error::Status {
                url: self.url.clone().into(),
                status,
            };
            self.retry_or_give_up(cause, retry::retry_after(status, headers), now)
        } else {
            match self.goal.on_head(&self.url, status, headers) {
                Next::ReadDocument => self.receive(headers, false),
                Next::Stream => self.receive(headers, true),
                Next::Finish(result) => State::Done(result),
            }
        };
        self.trace_outcome();
    }

    /// Reports a chunk of the response body. Once the body passes the limit
    /// the transfer fails (D6) and `poll` stops asking for more.
    pub fn handle_body(&mut self, chunk: &[u8], now: Instant) {
        if self.expire(now) {
            return;
        }
        let State::Receive(body, streamed) = &mut self.state else {
            return;
        };
        let failed = if *streamed {
            match body.push_streamed(chunk) {
                Ok(decoded) => self.goal.on_chunk(&self.url, decoded).err(),
                Err(e) => Some(body_error(&self.url, &self.config, G::KIND, e)),
            }
        } else {
            body.push(chunk)
                .err()
                .map(|e| body_error(&self.url, &self.config, G::KIND, e))
        };
        if let Some(error) = failed {
            self.state = State::Done(Err(error));
            self.trace_outcome();
        }
    }

    /// Reports the end of the response body.
    pub fn handle_end(&mut self, now: Instant) {
        if self.expire(now) {
            return;
        }
        let State::Receive(..) = &self.state else {
            return;
        };
        let State::Receive(body, streamed) = std::mem::replace(&mut self.state, State::Wait) else {
            unreachable!("checked just above")
        };
        let error = |e| body_error(&self.url, &self.config, G::KIND, e);
        let result = if streamed {
            match body.finish_streamed() {
                Ok(rest) => self
                    .goal
                    .on_chunk(&self.url, &rest)
                    .and_then(|()| self.goal.on_stream_end(&self.url)),
                Err(e) => Err(error(e)),
            }
        } else {
            match body.finish() {
                Ok(bytes) => self.goal.on_body(&self.url, bytes),
                Err(e) => Err(error(e)),
            }
        };
        self.state = State::Done(result);
        self.trace_outcome();
    }

    /// Reports the time: fires whatever timer is due. Before the earliest
    /// timer ([`Transfer::poll_timeout`]) this does nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.expire(now);
    }

    /// Reports that the transport could not perform the request or read the
    /// response.
    ///
    /// A [`TransportErrorKind::Timeout`] means the transport's own timer,
    /// armed from [`Transfer::poll_timeout`], ended the exchange: the earliest
    /// timer fires then, even if the transport's clock ran a little ahead.
    pub fn handle_error(&mut self, error: TransportError, now: Instant) {
        if self.expire(now) || self.is_done() || self.is_waiting() {
            return;
        }
        if error.kind() == TransportErrorKind::Timeout {
            if let Some((timer, _)) = self.timers.next() {
                self.timers.set(timer, None);
                return self.fire(timer, now);
            }
            self.state = State::Done(Err(self.timeout_error()));
        } else {
            let retried = self.is_sending()
                && self.outgoing.may_retry()
                && self.policy().retries_failure(error.kind());
            let cause = Error::Transport {
                url: self.url.clone().into(),
                error,
            };
            self.state = if retried {
                self.retry_or_give_up(cause, RetryAfter::Unusable, now)
            } else {
                State::Done(Err(cause))
            };
        }
        self.trace_outcome();
    }

    /// Fires every timer due at `now`; true if any fired. The input that
    /// reported `now` was meant for the state before: it is then dropped.
    fn expire(&mut self, now: Instant) -> bool {
        let mut fired = false;
        while !self.is_done() {
            match self.timers.expire(now) {
                Some(timer) => self.fire(timer, now),
                None => break,
            }
            fired = true;
        }
        fired
    }

    fn fire(&mut self, timer: Timer, now: Instant) {
        match timer {
            Timer::Deadline => {
                self.state = State::Done(Err(self.timeout_error()));
                self.timers.clear();
            }
            // The attempt ran out of time (RETRY-8): before its head it is
            // retried, as Go's registry clients retry a client timeout;
            // while its body is read it is over.
            Timer::Attempt => {
                let cause = Error::Timeout {
                    url: self.url.clone().into(),
                    timeout: self.policy().attempt_timeout().unwrap_or_default(),
                    per_attempt: true,
                };
                self.state = match self.state {
                    State::Send(_) => self.retry_or_give_up(cause, RetryAfter::Unusable, now),
                    _ => State::Done(Err(cause)),
                };
            }
            Timer::Retry => {
                // The same first request again: first URL, full redirect
                // budget, the same credentials decision (D4, D5 unchanged).
                self.retry = None;
                self.attempt += 1;
                self.requests += 1;
                self.redirects = 0;
                self.credentials_dropped = false;
                self.outgoing = self.first_outgoing.clone();
                if let Some(first) = self.first.take() {
                    self.url = first;
                }
                self.state = send_state(&self.url);
                self.start_attempt(now);
            }
        }
        self.trace_outcome();
    }

    /// After a failure the policy retries: wait for the next attempt, or
    /// give up when none is left or it could not start before the deadline.
    fn retry_or_give_up(
        &mut self,
        cause: Error,
        retry_after: RetryAfter,
        now: Instant,
    ) -> State<G::Output> {
        self.timers.set(Timer::Attempt, None);
        let policy = self.policy();
        let attempts = policy.attempts();
        if attempts <= 1 {
            return State::Done(Err(cause));
        }
        let give_up = |reason| Error::GaveUp {
            attempts: self.attempt,
            reason,
            last: Box::new(cause.clone()),
        };
        if self.attempt >= attempts {
            return State::Done(Err(give_up(GiveUpReason::AttemptsExhausted)));
        }
        let (wait, from_retry_after) = match retry_after {
            RetryAfter::Wait(wait) if policy.honours_retry_after() => (Some(wait), true),
            RetryAfter::Forever if policy.honours_retry_after() => (None, true),
            _ => (Some(policy.wait(self.attempt)), false),
        };
        let at = wait.and_then(|wait| now.checked_add(wait));
        let deadline = self.timers.get(Timer::Deadline);
        let (Some(wait), Some(at)) = (wait, at.filter(|&at| deadline.is_none_or(|d| at < d)))
        else {
            return State::Done(Err(give_up(GiveUpReason::PastDeadline {
                wait,
                from_retry_after,
                timeout: self.config.timeout_for(G::KIND),
            })));
        };
        debug!(target: "tfdisco", host = %self.goal.host(), attempt = self.attempt + 1, attempts, wait = ?wait, cause = %cause, "retrying");
        self.timers.set(Timer::Retry, Some(at));
        self.retry = Some(Retry {
            attempt: self.attempt + 1,
            attempts,
            wait,
            from_retry_after,
            cause,
        });
        State::Wait
    }

    fn timeout_error(&self) -> Error {
        Error::Timeout {
            url: self.url.clone().into(),
            timeout: self.config.timeout_for(G::KIND),
            per_attempt: false,
        }
    }

    /// The request's headers (DISCO-2, API-2): discovery asks for JSON, as
    /// the discovery libraries do; registry requests carry the CLI version
    /// and no `Accept`, as the CLIs' registry clients; each kind its CLI's
    /// `User-Agent`.
    fn request(&self, uri: Uri) -> Request<()> {
        let mut headers = HeaderMap::with_capacity(5);
        match G::KIND {
            RequestKind::Discovery => {
                headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
            }
            RequestKind::Registry | RequestKind::Mirror => {
                headers.insert(X_TERRAFORM_VERSION, self.config.cli_version().clone());
            }
            // The CLIs fetch checksums, signatures and archives without
            // either (DL-1); OpenTofu's OCI client sends neither (OCI-7).
            RequestKind::Download | RequestKind::Oci | RequestKind::Login => {}
        }
        if let Some(accept) = self.goal.accept() {
            headers.insert(ACCEPT, accept);
        }
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        headers.insert(USER_AGENT, self.config.user_agent_for(G::KIND).clone());
        if let Some(credentials) = self
            .credentials
            .as_ref()
            .filter(|_| !self.credentials_dropped)
        {
            headers.insert(AUTHORIZATION, credentials.authorization().clone());
        }
        self.goal.request_headers(&mut headers);
        if let Some(body) = &self.outgoing.body {
            headers.insert(CONTENT_TYPE, body.content_type.clone());
            headers.insert(CONTENT_LENGTH, HeaderValue::from(body.bytes.len()));
        }
        let mut request = Request::new(());
        *request.method_mut() = self.outgoing.method.clone();
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        request
    }

    fn follow(&mut self, status: StatusCode, location: &HeaderValue) -> State<G::Output> {
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
        let max = self.config.max_redirects_for(G::KIND);
        if self.redirects >= max {
            return State::Done(Err(Error::TooManyRedirects {
                url: self.url.clone().into(),
                location: next.into(),
                max,
            }));
        }
        let first = self.first.as_ref().unwrap_or(&self.url);
        if self.sends_credentials() && !redirect::may_carry_credentials(first, &next) {
            // D4: once dropped, credentials stay dropped for the whole chain.
            self.credentials_dropped = true;
            debug!(target: "tfdisco", host = %self.goal.host(), from = %first, to = %next, "credentials dropped on redirect");
        }
        debug!(target: "tfdisco", host = %self.goal.host(), status = status.as_u16(), from = %self.url, to = %next, "following redirect");
        self.redirects += 1;
        self.requests += 1;
        self.outgoing.redirected(status);
        let state = send_state(&next);
        let previous = std::mem::replace(&mut self.url, next);
        self.first.get_or_insert(previous);
        state
    }

    /// The goal wants the body: check the content type (of a discovery
    /// document only, DISCO-6; the CLIs' registry clients never look at it,
    /// API-7), the content coding and the declared size.
    fn receive(&self, headers: &HeaderMap, streamed: bool) -> State<G::Output> {
        let checked = match G::KIND {
            // The mirror clients check it as the discovery libraries do
            // (MIRROR-4).
            RequestKind::Discovery | RequestKind::Mirror => content_type::check(headers),
            RequestKind::Registry
            | RequestKind::Download
            | RequestKind::Oci
            | RequestKind::Login => Ok(()),
        };
        if let Err(refusal) = checked {
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
        let encoding = match body::encoding(headers) {
            Ok(encoding) => encoding,
            Err(encoding) => {
                return State::Done(Err(Error::UnsupportedContentEncoding {
                    url: self.url.clone().into(),
                    encoding,
                }));
            }
        };
        let limit = self.config.body_limit_for(G::KIND);
        // The declared length of a gzip body is its compressed length: only
        // the decoded bytes count against the limit.
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|_| encoding == body::Encoding::Identity);
        if let Some(n) = declared.filter(|&n| n > limit) {
            return State::Done(Err(Error::BodyTooLarge {
                url: self.url.clone().into(),
                limit,
                declared: Some(n),
            }));
        }
        let body = if streamed {
            body::Body::streamed(encoding, limit)
        } else {
            body::Body::new(encoding, limit, declared)
        };
        State::Receive(body, streamed)
    }

    fn trace_outcome(&self) {
        match &self.state {
            State::Done(Ok(_)) => {
                debug!(target: "tfdisco", host = %self.goal.host(), url = %self.url, "{} succeeded", G::NAME);
            }
            State::Done(Err(error)) => {
                debug!(target: "tfdisco", host = %self.goal.host(), url = %self.url, %error, "{} failed", G::NAME);
            }
            _ => {}
        }
    }
}

impl<G: Goal + fmt::Debug> fmt::Debug for Transfer<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Send(_) => "Send",
            State::Receive(..) => "Receive",
            State::Wait => "Wait",
            State::Done(Ok(_)) => "Done(Ok)",
            State::Done(Err(_)) => "Done(Err)",
        };
        f.debug_struct("Transfer")
            .field("goal", &self.goal)
            .field("url", &self.url.as_str())
            .field("credentials", &self.credentials)
            .field("credentials_dropped", &self.credentials_dropped)
            .field("redirects", &self.redirects)
            .field("requests", &self.requests)
            .field("attempt", &self.attempt)
            .field("timers", &self.timers)
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

/// The error for a body refused as it arrived, from `url`.
fn body_error(url: &Url, config: &Config, kind: RequestKind, e: body::BodyError) -> Error {
    let url = url.clone().into();
    match e {
        body::BodyError::TooLarge => Error::BodyTooLarge {
            url,
            limit: config.body_limit_for(kind),
            declared: None,
        },
        body::BodyError::Corrupt(problem) => Error::InvalidGzip { url, problem },
    }
}

/// The state that sends a request to `url`.
fn send_state<T>(url: &Url) -> State<T> {
    match Uri::try_from(url.as_str()) {
        Ok(uri) => State::Send(uri),
        Err(e) => State::Done(Err(Error::InvalidLocation {
            url: url.clone().into(),
            location: url.as_str().into(),
            problem: e.to_string().into(),
        })),
    }
}
