#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod async_http;
mod blocking;
mod cache;
mod call;
mod client;
mod connect;
mod drive;
mod exchange;
#[cfg(feature = "hyper")]
pub mod hyper_body;
#[cfg(feature = "cli-config")]
mod oci;
mod oci_push;
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
pub use call::Call;
pub use client::AsyncClient;
pub use connect::{AsyncNet, Stream, open};
pub use drive::drive;
pub use exchange::{Event, Exchange, ExchangeReport, Observer};
pub use oci_push::{BlobSource, PushedBlob, UPLOAD_CHUNK, check_mount};
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
        AnyTransport, AsyncClient, Blocking, BlockingClient, BlockingTransport, BuildError, Call,
        ClientBuilder, Event, Exchange, ExchangeReport, FromSettings, Observer, Settings,
        SharedCache, Transport,
    };
    pub use tfdisco_core::{
        self, Action, Config, Contents, Credentials, CredentialsSource, Dialect, Discovery,
        DiscoveryCache, DiscoveryRequest, DownloadRequest, Env, Error, ErrorKind, Getter, Goal,
        Hostname, HostnameError, HostnameErrorKind, Lookup, ModuleLocation, ModulePackage,
        ModuleSource, ModuleVersions, Next, Platform, ProviderPackage, ProviderSource,
        ProviderVersion, ProviderVersions, RequestKind, Resolved, Retry, RetryPolicy, ServiceId,
        Services, Sink, SourceError, StartError, StaticCredentials, Ticket, Transfer,
        TransportError, TransportErrorKind, credentials_for, without_ssh_key,
    };
    pub use tfdisco_oci;
}
