//! The OCI benchmark: `tfdisco` pulling providers from an OCI
//! registry, as OpenTofu's `oci_mirror` and `providers lock -oci-mirror`
//! use one, as whole processes in alternating runs against a real
//! registry (Debian's `docker-registry`, CNCF distribution 2.8, started on
//! loopback with TLS by [`OciRegistry`]).
//!
//! ```text
//! sh benches/oci.sh [RUNS]          # builds everything, then runs this
//! oci-bench --tfdisco PATH --timed PATH [--runs N] [--only pull|lock|push] [--work DIR]
//! ```
//!
//! - **pull**: one provider for this platform, its package a real zip of
//!   100 MiB (and, for the memory comparison, one of 1 MiB) made by
//!   [`registry::zip_of_size`], pushed to a registry that asks for Basic
//!   credentials, as OpenTofu lays a provider out (an index, a manifest,
//!   the zip as its one layer). Timed, rotating: `tfdisco lock
//!   --oci-mirror TEMPLATE` for that provider and platform (tags, index,
//!   manifest, the blob downloaded, its digest checked, hashed for `h1:`),
//!   and `tfdisco install` from an `oci_mirror` installation method into a
//!   fresh folder (the same, and unpacked), each size. Checks: every lock
//!   file holds one `h1:` and the `zh:` of the zip pushed, and is the same
//!   every run and for both commands (apart from the header line); the
//!   installed executable is the zip's content (SHA-256) and executable;
//!   with the 100 MiB package tfdisco's peak RSS is not a quarter of the
//!   package above its peak with 1 MiB (the reasoning of the install
//!   benchmark: memory that grew with the package would cost about a
//!   package).
//! - **lock**: the install benchmark's lock setup (`bench/alpha` 1.2.0 and
//!   `bench/beta` 2.3.1, three platforms, signed, 16 MiB zips,
//!   [`Registry`]) served by the loopback [`TestServer`] *unshaped* and the
//!   same zips pushed to two registries (one asking for Basic credentials,
//!   one anonymous). Timed, rotating: `tfdisco lock --dialect opentofu`
//!   from the registry, and with
//!   `--oci-mirror` from each registry. Checks: every lock file is the same
//!   apart from its header line; a mirror run asks the registry nothing.
//! - **push**: the same two zips published with `tfdisco oci push-provider
//!   REPOSITORY 1.0.0 ZIP --json` to the Basic registry, rotating: into a
//!   fresh repository (the config and the zip sent: `HEAD`, `POST`,
//!   `PATCH` in 8 MiB chunks read from the file as they go, `PUT`), then
//!   again into the same one (nothing sent). Checks: the report says 2
//!   blobs sent, then 0; the zip digest it gives is the file's SHA-256;
//!   with the 100 MiB zip tfdisco's peak RSS is not a quarter of the
//!   package above its peak with 1 MiB (the zip is never held whole).
//!
//! Each run is timed by `benches/c/timed.c` (wall time around
//! fork/exec/`wait4`, its peak RSS and CPU time). The requests: the
//! `TestServer`'s log, and `docker-registry`'s access log
//! ([`registry_log`]); the servers' CPU from `/proc` (10 ms ticks).
//! Prints medians and interquartile ranges, MB/s (10^6 bytes a second),
//! ratios and request counts, writes them to `report.md` in the work
//! folder, and exits with status 1 when a check fails (panicking, with the
//! command's output, when a run fails).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tfdisco_benches::process_runs::{
    Report, Runner, Timed, clock_ticks, first_line, fresh_run, loadavg, median, process_cpu,
    quartiles, secs, summary, tfdisco_version,
};
use tfdisco_benches::registry::{self, Registry, Signer};
use tfdisco_benches::registry_log;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry, sha256_digest};
use tfdisco_testkit::{TestServer, pki};

/// The pulled package's size.
const BIG: usize = 100 << 20;
/// The small package the peak RSS is compared with.
const SMALL: usize = 1 << 20;
/// The install benchmark's package size, for the lock comparison.
const LOCK_PACKAGE: usize = 16 << 20;
/// The install benchmark's lock providers.
const LOCK_PROVIDERS: [(&str, &str); 2] = [("alpha", "1.2.0"), ("beta", "2.3.1")];
/// The pulled providers' hostname: never asked, the `oci_mirror` method
/// and `--oci-mirror` take every provider from the registry.
const PULL_HOST: &str = "registry.example.test";
const PULL_NAMESPACE: &str = "pull";
const PULL_VERSION: &str = "1.0.0";
const USERNAME: &str = "bench";
const PASSWORD: &str = "oci-bench-secret";
const LOCK_FILE: &str = ".terraform.lock.hcl";

struct Args {
    tfdisco: PathBuf,
    timed: PathBuf,
    runs: usize,
    only: Option<String>,
    work: PathBuf,
}

