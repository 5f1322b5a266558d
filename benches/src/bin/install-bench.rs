//! The install benchmark: `tfdisco install` against `terraform init
//! -backend=false`, and `tfdisco lock` against `terraform providers lock`,
//! as whole processes in alternating runs, against one loopback registry
//! of signed 16 MiB packages ([`tfdisco_benches::registry`]) behind the
//! targets' network: every request answered after 40 ms, each connection's
//! bodies sent at 25 MB/s ([`NetworkShape`]).
//!
//! ```text
//! sh benches/install.sh [RUNS]          # builds everything, then runs this
//! install-bench --tfdisco PATH --timed PATH [--runs N] [--rss-runs N]
//!               [--before PATH] [--only install|lock|rss] [--work DIR]
//!               [--rss-sizes BYTES,BYTES,...] [--install-arg=ARG ...]
//! ```
//!
//! - **install**: four providers (`bench/alpha`, `beta`, `gamma`, `delta`),
//!   one version each, installed for this platform in a fresh folder (no
//!   lock file, no plugin cache) by each tool in turn (which goes first
//!   swaps every pair). After every run the tree of `.terraform/providers`
//!   ([`tree_manifest`]: paths, modes, contents) and the lock file must be
//!   byte for byte those of the first Terraform run.
//! - **lock**: `bench/alpha` and `bench/beta` locked for three platforms
//!   from no lock file, each tool in turn (and `--before`'s tfdisco, a
//!   build from before the install work, in the rotation); the lock files
//!   must be identical.
//! - **rss**: `tfdisco install --jobs 8` of eight providers whose packages
//!   are each of the `--rss-sizes` (64 KiB and 16 MiB by default), in
//!   turn: peak RSS must not grow with the package size.
//!
//! Each run is timed by `benches/c/timed.c` (wall time around
//! fork/exec/wait4, wait4's peak RSS and CPU time). Prints medians and
//! interquartile ranges, the ratios, the network's floor (the chain of
//! requests before the largest package, its transfer) and tfdisco's ratio
//! to it, the requests each tool made and when, and whether each target is
//! met; exits with status 1 when one is missed or a check fails (and
//! panics, naming the command and showing its output, when a run fails).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tfdisco_benches::process_runs::{
    Measure, Report, Runner, first_line, fresh_run, loadavg, measure_row, median, median_run, met,
    per_pair_line, secs, summary, tfdisco_version, walls,
};
use tfdisco_benches::registry::{self, Registry, Signer};
use tfdisco_testkit::install_goldens::tree_manifest;
use tfdisco_testkit::{NetworkShape, TestServer, pki};

/// The targets' network.
const LATENCY: Duration = Duration::from_millis(40);
const RATE: u64 = 25_000_000;
/// The targets' package size.
const PACKAGE: usize = 16 * 1024 * 1024;

/// `tfdisco install` at least this many times faster than `terraform init`.
const TARGET_SPEEDUP: f64 = 3.0;
/// `tfdisco install` within this many times the network's floor.
const TARGET_FLOOR: f64 = 1.3;
/// Peak RSS of `tfdisco install --jobs 8`, at most.
const TARGET_RSS_KB: u64 = 64 * 1024;
/// How much more peak RSS the largest packages may cost than the smallest
/// (a quarter of one 16 MiB package; memory that grew with the package
/// would cost at least one package per download at once).
const RSS_SPREAD_KB: u64 = 4 * 1024;
/// `tfdisco lock` "stays where it is": at most this much slower than the
/// build from before the install work (`--before`), or than the
/// given 1.08 s without one.
const LOCK_STAYS: f64 = 1.10;
const GIVEN_LOCK: Duration = Duration::from_millis(1080);

const INSTALL_PROVIDERS: [(&str, &str); 4] = [
    ("alpha", "1.2.0"),
    ("beta", "2.3.1"),
    ("gamma", "0.9.0"),
    ("delta", "5.1.0"),
];
const RSS_PROVIDERS: [(&str, &str); 8] = [
    ("p1", "1.0.0"),
    ("p2", "1.0.0"),
    ("p3", "1.0.0"),
    ("p4", "1.0.0"),
    ("p5", "1.0.0"),
    ("p6", "1.0.0"),
    ("p7", "1.0.0"),
    ("p8", "1.0.0"),
];
const LOCK_FILE: &str = ".terraform.lock.hcl";

