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
pub use call::Call;
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
        AnyTransport, AsyncClient, Blocking, BlockingClient, BlockingTransport, BuildError, Call,
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
