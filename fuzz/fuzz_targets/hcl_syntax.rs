//! HCL native syntax as Terraform reads it (docs/behaviour.md, TFCFG-8):
//! `tfdisco_config::hcl_syntax::check` on any text (invalid UTF-8 becomes
//! U+FFFD).
//!
//! Checking must not panic, must take at most `MAX_STEPS_PER_BYTE` steps
//! per byte plus `MAX_STEPS_EXTRA` (the parser is linear, with no
//! backtracking and no recursion), and an error must point inside the
//! text (a line and column from 1, an offset at most its length). The
//! worst steps per byte seen on inputs of 64 bytes or more is printed
//! whenever it grows.
#![no_main]

use std::sync::atomic::{AtomicU64, Ordering};

use libfuzzer_sys::fuzz_target;
use tfdisco_config::hcl_syntax::{self, MAX_STEPS_EXTRA, MAX_STEPS_PER_BYTE};

/// The worst steps per byte so far, in thousandths.
static WORST: AtomicU64 = AtomicU64::new(0);

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let checked = hcl_syntax::check(&text, "main.tf");
    let len = text.len() as u64;
    let steps = checked.steps();
    assert!(
        steps <= MAX_STEPS_PER_BYTE * len + MAX_STEPS_EXTRA,
        "{steps} steps for {len} bytes"
    );
    if len >= 64 {
        let ratio = steps * 1000 / len;
        if WORST.fetch_max(ratio, Ordering::Relaxed) < ratio {
            eprintln!(
                "hcl_syntax: worst so far {}.{:03} steps per byte ({len} bytes)",
                ratio / 1000,
                ratio % 1000
            );
        }
    }
    if let Some(error) = checked.error() {
        assert!(error.line() >= 1 && error.column() >= 1);
        assert!(error.offset() as u64 <= len);
        assert!(!error.summary().is_empty() && !error.detail().is_empty());
    }
});
