//! Terraform/OpenTofu remote service discovery over the system libcurl,
//! blocking: a [`Client`] that discovers hosts, caches results, and makes
//! threads that discover one host at the same time share one request.
//!
//! **In scope**: the libcurl transport for [`tfdisco_core`]. libcurl moves
//! the bytes (HTTP/1.1, TLS with its own TLS library, proxies,
//! `CURLOPT_RESOLVE` address overrides, connection reuse per handle); it
//! never follows redirects (`follow_location(false)`), and the transfer stops
//! as soon as the core has what it needs. Trust roots are given to libcurl
//! as one PEM bundle (`CURLOPT_CAINFO_BLOB`): the system roots, or
//! `SSL_CERT_FILE` / `SSL_CERT_DIR` (which a system libcurl ignores), plus
//! your own CA certificates. Proxies are decided by the shared rules and set
//! explicitly, so libcurl's own proxy variables never apply. Every option is
//! on [`ClientBuilder`], shared with the other tfdisco transports.
//!
//! **Out of scope**: discovery decisions (the core makes them), async use
//! (use `tfdisco-tokio` or `tfdisco-async-std`), reading Terraform's CLI
//! configuration.
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
//! [`Client::drive`] runs one [`Discovery`] you made yourself and reports
//! each request/response exchange to an [`Observer`], for diagnostics.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod head;
mod transfer;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::sync::{Arc, Mutex, PoisonError};

use curl::easy::{Easy, HttpVersion, List};
use tfdisco_core::url::Url;
use tfdisco_core::{Action, TransportError, TransportErrorKind};
pub use tfdisco_transport::reexports::*;

/// The builder of a [`Client`]; see [`tfdisco_transport::ClientBuilder`]
/// for every option.
pub type ClientBuilder = tfdisco_transport::ClientBuilder<Client>;

/// Easy handles kept for reuse (each keeps its own connections).
const IDLE_HANDLES: usize = 8;

/// A blocking discovery client on libcurl. Clones share the registry and the
/// idle handles; use it from as many threads as you like.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    registry: SharedRegistry,
    net: Net,
}

/// The libcurl side: settings, the trust bundle, idle handles.
pub(crate) struct Net {
    pub(crate) settings: Settings,
    ca_bundle: Vec<u8>,
    resolve: Vec<String>,
    idle: Mutex<Vec<Easy>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("registry", &self.inner.registry)
            .field("settings", &self.inner.net.settings)
            .finish_non_exhaustive()
    }
}

impl FromSettings for Client {
    fn from_settings(settings: Settings) -> Result<Client, BuildError> {
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
        let net = Net {
            ca_bundle: settings.trust_anchors().to_pem(),
            settings,
            resolve,
            idle: Mutex::new(Vec::new()),
        };
        // A first handle checks that libcurl takes every option.
        let easy = net
            .new_handle()
            .map_err(|e| BuildError::Transport(Box::new(e)))?;
        net.give_back(easy);
        Ok(Client {
            inner: Arc::new(Inner {
                registry: net.settings.registry(),
                net,
            }),
        })
    }
}

impl Net {
    /// A handle with the options every request shares.
    fn new_handle(&self) -> Result<Easy, curl::Error> {
        let mut easy = Easy::new();
        easy.signal(false)?;
        easy.follow_location(false)?;
        easy.http_version(HttpVersion::V11)?;
        easy.tcp_nodelay(true)?;
        easy.ssl_cainfo_blob(&self.ca_bundle)?;
        // The bundle is the whole trust store, so libcurl's built-in
        // certificate directory must not add to it. It cannot be unset
        // through the `curl` crate; a directory that does not exist (by
        // convention, `/nonexistent` never does) holds no certificates. (An
        // empty path also works but makes OpenSSL stall each handshake.)
        easy.capath("/nonexistent/tfdisco-no-ca-directory")?;
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

    fn give_back(&self, easy: Easy) {
        if !self.settings.reuse_connections() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_HANDLES {
            idle.push(easy);
        }
    }

    fn run(
        &self,
        discovery: &mut Discovery,
        observer: Option<&mut dyn Observer>,
    ) -> Result<Services, Error> {
        let mut easy = match self.handle() {
            Ok(easy) => easy,
            Err(error) => {
                discovery.handle_error(error.clone());
                return match discovery.poll() {
                    Action::Done(result) => result,
                    _ => Err(Error::Transport {
                        url: discovery.url().clone().into(),
                        error,
                    }),
                };
            }
        };
        let result = transfer::drive(self, &mut easy, discovery, observer);
        self.give_back(easy);
        result
    }
}

impl Client {
    /// A builder with the defaults (see [`tfdisco_transport::ClientBuilder::new`]).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// The services `host` offers: from the cache, from a discovery another
    /// thread has under way (this thread waits for it), or discovered now.
    pub fn discover(&self, host: &Hostname) -> Result<Services, Error> {
        self.inner
            .registry
            .discover_blocking(host, |mut discovery| {
                self.inner.net.run(&mut discovery, None)
            })
    }

    /// The base URL of service `id` (`modules.v1`, say) on `host`.
    pub fn service_url(&self, host: &Hostname, id: &str) -> Result<Url, Error> {
        self.discover(host)?.service_url(id)
    }

    /// The cache, aliases and forced services.
    pub fn registry(&self) -> &SharedRegistry {
        &self.inner.registry
    }

    /// Drives one discovery you made yourself, bypassing the registry, and
    /// tells `observer` about each exchange.
    pub fn drive(
        &self,
        discovery: &mut Discovery,
        observer: Option<&mut dyn Observer>,
    ) -> Result<Services, Error> {
        self.inner.net.run(discovery, observer)
    }
}
