//! A loopback `CONNECT` proxy that records the tunnels it is asked for and
//! connects every tunnel to 127.0.0.1 on the requested port, so fictional
//! host names reach the test server.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::background::Background;

/// A tunnel request the proxy received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunnel {
    /// The `CONNECT` target, `host:port`.
    pub target: String,
    /// The `Proxy-Authorization` header, if sent.
    pub authorization: Option<String>,
}

/// A loopback HTTP proxy that only does `CONNECT`.
pub struct TestProxy {
    port: u16,
    tunnels: Arc<Mutex<Vec<Tunnel>>>,
    _background: Background,
}

impl TestProxy {
    /// A proxy that opens every tunnel asked for.
    pub fn start() -> TestProxy {
        TestProxy::new(false)
    }

    /// A proxy that answers every `CONNECT` with 403.
    pub fn refusing() -> TestProxy {
        TestProxy::new(true)
    }

    fn new(refuse: bool) -> TestProxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("bound").port();
        let tunnels = Arc::new(Mutex::new(Vec::new()));
        let record = tunnels.clone();
        let background = Background::start("tfdisco-test-proxy", move || async move {
            let listener = TcpListener::from_std(listener).expect("a tokio listener");
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(tunnel(client, record.clone(), refuse));
            }
        });
        TestProxy {
            port,
            tunnels,
            _background: background,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The tunnels asked for so far.
    pub fn tunnels(&self) -> Vec<Tunnel> {
        self.tunnels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

async fn tunnel(mut client: TcpStream, record: Arc<Mutex<Vec<Tunnel>>>, refuse: bool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    let (target, authorization) = loop {
        let n = match client.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&buf) {
            Ok(httparse::Status::Partial) if buf.len() < 16 * 1024 => continue,
            Ok(httparse::Status::Complete(_)) if request.method == Some("CONNECT") => {
                let authorization = request
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("proxy-authorization"))
                    .map(|h| String::from_utf8_lossy(h.value).into_owned());
                break (request.path.unwrap_or("").to_owned(), authorization);
            }
            _ => {
                let _ = client
                    .write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                    .await;
                return;
            }
        }
    };
    record
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Tunnel {
            target: target.clone(),
            authorization,
        });
    let port = target
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse::<u16>().ok());
    let upstream = match port {
        Some(port) if !refuse => TcpStream::connect(("127.0.0.1", port)).await.ok(),
        _ => None,
    };
    let Some(mut upstream) = upstream else {
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            .await;
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await
        .is_ok()
    {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    }
}
