//! Whether a `version` argument is one Terraform accepts: hashicorp/go-version's
//! `NewConstraint` grammar, which `decodeRequiredProvidersBlock` applies
//! (docs/behaviour.md, TFCFG-3). Only the syntax is checked here; the
//! constraints stay strings, for the core's constraint parser.

/// Comma-separated parts, each an optional operator and a version
/// (go-version's `constraintRegexp`).
pub(super) fn is_valid(constraints: &str) -> bool {
    constraints.split(',').all(is_valid_part)
}

const OPERATORS: [&str; 8] = ["", "=", "!=", ">", "<", ">=", "<=", "~>"];

fn is_valid_part(part: &str) -> bool {
    let part = part.trim_matches(is_space);
    OPERATORS.iter().any(|op| {
        part.strip_prefix(op)
            .is_some_and(|rest| is_version(rest.trim_start_matches(is_space)))
    })
}

/// Go's `\s`.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r')
}

/// go-version's `VersionRegexpRaw`: `v?`, dotted numbers, an optional
/// pre-release (a `-`, or a letter, `-` or `~`, first) and build metadata.
fn is_version(s: &str) -> bool {
    let s = s.strip_prefix('v').unwrap_or(s);
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
        if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            continue;
        }
        break;
    }
    let rest = &s[i..];
    let (pre, meta) = match rest.split_once('+') {
        Some((pre, meta)) => (pre, Some(meta)),
        None => (rest, None),
    };
    let pre_ok = pre.is_empty()
        || (pre
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'~')
            && segments(pre));
    pre_ok && meta.is_none_or(segments)
}

/// Dot-separated, non-empty runs of `[0-9A-Za-z-~]`.
fn segments(s: &str) -> bool {
    s.split('.').all(|seg| {
        !seg.is_empty()
            && seg
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'~')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terraforms_constraint_syntax() {
        for ok in [
            "~> 5.0",
            ">= 1.0, < 2.0.0",
            "1.0",
            "= 1.0.0",
            "!= 1.2.0",
            " >=1 ",
            "v1.2",
            "0.10.0-beta1",
            "1.0.0-rc.1+build.5",
            "1.0beta",
            "5",
        ] {
            assert!(is_valid(ok), "{ok}");
        }
        // Terraform 1.11.4: "~> foo" is "Invalid version constraint".
        for bad in [
            "~> foo", "", ">= ", "1.0,", "=> 1.0", "1..0", "1.0+", "1.0-a..b", "~>",
        ] {
            assert!(!is_valid(bad), "{bad}");
        }
    }
}
