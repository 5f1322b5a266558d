//! The loopback test server: two HTTPS listeners and one plain-http
//! listener on 127.0.0.1 sharing one route table and one record of requests.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tfdisco_core::Hostname;
use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, Request, Response};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Sleep;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;

use crate::background::Background;
use crate::pki::{Cert, pki};
use crate::reply::{Body, Reply};
use crate::routes::Routes;

/// How long a held reply waits for [`TestServer::release`] at most.
const HOLD_LIMIT: Duration = Duration::from_secs(30);

/// Under a [`NetworkShape`] rate: the largest frame a body hands over at
/// once, the least it waits for (unless less is left), and the most a
/// connection may send ahead after it fell behind (a client reading
/// slowly does not earn a burst later).
const SHAPED_FRAME: u64 = 64 * 1024;
const SHAPED_QUANTUM: u64 = 16 * 1024;
const SHAPED_BURST: u64 = 64 * 1024;

/// The network between the server and every client, as far as answers
/// go: every request answered `latency` after it arrived, and every
/// response body sent at `rate` bytes per second at most, on each
/// connection on its own (HTTP/1.1 sends one body at a time on a
/// connection, so each body is paced from its first byte). TLS handshakes
/// and the response heads cost nothing more. The default is no shape.
///
/// ```
/// use std::time::Duration;
/// use tfdisco_testkit::{NetworkShape, TestServer};
///
/// let server = TestServer::start();
/// server.shape(NetworkShape {
///     latency: Duration::from_millis(40),
///     rate: Some(25_000_000),
/// });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetworkShape {
    /// How long every request waits before its answer (before any
    /// [`Reply::stall`](crate::Reply::stall) or hold of its own).
    pub latency: Duration,
    /// Bytes per second each connection's response bodies are sent at, at
    /// most; `None` for as fast as the machine goes.
    pub rate: Option<u64>,
}

impl NetworkShape {
    /// How long `bytes` of body take at the rate (zero without one).
    pub fn transfer_time(&self, bytes: u64) -> Duration {
        match self.rate {
            Some(rate) if rate > 0 => Duration::from_secs_f64(bytes as f64 / rate as f64),
            _ => Duration::ZERO,
        }
    }
}

/// A scripted HTTPS server on loopback that records what it receives.
///
/// It listens on three ports of 127.0.0.1: [`TestServer::port`] and
/// [`TestServer::other_port`] (HTTPS) and [`TestServer::http_port`] (plain
/// http). Replies are scripted per path ([`TestServer::route`]) or for
/// every path under a prefix ([`TestServer::route_prefix`]); other paths get
/// a 500. It stops when dropped.
pub struct TestServer {
    shared: Arc<Shared>,
    port: u16,
    other_port: u16,
    http_port: u16,
    _background: Background,
}

struct Shared {
    routes: Mutex<Routes>,
    seen: Mutex<Vec<Seen>>,
    connections: AtomicU64,
    tls_failures: AtomicU64,
    release: watch::Sender<bool>,
    shape: Mutex<NetworkShape>,
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// `GET`, normally.
    pub method: String,
    /// The path.
    pub path: String,
    /// The query, if any.
    pub query: Option<String>,
    /// The local port it arrived on.
    pub port: u16,
    /// Whether it came over TLS.
    pub tls: bool,
    /// Which connection it came on (numbered from 1 per server).
    pub connection: u64,
    /// The request headers.
    pub headers: HeaderMap,
    /// The request body (empty for a GET).
    pub body: Vec<u8>,
    /// When the request arrived.
    pub received: std::time::Instant,
    progress: Arc<Progress>,
}

#[derive(Debug, Default)]
struct Progress {
    sent: AtomicU64,
    done: AtomicBool,
}

impl Seen {
    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `Host` header.
    pub fn host(&self) -> Option<&str> {
        self.header("host")
    }

    /// The `Authorization` header.
    pub fn authorization(&self) -> Option<&str> {
        self.header("authorization")
    }

    /// Body bytes the server has handed to the connection so far.
    pub fn body_bytes_sent(&self) -> u64 {
        self.progress.sent.load(Ordering::SeqCst)
    }