fn usage() -> ! {
    eprintln!(
        "usage: oci-bench --tfdisco PATH --timed PATH [--runs N] [--only pull|lock|push] [--work DIR]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        tfdisco: PathBuf::new(),
        timed: PathBuf::new(),
        runs: 7,
        only: None,
        work: std::env::temp_dir().join("tfdisco-oci-bench"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--tfdisco" => args.tfdisco = value().into(),
            "--timed" => args.timed = value().into(),
            "--runs" => args.runs = value().parse().unwrap_or_else(|_| usage()),
            "--only" => args.only = Some(value()),
            "--work" => args.work = value().into(),
            _ => usage(),
        }
    }
    if args.tfdisco.as_os_str().is_empty()
        || args.timed.as_os_str().is_empty()
        || args.runs == 0
        || args
            .only
            .as_deref()
            .is_some_and(|o| !["pull", "lock", "push"].contains(&o))
    {
        usage();
    }
    args
}

/// What a server saw of one run.
#[derive(Clone, Debug, Default)]
struct Served {
    /// `METHOD PATH STATUS BYTES`, in order.
    requests: Vec<String>,
    /// Requests answered 401.
    unauthorized: usize,
    connections: usize,
    /// The server's CPU time during the run (10 ms ticks).
    cpu: Duration,
}

#[derive(Clone, Debug)]
struct Measure {
    timed: Timed,
    served: Served,
}

/// A `docker-registry` and what is needed to read its log.
struct Oci {
    registry: OciRegistry,
    label: &'static str,
}

impl Oci {
    fn template(&self) -> String {
        format!("{}/mirror/{{namespace}}/{{type}}", self.registry.host())
    }

    /// The log's length and the registry's CPU so far.
    fn mark(&self, ticks: u64) -> (usize, Duration) {
        (
            self.registry.log().len(),
            process_cpu(self.registry.pid(), ticks).unwrap_or_default(),
        )
    }

    /// What the registry served since `mark`: its access log, read once the
    /// lines stop coming (each is written when its answer is done, which
    /// may be just after the client has it).
    fn served_since(&self, mark: (usize, Duration), ticks: u64) -> Served {
        let mut last = String::new();
        let mut stable_since = Instant::now();
        let start = Instant::now();
        loop {
            let text = self.registry.log();
            let new = text.get(mark.0..).unwrap_or("").to_owned();
            if new != last {
                last = new;
                stable_since = Instant::now();
            } else if stable_since.elapsed() >= Duration::from_millis(150)
                || start.elapsed() >= Duration::from_secs(3)
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        let cpu = process_cpu(self.registry.pid(), ticks)
            .unwrap_or_default()
            .saturating_sub(mark.1);
        let logged = registry_log::requests(&last);
        Served {
            unauthorized: logged.iter().filter(|r| r.status == 401).count(),
            requests: logged
                .iter()
                .map(|r| format!("{} {} {} {}", r.method, r.uri, r.status, r.bytes))
                .collect(),
            connections: registry_log::remote_addresses(&last).len(),
            cpu,
        }
    }

    /// `VmHWM` of the registry process.
    fn peak_rss(&self) -> String {
        fs::read_to_string(format!("/proc/{}/status", self.registry.pid()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_owned()))
            })
            .unwrap_or_else(|| "?".to_owned())
    }
}

/// One pulled provider.
struct Pulled {
    name: String,
    /// The zip's size.
    size: usize,
    /// `100 MiB`.
    label: String,
    zip_sha256: String,
    content_sha256: String,
    executable: String,
}

struct Bench {
    args: Args,
    runner: Runner,
    ticks: u64,
    report: Report,
}

impl Bench {
    /// A fresh folder holding `main_tf`.
    fn fresh(&self, name: &str, main_tf: &str) -> PathBuf {
        fresh_run(&self.args.work, name, main_tf)
    }

    fn env(&self, config: &Path) -> Vec<(&'static str, OsString)> {
        vec![
            ("SSL_CERT_FILE", pki().ca_file().into()),
            ("TF_CLI_CONFIG_FILE", config.into()),
            ("CHECKPOINT_DISABLE", "1".into()),
        ]
    }

    fn tfdisco_args(&self, command: &[&str], extra: &[String]) -> Vec<String> {
        let mut args: Vec<String> = command.iter().map(|w| (*w).to_owned()).collect();
        args.extend([
            "--dialect".to_owned(),
            "opentofu".to_owned(),
            "--ca-file".to_owned(),
            pki().ca_file().display().to_string(),
        ]);
        args.extend(extra.iter().cloned());
        args
    }

    /// Runs tfdisco with `args` in `dir`, `oci` watched; panics when it
    /// fails.
    fn run_oci(&self, dir: &Path, args: &[String], config: &Path, oci: &Oci) -> Measure {
        let mark = oci.mark(self.ticks);
        let timed = self
            .runner
            .run(dir, &self.args.tfdisco, args, &self.env(config))
            .unwrap_or_else(|e| panic!("{e}"));
        Measure {
            timed,
            served: oci.served_since(mark, self.ticks),
        }
    }

