//! The rules on an entry's name before anything is unpacked under it
//! (docs/behaviour.md, UNPACK-3 and UNPACK-4).

use super::UnpackError;
use crate::package_hash::check_name;

/// `name` as a path the package may have, or why not, checked in this
/// order: absolute (a `/` or `\` first, or a drive letter such as `C:`,
/// which Windows joins as an absolute path); a `..` element, between `/`
/// or `\`; the `h1:` rules (HASH-7: a newline, a `\`, a NUL, an empty or
/// `.` element); UTF-8.
pub(super) fn check(name: &[u8]) -> Result<&str, UnpackError> {
    let entry = || String::from_utf8_lossy(name).into_owned();
    if is_absolute(name) {
        return Err(UnpackError::AbsoluteName { entry: entry() });
    }
    if name
        .split(|&b| b == b'/' || b == b'\\')
        .any(|element| element == b"..")
    {
        return Err(UnpackError::ParentElement { entry: entry() });
    }
    check_name(name, name.ends_with(b"/"))?;
    std::str::from_utf8(name).map_err(|_| UnpackError::NotUtf8 { entry: entry() })
}

/// Whether `name` is absolute on some system: rooted (`/x`, `\x`) or on a
/// drive (`C:x`, `C:\x`, `C:/x`).
fn is_absolute(name: &[u8]) -> bool {
    match name {
        [b'/' | b'\\', ..] => true,
        [drive, b':', ..] => drive.is_ascii_alphabetic(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_names_on_any_system() {
        for name in [
            "/x",
            "\\x",
            "C:x",
            "c:\\x",
            "Z:/x",
            "/",
            "\\\\server\\share",
        ] {
            assert!(is_absolute(name.as_bytes()), "{name}");
        }
        for name in ["x", "x/y", "xy:z", "1:x", "éC:", "x/C:y"] {
            assert!(!is_absolute(name.as_bytes()), "{name}");
        }
    }
}
