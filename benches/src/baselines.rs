//! The in-run baselines the speed targets are ratios to.

use std::hint::black_box;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use serde::de::IgnoredAny;

const UTS46: Uts46 = Uts46::new();

/// What normalizing an ASCII name costs at least: lower-case it and check
/// every byte's class.
pub fn ascii_lowercase_and_scan(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    lower
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// The `idna` crate's own UTS #46 ToASCII with the flags the core uses (STD3
/// rules, hyphen checks, no DNS length check).
pub fn idna_to_ascii(host: &str) -> bool {
    UTS46
        .to_ascii(
            host.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::Check,
            DnsLength::Ignore,
        )
        .is_ok()
}

/// The `idna` crate's UTS #46 ToUnicode with the core's flags.
pub fn idna_to_unicode(host: &str) -> usize {
    UTS46
        .to_unicode(host.as_bytes(), AsciiDenyList::STD3, Hyphens::Check)
        .0
        .len()
}

/// `serde_json` checking and skipping a whole document.
pub fn ignored_any(body: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(black_box(body)).is_ok()
}