    /// True once the server stopped sending this response (finished, failed
    /// or dropped).
    pub fn finished(&self) -> bool {
        self.progress.done.load(Ordering::SeqCst)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn bind() -> std::net::TcpListener {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener
        .set_nonblocking(true)
        .expect("a non-blocking listener");
    listener
}

impl TestServer {
    /// A server presenting the trusted certificate.
    pub fn start() -> TestServer {
        TestServer::with_cert(Cert::Trusted)
    }

    /// A server presenting `cert` on its HTTPS ports.
    pub fn with_cert(cert: Cert) -> TestServer {
        TestServer::with_config(pki().server_config(cert))
    }

    /// A server presenting what `config` presents on its HTTPS ports (such
    /// as [`crate::chain`]'s leaf and intermediate).
    pub fn with_config(config: Arc<ServerConfig>) -> TestServer {
        let acceptor = TlsAcceptor::from(config);
        let [a, b, c] = [bind(), bind(), bind()];
        TestServer::serve(vec![
            (a, Some(acceptor.clone())),
            (b, Some(acceptor)),
            (c, None),
        ])
    }

    /// A server with one listener on `addr` (port 0 picks one): HTTPS with
    /// `tls`, plain http without. This is what `tfdisco-dev serve` runs; for it
    /// [`TestServer::port`], [`TestServer::other_port`] and
    /// [`TestServer::http_port`] are all the one listener's port.
    pub fn bind(addr: SocketAddr, tls: Option<Arc<ServerConfig>>) -> io::Result<TestServer> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        Ok(TestServer::serve(vec![(
            listener,
            tls.map(TlsAcceptor::from),
        )]))
    }

    /// Serves every listener from a background runtime; ports are given in
    /// the order main, other, plain http (repeating the last when fewer).
    fn serve(listeners: Vec<(std::net::TcpListener, Option<TlsAcceptor>)>) -> TestServer {
        let ports: Vec<u16> = listeners
            .iter()
            .map(|(l, _)| l.local_addr().expect("bound").port())
            .collect();
        let port = |i: usize| ports.get(i).or(ports.last()).copied().unwrap_or(0);
        let shared = Arc::new(Shared {
            routes: Mutex::new(Routes::default()),
            seen: Mutex::new(Vec::new()),
            connections: AtomicU64::new(0),
            tls_failures: AtomicU64::new(0),
            release: watch::Sender::new(false),
            shape: Mutex::new(NetworkShape::default()),
        });
        let state = shared.clone();
        let background = Background::start("tfdisco-test-server", move || async move {
            for (listener, tls) in listeners {
                let listener = TcpListener::from_std(listener).expect("a tokio listener");
                tokio::spawn(accept(listener, tls, state.clone()));
            }
        });
        TestServer {
            shared,
            port: port(0),
            other_port: port(1),
            http_port: port(2),
            _background: background,
        }
    }

    /// The main HTTPS port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The second HTTPS port (same routes).
    pub fn other_port(&self) -> u16 {
        self.other_port
    }

    /// The plain-http port (same routes).
    pub fn http_port(&self) -> u16 {
        self.http_port
    }

    /// `localhost:<port>`.
    pub fn host(&self) -> Hostname {
        Hostname::parse(&format!("localhost:{}", self.port)).expect("a valid hostname")
    }

    /// `https://localhost:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.port)
    }

    /// Answers `reply` on `path` (every port), from now on.
    pub fn route(&self, path: &str, reply: Reply) -> &TestServer {
        self.route_each(path, [reply])
    }

    /// Answers the requests for `path` with `replies` in turn; the last one
    /// answers every request after it.
    pub fn route_each(&self, path: &str, replies: impl IntoIterator<Item = Reply>) -> &TestServer {
        let replies: VecDeque<Reply> = replies.into_iter().collect();
        assert!(!replies.is_empty(), "a route needs a reply");
        lock(&self.shared.routes).insert(path, replies);
        self
    }

    /// Answers `reply` on every path that starts with `prefix` and has no
    /// route of its own (every port), from now on; the longest such prefix
    /// wins. `route_prefix("/", …)` replaces the 500 of unscripted paths.
    pub fn route_prefix(&self, prefix: &str, reply: Reply) -> &TestServer {
        lock(&self.shared.routes).insert_prefix(prefix, reply);
        self
    }

