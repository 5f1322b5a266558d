//! The discovery client of every async transport, written once.

use std::fmt;
use std::sync::Arc;

use tfdisco_core::url::Url;
use tfdisco_core::{Discovery, Error, Hostname, Services};

use crate::{AsyncTransport, BuildError, ClientBuilder, FromSettings, Observer, Settings};
use crate::{SharedRegistry, drive};

/// A discovery client over the async transport `T`: the registry (cache,
/// aliases, forced services, coalescing) in front of `T`'s connections.
///
/// The tokio and async-std transports name theirs `Client`
/// (`tfdisco_tokio::Client` is `AsyncClient<tfdisco_tokio::Http>`). Clones
/// share the registry and the connections.
pub struct AsyncClient<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    registry: SharedRegistry,
    transport: T,
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
            .field("registry", &self.inner.registry)
            .field("transport", &self.inner.transport)
            .finish()
    }
}

/// The registry comes from the settings, the rest from `T`.
impl<T: FromSettings> FromSettings for AsyncClient<T> {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        let registry = settings.registry();
        let transport = T::from_settings(settings)?;
        Ok(AsyncClient {
            inner: Arc::new(Inner {
                registry,
                transport,
            }),
        })
    }
}

impl<T: AsyncTransport + FromSettings> AsyncClient<T> {
    /// A builder with the defaults (see [`ClientBuilder::new`]).
    pub fn builder() -> ClientBuilder<Self> {
        ClientBuilder::new()
    }
}

impl<T: AsyncTransport> AsyncClient<T> {
    /// The services `host` offers: from the cache, from a discovery already
    /// under way for it, or discovered now.
    pub async fn discover(&self, host: &Hostname) -> Result<Services, Error> {
        let transport = &self.inner.transport;
        self.inner
            .registry
            .discover(host, |mut discovery| async move {
                drive(transport, &mut discovery, None).await
            })
            .await
    }

    /// The base URL of service `id` (`modules.v1`, say) on `host`.
    pub async fn service_url(&self, host: &Hostname, id: &str) -> Result<Url, Error> {
        self.discover(host).await?.service_url(id)
    }

    /// The cache, aliases and forced services.
    pub fn registry(&self) -> &SharedRegistry {
        &self.inner.registry
    }

    /// Drives one discovery you made yourself over this client's
    /// connections, bypassing the registry, and tells `observer` about each
    /// exchange.
    pub async fn drive(
        &self,
        discovery: &mut Discovery,
        observer: Option<&mut dyn Observer>,
    ) -> Result<Services, Error> {
        drive(&self.inner.transport, discovery, observer).await
    }
}
