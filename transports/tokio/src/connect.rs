//! Opening connections for hyper-util's pooled client: the shared
//! [`tfdisco_transport::open`] over tokio's sockets and tokio-rustls.

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
use tfdisco_core::TransportError;
use tfdisco_core::http::Uri;
use tfdisco_transport::{AsyncNet, Settings, Stream};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// The connector hyper-util's client calls for each new connection.
#[derive(Clone)]
pub(crate) struct Connector {
    settings: Arc<Settings>,
    net: Arc<Tokio>,
}

impl Connector {
    pub(crate) fn new(settings: Arc<Settings>, tls: TlsConnector) -> Connector {
        Connector {
            settings,
            net: Arc::new(Tokio { tls }),
        }
    }
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
        Ok(
            match tfdisco_transport::open(&*self.net, &self.settings, &route).await? {
                Stream::Plain(tcp) => Conn::new(Box::new(tcp), route.proxy.is_some()),
                Stream::Tls(tls) => Conn::new(Box::new(tls), false),
            },
        )
    }
}

/// tokio's sockets and tokio-rustls.
struct Tokio {
    tls: TlsConnector,
}

impl AsyncNet for Tokio {
    type Tcp = TcpStream;
    type Tls = TlsStream<TcpStream>;

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

    async fn tls_handshake(
        &self,
        name: ServerName<'static>,
        tcp: TcpStream,
    ) -> io::Result<Self::Tls> {
        self.tls.connect(name, tcp).await
    }
}

/// A plain or TLS stream.
trait Io: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// A connection as hyper-util's client sees it.
pub(crate) struct Conn {
    io: TokioIo<Box<dyn Io>>,
    /// Plain http through a proxy: requests go in absolute form.
    proxied_http: bool,
}

impl Conn {
    fn new(stream: Box<dyn Io>, proxied_http: bool) -> Conn {
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

    /// Forwarded, so that hyper queues a body's chunks instead of copying
    /// each into its own write buffer (an 8 MiB upload chunk would be held
    /// twice): plain TCP and rustls both write vectors.
    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
