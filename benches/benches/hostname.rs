//! Hostname normalization and display, each next to its in-run baseline.
//!
//! Targets (see `benches/README.md`): an already-normalized ASCII name takes
//! at most 1.5× `baseline/byte_class_scan` of the same bytes, and
//! `Registry.Terraform.IO:443` at most 2.5× (the original target of 3×
//! `baseline/ascii_lowercase_and_scan` is kept for continuity); an
//! international name at most 1.3× the `idna` crate's own `to_ascii` with the
//! core's flags.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tfdisco_benches::baselines::{
    ascii_lowercase_and_scan, byte_class_scan, idna_to_ascii, idna_to_unicode,
};
use tfdisco_benches::hostnames::{ASCII_NORMALIZED, IDN, MIXED_CASE_PORT_443, corpus};
use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;

fn normalize(c: &mut Criterion) {
    let mut g = c.benchmark_group("normalize");
    g.bench_function("baseline/byte_class_scan", |b| {
        b.iter(|| byte_class_scan(black_box(ASCII_NORMALIZED)))
    });
    g.bench_function("baseline/byte_class_scan_mixed_case_port_443", |b| {
        b.iter(|| byte_class_scan(black_box(MIXED_CASE_PORT_443)))
    });
    g.bench_function("baseline/ascii_lowercase_and_scan", |b| {
        b.iter(|| ascii_lowercase_and_scan(black_box(ASCII_NORMALIZED)))
    });
    g.bench_function("ascii_normalized", |b| {
        b.iter(|| Hostname::parse(black_box(ASCII_NORMALIZED)))
    });
    g.bench_function(
        "baseline/ascii_lowercase_and_scan_mixed_case_port_443",
        |b| b.iter(|| ascii_lowercase_and_scan(black_box(MIXED_CASE_PORT_443))),
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
        b.iter(|| idna_to_unicode(black_box(punycode)))
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
