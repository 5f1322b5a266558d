//! Hostname normalization and display, each next to its in-run baseline.
//!
//! Targets (see `benches/README.md`): an already-normalized ASCII name takes
//! at most 3× `baseline/ascii_lowercase_and_scan`; an international name at
//! most 1.3× the `idna` crate's own `to_ascii` with the core's flags.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use tfdisco_benches::hostnames::{ASCII_NORMALIZED, IDN, MIXED_CASE_PORT_443, corpus};
use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;

const UTS46: Uts46 = Uts46::new();

/// What the core's comparison form costs at least for an ASCII name: lower
/// case it and check every byte's class.
fn ascii_baseline(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    lower
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// The `idna` crate's UTS #46 ToASCII with the flags the core uses (STD3
/// rules, hyphen checks, no DNS length check).
fn idna_to_ascii(host: &str) -> bool {
    UTS46
        .to_ascii(
            host.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::Check,
            DnsLength::Ignore,
        )
        .is_ok()
}

fn normalize(c: &mut Criterion) {
    let mut g = c.benchmark_group("normalize");
    g.bench_function("baseline/ascii_lowercase_and_scan", |b| {
        b.iter(|| ascii_baseline(black_box(ASCII_NORMALIZED)))
    });
    g.bench_function("ascii_normalized", |b| {
        b.iter(|| Hostname::parse(black_box(ASCII_NORMALIZED)))
    });
    g.bench_function(
        "baseline/ascii_lowercase_and_scan_mixed_case_port_443",
        |b| b.iter(|| ascii_baseline(black_box(MIXED_CASE_PORT_443))),
    );
    g.bench_function("ascii_mixed_case_port_443", |b| {
        b.iter(|| Hostname::parse(black_box(MIXED_CASE_PORT_443)))
    });
    for (label, idn) in IDN {
        g.bench_function(format!("baseline/idna_to_ascii/{label}"), |b| {
            b.iter(|| idna_to_ascii(black_box(idn)))
        });
        g.bench_function(format!("idn/{label}"), |b| {
            b.iter(|| Hostname::parse(black_box(idn)))
        });
    }
    g.finish();
}

fn normalize_corpus(c: &mut Criterion) {
    let names = corpus(10_000);
    let mut g = c.benchmark_group("normalize_corpus");
    g.throughput(Throughput::Elements(names.len() as u64));
    g.bench_function("baseline/idna_to_ascii", |b| {
        b.iter(|| {
            names
                .iter()
                .filter(|n| idna_to_ascii(n.split(':').next().unwrap_or(n)))
                .count()
        })
    });
    g.bench_function("parse", |b| {
        b.iter(|| names.iter().filter(|n| Hostname::parse(n).is_ok()).count())
    });
    g.finish();
}

fn display(c: &mut Criterion) {
    let mut g = c.benchmark_group("display");
    let punycode = "xn--80akhbyknj4f.com";
    g.bench_function("baseline/idna_to_unicode", |b| {
        b.iter(|| {
            UTS46
                .to_unicode(
                    black_box(punycode).as_bytes(),
                    AsciiDenyList::STD3,
                    Hyphens::Check,
                )
                .0
                .len()
        })
    });
    let idn = Hostname::parse("Испытание.com:8443").expect("valid");
    g.bench_function("strict/idn", |b| b.iter(|| black_box(&idn).display().len()));
    let ascii = Hostname::parse(ASCII_NORMALIZED).expect("valid");
    g.bench_function("strict/ascii", |b| {
        b.iter(|| black_box(&ascii).display().len())
    });
    g.bench_function("liberal/idn", |b| {
        b.iter(|| for_display(black_box("xn--80akhbyknj4f.com:8443")))
    });
    g.finish();
}

criterion_group!(benches, normalize, normalize_corpus, display);
criterion_main!(benches);