    fn pull(&mut self, oci: &Oci, pulled: &[Pulled], config_lock: &Path, config_install: &Path) {
        let platform = registry::current_platform();
        self.report.out(format!(
            "\n## pull: one provider for {platform} from {} ({}), packages of {}\n",
            oci.registry.host(),
            oci.label,
            pulled
                .iter()
                .map(|p| p.label.clone())
                .collect::<Vec<_>>()
                .join(" and ")
        ));
        let template = oci.template();
        // (provider, is install): lock and install of each size, rotating.
        let cases: Vec<(usize, bool)> = (0..pulled.len())
            .flat_map(|p| [(p, false), (p, true)])
            .collect();
        let n = cases.len();
        let mut results: Vec<Vec<Measure>> = vec![Vec::new(); n];
        let mut bodies: Vec<Option<String>> = vec![None; n];
        let mut example_requests: Vec<Vec<String>> = vec![Vec::new(); n];
        for i in 0..=self.args.runs {
            for k in 0..n {
                let c = (i + k) % n;
                let (p, install) = cases[c];
                let provider = &pulled[p];
                let main_tf = format!(
                    "terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"{PULL_HOST}/{PULL_NAMESPACE}/{name}\"\n      version = \"{PULL_VERSION}\"\n    }}\n  }}\n}}\n",
                    name = provider.name
                );
                let what = if install { "install" } else { "lock" };
                let dir = self.fresh(&format!("pull-{what}-{}-{i}", provider.name), &main_tf);
                let (args, config) = if install {
                    (self.tfdisco_args(&["install"], &[]), config_install)
                } else {
                    let extra = [
                        "--platform".to_owned(),
                        platform.clone(),
                        "--oci-mirror".to_owned(),
                        template.clone(),
                    ];
                    (self.tfdisco_args(&["lock"], &extra), config_lock)
                };
                let m = self.run_oci(&dir, &args, config, oci);
                let body = self.check_pull(&dir, provider, install, &platform);
                match &bodies[c] {
                    None => bodies[c] = Some(body),
                    Some(first) if *first != body => self.report.fail(format!(
                        "{what} of {}: another lock file than the first run's:\n{body}\nexpected:\n{first}",
                        provider.name
                    )),
                    Some(_) => {}
                }
                let _ = fs::remove_dir_all(&dir);
                let label = format!("pull {i} {what} {}", provider.label);
                keep(i, &label, m, &mut results[c], &mut example_requests[c]);
            }
        }
        for p in 0..pulled.len() {
            let lock = bodies[2 * p].clone();
            let install = bodies[2 * p + 1].clone();
            if lock != install {
                self.report.fail(format!(
                    "{}: install's lock file is not lock's (apart from the header):\n{}\nlock's:\n{}",
                    pulled[p].name,
                    install.unwrap_or_default(),
                    lock.unwrap_or_default()
                ));
            }
        }
        self.report.out(format!(
            "{} alternating runs of each (after one untimed round); wall median (IQR); \
             MB/s = package bytes / median wall; the other columns medians:\n",
            self.args.runs
        ));
        let command = |install: bool| {
            if install {
                "`tfdisco install` (oci_mirror)"
            } else {
                "`tfdisco lock --oci-mirror`"
            }
        };
        let rows: Vec<(&str, &Pulled, &[Measure])> = cases
            .iter()
            .zip(&results)
            .map(|(&(p, install), ms)| (command(install), &pulled[p], ms.as_slice()))
            .collect();
        self.size_table(&rows);
        // The memory check: the largest against the smallest package, per
        // command.
        if pulled.len() >= 2 {
            self.report.out("");
            for install in [false, true] {
                let of = |p: usize| {
                    let c = cases
                        .iter()
                        .position(|&(q, i)| q == p && i == install)
                        .expect("a case");
                    (&pulled[p], results[c].as_slice())
                };
                let what = if install { "install" } else { "lock" };
                self.rss_check(what, of(0), of(pulled.len() - 1));
            }
        }
        self.report.out(format!(
            "docker-registry's peak RSS (VmHWM) so far: {}",
            oci.peak_rss()
        ));
        let listed: Vec<(String, &[String])> = cases
            .iter()
            .zip(&example_requests)
            .map(|(&(p, install), requests)| {
                let what = if install { "install" } else { "lock" };
                (format!("{what} {}", pulled[p].label), requests.as_slice())
            })
            .collect();
        self.list_requests("pull-requests.txt", "docker-registry's access log", &listed);
    }

