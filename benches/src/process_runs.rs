//! Whole processes timed by `benches/c/timed.c` (wall time around
//! fork/exec/`wait4`, `wait4`'s peak RSS and CPU time), and the statistics
//! the process benchmarks report: medians and interquartile ranges of
//! alternating runs; and the rest their reports share (a [`Report`], the
//! tools' versions, the machine's load). Used by the OCI benchmark
//! (`oci-bench`), the install benchmark (`install-bench`) and the module
//! benchmark (`get-bench`), the last two also for the requests a
//! [`TestServer`] saw during each run ([`Measure`]).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tfdisco_testkit::terraform::TF_SETTINGS;
use tfdisco_testkit::{Seen, TestServer};

/// One timed process.
#[derive(Clone, Copy, Debug)]
pub struct Timed {
    /// Wall time, fork to `wait4`.
    pub wall: Duration,
    /// Peak resident set size, kB (`ru_maxrss`).
    pub rss_kb: u64,
    /// User + system CPU time, every thread.
    pub cpu: Duration,
}

/// Runs commands under `timed` (the compiled `benches/c/timed.c`), their
/// output kept in `work/last-run.log`, the timing in `work/timing`.
pub struct Runner {
    timed: PathBuf,
    work: PathBuf,
}

/// The proxy variables a run must not inherit.
const PROXIES: [&str; 8] = [
    "http_proxy",
    "https_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
];

/// Removes from `command`'s environment the proxies and the `TF_*`
/// settings that change what Terraform, OpenTofu or tfdisco do
/// ([`TF_SETTINGS`]): what every benchmark run of a tool starts from.
pub fn clear_environment(command: &mut Command) {
    for name in PROXIES.into_iter().chain(TF_SETTINGS) {
        command.env_remove(name);
    }
}

impl Runner {
    /// A runner of `timed` writing into `work` (which must exist).
    pub fn new(timed: &Path, work: &Path) -> Runner {
        Runner {
            timed: timed.to_owned(),
            work: work.to_owned(),
        }
    }

    /// Runs `program args` in `dir` under `timed`, from
    /// [`clear_environment`] with `env` set; an error (naming the command, with its
    /// output) when it cannot start or exits non-zero.
    pub fn run(
        &self,
        dir: &Path,
        program: &Path,
        args: &[String],
        env: &[(&str, OsString)],
    ) -> Result<Timed, String> {
        let timing = self.work.join("timing");
        let log = self.work.join("last-run.log");
        let log_file = fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err_file = log_file
            .try_clone()
            .map_err(|e| format!("{}: {e}", log.display()))?;
        let mut command = Command::new(&self.timed);
        command
            .arg(&timing)
            .arg(program)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(err_file);
        clear_environment(&mut command);
        for (name, value) in env {
            command.env(name, value);
        }
        let status = command
            .status()
            .map_err(|e| format!("{}: {e}", self.timed.display()))?;
        if !status.success() {
            return Err(format!(
                "{} {} failed ({status}) in {}:\n{}",
                program.display(),
                args.join(" "),
                dir.display(),
                fs::read_to_string(&log).unwrap_or_default()
            ));
        }
        let text = fs::read_to_string(&timing).map_err(|e| format!("the timing file: {e}"))?;
        parse_timing(&text)
    }
}

/// One timed process ([`Timed`]) and the requests a [`TestServer`] saw
/// while it ran ([`Runner::run_seen`]).
#[derive(Clone, Debug)]
pub struct Measure {
    /// Wall time, fork to `wait4`.
    pub wall: Duration,
    /// Peak resident set size, kB.
    pub rss_kb: u64,
    /// User + system CPU time, every thread.
    pub cpu: Duration,
    /// The requests the server saw: when each arrived (from just before
    /// the process was started), its method, its path and its connection.
    pub requests: Vec<(Duration, String, String, u64)>,
}

impl Measure {
    /// How many connections the requests came on.
    pub fn connections(&self) -> usize {
        self.requests
            .iter()
            .map(|r| r.3)
            .collect::<BTreeSet<_>>()
            .len()
    }
}

