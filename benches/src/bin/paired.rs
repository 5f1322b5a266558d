//! The speed targets measured in interleaved pairs. Each round times a batch
//! of the baseline and a batch of the candidate back to back, alternating
//! which goes first, so the slow drifts of a shared machine (which move whole
//! criterion runs by tens of percent) cancel out in the ratio. Prints the
//! median ratio and its interquartile range for each target, the machine
//! run's absolute time, and (without a limit) the least a document parse +
//! resolve of every service can cost, as a Markdown table.
//!
//! ```text
//! cargo run --release -p tfdisco-benches --bin paired [-- --hostnames]
//! ```
//!
//! `--hostnames` measures the hostname rows only. Exits with status 1 when a
//! target is missed.

use std::hint::black_box;
use std::process;
use std::time::{Duration, Instant};

use tfdisco_benches::baselines::{
    ascii_lowercase_and_scan, byte_class_scan, idna_to_ascii, ignored_any,
};
use tfdisco_benches::canned::{self, Response};
use tfdisco_benches::documents::{
    TYPICAL, of_size, parse_and_find_modules, parse_and_resolve, provider_versions,
    provider_versions_request, url_texts,
};
use tfdisco_benches::hostnames::{ASCII_NORMALIZED, IDN, MIXED_CASE_PORT_443};
use tfdisco_core::url::Url;
use tfdisco_core::{Config, Hostname, Transfer};

/// One way of making a service URL from the base and its text.
type MakeUrl = fn(&Url, &str) -> bool;

/// Rounds per target (odd, for a plain median), after a few to warm up.
const ROUNDS: usize = 101;
const WARM_UP_ROUNDS: usize = 5;
/// Each batch runs for about this long.
const BATCH: Duration = Duration::from_millis(2);

/// Nanoseconds per call of `f` over `n` calls.
fn time(f: &mut dyn FnMut(), n: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

/// How many calls of `f` take about [`BATCH`] (at least one).
fn calibrate(f: &mut dyn FnMut()) -> u32 {
    let once = time(f, 1).max(1.0);
    let rough = (BATCH.as_nanos() as f64 / once).clamp(1.0, 1e6) as u32;
    let per_call = time(f, rough).max(1.0);
    (BATCH.as_nanos() as f64 / per_call).clamp(1.0, 1e7) as u32
}

/// The median and quartiles of `values`.
fn quartiles(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.25), at(0.75))
}

/// Per-round ratios of `candidate` to `baseline`.
fn paired(baseline: &mut dyn FnMut(), candidate: &mut dyn FnMut()) -> (f64, f64, f64) {
    let (nb, nc) = (calibrate(baseline), calibrate(candidate));
    let mut ratios = Vec::with_capacity(ROUNDS);
    for round in 0..WARM_UP_ROUNDS + ROUNDS {
        let (b, c) = if round % 2 == 0 {
            let b = time(baseline, nb);
            (b, time(candidate, nc))
        } else {
            let c = time(candidate, nc);
            (time(baseline, nb), c)
        };
        if round >= WARM_UP_ROUNDS {
            ratios.push(c / b);
        }
    }
    quartiles(ratios)
}

/// [`paired`] with `IgnoredAny` over `body` as the baseline: the document
/// targets'.
fn vs_ignored_any(body: &[u8], candidate: &mut dyn FnMut()) -> (f64, f64, f64) {
    paired(
        &mut || {
            black_box(ignored_any(black_box(body)));
        },
        candidate,
    )
}

/// [`paired`] with `Hostname::parse` of `name` as the candidate and
/// `baseline` of the same bytes: the hostname targets'.
fn parse_vs(name: &str, baseline: impl Fn(&str)) -> (f64, f64, f64) {
    paired(&mut || baseline(black_box(name)), &mut || {
        let _ = black_box(Hostname::parse(black_box(name)));
    })
}

/// Per-round nanoseconds per call of `f`.
fn alone(f: &mut dyn FnMut()) -> (f64, f64, f64) {
    let n = calibrate(f);
    let times = (0..WARM_UP_ROUNDS + ROUNDS)
        .map(|_| time(f, n))
        .skip(WARM_UP_ROUNDS)
        .collect();
    quartiles(times)
}

