//! One request/response exchange as a transport performs it ([`Exchange`]),
//! what observers learn about it ([`ExchangeReport`], [`Event`]), and the
//! object-safe view of a transfer that lets one [`Exchange`] type serve every
//! goal.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use tfdisco_core::http::{HeaderMap, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    CredentialsError, Goal, Hostname, Retry, Transfer, TransportError, TransportErrorKind,
};

use crate::Transport;

/// What an exchange needs of a transfer, whatever its goal: the inputs and the
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

impl<G> Feed for Transfer<G>
where
    G: Goal + Send,
    G::Output: Send,
{
    fn goal(&self) -> &'static str {
        G::NAME
    }
    fn handle_head(&mut self, status: StatusCode, headers: &HeaderMap, now: Instant) {
        Transfer::handle_head(self, status, headers, now);
    }
    fn handle_body(&mut self, chunk: &[u8], now: Instant) {
        Transfer::handle_body(self, chunk, now);
    }
    fn handle_end(&mut self, now: Instant) {
        Transfer::handle_end(self, now);
    }
    fn handle_error(&mut self, error: TransportError, now: Instant) {
        Transfer::handle_error(self, error, now);
    }
    fn handle_timeout(&mut self, now: Instant) {
        Transfer::handle_timeout(self, now);
    }
    fn poll_timeout(&self) -> Option<Instant> {
        Transfer::poll_timeout(self)
    }
    fn requests(&self) -> u32 {
        Transfer::requests(self)
    }
    fn is_sending(&self) -> bool {
        Transfer::is_sending(self)
    }
    fn is_receiving(&self) -> bool {
        Transfer::is_receiving(self)
    }
    fn url(&self) -> &Url {
        Transfer::url(self)
    }
    fn sends_credentials(&self) -> bool {
        Transfer::sends_credentials(self)
    }
    fn attempt(&self) -> u32 {
        Transfer::attempt(self)
    }
    fn retry(&self) -> Option<&Retry> {
        Transfer::retry(self)
    }
}

/// One request of a transfer being performed by a transport: where the
/// transport reports the response, and where it learns whether the transfer
/// still wants it.
///
/// The transport makes no decision of its own: it reports the head
/// ([`Exchange::head`]), each body chunk ([`Exchange::body`]) and the end
/// ([`Exchange::end`]), or a failure ([`Exchange::fail`]), and stops as soon
/// as a report returns `false` (a redirect, an error status, the size limit
/// passed, the deadline). While it waits for the network it races the wait
/// against the transfer's timers with [`Exchange::race`] (async transports), or
/// arms its own timer for [`Exchange::deadline`] and reports
/// [`TransportErrorKind::Timeout`] when that fires (blocking ones). The
/// exchange reads the transport's clock ([`Transport::now`]) for every
/// report, so the transport never bends the time.
pub struct Exchange<'a> {
    transfer: &'a mut dyn Feed,
    clock: &'a Clock<'a>,
    request: u32,
    started: Instant,
    report: Option<ExchangeReport>,
}

/// The transport's clock, as the exchange reads it.
pub(crate) type Clock<'a> = dyn Fn() -> Instant + Sync + 'a;

impl<'a> Exchange<'a> {
    /// The exchange of `transfer`'s current request, timed by `clock`;
    /// `observed` keeps a report.
    pub(crate) fn new(
        transfer: &'a mut dyn Feed,
        clock: &'a Clock<'a>,
        observed: bool,
    ) -> Exchange<'a> {
        let started = clock();
        let report = observed.then(|| ExchangeReport {
            goal: transfer.goal(),
            started,
            url: transfer.url().clone(),
            attempt: transfer.attempt(),
            authorization_sent: transfer.sends_credentials(),
            status: None,
            headers: HeaderMap::new(),
            time_to_head: None,
            body_bytes: 0,
            error: None,
            retry: None,
            elapsed: Duration::ZERO,
        });
        Exchange {
            request: transfer.requests(),
            started,
            clock,
            transfer,
            report,
        }
    }

    /// The time now on the transport's clock, as the exchange reports it
    /// to the transfer: what a blocking transport measures its timer against
    /// ([`Exchange::deadline`]).
    pub fn now(&self) -> Instant {
        (self.clock)()
    }

    /// The URL of the request.
    pub fn url(&self) -> &Url {
        if let Some(report) = &self.report {
            return &report.url;
        }
        self.transfer.url()
    }

    /// True while the transfer still wants this exchange: its request is the
    /// transfer's current one, and the transfer awaits its head or its body.
    pub fn is_current(&self) -> bool {
        self.transfer.requests() == self.request
            && (self.transfer.is_sending() || self.transfer.is_receiving())
    }

    /// True while the transfer wants (more of) this exchange's response body.
    pub fn wants_body(&self) -> bool {
        self.is_current() && self.transfer.is_receiving()
    }

    /// When the transfer's earliest timer fires: arm a timer for it (`None`:
    /// there is none). When it fires, call [`Exchange::timer_fired`] or
    /// report [`TransportErrorKind::Timeout`].
    pub fn deadline(&self) -> Option<Instant> {
        self.transfer.poll_timeout()
    }

    /// Reports the response head. Returns true when the transfer wants the
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
        self.transfer.handle_head(status, headers, now);
        self.wants_body()
    }

    /// Reports a body chunk. Returns true when the transfer wants more.
    pub fn body(&mut self, chunk: &[u8]) -> bool {
        if !self.wants_body() {
            return false;
        }
        if let Some(report) = &mut self.report {
            report.body_bytes += chunk.len() as u64;
        }
        let now = self.now();
        self.transfer.handle_body(chunk, now);
        self.wants_body()
    }

    /// Reports the end of the body.
    pub fn end(&mut self) {
        if self.wants_body() {
            let now = self.now();
            self.transfer.handle_end(now);
        }
    }

    /// Reports that the request could not be performed or the response not
    /// read. Ignored once the transfer no longer wants this exchange (a
    /// transfer the transport stopped on purpose may end with an error).
    pub fn fail(&mut self, error: TransportError) {
        if !self.is_current() {
            return;
        }
        if let Some(report) = &mut self.report {
            report.error = Some(error.clone());
        }
        let now = self.now();
        self.transfer.handle_error(error, now);
    }

    /// Reports that the transport's timer for [`Exchange::deadline`] fired.
    /// The transfer fires whatever is due; a timer that woke the transport a
    /// little early changes nothing, and the exchange goes on.
    pub fn timer_fired(&mut self) {
        if self.is_current() {
            let now = self.now();
            self.transfer.handle_timeout(now);
        }
    }

    /// Runs `future` (a step of the exchange: sending, reading a chunk)
    /// against the transfer's timers, which fire as they fall due. Returns its
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
                                "the transfer's timer ended the exchange",
                            ));
                        }
                        return None;
                    }
                }
            }
        }
    }

    /// Ends the exchange: a response the transport left unfinished while
    /// the transfer still wanted it fails the transfer. Returns the report.
    pub(crate) fn finish(mut self) -> Option<ExchangeReport> {
        if self.is_current() {
            self.fail(TransportError::new(
                TransportErrorKind::Other,
                "the transport ended the exchange without a complete response",
            ));
        }
        let mut report = self.report.take()?;
        report.elapsed = self.now().saturating_duration_since(self.started);
        if self.transfer.requests() == self.request {
            report.retry = self.transfer.retry().cloned();
        }
        Some(report)
    }
}

/// One request of a transfer and what came back, for [`Observer`]s.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ExchangeReport {
    /// What the transfer was for: `"discovery"`, `"provider versions"`, … (the
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
