//! What a driver reports about each request/response exchange, for reports
//! such as `tfdisco check`.

use std::time::{Duration, Instant};

use tfdisco_core::http::{HeaderMap, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{Discovery, TransportError};

/// One request of a discovery and what came back.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Exchange {
    /// The request URL.
    pub url: Url,
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
    /// The transport failure that ended the exchange, if any.
    pub error: Option<TransportError>,
    /// From sending the request to the end of the exchange.
    pub elapsed: Duration,
}

/// Receives an [`Exchange`] after each request of a driven discovery.
///
/// Closures taking `&Exchange` are observers:
///
/// ```
/// use tfdisco_transport::{Exchange, Observer};
///
/// let mut statuses = Vec::new();
/// let mut observer = |e: &Exchange| statuses.push(e.status);
/// fn takes(_: &mut dyn Observer) {}
/// takes(&mut observer);
/// ```
pub trait Observer: Send {
    /// Called once per exchange, when it ends.
    fn exchange(&mut self, exchange: &Exchange);
}

impl<F: FnMut(&Exchange) + Send> Observer for F {
    fn exchange(&mut self, exchange: &Exchange) {
        self(exchange)
    }
}

/// Fills in an [`Exchange`] while a driver performs one request; does
/// nothing when nobody observes.
#[derive(Debug)]
pub struct Recorder {
    exchange: Option<Exchange>,
    started: Instant,
}

impl Recorder {
    /// Starts recording the request `discovery` is about to send.
    pub fn start(discovery: &Discovery, observed: bool, now: Instant) -> Recorder {
        let exchange = observed.then(|| Exchange {
            url: discovery.url().clone(),
            authorization_sent: discovery.sends_credentials(),
            status: None,
            headers: HeaderMap::new(),
            time_to_head: None,
            body_bytes: 0,
            error: None,
            elapsed: Duration::ZERO,
        });
        Recorder {
            exchange,
            started: now,
        }
    }

    /// The response head arrived.
    pub fn head(&mut self, status: StatusCode, headers: &HeaderMap, now: Instant) {
        if let Some(e) = &mut self.exchange {
            e.status = Some(status);
            e.headers = headers.clone();
            e.time_to_head = Some(now.saturating_duration_since(self.started));
        }
    }

    /// `n` body bytes arrived.
    pub fn body(&mut self, n: usize) {
        if let Some(e) = &mut self.exchange {
            e.body_bytes += n as u64;
        }
    }

    /// The transport failed.
    pub fn error(&mut self, error: &TransportError) {
        if let Some(e) = &mut self.exchange {
            e.error = Some(error.clone());
        }
    }

    /// Hands the exchange to `observer`.
    pub fn finish(self, observer: Option<&mut (dyn Observer + '_)>, now: Instant) {
        if let (Some(mut e), Some(observer)) = (self.exchange, observer) {
            e.elapsed = now.saturating_duration_since(self.started);
            observer.exchange(&e);
        }
    }
}
