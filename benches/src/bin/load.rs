//! The load test: 1 000 concurrent discoveries over 100 loopback
//! HTTPS hosts in one process, for each client, round after round.
//!
//! ```text
//! cargo run --release -p tfdisco-benches --bin load -- [--rounds N] [--hosts N] [--callers N] [--client NAME]...
//! ```
//!
//! Each client (`tokio`, `async-std`, `curl`, `tokio-blocking`; all by
//! default) runs in its own child process, with its own servers, so memory
//! figures do not mix. A round is a fresh client (cold cache) whose
//! `--callers` discoveries (caller `c` asks for host `c % hosts`) start at
//! once, then a warm pass with the same client (every host cached). Every
//! discovery must succeed and each host must get exactly one request a round
//! (none when warm); otherwise the child stops with the reason, the table
//! says so, and this exits with status 1.
//!
//! Memory: `VmRSS` before round 1, after round 1 and after the last round,
//! `VmHWM` (peak RSS) at the end, and, after round 1 and after the last
//! round, the Rust heap in use (exact, counted by this program's global
//! allocator) and what glibc's `malloc` holds (in use by anyone, libcurl and
//! OpenSSL included; free but kept in its arenas), so a growing RSS can be
//! told from a leak. Each is read once the Rust heap stops shrinking (see
//! `settle`). `--every K` also prints them to stderr every K rounds.
//!
//! The counting allocator (`unsafe impl GlobalAlloc`) and reading `malloc`'s
//! figures (`mallinfo2`, a foreign call) need unsafe code; the libraries
//! forbid it, this binary alone allows it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tfdisco_benches::load::{ClientKind, Hosts, Load};

/// Bytes Rust has allocated and not yet freed (one relaxed atomic add or
/// subtract a call: cheap next to a TLS handshake).
static HEAP: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HEAP.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        HEAP.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HEAP.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HEAP.fetch_add(new_size, Ordering::Relaxed);
        HEAP.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Rust's heap in use, KiB (exact; not libcurl's or OpenSSL's, which call
/// `malloc` themselves).
fn heap() -> u64 {
    (HEAP.load(Ordering::Relaxed) / 1024) as u64
}

/// What glibc's `malloc` holds, in KiB: in use (handed out and not freed,
/// by anyone: Rust, libcurl, OpenSSL; glibc counts the chunks each thread
/// keeps in its cache as in use) and free but kept (in its arenas, not
/// returned to the system). `mallinfo2` is glibc 2.33 or later; other C
/// libraries report nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn malloc() -> Option<(u64, u64)> {
    #[repr(C)]
    struct Mallinfo2 {
        arena: usize,
        ordblks: usize,
        smblks: usize,
        hblks: usize,
        hblkhd: usize,
        usmblks: usize,
        fsmblks: usize,
        uordblks: usize,
        fordblks: usize,
        keepcost: usize,
    }
    unsafe extern "C" {
        fn mallinfo2() -> Mallinfo2;
    }
    // SAFETY: no arguments; glibc returns the struct above by value.
    let m = unsafe { mallinfo2() };
    let _ = (m.arena, m.ordblks, m.smblks, m.hblks, m.usmblks);
    let _ = (m.fsmblks, m.keepcost);
    let kib = |bytes: usize| (bytes / 1024) as u64;
    Some((kib(m.uordblks + m.hblkhd), kib(m.fordblks)))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn malloc() -> Option<(u64, u64)> {
    None
}

struct Options {
    rounds: usize,
    every: usize,
    hosts: usize,
    callers: usize,
    clients: Vec<ClientKind>,
    child: Option<ClientKind>,
}

fn usage() -> ! {
    eprintln!(
        "usage: load [--rounds N (30)] [--hosts N (100)] [--callers N (1000)] [--client tokio|async-std|curl|tokio-blocking]... [--every K]"
    );
    std::process::exit(2)
}

fn options() -> Options {
    let mut o = Options {
        rounds: 30,
        every: 0,
        hosts: 100,
        callers: 1000,
        clients: Vec::new(),
        child: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_else(|| usage());
        let number = || value.parse::<usize>().ok().filter(|&n| n > 0);
        let kind = || ClientKind::parse(&value);
        match arg.as_str() {
            "--rounds" => o.rounds = number().unwrap_or_else(|| usage()),
            "--every" => o.every = number().unwrap_or_else(|| usage()),
            "--hosts" => o.hosts = number().unwrap_or_else(|| usage()),
            "--callers" => o.callers = number().unwrap_or_else(|| usage()),
            "--client" => o.clients.push(kind().unwrap_or_else(|| usage())),
            "--child" => o.child = Some(kind().unwrap_or_else(|| usage())),
            _ => usage(),
        }
    }
    if o.callers < o.hosts {
        eprintln!("--callers must be at least --hosts (every host needs a caller)");
        usage()
    }
    if o.clients.is_empty() {
        o.clients = ClientKind::ALL.to_vec();
    }
    o
}

