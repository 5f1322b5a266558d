#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod connect;

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tfdisco_core::http::{Request, Response};
pub use tfdisco_transport::reexports::*;
use tfdisco_transport::{AsyncHttp, hyper_body, perform_async_http, tls};
use tokio::runtime::{Handle, Runtime};
use tokio_rustls::TlsConnector;

use crate::connect::Connector;

/// A discovery client on tokio: the discovery cache in front of [`Http`]. Clones
/// share the cache and the connection pool.
///
/// Methods (documented on [`AsyncClient`]): [`builder`](AsyncClient::builder);
/// [`discover`](AsyncClient::discover),
/// [`service_url`](AsyncClient::service_url) and the registry calls
/// ([`provider_versions`](AsyncClient::provider_versions),
/// [`provider_package`](AsyncClient::provider_package),
/// [`module_versions`](AsyncClient::module_versions),
/// [`module_download`](AsyncClient::module_download)), each a [`Call`] to
/// await, or to observe first ([`Call::observe`]);
/// [`cache`](AsyncClient::cache) and [`drive`](AsyncClient::drive).
pub type Client = tfdisco_transport::AsyncClient<Http>;

/// The same client for blocking code, running on a tokio runtime of its own
/// (one worker thread; build it outside any async runtime).
///
/// Methods: [`AsyncClient`]'s, each run to completion on the calling thread
/// and returning its result instead of a future: `builder`, `discover`,
/// `service_url`, the registry calls, `cache`, `drive`; and `wait`, which
/// runs any [`Call`] of its async client (an observed one, say).
/// Called inside a tokio runtime they fail with [`Error::InvalidArgument`]
/// rather than block it: use [`Client`] there.
pub type BlockingClient = tfdisco_transport::BlockingClient<Http>;

/// The HTTP side of a [`Client`]: hyper-util's pooled client over
/// tfdisco's connector (address overrides, proxies, rustls).
pub struct Http {
    client: HyperClient<Connector, Full<Bytes>>,
    /// Where blocking calls run: a runtime of our own when the client was
    /// built outside any, else the runtime it was built in.
    runtime: OwnRuntime,
}

/// A runtime of our own, or the handle of the ambient one.
///
/// Ours has one worker thread, so that hyper's connection tasks go on
/// between blocking calls: a connection whose body was dropped unread is
/// closed at once, not at the next call.
enum OwnRuntime {
    Own(Option<Runtime>),
    Ambient(Handle),
}

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        // A runtime dropped inside async code would panic; this one may be
        // (a client built outside a runtime, dropped inside one).
        if let OwnRuntime::Own(runtime) = self
            && let Some(runtime) = runtime.take()
        {
            runtime.shutdown_background();
        }
    }
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Http")
    }
}

impl FromSettings for Http {
    fn from_settings(settings: Settings) -> Result<Http, BuildError> {
        let tls = TlsConnector::from(tls::client_config(settings.trust_anchors())?);
        let mut builder = HyperClient::builder(TokioExecutor::new());
        builder
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(settings.pool_idle_timeout())
            .pool_max_idle_per_host(settings.pool_max_idle_per_origin());
        let runtime = match Handle::try_current() {
            Ok(handle) => OwnRuntime::Ambient(handle),
            Err(_) => OwnRuntime::Own(Some(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("tfdisco-tokio")
                    .enable_all()
                    .build()
                    .map_err(|e| BuildError::Transport(Box::new(e)))?,
            )),
        };
        let connector = Connector::new(Arc::new(settings), tls);
        Ok(Http {
            client: builder.build(connector),
            runtime,
        })
    }
}

impl Transport for Http {
    fn perform<'a>(
        &'a self,
        request: Request<Bytes>,
        exchange: &'a mut Exchange<'_>,
    ) -> impl Future<Output = ()> + Send + 'a {
        perform_async_http(self, request, exchange)
    }

    async fn sleep_until(&self, deadline: Instant) {
        tokio::time::sleep_until(deadline.into()).await;
    }

    /// tokio's clock: the system's, unless a test paused it
    /// (`tokio::time::pause`), and then the one its timers run on.
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    /// Refuses inside a tokio runtime, where blocking the thread would
    /// panic (or stall the runtime): the async client is the one for there.
    fn block_on<F: Future>(&self, future: F) -> Result<F::Output, Error> {
        if Handle::try_current().is_ok() {
            return Err(Error::InvalidArgument {
                message: "a blocking client cannot run inside a tokio runtime: use the async \
                          client (tfdisco_tokio::Client) there, or call the blocking one \
                          from tokio::task::spawn_blocking"
                    .into(),
            });
        }
        Ok(match &self.runtime {
            OwnRuntime::Own(Some(runtime)) => runtime.block_on(future),
            OwnRuntime::Own(None) => unreachable!("the runtime is only taken on drop"),
            OwnRuntime::Ambient(handle) => handle.block_on(future),
        })
    }
}

impl AsyncHttp for Http {
    type Body = Incoming;
    type Chunk = Bytes;

    async fn send(&self, request: Request<Bytes>) -> Result<Response<Incoming>, TransportError> {
        self.client
            .request(hyper_body::request(request))
            .await
            .map_err(request_error)
    }

    async fn next_chunk(&self, body: &mut Incoming) -> Option<Result<Bytes, TransportError>> {
        hyper_body::next_chunk(body).await
    }
}

/// Our connector's own classification when it failed, hyper's otherwise.
fn request_error(e: hyper_util::client::legacy::Error) -> TransportError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(cause) = source {
        if let Some(ours) = cause.downcast_ref::<TransportError>() {
            return ours.clone();
        }
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            return TransportError::new(hyper_body::error_kind(hyper), e);
        }
        source = cause.source();
    }
    let kind = if e.is_connect() {
        TransportErrorKind::Connect
    } else {
        TransportErrorKind::Io
    };
    TransportError::new(kind, e)
}
