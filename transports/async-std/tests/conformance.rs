//! The shared conformance suite, under async-std's executor: the same
//! transport, its blocking calls run by `async_std::task::block_on`.

use std::future::Future;
use std::time::Instant;

use tfdisco_async_std::tfdisco_core::bytes::Bytes;
use tfdisco_async_std::tfdisco_core::http::Request;
use tfdisco_async_std::{BuildError, Error, Exchange, FromSettings, Settings, Transport};

/// [`tfdisco_async_std::Http`], blocking on async-std's executor.
struct OnAsyncStd(tfdisco_async_std::Http);

impl FromSettings for OnAsyncStd {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        tfdisco_async_std::Http::from_settings(settings).map(OnAsyncStd)
    }
}

impl Transport for OnAsyncStd {
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
        Ok(async_std::task::block_on(future))
    }
}

tfdisco_testkit::conformance_suite!(AsyncStd, "async-std", OnAsyncStd);
