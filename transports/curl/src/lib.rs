//! Terraform/OpenTofu remote service discovery over the system libcurl,
//! blocking: a [`Client`] that discovers hosts, caches results, and makes
//! threads that discover one host at the same time share one request.
//!
//! **In scope**: the libcurl transport for [`tfdisco_core`]. libcurl moves
//! the bytes (HTTP/1.1, TLS with its own TLS library, proxies,
//! `CURLOPT_RESOLVE` address overrides, connection reuse per handle); it
//! never follows redirects (`follow_location(false)`), and the transfer stops
//! as soon as the core has what it needs. Trust roots are given to libcurl
//! as libcurl expects them: the system roots (or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR`, which a system libcurl ignores) that sit in hashed
//! directories as `CURLOPT_CAPATH`, looked up by OpenSSL only when a
//! handshake needs them; the others looked up by subject too, through a
//! lookup of ours on each TLS context's store, read only if a handshake
//! needs them (with a libcurl on another TLS library than OpenSSL, handed
//! over as a PEM bundle); your own CA certificates as one PEM bundle
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
mod lookup;
mod transfer;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::sync::{Arc, Mutex, PoisonError};

use curl::easy::{Easy, HttpVersion, List};
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

/// The libcurl side of a [`Client`]: the settings, the trust bundle, idle
/// easy handles (each keeps its own connections).
pub struct Http {
    settings: Settings,
    /// The caller's CA certificates, as PEM; with a libcurl on another TLS
    /// library than OpenSSL, every trust anchor no hashed directory holds.
    ca_bundle: Vec<u8>,
    /// The hashed root directories, `:`-separated, if any.
    capath: Option<String>,
    /// The system roots beyond the hashed directories, looked up when a
    /// handshake needs one (libcurl on OpenSSL).
    roots: Option<Arc<lookup::Roots>>,
    resolve: Vec<String>,
    idle: Mutex<Vec<Easy>>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl FromSettings for Http {
    fn from_settings(settings: Settings) -> Result<Http, BuildError> {
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
        let anchors = settings.trust_anchors().clone();
        // The roots in hashed directories are looked up by OpenSSL when a
        // handshake needs them; the other system roots too, through our
        // lookup, read only then (NET-5). Without OpenSSL they are read now
        // and handed over with the caller's CAs.
        let capath = std::env::join_paths(anchors.hashed_dirs())
            .ok()
            .and_then(|p| p.into_string().ok())
            .filter(|p| !p.is_empty());
        let (ca_bundle, roots) = if lookup::libcurl_uses_openssl() {
            (anchors.extra_pem(), Some(lookup::Roots::new(anchors)))
        } else {
            (anchors.pem_beyond_hashed_dirs(), None)
        };
        let http = Http {
            ca_bundle,
            capath,
            roots,
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
        // The blob replaces libcurl's built-in bundle (CURLOPT_CAINFO_BLOB
        // overrides CURLOPT_CAINFO), and CAPATH is ours: the hashed system
        // directories, or else a directory that does not exist (by
        // convention, `/nonexistent` never does), since libcurl's built-in
        // one must not add to the trust store and cannot be unset through
        // the `curl` crate. (An empty path makes OpenSSL stall each
        // handshake.)
        match (self.ca_bundle.is_empty(), &self.roots) {
            (false, _) => easy.ssl_cainfo_blob(&self.ca_bundle)?,
            // No CA of the caller's (libcurl refuses an empty blob): no CA
            // file either, only the directories and the lookup.
            (true, Some(_)) => lookup::no_ca_file(&easy)?,
            // No anchor at all: a CA file that does not exist, so every
            // handshake fails as untrusted rather than falling back to
            // libcurl's built-in bundle.
            (true, None) => easy.cainfo("/nonexistent/tfdisco-no-ca-file")?,
        }
        if let Some(roots) = &self.roots {
            let roots = Arc::clone(roots);
            easy.ssl_ctx_function(move |ctx| {
                lookup::Roots::install(&roots, ctx);
                Ok(())
            })?;
        }
        easy.capath(
            self.capath
                .as_deref()
                .unwrap_or("/nonexistent/tfdisco-no-ca-directory"),
        )?;
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
    fn perform(&self, request: Request<()>, exchange: &mut Exchange<'_>) {
        match self.handle() {
            Ok(mut easy) => {
                transfer::perform(self, &mut easy, &request, exchange);
                self.give_back(easy);
            }
            Err(error) => exchange.fail(error),
        }
    }
}
