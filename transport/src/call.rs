//! One call of a client, made before it runs: awaited as it is, or told of
//! an [`Observer`] first.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use tfdisco_core::Error;

use crate::Observer;

/// A call of an [`AsyncClient`](crate::AsyncClient)
/// (`client.discover(&host)`, `client.provider_versions(&source)`, …),
/// which runs when it is awaited: `client.discover(&host).await` gives the
/// services.
///
/// [`Call::observe`] hands it an [`Observer`] first, which hears what
/// happens as the call runs: each exchange (of the discovery, when one is
/// made, and of the request), and each credentials lookup that failed.
///
/// ```no_run
/// # async fn example<T: tfdisco_transport::Transport>(
/// #     client: &tfdisco_transport::AsyncClient<T>,
/// #     host: &tfdisco_core::Hostname,
/// # ) -> Result<(), tfdisco_core::Error> {
/// use tfdisco_transport::Event;
///
/// let mut urls = Vec::new();
/// let mut observer = |event: &Event<'_>| {
///     if let Event::Exchange(report) = event {
///         urls.push(report.url.clone());
///     }
/// };
/// let services = client.discover(host).observe(&mut observer).await?;
/// println!("{} after {} requests", services.discovery_url(), urls.len());
/// # Ok(())
/// # }
/// ```
///
/// [`BlockingClient::wait`](crate::BlockingClient::wait) runs one on the
/// calling thread instead. The arguments are checked when the call runs,
/// before anything goes out on the network.
#[must_use = "a call does nothing until it is awaited or given to `BlockingClient::wait`"]
pub struct Call<'a, O> {
    start: Start<'a, O>,
    observer: Option<&'a mut dyn Observer>,
}

/// What runs the call, given its observer.
type Start<'a, O> = Box<
    dyn FnOnce(
            Option<&'a mut dyn Observer>,
        ) -> Pin<Box<dyn Future<Output = Result<O, Error>> + Send + 'a>>
        + Send
        + 'a,
>;

impl<'a, O> Call<'a, O> {
    /// The call `start` makes into a future once it knows its observer.
    pub(crate) fn new<F>(start: impl FnOnce(Option<&'a mut dyn Observer>) -> F + Send + 'a) -> Self
    where
        F: Future<Output = Result<O, Error>> + Send + 'a,
    {
        Call {
            start: Box::new(move |observer| Box::pin(start(observer))),
            observer: None,
        }
    }

    /// The same call, telling `observer` what happens as it runs (in place
    /// of any observer given before).
    pub fn observe(mut self, observer: &'a mut dyn Observer) -> Self {
        self.observer = Some(observer);
        self
    }
}

impl<'a, O> IntoFuture for Call<'a, O> {
    type Output = Result<O, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<O, Error>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        (self.start)(self.observer)
    }
}

impl<O> fmt::Debug for Call<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("observed", &self.observer.is_some())
            .finish_non_exhaustive()
    }
}
