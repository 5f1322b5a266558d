//! One request/response exchange on a libcurl easy handle, and the blocking
//! driver loop. libcurl never follows redirects here; the write callback
//! stops the transfer as soon as the core stops asking for body bytes.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use curl::easy::{Easy, List};
use tfdisco_core::http::Request;
use tfdisco_core::{Action, Discovery, Error, Services, TransportError, TransportErrorKind};
use tfdisco_transport::{Observer, Recorder, Route};
use tracing::debug;

use crate::Net;
use crate::head::HeadParser;

/// Drives `discovery` to its result on `easy`.
pub(crate) fn drive(
    net: &Net,
    easy: &mut Easy,
    discovery: &mut Discovery,
    observer: Option<&mut dyn Observer>,
) -> Result<Services, Error> {
    tfdisco_transport::drive_blocking(discovery, observer, |discovery, request, record| {
        exchange(net, easy, discovery, &request, record)
    })
}

/// What the callbacks share during one transfer.
struct Exchange<'a> {
    discovery: &'a mut Discovery,
    record: &'a mut Recorder,
    head: HeadParser,
    delivered: bool,
    failure: Option<TransportError>,
}

impl Exchange<'_> {
    fn receiving(&mut self) -> bool {
        self.delivered && matches!(self.discovery.poll(), Action::Receive)
    }

    /// Header callback: false stops the transfer.
    fn header_line(&mut self, line: &[u8]) -> bool {
        if self.delivered {
            return true; // trailers
        }
        match self.head.line(line) {
            Ok(None) => true,
            Ok(Some((status, headers))) => {
                self.delivered = true;
                let now = Instant::now();
                self.record.head(status, &headers, now);
                self.discovery.handle_head(status, &headers, now);
                self.receiving()
            }
            Err(e) => {
                self.failure = Some(e);
                false
            }
        }
    }

    /// Write callback: fewer bytes than given stops the transfer.
    fn body(&mut self, data: &[u8]) -> usize {
        if !self.receiving() {
            return 0;
        }
        self.record.body(data.len());
        self.discovery.handle_body(data);
        if self.receiving() { data.len() } else { 0 }
    }

    fn finish(mut self, result: Result<(), curl::Error>, proxied: bool, deadline: Option<Instant>) {
        if let (Err(e), Some(deadline)) = (&result, deadline) {
            if e.is_operation_timedout() && (!self.delivered || self.receiving()) {
                // libcurl's clock can fire a fraction of a millisecond early;
                // the discovery ends at its deadline, not before.
                std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
                let now = Instant::now();
                self.record
                    .error(&TransportError::new(TransportErrorKind::Timeout, e.clone()));
                return self.discovery.handle_timeout(now);
            }
        }
        let failure = match (self.failure.take(), result) {
            (Some(failure), _) => Some(failure),
            (None, Ok(())) if self.receiving() => {
                self.discovery.handle_end(Instant::now());
                None
            }
            (None, Ok(())) if !self.delivered => Some(TransportError::new(
                TransportErrorKind::Other,
                "the transfer ended without a response",
            )),
            (None, Err(e)) if !self.delivered || self.receiving() => {
                Some(TransportError::new(classify(&e, proxied), e))
            }
            // The core had what it needed and we stopped the transfer.
            (None, _) => None,
        };
        if let Some(failure) = failure {
            self.record.error(&failure);
            self.discovery.handle_error(failure);
        }
    }
}

