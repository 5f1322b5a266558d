//! Performing an exchange over an async HTTP client that hands out a
//! response whose body is then read chunk by chunk (hyper's model), written
//! once for the tokio and async-std transports.

use std::future::Future;

use tfdisco_core::TransportError;
use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::{Request, Response};

use crate::{Exchange, Transport};

/// An async HTTP client of the pull kind: send a request, get the head with
/// an unread body, read the body chunk by chunk. It makes no decisions: no
/// redirects, no status, content type or size checks.
pub trait AsyncHttp: Transport {
    /// A response body being read.
    type Body: Send;
    /// One chunk of a body.
    type Chunk: AsRef<[u8]> + Send;

    /// Performs `request` and returns the response head with its unread body.
    fn send(
        &self,
        request: Request<Bytes>,
    ) -> impl Future<Output = Result<Response<Self::Body>, TransportError>> + Send;

    /// The next body chunk; `None` at the end of the body.
    fn next_chunk<'a>(
        &'a self,
        body: &'a mut Self::Body,
    ) -> impl Future<Output = Option<Result<Self::Chunk, TransportError>>> + Send + 'a;
}

/// [`Transport::perform`] for an [`AsyncHttp`] client: sends, reports the
/// head, reads chunks while the transfer wants them, each step raced against the
/// transfer's timers. A body the transfer stops wanting is dropped unread.
pub async fn perform_async_http<H: AsyncHttp>(
    http: &H,
    request: Request<Bytes>,
    exchange: &mut Exchange<'_>,
) {
    let response = match exchange.race(http, http.send(request)).await {
        None => return,
        Some(Err(error)) => return exchange.fail(error),
        Some(Ok(response)) => response,
    };
    let (head, mut body) = response.into_parts();
    if !exchange.head(head.status, &head.headers) {
        return;
    }
    loop {
        match exchange.race(http, http.next_chunk(&mut body)).await {
            None => return,
            Some(None) => return exchange.end(),
            Some(Some(Err(error))) => return exchange.fail(error),
            Some(Some(Ok(chunk))) => {
                if !exchange.body(chunk.as_ref()) {
                    return;
                }
            }
        }
    }
}
