//! Reading HCL native syntax as Terraform reads it
//! (`tfdisco_config::hcl_syntax::check`, docs/behaviour.md TFCFG-8), in
//! bytes per second, next to `hcl-edit` 0.10's parser (`parse_body`, the
//! reader it replaced for configurations) on the same bytes:
//!
//! - `gke_cluster`: `cluster.tf` of Google's Kubernetes Engine module (61 KB
//!   of long conditionals), read from the corpus of real configurations
//!   (`TFDISCO_REAL_CONFIGURATIONS`, else `shared/real-configurations/`
//!   beside the workspace: public modules' code is not committed here);
//!   skipped, and said, without it;
//! - `gke_variables`: its `variables.tf` (38 KB of deeply nested types);
//! - `worst/…`: the inputs with the most steps per byte the fuzz target
//!   found: `fuzz/corpus/hcl_syntax/worst-steps` (186 bytes, 17.6 steps a
//!   byte; unclosed operands and brackets) and the shape it converges to,
//!   unclosed `[` repeated (60 000, 17 steps a byte, within
//!   `hcl_syntax::MAX_NESTING`); and objects of
//!   operators nested 2 000 deep, which took `hcl-edit` time exponential in
//!   the depth (no baseline for these).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tfdisco_config::hcl_syntax;

/// The GKE module's folder in the corpus of real configurations, if it is
/// there.
fn gke() -> Option<std::path::PathBuf> {
    let corpus = match std::env::var_os("TFDISCO_REAL_CONFIGURATIONS") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/real-configurations"),
    };
    let dir = corpus.join("terraform-google-kubernetes-engine");
    dir.is_dir().then_some(dir)
}

fn real(c: &mut Criterion) {
    let Some(dir) = gke() else {
        eprintln!(
            "hcl_syntax/gke_*: skipped, no corpus of real configurations (TFDISCO_REAL_CONFIGURATIONS)"
        );
        return;
    };
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).expect("the corpus's file");
    let (cluster, variables) = (read("cluster.tf"), read("variables.tf"));
    let mut g = c.benchmark_group("hcl_syntax");
    for (label, text) in [
        ("gke_cluster", cluster.as_str()),
        ("gke_variables", variables.as_str()),
    ] {
        assert!(hcl_syntax::check(text, "main.tf").error().is_none());
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(format!("baseline/hcl_edit/{label}"), |b| {
            b.iter(|| hcl::edit::parser::parse_body(black_box(text)).is_ok())
        });
        g.bench_function(label, |b| {
            b.iter(|| hcl_syntax::check(black_box(text), "main.tf").steps())
        });
    }
    g.finish();
}

const WORST_STEPS: &[u8] = include_bytes!("../../fuzz/corpus/hcl_syntax/worst-steps");

fn worst(c: &mut Criterion) {
    let fuzzed = String::from_utf8_lossy(WORST_STEPS).into_owned();
    let brackets = format!("a={}", "[".repeat(60_000));
    let operands = format!("a={}-a", "{a*a*".repeat(2_000));
    let mut g = c.benchmark_group("hcl_syntax");
    for (label, text) in [
        ("worst/fuzzed", &fuzzed),
        ("worst/unclosed_brackets", &brackets),
        ("worst/operands", &operands),
    ] {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(label, |b| {
            b.iter(|| hcl_syntax::check(black_box(text), "main.tf").steps())
        });
    }
    g.finish();
}

criterion_group!(benches, real, worst);
criterion_main!(benches);
