//! Terraform/OpenTofu remote service discovery over tokio, hyper 1 and
//! rustls (ring): a [`Client`] that discovers hosts, caches results, and
//! shares one request among concurrent discoveries of a host.
//!
//! **In scope**: the tokio/hyper transport for [`tfdisco_core`]: pooled
//! HTTP/1.1 connections (hyper-util), TLS with the system roots plus your
//! own CA certificates, HTTP proxies (`CONNECT`), `curl --resolve`-style
//! address overrides. Every option is on [`ClientBuilder`], shared with the
//! other tfdisco transports.
//!
//! **Out of scope**: discovery decisions (redirects, credentials on
//! redirects, content type, size, deadline: the core makes them all) and
//! reading Terraform's CLI configuration (the `tfdisco` CLI does).
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use tfdisco_tokio::{Credentials, Hostname, StaticCredentials};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Hostname::parse("registry.example.com")?;
//! let client = tfdisco_tokio::Client::builder()
//!     .timeout(Duration::from_secs(5))
//!     .credentials(StaticCredentials::new().with(host.clone(), Credentials::token("s3cret")?))
//!     .build()?;
//! let modules = client.service_url(&host, "modules.v1").await?;
//! println!("modules live at {modules}");
//! # Ok(())
//! # }
//! ```
//!
//! [`Client::drive`] runs one [`Discovery`] you made yourself and reports
//! each request/response exchange to an [`Observer`], for diagnostics.
//!
//! A `Client` is cheap to clone; clones share the cache and the connection
//! pool. It must be used inside a tokio runtime (with the `net` and `time`
//! drivers enabled).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod connect;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::Empty;
use hyper::body::{Bytes, Incoming};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tfdisco_core::http::{Request, Response};
use tfdisco_core::{TransportError, TransportErrorKind};
pub use tfdisco_transport::reexports::*;
use tfdisco_transport::{AsyncTransport, hyper_body, tls};
use tokio_rustls::TlsConnector;

use crate::connect::Connector;

/// The builder of a [`Client`]; see [`tfdisco_transport::ClientBuilder`]
/// for every option.
pub type ClientBuilder = tfdisco_transport::ClientBuilder<Client>;

/// A discovery client on tokio: the registry in front of [`Http`]. Clones
/// share the registry and the connection pool. See
/// [`AsyncClient`](tfdisco_transport::AsyncClient) for its methods.
pub type Client = tfdisco_transport::AsyncClient<Http>;

/// The HTTP side of a [`Client`]: hyper-util's pooled client over
/// tfdisco's connector (address overrides, proxies, rustls).
pub struct Http(HyperClient<Connector, Empty<Bytes>>);

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Http")
    }
}

impl FromSettings for Http {
    fn from_settings(settings: Settings) -> Result<Http, BuildError> {
        let tls = TlsConnector::from(tls::client_config(settings.trust_anchors())?);
        let mut builder = HyperClient::builder(TokioExecutor::new());
        builder
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(90));
        if !settings.reuse_connections() {
            builder.pool_max_idle_per_host(0);
        }
        let connector = Connector {
            settings: Arc::new(settings),
            tls,
        };
        Ok(Http(builder.build(connector)))
    }
}

impl AsyncTransport for Http {
    type Body = Incoming;
    type Chunk = Bytes;

    async fn send(&self, request: Request<()>) -> Result<Response<Incoming>, TransportError> {
        self.0
            .request(hyper_body::request(request))
            .await
            .map_err(request_error)
    }

    async fn next_chunk(&self, body: &mut Incoming) -> Option<Result<Bytes, TransportError>> {
        hyper_body::next_chunk(body).await
    }

    async fn sleep_until(&self, deadline: Instant) {
        tokio::time::sleep_until(deadline.into()).await;
    }
}

/// Our connector's own classification when it failed, hyper's otherwise.
fn request_error(e: hyper_util::client::legacy::Error) -> TransportError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(cause) = source {
        if let Some(ours) = cause.downcast_ref::<TransportError>() {
            return ours.clone();
        }
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            return TransportError::new(hyper_body::error_kind(hyper), e);
        }
        source = cause.source();
    }
    let kind = if e.is_connect() {
        TransportErrorKind::Connect
    } else {
        TransportErrorKind::Io
    };
    TransportError::new(kind, e)
}
