//! The module registry the module benchmark runs against (`get-bench`):
//! registry modules of one namespace, each with three versions (the
//! calls' `~> 1.0` takes 1.1.0), its download answering `204` with the
//! relative `X-Terraform-Get: ./pkg.zip` (resolved against the download
//! URL), the package a stored zip ([`stored_zip`]) of a `main.tf` (which
//! may call another registry module of the same registry) and one file of
//! incompressible bytes, so the archive is as large as asked. Served on a
//! [`TestServer`] under the `modules.v1` path [`MODULES_PATH`], beside a
//! discovery document naming it, for the dot-named host the CLI
//! configuration's `host` block points at the server (module registry
//! hosts need a dot: [`REGISTRY_HOST`]).
//!
//! [`Registry::jobs`] is the work a client must do, request by request,
//! with what each waits for, and [`floor`] the shortest time any client
//! running `jobs` requests at once could do it in over a
//! [`NetworkShape`].

use std::time::Duration;

use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::module_goldens::REGISTRY_HOST;
use tfdisco_testkit::{NetworkShape, Reply, TestServer};

use crate::registry::{incompressible, seed};

/// Where the module registry API answers (`modules.v1`).
pub const MODULES_PATH: &str = "/v1/modules/";
/// The modules' target system.
pub const SYSTEM: &str = "test";
/// The versions every module has; the calls' constraint.
pub const VERSIONS: [&str; 3] = ["1.0.0", "1.1.0", "2.0.0"];
/// What every call asks (1.1.0 of [`VERSIONS`]).
pub const CONSTRAINT: &str = "~> 1.0";
/// The version [`CONSTRAINT`] takes.
pub const CHOSEN: &str = "1.1.0";
/// The download location every module answers, relative.
pub const LOCATION: &str = "./pkg.zip";

/// One registry module: its name, its archive's size, and the registry
/// module its package calls, if any.
#[derive(Clone, Debug)]
pub struct Module {
    /// `m01`.
    pub name: String,
    /// The package's archive, bytes (about the size asked).
    pub archive: Vec<u8>,
    /// The module its `main.tf` calls (`module "lib"`).
    pub calls: Option<String>,
}

/// The modules of one namespace, and the root configuration calling the
/// top ones.
pub struct Registry {
    /// The namespace.
    pub namespace: String,
    /// Every module: the root's calls first, in order, then the ones only
    /// packages call.
    pub modules: Vec<Module>,
    /// The names of the modules the root configuration calls.
    pub top: Vec<String>,
}

/// A `module` block calling registry module `name` of `namespace` on
/// [`REGISTRY_HOST`].
fn call(key: &str, namespace: &str, name: &str) -> String {
    format!(
        "module \"{key}\" {{\n  source  = \"{REGISTRY_HOST}/{namespace}/{name}/{SYSTEM}\"\n  version = \"{CONSTRAINT}\"\n}}\n"
    )
}

impl Registry {
    /// A registry of `top` modules the root calls (name, archive size,
    /// the name of the module its package calls) and the `leaves` only
    /// packages call (name, size).
    pub fn make(
        namespace: &str,
        top: &[(&str, usize, Option<&str>)],
        leaves: &[(&str, usize)],
    ) -> Registry {
        let mut modules = Vec::new();
        let all = top
            .iter()
            .map(|(n, s, c)| (*n, *s, *c))
            .chain(leaves.iter().map(|(n, s)| (*n, *s, None)));
        for (name, size, calls) in all {
            let mut main = format!("# {namespace}/{name} {CHOSEN}\n");
            if let Some(callee) = calls {
                main.push_str(&call("lib", namespace, callee));
            }
            main.push_str(&format!("\noutput \"name\" {{\n  value = \"{name}\"\n}}\n"));
            let readme = format!("# {name}\n\nA module of the tfdisco module benchmark.\n");
            // What the entries other than the blob take, so the archive
            // comes out about `size`.
            let overhead = stored_zip(&[
                ("main.tf", 0o100644, main.as_bytes()),
                ("README.md", 0o100644, readme.as_bytes()),
                ("files/", 0o040755, b""),
                ("files/blob.bin", 0o100644, b""),
            ])
            .len();
            let blob = incompressible(size.saturating_sub(overhead), seed(&[namespace, name]));
            let archive = stored_zip(&[
                ("main.tf", 0o100644, main.as_bytes()),
                ("README.md", 0o100644, readme.as_bytes()),
                ("files/", 0o040755, b""),
                ("files/blob.bin", 0o100644, &blob),
            ]);
            modules.push(Module {
                name: name.to_owned(),
                archive,
                calls: calls.map(str::to_owned),
            });
        }
        Registry {
            namespace: namespace.to_owned(),
            modules,
            top: top.iter().map(|(n, _, _)| (*n).to_owned()).collect(),
        }
    }

