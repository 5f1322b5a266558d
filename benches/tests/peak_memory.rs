//! Peak heap memory while discovering a 1 MiB document: under 8 MiB above
//! what the process held before (the memory target).
//!
//! A peak-tracking global allocator needs `unsafe impl GlobalAlloc`; the
//! libraries forbid unsafe code, this test binary alone allows it. Counters
//! are per thread, so tests running in parallel do not disturb each other.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Instant;

use std::io::Write;
use tfdisco_benches::canned::{self, Response};
use tfdisco_benches::documents::{TYPICAL, of_size, resolve_all};

use flate2::Compression;
use flate2::write::GzEncoder;
use tfdisco_core::http::{StatusCode, header};
use tfdisco_core::{Config, Error, Hostname, Services, Transfer};

/// The target: at most this much heap above the baseline, at any moment.
const LIMIT: usize = 8 * 1024 * 1024;

/// Allocations of one typical discovery (one redirect, the typical document),
/// a guard against regressions in the machine's hot path (17 when last
/// measured).
const ALLOCATIONS: usize = 20;

struct PeakTracking;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn grow(by: usize) {
    let live = LIVE.with(|l| {
        l.set(l.get() + by);
        l.get()
    });
    PEAK.with(|p| p.set(p.get().max(live)));
    COUNT.with(|c| c.set(c.get() + 1));
}

fn shrink(by: usize) {
    // Memory allocated on another thread may be freed on this one.
    LIVE.with(|l| l.set(l.get().saturating_sub(by)));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters are thread-local `Cell`s that never allocate.
unsafe impl GlobalAlloc for PeakTracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A moving realloc holds both blocks for a moment: count the new
        // block before releasing the old one.
        grow(new_size);
        shrink(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: PeakTracking = PeakTracking;

/// Runs `f` and returns its value, the peak heap above what was live when it
/// started, and how many allocations it made.
fn measure<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let count = COUNT.with(Cell::get);
    let value = f();
    let peak = PEAK.with(Cell::get) - base;
    (value, peak, COUNT.with(Cell::get) - count)
}

/// Discovers `body` (after one redirect) and resolves every service, the way
/// a client would use the result.
fn discover(responses: &[Response]) -> Services {
    let host = Hostname::parse("registry.example.com").expect("valid");
    let now = Instant::now();
    let mut d = Transfer::discovery(host, &Config::default(), None, now).expect("starts");
    let services = canned::run(&mut d, responses, now).expect("discovered");
    assert_eq!(resolve_all(&services), services.len());
    services
}

fn responses(body: &[u8], declared: bool) -> [Response; 2] {
    [
        Response::redirect(StatusCode::FOUND, "/v1/disco.json"),
        Response::json(body, declared),
    ]
}

#[test]
fn discovering_a_1_mib_document_stays_under_8_mib() {
    let body = of_size(1024 * 1024);
    for declared in [true, false] {
        let replies = responses(&body, declared);
        let (services, peak, _) = measure(|| discover(&replies));
        let entries = services.len();
        eprintln!(
            "1 MiB document ({} bytes, {entries} services, Content-Length {}): peak {:.2} MiB",
            body.len(),
            if declared { "declared" } else { "absent" },
            peak as f64 / (1024.0 * 1024.0)
        );
        assert!(entries > 10_000, "{entries} services");
        assert!(peak < LIMIT, "peak {peak} bytes");
        // The result is most of that; dropping it gives everything back.
        let (_, _, _) = measure(|| drop(services));
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory")
}

fn gzipped(body: &[u8]) -> [Response; 2] {
    [
        Response::redirect(StatusCode::FOUND, "/v1/disco.json"),
        Response::json(body, true).with_header(header::CONTENT_ENCODING, "gzip"),
    ]
}

#[test]
fn a_gzip_1_mib_document_stays_under_8_mib() {
    let body = gzip(&of_size(1024 * 1024));
    let replies = gzipped(&body);
    let (services, peak, _) = measure(|| discover(&replies));
    eprintln!(
        "1 MiB document, gzip ({} bytes compressed, {} services): peak {:.2} MiB",
        body.len(),
        services.len(),
        peak as f64 / (1024.0 * 1024.0)
    );
    assert!(peak < LIMIT, "peak {peak} bytes");
}

#[test]
fn a_gzip_bomb_stops_at_the_limit_plus_a_small_constant() {
    // 10 MiB of zeros in about 10 KiB: the machine stops decoding at the
    // 1 MiB limit, and its memory stays there.
    let bomb = gzip(&vec![0u8; 10 << 20]);
    let replies = gzipped(&bomb);
    let host = Hostname::parse("registry.example.com").expect("valid");
    let now = Instant::now();
    let (result, peak, _) = measure(|| {
        let mut d = Transfer::discovery(host, &Config::default(), None, now).expect("starts");
        canned::run(&mut d, &replies, now)
    });
    eprintln!(
        "gzip bomb ({} bytes compressed, 10 MiB decoded): peak {:.2} MiB",
        bomb.len(),
        peak as f64 / (1024.0 * 1024.0)
    );
    assert!(
        matches!(result, Err(Error::BodyTooLarge { .. })),
        "{result:?}"
    );
    let limit = 1024 * 1024;
    assert!(peak < limit + 256 * 1024, "peak {peak} bytes");
}

#[test]
fn the_tracker_sees_the_document() {
    // Guards the test above against a tracker that never counts: holding the
    // 1 MiB body alone must show.
    let (body, peak, count) = measure(|| of_size(1024 * 1024));
    assert!(
        peak >= body.len() && count > 0,
        "peak {peak}, {count} allocations"
    );
}

#[test]
fn a_typical_discovery_allocates_little() {
    let host = Hostname::parse("app.terraform.io").expect("valid");
    let config = Config::default();
    let replies = responses(TYPICAL.as_bytes(), true);
    let now = Instant::now();
    let (result, peak, count) = measure(|| {
        let mut d = Transfer::discovery(host, &config, None, now).expect("starts");
        canned::run(&mut d, &replies, now)
    });
    eprintln!("typical document, one redirect: {count} allocations, peak {peak} bytes");
    assert_eq!(result.expect("discovered").len(), 8);
    assert!(count <= ALLOCATIONS, "{count} allocations");
}
