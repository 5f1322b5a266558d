//! The one driver loop: a fetch run to its result over any [`Transport`].

use tfdisco_core::{Action, Error, Fetch, Goal, TransportError, TransportErrorKind};

use crate::{Event, Exchange, Observer, Transport};

/// Runs `fetch` to its result over `transport`, telling `observer` about each
/// exchange.
///
/// Each request the fetch asks for is performed by the transport
/// ([`Transport::perform`]); each wait is slept ([`Transport::sleep_until`])
/// and the time reported; the fetch decides everything else. Every reading
/// of the time comes from [`Transport::now`]. A transport that returns while
/// the fetch still wants its response fails the fetch rather than leaving it
/// hanging.
pub async fn drive<T, G>(
    transport: &T,
    fetch: &mut Fetch<G>,
    mut observer: Option<&mut dyn Observer>,
) -> Result<G::Output, Error>
where
    T: Transport + ?Sized,
    G: Goal + Send,
    G::Output: Send,
{
    let clock = || transport.now();
    loop {
        match fetch.poll() {
            // Request bodies (UPLOAD) do not reach the transports yet: a
            // write fails rather than go out without its body.
            Action::Send(_) if fetch.request_body().is_some() => fetch.handle_error(
                TransportError::new(
                    TransportErrorKind::Other,
                    "this version of tfdisco's transports cannot send a request body yet",
                ),
                transport.now(),
            ),
            Action::Send(request) => {
                let mut exchange = Exchange::new(fetch, &clock, observer.is_some());
                transport.perform(request, &mut exchange).await;
                if let (Some(report), Some(observer)) = (exchange.finish(), observer.as_deref_mut())
                {
                    observer.event(&Event::Exchange(&report));
                }
            }
            Action::Wait(until) => {
                transport.sleep_until(until).await;
                fetch.handle_timeout(transport.now());
            }
            Action::Done(result) => return result,
            // Exchanges finish their bodies; nothing else can be waiting for one.
            Action::Receive => fetch.handle_error(
                TransportError::new(TransportErrorKind::Other, "response body abandoned"),
                transport.now(),
            ),
            _ => fetch.handle_error(
                TransportError::new(
                    TransportErrorKind::Other,
                    "the fetch asked for an action this version of tfdisco-transport does not know",
                ),
                transport.now(),
            ),
        }
    }
}
