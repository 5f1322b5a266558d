//! The common case of [`Hostname::parse`](super::Hostname::parse) in one
//! pass over the bytes: a plain ASCII name whose host part has 16 bytes or
//! more and whose comparison form fits inline (62 bytes), such as
//! `registry.terraform.io` or `Registry.Terraform.IO:443`. It is checked 16
//! bytes at a time and lower-cased straight into the inline representation.
//!
//! [`parse`] answers only when it is sure: `Some` is exactly what the full
//! checks in `hostname.rs` produce for that input (the same bytes, inline),
//! and `None` means "not this case" (short, long, a port with a leading zero,
//! `--` anywhere, anything else): the full checks then decide and name the
//! error. Nothing here can reject a name.
//!
//! # How
//!
//! - The port, if any, is found from the end: 1 to 5 digits, the first not
//!   `0`, after a `:`, with a value of at most 65535. Every host byte is then
//!   checked to be a letter, digit, `-` or `.`, so that colon is the first
//!   one, where `split_port` splits.
//! - The host part is checked in 16-byte chunks: at 0, at 16 and 32 while
//!   they are whole, and the last 16 bytes, which may overlap the others.
//!   Each chunk is classified lane by lane with plain comparisons that the
//!   compiler turns into SIMD instructions where the target has them (SSE2 on
//!   x86-64, NEON on AArch64), and folded into two 16-lane accumulators
//!   tested once at the end. The rules are those of `plain_ascii`, stated on
//!   neighbouring bytes: no `-` or `.` first or right after another `-` or
//!   `.` (so no empty label but a trailing one, no label starting with `-`,
//!   no `--` anywhere, which rules out `xn--` too), and no `-` last. A `-`
//!   before a `.` is a `-`/`.` pair, so no label ends with `-`. A name with
//!   `--` elsewhere than in third and fourth place is valid but left to the
//!   full checks.
//! - Lower-casing needs no classification: in a name that passed, every byte
//!   with bit 5 clear is an upper-case letter (digits, `-`, `.` and `:` have
//!   it set), so setting bit 5 in every byte gives the lower-case form. The
//!   output is built in words at fixed offsets (the last one loaded from the
//!   end and shifted into place), which the compiler keeps in registers and
//!   stores straight into the result: no byte is written twice and nothing
//!   goes through the stack.
//!
//! The shape of the code matters to the compiler's vectorizer: chunks are
//! arrays passed by value, classified in plain loops, and reduced once.
//! `cargo run --release -p tfdisco-benches --bin paired -- --hostnames`
//! shows the effect of a change here.

use super::repr::{INLINE_CAP, Repr};

/// Bytes per chunk.
const W: usize = 16;

type Lanes = [u8; W];

/// The smallest host part (without the port) this path takes: one whole chunk.
pub(super) const MIN_HOST: usize = W;

/// The fast path: the inline representation of `given`'s comparison form,
/// or `None` to leave `given` to the full checks.
#[inline(always)]
pub(super) fn parse(given: &str) -> Option<Repr> {
    let bytes = given.as_bytes();
    let n = bytes.len();
    if n < MIN_HOST {
        return None;
    }
    let (host_len, out_len) = split_port(bytes)?;
    if host_len < MIN_HOST || out_len > INLINE_CAP || bytes[host_len - 1] == b'-' {
        return None;
    }
    debug_assert!(host_len <= out_len && out_len <= n);

    let host = &bytes[..host_len];
    let mut allowed = [0xFF; W];
    let mut pairs = [0; W];
    let mut across = false;
    check(chunk(host, 0), true, &mut allowed, &mut pairs);
    for at in [W, 2 * W] {
        if at + W < host_len {
            check(chunk(host, at), false, &mut allowed, &mut pairs);
            across |= is_separator(host[at - 1]) & is_separator(host[at]);
        }
    }
    if host_len > W {
        let at = host_len - W;
        check(chunk(host, at), false, &mut allowed, &mut pairs);
        // Below 16, the pair across `at` is inside the first chunk.
        if at >= W {
            across |= is_separator(host[at - 1]) & is_separator(host[at]);
        }
    }
    let mut good = [0; W];
    for i in 0..W {
        good[i] = allowed[i] & !pairs[i];
    }
    if u128::from_le_bytes(good) != u128::MAX || across {
        return None;
    }

    let out = &bytes[..out_len];
    let mut buf = [0; INLINE_CAP];
    if out_len <= 2 * W {
        // The common case, spelt out: one whole chunk, lower-cased as one
        // 128-bit number (a per-byte loop here is vectorized or not
        // depending on what else the crate holds), and two words.
        const CASE: u128 = u128::from_le_bytes([0x20; W]);
        let first = u128::from_le_bytes(chunk(out, 0)) | CASE;
        buf[..W].copy_from_slice(&first.to_le_bytes());
        buf[W..W + 8].copy_from_slice(&word(out, 2).to_le_bytes());
        buf[W + 8..2 * W].copy_from_slice(&word(out, 3).to_le_bytes());
    } else {
        for (k, to) in buf.chunks_mut(8).enumerate() {
            to.copy_from_slice(&word(out, k).to_le_bytes()[..to.len()]);
        }
    }
    Some(Repr::from_inline_parts(out_len, buf))
}