/// `VmRSS` and `VmHWM` of this process, in KiB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/self/status"))
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

fn mib(kib: u64) -> String {
    format!("{:.1}", kib as f64 / 1024.0)
}

/// Waits (untimed, at most half a second) until connections closed by the
/// round's end are gone: the Rust heap stops shrinking. Dropping a client closes
/// its connections, and the servers' and runtimes' tasks free theirs a few
/// milliseconds later, on other threads.
fn settle() {
    let mut last = heap();
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(10));
        let now = heap();
        if now >= last {
            return;
        }
        last = now;
    }
}

/// In the child: every round of one client; prints one line of figures.
fn child(kind: ClientKind, o: &Options) -> Result<(), String> {
    let load = Load::new(kind, Hosts::start(o.hosts), o.callers);
    let (before, _) = memory();
    let (mut cold, mut warm, mut after) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=o.rounds {
        let (c, w) = load
            .round(true)
            .map_err(|e| format!("round {round}: {e}"))?;
        cold.push(c);
        warm.extend(w);
        settle();
        after.push((memory().0, heap(), malloc()));
        if o.every > 0 && (round == 1 || round % o.every == 0) {
            let (rss, heap, m) = after[round - 1];
            eprintln!(
                "{}: after round {round}: RSS {} MiB, Rust heap {}, malloc in use {}, free kept {}",
                kind.name(),
                mib(rss),
                mib(heap),
                m.map_or("?".into(), |m| mib(m.0)),
                m.map_or("?".into(), |m| mib(m.1)),
            );
        }
    }
    let (_, peak) = memory();
    let (first, last) = (after[0], after[after.len() - 1]);
    let (min, max) = (cold.iter().min().copied(), cold.iter().max().copied());
    let malloc = |pick: fn((u64, u64)) -> u64| match (first.2, last.2) {
        (Some(a), Some(b)) => format!("{} → {}", mib(pick(a)), mib(pick(b))),
        _ => "–".into(),
    };
    println!(
        "{} ({}–{}) | {} | {} | {} → {} | {} → {} | {} | {} | {}",
        ms(median(cold)),
        ms(min.unwrap_or_default()),
        ms(max.unwrap_or_default()),
        ms(median(warm)),
        mib(before),
        mib(first.0),
        mib(last.0),
        mib(first.1),
        mib(last.1),
        malloc(|m| m.0),
        malloc(|m| m.1),
        mib(peak),
    );
    Ok(())
}

fn main() -> ExitCode {
    let o = options();
    if let Some(kind) = o.child {
        return match child(kind, &o) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}: {e}", kind.name());
                ExitCode::FAILURE
            }
        };
    }

    let exe = std::env::current_exe().expect("this program's path");
    println!(
        "{} rounds of {} concurrent discoveries over {} loopback HTTPS hosts ({} per host), each client in its own process",
        o.rounds,
        o.callers,
        o.hosts,
        o.callers.div_ceil(o.hosts)
    );
    println!();
    println!(
        "| client | callers | round, cold: median (min–max) ms | warm pass ms | requests per host | RSS before round 1 MiB | RSS after round 1 → {n} MiB | Rust heap, round 1 → {n} MiB | malloc in use, round 1 → {n} MiB | malloc free kept, round 1 → {n} MiB | peak RSS (VmHWM) MiB |",
        n = o.rounds
    );
    println!("|---|---|---:|---:|:-:|---:|---:|---:|---:|---:|---:|");
    let mut failed = false;
    for kind in &o.clients {
        let mut command = Command::new(&exe);
        command
            .args(["--child", kind.name()])
            .args(["--rounds", &o.rounds.to_string()])
            .args(["--hosts", &o.hosts.to_string()])
            .args(["--callers", &o.callers.to_string()]);
        if o.every > 0 {
            command.args(["--every", &o.every.to_string()]);
        }
        let output = command.output().expect("the child process runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprint!("{stderr}");
        let row = if output.status.success() {
            // The child checked it: exactly 1 each cold round, 0 warm.
            let mut fields: Vec<&str> = stdout.trim().split(" | ").collect();
            fields.insert(2, "1 (warm: 0)");
            fields.join(" | ")
        } else {
            failed = true;
            let reason = stderr.lines().last().unwrap_or("no message").to_owned();
            format!("**FAILED** ({}): {reason} | | | | | | | |", output.status)
        };
        println!("| `{}` | {} | {row} |", kind.name(), kind.callers());
    }
    if failed {
        eprintln!("a client failed the load test: see the table");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
