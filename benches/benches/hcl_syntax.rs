//! Reading HCL native syntax as Terraform reads it
//! (`tfdisco_config::hcl_syntax::check`, docs/behaviour.md TFCFG-8), in
//! bytes per second, next to `hcl-edit` 0.10's parser (`parse_body`, the
//! reader it replaced for configurations) on the same bytes:
//!
//! - `gke_cluster`: `cluster.tf` of Google's Kubernetes Engine module (61 KB
//!   of long conditionals, `config/tests/fixtures/real/`);
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

const CLUSTER: &str =
    include_str!("../../config/tests/fixtures/real/terraform-google-kubernetes-engine/cluster.tf");
const VARIABLES: &str = include_str!(
    "../../config/tests/fixtures/real/terraform-google-kubernetes-engine/variables.tf"
);

fn real(c: &mut Criterion) {
    let mut g = c.benchmark_group("hcl_syntax");
    for (label, text) in [("gke_cluster", CLUSTER), ("gke_variables", VARIABLES)] {
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
