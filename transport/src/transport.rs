//! What a transport is: a way to perform one exchange and to wait. Async
//! transports implement [`Transport`]; blocking ones implement
//! [`BlockingTransport`] and run as `Blocking<T>`; [`AnyTransport`] picks
//! one at run time.

use std::fmt;
use std::future::Future;
use std::pin::{Pin, pin};
use std::time::Instant;

use tfdisco_core::Error;
use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::Request;

use crate::{BuildError, Exchange, FromSettings, Settings};

/// A way to perform HTTP exchanges for the core: everything a client needs
/// from a transport, and nothing that decides anything.
///
/// [`drive`](crate::drive) runs a transfer over it: each request the transfer asks
/// for is handed to [`Transport::perform`], each wait to
/// [`Transport::sleep_until`]. Transports on hyper implement
/// [`AsyncHttp`](crate::AsyncHttp) and call
/// [`perform_async_http`](crate::perform_async_http) here.
pub trait Transport: Send + Sync + 'static {
    /// Sends `request` and reports the response through `exchange` (see
    /// [`Exchange`]); returns when the exchange no longer wants anything.
    fn perform<'a>(
        &'a self,
        request: Request<Bytes>,
        exchange: &'a mut Exchange<'_>,
    ) -> impl Future<Output = ()> + Send + 'a;

    /// Completes at `deadline` or a little after, never much before, on
    /// the clock of [`Transport::now`].
    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> + Send;

    /// The time now on the transport's clock: every reading the transfer gets
    /// (each `now` of its inputs) comes from here, so its timers and
    /// [`Transport::sleep_until`] agree. The default is the system's
    /// monotonic clock; tokio's transport reads tokio's, which tests can
    /// pause and advance.
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// Runs `future`, which uses this transport, to completion on the
    /// calling thread: what [`BlockingClient`](crate::BlockingClient) calls.
    /// The default polls it on the calling thread, parking it between
    /// wake-ups, which suits transports that need no runtime of their own.
    ///
    /// A transport that cannot block here (tokio's, inside a tokio runtime,
    /// where blocking would panic) returns an
    /// [`Error::InvalidArgument`] that says what to do instead.
    fn block_on<F: Future>(&self, future: F) -> Result<F::Output, Error> {
        Ok(futures_lite::future::block_on(future))
    }
}

/// A transport whose I/O blocks the calling thread, such as libcurl's easy
/// interface. It reports through the [`Exchange`] as it goes (libcurl's
/// callbacks), arming its own timer for [`Exchange::deadline`] and
/// reporting [`TransportErrorKind::Timeout`](tfdisco_core::TransportErrorKind::Timeout)
/// when it fires.
///
/// [`Blocking`] makes it a [`Transport`] for a
/// [`BlockingClient`](crate::BlockingClient).
pub trait BlockingTransport: Send + Sync + 'static {
    /// Sends `request` and reports the response through `exchange`.
    fn perform(&self, request: Request<Bytes>, exchange: &mut Exchange<'_>);
}

/// A [`BlockingTransport`] as a [`Transport`] whose futures block the thread
/// that polls them: use it through a
/// [`BlockingClient`](crate::BlockingClient), not inside an async runtime.
#[derive(Debug)]
pub struct Blocking<T>(pub T);

impl<T: FromSettings> FromSettings for Blocking<T> {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        T::from_settings(settings).map(Blocking)
    }
}

impl<T: BlockingTransport> Transport for Blocking<T> {
    async fn perform<'a>(&'a self, request: Request<Bytes>, exchange: &'a mut Exchange<'_>) {
        self.0.perform(request, exchange);
    }

    async fn sleep_until(&self, deadline: Instant) {
        std::thread::sleep(deadline.saturating_duration_since(Transport::now(self)));
    }
}

/// Any [`Transport`], chosen at run time (`tfdisco --transport curl`, say):
/// one client type for all of them.
///
/// ```no_run
/// use tfdisco_transport::{AnyTransport, BlockingClient, ClientBuilder, FromSettings, Settings};
///
/// # struct MyHttp;
/// # impl tfdisco_transport::FromSettings for MyHttp {
/// #     fn from_settings(_: Settings) -> Result<Self, tfdisco_transport::BuildError> { Ok(MyHttp) }
/// # }
/// # impl tfdisco_transport::Transport for MyHttp {
/// #     async fn perform<'a>(&'a self, _: tfdisco_core::http::Request<tfdisco_core::bytes::Bytes>, _: &'a mut tfdisco_transport::Exchange<'_>) {}
/// #     async fn sleep_until(&self, _: std::time::Instant) {}
/// # }
/// let settings: Settings = ClientBuilder::new().build()?;
/// let transport = AnyTransport::new(MyHttp::from_settings(settings.clone())?);
/// let client = BlockingClient::new(settings.new_cache(), transport);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AnyTransport(Box<dyn Erased>);

impl AnyTransport {
    /// Wraps `transport`.
    pub fn new<T: Transport>(transport: T) -> AnyTransport {
        AnyTransport(Box::new(transport))
    }
}

impl fmt::Debug for AnyTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AnyTransport")
    }
}

type BoxFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// [`Transport`] with boxed futures, which makes it object-safe.
trait Erased: Send + Sync {
    fn perform<'a>(
        &'a self,
        request: Request<Bytes>,
        exchange: &'a mut Exchange<'_>,
    ) -> BoxFuture<'a>;
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'_>;
    fn now(&self) -> Instant;
    fn block_on(&self, future: Pin<&mut dyn Future<Output = ()>>) -> Result<(), Error>;
}

impl<T: Transport> Erased for T {
    fn perform<'a>(
        &'a self,
        request: Request<Bytes>,
        exchange: &'a mut Exchange<'_>,
    ) -> BoxFuture<'a> {
        Box::pin(Transport::perform(self, request, exchange))
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'_> {
        Box::pin(Transport::sleep_until(self, deadline))
    }

    fn now(&self) -> Instant {
        Transport::now(self)
    }

    fn block_on(&self, future: Pin<&mut dyn Future<Output = ()>>) -> Result<(), Error> {
        Transport::block_on(self, future)
    }
}

impl Transport for AnyTransport {
    fn perform<'a>(
        &'a self,
        request: Request<Bytes>,
        exchange: &'a mut Exchange<'_>,
    ) -> impl Future<Output = ()> + Send + 'a {
        self.0.perform(request, exchange)
    }

    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> + Send {
        self.0.sleep_until(deadline)
    }

    fn now(&self) -> Instant {
        self.0.now()
    }

    fn block_on<F: Future>(&self, future: F) -> Result<F::Output, Error> {
        let mut output = None;
        {
            let future = pin!(async {
                output = Some(future.await);
            });
            self.0.block_on(future)?;
        }
        Ok(output.expect("block_on runs the future to completion"))
    }
}
