//! One request/response exchange as a transport performs it ([`Exchange`]),
//! what observers learn about it ([`ExchangeReport`], [`Event`]), and the
//! object-safe view of a fetch that lets one [`Exchange`] type serve every
//! goal.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use tfdisco_core::http::{HeaderMap, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    CredentialsError, Fetch, Goal, Hostname, Retry, TransportError, TransportErrorKind,
};

use crate::Transport;

/// What an exchange needs of a fetch, whatever its goal: the inputs and the
/// few questions a transport may ask. Object-safe, so that [`Exchange`] and
/// [`Transport`] need no type parameter for the goal.
pub(crate) trait Feed: Send {
    fn goal(&self) -> &'static str;
    fn handle_head(&mut self, status: StatusCode, headers: &HeaderMap, now: Instant);
    fn handle_body(&mut self, chunk: &[u8], now: Instant);
    fn handle_end(&mut self, now: Instant);
    fn handle_error(&mut self, error: TransportError, now: Instant);
    fn handle_timeout(&mut self, now: Instant);
    fn poll_timeout(&self) -> Option<Instant>;
    fn requests(&self) -> u32;
    fn is_sending(&self) -> bool;
    fn is_receiving(&self) -> bool;
    fn url(&self) -> &Url;
    fn sends_credentials(&self) -> bool;
    fn attempt(&self) -> u32;
    fn retry(&self) -> Option<&Retry>;
}

impl<G> Feed for Fetch<G>
where
    G: Goal + Send,
    G::Output: Send,
{
    fn goal(&self) -> &'static str {
        G::NAME
    }
    fn handle_head(&mut self, status: StatusCode, headers: &HeaderMap, now: Instant) {
        Fetch::handle_head(self, status, headers, now);
    }
    fn handle_body(&mut self, chunk: &[u8], now: Instant) {
        Fetch::handle_body(self, chunk, now);
    }
    fn handle_end(&mut self, now: Instant) {
        Fetch::handle_end(self, now);
    }
    fn handle_error(&mut self, error: TransportError, now: Instant) {
        Fetch::handle_error(self, error, now);
    }
    fn handle_timeout(&mut self, now: Instant) {
        Fetch::handle_timeout(self, now);
    }
    fn poll_timeout(&self) -> Option<Instant> {
        Fetch::poll_timeout(self)
    }
    fn requests(&self) -> u32 {
        Fetch::requests(self)
    }
    fn is_sending(&self) -> bool {
        Fetch::is_sending(self)
    }
    fn is_receiving(&self) -> bool {
        Fetch::is_receiving(self)
    }
    fn url(&self) -> &Url {
        Fetch::url(self)
    }
    fn sends_credentials(&self) -> bool {
        Fetch::sends_credentials(self)
    }
    fn attempt(&self) -> u32 {
        Fetch::attempt(self)
    }
    fn retry(&self) -> Option<&Retry> {
        Fetch::retry(self)
    }
}

/// One request of a fetch being performed by a transport: where the
/// transport reports the response, and where it learns whether the fetch
/// still wants it.
///
/// The transport makes no decision of its own: it reports the head
/// ([`Exchange::head`]), each body chunk ([`Exchange::body`]) and the end
/// ([`Exchange::end`]), or a failure ([`Exchange::fail`]), and stops as soon
/// as a report returns `false` (a redirect, an error status, the size limit
/// passed, the deadline). While it waits for the network it races the wait
/// against the fetch's timers with [`Exchange::race`] (async transports), or
/// arms its own timer for [`Exchange::deadline`] and reports
/// [`TransportErrorKind::Timeout`] when that fires (blocking ones). The
/// exchange reads the transport's clock ([`Transport::now`]) for every
/// report, so the transport never bends the time.
pub struct Exchange<'a> {
    fetch: &'a mut dyn Feed,
    clock: &'a Clock<'a>,
    request: u32,
    started: Instant,
    report: Option<ExchangeReport>,
}

/// The transport's clock, as the exchange reads it.
pub(crate) type Clock<'a> = dyn Fn() -> Instant + Sync + 'a;

