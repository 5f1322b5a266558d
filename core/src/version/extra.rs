//! The order of pre-release (and, for display order only, build metadata)
//! strings, as go-versions' `VersionExtra.LessThan` defines it
//! (docs/behaviour.md, VER-3).

use std::cmp::Ordering;

/// Compares two dot-separated strings as go-versions does. Parts are
/// compared pairwise while both strings have more parts to come; once one
/// of them is at its last part, that one is lower unless the other is at
/// its last part too, when the two last parts decide. This is not
/// semantic versioning's rule (`beta` is below `alpha.1`, `a.b.c` above
/// `a.z`), but it is a total order: equal only for equal strings.
pub(super) fn cmp_extra(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let mut a_parts = a.split('.').peekable();
    let mut b_parts = b.split('.').peekable();
    loop {
        let (Some(x), Some(y)) = (a_parts.next(), b_parts.next()) else {
            // Unreachable: each side ends with a last part, handled below.
            return a.cmp(b);
        };
        let a_last = a_parts.peek().is_none();
        let b_last = b_parts.peek().is_none();
        match (a_last, b_last) {
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (true, true) => return cmp_part(x, y),
            (false, false) => match cmp_part(x, y) {
                Ordering::Equal => {}
                other => return other,
            },
        }
    }
}

/// One part: all-digit parts (the empty part included) are below the
/// others and compare by length, then by bytes; other parts by bytes.
fn cmp_part(x: &str, y: &str) -> Ordering {
    let numeric = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    match (numeric(x), numeric(y)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => x.len().cmp(&y.len()).then_with(|| x.cmp(y)),
        (false, false) => x.cmp(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_versions_order() {
        use Ordering::*;
        for (a, b, want) in [
            ("alpha", "beta", Less),
            ("alpha.1", "alpha.2", Less),
            ("alpha.2", "alpha.10", Less),
            ("1", "alpha", Less),
            ("alpha", "alpha.1", Less),
            // Not semantic versioning's answer: the shorter one is lower
            // as soon as it reaches its last part.
            ("a.b.c", "a.z", Greater),
            ("beta", "alpha.1", Less),
            ("01", "1", Greater),
            ("", "local.1", Less),
            ("local.1", "local.2", Less),
            ("x", "x", Equal),
        ] {
            assert_eq!(cmp_extra(a, b), want, "{a} vs {b}");
            assert_eq!(cmp_extra(b, a), want.reverse(), "{b} vs {a}");
        }
    }
}
