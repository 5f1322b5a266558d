//! The IDNA profiles (docs/behaviour.md, HOST-5, HOST-6, HOST-9), on top of
//! the `idna` crate (UTS #46).
//!
//! * Lookup (comparison form): non-transitional, STD3 ASCII rules, CheckHyphens,
//!   CheckJoiners, CheckBidi, no DNS length check, trailing dot kept. This is
//!   x/net's `idna.Lookup`; the `idna` crate always checks joiners and bidi.
//! * Liberal display (package-level `ForDisplay`): the same checks but
//!   *transitional*, which the `idna` crate does not offer; UTS #46 defines it as
//!   a pre-mapping of the four deviation characters, which we apply first.

use std::borrow::Cow;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};

use super::HostnameErrorKind;

const UTS46: Uts46 = Uts46::new();

/// The labels of a host part: split at `.` and at the characters UTS #46 maps
/// to it (`。`, `．`, `｡`), like `str::split`. It works on bytes: in UTF-8 the
/// separators' encodings cannot start inside another character.
pub(crate) fn labels(host: &str) -> Labels<'_> {
    Labels { rest: Some(host) }
}

pub(crate) struct Labels<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for Labels<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        let bytes = rest.as_bytes();
        for i in 0..bytes.len() {
            let width = match bytes[i..] {
                [b'.', ..] => 1,
                [0xE3, 0x80, 0x82, ..] | [0xEF, 0xBC, 0x8E, ..] | [0xEF, 0xBD, 0xA1, ..] => 3,
                _ => continue,
            };
            self.rest = Some(&rest[i + width..]);
            return Some(&rest[..i]);
        }
        self.rest = None;
        Some(rest)
    }
}

/// UTS #46 ToASCII with the Lookup profile.
pub(crate) fn lookup_to_ascii(host: &str) -> Result<String, HostnameErrorKind> {
    try_lookup_to_ascii(host).ok_or_else(|| diagnose(host))
}

/// [`lookup_to_ascii`] without naming the error.
pub(crate) fn try_lookup_to_ascii(host: &str) -> Option<String> {
    let host = go_tables(host);
    UTS46
        .to_ascii(
            host.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::Check,
            DnsLength::Ignore,
        )
        .ok()
        .map(|ascii| ascii.into_owned())
}

/// UTS #46 ToUnicode with the Lookup profile; `None` if the name has errors.
pub(crate) fn lookup_to_unicode(ascii: &str) -> Option<Cow<'_, str>> {
    match UTS46.to_unicode(ascii.as_bytes(), AsciiDenyList::STD3, Hyphens::Check) {
        (unicode, Ok(())) => Some(unicode),
        (_, Err(_)) => None,
    }
}

/// Where the `idna` crate's Unicode tables differ from the older x/net tables
/// Terraform and OpenTofu ship, Go's mapping first (docs/behaviour.md,
/// HOST-7): U+1E9E LATIN CAPITAL LETTER SHARP S maps to `ss` there (to `ß`
/// since Unicode 15.1), so both contact the same host.
pub(crate) fn go_tables(host: &str) -> Cow<'_, str> {
    if host.contains('\u{1E9E}') {
        Cow::Owned(host.replace('\u{1E9E}', "ss"))
    } else {
        Cow::Borrowed(host)
    }
}

/// The liberal display form of a host part (no port), or `None` when Go's
/// display profile would fail and return the input unchanged.
pub(crate) fn liberal_display(host: &str) -> Option<String> {
    let host = drop_empty_punycode(host);
    let mapped = premap_deviations(&host);
    let ascii = UTS46
        .to_ascii(
            mapped.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::Check,
            DnsLength::Ignore,
        )
        .ok()?;
    let unicode = lookup_to_unicode(&ascii)?;
    // A punycode label that decodes to a deviation character is invalid under
    // transitional processing (x/net rejects it as "mapped"), so Go gives up.
    if unicode.chars().any(is_deviation) {
        return None;
    }
    Some(unicode.into_owned())
}

/// A label that is only the punycode prefix (`xn--`, in any case or width)
/// decodes to nothing in Go's display profile: `foo.xn--` shows as `foo.`.
fn drop_empty_punycode(host: &str) -> Cow<'_, str> {
    let is_bare_prefix = |label: &str| {
        let mut ascii = label.chars().map(|c| match c {
            // Fullwidth ASCII, which UTS #46 maps to ASCII.
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            c => c,
        });
        ascii
            .by_ref()
            .take(4)
            .map(|c| c.to_ascii_lowercase())
            .eq("xn--".chars())
            && ascii.next().is_none()
    };
    if !labels(host).any(is_bare_prefix) {
        return Cow::Borrowed(host);
    }
    let kept: Vec<&str> = labels(host)
        .map(|label| if is_bare_prefix(label) { "" } else { label })
        .collect();
    Cow::Owned(kept.join("."))
}

