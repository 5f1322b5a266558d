//! The same client for blocking code: each call runs the async client's
//! [`Call`](crate::Call) to completion with the transport's [`Transport::block_on`].

use std::fmt;
use std::future::IntoFuture;

use tfdisco_core::url::Url;
use tfdisco_core::{
    Credentials, Error, Goal, Hostname, ModuleLocation, ModuleSource, ModuleVersions,
    NetworkMirror, NetworkMirrorArchives, NetworkMirrorVersions, OAuthClient, Platform,
    ProviderPackage, ProviderSource, ProviderVersions, Services, Sink, TfeAccount, TokenGrant,
    Transfer, Version,
};

use crate::{
    AsyncClient, BuildError, ClientBuilder, FromSettings, Observer, Settings, SharedCache,
    Transport,
};

/// A client for blocking code: [`AsyncClient`]'s methods, each run to
/// completion on the calling thread; [`BlockingClient::wait`] runs any
/// other [`Call`](crate::Call) of its async client, an observed one say.
/// Clones share the cache and the connections; use it from as many threads
/// as you like (threads that discover one host at the same time share one
/// request).
///
/// `tfdisco_curl::Client` is one; the CLI holds one over whichever
/// transport it was asked for. Inside an async runtime use the
/// [`AsyncClient`]: a transport that cannot block there (tokio's, inside a
/// tokio runtime) fails the call with [`Error::InvalidArgument`] instead.
pub struct BlockingClient<T> {
    inner: AsyncClient<T>,
}

