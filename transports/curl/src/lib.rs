#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod head;
#[cfg(all(unix, not(target_os = "macos")))]
mod issuer;
mod transfer;
mod trust;

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
/// [`discover`](BlockingClient::discover),
/// [`service_url`](BlockingClient::service_url), the registry calls
/// ([`provider_versions`](BlockingClient::provider_versions),
/// [`provider_package`](BlockingClient::provider_package),
/// [`module_versions`](BlockingClient::module_versions),
/// [`module_download`](BlockingClient::module_download)),
/// [`wait`](BlockingClient::wait), which runs an observed [`Call`] of
/// [`as_async`](BlockingClient::as_async), [`cache`](BlockingClient::cache)
/// and [`drive`](BlockingClient::drive).
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
