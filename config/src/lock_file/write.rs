//! Writing a lock file as Go's `SaveLocksToBytes` writes it through
//! `hclwrite` (docs/behaviour.md, LOCK-4), and replacing the file as
//! `replacefile.AtomicWriteFile` does, and more safely (LOCK-5).

use std::path::Path;

use tfdisco_core::Dialect;

use super::{LockFile, LockFileError};

/// The file as the dialect's CLI writes it.
pub(super) fn to_bytes(lock: &LockFile) -> Vec<u8> {
    let command = match lock.dialect {
        Dialect::Terraform => "terraform init",
        Dialect::OpenTofu => "tofu init",
    };
    let mut out = format!(
        "# This file is maintained automatically by \"{command}\".\n\
         # Manual edits may be lost in future updates.\n"
    );
    for provider in lock.providers() {
        out.push_str("\nprovider ");
        quoted(&mut out, &provider.source.to_string());
        out.push_str(" {\n");
        // hclwrite aligns the `=` of consecutive one-line attributes; the
        // multi-line `hashes` is not one of them.
        match &provider.constraints {
            Some(constraints) => {
                out.push_str("  version     = ");
                quoted(&mut out, &provider.version);
                out.push_str("\n  constraints = ");
                quoted(&mut out, constraints);
                out.push('\n');
            }
            None => {
                out.push_str("  version = ");
                quoted(&mut out, &provider.version);
                out.push('\n');
            }
        }
        if !provider.hashes.is_empty() {
            out.push_str("  hashes = [\n");
            for hash in &provider.hashes {
                out.push_str("    ");
                quoted(&mut out, hash);
                out.push_str(",\n");
            }
            out.push_str("  ]\n");
        }
        out.push_str("}\n");
    }
    out.into_bytes()
}

/// A quoted string literal as `hclwrite.TokensForValue` writes one (Go's
/// `escapeQuotedStringLit`): `\n`, `\r`, `\t`, `"` and `\` escaped,
/// template introducers doubled (`$${`, `%%{`), other characters Go does
/// not count as printable written `\uXXXX` / `\UXXXXXXXX`.
fn quoted(out: &mut String, s: &str) {
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' | '%' => {
                out.push(c);
                if chars.peek() == Some(&'{') {
                    out.push(c);
                }
            }
            c if !is_print(c) => {
                let code = u32::from(c);
                if code < 0x10000 {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `unicode.IsPrint` as far as the standard library can tell: not a
/// control, not white space other than the space, not a format character,
/// not for private use. (Unassigned code points, which Go also counts as
/// not printable, are written as they are.)
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let code = u32::from(c);
    const FORMAT: &[(u32, u32)] = &[
        (0xAD, 0xAD),
        (0x600, 0x605),
        (0x61C, 0x61C),
        (0x6DD, 0x6DD),
        (0x70F, 0x70F),
        (0x890, 0x891),
        (0x8E2, 0x8E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xE000, 0xF8FF),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
        (0xF0000, 0x10FFFF),
    ];
    !FORMAT.iter().any(|&(lo, hi)| (lo..=hi).contains(&code))
}

/// Replaces the lock file at `path` with `bytes` atomically
/// ([`crate::write_atomically`]).
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), LockFileError> {
    crate::write_atomically(path, bytes).map_err(|source| LockFileError::Io {
        path: path.to_owned(),
        action: "write",
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> String {
        let mut out = String::new();
        quoted(&mut out, s);
        out
    }

    #[test]
    fn strings_are_escaped_as_hclwrite_escapes_them() {
        assert_eq!(q("h1:abc+/="), r#""h1:abc+/=""#);
        assert_eq!(q("a\"b\\c\n\r\t"), r#""a\"b\\c\n\r\t""#);
        assert_eq!(q("${x} %{y} $x %"), r#""$${x} %%{y} $x %""#);
        assert_eq!(q("\u{1}\u{200b}\u{a0}é"), r#""\u0001\u200b\u00a0é""#);
        assert_eq!(q("\u{F0000}"), r#""\U000f0000""#);
    }
}