impl<T> Clone for BlockingClient<T> {
    fn clone(&self) -> Self {
        BlockingClient {
            inner: self.inner.clone(),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for BlockingClient<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: FromSettings> FromSettings for BlockingClient<T> {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        AsyncClient::from_settings(settings).map(BlockingClient::from)
    }
}

impl<T> From<AsyncClient<T>> for BlockingClient<T> {
    fn from(inner: AsyncClient<T>) -> Self {
        BlockingClient { inner }
    }
}

impl<T: Transport + FromSettings> BlockingClient<T> {
    /// A builder with the defaults (see [`ClientBuilder::new`]).
    pub fn builder() -> ClientBuilder<Self> {
        ClientBuilder::new()
    }
}

impl<T> BlockingClient<T> {
    /// A client of `cache` over `transport`.
    pub fn new(cache: SharedCache, transport: T) -> BlockingClient<T> {
        AsyncClient::new(cache, transport).into()
    }

    /// The discovery cache: cached results, aliases and forced services.
    pub fn cache(&self) -> &SharedCache {
        self.inner.cache()
    }

    /// The transport.
    pub fn transport(&self) -> &T {
        self.inner.transport()
    }

    /// The async client behind this one (same cache, same connections).
    pub fn as_async(&self) -> &AsyncClient<T> {
        &self.inner
    }
}

impl<T: Transport> BlockingClient<T> {
    /// The services `host` offers: from the cache (or a `host` block), from
    /// a discovery another thread has under way (this thread waits for it),
    /// or discovered now.
    pub fn discover(&self, host: &Hostname) -> Result<Services, Error> {
        self.wait(self.inner.discover(host))
    }

    /// The base URL of service `id` (`modules.v1`, say) on `host`.
    pub fn service_url(&self, host: &Hostname, id: &str) -> Result<Url, Error> {
        self.wait(self.inner.service_url(host, id))
    }

    /// The versions of a provider (see [`AsyncClient::provider_versions`]).
    pub fn provider_versions(&self, source: &ProviderSource) -> Result<ProviderVersions, Error> {
        self.wait(self.inner.provider_versions(source))
    }

    /// A provider package (see [`AsyncClient::provider_package`]).
    pub fn provider_package(
        &self,
        source: &ProviderSource,
        version: &str,
        platform: &Platform,
    ) -> Result<ProviderPackage, Error> {
        self.wait(self.inner.provider_package(source, version, platform))
    }

    /// The versions of a module (see [`AsyncClient::module_versions`]).
    pub fn module_versions(&self, source: &ModuleSource) -> Result<ModuleVersions, Error> {
        self.wait(self.inner.module_versions(source))
    }

    /// A module's download location (see [`AsyncClient::module_download`]).
    pub fn module_download(
        &self,
        source: &ModuleSource,
        version: &str,
    ) -> Result<ModuleLocation, Error> {
        self.wait(self.inner.module_download(source, version))
    }

    /// A network mirror's versions of a provider (see
    /// [`AsyncClient::network_mirror_versions`]).
    pub fn network_mirror_versions(
        &self,
        mirror: &NetworkMirror,
        source: &ProviderSource,
    ) -> Result<NetworkMirrorVersions, Error> {
        self.wait(self.inner.network_mirror_versions(mirror, source))
    }

    /// A network mirror's archives of a version (see
    /// [`AsyncClient::network_mirror_archives`]).
    pub fn network_mirror_archives(
        &self,
        mirror: &NetworkMirror,
        source: &ProviderSource,
        version: &Version,
    ) -> Result<NetworkMirrorArchives, Error> {
        self.wait(self.inner.network_mirror_archives(mirror, source, version))
    }

    /// `terraform login`'s token request (see [`AsyncClient::login_token`]).
    pub fn login_token(
        &self,
        client: &OAuthClient,
        grant: TokenGrant<'_>,
    ) -> Result<Credentials, Error> {
        self.wait(self.inner.login_token(client, grant))
    }

    /// The check of a token pasted for a `tfe.v2` host (see
    /// [`AsyncClient::tfe_account`]).
    pub fn tfe_account(&self, service: &Url, token: &Credentials) -> Result<TfeAccount, Error> {
        self.wait(self.inner.tfe_account(service, token))
    }

    /// A download (see [`AsyncClient::download`]).
    pub fn download<S>(&self, url: Url, sink: S, about: &Hostname) -> Result<S::Output, Error>
    where
        S: Sink,
        S::Output: Send,
    {
        self.wait(self.inner.download(url, sink, about))
    }

    /// A package page's source (see [`AsyncClient::package_page`]).
    pub fn package_page(&self, url: &Url, about: &Hostname) -> Result<Option<String>, Error> {
        self.wait(self.inner.package_page(url, about))
    }

    /// A download with `about`'s credentials (see
    /// [`AsyncClient::download_with_credentials`]).
    pub fn download_with_credentials<S>(
        &self,
        url: Url,
        sink: S,
        about: &Hostname,
    ) -> Result<S::Output, Error>
    where
        S: Sink,
        S::Output: Send,
    {
        self.wait(self.inner.download_with_credentials(url, sink, about))
    }

    /// Runs `call`, one of this client's async calls (made with
    /// [`as_async`](BlockingClient::as_async)), to completion on the calling
    /// thread: how an observed call runs in blocking code.
    ///
    /// ```no_run
    /// # fn example<T: tfdisco_transport::Transport>(
    /// #     client: &tfdisco_transport::BlockingClient<T>,
    /// #     host: &tfdisco_core::Hostname,
    /// # ) -> Result<(), tfdisco_core::Error> {
    /// use tfdisco_transport::Event;
    ///
    /// let mut exchanges = 0;
    /// let mut observer = |event: &Event<'_>| {
    ///     if let Event::Exchange(_) = event {
    ///         exchanges += 1;
    ///     }
    /// };
    /// let services = client.wait(client.as_async().discover(host).observe(&mut observer))?;
    /// println!("{} after {exchanges} exchanges", services.discovery_url());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// A transport that cannot block here (tokio's, inside a tokio runtime)
    /// fails the call with [`Error::InvalidArgument`], as every blocking
    /// call does.
    ///
    /// Any future of this client's calls runs the same way (the runs of
    /// `tfdisco-runs` wait for theirs here).
    pub fn wait<O>(&self, call: impl IntoFuture<Output = Result<O, Error>>) -> Result<O, Error> {
        self.inner.transport().block_on(call.into_future())?
    }

    /// Runs one transfer you made yourself over this client's connections,
    /// telling `observer` about each exchange.
    pub fn drive<G>(
        &self,
        transfer: &mut Transfer<G>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        self.wait(self.inner.drive(transfer, observer))
    }
}
