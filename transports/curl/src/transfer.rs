//! One exchange on a libcurl easy handle. libcurl never follows redirects
//! here; the callbacks report to the [`Exchange`] as data arrives and stop
//! libcurl's transfer as soon as the core's [`Transfer`](tfdisco_core::Transfer)
//! wants no more.

use std::cell::RefCell;
use std::time::Duration;

use curl::easy::{Easy, List};
use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::header::ACCEPT;
use tfdisco_core::http::{Method, Request};
use tfdisco_core::{TransportError, TransportErrorKind};
use tfdisco_transport::{Exchange, Route};
use tracing::debug;

use crate::Http;
use crate::head::HeadParser;

/// What the callbacks share during one transfer.
struct Transfer<'e, 'f> {
    exchange: &'e mut Exchange<'f>,
    head: HeadParser,
    /// The head could not be parsed: the transfer is stopped for this.
    failure: Option<TransportError>,
}

impl Transfer<'_, '_> {
    /// Header callback: false stops the transfer.
    fn header_line(&mut self, line: &[u8]) -> bool {
        if self.exchange.wants_body() {
            return true; // trailers
        }
        if !self.exchange.is_current() {
            return false;
        }
        match self.head.line(line) {
            Ok(None) => true,
            Ok(Some((status, headers))) => self.exchange.head(status, &headers),
            Err(e) => {
                self.failure = Some(e);
                false
            }
        }
    }

    /// Write callback: fewer bytes than given stops the transfer.
    fn body(&mut self, data: &[u8]) -> usize {
        if self.exchange.body(data) {
            data.len()
        } else {
            0
        }
    }

    /// Reports how the transfer ended. Errors after the core's transfer
    /// stopped wanting the response (we stopped libcurl's) are ignored by the
    /// exchange.
    fn finish(self, result: Result<(), curl::Error>, proxied: bool) {
        let error = match (self.failure, result) {
            (Some(failure), _) => failure,
            (None, Ok(())) if self.exchange.wants_body() => return self.exchange.end(),
            (None, Ok(())) => TransportError::new(
                TransportErrorKind::Other,
                "the transfer ended without a response",
            ),
            (None, Err(e)) => TransportError::new(classify(&e, proxied), e),
        };
        self.exchange.fail(error);
    }
}

/// Performs `request` on `easy`, reporting to `exchange`.
pub(crate) fn perform(
    http: &Http,
    easy: &mut Easy,
    request: &Request<Bytes>,
    exchange: &mut Exchange<'_>,
) {
    let timeout = match exchange.deadline() {
        Some(deadline) => match deadline.checked_duration_since(exchange.now()) {
            Some(left) if !left.is_zero() => Some(left),
            _ => return exchange.timer_fired(),
        },
        None => None,
    };
    let prepared = http
        .settings
        .route(request.uri())
        .and_then(|route| prepare(http, easy, request, &route, timeout).map(|()| route));
    let route = match prepared {
        Ok(route) => route,
        Err(e) => return exchange.fail(e),
    };
    let tunneled = route.https && route.proxy.is_some();
    debug!(target: "tfdisco", origin = %route.authority(), proxy = ?route.proxy, "libcurl transfer");
    let transfer = RefCell::new(Transfer {
        exchange,
        head: HeadParser::new(tunneled),
        failure: None,
    });
    let result = {
        let mut easy = easy.transfer();
        easy.header_function(|line| transfer.borrow_mut().header_line(line))
            .and_then(|()| easy.write_function(|data| Ok(transfer.borrow_mut().body(data))))
            .and_then(|()| easy.perform())
    };
    transfer.into_inner().finish(result, route.proxy.is_some());
}

/// Sets the per-request options: URL, headers, proxy, timeout, reuse.
fn prepare(
    http: &Http,
    easy: &mut Easy,
    request: &Request<Bytes>,
    route: &Route,
    timeout: Option<Duration>,
) -> Result<(), TransportError> {
    let other = |e: curl::Error| TransportError::new(TransportErrorKind::Other, e);
    let mut headers = List::new();
    for (name, value) in request.headers() {
        let value = value.to_str().map_err(|e| {
            TransportError::new(TransportErrorKind::Other, format!("header {name}: {e}"))
        })?;
        headers.append(&format!("{name}: {value}")).map_err(other)?;
    }
    // libcurl adds `Accept: */*` to a request without one; registry
    // requests send none (API-2): `Accept:` with no value keeps it out.
    if !request.headers().contains_key(ACCEPT) {
        headers.append("Accept:").map_err(other)?;
    }
    // Nor `Expect: 100-continue` before a body (UPLOAD): the body goes at
    // once, as Go's client sends it.
    if !request.body().is_empty() {
        headers.append("Expect:").map_err(other)?;
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
    let fresh = !http.settings.reuse_connections() || (route.https && route.proxy.is_some());
    easy.url(&request.uri().to_string()).map_err(other)?;
    set_method(easy, request).map_err(other)?;
    easy.http_headers(headers).map_err(other)?;
    easy.proxy(&proxy).map_err(other)?;
    easy.proxy_headers(proxy_headers).map_err(other)?;
    // libcurl counts whole elapsed milliseconds (0 means none): round up and
    // add one, so that its timer never fires before the core's deadline.
    let timeout_ms = timeout.map_or(0, |t| t.as_nanos().div_ceil(1_000_000) + 1);
    easy.timeout(Duration::from_millis(
        u64::try_from(timeout_ms).unwrap_or(u64::MAX),
    ))
    .map_err(other)?;
    easy.fresh_connect(fresh).map_err(other)?;
    easy.forbid_reuse(fresh).map_err(other)?;
    Ok(())
}

/// The request's method and body (UPLOAD). The handle is reused: every
/// option a transfer may set is set for each one.
fn set_method(easy: &mut Easy, request: &Request<Bytes>) -> Result<(), curl::Error> {
    let method = request.method();
    easy.nobody(false)?;
    if *method == Method::HEAD {
        easy.get(true)?;
        easy.nobody(true)?;
    } else if request.body().is_empty() && *method == Method::GET {
        easy.get(true)?;
    } else {
        easy.post(true)?;
        easy.post_fields_copy(request.body())?;
    }
    easy.custom_request(method.as_str())
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
    } else if e.is_peer_failed_verification()
        || e.is_ssl_cacert()
        || e.is_ssl_issuer_error()
        || e.is_ssl_cacert_badfile()
    {
        // Refused, or nothing to check it against: no retry can help.
        TransportErrorKind::Certificate
    } else if e.is_ssl_connect_error() || e.is_ssl_certproblem() || e.is_ssl_cipher() {
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
