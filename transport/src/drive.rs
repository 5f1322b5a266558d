//! The one driver loop: a transfer run to its result over any [`Transport`].

use tfdisco_core::{Action, Error, Goal, Transfer, TransportError, TransportErrorKind};

use crate::{Event, Exchange, Observer, Transport};

/// Runs `transfer` to its result over `transport`, telling `observer` about each
/// exchange.
///
/// Each request the transfer asks for is performed by the transport
/// ([`Transport::perform`]); each wait is slept ([`Transport::sleep_until`])
/// and the time reported; the transfer decides everything else. Every reading
/// of the time comes from [`Transport::now`]. A transport that returns while
/// the transfer still wants its response fails the transfer rather than leaving it
/// hanging.
pub async fn drive<T, G>(
    transport: &T,
    transfer: &mut Transfer<G>,
    mut observer: Option<&mut dyn Observer>,
) -> Result<G::Output, Error>
where
    T: Transport + ?Sized,
    G: Goal + Send,
    G::Output: Send,
{
    let clock = || transport.now();
    loop {
        match transfer.poll() {
            Action::Send(request) => {
                // The body of a write (UPLOAD); empty for every GET.
                let body = transfer
                    .request_body()
                    .map(|b| b.bytes.clone())
                    .unwrap_or_default();
                let request = request.map(|()| body);
                let mut exchange = Exchange::new(transfer, &clock, observer.is_some());
                transport.perform(request, &mut exchange).await;
                if let (Some(report), Some(observer)) = (exchange.finish(), observer.as_deref_mut())
                {
                    observer.event(&Event::Exchange(&report));
                }
            }
            Action::Wait(until) => {
                transport.sleep_until(until).await;
                transfer.handle_timeout(transport.now());
            }
            Action::Done(result) => return result,
            // Exchanges finish their bodies; nothing else can be waiting for one.
            Action::Receive => transfer.handle_error(
                TransportError::new(TransportErrorKind::Other, "response body abandoned"),
                transport.now(),
            ),
            _ => transfer.handle_error(
                TransportError::new(
                    TransportErrorKind::Other,
                    "the transfer asked for an action this version of tfdisco-transport does not know",
                ),
                transport.now(),
            ),
        }
    }
}