    /// `tfdisco oci push-provider` of each zip: into a fresh repository,
    /// then again into the same one, the sizes rotating.
    fn push(&mut self, oci: &Oci, zips: &[(&Pulled, PathBuf)], config: &Path) {
        let platform = registry::current_platform();
        self.report.out(format!(
            "\n## push: `tfdisco oci push-provider` of one zip for {platform} to {} ({}), {}\n",
            oci.registry.host(),
            oci.label,
            zips.iter()
                .map(|(p, _)| p.label.clone())
                .collect::<Vec<_>>()
                .join(" and ")
        ));
        let n = zips.len();
        // (zip, again): the first push and the second of each size.
        let mut results: Vec<Vec<Measure>> = vec![Vec::new(); 2 * n];
        let mut example_requests: Vec<Vec<String>> = vec![Vec::new(); 2 * n];
        let dir = self.fresh("push", "");
        for i in 0..=self.args.runs {
            for k in 0..n {
                let z = (i + k) % n;
                let (provider, path) = &zips[z];
                let repository = format!("{}/pushed/{}-{i}", oci.registry.host(), provider.name);
                for again in [false, true] {
                    let extra = [
                        repository.clone(),
                        PULL_VERSION.to_owned(),
                        path.display().to_string(),
                        "--json".to_owned(),
                    ];
                    let args = self.tfdisco_args(&["oci", "push-provider"], &extra);
                    let m = self.run_oci(&dir, &args, config, oci);
                    self.check_push(provider, again, &repository);
                    let c = 2 * z + usize::from(again);
                    let what = if again { "again" } else { "first" };
                    let label = format!("push {i} {what} {}", provider.label);
                    keep(i, &label, m, &mut results[c], &mut example_requests[c]);
                }
            }
        }
        self.report.out(format!(
            "{} runs of each (after one untimed round); wall median (IQR); MB/s = zip bytes / \
             median wall; the other columns medians:\n",
            self.args.runs
        ));
        let command = |c: usize| {
            if c % 2 == 1 {
                "`oci push-provider`, again (0 blobs sent)"
            } else {
                "`oci push-provider`, new repository"
            }
        };
        let rows: Vec<(&str, &Pulled, &[Measure])> = results
            .iter()
            .enumerate()
            .map(|(c, ms)| (command(c), zips[c / 2].0, ms.as_slice()))
            .collect();
        self.size_table(&rows);
        if n >= 2 {
            self.report.out("");
            let first = |z: usize| (zips[z].0, results[2 * z].as_slice());
            self.rss_check("first push", first(0), first(n - 1));
        }
        let listed: Vec<(String, &[String])> = example_requests
            .iter()
            .enumerate()
            .map(|(c, requests)| {
                let what = if c % 2 == 1 { "again" } else { "first" };
                (
                    format!("{what} {}", zips[c / 2].0.label),
                    requests.as_slice(),
                )
            })
            .collect();
        self.list_requests("push-requests.txt", "docker-registry's access log", &listed);
    }

    /// The medians of each command's runs with a package of a size: wall
    /// (IQR), MB/s, peak RSS, CPU of tfdisco and of the registry, requests
    /// (401s) and connections.
    fn size_table(&mut self, rows: &[(&str, &Pulled, &[Measure])]) {
        self.report.out("| command | package | wall | MB/s | peak RSS (min–max) | CPU (tfdisco) | CPU (docker-registry) | requests (401s) | connections |");
        self.report
            .out("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (command, provider, ms) in rows {
            let wall = median(&walls(ms));
            let rss: Vec<f64> = ms.iter().map(|m| m.timed.rss_kb as f64 / 1024.0).collect();
            let row = format!(
                "| {command} | {} ({} B) | {} | {:.0} | {:.1} MiB ({:.1}–{:.1}) | {}",
                provider.label,
                provider.size,
                summary(&walls(ms)),
                provider.size as f64 / wall / 1e6,
                median(&rss),
                rss.iter().copied().fold(f64::MAX, f64::min),
                rss.iter().copied().fold(f64::MIN, f64::max),
                cpu_and_requests(ms),
            );
            self.report.out(row);
        }
    }

    /// The memory check (the install benchmark's reasoning: memory that
    /// grew with the package would cost about a package): the largest peak
    /// RSS with the big package against the median with the small one,
    /// allowed a quarter of the big package.
    fn rss_check(&mut self, what: &str, big: (&Pulled, &[Measure]), small: (&Pulled, &[Measure])) {
        let kb =
            |ms: &[Measure]| -> Vec<f64> { ms.iter().map(|m| m.timed.rss_kb as f64).collect() };
        let (big_kb, small_kb) = (kb(big.1), kb(small.1));
        let (big_median, small_median) = (median(&big_kb), median(&small_kb));
        let big_max = big_kb.iter().copied().fold(f64::MIN, f64::max);
        let grows = big_max - small_median > (big.0.size / 4 / 1024) as f64;
        self.report.out(format!(
            "peak RSS, {what}: {} {:.1} MiB against {} {:.1} MiB (medians; +{:.1} MiB, largest {:.1} MiB): {}",
            big.0.label,
            big_median / 1024.0,
            small.0.label,
            small_median / 1024.0,
            (big_median - small_median) / 1024.0,
            big_max / 1024.0,
            if grows {
                "GROWS with the package"
            } else {
                "does not grow with the package"
            }
        ));
        if grows {
            self.report.failures.push(format!(
                "peak RSS of {what} grows with the package: {big_max} kB against {small_median} kB"
            ));
        }
    }

    /// The requests of run 1 of each command, written to `name` in the
    /// work folder and printed, said to come from `log`.
    fn list_requests(&mut self, name: &str, log: &str, listed: &[(String, &[String])]) {
        let mut text = String::new();
        for (what, requests) in listed {
            let _ = writeln!(text, "# {what}, run 1: {} requests", requests.len());
            for r in *requests {
                let _ = writeln!(text, "  {r}");
            }
        }
        let file = self.args.work.join(name);
        fs::write(&file, &text).expect("the request list");
        self.report.out(format!(
            "\nthe requests of run 1 ({log}): {}",
            file.display()
        ));
        for line in text.lines() {
            self.report.out(format!("    {line}"));
        }
    }

