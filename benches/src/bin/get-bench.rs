//! The module benchmark: `tfdisco get --dialect terraform` against
//! `terraform get`, as whole processes in alternating runs, each in a
//! fresh copy of one root configuration, against one loopback module
//! registry ([`tfdisco_benches::module_registry`]) behind the install
//! benchmark's network: every request answered after 40 ms, each
//! connection's bodies sent at 25 MB/s ([`NetworkShape`]).
//!
//! ```text
//! sh benches/get.sh [RUNS]          # builds everything, then runs this
//! get-bench --tfdisco PATH --timed PATH [--runs N] [--jobs N] [--work DIR]
//!           [--get-arg=ARG ...]
//! ```
//!
//! The registry: twelve modules the root configuration calls (`m01` to
//! `m12`, stored zips of 2 to 4 MiB), four of which (`m02`, `m05`, `m08`,
//! `m11`) call a module of their own (`lib02` … `lib11`, 1 MiB each), so a
//! client meets those calls only once the caller's package is unpacked.
//! Each module has versions 1.0.0, 1.1.0 and 2.0.0 (`~> 1.0` takes 1.1.0)
//! and its download answers `204` with `X-Terraform-Get: ./pkg.zip`. The
//! host is `registry.example.test`, which the CLI configuration's `host`
//! block points at the server's `modules.v1` (as the module goldens do),
//! `SSL_CERT_FILE` the test CA.
//!
//! One untimed run of each tool first; Terraform's `.terraform/modules`
//! (its [manifest](module_tree): paths, modes, contents) and
//! `modules.json` are the reference, and every later run of either tool
//! must leave the same, byte for byte. Each run is timed by
//! `benches/c/timed.c`. Prints medians and interquartile ranges, the
//! ratios, the network's floor (the longest chain of requests, and all
//! requests' time shared among `--jobs` slots: no schedule is shorter than
//! either) and tfdisco's ratio to it, when each of tfdisco's requests came
//! in its median run, and whether each target is met; writes the report
//! to `WORK/report.md` and the request timelines beside it; exits with
//! status 1 when a target is missed or a check fails (and panics, naming
//! the command and showing its output, when a run fails). Last, the shared
//! module cache: a second working directory, with the first's module lock
//! and the cache the first filled, must install with no archive
//! downloaded.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tfdisco_benches::module_registry::{self, Registry, floor};
use tfdisco_benches::process_runs::{
    Measure, Report, Runner, first_line, fresh_run, loadavg, measure_row, median, median_run, met,
    per_pair_line, secs, tfdisco_version, walls,
};
use tfdisco_testkit::module_goldens::{MODULES_DIR, MODULES_JSON, REGISTRY_HOST, module_tree};
use tfdisco_testkit::{NetworkShape, TestServer, pki};

/// The targets' network.
const LATENCY: Duration = Duration::from_millis(40);
const RATE: u64 = 25_000_000;

/// `tfdisco get` at least this many times faster than `terraform get`.
const TARGET_SPEEDUP: f64 = 3.0;
/// `tfdisco get` within this many times the network's floor.
const TARGET_FLOOR: f64 = 1.3;

const MIB: usize = 1 << 20;
/// The modules the root calls: name, archive size, the module it calls.
const TOP: [(&str, usize, Option<&str>); 12] = [
    ("m01", 2 * MIB, None),
    ("m02", 7 * MIB / 2, Some("lib02")),
    ("m03", 5 * MIB / 2, None),
    ("m04", 4 * MIB, None),
    ("m05", 3 * MIB, Some("lib05")),
    ("m06", 9 * MIB / 4, None),
    ("m07", 15 * MIB / 4, None),
    ("m08", 11 * MIB / 4, Some("lib08")),
    ("m09", 13 * MIB / 4, None),
    ("m10", 2 * MIB, None),
    ("m11", 4 * MIB, Some("lib11")),
    ("m12", 3 * MIB, None),
];
/// The modules only packages call.
const LEAVES: [(&str, usize); 4] = [
    ("lib02", MIB),
    ("lib05", MIB),
    ("lib08", MIB),
    ("lib11", MIB),
];