    /// Lets `respond` answer every path that starts with `prefix` and has
    /// no route of its own (every port), from now on: it gets the path and
    /// returns the reply, or `None` to leave the path to the
    /// [`route_prefix`](TestServer::route_prefix) replies. The longest such
    /// prefix is asked first. A registry that answers for any provider
    /// ([`crate::any_registry`]) is served this way.
    pub fn route_with(
        &self,
        prefix: &str,
        respond: impl Fn(&str) -> Option<Reply> + Send + Sync + 'static,
    ) -> &TestServer {
        lock(&self.shared.routes).insert_responder(prefix, Arc::new(respond));
        self
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<Seen> {
        lock(&self.shared.seen).clone()
    }

    /// Every request received since the last call (or since the start),
    /// oldest first, and forgets them: a long-running load test counts
    /// requests this way without the record growing.
    pub fn take_requests(&self) -> Vec<Seen> {
        std::mem::take(&mut *lock(&self.shared.seen))
    }

    /// The paths requested so far, oldest first.
    pub fn paths(&self) -> Vec<String> {
        lock(&self.shared.seen)
            .iter()
            .map(|s| s.path.clone())
            .collect()
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> u64 {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// TLS handshakes that failed (a client refusing the certificate).
    pub fn tls_failures(&self) -> u64 {
        self.shared.tls_failures.load(Ordering::SeqCst)
    }

    /// Shapes every answer from now on ([`NetworkShape`]; requests already
    /// answering keep the shape they started with).
    /// `NetworkShape::default()` turns it off again.
    pub fn shape(&self, shape: NetworkShape) -> &TestServer {
        *lock(&self.shared.shape) = shape;
        self
    }

    /// The shape answers have now.
    pub fn network_shape(&self) -> NetworkShape {
        *lock(&self.shared.shape)
    }

    /// Lets every held reply go.
    pub fn release(&self) {
        self.shared.release.send_replace(true);
    }

    /// Waits (at most `limit`) until every response received so far is
    /// finished; true if they are.
    pub fn wait_finished(&self, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        loop {
            if self.requests().iter().all(Seen::finished) {
                return true;
            }
            if Instant::now() >= end {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// One accepted connection.
struct Conn {
    shared: Arc<Shared>,
    port: u16,
    tls: bool,
    id: u64,
    /// Another handle on the socket, to turn a close into a reset.
    raw: std::net::TcpStream,
}

async fn accept(listener: TcpListener, tls: Option<TlsAcceptor>, shared: Arc<Shared>) {
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let id = shared.connections.fetch_add(1, Ordering::SeqCst) + 1;
        let shared = shared.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let Ok((tcp, raw)) = split_handle(tcp) else {
                return;
            };
            let conn = Conn {
                shared,
                port,
                tls: tls.is_some(),
                id,
                raw,
            };
            match tls {
                Some(acceptor) => match acceptor.accept(tcp).await {
                    Ok(stream) => serve(TokioIo::new(stream), conn).await,
                    Err(_) => {
                        conn.shared.tls_failures.fetch_add(1, Ordering::SeqCst);
                    }
                },
                None => serve(TokioIo::new(tcp), conn).await,
            }
        });
    }
}

fn split_handle(tcp: TcpStream) -> io::Result<(TcpStream, std::net::TcpStream)> {
    let std = tcp.into_std()?;
    let raw = std.try_clone()?;
    Ok((TcpStream::from_std(std)?, raw))
}

async fn serve<I>(io: I, conn: Conn)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let conn = Arc::new(conn);
    let service = service_fn(move |request| respond(request, conn.clone()));
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(io, service)
        .await;
}

async fn respond(
    request: Request<Incoming>,
    conn: Arc<Conn>,
) -> Result<Response<ReplyBody>, io::Error> {
    let progress = Arc::new(Progress::default());
    let (request, body) = request.into_parts();
    let body = http_body_util::BodyExt::collect(body)
        .await
        .map(|collected| collected.to_bytes().to_vec())
        .map_err(io::Error::other)?;
    let path = request.uri.path().to_owned();
    lock(&conn.shared.seen).push(Seen {
        method: request.method.to_string(),
        path: path.clone(),
        query: request.uri.query().map(str::to_owned),
        port: conn.port,
        tls: conn.tls,
        connection: conn.id,
        headers: request.headers.clone(),
        body,
        received: std::time::Instant::now(),
        progress: progress.clone(),
    });
    let reply = lock(&conn.shared.routes).next(&path).unwrap_or_else(|| {
        Reply::new(500)
            .header("Content-Type", "text/plain")
            .body(b"no route for this path")
    });
    let shape = *lock(&conn.shared.shape);
    if !shape.latency.is_zero() {
        tokio::time::sleep(shape.latency).await;
    }
    if reply.hold {
        let mut released = conn.shared.release.subscribe();
        let _ = tokio::time::timeout(HOLD_LIMIT, released.wait_for(|r| *r)).await;
    }
    if !reply.stall.is_zero() {
        tokio::time::sleep(reply.stall).await;
    }
    if reply.reset {
        // Linger 0, and hyper closes a connection whose service failed:
        // a TCP RST instead of a response.
        let _ = socket2::SockRef::from(&conn.raw).set_linger(Some(Duration::ZERO));
        return Err(io::Error::other("scripted reset before the response"));
    }
    let held = reply.hold_rest.then(|| {
        let mut released = conn.shared.release.subscribe();
        let held: Pin<Box<dyn Future<Output = ()> + Send + Sync>> = Box::pin(async move {
            let _ = tokio::time::timeout(HOLD_LIMIT, released.wait_for(|r| *r)).await;
        });
        held
    });
    let mut response = Response::new(ReplyBody {
        body: reply.body,
        held,
        pending: None,
        interval: reply.interval,
        sleep: None,
        rate: shape.rate.filter(|r| *r > 0),
        started: None,
        sent: 0,
        reset_after: reply.reset_after,
        progress,
        conn,
    });
    *response.status_mut() =
        hyper::StatusCode::from_u16(reply.status).expect("a valid test status");
    for (name, value) in reply.headers {
        response.headers_mut().append(
            HeaderName::from_bytes(name.as_bytes()).expect("a valid test header name"),
            HeaderValue::from_bytes(&value).expect("a valid test header value"),
        );
    }
    Ok(response)
}

/// A scripted body: counts what it hands over, sleeps between chunks,
/// keeps to the server's rate, and can end in a TCP reset.
struct ReplyBody {
    body: Body,
    /// What the body waits for after its first chunk
    /// ([`Reply::hold_rest`](crate::Reply::hold_rest)), until it is sent.
    held: Option<Pin<Box<dyn Future<Output = ()> + Send + Sync>>>,
    /// What is left of the part being sent under a rate.
    pending: Option<Bytes>,
    interval: Duration,
    sleep: Option<Pin<Box<Sleep>>>,
    /// Bytes per second, at most ([`NetworkShape::rate`]).
    rate: Option<u64>,
    /// Where the rate's schedule starts: the first poll, moved forward when
    /// the connection fell more than [`SHAPED_BURST`] behind it.
    started: Option<tokio::time::Instant>,
    sent: u64,
    reset_after: Option<u64>,
    progress: Arc<Progress>,
    conn: Arc<Conn>,
}

impl ReplyBody {
    fn is_empty(&self) -> bool {
        match &self.body {
            Body::Parts(parts) => parts.is_empty(),
            Body::Repeat { times, .. } => *times == 0,
        }
    }

    fn next_part(&mut self) -> Option<Bytes> {
        match &mut self.body {
            Body::Parts(parts) => parts.pop_front(),
            Body::Repeat { times: 0, .. } => None,
            Body::Repeat { chunk, times } => {
                *times -= 1;
                Some(chunk.clone())
            }
        }
    }
}

impl hyper::body::Body for ReplyBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        loop {
            if this.pending.is_none() && this.is_empty() {
                return Poll::Ready(None);
            }
            if let Some(sleep) = &mut this.sleep {
                ready!(sleep.as_mut().poll(cx));
                this.sleep = None;
            }
            if this.sent > 0
                && this.pending.is_none()
                && let Some(held) = &mut this.held
            {
                ready!(held.as_mut().poll(cx));
                this.held = None;
            }
            if this.reset_after.is_some_and(|n| this.sent >= n) {
                // Linger 0: closing the socket sends RST instead of FIN.
                let _ = socket2::SockRef::from(&this.conn.raw).set_linger(Some(Duration::ZERO));
                return Poll::Ready(Some(Err(io::Error::other("scripted connection reset"))));
            }
            let mut part = match this.pending.take() {
                Some(part) => part,
                None => {
                    let Some(mut part) = this.next_part() else {
                        return Poll::Ready(None);
                    };
                    if let Some(n) = this.reset_after {
                        part.truncate((n - this.sent).try_into().unwrap_or(usize::MAX));
                    }
                    part
                }
            };
            if let Some(rate) = this.rate {
                // How much the rate allows now; too little: wait for it.
                let now = tokio::time::Instant::now();
                let started = *this.started.get_or_insert(now);
                let due = |bytes: u64| Duration::from_secs_f64(bytes as f64 / rate as f64);
                let mut allowed = (now.duration_since(started).as_secs_f64() * rate as f64) as u64;
                if allowed > this.sent + SHAPED_BURST {
                    // Behind (the client read slowly): no catching up.
                    this.started = Some(now - due(this.sent + SHAPED_BURST));
                    allowed = this.sent + SHAPED_BURST;
                }
                let budget = allowed.saturating_sub(this.sent);
                let least = (part.len() as u64).min(SHAPED_QUANTUM);
                if budget < least {
                    let when = started + due(this.sent + least);
                    this.sleep = Some(Box::pin(tokio::time::sleep_until(when)));
                    this.pending = Some(part);
                    continue;
                }
                let n = budget.min(SHAPED_FRAME).min(part.len() as u64) as usize;
                let rest = part.split_off(n);
                if !rest.is_empty() {
                    this.pending = Some(rest);
                }
            }
            this.sent += part.len() as u64;
            this.progress.sent.store(this.sent, Ordering::SeqCst);
            if this.pending.is_none() && !this.interval.is_zero() {
                this.sleep = Some(Box::pin(tokio::time::sleep(this.interval)));
            }
            return Poll::Ready(Some(Ok(Frame::data(part))));
        }
    }
}

impl Drop for ReplyBody {
    fn drop(&mut self) {
        self.progress.done.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests;
