//! Opening the connection of a [`Route`], written once for every async
//! runtime: address overrides or DNS, each address in turn, the proxy
//! tunnel, then TLS. Failures are classified here, where it is known which
//! step failed.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use rustls_pki_types::ServerName;
use tfdisco_core::{TransportError, TransportErrorKind};
use tracing::debug;

use crate::{Proxy, Route, Settings, tunnel};

/// The socket and TLS primitives of an async runtime.
pub trait AsyncNet: Sync {
    /// A connected TCP stream.
    type Tcp: Send;
    /// A TLS stream over [`AsyncNet::Tcp`].
    type Tls: Send;

    /// The addresses of `host:port`, from DNS.
    fn resolve(
        &self,
        host: &str,
        port: u16,
    ) -> impl Future<Output = io::Result<Vec<SocketAddr>>> + Send;

    /// Connects to `addr` (with `TCP_NODELAY`).
    fn connect(&self, addr: SocketAddr) -> impl Future<Output = io::Result<Self::Tcp>> + Send;

    /// Writes all of `bytes`.
    fn write_all(
        &self,
        tcp: &mut Self::Tcp,
        bytes: &[u8],
    ) -> impl Future<Output = io::Result<()>> + Send;

    /// Reads some bytes; 0 at the end of the stream.
    fn read(
        &self,
        tcp: &mut Self::Tcp,
        buf: &mut [u8],
    ) -> impl Future<Output = io::Result<usize>> + Send;

    /// The TLS handshake with `name` over `tcp` (the client configuration
    /// is the runtime's, from `tls::client_config`, feature `rustls`).
    fn tls_handshake(
        &self,
        name: ServerName<'static>,
        tcp: Self::Tcp,
    ) -> impl Future<Output = io::Result<Self::Tls>> + Send;
}

/// An open connection: plain TCP (http, directly or to a proxy) or TLS.
pub enum Stream<N: AsyncNet> {
    /// Plain http.
    Plain(N::Tcp),
    /// https (through the proxy's tunnel when there is one).
    Tls(N::Tls),
}

/// Connects to the route's proxy or origin (address overrides first, DNS
/// otherwise), opens the `CONNECT` tunnel for https through a proxy, and
/// shakes hands with the origin for https.
pub async fn open<N: AsyncNet>(
    net: &N,
    settings: &Settings,
    route: &Route,
) -> Result<Stream<N>, TransportError> {
    let (host, port) = route.connect_to();
    debug!(target: "tfdisco", origin = %route.authority(), proxy = ?route.proxy, "connecting");
    let mut tcp = connect_any(net, settings, host, port).await.map_err(|e| {
        let kind = match route.proxy {
            Some(_) => TransportErrorKind::Proxy,
            None => TransportErrorKind::Connect,
        };
        TransportError::new(kind, e)
    })?;
    if !route.https {
        return Ok(Stream::Plain(tcp));
    }
    if let Some(proxy) = &route.proxy {
        open_tunnel(net, &mut tcp, route, proxy).await?;
    }
    let name = ServerName::try_from(route.host.clone())
        .map_err(|e| TransportError::new(TransportErrorKind::Other, e))?;
    let tls = net
        .tls_handshake(name, tcp)
        .await
        .map_err(|e| TransportError::new(handshake_error_kind(&e), e))?;
    Ok(Stream::Tls(tls))
}

/// The class of a failed handshake: with rustls, a refused certificate
/// apart from other failures; without it, every failure is `Tls`.
fn handshake_error_kind(error: &io::Error) -> TransportErrorKind {
    #[cfg(feature = "rustls")]
    {
        crate::tls::handshake_error_kind(error)
    }
    #[cfg(not(feature = "rustls"))]
    {
        let _ = error;
        TransportErrorKind::Tls
    }
}

/// Tries each address of `host:port` in turn.
async fn connect_any<N: AsyncNet>(
    net: &N,
    settings: &Settings,
    host: &str,
    port: u16,
) -> io::Result<N::Tcp> {
    let addrs = match settings.resolve_override(host, port) {
        Some(addrs) => addrs.to_vec(),
        None => net.resolve(host, port).await?,
    };
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {host}"));
    for addr in addrs {
        match net.connect(addr).await {
            Ok(tcp) => return Ok(tcp),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// `CONNECT`s through `proxy` to the route's origin.
async fn open_tunnel<N: AsyncNet>(
    net: &N,
    tcp: &mut N::Tcp,
    route: &Route,
    proxy: &Proxy,
) -> Result<(), TransportError> {
    let io_error = |e: io::Error| TransportError::new(TransportErrorKind::Proxy, e);
    net.write_all(tcp, &tunnel::request(route, proxy))
        .await
        .map_err(io_error)?;
    let mut received = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let n = net.read(tcp, &mut chunk).await.map_err(io_error)?;
        if n == 0 {
            return Err(tunnel::closed(proxy));
        }
        received.extend_from_slice(&chunk[..n]);
        if let Some(head) = tunnel::response(&received, proxy)? {
            return tunnel::check_rest(head, &received, proxy);
        }
    }
}