impl<'a> Exchange<'a> {
    /// The exchange of `fetch`'s current request, timed by `clock`;
    /// `observed` keeps a report.
    pub(crate) fn new(
        fetch: &'a mut dyn Feed,
        clock: &'a Clock<'a>,
        observed: bool,
    ) -> Exchange<'a> {
        let started = clock();
        let report = observed.then(|| ExchangeReport {
            goal: fetch.goal(),
            started,
            url: fetch.url().clone(),
            attempt: fetch.attempt(),
            authorization_sent: fetch.sends_credentials(),
            status: None,
            headers: HeaderMap::new(),
            time_to_head: None,
            body_bytes: 0,
            error: None,
            retry: None,
            elapsed: Duration::ZERO,
        });
        Exchange {
            request: fetch.requests(),
            started,
            clock,
            fetch,
            report,
        }
    }

    /// The time now on the transport's clock, as the exchange reports it
    /// to the fetch: what a blocking transport measures its timer against
    /// ([`Exchange::deadline`]).
    pub fn now(&self) -> Instant {
        (self.clock)()
    }

    /// The URL of the request.
    pub fn url(&self) -> &Url {
        if let Some(report) = &self.report {
            return &report.url;
        }
        self.fetch.url()
    }

    /// True while the fetch still wants this exchange: its request is the
    /// fetch's current one, and the fetch awaits its head or its body.
    pub fn is_current(&self) -> bool {
        self.fetch.requests() == self.request
            && (self.fetch.is_sending() || self.fetch.is_receiving())
    }

    /// True while the fetch wants (more of) this exchange's response body.
    pub fn wants_body(&self) -> bool {
        self.is_current() && self.fetch.is_receiving()
    }

    /// When the fetch's earliest timer fires: arm a timer for it (`None`:
    /// there is none). When it fires, call [`Exchange::timer_fired`] or
    /// report [`TransportErrorKind::Timeout`].
    pub fn deadline(&self) -> Option<Instant> {
        self.fetch.poll_timeout()
    }

    /// Reports the response head. Returns true when the fetch wants the
    /// body; otherwise drop the response.
    pub fn head(&mut self, status: StatusCode, headers: &HeaderMap) -> bool {
        if !self.is_current() {
            return false;
        }
        let now = self.now();
        if let Some(report) = &mut self.report {
            report.status = Some(status);
            report.headers = headers.clone();
            report.time_to_head = Some(now.saturating_duration_since(self.started));
        }
        self.fetch.handle_head(status, headers, now);
        self.wants_body()
    }

    /// Reports a body chunk. Returns true when the fetch wants more.
    pub fn body(&mut self, chunk: &[u8]) -> bool {
        if !self.wants_body() {
            return false;
        }
        if let Some(report) = &mut self.report {
            report.body_bytes += chunk.len() as u64;
        }
        let now = self.now();
        self.fetch.handle_body(chunk, now);
        self.wants_body()
    }

    /// Reports the end of the body.
    pub fn end(&mut self) {
        if self.wants_body() {
            let now = self.now();
            self.fetch.handle_end(now);
        }
    }

    /// Reports that the request could not be performed or the response not
    /// read. Ignored once the fetch no longer wants this exchange (a
    /// transfer the transport stopped on purpose may end with an error).
    pub fn fail(&mut self, error: TransportError) {
        if !self.is_current() {
            return;
        }
        if let Some(report) = &mut self.report {
            report.error = Some(error.clone());
        }
        let now = self.now();
        self.fetch.handle_error(error, now);
    }

    /// Reports that the transport's timer for [`Exchange::deadline`] fired.
    /// The fetch fires whatever is due; a timer that woke the transport a
    /// little early changes nothing, and the exchange goes on.
    pub fn timer_fired(&mut self) {
        if self.is_current() {
            let now = self.now();
            self.fetch.handle_timeout(now);
        }
    }

    /// Runs `future` (a step of the exchange: sending, reading a chunk)
    /// against the fetch's timers, which fire as they fall due. Returns its
    /// output, or `None` when a timer ended the exchange first (the future
    /// is dropped then).
    pub async fn race<T, F>(&mut self, transport: &T, future: F) -> Option<F::Output>
    where
        T: Transport + ?Sized,
        F: Future,
    {
        let mut future = pin!(future);
        loop {
            let Some(deadline) = self.deadline() else {
                return Some(future.await);
            };
            let mut timer = pin!(transport.sleep_until(deadline));
            let step = poll_fn(|cx| {
                if let Poll::Ready(output) = future.as_mut().poll(cx) {
                    return Poll::Ready(Some(output));
                }
                timer.as_mut().poll(cx).map(|()| None)
            })
            .await;
            match step {
                Some(output) => return Some(output),
                None => {
                    self.timer_fired();
                    if !self.is_current() {
                        if let Some(report) = &mut self.report {
                            report.error = Some(TransportError::new(
                                TransportErrorKind::Timeout,
                                "the fetch's timer ended the exchange",
                            ));
                        }
                        return None;
                    }
                }
            }
        }
    }

    /// Ends the exchange: a response the transport left unfinished while
    /// the fetch still wanted it fails the fetch. Returns the report.
    pub(crate) fn finish(mut self) -> Option<ExchangeReport> {
        if self.is_current() {
            self.fail(TransportError::new(
                TransportErrorKind::Other,
                "the transport ended the exchange without a complete response",
            ));
        }
        let mut report = self.report.take()?;
        report.elapsed = self.now().saturating_duration_since(self.started);
        if self.fetch.requests() == self.request {
            report.retry = self.fetch.retry().cloned();
        }
        Some(report)
    }
}