    /// The JSON report of the push just made (the runner's log), checked.
    fn check_push(&mut self, provider: &Pulled, again: bool, repository: &str) {
        let log = fs::read_to_string(self.args.work.join("last-run.log")).unwrap_or_default();
        let report: serde_json::Value =
            match log.lines().rev().find_map(|l| serde_json::from_str(l).ok()) {
                Some(report) => report,
                None => {
                    return self
                        .report
                        .fail(format!("push to {repository}: no JSON report:\n{log}"));
                }
            };
        let sent = if again { 0 } else { 2 };
        if report["blobs_sent"] != sent {
            self.report.fail(format!(
                "push to {repository}: {sent} blobs should have been sent: {report}"
            ));
        }
        let zip = format!("sha256:{}", provider.zip_sha256);
        if report["packages"][0]["digest"] != zip.as_str() {
            self.report.fail(format!(
                "push to {repository}: the zip's digest is not {zip}: {report}"
            ));
        }
    }

    /// The lock file of a pull run, checked; answers it without its header
    /// line. For an install, the executable too.
    fn check_pull(
        &mut self,
        dir: &Path,
        provider: &Pulled,
        install: bool,
        platform: &str,
    ) -> String {
        let what = if install { "install" } else { "lock" };
        let lock = fs::read_to_string(dir.join(LOCK_FILE)).unwrap_or_default();
        let zh = format!("\"zh:{}\"", provider.zip_sha256);
        if lock.matches("\"h1:").count() != 1
            || lock.matches("\"zh:").count() != 1
            || !lock.contains(&zh)
        {
            self.report.fail(format!(
                "{what} of {}: the lock file should hold one h1: and {zh}:\n{lock}",
                provider.name
            ));
        }
        if install {
            let file = dir
                .join(".terraform/providers")
                .join(PULL_HOST)
                .join(PULL_NAMESPACE)
                .join(&provider.name)
                .join(PULL_VERSION)
                .join(platform)
                .join(&provider.executable);
            match file_sha256(&file) {
                Ok(sum) if sum == provider.content_sha256 => {}
                Ok(sum) => self.report.fail(format!(
                    "{}: SHA-256 {sum}, not the zip's content's {}",
                    file.display(),
                    provider.content_sha256
                )),
                Err(e) => self.report.fail(format!("{}: {e}", file.display())),
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = fs::metadata(&file)
                    .map(|m| m.permissions().mode())
                    .unwrap_or(0);
                if mode & 0o111 == 0 {
                    self.report
                        .fail(format!("{}: mode {mode:o}, not executable", file.display()));
                }
            }
        }
        body(&lock)
    }