/// Where the host part ends and how long the comparison form is: `None`
/// for a port the full checks must look at (a leading zero, too large).
/// A trailing `:443` is dropped from the comparison form; other ports stay
/// as given, which is their canonical form here.
#[inline(always)]
fn split_port(bytes: &[u8]) -> Option<(usize, usize)> {
    let n = bytes.len();
    let digits = bytes
        .iter()
        .rev()
        .take(6)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits == 6 || digits == n || bytes[n - digits - 1] != b':' {
        // No port, or something the host checks will refuse.
        return Some((n, n));
    }
    let text = &bytes[n - digits..];
    let value = text
        .iter()
        .fold(0u32, |acc, &b| acc * 10 + u32::from(b - b'0'));
    if text[0] == b'0' || value > 65535 {
        return None;
    }
    let host_len = n - digits - 1;
    Some((host_len, if value == 443 { host_len } else { n }))
}

fn is_separator(b: u8) -> bool {
    b.wrapping_sub(b'-') < 2
}

/// 0xFF for `true`, 0 for `false`: a SIMD comparison's lane.
fn lane(b: bool) -> u8 {
    u8::from(b).wrapping_neg()
}

/// `bytes[at..at + 16]`, loaded whole.
fn chunk(bytes: &[u8], at: usize) -> Lanes {
    let mut c = [0; W];
    c.copy_from_slice(&bytes[at..at + W]);
    c
}

/// Folds one chunk of host bytes into the accumulators: `allowed` keeps the
/// lanes whose bytes were all letters, digits, `-` or `.`; `pairs` marks the
/// lanes where a `-` or `.` follows another within a chunk, or starts the
/// name (`first`: the chunk is the name's first).
#[inline(always)]
fn check(c: Lanes, first: bool, allowed: &mut Lanes, pairs: &mut Lanes) {
    let mut sep = [0; W];
    for i in 0..W {
        sep[i] = lane(is_separator(c[i]));
    }
    let mut before = [0; W];
    before[0] = lane(first);
    before[1..].copy_from_slice(&sep[..W - 1]);
    for i in 0..W {
        let b = c[i];
        let letter = lane((b | 0x20).wrapping_sub(b'a') < 26);
        let digit = lane(b.wrapping_sub(b'0') < 10);
        allowed[i] &= letter | digit | sep[i];
        pairs[i] |= sep[i] & before[i];
    }
}

/// Bytes `8 * k..` of the comparison form `out` (8 bytes or fewer; `out`
/// has 16 or more), lower-cased by setting bit 5, zero past its end.
#[inline(always)]
fn word(out: &[u8], k: usize) -> u64 {
    const CASE: u64 = u64::from_le_bytes([0x20; 8]);
    let load = |at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&out[at..at + 8]);
        u64::from_le_bytes(w) | CASE
    };
    let at = 8 * k;
    let n = out.len();
    if at + 8 <= n {
        load(at)
    } else if at < n {
        // The last 8 bytes, shifted down to start at `at`.
        load(n - 8) >> (8 * (at + 8 - n))
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_from_the_end() {
        let split = |s: &str| split_port(s.as_bytes());
        assert_eq!(split("registry.terraform.io"), Some((21, 21)));
        assert_eq!(split("registry.terraform.io:443"), Some((21, 21)));
        assert_eq!(split("registry.terraform.io:8443"), Some((21, 26)));
        assert_eq!(split("registry.terraform.io:1"), Some((21, 23)));
        assert_eq!(split("registry.terraform.io:65535"), Some((21, 27)));
        assert_eq!(split("registry.terraform.io:65536"), None);
        assert_eq!(split("registry.terraform.io:99999"), None);
        assert_eq!(split("registry.terraform.io:0443"), None);
        assert_eq!(split("registry.terraform.io:0"), None);
        // Not a port: left in the host part, which then fails its checks.
        assert_eq!(split("registry.terraform.io:123456"), Some((28, 28)));
        assert_eq!(split("eu-west-1"), Some((9, 9)));
        assert_eq!(split("443"), Some((3, 3)));
        assert_eq!(split(":443"), Some((0, 0)));
        assert_eq!(split(""), Some((0, 0)));
    }

    #[test]
    fn words_are_lower_cased_and_zero_past_the_end() {
        let out = b"Registry.Terraform.IO:8443";
        let bytes: Vec<[u8; 8]> = (0..5).map(|k| word(out, k).to_le_bytes()).collect();
        assert_eq!(
            bytes,
            [
                *b"registry",
                *b".terrafo",
                *b"rm.io:84",
                *b"43\0\0\0\0\0\0",
                [0; 8]
            ]
        );
    }
}
