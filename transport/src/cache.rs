//! The core's discovery cache behind a lock, with request coalescing (D7): one
//! discovery per host at a time, its result shared with every caller that
//! asked meanwhile. Works for threads (a condition variable) and for any
//! async runtime (wakers).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use tfdisco_core::serde_json::Value;
use tfdisco_core::{
    Config, Credentials, CredentialsError, CredentialsSource, Discovery, DiscoveryCache, Error,
    Hostname, Lookup, Services, StartError, Ticket, credentials_for,
};
use tfdisco_oci::OciCredentialsSource;
use tracing::debug;

/// A [`DiscoveryCache`] shared by every clone of a client: cached
/// discoveries, aliases, forced services, and coalescing of concurrent
/// discoveries of one host.
///
/// Clients call [`SharedCache::begin`] for each discovery; users reach it
/// through their client's `cache()` to alias, force and forget.
///
/// An in-flight failure is handed to every caller waiting for it but never
/// cached. If the caller doing the work gives up (its future is dropped),
/// one of the waiting callers starts over.
#[derive(Clone)]
pub struct SharedCache {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    credentials: Arc<dyn CredentialsSource>,
    oci_credentials: Option<Arc<dyn OciCredentialsSource>>,
}

struct State {
    cache: DiscoveryCache,
    /// Discoveries under way, by (requested name, host contacted).
    flights: HashMap<(Hostname, Hostname), Arc<Flight>>,
}

/// One discovery under way, as its waiting callers see it.
#[derive(Default)]
struct Flight {
    state: Mutex<FlightState>,
    done: Condvar,
}

#[derive(Default)]
struct FlightState {
    outcome: Option<Outcome>,
    wakers: Vec<Waker>,
    waiters: usize,
}

#[derive(Clone)]
enum Outcome {
    Finished(Result<Services, Error>),
    /// The caller doing the work gave up; waiters start over.
    Abandoned,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; if something did, the data
    // is still consistent (every update is a single insert or remove).
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Flight {
    fn settle(&self, outcome: Outcome) {
        let wakers = {
            let mut state = lock(&self.state);
            state.outcome = Some(outcome);
            std::mem::take(&mut state.wakers)
        };
        self.done.notify_all();
        wakers.into_iter().for_each(Waker::wake);
    }
}

/// What [`SharedCache::begin`] found.
#[derive(Debug)]
pub enum Begin {
    /// A cached or forced result.
    Ready(Result<Services, Error>),
    /// Nobody is discovering this host: the caller does it.
    Lead(Lead),
    /// Another caller is discovering this host: wait for its result.
    Wait(Wait),
}

/// The duty to discover a host and publish the result. Dropping it without
/// [`Lead::finish`] lets a waiting caller take over.
#[must_use = "a Lead must be finished, or waiting callers start over"]
pub struct Lead {
    cache: SharedCache,
    ticket: Option<Ticket>,
    flight: Arc<Flight>,
}

/// Waiting for another caller's discovery: `.await` it, or call
/// [`Wait::wait`] from a thread. `None` means that caller gave up; start over.
#[must_use = "a Wait does nothing unless awaited or waited on"]
pub struct Wait {
    flight: Arc<Flight>,
}

impl SharedCache {
    /// A cache for `config`, taking credentials from `credentials`.
    pub fn new(config: Config, credentials: Arc<dyn CredentialsSource>) -> SharedCache {
        SharedCache::with_oci_credentials(config, credentials, None)
    }

