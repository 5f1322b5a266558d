//! Opening connections for hyper-util's pooled client: TCP and the proxy
//! tunnel (shared code over tokio's sockets), then TLS.

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
use tfdisco_transport::{AsyncNet, Settings};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

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
        let tcp = tfdisco_transport::open(&Tokio, &self.settings, &route).await?;
        if !route.https {
            let proxied = route.proxy.is_some();
            return Ok(Conn::new(Box::new(tcp), proxied));
        }
        let name = ServerName::try_from(route.host.clone())
            .map_err(|e| TransportError::new(TransportErrorKind::Other, e))?;
        let tls = self
            .tls
            .connect(name, tcp)
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Tls, e))?;
        Ok(Conn::new(Box::new(tls), false))
    }
}

/// tokio's sockets.
struct Tokio;

impl AsyncNet for Tokio {
    type Tcp = TcpStream;

    async fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        Ok(tokio::net::lookup_host((host, port)).await?.collect())
    }

    async fn connect(&self, addr: SocketAddr) -> io::Result<TcpStream> {
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        Ok(tcp)
    }

    async fn write_all(&self, tcp: &mut TcpStream, bytes: &[u8]) -> io::Result<()> {
        tcp.write_all(bytes).await
    }

    async fn read(&self, tcp: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
        tcp.read(buf).await
    }
}

/// A plain or TLS stream.
trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

/// A connection as hyper-util's client sees it.
pub(crate) struct Conn {
    io: TokioIo<Box<dyn Stream>>,
    /// Plain http through a proxy: requests go in absolute form.
    proxied_http: bool,
}

impl Conn {
    fn new(stream: Box<dyn Stream>, proxied_http: bool) -> Conn {
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