    /// The root configuration's `main.tf`: a call of each top module,
    /// keyed by its name.
    pub fn main_tf(&self) -> String {
        self.top
            .iter()
            .map(|name| call(name, &self.namespace, name))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn base(&self, module: &Module) -> String {
        format!("{MODULES_PATH}{}/{}/{SYSTEM}", self.namespace, module.name)
    }

    fn versions_body() -> String {
        let listed: Vec<String> = VERSIONS
            .iter()
            .map(|v| format!("{{\"version\":\"{v}\"}}"))
            .collect();
        format!("{{\"modules\":[{{\"versions\":[{}]}}]}}", listed.join(","))
    }

    /// Routes every module's versions, downloads and archives on
    /// `server` (every version's download points at the same archive).
    pub fn serve(&self, server: &TestServer) {
        for module in &self.modules {
            let base = self.base(module);
            server.route(
                &format!("{base}/versions"),
                Reply::json(&Self::versions_body()),
            );
            for version in VERSIONS {
                server.route(
                    &format!("{base}/{version}/download"),
                    Reply::new(204).header("X-Terraform-Get", LOCATION),
                );
                server.route(
                    &format!("{base}/{version}/pkg.zip"),
                    Reply::new(200)
                        .header("Content-Type", "application/zip")
                        .body(&module.archive),
                );
            }
        }
    }

    /// The archive served at `path`, if it is one of this registry's.
    pub fn archive_at(&self, path: &str) -> Option<&Module> {
        self.modules.iter().find(|m| {
            VERSIONS
                .iter()
                .any(|v| path == format!("{}/{v}/pkg.zip", self.base(m)))
        })
    }

    /// The bytes of every archive.
    pub fn total_bytes(&self) -> u64 {
        self.modules.iter().map(|m| m.archive.len() as u64).sum()
    }

    /// The requests a client must make (with `discovery`, the discovery
    /// document first, which every other waits for), each with the body
    /// bytes of its answer and the one it waits for: per module its
    /// versions, its download (after the versions), its archive (after the
    /// download); a module only a package calls waits for that package's
    /// archive.
    pub fn jobs(&self, discovery: bool) -> Vec<Job> {
        let mut jobs = Vec::new();
        let root = if discovery {
            jobs.push(Job {
                what: "discovery".to_owned(),
                bytes: DISCOVERY.len() as u64,
                after: None,
            });
            Some(0)
        } else {
            None
        };
        let versions_bytes = Self::versions_body().len() as u64;
        // Each module's archive job, by name, filled in as they are
        // pushed: the callers come before the callees.
        let mut archive_job: Vec<(String, usize)> = Vec::new();
        for module in &self.modules {
            let after = if self.top.contains(&module.name) {
                root
            } else {
                let caller = self
                    .modules
                    .iter()
                    .find(|m| m.calls.as_deref() == Some(&module.name))
                    .expect("a module no one calls");
                archive_job
                    .iter()
                    .find(|(n, _)| *n == caller.name)
                    .map(|(_, j)| *j)
            };
            let v = jobs.len();
            jobs.push(Job {
                what: format!("{} versions", module.name),
                bytes: versions_bytes,
                after,
            });
            jobs.push(Job {
                what: format!("{} download", module.name),
                bytes: 0,
                after: Some(v),
            });
            jobs.push(Job {
                what: format!("{} pkg.zip", module.name),
                bytes: module.archive.len() as u64,
                after: Some(v + 1),
            });
            archive_job.push((module.name.clone(), v + 2));
        }
        jobs
    }
}

/// The discovery document (the CLI configuration's `host` block makes
/// asking for it unnecessary, but it is served).
pub const DISCOVERY: &str = r#"{"modules.v1":"/v1/modules/"}"#;

/// Routes the discovery document ([`DISCOVERY`]) and a 404 for every
/// other unknown path.
pub fn serve_discovery(server: &TestServer) {
    server.route(tfdisco_core::DISCOVERY_PATH, Reply::json(DISCOVERY));
    server.route_prefix("/", Reply::new(404).body(b"not found"));
}

/// A CLI configuration pointing [`REGISTRY_HOST`]'s `modules.v1` at
/// `server` (what the module goldens use), checkpoint off.
pub fn cli_config(server: &TestServer) -> String {
    format!(
        "disable_checkpoint = true\nhost \"{REGISTRY_HOST}\" {{\n  services = {{\n    \"modules.v1\" = \"{}\"\n  }}\n}}\n",
        server.url(MODULES_PATH)
    )
}

/// One request of the work ([`Registry::jobs`]).
#[derive(Clone, Debug)]
pub struct Job {
    /// `m01 pkg.zip`.
    pub what: String,
    /// Its answer's body, bytes.
    pub bytes: u64,
    /// The job whose answer it needs first.
    pub after: Option<usize>,
}

/// The network's floor for `jobs` over `shape` with at most `parallel`
/// requests at once: each request takes the latency and its body at the
/// rate (its own connection; TCP and TLS handshakes free).
#[derive(Clone, Debug)]
pub struct Floor {
    /// The longest chain of requests, each waiting for the one before.
    pub critical_path: Duration,
    /// Its requests.
    pub chain: Vec<(String, Duration)>,
    /// All requests' time divided among `parallel` slots.
    pub work_per_slot: Duration,
    /// The larger of the two: no schedule is shorter.
    pub bound: Duration,
    /// The length of one schedule that reaches near it: the ready request
    /// with the longest chain after it first (critical path first).
    pub schedule: Duration,
}

/// The floor of `jobs` (see [`Floor`]); `jobs` comes in an order where
/// every job is after the one it waits for.
pub fn floor(jobs: &[Job], shape: NetworkShape, parallel: usize) -> Floor {
    let cost: Vec<Duration> = jobs
        .iter()
        .map(|j| shape.latency + shape.transfer_time(j.bytes))
        .collect();
    // The chain ending at each job.
    let mut ends = vec![Duration::ZERO; jobs.len()];
    for (i, job) in jobs.iter().enumerate() {
        ends[i] = job.after.map_or(Duration::ZERO, |a| ends[a]) + cost[i];
    }
    let last = (0..jobs.len()).max_by_key(|i| ends[*i]).unwrap_or(0);
    let mut chain = Vec::new();
    let mut at = Some(last);
    while let Some(i) = at {
        chain.push((jobs[i].what.clone(), cost[i]));
        at = jobs[i].after;
    }
    chain.reverse();
    let critical_path = ends.get(last).copied().unwrap_or_default();
    let work: Duration = cost.iter().sum();
    let work_per_slot = work / parallel.max(1) as u32;
    // The chain after each job (its own cost included), for the schedule.
    let mut tail = cost.clone();
    for i in (0..jobs.len()).rev() {
        if let Some(a) = jobs[i].after {
            tail[a] = tail[a].max(cost[a] + tail[i]);
        }
    }
    Floor {
        critical_path,
        chain,
        work_per_slot,
        bound: critical_path.max(work_per_slot),
        schedule: list_schedule(jobs, &cost, &tail, parallel.max(1)),
    }
}

/// The end of a list schedule of `jobs` on `parallel` slots: whenever a
/// slot is free, the ready job with the longest `tail` starts.
fn list_schedule(jobs: &[Job], cost: &[Duration], tail: &[Duration], parallel: usize) -> Duration {
    let mut done_at: Vec<Option<Duration>> = vec![None; jobs.len()];
    let mut started = vec![false; jobs.len()];
    let mut running: Vec<(Duration, usize)> = Vec::new();
    let mut now = Duration::ZERO;
    let mut end = Duration::ZERO;
    loop {
        // Start what can start now.
        while running.len() < parallel {
            let ready = (0..jobs.len())
                .filter(|i| !started[*i])
                .filter(|i| {
                    jobs[*i]
                        .after
                        .is_none_or(|a| done_at[a].is_some_and(|t| t <= now))
                })
                .max_by_key(|i| tail[*i]);
            let Some(i) = ready else { break };
            started[i] = true;
            running.push((now + cost[i], i));
        }
        if running.is_empty() {
            break;
        }
        // Advance to the next end.
        running.sort();
        let (t, i) = running.remove(0);
        now = t;
        done_at[i] = Some(t);
        end = end.max(t);
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> NetworkShape {
        NetworkShape {
            latency: Duration::from_millis(40),
            rate: Some(25_000_000),
        }
    }

    #[test]
    fn archives_are_about_the_size_asked_and_the_floor_follows_the_chain() {
        let registry = Registry::make(
            "t",
            &[("a", 1 << 20, Some("b")), ("c", 1 << 19, None)],
            &[("b", 1 << 18)],
        );
        for (module, size) in registry.modules.iter().zip([1 << 20, 1 << 19, 1 << 18]) {
            let len = module.archive.len();
            assert!(len <= size && len + 16 > size, "{}: {len}", module.name);
        }
        assert!(
            registry
                .main_tf()
                .contains("registry.example.test/t/a/test")
        );
        let jobs = registry.jobs(true);
        assert_eq!(jobs.len(), 1 + 3 * 3);
        let f = floor(&jobs, shape(), 8);
        // discovery, a's three, b's three.
        assert_eq!(f.chain.len(), 7);
        let expect = Duration::from_millis(7 * 40)
            + shape().transfer_time(
                (1 << 20)
                    + (1 << 18)
                    + DISCOVERY.len() as u64
                    + 2 * Registry::versions_body().len() as u64,
            );
        assert!(
            f.critical_path.abs_diff(expect) < Duration::from_millis(1),
            "{f:?}"
        );
        assert!(f.schedule >= f.bound);
        // One slot: everything in a row.
        let one = floor(&jobs, shape(), 1);
        assert!(one.schedule >= one.work_per_slot && one.bound == one.work_per_slot);
    }
}
