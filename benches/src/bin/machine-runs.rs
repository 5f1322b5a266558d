//! Runs the whole machine N times (a 301, then the typical document, as the
//! `machine` benchmark does), for instruction counts under callgrind, which
//! repeat exactly on a noisy host:
//!
//! ```text
//! cargo build --release -p tfdisco-benches --bin machine-runs
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/machine-runs 1000
//! ```
//!
//! Divide the total by N (the set-up is a few thousand instructions).

use std::hint::black_box;
use std::time::Instant;

use tfdisco_benches::canned;
use tfdisco_core::{Config, Hostname, Transfer};

fn main() {
    let runs: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let host = Hostname::parse("app.terraform.io").expect("valid");
    let config = Config::default();
    let now = Instant::now();
    let responses = canned::redirect_then_typical();
    let mut ok = 0u32;
    for _ in 0..runs {
        let mut d =
            Transfer::discovery(black_box(&host).clone(), &config, None, now).expect("starts");
        ok += u32::from(canned::run(&mut d, &responses, now).is_ok());
    }
    assert_eq!(ok, runs);
}
