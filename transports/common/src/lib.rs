//! What every tfdisco transport shares, written once: the client builder and
//! its settings (proxies, trust roots, address overrides, the connection
//! pool), the discovery cache with request coalescing (D7), the one driver loop, and
//! the two clients every transport gets: [`AsyncClient`] and
//! [`BlockingClient`].
//!
//! Users meet this crate through a transport: `tfdisco_tokio::Client`,
//! `tfdisco_async_std::Client` and `tfdisco_curl::Client` all have
//! `builder()`, a [`ClientBuilder`] with the same options everywhere.
//!
//! **In scope**
//! - [`ClientBuilder`] → [`Settings`]: timeout, redirects, body limit,
//!   User-Agent, dialect, plain-http development hosts, credentials, extra
//!   CA certificates on top of the system roots (`SSL_CERT_FILE` /
//!   `SSL_CERT_DIR` honoured), proxies (explicit, or `HTTPS_PROXY` /
//!   `HTTP_PROXY` / `NO_PROXY` with Go's rules; loopback never proxied),
//!   `curl --resolve`-style address overrides, the connection pool, and
//!   (feature `cli-config`, on by default) Terraform's CLI configuration
//!   with [`ClientBuilder::cli_config`].
//! - [`Transport`]: what a transport implements (perform one [`Exchange`],
//!   sleep); [`BlockingTransport`] and [`Blocking`] for blocking I/O;
//!   [`AsyncHttp`] and [`perform_async_http`] for hyper-style clients;
//!   [`AnyTransport`] to pick one at run time.
//! - [`drive`]: the one loop that runs any [`Fetch`](tfdisco_core::Fetch)
//!   over any transport.
//! - [`AsyncClient`] and [`BlockingClient`]: discovery with the cache,
//!   aliases, forced services and coalescing of [`SharedCache`];
//!   [`Observer`]s see each [`ExchangeReport`].
//! - [`open`] over an [`AsyncNet`] (overrides, DNS, the proxy tunnel, TLS);
//!   with the `rustls` feature, `tls::client_config`; with `hyper`,
//!   `hyper_body` helpers.
//!
//! **Out of scope**: sockets, TLS libraries, timers and runtimes (the
//! transports), and every discovery decision (the core).
//!
//! # Writing a transport
//!
//! A transport implements [`Transport`] (or [`BlockingTransport`]) and
//! [`FromSettings`]; both clients then work over it. This one answers every
//! request from a table, without I/O:
//!
//! ```
//! use std::time::Instant;
//! use tfdisco_core::bytes::Bytes;
//! use tfdisco_core::http::{HeaderMap, Request, StatusCode, header};
//! use tfdisco_core::Hostname;
//! use tfdisco_transport::{
//!     Blocking, BlockingClient, BlockingTransport, BuildError, ClientBuilder, Exchange,
//!     FromSettings, Settings,
//! };
//!
//! struct Canned;
//!
//! impl BlockingTransport for Canned {
//!     fn perform(&self, _request: Request<Bytes>, exchange: &mut Exchange<'_>) {
//!         let mut headers = HeaderMap::new();
//!         headers.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
//!         if exchange.head(StatusCode::OK, &headers) {
//!             exchange.body(br#"{"modules.v1": "/modules/"}"#);
//!             exchange.end();
//!         }
//!     }
//! }
//!
//! impl FromSettings for Canned {
//!     fn from_settings(_: Settings) -> Result<Self, BuildError> {
//!         Ok(Canned)
//!     }
//! }
//!
//! let client: BlockingClient<Blocking<Canned>> = ClientBuilder::new()
//!     .system_roots(false)
//!     .env_proxies(false)
//!     .build()?;
//! let host = Hostname::parse("example.com")?;
//! let services = client.discover(&host)?;
//! assert_eq!(services.service_url("modules.v1")?.as_str(), "https://example.com/modules/");
//! assert!(client.cache().cached(&host).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod async_http;
mod blocking;
mod cache;
mod client;
mod connect;
mod drive;
mod exchange;
#[cfg(feature = "hyper")]
pub mod hyper_body;
#[cfg(feature = "cli-config")]
mod inputs;
#[cfg(feature = "cli-config")]
mod install;
#[cfg(feature = "cli-config")]
pub mod kinds;
#[cfg(feature = "cli-config")]
mod lock;
#[cfg(feature = "cli-config")]
mod mirror;
#[cfg(feature = "cli-config")]
mod oci;
#[cfg(feature = "cli-config")]
mod oci_module;
mod oci_push;
#[cfg(feature = "cli-config")]
mod oci_release;
mod options;
#[cfg(feature = "cli-config")]
mod plan_jobs;
mod proxy;
mod roots;
mod settings;
#[cfg(feature = "rustls")]
pub mod tls;
mod transport;
pub mod tunnel;