struct Args {
    tfdisco: PathBuf,
    before: Option<PathBuf>,
    timed: PathBuf,
    runs: usize,
    rss_runs: usize,
    rss_sizes: Vec<usize>,
    only: Option<String>,
    work: PathBuf,
    /// More arguments for `tfdisco install` in the install phase (an
    /// experiment: `--install-arg=--jobs --install-arg=12`).
    install_args: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: install-bench --tfdisco PATH --timed PATH [--runs N] [--rss-runs N] \
         [--before PATH] [--only install|lock|rss] [--work DIR] [--rss-sizes B,B,...] \
         [--install-arg=ARG ...]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        tfdisco: PathBuf::new(),
        before: None,
        timed: PathBuf::new(),
        runs: 7,
        rss_runs: 5,
        rss_sizes: vec![64 * 1024, PACKAGE],
        only: None,
        work: std::env::temp_dir().join("tfdisco-install-bench"),
        install_args: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        if let Some(extra) = arg.strip_prefix("--install-arg=") {
            args.install_args.push(extra.to_owned());
            continue;
        }
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--tfdisco" => args.tfdisco = value().into(),
            "--before" => args.before = Some(value().into()),
            "--timed" => args.timed = value().into(),
            "--runs" => args.runs = value().parse().unwrap_or_else(|_| usage()),
            "--rss-runs" => args.rss_runs = value().parse().unwrap_or_else(|_| usage()),
            "--rss-sizes" => {
                args.rss_sizes = value()
                    .split(',')
                    .map(|s| s.parse().unwrap_or_else(|_| usage()))
                    .collect()
            }
            "--only" => args.only = Some(value()),
            "--work" => args.work = value().into(),
            _ => usage(),
        }
    }
    if args.tfdisco.as_os_str().is_empty() || args.timed.as_os_str().is_empty() || args.runs == 0 {
        usage();
    }
    args
}

