//! Go's `encoding/json` string encoding, for documents written byte for
//! byte as Terraform writes them (mirror folders, the module manifest).

/// A JSON string as Go's `encoding/json` writes it by default: `"` and `\`
/// escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`, and `<`,
/// `>`, `&`, U+2028 and U+2029 as `\u` escapes (HTML-safe).
///
/// ```
/// assert_eq!(
///     tfdisco_core::go_json_string("a<b>&c\"d\\e\n\u{1}\u{2028}é"),
///     r#""a\u003cb\u003e\u0026c\"d\\e\n\u0001\u2028é""#
/// );
/// ```
pub fn go_json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
