//! go-versions' tokenizer for one version or constraint (`raw_scan.rl`, a
//! Ragel machine), rewritten by hand with the same states: the machine
//! stops at the first byte it cannot take, and what it had read so far
//! stays, including the quirks of its error and end-of-input actions
//! (docs/behaviour.md, VER-1).

use crate::Dialect;

/// One scanned constraint: the pieces of `OP SEP NUM(.NUM)* [-PRE] [+META]`
/// as slices of the input (go-versions' `rawConstraint`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Raw<'a> {
    pub(super) op: &'a str,
    pub(super) sep: &'a str,
    /// The first three numbers (`""` where absent); `*`, `x` or `X` for a
    /// wildcard.
    pub(super) nums: [&'a str; 3],
    /// How many numbers there were, more than three included.
    pub(super) num_count: usize,
    pub(super) pre: &'a str,
    pub(super) meta: &'a str,
}

#[derive(Clone, Copy)]
enum State {
    /// Nothing read yet.
    Start,
    /// Inside the operator.
    Op,
    /// Inside the separator after the operator.
    Sep,
    /// Inside a number of digits.
    Digits,
    /// Just after a wildcard number.
    Wild,
    /// Just after a `.` between numbers.
    Dot,
    /// Just after the `-` of a pre-release.
    PreStart,
    /// Inside a pre-release.
    Pre,
    /// Just after the `+` of build metadata.
    MetaStart,
    /// Inside build metadata.
    Meta,
}

/// Ragel's `space`: `\t \n \v \f \r` and the space.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// An operator byte: anything but a digit, space, ASCII letter, `.` or `*`.
fn is_op(b: u8) -> bool {
    !(b.is_ascii_digit() || is_space(b) || b.is_ascii_alphabetic() || b == b'.' || b == b'*')
}

fn is_wildcard(b: u8) -> bool {
    matches!(b, b'*' | b'x' | b'X')
}

fn is_extra(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

/// Scans one constraint from the start of `data`: the pieces read, and the
/// rest of the input from the first byte the machine could not take (empty
/// when it reached the end). go-versions v1.0.3 (OpenTofu) also takes `v`
/// in the separator, so that a `v` prefix can be reported; v1.0.2
/// (Terraform) stops there.
pub(super) fn scan(data: &str, dialect: Dialect) -> (Raw<'_>, &str) {
    let bytes = data.as_bytes();
    let is_sep = |b: u8| is_space(b) || (dialect == Dialect::OpenTofu && b == b'v');
    let mut raw = Raw::default();
    let mut state = State::Start;
    // Where the piece being read started (Ragel's `ts`).
    let mut start = 0;
    for (p, &b) in bytes.iter().enumerate() {
        let next = match state {
            State::Start | State::Op | State::Sep => {
                let in_op = matches!(state, State::Start | State::Op);
                if in_op && is_op(b) {
                    Some(State::Op)
                } else if in_op && is_sep(b) {
                    raw.op = &data[start..p];
                    Some(State::Sep)
                } else if matches!(state, State::Sep) && is_sep(b) {
                    Some(State::Sep)
                } else if b.is_ascii_digit() || is_wildcard(b) {
                    if in_op {
                        raw.op = &data[start..p];
                        raw.sep = "";
                    } else {
                        raw.sep = &data[start..p];
                    }
                    Some(if b.is_ascii_digit() {
                        State::Digits
                    } else {
                        State::Wild
                    })
                } else {
                    None
                }
            }
            State::Digits | State::Wild => {
                if matches!(state, State::Digits) && b.is_ascii_digit() {
                    Some(State::Digits)
                } else {
                    let after = match b {
                        b'.' => Some(State::Dot),
                        b'-' => Some(State::PreStart),
                        b'+' => Some(State::MetaStart),
                        _ => None,
                    };
                    if after.is_some() {
                        finish_num(&mut raw, data, start, p);
                    }
                    after
                }
            }
            State::Dot => match b {
                b if b.is_ascii_digit() => Some(State::Digits),
                b if is_wildcard(b) => Some(State::Wild),
                _ => None,
            },
            State::PreStart | State::Pre if is_extra(b) => Some(State::Pre),
            State::Pre if b == b'+' => {
                raw.pre = &data[start + 1..p];
                Some(State::MetaStart)
            }
            State::MetaStart | State::Meta if is_extra(b) => Some(State::Meta),
            State::PreStart | State::Pre | State::MetaStart | State::Meta => None,
        };
        match next {
            Some(next) => {
                // A piece starts where the state changes from one to another.
                let enters = !matches!(
                    (state, next),
                    (State::Op, State::Op)
                        | (State::Sep, State::Sep)
                        | (State::Digits, State::Digits)
                        | (State::PreStart, State::Pre)
                        | (State::Pre, State::Pre)
                        | (State::MetaStart, State::Meta)
                        | (State::Meta, State::Meta)
                );
                if enters {
                    start = p;
                }
                state = next;
            }
            None => {
                finish(&mut raw, state, data, start, p);
                return (raw, &data[p..]);
            }
        }
    }
    finish(&mut raw, state, data, start, data.len());
    (raw, "")
}

/// A number ends: the first three are kept, all are counted.
fn finish_num<'a>(raw: &mut Raw<'a>, data: &'a str, start: usize, end: usize) {
    if raw.num_count < raw.nums.len() {
        raw.nums[raw.num_count] = &data[start..end];
    }
    raw.num_count += 1;
}