/// One request of a fetch and what came back, for [`Observer`]s.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ExchangeReport {
    /// What the fetch was for: `"discovery"`, `"provider versions"`, … (the
    /// goal's [`Goal::NAME`](tfdisco_core::Goal::NAME)).
    pub goal: &'static str,
    /// When the request was handed to the transport, on the transport's
    /// clock ([`Transport::now`]).
    pub started: Instant,
    /// The request URL.
    pub url: Url,
    /// The attempt it belongs to, from 1 (see `RetryPolicy`).
    pub attempt: u32,
    /// Whether the request carried an `Authorization` header (never its value).
    pub authorization_sent: bool,
    /// The response status, if a response head arrived.
    pub status: Option<StatusCode>,
    /// The response headers (empty without a response).
    pub headers: HeaderMap,
    /// From sending the request to receiving the response head.
    pub time_to_head: Option<Duration>,
    /// Body bytes received (and handed to the core).
    pub body_bytes: u64,
    /// The failure that ended the exchange, if any: the transport's, or a
    /// timeout.
    pub error: Option<TransportError>,
    /// The retry its failure led to: the next attempt, the wait before it,
    /// and why.
    pub retry: Option<Retry>,
    /// From sending the request to the end of the exchange.
    pub elapsed: Duration,
}

/// What a client tells its [`Observer`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A request ended (see [`ExchangeReport`]).
    Exchange(&'a ExchangeReport),
    /// Looking up credentials for `host` failed: the request goes without
    /// credentials, as in Terraform.
    CredentialsFailed {
        /// The host whose credentials were looked up.
        host: &'a Hostname,
        /// What the credentials source reported (it never contains the token).
        error: &'a CredentialsError,
    },
}

/// Receives the [`Event`]s of an observed call
/// (`client.discover(&host).observe(&mut observer)`, see
/// [`Call::observe`](crate::Call::observe)): for reports like `tfdisco check`.
///
/// Closures taking `&Event` are observers:
///
/// ```
/// use tfdisco_transport::{Event, Observer};
///
/// let mut statuses = Vec::new();
/// let mut observer = |event: &Event<'_>| {
///     if let Event::Exchange(report) = event {
///         statuses.push(report.status);
///     }
/// };
/// fn takes(_: &mut dyn Observer) {}
/// takes(&mut observer);
/// ```
pub trait Observer: Send {
    /// Called for each event, as it happens.
    fn event(&mut self, event: &Event<'_>);
}

impl<F: FnMut(&Event<'_>) + Send> Observer for F {
    fn event(&mut self, event: &Event<'_>) {
        self(event)
    }
}
