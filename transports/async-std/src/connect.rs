//! Opening a connection: the shared [`tfdisco_transport::open`] over
//! async-net's sockets and futures-rustls, then hyper's HTTP/1.1 handshake.

use std::io;
use std::net::SocketAddr;

use async_net::TcpStream;
use futures_lite::{AsyncReadExt, AsyncWriteExt};
use futures_rustls::TlsConnector;
use futures_rustls::client::TlsStream;
use futures_rustls::pki_types::ServerName;
use tfdisco_core::TransportError;
use tfdisco_transport::{AsyncNet, Route, Settings, Stream, hyper_body};

use crate::io::HyperIo;
use crate::pool::Conn;

/// Opens a new connection for `route`.
pub(crate) async fn connect(
    settings: &Settings,
    net: &AsyncIo,
    route: &Route,
) -> Result<Conn, TransportError> {
    let io = match tfdisco_transport::open(net, settings, route).await? {
        Stream::Plain(tcp) => HyperIo::new(Box::new(tcp)),
        Stream::Tls(tls) => HyperIo::new(Box::new(tls)),
    };
    let (sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(hyper_body::error)?;
    Ok(Conn::new(sender, connection))
}

/// async-io's sockets (through async-net) and futures-rustls.
pub(crate) struct AsyncIo {
    pub(crate) tls: TlsConnector,
}

impl AsyncNet for AsyncIo {
    type Tcp = TcpStream;
    type Tls = TlsStream<TcpStream>;

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

    async fn tls_handshake(
        &self,
        name: ServerName<'static>,
        tcp: TcpStream,
    ) -> io::Result<Self::Tls> {
        self.tls.connect(name, tcp).await
    }
}
