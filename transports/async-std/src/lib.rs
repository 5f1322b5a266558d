#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod connect;
mod io;
mod pool;

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use futures_rustls::TlsConnector;
use hyper::body::Bytes;
use tfdisco_core::http::header::HOST;
use tfdisco_core::http::{HeaderValue, Request, Response, Uri};
pub use tfdisco_transport::reexports::*;
use tfdisco_transport::{AsyncHttp, Route, hyper_body, perform_async_http, tls};
use tracing::debug;

use crate::connect::AsyncIo;

pub use crate::pool::Body;
use crate::pool::Pool;

/// A discovery client for async-std, smol or any executor: the discovery cache in
/// front of [`Http`]. Clones share the cache and the idle connections.
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

/// The same client for blocking code (on `async_io::block_on`).
///
/// Methods: [`AsyncClient`]'s, each run to completion on the calling thread
/// and returning its result instead of a future: `builder`, `discover`,
/// `service_url`, the registry calls, `cache`, `drive`; and `wait`, which
/// runs any [`Call`] of its async client (an observed one, say).
pub type BlockingClient = tfdisco_transport::BlockingClient<Http>;

/// The HTTP side of a [`Client`]: connections, the pool, the timer.
pub struct Http {
    settings: Settings,
    net: AsyncIo,
    pool: Option<Arc<Pool>>,
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
        let tls = TlsConnector::from(tls::client_config(settings.trust_anchors())?);
        let pool = (settings.pool_max_idle_per_origin() > 0).then(|| {
            Arc::new(Pool::new(
                settings.pool_idle_timeout(),
                settings.pool_max_idle_per_origin(),
            ))
        });
        Ok(Http {
            settings,
            net: AsyncIo { tls },
            pool,
        })
    }
}

impl Http {
    /// Tries an idle connection first; if it fails before a response (the
    /// server closed it meanwhile), opens a new one.
    async fn connect_and_send(
        &self,
        request: Request<Bytes>,
    ) -> Result<Response<Body>, TransportError> {
        let route = self.settings.route(request.uri())?;
        let key = Pool::key(&route);
        if let Some(mut conn) = self.pool.as_ref().and_then(|p| p.take(&key)) {
            match conn.send(to_hyper(request.clone(), &route)?).await {
                Ok(response) => return Ok(self.with_body(response, conn, key)),
                Err(error) => {
                    debug!(target: "tfdisco", %error, "idle connection failed; opening a new one");
                }
            }
        }
        let mut conn = connect::connect(&self.settings, &self.net, &route).await?;
        let response = conn.send(to_hyper(request, &route)?).await?;
        Ok(self.with_body(response, conn, key))
    }

    fn with_body(
        &self,
        response: Response<hyper::body::Incoming>,
        conn: pool::Conn,
        key: String,
    ) -> Response<Body> {
        let home = self.pool.clone().map(|pool| (pool, key));
        response.map(|incoming| Body::new(incoming, conn, home))
    }
}

/// The core's request as sent on a connection: origin form (absolute form
/// to a proxy for plain http) and a `Host` header, which hyper's connection
/// API leaves to the caller.
fn to_hyper(
    request: Request<Bytes>,
    route: &Route,
) -> Result<Request<http_body_util::Full<Bytes>>, TransportError> {
    let invalid = |e: &dyn std::fmt::Display| {
        TransportError::new(
            TransportErrorKind::Other,
            format!("cannot send the request: {e}"),
        )
    };
    let mut request = hyper_body::request(request);
    let uri = request.uri().clone();
    let host = uri
        .authority()
        .map(|a| HeaderValue::from_str(a.as_str()))
        .transpose()
        .map_err(|e| invalid(&e))?
        .ok_or_else(|| invalid(&"no host"))?;
    request.headers_mut().insert(HOST, host);
    if route.proxy.is_none() || route.https {
        let origin_form = uri.path_and_query().map_or("/", |p| p.as_str());
        *request.uri_mut() = Uri::try_from(origin_form).map_err(|e| invalid(&e))?;
    }
    Ok(request)
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
        async_io::Timer::at(deadline).await;
    }

    /// Drives async-io's reactor on the calling thread meanwhile.
    fn block_on<F: Future>(&self, future: F) -> Result<F::Output, Error> {
        Ok(async_io::block_on(future))
    }
}

impl AsyncHttp for Http {
    type Body = Body;
    type Chunk = Bytes;

    async fn send(&self, request: Request<Bytes>) -> Result<Response<Body>, TransportError> {
        self.connect_and_send(request).await
    }

    async fn next_chunk(&self, body: &mut Body) -> Option<Result<Bytes, TransportError>> {
        body.next_chunk().await
    }
}
