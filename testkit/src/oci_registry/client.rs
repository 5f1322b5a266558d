//! A small HTTPS client for the fixture's own requests (pushes, readiness,
//! the tests' checks): HTTP/1.1 over tokio-rustls to a port of 127.0.0.1,
//! trusting the test CA, one connection per request, each bounded in time.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};
use tfdisco_core::http::HeaderMap;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::pki::pki;

/// How long one request may take, connection and body included.
const REQUEST_LIMIT: Duration = Duration::from_secs(30);

/// An answer: status, headers and the whole body.
#[derive(Clone, Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Answer {
    /// A header as text.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as text (lossy), for messages.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The answer when its status is `status`; else the error `WHAT
    /// answered STATUS: BODY`.
    pub(crate) fn expect(self, status: u16, what: &str) -> Result<Answer, String> {
        if self.status == status {
            Ok(self)
        } else {
            Err(format!("{what} answered {}: {}", self.status, self.text()))
        }
    }
}

/// Sends requests to HTTPS servers on 127.0.0.1 presenting the trusted leaf.
#[derive(Clone)]
pub(crate) struct Client {
    connector: TlsConnector,
}

impl Client {
    /// A client trusting the test CA alone.
    pub(crate) fn new() -> Result<Client, String> {
        let mut roots = RootCertStore::empty();
        for cert in rustls::pki_types::CertificateDer::pem_slice_iter(pki().ca_pem().as_bytes()) {
            let cert = cert.map_err(|e| format!("reading the test CA: {e}"))?;
            roots
                .add(cert)
                .map_err(|e| format!("trusting the test CA: {e}"))?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("a TLS client configuration: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Client {
            connector: TlsConnector::from(Arc::new(config)),
        })
    }

    /// Sends `method target` (a path and query) to `https://127.0.0.1:port`
    /// with `headers` and `body`, and reads the whole answer.
    pub(crate) async fn send(
        &self,
        port: u16,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Answer, String> {
        let mut request = Request::builder()
            .method(method)
            .uri(target)
            .header("Host", format!("127.0.0.1:{port}"))
            .header("User-Agent", "tfdisco-testkit");
        if !matches!(method, "GET" | "HEAD") {
            request = request.header("Content-Length", body.len());
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::copy_from_slice(body)))
            .map_err(|e| format!("{method} {target}: building the request: {e}"))?;
        tokio::time::timeout(REQUEST_LIMIT, self.exchange(port, request))
            .await
            .map_err(|_| format!("{method} {target}: no answer within {REQUEST_LIMIT:?}"))?
            .map_err(|e| format!("{method} {target}: {e}"))
    }

    /// Connects to `https://127.0.0.1:port`, sends `request` and reads the
    /// whole answer.
    async fn exchange(&self, port: u16, request: Request<Full<Bytes>>) -> Result<Answer, String> {
        let tcp = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|e| format!("connecting to 127.0.0.1:{port}: {e}"))?;
        let name = ServerName::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST).into());
        let tls = self
            .connector
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS handshake: {e}"))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .map_err(|e| format!("HTTP handshake: {e}"))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("sending the request: {e}"))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("reading the answer: {e}"))?
            .to_bytes();
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

/// Runs `future` to completion on a current-thread runtime of its own, on
/// a thread of its own: callable from plain tests and from inside another
/// runtime alike.
pub(crate) fn block_on<F>(future: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("tfdisco-oci-client".to_owned())
            .spawn_scoped(scope, || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a test runtime")
                    .block_on(future)
            })
            .expect("a test thread");
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
