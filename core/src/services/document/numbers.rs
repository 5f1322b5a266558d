//! Numbers Go cannot hold (docs/behaviour.md, JSON-5): the discovery
//! libraries decode a document into `map[string]interface{}`, which parses
//! every number, at any depth, with `strconv.ParseFloat(s, 64)`; a number
//! past the largest `float64` (rounded to nearest) fails the whole document.
//! Underflow (`1e-400`) is not an error, and big integers become floats.
//!
//! Only a number with an exponent, or one of 271 digits or more, can
//! overflow: a quick look for those decides whether the text is scanned
//! token by token at all, so a document without any costs one pass of
//! `memchr` and a sample of its bytes.

/// A number with fewer digits and no exponent is below 10^271.
const LONG: usize = 271;

/// Refuses the first number in `text` (a document that parsed) whose
/// nearest `f64` is infinite, naming it and where it is, in Go's words.
pub(super) fn check(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    if !may_overflow(bytes) {
        return Ok(());
    }
    let (mut i, mut strings) = (0, super::Strings::default());
    while i < bytes.len() {
        let b = bytes[i];
        if !strings.outside(b) {
            i += 1;
            continue;
        }
        match b {
            b'-' | b'0'..=b'9' => {
                let end = i + token_len(&bytes[i..]);
                let token = &text[i..end];
                if overflows(token) {
                    return Err(out_of_range(text, i, token));
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// True when `bytes` hold a digit followed by `e` or `E`, or a run of
/// [`LONG`] digits: found by one `memchr` pass and by looking at 16 bytes in
/// every 256 (a run of 271 digits covers 16 bytes that start at a multiple
/// of 256).
fn may_overflow(bytes: &[u8]) -> bool {
    let exponent =
        memchr::memchr2_iter(b'e', b'E', bytes).any(|i| i > 0 && bytes[i - 1].is_ascii_digit());
    exponent
        || bytes
            .chunks(256)
            .any(|block| block.len() >= 16 && block[..16].iter().all(u8::is_ascii_digit))
}

/// The length of the number token at the start of `bytes` (the document
/// parsed, so it is well formed).
fn token_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .unwrap_or(bytes.len())
}

/// True when Go's `ParseFloat` would overflow on `token`: Rust's parse
/// rounds to nearest as Go's does, so they agree at the boundary.
fn overflows(token: &str) -> bool {
    let candidate = token.contains(['e', 'E']) || token.len() >= LONG;
    candidate && token.parse::<f64>().is_ok_and(f64::is_infinite)
}

/// Go's message, with the place: `json: cannot unmarshal number 1e400 into
/// Go value of type float64 at line 1 column 12`. A long number is cut.
fn out_of_range(text: &str, at: usize, token: &str) -> String {
    let shown = match token.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &token[..cut]),
        None => token.to_owned(),
    };
    let before = &text[..at];
    let line = 1 + before.matches('\n').count();
    let column = at - before.rfind('\n').map_or(0, |p| p + 1) + 1;
    format!(
        "json: cannot unmarshal number {shown} into Go value of type float64 \
         at line {line} column {column}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_go_refuses() {
        for bad in [
            r#"{"x": 1e400}"#,
            r#"{"x": -1e400}"#,
            r#"{"login.v1": {"ports": [10000, 1E+400]}}"#,
            r#"{"x": 1e400, "x": 1}"#,
            r#"{"x": 1.7976931348623159e308}"#,
            r#"{"x": 0.00000000000000000001e330}"#,
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
        let huge = format!(r#"{{"x": {}}}"#, "9".repeat(400));
        let message = check(&huge).expect_err("400 digits overflow");
        assert!(
            message.contains("number 9999999999999999999999999999999999999999…"),
            "{message}"
        );
        for ok in [
            r#"{"x": 1e308}"#,
            r#"{"x": 1.7976931348623158e308}"#,
            r#"{"x": 1e-400}"#,
            r#"{"x": -1e-400}"#,
            r#"{"x": 123456789012345678901234567890}"#,
            r#"{"x": "1e400"}"#,
            r#"{"x\"1e400": "y"}"#,
            r#"{"modules.v1": "/v1e400/"}"#,
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        let tiny = format!(r#"{{"x": 0.{}1}}"#, "0".repeat(400));
        assert_eq!(check(&tiny), Ok(()), "many digits, a small number");
    }

    #[test]
    fn the_message_says_where() {
        let text = "{\n  \"a\": 1,\n  \"x\": 1e400\n}";
        assert_eq!(
            check(text),
            Err(
                "json: cannot unmarshal number 1e400 into Go value of type float64 \
                 at line 3 column 8"
                    .into()
            )
        );
    }

    #[test]
    fn long_runs_are_seen_wherever_they_start() {
        for offset in 0..300 {
            let mut text = " ".repeat(offset);
            text.push_str(&"9".repeat(LONG));
            assert!(may_overflow(text.as_bytes()), "at {offset}");
        }
        assert!(!may_overflow(br#"{"modules.v1": "/modules/", "n": 123}"#));
    }
}