impl Runner {
    /// [`Runner::run`], with the requests `server` saw during the run
    /// (those before it are dropped).
    pub fn run_seen(
        &self,
        server: &TestServer,
        dir: &Path,
        program: &Path,
        args: &[String],
        env: &[(&str, OsString)],
    ) -> Result<Measure, String> {
        server.take_requests();
        let start = Instant::now();
        let timed = self.run(dir, program, args, env)?;
        let seen = server.take_requests();
        Ok(Measure {
            wall: timed.wall,
            rss_kb: timed.rss_kb,
            cpu: timed.cpu,
            requests: seen
                .iter()
                .map(|s: &Seen| {
                    (
                        s.received.saturating_duration_since(start),
                        s.method.clone(),
                        s.path.clone(),
                        s.connection,
                    )
                })
                .collect(),
        })
    }
}

/// The wall times of `ms`, in seconds.
pub fn walls(ms: &[Measure]) -> Vec<f64> {
    ms.iter().map(|m| secs(m.wall)).collect()
}

/// A report's table row of `ms`: `| LABEL | wall | CPU | peak RSS |
/// requests | connections |`, medians (the wall with its range).
pub fn measure_row(label: &str, ms: &[Measure]) -> String {
    let cpu: Vec<f64> = ms.iter().map(|m| secs(m.cpu)).collect();
    let rss: Vec<f64> = ms.iter().map(|m| m.rss_kb as f64 / 1024.0).collect();
    let requests: Vec<f64> = ms.iter().map(|m| m.requests.len() as f64).collect();
    let conns: Vec<f64> = ms.iter().map(|m| m.connections() as f64).collect();
    format!(
        "| {label} | {} | {:.3} s | {:.1} MiB | {} | {} |",
        summary(&walls(ms)),
        median(&cpu),
        median(&rss),
        median(&requests),
        median(&conns)
    )
}

/// `per pair terraform / tfdisco: R× (MIN–MAX)`: the ratio of each
/// alternating pair's wall times, `tf`'s over `td`'s.
pub fn per_pair_line(tf: &[Measure], td: &[Measure]) -> String {
    let ratios: Vec<f64> = tf
        .iter()
        .zip(td)
        .map(|(a, b)| secs(a.wall) / secs(b.wall))
        .collect();
    let min = ratios.iter().copied().fold(f64::MAX, f64::min);
    let max = ratios.iter().copied().fold(f64::MIN, f64::max);
    format!(
        "\nper pair terraform / tfdisco: {:.2}× ({min:.2}–{max:.2})",
        median(&ratios)
    )
}

/// The run of `ms` with the median wall time (the lower one of an even
/// count).
pub fn median_run(ms: &[Measure]) -> Measure {
    let mut sorted = ms.to_vec();
    sorted.sort_by_key(|m| m.wall);
    sorted[(sorted.len() - 1) / 2].clone()
}

/// `met` or `MISSED`, for a report's target lines.
pub fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "MISSED" }
}

/// A fresh folder `work/runs/NAME` holding `main_tf` as `main.tf`.
pub fn fresh_run(work: &Path, name: &str, main_tf: &str) -> PathBuf {
    let dir = work.join("runs").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("a run folder");
    fs::write(dir.join("main.tf"), main_tf).expect("main.tf");
    dir
}

/// `timed`'s output: `NANOSECONDS KB MICROSECONDS`.
fn parse_timing(text: &str) -> Result<Timed, String> {
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the timing file {text:?}: {e}"))?;
    let [ns, kb, us] = fields[..] else {
        return Err(format!("the timing file {text:?}: three numbers expected"));
    };
    Ok(Timed {
        wall: Duration::from_nanos(ns),
        rss_kb: kb,
        cpu: Duration::from_micros(us),
    })
}

/// First quartile, median, third quartile (linear interpolation between
/// the sorted values); zeros for no values.
pub fn quartiles(values: &[f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = (v.len() - 1) as f64 * q;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
    };
    (at(0.25), at(0.5), at(0.75))
}