fn main() {
    if cfg!(debug_assertions) {
        eprintln!("build with --release: debug timings mean nothing");
        process::exit(2);
    }
    let hostnames_only = std::env::args().skip(1).any(|a| a == "--hostnames");
    let mut all_met = true;
    let mut row = |what: &str,
                   (median, low, high): (f64, f64, f64),
                   limit: Option<f64>,
                   unit: &str| {
        let (bound, verdict) = match limit {
            Some(limit) => {
                let met = median <= limit;
                all_met &= met;
                (format!("≤ {limit}{unit}"), if met { "yes" } else { "no" })
            }
            None => ("–".to_owned(), "–"),
        };
        println!("| {what} | {median:.2}{unit} | {low:.2}–{high:.2}{unit} | {bound} | {verdict} |");
    };
    println!("| target | median | interquartile range | limit | met |\n|---|---:|---:|---:|:-:|");

    // The hostname targets: against a byte-class scan of the same bytes.
    for (what, name, limit) in [
        ("normalized ASCII hostname", ASCII_NORMALIZED, 1.5),
        ("`Registry.Terraform.IO:443`", MIXED_CASE_PORT_443, 2.5),
    ] {
        row(
            &format!("{what} vs. byte-class scan"),
            parse_vs(name, |name| {
                black_box(byte_class_scan(name));
            }),
            Some(limit),
            "×",
        );
    }
    // The original hostname target, kept for continuity.
    row(
        "normalized ASCII hostname vs. lower-case + scan",
        parse_vs(ASCII_NORMALIZED, |name| {
            black_box(ascii_lowercase_and_scan(name));
        }),
        Some(3.0),
        "×",
    );
    for (label, idn) in IDN {
        row(
            &format!("IDN `{idn}` ({label}) vs. idna `to_ascii`"),
            parse_vs(idn, |name| {
                black_box(idna_to_ascii(name));
            }),
            Some(1.3),
            "×",
        );
    }

    if hostnames_only {
        if !all_met {
            process::exit(1);
        }
        return;
    }

    let host = Hostname::parse("registry.example.com").expect("valid");
    let url: Url = "https://registry.example.com/.well-known/terraform.json"
        .parse()
        .expect("valid");
    for (label, body) in [
        ("typical", TYPICAL.as_bytes().to_vec()),
        ("1 MiB", of_size(1024 * 1024)),
    ] {
        row(
            &format!("{label} document parse + `service_url(\"modules.v1\")` vs. `IgnoredAny`"),
            vs_ignored_any(&body, &mut || {
                black_box(parse_and_find_modules(&host, &url, black_box(&body)));
            }),
            Some(3.0),
            "×",
        );
        row(
            &format!("{label} document parse + resolve every service vs. `IgnoredAny`"),
            vs_ignored_any(&body, &mut || {
                black_box(parse_and_resolve(&host, &url, black_box(&body)));
            }),
            Some(8.0),
            "×",
        );
        let texts = url_texts(&body);
        // Floors: skipping the JSON and making each URL, nothing else.
        let floors: [(&str, MakeUrl); 2] = [
            ("one `Url::join` per URL", |base, text| {
                base.join(text).is_ok()
            }),
            (
                "a copy of the base and `Url::set_path` per URL",
                |base, text| {
                    let mut copy = base.clone();
                    copy.set_path(text);
                    black_box(copy).has_host()
                },
            ),
        ];
        for (floor, make) in floors {
            row(
                &format!("{label} document floor (`IgnoredAny` + {floor}) vs. `IgnoredAny`"),
                vs_ignored_any(&body, &mut || {
                    black_box(ignored_any(black_box(&body)));
                    black_box(texts.iter().filter(|t| make(&url, t)).count());
                }),
                None,
                "×",
            );
        }
    }

    // A registry document of hashicorp/aws's size through the machine (the
    // document targets set its limit).
    let body = provider_versions();
    let (services, source) = provider_versions_request();
    let answer = [Response::json(&body, true)];
    let config = Config::default();
    let now = Instant::now();
    row(
        "provider versions (hashicorp/aws size) fetch + parse vs. `IgnoredAny`",
        vs_ignored_any(&body, &mut || {
            let mut transfer = Transfer::provider_versions(&services, &source, &config, None, now)
                .expect("starts");
            black_box(
                canned::run(&mut transfer, &answer, now)
                    .map(|v| v.versions.len())
                    .ok(),
            );
        }),
        Some(3.0),
        "×",
    );

    let host = Hostname::parse("app.terraform.io").expect("valid");
    let responses = canned::redirect_then_typical();
    let (median, low, high) = alone(&mut || {
        let mut d =
            Transfer::discovery(black_box(&host).clone(), &config, None, now).expect("starts");
        black_box(canned::run(&mut d, &responses, now).is_ok());
    });
    row(
        "machine run, one redirect + typical document",
        (median / 1e3, low / 1e3, high / 1e3),
        Some(3.0),
        " µs",
    );

    if !all_met {
        process::exit(1);
    }
}
