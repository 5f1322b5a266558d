//! The load test: many concurrent discoveries of many loopback HTTPS
//! hosts in one process, for each client, checking that every discovery
//! succeeds and that each host gets exactly one request (D7: concurrent
//! discoveries of a host share one request).
//!
//! Used by the `load` binary (wall time and memory, one client per process)
//! and by `tests/load.rs` (a scaled-down run).

use std::sync::Barrier;
use std::time::{Duration, Instant};

use tfdisco_core::url::Url;
use tfdisco_core::{DISCOVERY_PATH, Env, Error, Hostname};
use tfdisco_testkit::{Reply, TestServer, pki};
use tfdisco_transport::{AsyncClient, BlockingClient, ClientBuilder, FromSettings, Transport};

/// The clients under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    /// `tfdisco_tokio::Client`: tasks on a multi-thread tokio runtime.
    Tokio,
    /// `tfdisco_async_std::Client`: tasks on async-std's executor.
    AsyncStd,
    /// `tfdisco_curl::Client`: one thread per caller.
    Curl,
    /// `tfdisco_tokio::BlockingClient`: one thread per caller.
    TokioBlocking,
}

impl ClientKind {
    /// Every client, in the order the table lists them.
    pub const ALL: [ClientKind; 4] = [
        ClientKind::Tokio,
        ClientKind::AsyncStd,
        ClientKind::Curl,
        ClientKind::TokioBlocking,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Tokio => "tokio",
            ClientKind::AsyncStd => "async-std",
            ClientKind::Curl => "curl",
            ClientKind::TokioBlocking => "tokio-blocking",
        }
    }

    /// How its callers run.
    pub fn callers(self) -> &'static str {
        match self {
            ClientKind::Tokio => "tokio tasks, multi-thread runtime (a worker per core)",
            ClientKind::AsyncStd => "async-std tasks (global executor, a thread per core)",
            ClientKind::Curl | ClientKind::TokioBlocking => "one OS thread per caller",
        }
    }

    /// The client named `name`.
    pub fn parse(name: &str) -> Option<ClientKind> {
        ClientKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// `hosts` loopback HTTPS servers, each a distinct host (`localhost:PORT`)
/// answering a discovery document that names it.
pub struct Hosts {
    servers: Vec<TestServer>,
    names: Vec<Hostname>,
}

impl Hosts {
    /// Starts `n` servers.
    pub fn start(n: usize) -> Hosts {
        let servers: Vec<TestServer> = (0..n)
            .map(|i| {
                let server = TestServer::start();
                server.route(
                    DISCOVERY_PATH,
                    Reply::json(&format!(r#"{{"modules.v1": "/m{i}/"}}"#)),
                );
                server
            })
            .collect();
        let names = servers.iter().map(TestServer::host).collect();
        Hosts { servers, names }
    }

    /// How many hosts.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True without hosts.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Checks that each host received exactly `expected` requests since the
    /// last check, and forgets them.
    pub fn check_requests(&self, expected: usize) -> Result<(), String> {
        let wrong: Vec<String> = self
            .servers
            .iter()
            .zip(&self.names)
            .filter_map(|(server, name)| {
                let n = server.take_requests().len();
                (n != expected).then(|| format!("{name}: {n}"))
            })
            .collect();
        if wrong.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{} of {} hosts did not get exactly {expected} request(s): {}",
            wrong.len(),
            self.len(),
            wrong.join(", ")
        ))
    }
}

/// A client trusting the test CA alone, blind to the machine's environment.
fn client<C: FromSettings>() -> C {
    ClientBuilder::<C>::new()
        .system_roots(false)
        .add_root_certificate_pem(pki().ca_pem())
        .environment(Env::empty())
        .build()
        .expect("a client")
}

/// Caller `c` discovers host `c % hosts`; its answer must name that host.
fn check(host: usize, result: Result<Url, Error>) -> Result<(), String> {
    let url = result.map_err(|e| format!("host {host}: {e}"))?;
    if url.path() == format!("/m{host}/") {
        Ok(())
    } else {
        Err(format!("host {host}: wrong document: {url}"))
    }
}

async fn discover<T: Transport>(
    client: AsyncClient<T>,
    host: Hostname,
    i: usize,
) -> Result<(), String> {
    check(i, client.service_url(&host, "modules.v1").await)
}

/// Runs rounds of `callers` concurrent discoveries over `hosts` with one
/// client kind, owning the runtime that kind needs.
pub struct Load {
    kind: ClientKind,
    hosts: Hosts,
    callers: usize,
    tokio: Option<tokio::runtime::Runtime>,
}

impl Load {
    /// A load of `callers` (at least one per host) on `hosts`.
    pub fn new(kind: ClientKind, hosts: Hosts, callers: usize) -> Load {
        assert!(
            callers >= hosts.len() && !hosts.is_empty(),
            "every host needs a caller"
        );
        let tokio = (kind == ClientKind::Tokio).then(|| {
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime")
        });
        Load {
            kind,
            hosts,
            callers,
            tokio,
        }
    }

    /// One round with a fresh client (cold cache), then with `warm` a
    /// second with the same client (every host cached): the wall time of
    /// each. Fails if a discovery failed or returned the wrong document,
    /// or if a host did not get exactly one request (none when warm).
    pub fn round(&self, warm: bool) -> Result<(Duration, Option<Duration>), String> {
        let passes = if warm { 2 } else { 1 };
        let times = match self.kind {
            ClientKind::Tokio => self.tokio_tasks(passes)?,
            ClientKind::AsyncStd => self.async_std_tasks(passes)?,
            ClientKind::Curl => self.threads(&client::<tfdisco_curl::Client>(), passes)?,
            ClientKind::TokioBlocking => {
                self.threads(&client::<tfdisco_tokio::BlockingClient>(), passes)?
            }
        };
        Ok((times[0], times.get(1).copied()))
    }

    /// After pass `pass` (0: cold) of one client: every caller's outcome and
    /// the requests each host got.
    fn settle(&self, pass: usize, outcomes: Vec<Result<(), String>>) -> Result<(), String> {
        let failed: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
        if let Some(first) = failed.first() {
            return Err(format!(
                "{} of {} discoveries failed; first: {first}",
                failed.len(),
                self.callers
            ));
        }
        self.hosts
            .check_requests(usize::from(pass == 0))
            .map_err(|e| format!("{} round: {e}", if pass == 0 { "cold" } else { "warm" }))
    }

    fn jobs(&self) -> impl Iterator<Item = (usize, Hostname)> + '_ {
        let n = self.hosts.len();
        (0..self.callers).map(move |c| (c % n, self.hosts.names[c % n].clone()))
    }

    fn tokio_tasks(&self, passes: usize) -> Result<Vec<Duration>, String> {
        let runtime = self.tokio.as_ref().expect("a tokio runtime");
        runtime.block_on(async {
            let client: tfdisco_tokio::Client = client();
            let mut times = Vec::new();
            for pass in 0..passes {
                let start = Instant::now();
                let mut tasks = tokio::task::JoinSet::new();
                for (i, host) in self.jobs() {
                    tasks.spawn(discover(client.clone(), host, i));
                }
                let outcomes = tasks.join_all().await;
                times.push(start.elapsed());
                self.settle(pass, outcomes)?;
            }
            Ok(times)
        })
    }

    fn async_std_tasks(&self, passes: usize) -> Result<Vec<Duration>, String> {
        async_std::task::block_on(async {
            let client: tfdisco_async_std::Client = client();
            let mut times = Vec::new();
            for pass in 0..passes {
                let start = Instant::now();
                let tasks: Vec<_> = self
                    .jobs()
                    .map(|(i, host)| async_std::task::spawn(discover(client.clone(), host, i)))
                    .collect();
                let mut outcomes = Vec::with_capacity(tasks.len());
                for task in tasks {
                    outcomes.push(task.await);
                }
                times.push(start.elapsed());
                self.settle(pass, outcomes)?;
            }
            Ok(times)
        })
    }

    /// One OS thread per caller, released together by a barrier; the time
    /// runs from the release to the last thread's end (thread creation is
    /// not timed).
    fn threads<T>(&self, client: &BlockingClient<T>, passes: usize) -> Result<Vec<Duration>, String>
    where
        T: Transport + Send + Sync,
    {
        let mut times = Vec::new();
        for pass in 0..passes {
            let barrier = Barrier::new(self.callers + 1);
            let (elapsed, outcomes) = std::thread::scope(|scope| {
                let threads: Vec<_> = self
                    .jobs()
                    .map(|(i, host)| {
                        let (client, barrier) = (client.clone(), &barrier);
                        std::thread::Builder::new()
                            .spawn_scoped(scope, move || {
                                barrier.wait();
                                check(i, client.service_url(&host, "modules.v1"))
                            })
                            .expect("a thread")
                    })
                    .collect();
                barrier.wait();
                let start = Instant::now();
                let outcomes: Vec<_> = threads
                    .into_iter()
                    .map(|t| t.join().unwrap_or_else(|_| Err("a caller panicked".into())))
                    .collect();
                (start.elapsed(), outcomes)
            });
            times.push(elapsed);
            self.settle(pass, outcomes)?;
        }
        Ok(times)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_request_to_a_host_is_caught() {
        // Two clients share no cache: host 0 gets two requests, host 1 none.
        let hosts = Hosts::start(2);
        for _ in 0..2 {
            let client: tfdisco_curl::Client = client();
            check(0, client.service_url(&hosts.names[0], "modules.v1")).expect("discovered");
        }
        let error = hosts.check_requests(1).expect_err("two requests, and none");
        assert!(error.contains("2 of 2 hosts"), "{error}");
        assert!(error.contains(&format!("{}: 2", hosts.names[0])), "{error}");
        assert!(error.contains(&format!("{}: 0", hosts.names[1])), "{error}");
        // The record was taken: nothing since.
        hosts.check_requests(0).expect("no request since");
    }
}
