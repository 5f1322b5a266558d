//! Prints the medians of the last `cargo bench -p tfdisco-benches` run and
//! checks them against the speed targets, as a Markdown table.
//!
//! ```text
//! cargo run -p tfdisco-benches --bin bench-report [--baseline NAME] [DIR]
//! ```
//!
//! `DIR` defaults to the workspace's `target/criterion`; `--baseline NAME`
//! reads a run saved with `cargo bench -- --save-baseline NAME` instead of the
//! latest one. Exits with status 1 when a target is missed or a benchmark is
//! missing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::{env, fs, io, process};

use tfdisco_core::serde_json::{self, Value};

/// What a target compares: a benchmark against a baseline from the same
/// run, or against a fixed time.
enum Limit {
    Ratio { baseline: &'static str, max: f64 },
    Nanos(f64),
}

const TARGETS: [(&str, &str, Limit); 14] = [
    (
        "normalized ASCII hostname ≤ 1.5× byte-class scan",
        "normalize/ascii_normalized",
        Limit::Ratio {
            baseline: "normalize/baseline/byte_class_scan",
            max: 1.5,
        },
    ),
    (
        "`Registry.Terraform.IO:443` ≤ 2.5× byte-class scan",
        "normalize/ascii_mixed_case_port_443",
        Limit::Ratio {
            baseline: "normalize/baseline/byte_class_scan_mixed_case_port_443",
            max: 2.5,
        },
    ),
    (
        "normalized ASCII hostname ≤ 3× lower-case + scan",
        "normalize/ascii_normalized",
        Limit::Ratio {
            baseline: "normalize/baseline/ascii_lowercase_and_scan",
            max: 3.0,
        },
    ),
    (
        "IDN `münchen.de` ≤ 1.3× idna `to_ascii`",
        "normalize/idn/muenchen",
        Limit::Ratio {
            baseline: "normalize/baseline/idna_to_ascii/muenchen",
            max: 1.3,
        },
    ),
    (
        "IDN `Испытание.com` ≤ 1.3× idna `to_ascii`",
        "normalize/idn/cyrillic",
        Limit::Ratio {
            baseline: "normalize/baseline/idna_to_ascii/cyrillic",
            max: 1.3,
        },
    ),
    (
        "typical document parse + `modules.v1` ≤ 3× `IgnoredAny`",
        "document/parse_modules/typical",
        Limit::Ratio {
            baseline: "document/baseline/ignored_any/typical",
            max: 3.0,
        },
    ),
    (
        "1 MiB document parse + `modules.v1` ≤ 3× `IgnoredAny`",
        "document/parse_modules/1MiB",
        Limit::Ratio {
            baseline: "document/baseline/ignored_any/1MiB",
            max: 3.0,
        },
    ),
    (
        "typical document parse + resolve every service ≤ 8× `IgnoredAny`",
        "document/parse_resolve/typical",
        Limit::Ratio {
            baseline: "document/baseline/ignored_any/typical",
            max: 8.0,
        },
    ),
    (
        "64 KiB document parse + resolve every service (no target; for reference)",
        "document/parse_resolve/64KiB",
        Limit::Ratio {
            baseline: "document/baseline/ignored_any/64KiB",
            max: f64::INFINITY,
        },
    ),
    (
        "1 MiB document parse + resolve every service ≤ 8× `IgnoredAny`",
        "document/parse_resolve/1MiB",
        Limit::Ratio {
            baseline: "document/baseline/ignored_any/1MiB",
            max: 8.0,
        },
    ),
    (
        "provider versions fetch + parse ≤ 3× `IgnoredAny`",
        "registry_document/provider_versions",
        Limit::Ratio {
            baseline: "registry_document/baseline/ignored_any/provider_versions",
            max: 3.0,
        },
    ),
    (
        "typical parse + resolve vs. its floor (no target; for reference)",
        "document/parse_resolve/typical",
        Limit::Ratio {
            baseline: "document/floor/ignored_any_and_url_joins/typical",
            max: f64::INFINITY,
        },
    ),
    (
        "1 MiB parse + resolve vs. its floor (no target; for reference)",
        "document/parse_resolve/1MiB",
        Limit::Ratio {
            baseline: "document/floor/ignored_any_and_url_joins/1MiB",
            max: f64::INFINITY,
        },
    ),
    (
        "machine run, one redirect + typical document < 3 µs",
        "machine/one_redirect_typical",
        Limit::Nanos(3000.0),
    ),
];

fn main() {
    let mut args = env::args_os().skip(1).peekable();
    let run = match args.next_if(|a| a == "--baseline") {
        Some(_) => args.next().unwrap_or_else(|| {
            eprintln!("--baseline needs a name");
            process::exit(2);
        }),
        None => "new".into(),
    };
    let root = args.next().map(PathBuf::from).unwrap_or_else(default_root);
    let mut medians = BTreeMap::new();
    if let Err(e) = collect(&root, Path::new(&run), &mut medians) {
        eprintln!("cannot read the results under {}: {e}", root.display());
        process::exit(2);
    }
    println!("| benchmark | median |\n|---|---:|");
    for (id, ns) in &medians {
        println!("| `{id}` | {} |", human(*ns));
    }
    println!("\n| target | measured | limit | met |\n|---|---:|---:|:-:|");
    let mut all_met = true;
    for (what, id, limit) in &TARGETS {
        let Some(&ns) = medians.get(*id) else {
            println!("| {what} | missing `{id}` | | no |");
            all_met = false;
            continue;
        };
        let (measured, bound, met) = match limit {
            Limit::Nanos(max) => (human(ns), format!("< {}", human(*max)), ns < *max),
            Limit::Ratio { baseline, max } => match medians.get(*baseline) {
                Some(&base) => {
                    let ratio = ns / base;
                    let bound = if max.is_finite() {
                        format!("≤ {max}×")
                    } else {
                        "–".to_owned()
                    };
                    (
                        format!("{ratio:.2}× ({} / {})", human(ns), human(base)),
                        bound,
                        ratio <= *max,
                    )
                }
                None => (format!("missing `{baseline}`"), String::new(), false),
            },
        };
        let informational = matches!(limit, Limit::Ratio { max, .. } if max.is_infinite());
        all_met &= met;
        let verdict = match (informational, met) {
            (true, true) => "–",
            (_, true) => "yes",
            (_, false) => "no",
        };
        println!("| {what} | {measured} | {bound} | {verdict} |");
    }
    if !all_met {
        process::exit(1);
    }
}

/// `$CARGO_TARGET_DIR/criterion`, or the workspace's `target/criterion`.
fn default_root() -> PathBuf {
    let target = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("criterion")
}

/// Finds every `<bench>/<run>/benchmark.json` under `dir` and records the
/// benchmark's median.
fn collect(dir: &Path, run: &Path, medians: &mut BTreeMap<String, f64>) -> io::Result<()> {
    let latest = dir.join(run);
    if latest.join("benchmark.json").is_file() {
        let id = read_json(&latest.join("benchmark.json"))?;
        let estimates = read_json(&latest.join("estimates.json"))?;
        if let (Some(id), Some(median)) = (
            id["full_id"].as_str(),
            estimates["median"]["point_estimate"].as_f64(),
        ) {
            medians.insert(id.to_owned(), median);
        }
    }
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, run, medians)?;
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> io::Result<Value> {
    let fail = |e: &dyn std::fmt::Display| io::Error::other(format!("{}: {e}", path.display()));
    let text = fs::read(path).map_err(|e| fail(&e))?;
    serde_json::from_slice(&text).map_err(|e| fail(&e))
}

/// A duration in nanoseconds, in the unit that suits it.
fn human(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.1} ns"),
        n if n < 1e6 => format!("{:.2} µs", n / 1e3),
        n => format!("{:.2} ms", n / 1e6),
    }
}
