//! Opening the TCP connection of a [`Route`], written once for every async
//! runtime: address overrides or DNS, each address in turn, then the proxy
//! tunnel. Failures are classified here, where it is known which step failed.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use tfdisco_core::{TransportError, TransportErrorKind};
use tracing::debug;

use crate::{Proxy, Route, Settings, tunnel};

/// The socket primitives of an async runtime.
pub trait AsyncNet: Sync {
    /// A connected TCP stream.
    type Tcp: Send;

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
}

/// Connects to the route's proxy or origin (address overrides first, DNS
/// otherwise) and, for https through a proxy, opens the `CONNECT` tunnel.
/// The caller adds TLS when [`Route::https`] is set.
pub async fn open<N: AsyncNet>(
    net: &N,
    settings: &Settings,
    route: &Route,
) -> Result<N::Tcp, TransportError> {
    let (host, port) = route.connect_to();
    debug!(target: "tfdisco", origin = %route.authority(), proxy = ?route.proxy, "connecting");
    let mut tcp = connect_any(net, settings, host, port).await.map_err(|e| {
        let kind = match route.proxy {
            Some(_) => TransportErrorKind::Proxy,
            None => TransportErrorKind::Connect,
        };
        TransportError::new(kind, e)
    })?;
    if let (true, Some(proxy)) = (route.https, &route.proxy) {
        open_tunnel(net, &mut tcp, route, proxy).await?;
    }
    Ok(tcp)
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