    fn lock(&mut self, server: &TestServer, bench: &Registry, mirrors: &[&Oci], config: &Path) {
        let platforms = registry::platforms();
        let host = format!("127.0.0.1:{}", server.port());
        let bytes: usize = bench
            .providers
            .iter()
            .flat_map(|p| &p.packages)
            .map(|p| p.bytes.len())
            .sum();
        self.report.out(format!(
            "\n## lock: {} providers × {} platforms ({}), {} packages of {} ({:.1} MB): the registry (TestServer, unshaped) against an OCI mirror\n",
            bench.providers.len(),
            platforms.len(),
            platforms.join(", "),
            bench.providers.len() * platforms.len(),
            size_name(LOCK_PACKAGE),
            bytes as f64 / 1e6
        ));
        let mut main_tf = String::from("terraform {\n  required_providers {\n");
        for provider in &bench.providers {
            let _ = write!(
                main_tf,
                "    {name} = {{\n      source  = \"{host}/{ns}/{name}\"\n      version = \">= 0.1.0\"\n    }}\n",
                name = provider.name,
                ns = bench.namespace
            );
        }
        main_tf.push_str("  }\n}\n");
        let mut base = Vec::new();
        for platform in &platforms {
            base.push("--platform".to_owned());
            base.push(platform.clone());
        }
        // Tool 0 is the registry, then each mirror.
        let mut tools: Vec<(String, Vec<String>)> = vec![(
            "`tfdisco lock` from the registry".to_owned(),
            self.tfdisco_args(&["lock"], &base),
        )];
        for oci in mirrors {
            let mut extra = base.clone();
            extra.push("--oci-mirror".to_owned());
            extra.push(oci.template());
            tools.push((
                format!("`tfdisco lock --oci-mirror` ({})", oci.label),
                self.tfdisco_args(&["lock"], &extra),
            ));
        }
        let n = tools.len();
        let mut results: Vec<Vec<Measure>> = vec![Vec::new(); n];
        let mut expected: Option<(String, String, String)> = None;
        let mut headers = BTreeSet::new();
        let mut example_requests: Vec<Vec<String>> = vec![Vec::new(); n];
        for i in 0..=self.args.runs {
            for k in 0..n {
                let t = (i + k) % n;
                let (name, args) = tools[t].clone();
                let dir = self.fresh(&format!("lock-{t}-{i}"), &main_tf);
                let marks: Vec<_> = mirrors.iter().map(|o| o.mark(self.ticks)).collect();
                server.take_requests();
                let cpu_before = process_cpu(std::process::id(), self.ticks).unwrap_or_default();
                let timed = self
                    .runner
                    .run(&dir, &self.args.tfdisco, &args, &self.env(config))
                    .unwrap_or_else(|e| panic!("{e}"));
                let cpu = process_cpu(std::process::id(), self.ticks)
                    .unwrap_or_default()
                    .saturating_sub(cpu_before);
                // The registry's answers are done once the client has
                // them; docker-registry's log lines may come just after.
                let seen = server.take_requests();
                let oci_served: Vec<Served> = mirrors
                    .iter()
                    .zip(&marks)
                    .map(|(o, m)| o.served_since(*m, self.ticks))
                    .collect();
                let served = if t == 0 {
                    for (o, s) in mirrors.iter().zip(&oci_served) {
                        if !s.requests.is_empty() {
                            self.report.fail(format!(
                                "the registry's lock asked {} ({}) {} requests",
                                o.registry.host(),
                                o.label,
                                s.requests.len()
                            ));
                        }
                    }
                    Served {
                        requests: seen
                            .iter()
                            .map(|s| format!("{} {}", s.method, s.path))
                            .collect(),
                        unauthorized: 0,
                        connections: seen
                            .iter()
                            .map(|s| s.connection)
                            .collect::<BTreeSet<_>>()
                            .len(),
                        cpu,
                    }
                } else {
                    if !seen.is_empty() {
                        self.report.fail(format!(
                            "{name} asked the registry {} requests: {:?}",
                            seen.len(),
                            seen.iter().map(|s| s.path.clone()).collect::<Vec<_>>()
                        ));
                    }
                    for (j, s) in oci_served.iter().enumerate() {
                        if j + 1 != t && !s.requests.is_empty() {
                            self.report.fail(format!(
                                "{name} asked the other mirror {} requests",
                                s.requests.len()
                            ));
                        }
                    }
                    oci_served[t - 1].clone()
                };
                let lock = fs::read_to_string(dir.join(LOCK_FILE)).unwrap_or_default();
                headers.insert(lock.lines().next().unwrap_or("").to_owned());
                match &expected {
                    None => {
                        fs::write(self.args.work.join("lock.lock.hcl"), &lock).expect("write");
                        expected = Some((name.clone(), body(&lock), lock.clone()));
                    }
                    Some((first, b, _)) if *b != body(&lock) => {
                        let (first, b) = (first.clone(), b.clone());
                        self.report.fail(format!(
                            "{name}'s lock file differs from {first}'s (apart from the header line):\n{lock}\nexpected:\n{b}"
                        ));
                    }
                    Some(_) => {}
                }
                let _ = fs::remove_dir_all(&dir);
                if i == 1 {
                    example_requests[t] = served.requests.clone();
                }
                if i > 0 {
                    eprintln!("lock {i} {name}: {:.3} s", secs(timed.wall));
                    results[t].push(Measure { timed, served });
                }
            }
        }
        let (_, _, text) = expected.unwrap_or_default();
        self.report.out(format!(
            "lock files: {} bytes, {} lines, the same from every run of every source apart from the header line; header lines seen: {:?}\n",
            text.len(),
            text.lines().count(),
            headers
        ));
        self.report.out(format!(
            "{} alternating runs of each (after one untimed round); wall median (IQR); MB/s = {:.1} MB of packages / median wall; the other columns medians; the server's CPU is the TestServer thread's (the harness process) or docker-registry's:\n",
            self.args.runs,
            bytes as f64 / 1e6
        ));
        self.report.out("| command | wall | MB/s | peak RSS | CPU (tfdisco) | CPU (server) | requests (401s) | connections |");
        self.report.out("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (t, (name, _)) in tools.iter().enumerate() {
            let ms = &results[t];
            let wall = median(&walls(ms));
            let rss: Vec<f64> = ms.iter().map(|m| m.timed.rss_kb as f64 / 1024.0).collect();
            let row = format!(
                "| {name} | {} | {:.0} | {:.1} MiB | {}",
                summary(&walls(ms)),
                bytes as f64 / wall / 1e6,
                median(&rss),
                cpu_and_requests(ms),
            );
            self.report.out(row);
        }
        self.report.out("");
        let registry_walls = walls(&results[0]);
        for (t, (name, _)) in tools.iter().enumerate().skip(1) {
            let ratios: Vec<f64> = results[t]
                .iter()
                .zip(&results[0])
                .map(|(m, r)| secs(m.timed.wall) / secs(r.timed.wall))
                .collect();
            let (q1, m, q3) = quartiles(&ratios);
            self.report.out(format!(
                "{name} / from the registry: {:.2}× (ratio of medians); per round {m:.2}× ({q1:.2}–{q3:.2})",
                median(&walls(&results[t])) / median(&registry_walls)
            ));
        }
        for (t, (name, _)) in tools.iter().enumerate() {
            let all: Vec<String> = results[t]
                .iter()
                .map(|m| format!("{:.3}", secs(m.timed.wall)))
                .collect();
            self.report
                .out(format!("{name} runs (s): {}", all.join(", ")));
        }
        for oci in mirrors {
            self.report.out(format!(
                "docker-registry ({}) peak RSS (VmHWM) so far: {}",
                oci.label,
                oci.peak_rss()
            ));
        }
        let listed: Vec<(String, &[String])> = tools
            .iter()
            .zip(&example_requests)
            .map(|((name, _), requests)| (name.clone(), requests.as_slice()))
            .collect();
        self.list_requests(
            "lock-requests.txt",
            "the TestServer's log; docker-registry's access log",
            &listed,
        );
    }
}

