//! The in-run baselines the speed targets are ratios to.

use std::hint::black_box;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use serde::de::IgnoredAny;

const UTS46: Uts46 = Uts46::new();

/// The bytes of a hostname in comparison form: `a`–`z`, `0`–`9`, `-` and `.`.
static HOSTNAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.';
        b += 1;
    }
    table
};

/// What checking an ASCII name costs at least: look every byte up in a
/// 256-entry class table (`a`–`z`, `0`–`9`, `-`, `.`). No lower-casing, no
/// allocation, no label rules, and no early exit: every byte is looked at, so
/// the scan of `Registry.Terraform.IO:443` costs what the scan of any valid
/// 25-byte name costs (a validator must look at every byte of a valid name).
pub fn byte_class_scan(s: &str) -> bool {
    s.bytes()
        .fold(true, |ok, b| ok & HOSTNAME_BYTE[usize::from(b)])
}

/// What normalizing an ASCII name cost at least by the original target's measure:
/// lower-case it into a new `String` and check every byte's class.
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