pub use async_http::{AsyncHttp, perform_async_http};
pub use blocking::BlockingClient;
pub use cache::{Begin, Lead, SharedCache, Wait};
pub use client::AsyncClient;
pub use connect::{AsyncNet, Stream, open};
pub use drive::drive;
pub use exchange::{Event, Exchange, ExchangeReport, Observer};
#[cfg(feature = "cli-config")]
pub use install::{
    Cancel, InstallEvent, InstallEvents, InstallOptions, InstallReport, InstalledProvider,
    install_word,
};
#[cfg(feature = "cli-config")]
pub use lock::{
    DEFAULT_JOBS, LockError, LockOptions, LockReport, ProviderReport, ProvidersFrom,
    failure_exit_code, jobs,
};
#[cfg(feature = "cli-config")]
pub use mirror::{
    MirrorOptions, MirrorReport, MirroredProvider, OciMirrorReport, OciMirroredProvider,
};
#[cfg(feature = "cli-config")]
pub use oci_module::{DownloadedModule, ResolvedModule, oci_module_source};
pub use oci_push::{BlobSource, PushedBlob, UPLOAD_CHUNK};
#[cfg(feature = "cli-config")]
pub use oci_release::{PushedRelease, ReleaseFiles};
#[cfg(feature = "cli-config")]
pub use options::{
    ClientOptions, ClientSetup, CredentialsChoice, CredentialsLookup, CredentialsLookupError,
    OptionError, address_override, timeout_from_secs,
};
pub use proxy::Proxy;
pub use roots::TrustAnchors;
pub use settings::{
    BuildError, ClientBuilder, DEFAULT_POOL_IDLE_TIMEOUT, DEFAULT_POOL_MAX_IDLE_PER_ORIGIN,
    FromSettings, Route, Settings,
};
pub use transport::{AnyTransport, Blocking, BlockingTransport, Transport};

/// What every transport re-exports, so its users need no other crate:
/// `pub use tfdisco_transport::reexports::*;`.
pub mod reexports {
    pub use crate::{
        AnyTransport, AsyncClient, Blocking, BlockingClient, BlockingTransport, BuildError,
        ClientBuilder, Event, Exchange, ExchangeReport, FromSettings, Observer, Settings,
        SharedCache, Transport,
    };
    #[cfg(feature = "cli-config")]
    pub use crate::{
        ClientOptions, ClientSetup, CredentialsChoice, CredentialsLookup, CredentialsLookupError,
        DEFAULT_JOBS, DownloadedModule, InstallOptions, InstallReport, InstalledProvider,
        LockError, LockOptions, LockReport, MirrorOptions, MirrorReport, MirroredProvider,
        OptionError, ProviderReport, ProvidersFrom, ResolvedModule, jobs,
    };
    pub use tfdisco_core::{
        self, Action, Config, Contents, Credentials, CredentialsSource, Dialect, Discovery,
        DiscoveryCache, DiscoveryRequest, Download, Env, Error, ErrorKind, Fetch, Getter, Goal,
        Hostname, HostnameError, HostnameErrorKind, Lookup, ModuleLocation, ModulePackage,
        ModuleSource, ModuleVersions, Next, Platform, ProviderPackage, ProviderSource,
        ProviderVersion, ProviderVersions, RequestKind, Resolved, Retry, RetryPolicy, ServiceId,
        Services, Sink, SourceError, StartError, StaticCredentials, Ticket, TransportError,
        TransportErrorKind, credentials_for,
    };
    pub use tfdisco_oci;
    #[cfg(feature = "cli-config")]
    pub use tfdisco_provider::{self, Trust};
}

/// A local file or folder at `path` that could not be read or written:
/// the [`Error::LocalFile`](tfdisco_core::Error::LocalFile) every run
/// (lock, install, mirror, OCI module download, push) reports it as.
pub(crate) fn local_error(path: &std::path::Path, error: std::io::Error) -> tfdisco_core::Error {
    tfdisco_core::Error::LocalFile {
        path: path.to_owned(),
        problem: error.to_string(),
    }
}
