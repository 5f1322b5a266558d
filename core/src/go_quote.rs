//! Go's `strconv.Quote` (the `%q` verb), for error texts that match Go's.

use std::fmt::Write;

/// Go's `strconv.Quote` (the `%q` verb), closely enough for error messages:
/// printable characters kept, the rest escaped Go-style. Other tfdisco crates
/// use it to reproduce Go's error texts.
///
/// ```
/// assert_eq!(tfdisco_core::go_quote("a\"b\tc"), r#""a\"b\tc""#);
/// ```
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if is_printable(c) => out.push(c),
            c if u32::from(c) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint`: not a control or format
/// character, and no space other than U+0020.
fn is_printable(c: char) -> bool {
    !(c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(
            go_quote("a\"b\\c\u{1}\u{a0}é"),
            "\"a\\\"b\\\\c\\x01\\u00a0é\""
        );
    }
}
