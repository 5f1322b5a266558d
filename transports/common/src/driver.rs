//! The driver loop of async transports, written once: poll the core, send,
//! hand over the head and the body chunks, race everything against the
//! core's deadline.

use std::future::{Future, poll_fn};
use std::ops::ControlFlow;
use std::pin::pin;
use std::task::Poll;
use std::time::Instant;

use tfdisco_core::http::{Request, Response};
use tfdisco_core::{Action, Discovery, Error, Services, TransportError, TransportErrorKind};

use crate::{Observer, Recorder};

/// What an async transport provides to [`drive`]: performing one request,
/// reading a body chunk by chunk, and a timer. It makes no decisions: no
/// redirects, no status, content type or size checks.
pub trait AsyncTransport: Sync {
    /// A response body being read.
    type Body: Send;
    /// One chunk of a body.
    type Chunk: AsRef<[u8]> + Send;

    /// Performs `request` and returns the response head with its unread body.
    fn send(
        &self,
        request: Request<()>,
    ) -> impl Future<Output = Result<Response<Self::Body>, TransportError>> + Send;

    /// The next body chunk; `None` at the end of the body.
    fn next_chunk<'a>(
        &'a self,
        body: &'a mut Self::Body,
    ) -> impl Future<Output = Option<Result<Self::Chunk, TransportError>>> + Send + 'a;

    /// Completes at `deadline` (never before).
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> + Send;
}

/// Drives `discovery` to its result over `transport`, telling `observer`
/// about each exchange.
///
/// A body is dropped, unread, as soon as the core stops asking for it (a
/// redirect, a status that needs no body, the size limit passed). When the
/// core's deadline passes, whatever is under way is dropped and the
/// discovery fails with [`Error::Timeout`].
pub async fn drive<T: AsyncTransport>(
    transport: &T,
    discovery: &mut Discovery,
    mut observer: Option<&mut dyn Observer>,
) -> Result<Services, Error> {
    loop {
        let request = match next_request(discovery) {
            ControlFlow::Continue(request) => request,
            ControlFlow::Break(result) => return result,
        };
        let mut record = Recorder::start(discovery, observer.is_some(), Instant::now());
        match before(transport, discovery.poll_timeout(), transport.send(request)).await {
            Err(deadline) => discovery.handle_timeout(deadline),
            Ok(Err(error)) => {
                record.error(&error);
                discovery.handle_error(error);
            }
            Ok(Ok(response)) => {
                let (head, mut body) = response.into_parts();
                let now = Instant::now();
                record.head(head.status, &head.headers, now);
                discovery.handle_head(head.status, &head.headers, now);
                while let Action::Receive = discovery.poll() {
                    let next = transport.next_chunk(&mut body);
                    match before(transport, discovery.poll_timeout(), next).await {
                        Err(deadline) => discovery.handle_timeout(deadline),
                        Ok(None) => discovery.handle_end(Instant::now()),
                        Ok(Some(Ok(chunk))) => {
                            record.body(chunk.as_ref().len());
                            discovery.handle_body(chunk.as_ref());
                        }
                        Ok(Some(Err(error))) => {
                            record.error(&error);
                            discovery.handle_error(error);
                        }
                    }
                }
            }
        }
        record.finish(observer.as_deref_mut(), Instant::now());
    }
}

/// The blocking driver loop: `exchange` performs one request (reporting
/// head, body and failures to the discovery and the recorder) until the
/// discovery is done. For transports whose I/O pushes data at them, such as
/// libcurl's callbacks.
pub fn drive_blocking<F>(
    discovery: &mut Discovery,
    mut observer: Option<&mut dyn Observer>,
    mut exchange: F,
) -> Result<Services, Error>
where
    F: FnMut(&mut Discovery, Request<()>, &mut Recorder),
{
    loop {
        let request = match next_request(discovery) {
            ControlFlow::Continue(request) => request,
            ControlFlow::Break(result) => return result,
        };
        let mut record = Recorder::start(discovery, observer.is_some(), Instant::now());
        exchange(discovery, request, &mut record);
        record.finish(observer.as_deref_mut(), Instant::now());
    }
}

/// The next request to perform, or the result. Drivers finish (or drop)
/// every body within an exchange, so a discovery still waiting for one here
/// is failed rather than left hanging.
fn next_request(discovery: &mut Discovery) -> ControlFlow<Result<Services, Error>, Request<()>> {
    loop {
        match discovery.poll() {
            Action::Send(request) => return ControlFlow::Continue(request),
            Action::Receive => discovery.handle_error(TransportError::new(
                TransportErrorKind::Other,
                "response body abandoned",
            )),
            Action::Done(result) => return ControlFlow::Break(result),
        }
    }
}

/// Runs `future` unless `deadline` comes first; then returns the instant to
/// report to [`Discovery::handle_timeout`] (never before the deadline).
async fn before<T: AsyncTransport, F: Future>(
    transport: &T,
    deadline: Option<Instant>,
    future: F,
) -> Result<F::Output, Instant> {
    let Some(deadline) = deadline else {
        return Ok(future.await);
    };
    let mut future = pin!(future);
    let mut timer = pin!(transport.sleep_until(deadline));
    poll_fn(|cx| {
        if let Poll::Ready(output) = future.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Instant::now().max(deadline))),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}
