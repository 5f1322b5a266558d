//! What every tfdisco transport shares, written once: the client builder,
//! proxy and trust-root resolution, address overrides, the registry with
//! request coalescing (D7), the async driver loop and exchange reports.
//!
//! Users meet this crate through a transport: `tfdisco_tokio::Client::builder()`,
//! `tfdisco_async_std::Client::builder()` and `tfdisco_curl::Client::builder()`
//! all return a [`ClientBuilder`], so every transport has the same options.
//!
//! **In scope**
//! - [`ClientBuilder`] → [`Settings`]: timeout, redirects, body limit,
//!   User-Agent, dialect, plain-http development hosts, credentials, extra
//!   CA certificates on top of the system roots (`SSL_CERT_FILE` /
//!   `SSL_CERT_DIR` honoured), proxies (explicit, or `HTTPS_PROXY` /
//!   `HTTP_PROXY` / `NO_PROXY` with Go's rules; loopback never proxied),
//!   `curl --resolve`-style address overrides, connection reuse.
//! - [`Environment`]: where those variables are read, injectable for tests.
//! - [`SharedRegistry`]: the core's [`tfdisco_core::Registry`] behind a lock,
//!   with coalescing for threads and for any async runtime.
//! - [`open`] over an [`AsyncNet`] (overrides, DNS, the proxy tunnel),
//!   [`drive`] over an [`AsyncTransport`], [`AsyncClient`] (the tokio and
//!   async-std transports' `Client`), [`drive_blocking`] for blocking
//!   transports, and [`Recorder`] / [`Observer`] for per-exchange reports;
//!   [`tunnel`] for the proxy `CONNECT` handshake.
//! - With the `rustls` feature, [`tls::client_config`]; with `hyper`,
//!   [`hyper_body`] helpers.
//!
//! **Out of scope**: sockets, TLS handshakes, timers and runtimes (the
//! transports), and every discovery decision (the core).
//!
//! # Writing a transport
//!
//! A transport implements [`FromSettings`] and drives the core. This one
//! "transport" answers from a table, blocking:
//!
//! ```
//! use std::time::Instant;
//! use tfdisco_core::http::{HeaderMap, StatusCode, header};
//! use tfdisco_core::{Action, Discovery, Error, Hostname, Services};
//! use tfdisco_transport::{BuildError, ClientBuilder, FromSettings, Settings, SharedRegistry};
//!
//! struct CannedClient {
//!     registry: SharedRegistry,
//! }
//!
//! impl FromSettings for CannedClient {
//!     fn from_settings(settings: Settings) -> Result<Self, BuildError> {
//!         Ok(CannedClient { registry: settings.registry() })
//!     }
//! }
//!
//! impl CannedClient {
//!     fn discover(&self, host: &Hostname) -> Result<Services, Error> {
//!         self.registry.discover_blocking(host, |mut d: Discovery| loop {
//!             match d.poll() {
//!                 Action::Send(_request) => {
//!                     let mut headers = HeaderMap::new();
//!                     headers.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
//!                     d.handle_head(StatusCode::OK, &headers, Instant::now());
//!                     d.handle_body(br#"{"modules.v1": "/modules/"}"#);
//!                     d.handle_end(Instant::now());
//!                 }
//!                 Action::Receive => unreachable!("the body is handed over right away"),
//!                 Action::Done(result) => break result,
//!             }
//!         })
//!     }
//! }
//!
//! let client: CannedClient = ClientBuilder::new()
//!     .system_roots(false)
//!     .env_proxies(false)
//!     .build()?;
//! let host = Hostname::parse("example.com")?;
//! let services = client.discover(&host)?;
//! assert_eq!(services.service_url("modules.v1")?.as_str(), "https://example.com/modules/");
//! assert!(client.registry.cached(&host).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod client;
mod connect;
mod driver;
mod env;
mod exchange;
#[cfg(feature = "hyper")]
pub mod hyper_body;
mod proxy;
mod registry;
mod roots;
mod settings;
#[cfg(feature = "rustls")]
pub mod tls;
pub mod tunnel;

pub use client::AsyncClient;
pub use connect::{AsyncNet, open};
pub use driver::{AsyncTransport, drive, drive_blocking};
pub use env::Environment;
pub use exchange::{Exchange, Observer, Recorder};
pub use proxy::Proxy;
pub use registry::{Begin, Lead, SharedRegistry, Wait};
pub use roots::TrustAnchors;
pub use settings::{BuildError, ClientBuilder, FromSettings, Route, Settings};

/// What every transport re-exports, so its users need no other crate:
/// `pub use tfdisco_transport::reexports::*;`.
pub mod reexports {
    pub use crate::{
        BuildError, Environment, Exchange, FromSettings, Observer, Settings, SharedRegistry,
    };
    pub use tfdisco_core::{
        self, Config, Credentials, CredentialsSource, Dialect, Discovery, Error, ErrorKind,
        Hostname, Services, StaticCredentials,
    };
}
