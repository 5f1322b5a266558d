//! Opening a connection: TCP (with address overrides), the proxy tunnel,
//! TLS, then hyper's HTTP/1.1 handshake. Failures are classified here,
//! where it is known which step failed.

use std::io;
use std::net::SocketAddr;

use async_net::TcpStream;
use futures_lite::{AsyncReadExt, AsyncWriteExt};
use futures_rustls::TlsConnector;
use futures_rustls::pki_types::ServerName;
use tfdisco_core::{TransportError, TransportErrorKind};
use tfdisco_transport::{Proxy, Route, Settings, hyper_body, tunnel};
use tracing::debug;

use crate::io::{HyperIo, Stream};
use crate::pool::Conn;

/// Opens a new connection for `route`.
pub(crate) async fn connect(
    settings: &Settings,
    tls: &TlsConnector,
    route: &Route,
) -> Result<Conn, TransportError> {
    let (host, port) = route.connect_to();
    debug!(target: "tfdisco", origin = %route.authority(), proxy = ?route.proxy, "connecting");
    let mut tcp = tcp_connect(settings, host, port).await.map_err(|e| {
        let kind = match route.proxy {
            Some(_) => TransportErrorKind::Proxy,
            None => TransportErrorKind::Connect,
        };
        TransportError::new(kind, e)
    })?;
    let _ = tcp.set_nodelay(true);
    let stream = if route.https {
        if let Some(proxy) = &route.proxy {
            open_tunnel(&mut tcp, route, proxy).await?;
        }
        let name = ServerName::try_from(route.host.clone())
            .map_err(|e| TransportError::new(TransportErrorKind::Other, e))?;
        let tls = tls
            .connect(name, tcp)
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Tls, e))?;
        Stream::Tls(Box::new(tls))
    } else {
        Stream::Plain(tcp)
    };
    let (sender, connection) = hyper::client::conn::http1::handshake(HyperIo::new(stream))
        .await
        .map_err(hyper_body::error)?;
    Ok(Conn::new(sender, connection))
}

/// Connects to the overridden addresses of `host:port`, or to what DNS says,
/// trying each address in turn.
async fn tcp_connect(settings: &Settings, host: &str, port: u16) -> io::Result<TcpStream> {
    let addrs: Vec<SocketAddr> = match settings.resolve_override(host, port) {
        Some(addrs) => addrs.to_vec(),
        None => async_net::resolve((host, port)).await?,
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
