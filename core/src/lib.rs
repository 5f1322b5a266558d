//! The sans-IO core of Terraform/OpenTofu remote service discovery and the
//! registry protocols: it turns a hostname into the base URLs of the
//! services that host offers, and asks registries and network mirrors what
//! `terraform init` / `tofu init` ask them, without doing any I/O itself.
//!
//! **In scope**
//! - [`Hostname`]: svchost's comparison and display forms (UTS #46, ports).
//! - [`Fetch`]: the one state machine every request runs on, "GET a
//!   document under these rules". It emits `http::Request`s and consumes
//!   response heads, body chunks (gzip decoded here), ends, errors and the
//!   time; it enforces every policy (redirect limit, credential forwarding,
//!   plain-http refusal, content type, size, retries, the deadline). A
//!   [`Goal`] says what the final response means.
//! - [`Discovery`]: the fetch whose goal is a host's discovery document.
//! - [`Services`]: the document, [`Services::resolve`],
//!   [`Services::service_url`] and [`Services::oauth_client`]; [`ServiceId`]
//!   for both [`Dialect`]s.
//! - [`DiscoveryCache`]: the per-host cache of discoveries, aliases and
//!   forced services.
//! - [`ProviderSource`] and [`ModuleSource`]: source addresses as both CLIs
//!   parse them; the registry requests made from them (provider and module
//!   versions, a module's download location, a provider package), goals of
//!   the same engine (`Fetch::provider_versions`, …). [`ModulePackage`]: a
//!   download location (or any remote module source) as `init` detects it.
//! - [`NetworkMirror`]: the provider network mirror protocol (its URL
//!   checked once, its `index.json` and `<version>.json`); [`Download`]: a
//!   file streamed into a [`Sink`].
//! - [`Version`] and [`VersionConstraints`]: the one version grammar
//!   (go-versions'), constraints and selection.
//! - The answers as JSON: one `serde` serialization of [`Services`] and of
//!   the registry answers, which the CLI's `--json` and the Python and Node
//!   packages give.
//! - [`Credentials`] and the [`CredentialsSource`] trait; [`Env`], a
//!   snapshot of environment variables the other crates read.
//!
//! **Out of scope**
//! - Sockets, TLS, proxies, DNS, files, async runtimes, clocks: the
//!   transports (`tfdisco-tokio`, `tfdisco-async-std`, `tfdisco-curl`) drive
//!   this crate.
//! - Package hashes and signatures, the lock plan, installation methods and
//!   mirror rules: `tfdisco-provider`, sans IO too, built on this crate.
//! - Reading CLI config files, `TF_TOKEN_*` variables or running credentials
//!   helpers (`tfdisco-config`).
//!
//! Every rule, the Go behaviour it matches or the deliberate difference
//! (D-ids) it makes, and the test that pins it are listed in the project's
//! `docs/behaviour.md`.
//!
//! # The run loop
//!
//! A driver calls [`Fetch::poll`] and does what the [`Action`] says,
//! reporting back with the `handle_*` methods, each with the current time.
//! Here the "network" is a list of canned responses: a redirect, then the
//! document.
//!
//! ```
//! use std::time::Instant;
//! use tfdisco_core::http::{HeaderMap, StatusCode, header};
//! use tfdisco_core::{Action, Config, Fetch, Hostname};
//!
//! let host = Hostname::parse("Example.COM")?;
//! let now = Instant::now();
//! let mut discovery = Fetch::discovery(host, &Config::default(), None, now)?;
//!
//! let mut responses = vec![
//!     (StatusCode::FOUND, vec![(header::LOCATION, "/disco/v1.json")], &b""[..]),
//!     (
//!         StatusCode::OK,
//!         vec![(header::CONTENT_TYPE, "application/json")],
//!         br#"{"modules.v1": "modules/", "login.v1": {"client": "cli"}}"#,
//!     ),
//! ]
//! .into_iter();
//!
//! let services = loop {
//!     match discovery.poll() {
//!         Action::Send(request) => {
//!             // A transport performs `request` here.
//!             println!("GET {}", request.uri());
//!             let (status, headers, body) = responses.next().expect("a canned response");
//!             let headers: HeaderMap = headers
//!                 .into_iter()
//!                 .map(|(name, value)| (name, value.parse().unwrap()))
//!                 .collect();
//!             discovery.handle_head(status, &headers, now);
//!             if discovery.is_receiving() {
//!                 discovery.handle_body(body, now);
//!                 discovery.handle_end(now);
//!             }
//!         }
//!         Action::Receive => unreachable!("bodies are read right after their head here"),
//!         // Nothing to wait for here: this clock stands still.
//!         Action::Wait(until) => discovery.handle_timeout(until),
//!         Action::Done(result) => break result?,
//!         _ => unreachable!("no other action yet"),
//!     }
//! };
//!
//! assert_eq!(services.discovery_url().as_str(), "https://example.com/disco/v1.json");
//! assert_eq!(services.service_url("modules.v1")?.as_str(), "https://example.com/disco/modules/");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A real driver also arms a timer for [`Fetch::poll_timeout`] and calls
//! [`Fetch::handle_timeout`] when it fires (early is harmless: nothing
//! happens), reports transport failures with [`Fetch::handle_error`], and
//! stops reading a body as soon as `poll` stops returning [`Action::Receive`].

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod cache;
mod config;
mod credentials;
mod dialect;
mod discovery;
mod download;
mod env;
mod error;
mod fetch;
mod go_clean;
mod go_quote;
pub mod hostname;
mod mirror;
mod registry_api;
mod report;
mod service_id;
mod services;
mod source;
mod url_rules;
mod version;