fn exchange(
    net: &Net,
    easy: &mut Easy,
    discovery: &mut Discovery,
    request: &Request<()>,
    record: &mut Recorder,
) {
    let now = Instant::now();
    let deadline = discovery.poll_timeout();
    let timeout = match deadline {
        Some(deadline) if deadline <= now => return discovery.handle_timeout(now),
        // libcurl counts whole milliseconds: round up, so it never fires
        // before the core's deadline.
        Some(deadline) => (deadline - now).as_millis() as u64 + 1,
        None => 0,
    };
    let prepared = net
        .settings
        .route(request.uri())
        .and_then(|route| prepare(net, easy, request, &route, timeout).map(|()| route));
    let route = match prepared {
        Ok(route) => route,
        Err(e) => {
            record.error(&e);
            return discovery.handle_error(e);
        }
    };
    let tunneled = route.https && route.proxy.is_some();
    debug!(target: "tfdisco", origin = %route.authority(), proxy = ?route.proxy, "libcurl transfer");
    let state = RefCell::new(Exchange {
        discovery,
        record,
        head: HeadParser::new(tunneled),
        delivered: false,
        failure: None,
    });
    let result = {
        let mut transfer = easy.transfer();
        transfer
            .header_function(|line| state.borrow_mut().header_line(line))
            .and_then(|()| transfer.write_function(|data| Ok(state.borrow_mut().body(data))))
            .and_then(|()| transfer.perform())
    };
    state
        .into_inner()
        .finish(result, route.proxy.is_some(), deadline);
}

/// Sets the per-request options: URL, headers, proxy, deadline, reuse.
fn prepare(
    net: &Net,
    easy: &mut Easy,
    request: &Request<()>,
    route: &Route,
    timeout_ms: u64,
) -> Result<(), TransportError> {
    let other = |e: curl::Error| TransportError::new(TransportErrorKind::Other, e);
    let mut headers = List::new();
    for (name, value) in request.headers() {
        let value = value.to_str().map_err(|e| {
            TransportError::new(TransportErrorKind::Other, format!("header {name}: {e}"))
        })?;
        headers.append(&format!("{name}: {value}")).map_err(other)?;
    }
    let mut proxy_headers = List::new();
    let proxy = match &route.proxy {
        Some(proxy) => {
            if let Some(value) = proxy.authorization().and_then(|v| v.to_str().ok()) {
                proxy_headers
                    .append(&format!("Proxy-Authorization: {value}"))
                    .map_err(other)?;
            }
            proxy.to_string()
        }
        // An empty proxy makes libcurl ignore its own proxy variables.
        None => String::new(),
    };
    // A tunnel is always new, so its CONNECT answer comes first.
    let fresh = !net.settings.reuse_connections() || (route.https && route.proxy.is_some());
    easy.url(&request.uri().to_string()).map_err(other)?;
    easy.get(true).map_err(other)?;
    easy.http_headers(headers).map_err(other)?;
    easy.proxy(&proxy).map_err(other)?;
    easy.proxy_headers(proxy_headers).map_err(other)?;
    easy.timeout(Duration::from_millis(timeout_ms))
        .map_err(other)?;
    easy.fresh_connect(fresh).map_err(other)?;
    easy.forbid_reuse(fresh).map_err(other)?;
    Ok(())
}

/// libcurl's error codes, by the step that failed.
fn classify(e: &curl::Error, proxied: bool) -> TransportErrorKind {
    /// `CURLE_PROXY` (libcurl 7.73+): the proxy handshake failed.
    const CURLE_PROXY: u32 = 97;
    if e.is_operation_timedout() {
        TransportErrorKind::Timeout
    } else if e.is_couldnt_resolve_proxy() || e.code() == CURLE_PROXY {
        TransportErrorKind::Proxy
    } else if e.is_couldnt_connect() || e.is_couldnt_resolve_host() {
        if proxied {
            TransportErrorKind::Proxy
        } else {
            TransportErrorKind::Connect
        }
    } else if e.is_ssl_connect_error()
        || e.is_peer_failed_verification()
        || e.is_ssl_cacert()
        || e.is_ssl_certproblem()
        || e.is_ssl_cipher()
        || e.is_ssl_cacert_badfile()
        || e.is_ssl_issuer_error()
    {
        TransportErrorKind::Tls
    } else if e.is_recv_error()
        || e.is_send_error()
        || e.is_partial_file()
        || e.is_got_nothing()
        || e.is_read_error()
    {
        TransportErrorKind::Io
    } else {
        TransportErrorKind::Other
    }
}