struct Args {
    tfdisco: PathBuf,
    timed: PathBuf,
    runs: usize,
    jobs: usize,
    work: PathBuf,
    /// More arguments for `tfdisco get` (an experiment).
    get_args: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: get-bench --tfdisco PATH --timed PATH [--runs N] [--jobs N] [--work DIR] \
         [--get-arg=ARG ...]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        tfdisco: PathBuf::new(),
        timed: PathBuf::new(),
        runs: 5,
        jobs: 8,
        work: std::env::temp_dir().join("tfdisco-get-bench"),
        get_args: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        if let Some(extra) = arg.strip_prefix("--get-arg=") {
            args.get_args.push(extra.to_owned());
            continue;
        }
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--tfdisco" => args.tfdisco = value().into(),
            "--timed" => args.timed = value().into(),
            "--runs" => args.runs = value().parse().unwrap_or_else(|_| usage()),
            "--jobs" => args.jobs = value().parse().unwrap_or_else(|_| usage()),
            "--work" => args.work = value().into(),
            _ => usage(),
        }
    }
    if args.tfdisco.as_os_str().is_empty()
        || args.timed.as_os_str().is_empty()
        || args.runs == 0
        || args.jobs == 0
    {
        usage();
    }
    args
}

/// The same environment for both tools: the test CA, the CLI
/// configuration with the registry host's `host` block, an empty home, no
/// proxies, none of the caller's `TF_*` settings.
fn environment(work: &Path) -> [(&'static str, OsString); 4] {
    [
        ("SSL_CERT_FILE", pki().ca_file().into()),
        ("TF_CLI_CONFIG_FILE", work.join("terraformrc").into()),
        ("HOME", work.join("home").into()),
        ("CHECKPOINT_DISABLE", "1".into()),
    ]
}

struct Bench {
    args: Args,
    runner: Runner,
    server: TestServer,
    registry: Registry,
    report: Report,
}

/// What a run left: the manifest of `.terraform/modules` and
/// `modules.json`.
type Left = (String, Vec<u8>);

impl Bench {
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

    /// The tree and `modules.json` of a run in `dir`: the first is the
    /// reference, every later one must be the same.
    fn check(&mut self, expected: &mut Option<Left>, tool: &str, dir: &Path) {
        let tree = module_tree(dir);
        let json = fs::read(dir.join(MODULES_DIR).join(MODULES_JSON)).unwrap_or_default();
        match expected {
            None => *expected = Some((tree, json)),
            Some((t, j)) => {
                if *t != tree {
                    self.report.fail(format!(
                        "{tool} left another .terraform/modules in {}:\n{tree}\nexpected:\n{t}",
                        dir.display()
                    ));
                }
                if *j != json {
                    self.report.fail(format!(
                        "{tool} wrote another modules.json in {}:\n{}\nexpected:\n{}",
                        dir.display(),
                        String::from_utf8_lossy(&json),
                        String::from_utf8_lossy(j)
                    ));
                }
            }
        }
    }

    /// Prints the floor; returns it as the targets define it (discovery
    /// first) and without the discovery request.
    fn floor(&mut self) -> (Duration, Duration) {
        let shape = self.server.network_shape();
        let jobs = self.args.jobs;
        let with = floor(&self.registry.jobs(true), shape, jobs);
        let without = floor(&self.registry.jobs(false), shape, jobs);
        self.report.out(format!(
            "floor: {:.3} s, the larger of the longest chain of requests ({:.3} s) and all \
             requests' time over {jobs} slots ({:.3} s):",
            secs(with.bound),
            secs(with.critical_path),
            secs(with.work_per_slot)
        ));
        for (what, took) in &with.chain {
            self.report
                .out(format!("  {what:<20} {:>6.1} ms", secs(*took) * 1e3));
        }
        self.report.out(format!(
            "(a critical-path-first schedule of the requests on {jobs} slots takes {:.3} s; \
             without the discovery request, which the CLI configuration's host block makes \
             unnecessary: floor {:.3} s, schedule {:.3} s)",
            secs(with.schedule),
            secs(without.bound),
            secs(without.schedule)
        ));
        (with.bound, without.bound)
    }

    fn get(&mut self) {
        let runs = self.args.runs;
        let main_tf = self.registry.main_tf();
        let terraform = PathBuf::from("terraform");
        let tfdisco = self.args.tfdisco.clone();
        let tf_args: Vec<String> = ["get", "-no-color"].map(str::to_owned).to_vec();
        let mut td_args: Vec<String> = [
            "get",
            "--dialect",
            "terraform",
            "--jobs",
            &self.args.jobs.to_string(),
        ]
        .map(str::to_owned)
        .to_vec();
        td_args.extend(self.args.get_args.iter().cloned());
        self.report.out(format!(
            "\n## get: {} modules called by the root, {} by packages, {:.1} MiB of stored zips, fresh folders\n",
            self.registry.top.len(),
            self.registry.modules.len() - self.registry.top.len(),
            self.registry.total_bytes() as f64 / MIB as f64
        ));
        self.report.out(format!(
            "terraform {}\ntfdisco {}",
            tf_args.join(" "),
            td_args.join(" ")
        ));
        let (floor, tight) = self.floor();

        let mut expected: Option<Left> = None;
        // One untimed run of each first (the binaries into the page cache),
        // Terraform's tree and modules.json the reference.
        for (tool, program, args) in [
            ("terraform", &terraform, &tf_args),
            ("tfdisco", &tfdisco, &td_args),
        ] {
            let dir = fresh_run(&self.args.work, &format!("get-warm-{tool}"), &main_tf);
            self.run(&dir, program, args);
            self.check(&mut expected, tool, &dir);
        }
        let (tree, json) = expected.clone().expect("a reference");
        self.report.out(format!(
            "tree: {} lines, modules.json: {} bytes (checked after every run, both tools)",
            tree.lines().count(),
            json.len()
        ));
        fs::write(self.args.work.join("get-tree.txt"), &tree).expect("write");
        fs::write(self.args.work.join("modules.json"), &json).expect("write");

        let mut tf: Vec<Measure> = Vec::new();
        let mut td: Vec<Measure> = Vec::new();
        for i in 0..runs {
            let order = if i % 2 == 0 {
                ["terraform", "tfdisco"]
            } else {
                ["tfdisco", "terraform"]
            };
            for tool in order {
                let dir = fresh_run(&self.args.work, &format!("get-{tool}-{i}"), &main_tf);
                let m = if tool == "terraform" {
                    self.run(&dir, &terraform, &tf_args)
                } else {
                    self.run(&dir, &tfdisco, &td_args)
                };
                self.check(&mut expected, tool, &dir);
                let _ = fs::remove_dir_all(&dir);
                eprintln!("get {i} {tool}: {:.3} s, {} kB", secs(m.wall), m.rss_kb);
                if tool == "terraform" {
                    &mut tf
                } else {
                    &mut td
                }
                .push(m);
            }
        }
        self.table(&tf, &td);
        let tf_med = median(&walls(&tf));
        let td_med = median(&walls(&td));
        let speedup = tf_med / td_med;
        let to_floor = td_med / secs(floor);
        self.report.out(format!(
            "\nterraform get / tfdisco get: {speedup:.2}× (target ≥ {TARGET_SPEEDUP}×: {})",
            met(speedup >= TARGET_SPEEDUP)
        ));
        self.report.out(format!(
            "tfdisco get / floor ({:.3} s): {to_floor:.2}× (target ≤ {TARGET_FLOOR}×: {}); \
             / the floor without discovery ({:.3} s): {:.2}×",
            secs(floor),
            met(to_floor <= TARGET_FLOOR),
            secs(tight),
            td_med / secs(tight)
        ));
        if speedup < TARGET_SPEEDUP {
            self.report
                .failures
                .push(format!("get speed-up {speedup:.2}×"));
        }
        if to_floor > TARGET_FLOOR {
            self.report
                .failures
                .push(format!("get at {to_floor:.2}× the floor"));
        }
        self.timelines(&tf, &td, floor);
        self.warm_cache(&td_args, &mut expected);
    }

    /// The shared module cache: `tfdisco get --lock --module-cache DIR` in
    /// one working directory (the cache empty), then `get --module-cache
    /// DIR` in a second one that has only the first's module lock: its
    /// packages come from the cache, with no archive downloaded, and its
    /// tree is the reference's.
    fn warm_cache(&mut self, td_args: &[String], expected: &mut Option<Left>) {
        let main_tf = self.registry.main_tf();
        let cache = self.args.work.join("module-cache");
        let _ = fs::remove_dir_all(&cache);
        let with_cache = |extra: &[&str]| -> Vec<String> {
            let mut args = td_args.to_vec();
            args.extend(["--module-cache", &cache.to_string_lossy()].map(str::to_owned));
            args.extend(extra.iter().map(|a| (*a).to_owned()));
            args
        };
        let tfdisco = self.args.tfdisco.clone();
        let first = fresh_run(&self.args.work, "get-cache-first", &main_tf);
        let cold = self.run(&first, &tfdisco, &with_cache(&["--lock"]));
        self.check(expected, "tfdisco (cold cache)", &first);
        let second = fresh_run(&self.args.work, "get-cache-second", &main_tf);
        let lock = tfdisco_config::MODULE_LOCK_FILE;
        fs::copy(first.join(lock), second.join(lock)).expect("the module lock");
        let warm = self.run(&second, &tfdisco, &with_cache(&[]));
        self.check(expected, "tfdisco (warm cache)", &second);
        let archives = |m: &Measure| m.requests.iter().filter(|r| r.2.ends_with(".zip")).count();
        self.report.out(format!(
            "\nmodule cache: a first working directory with `--lock` and an empty cache \
             {:.3} s ({} requests, {} archives); a second one with its module lock and the \
             warm cache {:.3} s ({} requests, {} archives: target 0, {})",
            secs(cold.wall),
            cold.requests.len(),
            archives(&cold),
            secs(warm.wall),
            warm.requests.len(),
            archives(&warm),
            met(archives(&warm) == 0)
        ));
        if archives(&warm) > 0 {
            self.report.failures.push(format!(
                "{} archives downloaded with a warm module cache",
                archives(&warm)
            ));
        }
        for dir in [first, second] {
            let _ = fs::remove_dir_all(dir);
        }
    }

    fn table(&mut self, tf: &[Measure], td: &[Measure]) {
        self.report.out(format!(
            "\n{} alternating runs of each; wall median (IQR):\n",
            tf.len()
        ));
        self.report
            .out("| tool | wall | CPU | peak RSS | requests | connections |");
        self.report.out("|---|---:|---:|---:|---:|---:|");
        for (name, ms) in [("terraform get", tf), ("tfdisco get", td)] {
            self.report.out(measure_row(name, ms));
        }
        self.report.out(per_pair_line(tf, td));
        for (name, ms) in [("tfdisco", td), ("terraform", tf)] {
            let all: Vec<String> = ms.iter().map(|m| format!("{:.3}", secs(m.wall))).collect();
            self.report
                .out(format!("{name} runs (s): {}", all.join(", ")));
        }
    }

    /// When each request of the median run of each tool arrived (to a
    /// file), and where tfdisco's time went in each run against the
    /// floor.
    fn timelines(&mut self, tf: &[Measure], td: &[Measure], floor: Duration) {
        let shape = self.server.network_shape();
        let mut text = String::new();
        for (tool, ms) in [("terraform", tf), ("tfdisco", td)] {
            let m = median_run(ms);
            let _ = writeln!(
                text,
                "# {tool} get, its median run: {:.3} s, {} requests on {} connections",
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
        let file = self.args.work.join("get-timeline.txt");
        fs::write(&file, &text).expect("write the timeline");
        self.report.out(format!(
            "\nrequest timelines of the median runs: {}",
            file.display()
        ));
        // tfdisco's time, run by run: until its first request, until its
        // last archive request, that archive's last byte at the shape's
        // pace, and what is left after the last byte of any archive.
        self.report.out(
            "\ntfdisco get, per run (ms): first request / last archive request / \
             last archive byte due / exit (after that byte)",
        );
        let mut rows = Vec::new();
        for m in td {
            let first = m.requests.first().map_or(Duration::ZERO, |r| r.0);
            let archives: Vec<(Duration, Duration)> = m
                .requests
                .iter()
                .filter(|r| r.1 == "GET")
                .filter_map(|r| {
                    let module = self.registry.archive_at(&r.2)?;
                    Some((
                        r.0,
                        r.0 + shape.latency + shape.transfer_time(module.archive.len() as u64),
                    ))
                })
                .collect();
            let last_request = archives.iter().map(|a| a.0).max().unwrap_or_default();
            let due = archives.iter().map(|a| a.1).max().unwrap_or_default();
            rows.push(format!(
                "{:.0} / {:.0} / {:.0} / {:.0} (+{:.0})",
                secs(first) * 1e3,
                secs(last_request) * 1e3,
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
        self.levels(&median_run(td));
    }

    /// For tfdisco's median run, module by module: when its versions,
    /// download and archive were asked and when the archive's last byte
    /// was due; for a module a package calls, how long after its
    /// caller's last byte its versions were asked (unpacking, reading the
    /// calls, waiting for a slot).
    fn levels(&mut self, m: &Measure) {
        let shape = self.server.network_shape();
        let when = |suffix: &str, name: &str| {
            m.requests
                .iter()
                .find(|r| {
                    r.1 == "GET"
                        && r.2.starts_with(&format!(
                            "{}{}/{name}/",
                            module_registry::MODULES_PATH,
                            self.registry.namespace
                        ))
                        && r.2.ends_with(suffix)
                })
                .map(|r| r.0)
        };
        let ms =
            |d: Option<Duration>| d.map_or("-".to_owned(), |d| format!("{:.0}", secs(d) * 1e3));
        let mut lines = vec![format!(
            "\ntfdisco's median run ({:.3} s), module by module (ms from the start): versions / download / pkg.zip / its last byte due",
            secs(m.wall)
        )];
        let mut due_of: Vec<(String, Option<Duration>)> = Vec::new();
        for module in &self.registry.modules {
            let zip = when("/pkg.zip", &module.name);
            let due =
                zip.map(|z| z + shape.latency + shape.transfer_time(module.archive.len() as u64));
            due_of.push((module.name.clone(), due));
        }
        for module in &self.registry.modules {
            let versions = when("/versions", &module.name);
            let due = due_of.iter().find(|d| d.0 == module.name).and_then(|d| d.1);
            let mut line = format!(
                "  {:<6} {:>5} / {:>5} / {:>5} / {:>5}",
                module.name,
                ms(versions),
                ms(when("/download", &module.name)),
                ms(when("/pkg.zip", &module.name)),
                ms(due)
            );
            let caller = self
                .registry
                .modules
                .iter()
                .find(|c| c.calls.as_deref() == Some(&module.name));
            if let (Some(caller), Some(v)) = (caller, versions)
                && let Some(cd) = due_of.iter().find(|d| d.0 == caller.name).and_then(|d| d.1)
            {
                let after = (secs(v) - secs(cd)) * 1e3;
                let _ = write!(
                    line,
                    "   (asked {:.0} ms {} {}'s last byte was due)",
                    after.abs(),
                    if after < 0.0 { "before" } else { "after" },
                    caller.name
                );
            }
            lines.push(line);
        }
        for line in lines {
            self.report.out(line);
        }
    }
}

fn main() {
    let args = parse_args();
    let _ = fs::remove_dir_all(&args.work);
    fs::create_dir_all(args.work.join("home")).expect("the work folder");

    let made = Instant::now();
    let registry = Registry::make("bench", &TOP, &LEAVES);
    let made = made.elapsed();

    let server = TestServer::start();
    module_registry::serve_discovery(&server);
    registry.serve(&server);
    server.shape(NetworkShape {
        latency: LATENCY,
        rate: Some(RATE),
    });
    fs::write(
        args.work.join("terraformrc"),
        module_registry::cli_config(&server),
    )
    .expect("terraformrc");

    let runner = Runner::new(&args.timed, &args.work);
    let mut b = Bench {
        args,
        runner,
        server,
        registry,
        report: Report::default(),
    };
    b.report.out("# get-bench");
    b.report.out(format!(
        "terraform: {}",
        first_line("terraform", &["version"])
    ));
    b.report
        .out(format!("tfdisco:   {}", tfdisco_version(&b.args.tfdisco)));
    b.report.out(format!(
        "env:       SSL_CERT_FILE={} (the test CA), TF_CLI_CONFIG_FILE={} (host \"{REGISTRY_HOST}\" → modules.v1 {}), HOME={}",
        pki().ca_file().display(),
        b.args.work.join("terraformrc").display(),
        b.server.url(module_registry::MODULES_PATH),
        b.args.work.join("home").display()
    ));
    b.report.out(format!(
        "machine:   {} CPUs, load average {} at the start",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg()
    ));
    b.report.out(format!(
        "network:   every answer after {} ms, bodies at {} MB/s per connection; registry made in {:.1} s",
        LATENCY.as_millis(),
        RATE / 1_000_000,
        secs(made)
    ));
    let started = Instant::now();
    b.get();
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
    if !passed {
        std::process::exit(1);
    }
}
