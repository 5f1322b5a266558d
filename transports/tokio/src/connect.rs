//! Opening connections for hyper-util's pooled client: TCP (with address
//! overrides), the proxy tunnel, TLS. Failures are classified here, where
//! it is known which step failed.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper::rt::ReadBufCursor;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tfdisco_core::http::Uri;
use tfdisco_core::{TransportError, TransportErrorKind};
use tfdisco_transport::{Proxy, Route, Settings, tunnel};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tracing::debug;

/// The connector hyper-util's client calls for each new connection.
#[derive(Clone)]
pub(crate) struct Connector {
    pub(crate) settings: Arc<Settings>,
    pub(crate) tls: TlsConnector,
}

impl tower_service::Service<Uri> for Connector {
    type Response = Conn;
    type Error = TransportError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, TransportError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), TransportError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let connector = self.clone();
        Box::pin(async move { connector.connect(uri).await })
    }
}

impl Connector {
    async fn connect(self, uri: Uri) -> Result<Conn, TransportError> {
        let route = self.settings.route(&uri)?;
        let (host, port) = route.connect_to();
        debug!(target: "tfdisco", origin = %route.authority(), proxy = ?route.proxy, "connecting");
        let mut tcp = tcp_connect(&self.settings, host, port).await.map_err(|e| {
            let kind = match route.proxy {
                Some(_) => TransportErrorKind::Proxy,
                None => TransportErrorKind::Connect,
            };
            TransportError::new(kind, e)
        })?;
        let _ = tcp.set_nodelay(true);
        let proxied_http = route.proxy.is_some() && !route.https;
        if !route.https {
            return Ok(Conn::new(Stream::Plain(tcp), proxied_http));
        }
        if let Some(proxy) = &route.proxy {
            open_tunnel(&mut tcp, &route, proxy).await?;
        }
        let name = ServerName::try_from(route.host.clone())
            .map_err(|e| TransportError::new(TransportErrorKind::Other, e))?;
        let tls = self
            .tls
            .connect(name, tcp)
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Tls, e))?;
        Ok(Conn::new(Stream::Tls(Box::new(tls)), false))
    }
}

/// Connects to the overridden addresses of `host:port`, or to what DNS says,
/// trying each address in turn.
async fn tcp_connect(settings: &Settings, host: &str, port: u16) -> io::Result<TcpStream> {
    let addrs: Vec<SocketAddr> = match settings.resolve_override(host, port) {
        Some(addrs) => addrs.to_vec(),
        None => tokio::net::lookup_host((host, port)).await?.collect(),
    };
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {host}"));
    for addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(tcp) => return Ok(tcp),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// `CONNECT`s through `proxy` to the route's origin.
async fn open_tunnel(
    tcp: &mut TcpStream,
    route: &Route,
    proxy: &Proxy,
) -> Result<(), TransportError> {
    let io_error = |e: io::Error| TransportError::new(TransportErrorKind::Proxy, e);
    tcp.write_all(&tunnel::request(route, proxy))
        .await
        .map_err(io_error)?;
    let mut received = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let n = tcp.read(&mut chunk).await.map_err(io_error)?;
        if n == 0 {
            return Err(tunnel::closed(proxy));
        }
        received.extend_from_slice(&chunk[..n]);
        if let Some(head) = tunnel::response(&received, proxy)? {
            return tunnel::check_rest(head, &received, proxy);
        }
    }
}

/// A plain or TLS TCP stream.
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// A connection as hyper-util's client sees it.
pub(crate) struct Conn {
    io: TokioIo<Stream>,
    /// Plain http through a proxy: requests go in absolute form.
    proxied_http: bool,
}

impl Conn {
    fn new(stream: Stream, proxied_http: bool) -> Conn {
        Conn {
            io: TokioIo::new(stream),
            proxied_http,
        }
    }
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        Connected::new().proxy(self.proxied_http)
    }
}

impl hyper::rt::Read for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
