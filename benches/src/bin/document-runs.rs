//! Runs one document workload N times, for instruction counts under
//! callgrind, which repeat exactly on a noisy host (the document figures in
//! `benches/README.md`):
//!
//! ```text
//! cargo build --release -p tfdisco-benches --bin document-runs
//! for n in 0 100; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/document-runs modules-typical $n
//! done
//! ```
//!
//! Divide the difference of the two totals by the difference of the counts
//! (the fixtures are built before the runs, so N = 0 counts only them).
//! Workloads: `ignored-any-typical`, `modules-typical`, `resolve-typical`,
//! `resolve-each-typical`, `ignored-any-1mib`, `modules-1mib`, `resolve-1mib`,
//! `resolve-each-1mib`,
//! `ignored-any-provider-versions`, `provider-versions`.

use std::hint::black_box;
use std::process;
use std::time::Instant;

use tfdisco_benches::baselines::ignored_any;
use tfdisco_benches::canned::{self, Response};
use tfdisco_benches::documents::{
    TYPICAL, of_size, parse_and_find_modules, parse_and_resolve, parse_and_resolve_each,
    provider_versions, provider_versions_request,
};
use tfdisco_core::url::Url;
use tfdisco_core::{Config, Hostname, Transfer};

fn main() {
    let mut args = std::env::args().skip(1);
    let workload = args.next().unwrap_or_default();
    let runs: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(100);
    let host = Hostname::parse("registry.example.com").expect("valid");
    let url: Url = "https://registry.example.com/.well-known/terraform.json"
        .parse()
        .expect("valid");
    let (what, size) = workload.rsplit_once('-').unwrap_or(("", ""));
    let body = match size {
        "typical" => TYPICAL.as_bytes().to_vec(),
        "1mib" => of_size(1024 * 1024),
        _ => provider_versions(),
    };
    let (services, source) = provider_versions_request();
    let answer = [Response::json(&body, true)];
    let config = Config::default();
    let now = Instant::now();
    let mut run: Box<dyn FnMut() -> bool> = match (what, size) {
        ("ignored-any", _) | ("ignored-any-provider", "versions") => {
            Box::new(|| ignored_any(black_box(&body)))
        }
        ("modules", _) => Box::new(|| parse_and_find_modules(&host, &url, black_box(&body))),
        ("resolve", _) => Box::new(|| parse_and_resolve(&host, &url, black_box(&body)) > 0),
        ("resolve-each", _) => {
            Box::new(|| parse_and_resolve_each(&host, &url, black_box(&body)) > 0)
        }
        ("provider", "versions") => Box::new(|| {
            let mut transfer = Transfer::provider_versions(&services, &source, &config, None, now)
                .expect("starts");
            canned::run(&mut transfer, &answer, now).is_ok()
        }),
        _ => {
            eprintln!("unknown workload {workload:?}: see the module documentation");
            process::exit(2);
        }
    };
    for _ in 0..runs {
        assert!(run());
    }
}