    /// [`SharedCache::new`], its clients asking OCI registries with
    /// credentials from `oci_credentials` (none: anonymously).
    pub fn with_oci_credentials(
        config: Config,
        credentials: Arc<dyn CredentialsSource>,
        oci_credentials: Option<Arc<dyn OciCredentialsSource>>,
    ) -> SharedCache {
        SharedCache {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    cache: DiscoveryCache::new(config),
                    flights: HashMap::new(),
                }),
                credentials,
                oci_credentials,
            }),
        }
    }

    /// The credentials for the OCI repository at `address`: none without
    /// a source; a failing source fails the request that needs them.
    pub fn oci_credentials(
        &self,
        address: &tfdisco_oci::RepositoryAddress,
    ) -> Result<Option<tfdisco_oci::OciCredentials>, Error> {
        let Some(source) = &self.inner.oci_credentials else {
            return Ok(None);
        };
        source
            .oci_credentials(address.registry(), address.repository())
            .map_err(|e| Error::InvalidArgument {
                message: format!("the credentials for the OCI repository {address}: {e}"),
            })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.inner.state)
    }

    /// The discovery configuration.
    pub fn config(&self) -> Config {
        self.state().cache.config().clone()
    }

    /// `host`'s credentials, for a registry request about one of its
    /// addresses. A failing source means none, as for discovery
    /// ([`credentials_for`]); its failure is returned too.
    pub fn credentials(&self, host: &Hostname) -> (Option<Credentials>, Option<CredentialsError>) {
        credentials_for(&*self.inner.credentials, host)
    }

    /// The cached (or forced) result for `host`, without any I/O.
    pub fn cached(&self, host: &Hostname) -> Option<Services> {
        self.state().cache.cached(host).cloned()
    }

    /// Makes discoveries of `alias` fetch `target`'s document with `target`'s
    /// credentials (one level; the result is cached under `alias`).
    pub fn alias(&self, alias: Hostname, target: Hostname) {
        self.state().cache.alias(alias, target);
    }

    /// Uses `services` for `host` instead of discovering it (a `host` block).
    pub fn force(
        &self,
        host: Hostname,
        services: impl IntoIterator<Item = (String, Value)>,
    ) -> Result<(), Error> {
        self.state().cache.force(host, services)
    }

    /// Uses `services` (made with [`Services::forced`]) for their host
    /// instead of discovering it.
    pub fn force_services(&self, services: Services) {
        self.state().cache.force_services(services);
    }

    /// Removes the cached (or forced) result for `host`.
    pub fn forget(&self, host: &Hostname) {
        self.state().cache.forget(host);
    }

    /// Removes every cached and forced result; aliases stay.
    pub fn forget_all(&self) {
        self.state().cache.forget_all();
    }

    /// Removes an alias and the result cached under it.
    pub fn forget_alias(&self, alias: &Hostname) {
        self.state().cache.forget_alias(alias);
    }

    /// How many callers are waiting for a discovery of `host` that another
    /// caller is performing right now.
    pub fn waiting(&self, host: &Hostname) -> usize {
        self.state()
            .flights
            .iter()
            .filter(|((key, _), _)| key == host)
            .map(|(_, flight)| lock(&flight.state).waiters)
            .sum()
    }

    /// Looks `host` up: a cached result, the duty to discover it, or a
    /// discovery under way to wait for.
    pub fn begin(&self, host: &Hostname) -> Begin {
        let mut state = self.state();
        let ticket = match state.cache.lookup(host) {
            Lookup::Cached(services) => return Begin::Ready(Ok(services)),
            Lookup::Discover(ticket) => ticket,
        };
        let key = (ticket.key().clone(), ticket.target().clone());
        if let Some(flight) = state.flights.get(&key) {
            lock(&flight.state).waiters += 1;
            debug!(target: "tfdisco", host = %host, "waiting for the discovery already under way");
            return Begin::Wait(Wait {
                flight: flight.clone(),
            });
        }
        let flight = Arc::new(Flight::default());
        state.flights.insert(key, flight.clone());
        Begin::Lead(Lead {
            cache: self.clone(),
            ticket: Some(ticket),
            flight,
        })
    }

    /// Removes `flight` from the table if it is still there.
    fn land(&self, state: &mut State, ticket: &Ticket, flight: &Arc<Flight>) {
        let key = (ticket.key().clone(), ticket.target().clone());
        if state
            .flights
            .get(&key)
            .is_some_and(|f| Arc::ptr_eq(f, flight))
        {
            state.flights.remove(&key);
        }
    }
}

impl fmt::Debug for SharedCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("SharedCache")
            .field("cache", &state.cache)
            .field("in_flight", &state.flights.len())
            .finish_non_exhaustive()
    }
}

impl Lead {
    fn ticket(&self) -> &Ticket {
        self.ticket.as_ref().expect("present until finish or drop")
    }

    /// The host whose document (and credentials) this discovery uses.
    pub fn target(&self) -> &Hostname {
        self.ticket().target()
    }

    /// Starts the discovery at `now`, with the target's credentials. A
    /// failing credentials source means none, as in Terraform
    /// ([`credentials_for`]); its failure is returned for the caller to
    /// report. A discovery that cannot start (a host no URL can carry) is
    /// to be finished with its error.
    pub fn start(&self, now: Instant) -> (Result<Discovery, StartError>, Option<CredentialsError>) {
        // The lookup may run a helper program: not under the lock.
        let ticket = self.ticket();
        let (credentials, failure) =
            credentials_for(&*self.cache.inner.credentials, ticket.target());
        let discovery = self.cache.state().cache.start(ticket, credentials, now);
        (discovery, failure)
    }

    /// Records the result (cached on success), hands it to every waiting
    /// caller, and returns it.
    pub fn finish(mut self, result: Result<Services, Error>) -> Result<Services, Error> {
        let ticket = self.ticket.take().expect("finish runs once");
        let result = {
            let mut state = self.cache.state();
            self.cache.land(&mut state, &ticket, &self.flight);
            state.cache.complete(ticket, result)
        };
        self.flight.settle(Outcome::Finished(result.clone()));
        result
    }
}