fn is_deviation(c: char) -> bool {
    matches!(c, '\u{DF}' | '\u{3C2}' | '\u{200C}' | '\u{200D}')
}

/// Transitional processing: ß and ẞ become "ss", final sigma becomes σ, and the
/// zero-width joiners disappear.
fn premap_deviations(host: &str) -> Cow<'_, str> {
    if !host.chars().any(|c| is_deviation(c) || c == '\u{1E9E}') {
        return Cow::Borrowed(host);
    }
    let mut out = String::with_capacity(host.len() + 2);
    for c in host.chars() {
        match c {
            '\u{DF}' | '\u{1E9E}' => out.push_str("ss"),
            '\u{3C2}' => out.push('\u{3C3}'),
            '\u{200C}' | '\u{200D}' => {}
            other => out.push(other),
        }
    }
    Cow::Owned(out)
}

/// Names the cause of an IDNA failure the way x/net does for the common cases:
/// a disallowed ASCII character, else the first label that fails on its own.
fn diagnose(host: &str) -> HostnameErrorKind {
    if let Some(c) = host.chars().find(|&c| c.is_ascii() && !is_ldh_or_dot(c)) {
        return HostnameErrorKind::DisallowedRune(c);
    }
    let label = labels(host)
        .find(|label| {
            UTS46
                .to_ascii(
                    label.as_bytes(),
                    AsciiDenyList::STD3,
                    Hyphens::Check,
                    DnsLength::Ignore,
                )
                .is_err()
        })
        .unwrap_or(host);
    HostnameErrorKind::InvalidLabel {
        label: label.to_owned(),
    }
}

pub(crate) fn is_ldh_or_dot(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '.'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_non_transitional() {
        assert_eq!(lookup_to_ascii("faß.de").as_deref(), Ok("xn--fa-hia.de"));
        assert_eq!(lookup_to_ascii("Ⅻ.com").as_deref(), Ok("xii.com"));
    }

    #[test]
    fn capital_sharp_s_maps_as_in_go() {
        assert_eq!(lookup_to_ascii("ẞ.de").as_deref(), Ok("ss.de"));
        assert_eq!(lookup_to_ascii("faẞ.de").as_deref(), Ok("fass.de"));
        assert_eq!(liberal_display("faẞ.de").as_deref(), Some("fass.de"));
    }

    #[test]
    fn a_bare_punycode_prefix_displays_as_nothing() {
        assert_eq!(liberal_display("xn--").as_deref(), Some(""));
        assert_eq!(liberal_display("foo.xn--").as_deref(), Some("foo."));
        assert_eq!(liberal_display("foo.XN--.bar").as_deref(), Some("foo..bar"));
        assert_eq!(liberal_display("foo.ｘｎ－－").as_deref(), Some("foo."));
        assert_eq!(liberal_display("foo.xn--x").as_deref(), None);
    }

    #[test]
    fn display_is_transitional() {
        assert_eq!(liberal_display("faß.de").as_deref(), Some("fass.de"));
        assert_eq!(liberal_display("a\u{200d}b.com").as_deref(), Some("ab.com"));
        assert_eq!(liberal_display("xn--fa-hia.de"), None);
        assert_eq!(
            liberal_display("xn--80akhbyknj4f.com").as_deref(),
            Some("испытание.com")
        );
    }

    #[test]
    fn labels_split_like_str_split_at_every_separator() {
        let separators = ['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'];
        for host in [
            "",
            ".",
            "a",
            "a.b",
            "a。b．c｡d",
            "a..b.",
            "ü。",
            "。ü",
            "a\u{3003}b",
            "\u{FF0F}.x",
        ] {
            let expected: Vec<&str> = host.split(separators).collect();
            assert_eq!(labels(host).collect::<Vec<_>>(), expected, "{host:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn labels_agree_with_str_split(host in "[a.\u{3002}\u{FF0E}\u{FF61}\u{3003}\u{FF0F}ü]{0,8}") {
            let expected: Vec<&str> = host.split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}']).collect();
            proptest::prop_assert_eq!(labels(&host).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn diagnoses_name_the_culprit() {
        assert_eq!(diagnose("ü_x.de"), HostnameErrorKind::DisallowedRune('_'));
        assert_eq!(
            diagnose("ok.-ü.de"),
            HostnameErrorKind::InvalidLabel {
                label: "-ü".into()
            }
        );
    }
}
