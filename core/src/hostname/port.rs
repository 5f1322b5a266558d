//! The `:port` portion of a friendly hostname (docs/behaviour.md, HOST-2: D1).

use super::HostnameErrorKind;

/// Normalizes the port portion of a hostname: empty, or `:` followed by the port.
///
/// Returns `None` when there is no port or the port is the default 443, which is
/// dropped. D1: the port is 1 to 5 ASCII digits (leading zeros allowed) with a
/// value in `1..=65535`; Go's `Atoi` would also take signs and zero.
pub(crate) fn normalize(portion: &str) -> Result<Option<u16>, HostnameErrorKind> {
    let Some(digits) = portion.strip_prefix(':') else {
        return Ok(None);
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HostnameErrorKind::PortNotDigits);
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 5 {
        return Err(HostnameErrorKind::PortTooLarge);
    }
    // At most five digits, so this cannot overflow a u32.
    let value: u32 = significant
        .bytes()
        .fold(0, |acc, b| acc * 10 + u32::from(b - b'0'));
    if value > 65535 {
        return Err(HostnameErrorKind::PortTooLarge);
    }
    if digits.len() > 5 {
        return Err(HostnameErrorKind::PortTooLong);
    }
    match value {
        0 => Err(HostnameErrorKind::PortZero),
        443 => Ok(None),
        // `value <= 65535` was checked above.
        other => Ok(Some(other as u16)),
    }
}

/// True when `portion` is already exactly what [`normalize`] would render.
pub(crate) fn is_canonical(portion: &str) -> bool {
    match normalize(portion) {
        Ok(None) => portion.is_empty(),
        Ok(Some(p)) => portion.len() > 1 && portion[1..] == *p.to_string(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d1_rules() {
        assert_eq!(normalize(""), Ok(None));
        assert_eq!(normalize(":443"), Ok(None));
        assert_eq!(normalize(":0443"), Ok(None));
        assert_eq!(normalize(":081"), Ok(Some(81)));
        assert_eq!(normalize(":65535"), Ok(Some(65535)));
        assert_eq!(normalize(":65536"), Err(HostnameErrorKind::PortTooLarge));
        assert_eq!(normalize(":9999999"), Err(HostnameErrorKind::PortTooLarge));
        assert_eq!(normalize(":000081"), Err(HostnameErrorKind::PortTooLong));
        assert_eq!(normalize(":0"), Err(HostnameErrorKind::PortZero));
        assert_eq!(normalize(":00"), Err(HostnameErrorKind::PortZero));
        for bad in [":", ":+80", ":-1", ":8o", ": 80", ":80:80", ":٨٠", ":0x50"] {
            assert_eq!(
                normalize(bad),
                Err(HostnameErrorKind::PortNotDigits),
                "{bad}"
            );
        }
    }

    #[test]
    fn canonical_ports() {
        assert!(is_canonical(""));
        assert!(is_canonical(":81"));
        assert!(!is_canonical(":443"));
        assert!(!is_canonical(":081"));
        assert!(!is_canonical(":"));
    }
}
