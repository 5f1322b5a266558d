//! The client of every async transport, written once: the discovery cache
//! (aliases, forced services, coalescing) in front of a [`Transport`].

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Credentials, Error, Goal, Hostname, ModuleLocation, ModuleSource, ModuleVersions,
    NetworkMirror, NetworkMirrorArchives, NetworkMirrorVersions, OAuthClient, Platform,
    ProviderPackage, ProviderSource, ProviderVersions, Services, Sink, StartError, TfeAccount,
    TokenGrant, Transfer, Version, check_version,
};

use crate::cache::Begin;
use crate::{BuildError, ClientBuilder, Event, FromSettings, Observer, Settings, SharedCache};
use crate::{Call, Transport, drive};

/// A client over the transport `T`, for async code: the discovery cache
/// (aliases, forced services, coalescing of concurrent discoveries of one
/// host) in front of `T`'s connections. Clones share both.
///
/// The tokio and async-std transports name theirs `Client`
/// (`tfdisco_tokio::Client` is `AsyncClient<tfdisco_tokio::Http>`);
/// [`BlockingClient`](crate::BlockingClient) offers the same methods to
/// blocking code.
///
/// Each call is a [`Call`]: awaited, it gives its result;
/// `.observe(&mut observer)` first makes it tell an [`Observer`] what
/// happens: each exchange (of the discovery, when one is made, and of the
/// registry request), and a credentials lookup that failed.
pub struct AsyncClient<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    cache: SharedCache,
    transport: T,
    /// What the client learned of OCI registries' authentication (their
    /// tokens), shared by its OCI requests.
    oci_auth: std::sync::Mutex<tfdisco_oci::AuthCache>,
}

impl<T> Clone for AsyncClient<T> {
    fn clone(&self) -> Self {
        AsyncClient {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for AsyncClient<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("cache", &self.inner.cache)
            .field("transport", &self.inner.transport)
            .finish()
    }
}

/// The cache comes from the settings, the rest from `T`.
impl<T: FromSettings> FromSettings for AsyncClient<T> {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        let cache = settings.new_cache();
        Ok(AsyncClient::new(cache, T::from_settings(settings)?))
    }
}

impl<T: Transport + FromSettings> AsyncClient<T> {
    /// A builder with the defaults (see [`ClientBuilder::new`]).
    pub fn builder() -> ClientBuilder<Self> {
        ClientBuilder::new()
    }
}

impl<T> AsyncClient<T> {
    /// A client of `cache` over `transport` (for a transport chosen at run
    /// time, say; `builder()` is the usual way).
    pub fn new(cache: SharedCache, transport: T) -> AsyncClient<T> {
        AsyncClient {
            inner: Arc::new(Inner {
                cache,
                transport,
                oci_auth: std::sync::Mutex::default(),
            }),
        }
    }

    /// What the client learned of OCI registries' authentication.
    pub(crate) fn oci_auth(&self) -> std::sync::MutexGuard<'_, tfdisco_oci::AuthCache> {
        self.inner
            .oci_auth
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The discovery cache: cached results, aliases and forced services.
    pub fn cache(&self) -> &SharedCache {
        &self.inner.cache
    }

    /// The transport.
    pub fn transport(&self) -> &T {
        &self.inner.transport
    }
}

impl<T: Transport> AsyncClient<T> {
    /// The services `host` offers: from the cache (or a `host` block), from
    /// a discovery already under way for it, or discovered now.
    ///
    /// Observed ([`Call::observe`]), it tells the observer of each exchange
    /// of a discovery made now, and of a credentials lookup that failed. A
    /// result from the cache or from another caller's discovery comes
    /// without events.
    pub fn discover<'a>(&'a self, host: &'a Hostname) -> Call<'a, Services> {
        Call::new(move |observer| self.discover_with(host, observer))
    }