/// The same environment for every tool: the test CA, a CLI configuration
/// that only turns the checkpoint off, no proxies, none of the caller's
/// `TF_*` settings.
fn environment(work: &Path) -> [(&'static str, OsString); 3] {
    [
        ("SSL_CERT_FILE", pki().ca_file().into()),
        ("TF_CLI_CONFIG_FILE", work.join("terraformrc").into()),
        ("CHECKPOINT_DISABLE", "1".into()),
    ]
}

struct Bench {
    args: Args,
    runner: Runner,
    server: TestServer,
    host: String,
    report: Report,
}

impl Bench {
    fn main_tf(&self, namespace: &str, providers: &[(&str, &str)]) -> String {
        let mut text = String::from("terraform {\n  required_providers {\n");
        for (name, _) in providers {
            let _ = write!(
                text,
                "    {name} = {{\n      source  = \"{}/{namespace}/{name}\"\n      version = \">= 0.1.0\"\n    }}\n",
                self.host
            );
        }
        text.push_str("  }\n}\n");
        text
    }

    /// A fresh folder holding `main_tf`.
    fn fresh(&self, name: &str, main_tf: &str) -> PathBuf {
        fresh_run(&self.args.work, name, main_tf)
    }

    /// Runs `program args` in `dir` under `timed`, in [`environment`];
    /// panics when it fails.
    fn run(&self, dir: &Path, program: &Path, args: &[String]) -> Measure {
        self.runner
            .run_seen(
                &self.server,
                dir,
                program,
                args,
                &environment(&self.args.work),
            )
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The floor of one package's install over the shape, as the targets
    /// define it: every request of its chain (discovery, versions, package
    /// answer, `SHA256SUMS`, signature, package) answered after the
    /// latency, one after another, their bodies at the rate. Also prints
    /// the tighter floor of a client that fetches `SHA256SUMS` and its
    /// signature beside the package (what tfdisco does); returns both.
    fn floor(&mut self, registry: &Registry, platform: &str) -> (Duration, Duration) {
        let (provider, chain) = registry
            .providers
            .iter()
            .map(|p| (p, registry.chain(p, platform)))
            .max_by_key(|(_, chain)| chain.last().map(|c| c.1))
            .expect("a provider");
        let shape = self.server.network_shape();
        let mut total = Duration::ZERO;
        let mut tight = Duration::ZERO;
        let mut lines = Vec::new();
        for (what, bytes) in &chain {
            let step = shape.latency + shape.transfer_time(*bytes);
            total += step;
            if !what.starts_with("SHA256SUMS") {
                tight += step;
            }
            lines.push(format!(
                "  {what:<20} {bytes:>9} B: {:>6.1} ms",
                secs(step) * 1e3
            ));
        }
        self.report.out(format!(
            "floor ({} {} {platform}): {:.3} s =",
            provider.name,
            provider.version,
            secs(total)
        ));
        for line in lines {
            self.report.out(line);
        }
        self.report.out(format!(
            "(with SHA256SUMS and its signature fetched beside the package rather than before it: {:.3} s)",
            secs(tight)
        ));
        (total, tight)
    }

    fn tfdisco_args(&self, command: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec![
            command.to_owned(),
            "--dialect".to_owned(),
            "terraform".to_owned(),
            "--ca-file".to_owned(),
            pki().ca_file().display().to_string(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    }

    /// The tree and lock file of an install in `dir`: the first is the
    /// reference, every later one must be the same.
    fn check_install(&mut self, expected: &mut Option<(String, Vec<u8>)>, tool: &str, dir: &Path) {
        let tree = tree_manifest(dir, None);
        let lock = fs::read(dir.join(LOCK_FILE)).unwrap_or_default();
        match expected {
            None => *expected = Some((tree, lock)),
            Some((t, l)) => {
                if *t != tree {
                    self.report.fail(format!(
                        "{tool} installed another tree in {}:\n{tree}\nexpected:\n{t}",
                        dir.display()
                    ));
                }
                if *l != lock {
                    self.report.fail(format!(
                        "{tool} wrote another lock file in {}:\n{}\nexpected:\n{}",
                        dir.display(),
                        String::from_utf8_lossy(&lock),
                        String::from_utf8_lossy(l)
                    ));
                }
            }
        }
    }

    fn install(&mut self, registry: &Registry) {
        let runs = self.args.runs;
        let main_tf = self.main_tf(&registry.namespace, &INSTALL_PROVIDERS);
        let terraform = PathBuf::from("terraform");
        let tfdisco = self.args.tfdisco.clone();
        let tf_args: Vec<String> = ["init", "-backend=false", "-input=false", "-no-color"]
            .map(str::to_owned)
            .to_vec();
        let extra: Vec<&str> = self.args.install_args.iter().map(String::as_str).collect();
        let td_args = self.tfdisco_args("install", &extra);
        self.report
            .out("\n## install: 4 providers, 16 MiB packages, fresh folders\n");
        let (floor, tight) = self.floor(registry, &registry::current_platform());

        let mut expected: Option<(String, Vec<u8>)> = None;
        // One untimed run of each first (the binaries into the page cache),
        // Terraform's tree and lock file the reference.
        for (tool, program, args) in [
            ("terraform", &terraform, &tf_args),
            ("tfdisco", &tfdisco, &td_args),
        ] {
            let dir = self.fresh(&format!("install-warm-{tool}"), &main_tf);
            self.run(&dir, program, args);
            self.check_install(&mut expected, tool, &dir);
        }
        let (tree, lock) = expected.clone().expect("a reference");
        self.report.out(format!(
            "tree: {} lines, lock file: {} bytes (the same after every run, both tools)",
            tree.lines().count(),
            lock.len()
        ));
        fs::write(self.args.work.join("install-tree.txt"), &tree).expect("write");
        fs::write(self.args.work.join("install.lock.hcl"), &lock).expect("write");

        let mut tf: Vec<Measure> = Vec::new();
        let mut td: Vec<Measure> = Vec::new();
        for i in 0..runs {
            let order = if i % 2 == 0 {
                ["terraform", "tfdisco"]
            } else {
                ["tfdisco", "terraform"]
            };
            for tool in order {
                let dir = self.fresh(&format!("install-{tool}-{i}"), &main_tf);
                let m = if tool == "terraform" {
                    self.run(&dir, &terraform, &tf_args)
                } else {
                    self.run(&dir, &tfdisco, &td_args)
                };
                self.check_install(&mut expected, tool, &dir);
                let _ = fs::remove_dir_all(&dir);
                eprintln!("install {i} {tool}: {:.3} s, {} kB", secs(m.wall), m.rss_kb);
                if tool == "terraform" {
                    &mut tf
                } else {
                    &mut td
                }
                .push(m);
            }
        }
        self.table("install", &tf, &td, None);
        let tf_med = median(&walls(&tf));
        let td_med = median(&walls(&td));
        let speedup = tf_med / td_med;
        let to_floor = td_med / secs(floor);
        self.report.out(format!(
            "\nterraform init / tfdisco install: {speedup:.2}× (target ≥ {TARGET_SPEEDUP}×: {})",
            met(speedup >= TARGET_SPEEDUP)
        ));
        self.report.out(format!(
            "tfdisco install / floor ({:.3} s): {to_floor:.2}× (target ≤ {TARGET_FLOOR}×: {})",
            secs(floor),
            met(to_floor <= TARGET_FLOOR)
        ));
        self.report.out(format!(
            "tfdisco install / the tighter floor ({:.3} s): {:.2}×; terraform init / floor: {:.2}×",
            secs(tight),
            td_med / secs(tight),
            tf_med / secs(floor)
        ));
        if speedup < TARGET_SPEEDUP {
            self.report
                .failures
                .push(format!("install speed-up {speedup:.2}×"));
        }
        if to_floor > TARGET_FLOOR {
            self.report
                .failures
                .push(format!("install at {to_floor:.2}× the floor"));
        }
        self.timelines("install", &tf, &td, floor);
    }

    fn lock(&mut self, registry: &Registry) {
        let runs = self.args.runs;
        let providers = &INSTALL_PROVIDERS[..2];
        let main_tf = self.main_tf(&registry.namespace, providers);
        let platforms = registry::platforms();
        let mut tf_args = vec!["providers".to_owned(), "lock".to_owned()];
        let mut extra = Vec::new();
        for p in &platforms {
            tf_args.push(format!("-platform={p}"));
            extra.push("--platform");
            extra.push(p.as_str());
        }
        let td_args = self.tfdisco_args("lock", &extra);
        self.report.out(format!(
            "\n## lock: 2 providers × 3 platforms ({}), 16 MiB packages, no lock file\n",
            platforms.join(", ")
        ));
        // Every platform's package has the same size: any is the floor's.
        let (floor, tight) = self.floor(registry, &platforms[2]);
        let mut tools: Vec<(String, PathBuf, Vec<String>)> = vec![
            ("terraform".to_owned(), PathBuf::from("terraform"), tf_args),
            (
                "tfdisco".to_owned(),
                self.args.tfdisco.clone(),
                td_args.clone(),
            ),
        ];
        if let Some(before) = self.args.before.clone() {
            tools.push(("before".to_owned(), before, td_args));
        }
        let mut expected: Option<Vec<u8>> = None;
        let mut results: Vec<Vec<Measure>> = vec![Vec::new(); tools.len()];
        for i in 0..=runs {
            let n = tools.len();
            for k in 0..n {
                let t = (i + k) % n;
                let (tool, program, args) = tools[t].clone();
                let dir = self.fresh(&format!("lock-{tool}-{i}"), &main_tf);
                let m = self.run(&dir, &program, &args);
                let lock = fs::read(dir.join(LOCK_FILE)).unwrap_or_default();
                match &expected {
                    None => {
                        fs::write(self.args.work.join("lock.lock.hcl"), &lock).expect("write");
                        expected = Some(lock);
                    }
                    Some(l) if *l != lock => self.report.fail(format!(
                        "{tool}'s lock file differs:\n{}\nexpected:\n{}",
                        String::from_utf8_lossy(&lock),
                        String::from_utf8_lossy(l)
                    )),
                    Some(_) => {}
                }
                let _ = fs::remove_dir_all(&dir);
                // Run 0 is the untimed warm-up.
                if i > 0 {
                    eprintln!("lock {i} {tool}: {:.3} s", secs(m.wall));
                    results[t].push(m);
                }
            }
        }
        self.report.out(format!(
            "lock file: {} bytes, the same from every run of every tool",
            expected.map_or(0, |l| l.len())
        ));
        let before = results.get(2).cloned();
        self.table("lock", &results[0], &results[1], before.as_deref());
        let tf_med = median(&walls(&results[0]));
        let td_med = median(&walls(&results[1]));
        self.report.out(format!(
            "\nterraform providers lock / tfdisco lock: {:.2}× (as given: 6.0×)",
            tf_med / td_med
        ));
        self.report.out(format!(
            "tfdisco lock / floor ({:.3} s): {:.2}× (as given: 1.08 s against a floor near 0.9 s); / the tighter floor ({:.3} s): {:.2}×",
            secs(floor),
            td_med / secs(floor),
            secs(tight),
            td_med / secs(tight)
        ));
        let (against, what) = match &before {
            Some(b) => (median(&walls(b)), "the build before the install work"),
            None => (secs(GIVEN_LOCK), "the given 1.08 s"),
        };
        let ratio = td_med / against;
        self.report.out(format!(
            "tfdisco lock / {what}: {ratio:.2}× (target ≤ {LOCK_STAYS}×: {})",
            met(ratio <= LOCK_STAYS)
        ));
        if ratio > LOCK_STAYS {
            self.report
                .failures
                .push(format!("lock at {ratio:.2}× {what}"));
        }
        self.timelines("lock", &results[0], &results[1], floor);
    }

    fn rss(&mut self, registries: &[(usize, Registry)]) {
        self.report.out(format!(
            "\n## peak RSS: tfdisco install --jobs 8, 8 providers, packages of {}\n",
            registries
                .iter()
                .map(|(s, _)| size_name(*s))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let tfdisco = self.args.tfdisco.clone();
        let args = self.tfdisco_args("install", &["--jobs", "8"]);
        let mut rss: Vec<Vec<Measure>> = vec![Vec::new(); registries.len()];
        for i in 0..=self.args.rss_runs {
            for k in 0..registries.len() {
                let r = (i + k) % registries.len();
                let (size, registry) = &registries[r];
                let main_tf = self.main_tf(&registry.namespace, &RSS_PROVIDERS);
                let dir = self.fresh(&format!("rss-{size}-{i}"), &main_tf);
                let m = self.run(&dir, &tfdisco, &args);
                let _ = fs::remove_dir_all(&dir);
                if i > 0 {
                    eprintln!("rss {i} {}: {} kB", size_name(*size), m.rss_kb);
                    rss[r].push(m);
                }
            }
        }
        self.report.out("| packages | wall, median (IQR) | peak RSS, median (min–max) | CPU, median | connections |");
        self.report.out("|---|---:|---:|---:|---:|");
        let mut medians = Vec::new();
        let mut worst = 0;
        for ((size, _), ms) in registries.iter().zip(&rss) {
            let kb: Vec<f64> = ms.iter().map(|m| m.rss_kb as f64).collect();
            let max = ms.iter().map(|m| m.rss_kb).max().unwrap_or(0);
            let min = ms.iter().map(|m| m.rss_kb).min().unwrap_or(0);
            worst = worst.max(max);
            medians.push(median(&kb));
            self.report.out(format!(
                "| 8 × {} | {} | {:.1} MiB ({:.1}–{:.1}) | {:.3} s | {} |",
                size_name(*size),
                summary(&walls(ms)),
                median(&kb) / 1024.0,
                min as f64 / 1024.0,
                max as f64 / 1024.0,
                median(&ms.iter().map(|m| secs(m.cpu)).collect::<Vec<_>>()),
                ms.first().map_or(0, Measure::connections)
            ));
        }
        let spread = medians.iter().copied().fold(f64::MIN, f64::max)
            - medians.iter().copied().fold(f64::MAX, f64::min);
        self.report.out(format!(
            "\nlargest peak RSS {:.1} MiB (target ≤ {} MiB: {}); medians differ by {:.1} MiB across sizes (≤ {} MiB: {})",
            worst as f64 / 1024.0,
            TARGET_RSS_KB / 1024,
            met(worst <= TARGET_RSS_KB),
            spread / 1024.0,
            RSS_SPREAD_KB / 1024,
            met(spread <= RSS_SPREAD_KB as f64)
        ));
        if worst > TARGET_RSS_KB {
            self.report.failures.push(format!("peak RSS {worst} kB"));
        }
        if spread > RSS_SPREAD_KB as f64 {
            self.report
                .failures
                .push(format!("peak RSS grows with the package: {spread} kB"));
        }
    }

    fn table(&mut self, what: &str, tf: &[Measure], td: &[Measure], before: Option<&[Measure]>) {
        self.report.out(format!(
            "\n{} alternating runs of each; wall median (IQR); per-run ratio median (min–max):\n",
            tf.len()
        ));
        self.report
            .out("| tool | wall | CPU | peak RSS | requests | connections |");
        self.report.out("|---|---:|---:|---:|---:|---:|");
        let mut rows: Vec<(&str, &[Measure])> = vec![("terraform", tf), ("tfdisco", td)];
        if let Some(b) = before {
            rows.push(("tfdisco (before)", b));
        }
        for (name, ms) in rows {
            self.report.out(measure_row(&format!("{name} {what}"), ms));
        }
        self.report.out(per_pair_line(tf, td));
        let all: Vec<String> = td.iter().map(|m| format!("{:.3}", secs(m.wall))).collect();
        self.report
            .out(format!("tfdisco runs (s): {}", all.join(", ")));
        let all: Vec<String> = tf.iter().map(|m| format!("{:.3}", secs(m.wall))).collect();
        self.report
            .out(format!("terraform runs (s): {}", all.join(", ")));
    }

    /// When each request of the median run of each tool arrived, and where
    /// tfdisco's time went against the floor.
    fn timelines(&mut self, what: &str, tf: &[Measure], td: &[Measure], floor: Duration) {
        let shape = self.server.network_shape();
        let mut text = String::new();
        for (tool, ms) in [("terraform", tf), ("tfdisco", td)] {
            let m = median_run(ms);
            let _ = writeln!(
                text,
                "# {tool} {what}, its median run: {:.3} s, {} requests on {} connections",
                secs(m.wall),
                m.requests.len(),
                m.connections()
            );
            for (at, method, path, conn) in &m.requests {
                let _ = writeln!(
                    text,
                    "{:>8.1} ms  conn {conn:>2}  {method} {path}",
                    secs(*at) * 1e3
                );
            }
            text.push('\n');
        }
        let file = self.args.work.join(format!("{what}-timeline.txt"));
        fs::write(&file, &text).expect("write the timeline");
        self.report.out(format!(
            "\nrequest timelines of the median runs: {}",
            file.display()
        ));
        // tfdisco's time, run by run: until its first request, until its
        // last package request, that package's answer at the shape's pace,
        // and what is left after its last byte.
        self.report.out(format!(
            "\ntfdisco {what}, per run (ms): first request / last package request / \
             its last byte due / exit (after that byte)"
        ));
        let mut rows = Vec::new();
        for m in td {
            let first = m.requests.first().map_or(Duration::ZERO, |r| r.0);
            let last_pkg = m
                .requests
                .iter()
                .filter(|r| r.2.ends_with(".zip"))
                .map(|r| r.0)
                .max()
                .unwrap_or(Duration::ZERO);
            let due = last_pkg + shape.latency + shape.transfer_time(PACKAGE as u64);
            rows.push(format!(
                "{:.0} / {:.0} / {:.0} / {:.0} (+{:.0})",
                secs(first) * 1e3,
                secs(last_pkg) * 1e3,
                secs(due) * 1e3,
                secs(m.wall) * 1e3,
                (secs(m.wall) - secs(due)) * 1e3
            ));
        }
        for row in rows {
            self.report.out(format!("  {row}"));
        }
        self.report
            .out(format!("  (floor {:.0} ms)", secs(floor) * 1e3));
    }
}

fn size_name(size: usize) -> String {
    if size >= 1 << 20 && size.is_multiple_of(1 << 20) {
        format!("{} MiB", size >> 20)
    } else if size >= 1 << 10 && size.is_multiple_of(1 << 10) {
        format!("{} KiB", size >> 10)
    } else {
        format!("{size} B")
    }
}

fn main() {
    let args = parse_args();
    let _ = fs::remove_dir_all(&args.work);
    fs::create_dir_all(&args.work).expect("the work folder");
    fs::write(args.work.join("terraformrc"), "disable_checkpoint = true\n").expect("terraformrc");
    let only = args.only.clone();
    let wants = |part: &str| only.as_deref().is_none_or(|o| o == part);

    let made = Instant::now();
    let signer = Signer::new(&args.work.join("gnupg")).expect("a signing key (gpg)");
    let platforms = registry::platforms();
    let bench = Registry::make("bench", &INSTALL_PROVIDERS, &platforms, PACKAGE, &signer)
        .expect("the registry");
    let mut rss_registries = Vec::new();
    if wants("rss") {
        for size in &args.rss_sizes {
            let namespace = format!("rss{size}");
            let registry =
                Registry::make(&namespace, &RSS_PROVIDERS, &platforms[..1], *size, &signer)
                    .expect("a registry");
            rss_registries.push((*size, registry));
        }
    }
    let made = made.elapsed();

    let server = TestServer::start();
    registry::serve_discovery(&server);
    bench.install(&server);
    for (_, registry) in &rss_registries {
        registry.install(&server);
    }
    server.shape(NetworkShape {
        latency: LATENCY,
        rate: Some(RATE),
    });
    let host = format!("127.0.0.1:{}", server.port());

    let runner = Runner::new(&args.timed, &args.work);
    let mut b = Bench {
        args,
        runner,
        server,
        host,
        report: Report::default(),
    };
    b.report.out("# install-bench");
    b.report.out(format!(
        "terraform: {}",
        first_line("terraform", &["version"])
    ));
    b.report
        .out(format!("tfdisco:   {}", tfdisco_version(&b.args.tfdisco)));
    if let Some(before) = &b.args.before {
        let before = before.display().to_string();
        b.report.out(format!(
            "before:    {} ({before})",
            first_line(&before, &["--version"])
        ));
    }
    b.report.out(format!(
        "env:       SSL_CERT_FILE={} (the test CA), SSL_CERT_DIR={} (inherited), TF_CLI_CONFIG_FILE={}",
        pki().ca_file().display(),
        std::env::var("SSL_CERT_DIR").unwrap_or_else(|_| "(unset)".to_owned()),
        b.args.work.join("terraformrc").display()
    ));
    b.report.out(format!(
        "machine:   {} CPUs, load average {} at the start",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg()
    ));
    b.report.out(format!(
        "network:   every answer after {} ms, bodies at {} MB/s per connection; registry {} (made in {:.1} s, key {})",
        LATENCY.as_millis(),
        RATE / 1_000_000,
        b.host,
        secs(made),
        signer.key_id()
    ));
    let started = Instant::now();
    if wants("install") {
        b.install(&bench);
    }
    if wants("lock") {
        b.lock(&bench);
    }
    if wants("rss") {
        b.rss(&rss_registries);
    }
    b.report.out(format!(
        "\nload average {} at the end ({:.0} s)",
        loadavg(),
        secs(started.elapsed())
    ));
    let passed = b.report.finish(
        &b.args.work,
        "every target met, every check passed",
        "MISSED or FAILED",
    );
    drop(signer);
    if !passed {
        std::process::exit(1);
    }
}