/// The median (see [`quartiles`]).
pub fn median(values: &[f64]) -> f64 {
    quartiles(values).1
}

/// `1.234 s (1.200–1.300)`: the median and interquartile range of
/// seconds.
pub fn summary(seconds: &[f64]) -> String {
    let (q1, m, q3) = quartiles(seconds);
    format!("{m:.3} s ({q1:.3}–{q3:.3})")
}

/// Seconds, as the reports' statistics take them.
pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// A benchmark's report: each line printed as it is written and kept for
/// `report.md`, and the failures (missed targets, failed checks).
#[derive(Default)]
pub struct Report {
    text: String,
    /// What failed or missed its target, each in a few words.
    pub failures: Vec<String>,
}

impl Report {
    /// Prints `line` and keeps it.
    pub fn out(&mut self, line: impl AsRef<str>) {
        println!("{}", line.as_ref());
        self.text.push_str(line.as_ref());
        self.text.push('\n');
    }

    /// Writes `FAILED: WHAT` and notes the failure.
    pub fn fail(&mut self, what: String) {
        self.out(format!("FAILED: {what}"));
        self.failures.push(what);
    }

    /// Ends the report with `passed`, or `failed` and the failures, and
    /// writes it as `work/report.md`; true when nothing failed.
    pub fn finish(mut self, work: &Path, passed: &str, failed: &str) -> bool {
        let failures = std::mem::take(&mut self.failures);
        if failures.is_empty() {
            self.out(passed);
        } else {
            self.out(format!("{failed}: {}", failures.join("; ")));
        }
        fs::write(work.join("report.md"), &self.text).expect("the report");
        failures.is_empty()
    }
}

/// The first line `program args` prints (standard output, then standard
/// error), or why it did not run: a tool's version for a report's head.
pub fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .env("CHECKPOINT_DISABLE", "1")
        .output()
        .map(|o| {
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            text.lines().next().unwrap_or("").to_owned()
        })
        .unwrap_or_else(|e| format!("({e})"))
}

/// What a report's head says of `tfdisco`: its version, then its path
/// and the commit of the checkout the benchmark runs in.
pub fn tfdisco_version(tfdisco: &Path) -> String {
    let commit = commit();
    let path = tfdisco.display().to_string();
    format!(
        "{} ({path}, commit {commit})",
        first_line(&path, &["--version"])
    )
}

/// The short commit of the checkout the benchmark runs in (empty when git
/// does not say).
pub fn commit() -> String {
    Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// The machine's load averages (`/proc/loadavg`'s first three fields).
pub fn loadavg() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The CPU time (user + system, every thread, living or gone) process
/// `pid` has used so far, from `/proc/PID/stat`, in clock ticks of
/// `ticks_per_second` (so 10 ms steps with the usual 100).
pub fn process_cpu(pid: u32, ticks_per_second: u64) -> Option<Duration> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count fields
    // after its closing parenthesis (state is field 3, utime 14, stime 15).
    let after = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    let ticks = utime + stime;
    Some(Duration::from_secs_f64(
        ticks as f64 / ticks_per_second.max(1) as f64,
    ))
}

/// `getconf CLK_TCK`, or 100.
pub fn clock_ticks() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate() {
        assert_eq!(quartiles(&[3.0, 1.0, 2.0, 4.0, 5.0]), (2.0, 3.0, 4.0));
        assert_eq!(quartiles(&[1.0, 2.0]), (1.25, 1.5, 1.75));
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn timing_files() {
        let t = parse_timing("1500000000 20480 250000\n").expect("parses");
        assert_eq!(t.wall, Duration::from_millis(1500));
        assert_eq!(t.rss_kb, 20480);
        assert_eq!(t.cpu, Duration::from_millis(250));
        assert!(parse_timing("1 2").is_err());
    }

    #[test]
    fn this_process_has_used_some_cpu() {
        assert!(process_cpu(std::process::id(), clock_ticks()).is_some());
    }
}
