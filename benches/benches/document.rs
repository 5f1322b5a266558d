//! Parsing a discovery document and resolving `modules.v1` or every service,
//! next to `serde_json` skipping the same bytes (`IgnoredAny`).
//!
//! Targets (see `benches/README.md`, "Documents"): parse + `modules.v1` at most
//! 3× the baseline and parse + every service at most 8×, for the typical and
//! the 1 MiB document; the provider versions document at most 3×. `floor/…` measures what no implementation that
//! returns `url::Url`s can skip: skipping the JSON plus one `Url::join` per
//! URL the services hold.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::time::Instant;
use tfdisco_benches::baselines::ignored_any;

use tfdisco_benches::canned::{self, Response};
use tfdisco_benches::documents::{
    TYPICAL, of_size, parse_and_find_modules, parse_and_resolve, provider_versions,
    provider_versions_request, url_texts,
};
use tfdisco_core::url::Url;
use tfdisco_core::{Config, Dialect, Hostname, Services, Transfer};

fn document(c: &mut Criterion) {
    let host = Hostname::parse("registry.example.com").expect("valid");
    let url: Url = "https://registry.example.com/.well-known/terraform.json"
        .parse()
        .expect("valid");
    let documents = [
        ("typical", TYPICAL.as_bytes().to_vec()),
        ("64KiB", of_size(64 * 1024)),
        ("1MiB", of_size(1024 * 1024)),
    ];
    let mut g = c.benchmark_group("document");
    for (label, body) in &documents {
        if body.len() > 100_000 {
            g.sample_size(20);
        }
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_function(format!("baseline/ignored_any/{label}"), |b| {
            b.iter(|| ignored_any(black_box(body)))
        });
        let texts = url_texts(body);
        g.bench_function(format!("floor/ignored_any_and_url_joins/{label}"), |b| {
            b.iter(|| {
                let skipped = ignored_any(black_box(body));
                let joined = texts.iter().filter(|t| url.join(t).is_ok()).count();
                (skipped, joined)
            })
        });
        g.bench_function(format!("parse_modules/{label}"), |b| {
            b.iter(|| parse_and_find_modules(&host, &url, black_box(body)))
        });
        g.bench_function(format!("parse_resolve/{label}"), |b| {
            b.iter(|| parse_and_resolve(&host, &url, black_box(body)))
        });
        g.bench_function(format!("parse/{label}"), |b| {
            b.iter(|| {
                Services::from_json(
                    host.clone(),
                    url.clone(),
                    Dialect::OpenTofu,
                    black_box(body),
                )
                .expect("valid")
                .len()
            })
        });
    }
    g.finish();

    // The registry document (a provider versions document), through the machine.
    let body = provider_versions();
    let (services, source) = provider_versions_request();
    let answer = [Response::json(&body, true)];
    let config = Config::default();
    let now = Instant::now();
    let mut g = c.benchmark_group("registry_document");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("baseline/ignored_any/provider_versions", |b| {
        b.iter(|| ignored_any(black_box(&body)))
    });
    g.bench_function("provider_versions", |b| {
        b.iter(|| {
            let mut transfer = Transfer::provider_versions(&services, &source, &config, None, now)
                .expect("starts");
            canned::run(&mut transfer, &answer, now).map(|v| v.versions.len())
        })
    });
    g.finish();
}

criterion_group!(benches, document);
criterion_main!(benches);