pub use bytes;
pub use http;
pub use serde_json;
pub use url;

pub use cache::{DiscoveryCache, Lookup, Ticket};
pub use config::{
    Config, DEFAULT_BODY_LIMIT, DEFAULT_DOWNLOAD_LIMIT, DEFAULT_DOWNLOAD_TIMEOUT,
    DEFAULT_MAX_REDIRECTS, DEFAULT_REGISTRY_BODY_LIMIT, DEFAULT_REGISTRY_MAX_REDIRECTS,
    DEFAULT_TIMEOUT, MIRROR_MAX_REDIRECTS, OCI_BODY_LIMIT, RequestKind,
};
pub use credentials::{
    Credentials, CredentialsError, CredentialsSource, InvalidToken, NoCredentials,
    StaticCredentials, credentials_for,
};
pub use dialect::{Dialect, UnknownDialect};
pub use discovery::{DISCOVERY_PATH, Discovery, DiscoveryRequest};
pub use download::{Contents, Download, Sink};
pub use env::Env;
pub use error::{Error, ErrorKind, GiveUpReason, StartError, TransportError, TransportErrorKind};
pub use fetch::{
    Action, Body, DEFAULT_REGISTRY_ATTEMPT_TIMEOUT, Fetch, Goal, Next, Retry, RetryPolicy,
};
pub use go_clean::go_clean;
pub use go_quote::go_quote;
pub use hostname::{Hostname, HostnameError, HostnameErrorKind};
pub use mirror::{
    MirrorArchive, MirrorArchives, MirrorArchivesRequest, MirrorUrlError, MirrorVersions,
    MirrorVersionsRequest, NetworkMirror,
};
pub use registry_api::PlatformPackage;
pub use registry_api::{
    ModuleDownloadRequest, ModuleLocation, ModuleVersions, ModuleVersionsRequest, Platform,
    ProviderPackage, ProviderPackageRequest, ProviderVersion, ProviderVersions,
    ProviderVersionsRequest, RegistryCall, SigningKey, check_version,
};
pub use report::ServicesReport;
pub use service_id::{ServiceId, ServiceIdError};
pub use services::{JsonType, OAuthClient, Resolved, Services};
pub use source::{
    Getter, ModuleAddress, ModulePackage, ModuleSource, PackageDetector, ProviderSource,
    SourceError,
};
pub use version::{
    Constraint, Operator, SelectionError, Version, VersionConstraints, VersionError, newest, select,
};
