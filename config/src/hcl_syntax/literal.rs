//! The values of literal tokens: string literal text with its escapes
//! (hclsyntax's `ParseStringLiteralToken` over `scanStringLit`), and number
//! literals (`cty.ParseNumberVal`, Go's `big.ParseFloat`).

use super::error::{Detail, Errors};
use super::token::Span;

/// The text of a string literal token at `start`, its escapes resolved: in
/// a quoted string (`quoted`) `\n`, `\r`, `\t`, `\"`, `\\`, `\uNNNN`,
/// `\UNNNNNNNN`, and in both `$${` and `%%{`. A bad escape is an error and
/// is kept as written (an unknown selector without its backslash).
pub(crate) fn string_value(
    token_text: &str,
    start: usize,
    quoted: bool,
    errors: &mut Errors,
) -> String {
    let mut out = String::with_capacity(token_text.len());
    let bytes = token_text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let piece_start = i;
        match bytes[i] {
            b'\\' if quoted => {
                let Some(selector) = token_text[i + 1..].chars().next() else {
                    errors.push(
                        "Invalid escape sequence",
                        "Backslash must be followed by an escape sequence selector character.",
                        Span::new(start + i, start + i + 1),
                    );
                    out.push('\\');
                    i += 1;
                    continue;
                };
                match selector {
                    'n' | 'r' | 't' | '"' | '\\' => {
                        out.push(match selector {
                            'n' => '\n',
                            'r' => '\r',
                            't' => '\t',
                            c => c,
                        });
                        i += 2;
                    }
                    'u' | 'U' => {
                        let want = if selector == 'u' { 4 } else { 8 };
                        let digits = bytes[i + 2..]
                            .iter()
                            .take(want)
                            .take_while(|b| b.is_ascii_hexdigit())
                            .count();
                        let end = i + 2 + digits;
                        let span = Span::new(start + i, start + end);
                        let piece = &token_text[i..end];
                        if digits != want {
                            let detail = if want == 4 {
                                "The \\u escape sequence must be followed by four hexadecimal digits."
                            } else {
                                "The \\U escape sequence must be followed by eight hexadecimal digits."
                            };
                            errors.push("Invalid escape sequence", detail, span);
                            out.push_str(piece);
                        } else {
                            let n = u32::from_str_radix(&token_text[i + 2..end], 16).unwrap_or(0);
                            match char::from_u32(n) {
                                Some(c) => out.push(c),
                                None => {
                                    errors.push(
                                        "Invalid escape sequence",
                                        Detail::from(format!(
                                            "Cannot encode character U+{n:04x} in UTF-8."
                                        )),
                                        span,
                                    );
                                    out.push_str(piece);
                                }
                            }
                        }
                        i = end;
                    }
                    c => {
                        let end = i + 1 + c.len_utf8();
                        errors.push(
                            "Invalid escape sequence",
                            Detail::from(format!(
                                "The symbol {} is not a valid escape sequence selector.",
                                tfdisco_core::go_quote(&token_text[i + 1..end])
                            )),
                            Span::new(start + i, start + end),
                        );
                        out.push(c);
                        i = end;
                    }
                }
            }
            b'$' | b'%' => {
                let sign = bytes[i];
                if bytes.get(i + 1) == Some(&sign) && bytes.get(i + 2) == Some(&b'{') {
                    out.push(char::from(sign));
                    out.push('{');
                    i += 3;
                } else if bytes.get(i + 1) == Some(&sign) {
                    out.push(char::from(sign));
                    out.push(char::from(sign));
                    i += 2;
                } else {
                    out.push(char::from(sign));
                    i += 1;
                }
            }
            _ => {
                let next = bytes[i + 1..]
                    .iter()
                    .position(|&b| b == b'$' || b == b'%' || (quoted && b == b'\\'))
                    .map_or(bytes.len(), |p| i + 1 + p);
                out.push_str(&token_text[piece_start..next]);
                i = next;
            }
        }
    }
    out
}

