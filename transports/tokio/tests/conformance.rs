//! The shared conformance suite, on tokio: each scenario's blocking client
//! runs the async client on the transport's own runtime; the scenarios
//! that wait between attempts run on a runtime whose clock is paused.

use std::future::Future;
use std::time::Instant;

use tfdisco_tokio::tfdisco_core::bytes::Bytes;
use tfdisco_tokio::tfdisco_core::http::Request;
use tfdisco_tokio::{BuildError, Error, Exchange, FromSettings, Http, Settings, Transport};
use tokio::runtime::{Builder, Runtime};

/// [`Http`] on a current-thread runtime whose clock starts paused
/// (`tokio::time::pause`): a wait with nothing in flight (before a retry)
/// takes no real time, as tokio moves the clock on to the next timer.
///
/// An exchange waits for real sockets, which tokio's paused clock cannot
/// tell from idleness: while one is in flight a blocking task holds the
/// clock still (tokio's way of waiting for I/O on a paused clock), so the
/// transfer's deadline cannot fire early. A server that stalls would then stall
/// the test: the stall scenarios run on [`Http`] and real time.
struct Paused {
    runtime: Runtime,
    http: Http,
}

impl FromSettings for Paused {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        let runtime = Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .map_err(|e| BuildError::Transport(Box::new(e)))?;
        // Built inside the runtime: its connections and timers are that
        // runtime's.
        let http = {
            let _entered = runtime.enter();
            Http::from_settings(settings)?
        };
        Ok(Paused { runtime, http })
    }
}

impl Transport for Paused {
    async fn perform<'a>(&'a self, request: Request<Bytes>, exchange: &'a mut Exchange<'_>) {
        let (done, until_done) = std::sync::mpsc::channel::<()>();
        let hold = tokio::task::spawn_blocking(move || until_done.recv());
        self.http.perform(request, exchange).await;
        drop(done);
        let _ = hold.await;
    }

    fn sleep_until(&self, deadline: Instant) -> impl Future<Output = ()> + Send {
        self.http.sleep_until(deadline)
    }

    fn now(&self) -> Instant {
        self.http.now()
    }

    fn block_on<F: Future>(&self, future: F) -> Result<F::Output, Error> {
        Ok(self.runtime.block_on(future))
    }
}

tfdisco_testkit::conformance_suite!(Tokio, "tokio", Http, waiting: Paused);

/// The paused runtime really is paused: a retry's wait moves the client's
/// clock by the wait, and takes (almost) no real time.
#[test]
fn waits_take_no_real_time_on_the_paused_clock() {
    use std::time::Duration;
    use tfdisco_testkit::suite::{build_waiting, record, waiting_builder};
    use tfdisco_testkit::{Reply, TestServer};
    use tfdisco_tokio::Dialect;

    let server = TestServer::start();
    server.route_each(
        tfdisco_tokio::tfdisco_core::DISCOVERY_PATH,
        [
            Reply::new(429).header("Retry-After", "30"),
            Reply::json("{}"),
        ],
    );
    let client = build_waiting::<Tokio>(
        waiting_builder::<Tokio>()
            .dialect(Dialect::Terraform)
            .timeout(Duration::from_secs(60)),
    );
    let started = Instant::now();
    let mut reports = Vec::new();
    let host = server.host();
    client
        .wait(
            client
                .as_async()
                .discover(&host)
                .observe(&mut record(&mut reports)),
        )
        .expect("discovered after the wait");
    let waited = reports[1]
        .started
        .saturating_duration_since(reports[0].started);
    assert!(
        waited >= Duration::from_secs(30),
        "{waited:?} on the client's clock"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?} of real time",
        started.elapsed()
    );
}