/// A lock file without its header line.
/// A run's measure kept (after the untimed round) and, for run 1, its
/// requests; the run printed as it ends.
fn keep(i: usize, label: &str, m: Measure, results: &mut Vec<Measure>, example: &mut Vec<String>) {
    if i == 1 {
        example.clone_from(&m.served.requests);
    }
    if i > 0 {
        eprintln!(
            "{label}: {:.3} s, {} kB",
            secs(m.timed.wall),
            m.timed.rss_kb
        );
        results.push(m);
    }
}

fn body(lock: &str) -> String {
    lock.lines().skip(1).collect::<Vec<_>>().join("\n")
}

fn walls(ms: &[Measure]) -> Vec<f64> {
    ms.iter().map(|m| secs(m.timed.wall)).collect()
}

/// The tables' last columns: `CPU (tool) | CPU (server) | requests (401s)
/// | connections |`, the medians of `ms`.
fn cpu_and_requests(ms: &[Measure]) -> String {
    format!(
        "{:.3} s | {:.2} s | {} ({}) | {} |",
        median(&ms.iter().map(|m| secs(m.timed.cpu)).collect::<Vec<_>>()),
        median(&ms.iter().map(|m| secs(m.served.cpu)).collect::<Vec<_>>()),
        median_count(ms.iter().map(|m| m.served.requests.len())),
        median_count(ms.iter().map(|m| m.served.unauthorized)),
        median_count(ms.iter().map(|m| m.served.connections)),
    )
}

/// The median of counts, as a whole number when it is one.
fn median_count(values: impl Iterator<Item = usize>) -> String {
    let v: Vec<f64> = values.map(|n| n as f64).collect();
    let m = median(&v);
    let min = v.iter().copied().fold(f64::MAX, f64::min);
    let max = v.iter().copied().fold(f64::MIN, f64::max);
    if min == max {
        format!("{m:.0}")
    } else {
        format!("{m} ({min:.0}–{max:.0})")
    }
}

