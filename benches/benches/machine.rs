//! A whole discovery with canned responses, and a registry cache hit.
//!
//! Target (see `benches/README.md`): one redirect then the typical document in
//! under 3 µs. The baselines are the parts of that work no implementation can
//! skip: parsing the two URLs and skipping over the document's JSON.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use tfdisco_benches::baselines::ignored_any;
use tfdisco_benches::canned::{self, Response};
use tfdisco_benches::documents::TYPICAL;
use tfdisco_core::url::Url;
use tfdisco_core::{Config, Credentials, DiscoveryCache, Hostname, Lookup, Transfer};

fn machine(c: &mut Criterion) {
    let host = Hostname::parse("app.terraform.io").expect("valid");
    let config = Config::default();
    let now = Instant::now();
    let redirect_then_document = canned::redirect_then_typical();
    let mut g = c.benchmark_group("machine");
    g.bench_function("baseline/two_urls_and_ignored_any", |b| {
        b.iter(|| {
            let first = Url::parse(black_box(
                "https://app.terraform.io/.well-known/terraform.json",
            ));
            let next = first.as_ref().map(|u| u.join(black_box("/disco/v1.json")));
            (next.is_ok(), ignored_any(TYPICAL.as_bytes()))
        })
    });
    g.bench_function("one_redirect_typical", |b| {
        b.iter(|| {
            let mut d =
                Transfer::discovery(black_box(&host).clone(), &config, None, now).expect("starts");
            canned::run(&mut d, &redirect_then_document, now).is_ok()
        })
    });
    let token = Credentials::token("abcdefghijklmnop.atlasv1.0123456789").expect("valid");
    g.bench_function("one_redirect_typical_with_token", |b| {
        b.iter(|| {
            let mut d =
                Transfer::discovery(black_box(&host).clone(), &config, Some(token.clone()), now)
                    .expect("starts");
            canned::run(&mut d, &redirect_then_document, now).is_ok()
        })
    });
    g.bench_function("no_redirect_typical", |b| {
        b.iter(|| {
            let mut d =
                Transfer::discovery(black_box(&host).clone(), &config, None, now).expect("starts");
            canned::run(&mut d, &redirect_then_document[1..], now).is_ok()
        })
    });
    g.finish();
}

fn cache(c: &mut Criterion) {
    let host = Hostname::parse("app.terraform.io").expect("valid");
    let mut cache = DiscoveryCache::new(Config::default());
    let now = Instant::now();
    let Lookup::Discover(ticket) = cache.lookup(&host) else {
        unreachable!("an empty cache has nothing in it");
    };
    let mut d = cache.start(&ticket, None, now).expect("starts");
    let result = canned::run(&mut d, &[Response::json(TYPICAL.as_bytes(), true)], now);
    let services = cache.complete(ticket, result).expect("discovered");

    let mut g = c.benchmark_group("cache");
    let map: HashMap<String, _> = HashMap::from([(host.as_str().to_owned(), services)]);
    g.bench_function("baseline/hashmap_get_and_clone", |b| {
        b.iter(|| map.get(black_box(host.as_str())).cloned())
    });
    g.bench_function("cache_hit", |b| {
        b.iter(|| matches!(cache.lookup(black_box(&host)), Lookup::Cached(_)))
    });
    g.bench_function("parse_and_cache_hit", |b| {
        b.iter(|| {
            let host = Hostname::parse(black_box("App.Terraform.IO")).expect("valid");
            matches!(cache.lookup(&host), Lookup::Cached(_))
        })
    });
    g.finish();
}

criterion_group!(benches, machine, cache);
criterion_main!(benches);