/// Whether a number literal token (digits, `.` and exponents, as the
/// scanner cuts them) is a number to Go's `big.ParseFloat(s, 10, 512, …)`:
/// digits with at most one `.`, then at most one exponent whose digits fit
/// in an `int64`, and, unless the number is zero, a binary exponent (the
/// mantissa's bits, less the fraction's digits, plus the exponent) within
/// `big.Float`'s range (`exponent overflow` otherwise).
pub(crate) fn is_number(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    if mantissa.bytes().filter(|&b| b == b'.').count() > 1 {
        return false;
    }
    let exponent = match exponent {
        None => 0,
        Some(exponent) => {
            let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return false;
            }
            match exponent.parse::<i64>() {
                Ok(e) => e,
                Err(_) => return false,
            }
        }
    };
    let frac_len = mantissa.split_once('.').map_or(0, |(_, frac)| frac.len());
    let mut digits = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0');
    let Some(first) = digits.next() else {
        return true;
    };
    // The mantissa's bits: exact up to 18 digits, within one beyond.
    let mut lead = u64::from(first - b'0');
    let mut count = 1usize;
    for d in digits {
        if count < 18 {
            lead = lead * 10 + u64::from(d - b'0');
        }
        count += 1;
    }
    let bits = if count <= 18 {
        i128::from(64 - lead.leading_zeros())
    } else {
        let log2 = (lead as f64).log2() + (count - 18) as f64 * std::f64::consts::LOG2_10;
        log2.floor() as i128 + 1
    };
    let exp2 = bits - frac_len as i128 + i128::from(exponent);
    (i128::from(i32::MIN)..=i128::from(i32::MAX)).contains(&exp2)
}

/// A valid number literal as cty writes the number as a string (Go's
/// `big.Float.Text('f', -1)`): plain decimal notation, without leading or
/// trailing zeros (`1.50` is `1.5`, `1e3` is `1000`, `007` is `7`). Literals
/// whose notation would be longer than a few hundred digits are given as
/// written.
pub(crate) fn number_text(text: &str) -> String {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{int}{frac}");
    let Some(first) = digits.find(|c| c != '0') else {
        return "0".to_owned();
    };
    let last = digits.rfind(|c| c != '0').unwrap_or(first);
    let significant = &digits[first..=last];
    // The decimal point's place, counted from the first significant digit.
    let point = int.len() as i64 - first as i64 + exponent;
    let len = significant.len() as i64;
    if point.abs() > 400 || len > 400 {
        return text.to_owned();
    }
    if point <= 0 {
        format!(
            "0.{}{significant}",
            "0".repeat(point.unsigned_abs() as usize)
        )
    } else if point >= len {
        format!("{significant}{}", "0".repeat((point - len) as usize))
    } else {
        let (a, b) = significant.split_at(point as usize);
        format!("{a}.{b}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, quoted: bool) -> (String, bool) {
        let mut errors = Errors::default();
        let value = string_value(text, 0, quoted, &mut errors);
        (value, errors.is_empty())
    }

    #[test]
    fn escapes() {
        assert_eq!(
            value(r#"a\n\r\t\"\\\u00e9\U0001F600"#, true),
            ("a\n\r\t\"\\é😀".into(), true)
        );
        assert_eq!(
            value("$${x} %%{y} $$ %", true),
            ("${x} %{y} $$ %".into(), true)
        );
        assert_eq!(value(r"\n$${x}", false), (r"\n${x}".into(), true));
        assert_eq!(value(r"\q", true), ("q".into(), false));
        assert_eq!(value(r"\u12", true), (r"\u12".into(), false));
        assert_eq!(value(r"\ud800", true), (r"\ud800".into(), false));
        assert_eq!(value(r"\u12345", true), ("\u{1234}5".into(), true));
    }

    #[test]
    fn numbers() {
        for ok in ["1", "1.5", "1.e5", "1e+5", "1E-5", "007"] {
            assert!(is_number(ok), "{ok}");
        }
        assert!(is_number("1e99999"));
        assert!(is_number("0e9999999999"));
        for bad in [
            "1.2.3",
            "1..2",
            "1e5e5",
            "1e5.5",
            "1e99999999999999999999",
            "1e9999999999",
            "1e-9999999999",
        ] {
            assert!(!is_number(bad), "{bad}");
        }
        for (given, text) in [
            ("5", "5"),
            ("007", "7"),
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("1.5e-3", "0.0015"),
            ("0.0", "0"),
            ("0e5", "0"),
            ("12.5e1", "125"),
            ("1.e5", "100000"),
            ("0.25", "0.25"),
        ] {
            assert_eq!(number_text(given), text, "{given}");
        }
    }
}