fn size_name(size: usize) -> String {
    if size >= 1 << 20 && size.is_multiple_of(1 << 20) {
        format!("{} MiB", size >> 20)
    } else {
        format!("{size} B")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn file_sha256(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

/// The SHA-256 of the one entry of a zip [`registry::zip_one`] wrote: its
/// deflate stream starts right after the local header (30 bytes) and the
/// name.
fn content_sha256(zip: &[u8], name: &str) -> String {
    let mut decoder = flate2::read::DeflateDecoder::new(&zip[30 + name.len()..]);
    let mut hasher = Sha256::new();
    io::copy(&mut decoder, &mut hasher).expect("the zip inflates");
    hex(&hasher.finalize())
}

/// Pushes `registry`'s providers to `oci` under `mirror/NAMESPACE/TYPE`.
fn push_registry(oci: &Oci, registry: &Registry) {
    for provider in &registry.providers {
        let platforms: Vec<(&str, &str, &[u8])> = provider
            .packages
            .iter()
            .map(|p| {
                let (os, arch) = p.platform.split_once('_').expect("OS_ARCH");
                (os, arch, p.bytes.as_slice())
            })
            .collect();
        oci.registry.push_provider(
            &format!("mirror/{}/{}", registry.namespace, provider.name),
            &provider.version,
            &platforms,
        );
    }
}

fn credentials_config(oci: &Oci) -> String {
    format!(
        "oci_default_credentials {{\n  discover_ambient_credentials = false\n}}\n\noci_credentials \"{}\" {{\n  username = \"{USERNAME}\"\n  password = \"{PASSWORD}\"\n}}\n",
        oci.registry.host()
    )
}

fn main() {
    let args = parse_args();
    let _ = fs::remove_dir_all(&args.work);
    fs::create_dir_all(&args.work).expect("the work folder");
    let only = args.only.clone();
    let wants = |part: &str| only.as_deref().is_none_or(|o| o == part);
    let platform = registry::current_platform();

    let started = Instant::now();
    let basic = Oci {
        registry: OciRegistry::start(OciAuth::basic(USERNAME, PASSWORD)),
        label: "Basic auth",
    };
    let anonymous = wants("lock").then(|| Oci {
        registry: OciRegistry::start(OciAuth::Anonymous),
        label: "anonymous",
    });
    let config_lock = args.work.join("credentials.tfrc");
    fs::write(&config_lock, credentials_config(&basic)).expect("a CLI configuration");
    let config_install = args.work.join("install.tfrc");
    fs::write(
        &config_install,
        format!(
            "{}\nprovider_installation {{\n  oci_mirror {{\n    repository_template = \"{}/mirror/${{namespace}}/${{type}}\"\n    include = [\"{PULL_HOST}/*/*\"]\n  }}\n}}\n",
            credentials_config(&basic),
            basic.registry.host()
        ),
    )
    .expect("a CLI configuration");

    // The pulled providers: a zip of each size, pushed.
    let mut pulled = Vec::new();
    let mut zip_files = Vec::new();
    if wants("pull") || wants("push") {
        let (os, arch) = platform.split_once('_').expect("OS_ARCH");
        for (name, size, seed) in [("big", BIG, 27_001), ("small", SMALL, 27_002)] {
            let mut executable = format!("terraform-provider-{name}_v{PULL_VERSION}");
            if os == "windows" {
                executable.push_str(".exe");
            }
            let zip = registry::zip_of_size(&executable, 0o755, size, seed);
            // Exactly `size` unless a stored block's boundary is in the way
            // (a few bytes less then).
            assert!(
                zip.len() <= size && zip.len() + 5 > size,
                "{size}: {}",
                zip.len()
            );
            let pushed = basic.registry.push_provider(
                &format!("mirror/{PULL_NAMESPACE}/{name}"),
                PULL_VERSION,
                &[(os, arch, zip.as_slice())],
            );
            let zip_sha256 = sha256_digest(&zip)
                .strip_prefix("sha256:")
                .expect("sha256:")
                .to_owned();
            assert_eq!(
                pushed.targets[0].artifact.zip_digest,
                format!("sha256:{zip_sha256}")
            );
            if wants("push") {
                let dir = args.work.join("zips");
                fs::create_dir_all(&dir).expect("a folder for the zips");
                let file = dir.join(format!(
                    "terraform-provider-{name}_{PULL_VERSION}_{platform}.zip"
                ));
                fs::write(&file, &zip).expect("a zip");
                zip_files.push(file);
            }
            pulled.push(Pulled {
                name: name.to_owned(),
                size: zip.len(),
                label: size_name(size),
                content_sha256: content_sha256(&zip, &executable),
                zip_sha256,
                executable,
            });
        }
    }

    // The lock setup: the install benchmark's registry, served and pushed
    // to both registries.
    let mut lock_setup = None;
    let mut signer_id = String::new();
    if wants("lock") {
        let signer = Signer::new(&args.work.join("gnupg")).expect("a signing key (gpg)");
        signer_id = signer.key_id().to_owned();
        let platforms = registry::platforms();
        let bench = Registry::make("bench", &LOCK_PROVIDERS, &platforms, LOCK_PACKAGE, &signer)
            .expect("the registry");
        let server = TestServer::start();
        registry::serve_discovery(&server);
        bench.install(&server);
        push_registry(&basic, &bench);
        if let Some(anonymous) = &anonymous {
            push_registry(anonymous, &bench);
        }
        lock_setup = Some((server, bench, signer));
    }
    let made = started.elapsed();

    let runner = Runner::new(&args.timed, &args.work);
    let mut b = Bench {
        args,
        runner,
        ticks: clock_ticks(),
        report: Report::default(),
    };
    b.report.out("# oci-bench");
    b.report.out(format!(
        "tfdisco:         {}",
        tfdisco_version(&b.args.tfdisco)
    ));
    b.report.out(format!(
        "docker-registry: {} ({}, Basic auth; {} anonymous), filesystem storage under {}",
        first_line("docker-registry", &["--version"]),
        basic.registry.host(),
        anonymous
            .as_ref()
            .map_or("no".to_owned(), |a| a.registry.host()),
        std::env::temp_dir().display()
    ));
    b.report.out(format!(
        "env:             SSL_CERT_FILE={} (the test CA), TF_CLI_CONFIG_FILE={} or {}",
        pki().ca_file().display(),
        config_lock.display(),
        config_install.display()
    ));
    b.report.out(format!(
        "machine:         {} CPUs, load average {} at the start; made and pushed in {:.1} s{}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg(),
        secs(made),
        if signer_id.is_empty() {
            String::new()
        } else {
            format!(" (signing key {signer_id})")
        }
    ));
    let timing = Instant::now();
    if wants("pull") {
        b.pull(&basic, &pulled, &config_lock, &config_install);
    }
    if wants("push") {
        let zips: Vec<(&Pulled, PathBuf)> = pulled.iter().zip(zip_files).collect();
        b.push(&basic, &zips, &config_lock);
    }
    if let Some((server, bench, _)) = &lock_setup {
        let mut mirrors = vec![&basic];
        if let Some(anonymous) = &anonymous {
            mirrors.push(anonymous);
        }
        b.lock(server, bench, &mirrors, &config_lock);
    }
    b.report.out(format!(
        "\nload average {} at the end ({:.0} s)",
        loadavg(),
        secs(timing.elapsed())
    ));
    // The registries' logs, kept: their storage goes with them.
    for oci in std::iter::once(&basic).chain(anonymous.as_ref()) {
        let file = b.args.work.join(format!(
            "docker-registry-{}.log",
            oci.label
                .split_whitespace()
                .next()
                .unwrap_or("oci")
                .to_lowercase()
        ));
        fs::write(&file, oci.registry.log()).expect("a registry's log");
    }
    let passed = b
        .report
        .finish(&b.args.work, "every check passed", "FAILED");
    drop(lock_setup);
    if !passed {
        std::process::exit(1);
    }
}