impl Drop for Lead {
    fn drop(&mut self) {
        if let Some(ticket) = self.ticket.take() {
            debug!(target: "tfdisco", host = %ticket.key(), "discovery abandoned; a waiting caller takes over");
            let mut state = self.cache.state();
            self.cache.land(&mut state, &ticket, &self.flight);
            drop(state);
            self.flight.settle(Outcome::Abandoned);
        }
    }
}

impl fmt::Debug for Lead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lead")
            .field("ticket", &self.ticket)
            .finish()
    }
}

impl Wait {
    /// Blocks until the discovery under way ends. `None`: it was abandoned.
    pub fn wait(self) -> Option<Result<Services, Error>> {
        let mut state = lock(&self.flight.state);
        loop {
            if let Some(outcome) = &state.outcome {
                return finished(outcome);
            }
            state = self
                .flight
                .done
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

fn finished(outcome: &Outcome) -> Option<Result<Services, Error>> {
    match outcome {
        Outcome::Finished(result) => Some(result.clone()),
        Outcome::Abandoned => None,
    }
}

impl Future for Wait {
    type Output = Option<Result<Services, Error>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = lock(&self.flight.state);
        if let Some(outcome) = &state.outcome {
            return Poll::Ready(finished(outcome));
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        let mut state = lock(&self.flight.state);
        state.waiters = state.waiters.saturating_sub(1);
    }
}

impl fmt::Debug for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wait").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;
    use std::thread;
    use tfdisco_core::NoCredentials;

    fn cache() -> SharedCache {
        SharedCache::new(Config::default(), Arc::new(NoCredentials))
    }

    fn host() -> Hostname {
        Hostname::parse("example.com").expect("valid")
    }

    fn failure() -> Error {
        Error::ServiceNotProvided {
            host: "example.com".into(),
            service: "x".into(),
        }
    }

    #[test]
    fn waiting_threads_share_the_result_and_errors_are_not_cached() {
        let cache = cache();
        let Begin::Lead(lead) = cache.begin(&host()) else {
            panic!("first caller leads")
        };
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let Begin::Wait(wait) = cache.begin(&host()) else {
                    panic!("later callers wait")
                };
                thread::spawn(move || wait.wait())
            })
            .collect();
        assert_eq!(cache.waiting(&host()), 4);
        let _ = lead.finish(Err(failure()));
        for waiter in waiters {
            let result = waiter.join().expect("no panic").expect("not abandoned");
            assert!(result.is_err());
        }
        assert_eq!(cache.waiting(&host()), 0);
        assert!(
            matches!(cache.begin(&host()), Begin::Lead(_)),
            "errors are not cached"
        );
    }

    struct CountWakes(AtomicUsize);

    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn an_abandoned_lead_wakes_waiters_who_start_over() {
        let cache = cache();
        let Begin::Lead(lead) = cache.begin(&host()) else {
            panic!("leads")
        };
        let Begin::Wait(mut wait) = cache.begin(&host()) else {
            panic!("waits")
        };
        let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut wait).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut wait).poll(&mut cx).is_pending());
        drop(lead);
        assert_eq!(
            wakes.0.load(Ordering::SeqCst),
            1,
            "one waker, registered once"
        );
        assert!(matches!(
            Pin::new(&mut wait).poll(&mut cx),
            Poll::Ready(None)
        ));
        assert!(
            matches!(cache.begin(&host()), Begin::Lead(_)),
            "the waiter may lead now"
        );
    }

    struct Failing;

    impl CredentialsSource for Failing {
        fn credentials(
            &self,
            _: &Hostname,
        ) -> Result<Option<tfdisco_core::Credentials>, CredentialsError> {
            Err("helper crashed".into())
        }
    }

    #[test]
    fn a_lead_reports_a_failing_source_and_caches_its_success() {
        let cache = SharedCache::new(Config::default(), Arc::new(Failing));
        let Begin::Lead(lead) = cache.begin(&host()) else {
            panic!("first caller leads")
        };
        let (discovery, failure) = lead.start(Instant::now());
        let discovery = discovery.expect("starts");
        assert_eq!(
            failure.map(|e| e.to_string()).as_deref(),
            Some("helper crashed")
        );
        assert!(
            !discovery.sends_credentials(),
            "a failing source means none"
        );
        let services = Services::none(host(), discovery.url().clone(), Default::default());
        assert!(lead.finish(Ok(services)).is_ok());
        assert!(matches!(cache.begin(&host()), Begin::Ready(Ok(_))));
    }
}
