//! Terraform/OpenTofu remote service discovery over the system libcurl,
//! blocking: a [`Client`] that discovers hosts, caches results, and makes
//! threads that discover one host at the same time share one request.
//!
//! **In scope**: the libcurl transport for [`tfdisco_core`]. libcurl moves
//! the bytes (HTTP/1.1, TLS with its own TLS library, proxies,
//! `CURLOPT_RESOLVE` address overrides, connection reuse per handle); it
//! never follows redirects (`follow_location(false)`), and the transfer stops
//! as soon as the core has what it needs. The trusted set is the other
//! transports' (the system roots, or `SSL_CERT_FILE` / `SSL_CERT_DIR`, which a
//! system libcurl ignores, plus your own CA certificates), given to libcurl
//! as it takes it best: when libcurl does TLS with the OpenSSL this crate
//! links, the hashed root directories as `CURLOPT_CAPATH`, your CA
//! certificates as one PEM blob, and an issuer search on each TLS context's
//! certificate store that finds every other root of a name only if a
//! handshake needs one; with any other libcurl, every root in one PEM bundle
//! (`CURLOPT_CAINFO_BLOB`). Proxies are decided by the shared rules and set
//! explicitly, so libcurl's own proxy variables never apply. Every option is
//! on [`ClientBuilder`], shared with the other tfdisco transports.
//!
//! **Out of scope**: discovery decisions (the core makes them), async use
//! (use `tfdisco-tokio` or `tfdisco-async-std`). Terraform's CLI
//! configuration, read by `tfdisco-config`, is applied with
//! [`ClientBuilder::cli_config`](tfdisco_transport::ClientBuilder::cli_config).
//!
//! Building needs libcurl 7.77 or newer with its development files
//! (`libcurl4-openssl-dev` on Debian and Ubuntu).
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use tfdisco_curl::{Client, Credentials, Hostname, StaticCredentials};
//!
//! let host = Hostname::parse("registry.example.com")?;
//! let client = Client::builder()
//!     .timeout(Duration::from_secs(5))
//!     .credentials(StaticCredentials::new().with(host.clone(), Credentials::token("s3cret")?))
//!     .build()?;
//! let modules = client.service_url(&host, "modules.v1")?;
//! println!("modules live at {modules}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Client`] is a [`BlockingClient`]:
//! its methods (`discover`, `discover_observed`, `service_url`, `cache`,
//! `drive`) are documented there.

#![deny(unsafe_code)]
#![deny(missing_docs)]

mod head;
#[cfg(all(unix, not(target_os = "macos")))]
mod issuer;
mod transfer;
mod trust;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::sync::{Mutex, PoisonError};

use curl::easy::{Easy, HttpVersion, List};
use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::Request;
pub use tfdisco_transport::reexports::*;

/// A blocking discovery client on libcurl: the discovery cache in front of
/// [`Http`]. Clones share the cache and the idle handles; use it from as
/// many threads as you like.
///
/// Methods (documented on [`BlockingClient`]):
/// [`builder`](BlockingClient::builder),
/// [`discover`](BlockingClient::discover) and
/// [`discover_observed`](BlockingClient::discover_observed),
/// [`service_url`](BlockingClient::service_url), the registry calls
/// ([`provider_versions`](BlockingClient::provider_versions),
/// [`provider_package`](BlockingClient::provider_package),
/// [`module_versions`](BlockingClient::module_versions),
/// [`module_download`](BlockingClient::module_download), each with an
/// `_observed` form), [`cache`](BlockingClient::cache) and
/// [`drive`](BlockingClient::drive).
pub type Client = tfdisco_transport::BlockingClient<Blocking<Http>>;

/// The libcurl side of a [`Client`]: the settings, how the trust anchors
/// reach libcurl, idle easy handles (each keeps its own connections).
pub struct Http {
    settings: Settings,
    trust: trust::Trust,
    resolve: Vec<String>,
    idle: Mutex<Vec<Easy>>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("settings", &self.settings)
            .field("trust", &self.trust)
            .finish_non_exhaustive()
    }
}

impl FromSettings for Http {
    fn from_settings(settings: Settings) -> Result<Http, BuildError> {
        Http::with_trust(settings, false)
    }
}

impl Http {
    /// An [`Http`] that gives libcurl every trust anchor in one PEM bundle,
    /// as it does when libcurl's TLS library is not the OpenSSL this crate
    /// links, even when it is: the same trusted set, all read when the
    /// client is built. For tests of that way, and to rule the issuer search
    /// out when looking into a TLS failure.
    pub fn from_settings_with_pem_bundle(settings: Settings) -> Result<Http, BuildError> {
        Http::with_trust(settings, true)
    }

    fn with_trust(settings: Settings, bundle: bool) -> Result<Http, BuildError> {
        curl::init();
        let resolve = settings
            .overrides()
            .map(|(host, port, addrs)| {
                let addrs: Vec<String> = addrs
                    .iter()
                    .map(|a| match a.ip() {
                        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
                        ip => ip.to_string(),
                    })
                    .collect();
                format!("{host}:{port}:{}", addrs.join(","))
            })
            .collect();
        let trust = trust::Trust::new(settings.trust_anchors(), bundle)?;
        let http = Http {
            trust,
            settings,
            resolve,
            idle: Mutex::new(Vec::new()),
        };
        // A first handle checks that libcurl takes every option.
        let easy = http
            .new_handle()
            .map_err(|e| BuildError::Transport(Box::new(e)))?;
        http.give_back(easy);
        Ok(http)
    }
}

impl Http {
    /// A handle with the options every request shares.
    fn new_handle(&self) -> Result<Easy, curl::Error> {
        let mut easy = Easy::new();
        easy.signal(false)?;
        easy.follow_location(false)?;
        // The core decodes gzip for every transport: libcurl must hand over
        // the bytes as they came (it would only decode with
        // CURLOPT_ACCEPT_ENCODING set, which is never set here).
        easy.http_content_decoding(false)?;
        easy.http_version(HttpVersion::V11)?;
        easy.tcp_nodelay(true)?;
        easy.maxage_conn(self.settings.pool_idle_timeout())?;
        self.trust.apply(&mut easy)?;
        let mut resolve = List::new();
        for entry in &self.resolve {
            resolve.append(entry)?;
        }
        easy.resolve(resolve)?;
        Ok(easy)
    }

    fn handle(&self) -> Result<Easy, TransportError> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match idle {
            Some(easy) => Ok(easy),
            None => self
                .new_handle()
                .map_err(|e| TransportError::new(TransportErrorKind::Other, e)),
        }
    }

    /// Keeps `easy` (and its connections) for the next request, up to the
    /// pool's size.
    fn give_back(&self, easy: Easy) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < self.settings.pool_max_idle_per_origin() {
            idle.push(easy);
        }
    }
}

impl BlockingTransport for Http {
    fn perform(&self, request: Request<Bytes>, exchange: &mut Exchange<'_>) {
        match self.handle() {
            Ok(mut easy) => {
                transfer::perform(self, &mut easy, &request, exchange);
                self.give_back(easy);
            }
            Err(error) => exchange.fail(error),
        }
    }
}