/// The actions the machine runs when it stops at `end` (on a byte it cannot
/// take, or at the end of the input) in `state`: the piece being read is
/// kept if it could end there. In the operator, both the operator and the
/// separator get the operator's text (the separator's own start was never
/// reached), as in go-versions.
fn finish<'a>(raw: &mut Raw<'a>, state: State, data: &'a str, start: usize, end: usize) {
    match state {
        State::Start => {}
        State::Op => {
            raw.op = &data[start..end];
            raw.sep = &data[start..end];
        }
        State::Sep => raw.sep = &data[start..end],
        State::Digits | State::Wild => finish_num(raw, data, start, end),
        State::Pre => raw.pre = &data[start + 1..end],
        State::Meta => raw.meta = &data[start + 1..end],
        State::Dot | State::PreStart | State::MetaStart => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// go-versions' `TestScanConstraints` table, from
    /// `conformance/versions.json` (docs/behaviour.md, VER-1): every case
    /// passes in both dialects.
    #[test]
    fn go_versions_scan_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/versions.json");
        let text = std::fs::read_to_string(path).expect("conformance/versions.json");
        let table: Value = serde_json::from_str(&text).expect("valid JSON");
        let cases = table["scan"].as_array().expect("scan cases");
        assert!(cases.len() > 30);
        for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
            for case in cases {
                let input = case["input"].as_str().expect("input");
                let want = &case["want"];
                let (raw, remain) = scan(input, dialect);
                let field = |k: &str| want[k].as_str().unwrap_or("");
                let nums: Vec<&str> = want["nums"]
                    .as_array()
                    .expect("nums")
                    .iter()
                    .map(|n| n.as_str().expect("num"))
                    .collect();
                let got = (
                    raw.op,
                    raw.sep,
                    raw.nums.to_vec(),
                    raw.num_count as u64,
                    raw.pre,
                    raw.meta,
                    remain,
                );
                let expected = (
                    field("op"),
                    field("sep"),
                    nums,
                    want["num_count"].as_u64().expect("num_count"),
                    field("pre"),
                    field("meta"),
                    case["remain"].as_str().expect("remain"),
                );
                assert_eq!(got, expected, "{input:?} ({dialect})");
            }
        }
    }

    #[test]
    fn stopping_keeps_what_was_read() {
        // Checked against go-versions v1.0.2 and v1.0.3.
        let (raw, rest) = scan(">=", Dialect::Terraform);
        assert_eq!((raw.op, raw.sep, rest), (">=", ">=", ""));
        let (raw, rest) = scan("1.0.0-", Dialect::Terraform);
        assert_eq!(
            (raw.nums, raw.num_count, raw.pre, rest),
            (["1", "0", "0"], 3, "", "")
        );
        let (raw, rest) = scan("1.0.", Dialect::Terraform);
        assert_eq!((raw.nums, raw.num_count, rest), (["1", "0", ""], 2, ""));
        let (raw, rest) = scan("1.0.0-+x", Dialect::Terraform);
        assert_eq!((raw.pre, rest), ("", "+x"));
        let (raw, rest) = scan(">= ,1.0", Dialect::Terraform);
        assert_eq!(
            (raw.op, raw.sep, raw.num_count, rest),
            (">=", " ", 0, ",1.0")
        );
        let (raw, rest) = scan(">= v1", Dialect::Terraform);
        assert_eq!((raw.sep, rest), (" ", "v1"));
        let (raw, rest) = scan(">= v1", Dialect::OpenTofu);
        assert_eq!((raw.sep, raw.nums[0], rest), (" v", "1", ""));
    }
}
