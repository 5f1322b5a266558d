//! Opening a connection: TCP and the proxy tunnel (shared code over
//! async-net's sockets), TLS, then hyper's HTTP/1.1 handshake.

use std::io;
use std::net::SocketAddr;

use async_net::TcpStream;
use futures_lite::{AsyncReadExt, AsyncWriteExt};
use futures_rustls::TlsConnector;
use futures_rustls::pki_types::ServerName;
use tfdisco_core::{TransportError, TransportErrorKind};
use tfdisco_transport::{AsyncNet, Route, Settings, hyper_body};

use crate::io::HyperIo;
use crate::pool::Conn;

/// Opens a new connection for `route`.
pub(crate) async fn connect(
    settings: &Settings,
    tls: &TlsConnector,
    route: &Route,
) -> Result<Conn, TransportError> {
    let tcp = tfdisco_transport::open(&AsyncIo, settings, route).await?;
    let io = if route.https {
        let name = ServerName::try_from(route.host.clone())
            .map_err(|e| TransportError::new(TransportErrorKind::Other, e))?;
        let tls = tls
            .connect(name, tcp)
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Tls, e))?;
        HyperIo::new(Box::new(tls))
    } else {
        HyperIo::new(Box::new(tcp))
    };
    let (sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(hyper_body::error)?;
    Ok(Conn::new(sender, connection))
}

/// async-io's sockets (through async-net).
struct AsyncIo;

impl AsyncNet for AsyncIo {
    type Tcp = TcpStream;

    async fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        async_net::resolve((host, port)).await
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