    /// [`AsyncClient::discover`], run with `observer`.
    async fn discover_with(
        &self,
        host: &Hostname,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<Services, Error> {
        loop {
            match self.inner.cache.begin(host) {
                Begin::Ready(result) => return result,
                Begin::Lead(lead) => {
                    let (start, failure) = lead.start(self.inner.transport.now());
                    if let (Some(error), Some(observer)) = (&failure, observer.as_deref_mut()) {
                        observer.event(&Event::CredentialsFailed {
                            host: lead.target(),
                            error,
                        });
                    }
                    let result = self.run(start, observer).await;
                    return lead.finish(result);
                }
                Begin::Wait(wait) => {
                    if let Some(result) = wait.await {
                        return result;
                    }
                }
            }
        }
    }

    /// The base URL of service `id` (`modules.v1`, say) on `host`.
    pub fn service_url<'a>(&'a self, host: &'a Hostname, id: &'a str) -> Call<'a, Url> {
        Call::new(move |observer| async move {
            self.discover_with(host, observer).await?.service_url(id)
        })
    }

    /// The versions of a provider, from its registry: discovers the
    /// source's host (cached, coalesced), then asks its `providers.v1` API
    /// with the host's credentials (over https only, D9).
    pub fn provider_versions<'a>(
        &'a self,
        source: &'a ProviderSource,
    ) -> Call<'a, ProviderVersions> {
        Call::new(move |observer| async move {
            source.require_qualified()?;
            let start = |services: &Services, config: &Config, credentials, now| {
                Transfer::provider_versions(services, source, config, credentials, now)
            };
            self.registry_request(source.host(), start, observer).await
        })
    }

    /// Where to download `version` of a provider for `platform`, and how to
    /// check it.
    pub fn provider_package<'a>(
        &'a self,
        source: &'a ProviderSource,
        version: &'a str,
        platform: &'a Platform,
    ) -> Call<'a, ProviderPackage> {
        Call::new(move |observer| async move {
            // What needs no network is checked before the discovery.
            source.require_qualified()?;
            check_version(version)?;
            platform.check()?;
            let start = |services: &Services, config: &Config, credentials, now| {
                Transfer::provider_package(
                    services,
                    source,
                    version,
                    platform,
                    config,
                    credentials,
                    now,
                )
            };
            self.registry_request(source.host(), start, observer).await
        })
    }

    /// The versions of a module package, from its registry's `modules.v1`
    /// API.
    pub fn module_versions<'a>(&'a self, source: &'a ModuleSource) -> Call<'a, ModuleVersions> {
        Call::new(move |observer| {
            let start = |services: &Services, config: &Config, credentials, now| {
                Transfer::module_versions(services, source, config, credentials, now)
            };
            self.registry_request(source.host(), start, observer)
        })
    }

    /// Where to download `version` of a module package from.
    pub fn module_download<'a>(
        &'a self,
        source: &'a ModuleSource,
        version: &'a str,
    ) -> Call<'a, ModuleLocation> {
        Call::new(move |observer| async move {
            check_version(version)?;
            let start = |services: &Services, config: &Config, credentials, now| {
                Transfer::module_download(services, source, version, config, credentials, now)
            };
            self.registry_request(source.host(), start, observer).await
        })
    }

    /// Downloads `url` (a file a registry named: a package's `SHA256SUMS`,
    /// its signature, its archive) into `sink` as it arrives, without a
    /// token; `about` is the registry host it belongs to (DL-1).
    pub fn download<'a, S>(&'a self, url: Url, sink: S, about: &'a Hostname) -> Call<'a, S::Output>
    where
        S: Sink + 'a,
        S::Output: Send,
    {
        Call::new(move |observer| async move {
            let config = self.inner.cache.config();
            let now = self.inner.transport.now();
            self.run(
                Transfer::download(url, sink, about.clone(), &config, now),
                observer,
            )
            .await
        })
    }

    /// Asks the page at `url` (a module package URL that is no archive)
    /// for the package's source, as go-getter's http getter does: `GET
    /// URL?terraform-get=1` without a token, the `X-Terraform-Get` header,
    /// else the head's `<meta name="terraform-get">`; `None` when it names
    /// none (MOD-7).
    pub fn package_page<'a>(
        &'a self,
        url: &'a Url,
        about: &'a Hostname,
    ) -> Call<'a, Option<String>> {
        Call::new(move |observer| async move {
            let config = self.inner.cache.config();
            let now = self.inner.transport.now();
            self.run(
                Transfer::package_page(url, about.clone(), &config, now),
                observer,
            )
            .await
        })
    }

    /// Downloads `url` into `sink` as [`download`](AsyncClient::download)
    /// does, but with `about`'s credentials (over https only, to that host
    /// and its subdomains: D4): OpenTofu's direct module packages whose
    /// registry sets `use_registry_credentials` (MOD-4).
    pub fn download_with_credentials<'a, S>(
        &'a self,
        url: Url,
        sink: S,
        about: &'a Hostname,
    ) -> Call<'a, S::Output>
    where
        S: Sink + 'a,
        S::Output: Send,
    {
        Call::new(move |observer| {
            let start = |config: &Config, credentials, now| {
                Transfer::download_with_credentials(
                    url,
                    sink,
                    about.clone(),
                    config,
                    credentials,
                    now,
                )
            };
            self.credentialed_request(about, start, observer)
        })
    }

    /// The versions of a provider a network mirror lists (its `index.json`),
    /// asked with the mirror host's credentials, never over http
    /// (MIRROR-1 to MIRROR-5). No discovery is made.
    pub fn network_mirror_versions<'a>(
        &'a self,
        mirror: &'a NetworkMirror,
        source: &'a ProviderSource,
    ) -> Call<'a, NetworkMirrorVersions> {
        Call::new(move |observer| {
            let start = |config: &Config, credentials, now| {
                Transfer::network_mirror_versions(mirror, source, config, credentials, now)
            };
            self.mirror_request(mirror, start, observer)
        })
    }

    /// The archives a network mirror lists for `version` of a provider (its
    /// `<version>.json`); `NetworkMirrorArchives::archive` gives a platform's.
    pub fn network_mirror_archives<'a>(
        &'a self,
        mirror: &'a NetworkMirror,
        source: &'a ProviderSource,
        version: &'a Version,
    ) -> Call<'a, NetworkMirrorArchives> {
        Call::new(move |observer| {
            let start = |config: &Config, credentials, now| {
                Transfer::network_mirror_archives(mirror, source, version, config, credentials, now)
            };
            self.mirror_request(mirror, start, observer)
        })
    }

    /// `terraform login`'s token request to `client`'s token endpoint for
    /// `grant` (docs/behaviour.md, LOGIN-6 to LOGIN-9): the access token,
    /// as credentials. No stored credentials are sent; it is never retried.
    pub fn login_token<'a>(
        &'a self,
        client: &'a OAuthClient,
        grant: TokenGrant<'a>,
    ) -> Call<'a, Credentials> {
        Call::new(move |observer| async move {
            let config = self.inner.cache.config();
            let now = self.inner.transport.now();
            self.run(Transfer::login_token(client, grant, &config, now), observer)
                .await
        })
    }

    /// The check of a token pasted for a `tfe.v2` host (LOGIN-10): `GET
    /// {service}ping`, whatever it answers, then `GET
    /// {service}account/details`, both with `token`: the user it belongs
    /// to. A 401 means the token is invalid
    /// ([`tfe_account_message`](tfdisco_core::tfe_account_message)).
    pub fn tfe_account<'a>(
        &'a self,
        service: &'a Url,
        token: &'a Credentials,
    ) -> Call<'a, TfeAccount> {
        Call::new(move |mut observer| async move {
            let config = self.inner.cache.config();
            let now = self.inner.transport.now();
            self.run(
                Transfer::tfe_ping(service, token, &config, now),
                reborrow(&mut observer),
            )
            .await?;
            let now = self.inner.transport.now();
            self.run(
                Transfer::tfe_account(service, token, &config, now),
                observer,
            )
            .await
        })
    }

    /// Runs the mirror request `start` makes, with the mirror host's
    /// credentials; `observer` hears of it.
    async fn mirror_request<G>(
        &self,
        mirror: &NetworkMirror,
        start: impl FnOnce(&Config, Option<Credentials>, Instant) -> Result<Transfer<G>, StartError>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        self.credentialed_request(mirror.host(), start, observer)
            .await
    }

    /// Runs the request `start` makes, without discovery, with `host`'s
    /// credentials; `observer` hears of it.
    async fn credentialed_request<G>(
        &self,
        host: &Hostname,
        start: impl FnOnce(&Config, Option<Credentials>, Instant) -> Result<Transfer<G>, StartError>,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        let (credentials, failure) = self.inner.cache.credentials(host);
        if let (Some(error), Some(observer)) = (&failure, observer.as_deref_mut()) {
            observer.event(&Event::CredentialsFailed { host, error });
        }
        let config = self.inner.cache.config();
        let now = self.inner.transport.now();
        self.run(start(&config, credentials, now), observer).await
    }

    /// Discovers `host`, then runs the registry request `start` makes from
    /// its services, with `host`'s credentials; `observer` hears of both.
    async fn registry_request<G>(
        &self,
        host: &Hostname,
        start: impl FnOnce(
            &Services,
            &Config,
            Option<Credentials>,
            Instant,
        ) -> Result<Transfer<G>, StartError>,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        let services = self.discover_with(host, reborrow(&mut observer)).await?;
        let (credentials, failure) = self.inner.cache.credentials(host);
        if let (Some(error), Some(observer)) = (&failure, observer.as_deref_mut()) {
            observer.event(&Event::CredentialsFailed { host, error });
        }
        let config = self.inner.cache.config();
        let now = self.inner.transport.now();
        self.run(start(&services, &config, credentials, now), observer)
            .await
    }

    /// Runs a transfer that started, or reports why it did not.
    async fn run<G>(
        &self,
        start: Result<Transfer<G>, StartError>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        drive(&self.inner.transport, &mut start?, observer).await
    }

    /// Runs one transfer you made yourself (a [`Discovery`](tfdisco_core::Discovery)
    /// that bypasses the cache, say) over this client's connections, telling
    /// `observer` about each exchange. Make its `now` with
    /// [`Transport::now`] (`client.transport().now()`).
    pub async fn drive<G>(
        &self,
        transfer: &mut Transfer<G>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        drive(&self.inner.transport, transfer, observer).await
    }
}

/// The observer for one step of a call that has several: `as_deref_mut`
/// would keep the trait object's own lifetime, which an async call then
/// holds for as long as the caller's.
fn reborrow<'b>(observer: &'b mut Option<&mut dyn Observer>) -> Option<&'b mut dyn Observer> {
    match observer {
        Some(observer) => Some(&mut **observer),
        None => None,
    }
}
