//! Hostname normalization and display, each next to its in-run baseline.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;

fn normalize(c: &mut Criterion) {
    let mut g = c.benchmark_group("normalize");
    let ascii = "registry.terraform.io";
    g.bench_function("baseline/ascii_lowercase_and_scan", |b| {
        b.iter(|| {
            let s = black_box(ascii);
            let lower = s.to_ascii_lowercase();
            black_box(
                lower
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'),
            )
        })
    });
    g.bench_function("ascii_normalized", |b| {
        b.iter(|| Hostname::parse(black_box(ascii)))
    });
    g.bench_function("ascii_mixed_case_port_443", |b| {
        b.iter(|| Hostname::parse(black_box("Registry.Terraform.IO:443")))
    });
    for idn in ["münchen.de", "Испытание.com"] {
        g.bench_function(format!("baseline/idna_to_ascii/{idn}"), |b| {
            b.iter(|| idna::domain_to_ascii(black_box(idn)))
        });
        g.bench_function(format!("idn/{idn}"), |b| {
            b.iter(|| Hostname::parse(black_box(idn)))
        });
    }
    g.finish();
}

fn display(c: &mut Criterion) {
    let mut g = c.benchmark_group("display");
    let h = Hostname::parse("Испытание.com:8443").expect("valid");
    g.bench_function("strict", |b| b.iter(|| black_box(&h).display().len()));
    g.bench_function("liberal", |b| {
        b.iter(|| for_display(black_box("xn--80akhbyknj4f.com:8443")))
    });
    g.finish();
}

criterion_group!(benches, normalize, display);
criterion_main!(benches);
