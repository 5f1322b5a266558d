//! Friendly hostnames: parsing into comparison form, and the two display forms.
//!
//! This is svchost's `ForComparison` / `ForDisplay` / `IsValid`
//! (docs/behaviour.md, HOST-1 to HOST-10) with the deliberate differences
//! D1–D3 (HOST-2 to HOST-4).

mod ascii;
mod error;
pub(crate) mod idn;
mod port;
mod repr;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

pub use error::{HostnameError, HostnameErrorKind};
use repr::Repr;

/// A service hostname in comparison form: ASCII (punycode for international
/// names), lower case, with an optional `:port` (never `:443`).
///
/// Two `Hostname`s name the same host exactly when they are equal. [`Display`]
/// shows the comparison form; [`Hostname::display`] shows the Unicode form for
/// people. Names of up to 62 bytes are stored inline, so parsing an
/// already-normalized ASCII name does not allocate.
///
/// ```
/// use tfdisco_core::Hostname;
///
/// let h: Hostname = "Испытание.COM:443".parse()?;
/// assert_eq!(h.as_str(), "xn--80akhbyknj4f.com");
/// assert_eq!(h.display(), "испытание.com");
/// assert_eq!(h, Hostname::parse("испытание.com")?);
/// # Ok::<(), tfdisco_core::HostnameError>(())
/// ```
///
/// [`Display`]: fmt::Display
#[derive(Clone)]
pub struct Hostname(Repr);

impl Hostname {
    /// Parses a hostname as a user gives it (svchost `ForComparison`).
    ///
    /// Unicode names go through UTS #46 lookup processing; punycode input is
    /// refused, as in Terraform and OpenTofu. The port, if any, must be 1 to 5
    /// digits with a value from 1 to 65535; `:443` is dropped.
    pub fn parse(given: &str) -> Result<Hostname, HostnameError> {
        match ascii::parse(given) {
            Some(repr) => Ok(Hostname(repr)),
            None => Hostname::parse_in_full(given).map_err(|kind| HostnameError::new(given, kind)),
        }
    }

    /// The host of a URL, with its port when the URL names one, parsed as
    /// [`parse`](Hostname::parse) does.
    ///
    /// ```
    /// use tfdisco_core::Hostname;
    /// use tfdisco_core::url::Url;
    ///
    /// let url = Url::parse("https://Example.COM:8443/x").unwrap();
    /// assert_eq!(Hostname::of_url(&url).unwrap().to_string(), "example.com:8443");
    /// let url = Url::parse("https://example.com:443/x").unwrap();
    /// assert_eq!(Hostname::of_url(&url).unwrap().to_string(), "example.com");
    /// assert!(Hostname::of_url(&Url::parse("file:///x").unwrap()).is_err());
    /// ```
    pub fn of_url(url: &url::Url) -> Result<Hostname, HostnameError> {
        let host = url.host_str().unwrap_or_default();
        match url.port() {
            Some(port) => Hostname::parse(&format!("{host}:{port}")),
            None => Hostname::parse(host),
        }
    }

    /// [`Hostname::parse`] for whatever the ASCII fast path leaves: every
    /// check, every error.
    #[cold]
    #[inline(never)]
    fn parse_in_full(given: &str) -> Result<Hostname, HostnameErrorKind> {
        let (host, port_portion) = split_port(given);
        let port = port::normalize(port_portion).map_err(|e| {
            if host.eq_ignore_ascii_case("http") || host.eq_ignore_ascii_case("https") {
                HostnameErrorKind::FullUrl
            } else {
                e
            }
        })?;
        if host.is_empty() {
            return Err(HostnameErrorKind::Empty);
        }
        if let Some(lowercase) = plain_ascii(host.as_bytes()) {
            return Ok(Hostname(Repr::build(host, lowercase, port)));
        }
        if let Some(ascii) = plain_international(host) {
            return Ok(Hostname(Repr::build(&ascii, false, port)));
        }
        check_labels(host)?;
        if host.is_ascii() {
            check_ascii(host)?;
            let lowercase = host.bytes().any(|b| b.is_ascii_uppercase());
            return Ok(Hostname(Repr::build(host, lowercase, port)));
        }
        let ascii = idn::lookup_to_ascii(host)?;
        // Mapping can empty a label (U+00AD alone, say); Go lets that through.
        check_no_empty_label(&ascii)?;
        Ok(Hostname(Repr::build(&ascii, false, port)))
    }

    /// Accepts a value that is already in comparison form, such as one read
    /// back from storage. Unlike [`Hostname::parse`] this accepts punycode, and
    /// it refuses anything that `parse` would have changed (upper case, `:443`,
    /// `:081`, Unicode).
    ///
    /// ```
    /// use tfdisco_core::Hostname;
    ///
    /// let h = Hostname::from_comparison("xn--mnchen-3ya.de:8443")?;
    /// assert_eq!(h.display(), "münchen.de:8443");
    /// assert!(Hostname::from_comparison("Example.com").is_err());
    /// # Ok::<(), tfdisco_core::HostnameError>(())
    /// ```
    pub fn from_comparison(value: &str) -> Result<Hostname, HostnameError> {
        Hostname::check_comparison(value).map_err(|kind| HostnameError::new(value, kind))
    }

    fn check_comparison(value: &str) -> Result<Hostname, HostnameErrorKind> {
        let (host, port_portion) = split_port(value);
        if host.is_empty()
            || !port::is_canonical(port_portion)
            || !host
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        {
            return Err(HostnameErrorKind::NotComparisonForm);
        }
        check_no_empty_label(host).map_err(|_| HostnameErrorKind::NotComparisonForm)?;
        let has_punycode = host.split('.').any(|l| l.starts_with("xn--"));
        if has_punycode {
            // The idna crate decodes and validates punycode labels; a canonical
            // label comes back unchanged.
            match idn::lookup_to_ascii(host) {
                Ok(ascii) if ascii == host => {}
                _ => return Err(HostnameErrorKind::NotComparisonForm),
            }
        } else {
            check_ascii(host).map_err(|_| HostnameErrorKind::NotComparisonForm)?;
        }
        Ok(Hostname(Repr::build(value, false, None)))
    }

    /// The comparison form, e.g. `xn--mnchen-3ya.de:8443`.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The host part of the comparison form, without the port.
    pub fn host(&self) -> &str {
        split_port(self.as_str()).0
    }

    /// The port, if the hostname has one other than 443.
    pub fn port(&self) -> Option<u16> {
        split_port(self.as_str()).1.get(1..)?.parse().ok()
    }

    /// The form to show people (svchost `Hostname.ForDisplay`): punycode
    /// labels decoded to Unicode, the port kept, e.g. `münchen.de:8443`.
    pub fn display(&self) -> Cow<'_, str> {
        let (host, port_portion) = split_port(self.as_str());
        if !host.split('.').any(|label| label.starts_with("xn--")) {
            return Cow::Borrowed(self.as_str());
        }
        match idn::lookup_to_unicode(host) {
            Some(unicode) => Cow::Owned(format!("{unicode}{port_portion}")),
            // Go panics here; only a stored value with odd punycode can get here.
            None => Cow::Borrowed(self.as_str()),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// The liberal display form of any string (svchost package-level
/// `ForDisplay`). It never fails: what cannot be converted is returned as
/// given. Unlike the comparison form it accepts punycode and uses transitional
/// processing (`faß.de` is shown as `fass.de`).
///
/// ```
/// assert_eq!(tfdisco_core::hostname::for_display("HashiCorp.com:443"), "hashicorp.com");
/// assert_eq!(tfdisco_core::hostname::for_display("xn--80akhbyknj4f.com"), "испытание.com");
/// assert_eq!(tfdisco_core::hostname::for_display("example.com:boo"), "example.com:boo");
/// ```
pub fn for_display(given: &str) -> String {
    let (host, port_portion) = split_port(given);
    let port_text = match port::normalize(port_portion) {
        Ok(None) => String::new(),
        Ok(Some(p)) => format!(":{p}"),
        Err(_) => port_portion.to_owned(),
    };
    match idn::liberal_display(host) {
        Some(display) => display + &port_text,
        None => format!("{host}{port_text}"),
    }
}

/// True when [`Hostname::parse`] accepts `given` (svchost `IsValid`).
pub fn is_valid(given: &str) -> bool {
    Hostname::parse(given).is_ok()
}

/// Splits at the first colon: everything from the colon on is the port portion.
fn split_port(given: &str) -> (&str, &str) {
    match given.bytes().position(|b| b == b':') {
        Some(i) => given.split_at(i),
        None => (given, ""),
    }
}

/// The plain ASCII case that `ascii::parse` leaves (short host parts, mostly)
/// in one pass: an ASCII host part whose labels are letters, digits and inner
/// hyphens, with no empty label but a trailing one and no `--` in third and
/// fourth place (which covers `xn--`). Returns whether it has upper case.
/// `None` means "not that simple": the full checks then decide, and name the
/// error. Whatever this accepts, they accept too.
fn plain_ascii(host: &[u8]) -> Option<bool> {
    let mut upper = false;
    let mut start = 0;
    for (i, &b) in host.iter().enumerate() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' | b'-' => {}
            b'A'..=b'Z' => upper = true,
            b'.' => {
                if !plain_label(&host[start..i]) {
                    return None;
                }
                start = i + 1;
            }
            _ => return None,
        }
    }
    let last = &host[start..];
    // Only the label after a trailing dot may be empty.
    (plain_label(last) || (last.is_empty() && start > 0)).then_some(upper)
}

/// The common international case without the label pre-check: a Unicode
/// host part without hyphens (so no label can start with `xn--`) whose UTS #46
/// form has no empty label (an empty input label would leave one there).
/// `None` means the full checks decide, and name the error. Whatever this
/// accepts, they accept too, with the same result.
fn plain_international(host: &str) -> Option<String> {
    if host.is_ascii() || host.as_bytes().contains(&b'-') {
        return None;
    }
    let ascii = idn::try_lookup_to_ascii(host)?;
    check_no_empty_label(&ascii).ok()?;
    Some(ascii)
}

fn plain_label(label: &[u8]) -> bool {
    match label {
        [] => false,
        [first, .., last] if *first == b'-' || *last == b'-' => false,
        [b'-'] => false,
        [_, _, b'-', b'-', ..] => false,
        _ => true,
    }
}

/// The svchost label pre-check, run after separator mapping (D2, D3): no empty
/// label but one trailing dot, and no label that starts with `xn--` in any case.
fn check_labels(host: &str) -> Result<(), HostnameErrorKind> {
    let mut labels = idn::labels(host).peekable();
    while let Some(label) = labels.next() {
        let last = labels.peek().is_none();
        if label.is_empty() && !last {
            return Err(HostnameErrorKind::EmptyLabel);
        }
        if label.len() >= 4 && label.as_bytes()[..4].eq_ignore_ascii_case(b"xn--") {
            return Err(HostnameErrorKind::PunycodeLabel {
                label: label.to_owned(),
            });
        }
    }
    Ok(())
}

/// An empty label is only allowed as the one after a trailing dot (`a.b.`).
fn check_no_empty_label(ascii: &str) -> Result<(), HostnameErrorKind> {
    let body = ascii.strip_suffix('.').unwrap_or(ascii).as_bytes();
    if body.is_empty() || body.split(|&b| b == b'.').any(<[u8]>::is_empty) {
        return Err(HostnameErrorKind::EmptyLabel);
    }
    Ok(())
}

/// UTS #46 lookup for a pure ASCII host part, without the `idna` crate: only
/// letters, digits, hyphens and dots are allowed (STD3), and no label may start
/// or end with a hyphen or have `--` in its third and fourth positions.
fn check_ascii(host: &str) -> Result<(), HostnameErrorKind> {
    if let Some(c) = host.chars().find(|&c| !idn::is_ldh_or_dot(c)) {
        return Err(HostnameErrorKind::DisallowedRune(c));
    }
    for label in host.split('.') {
        let b = label.as_bytes();
        let bad_hyphens = b.first() == Some(&b'-')
            || b.last() == Some(&b'-')
            || (b.len() >= 4 && &b[2..4] == b"--");
        if bad_hyphens {
            return Err(HostnameErrorKind::InvalidLabel {
                label: label.to_ascii_lowercase(),
            });
        }
    }
    Ok(())
}

impl FromStr for Hostname {
    type Err = HostnameError;

    fn from_str(s: &str) -> Result<Hostname, HostnameError> {
        Hostname::parse(s)
    }
}

impl TryFrom<&str> for Hostname {
    type Error = HostnameError;

    fn try_from(s: &str) -> Result<Hostname, HostnameError> {
        Hostname::parse(s)
    }
}

impl AsRef<str> for Hostname {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hostname({:?})", self.as_str())
    }
}

impl PartialEq for Hostname {
    fn eq(&self, other: &Hostname) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Hostname {}

impl PartialEq<str> for Hostname {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Hostname {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Hash for Hostname {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialOrd for Hostname {
    fn partial_cmp(&self, other: &Hostname) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Hostname {
    fn cmp(&self, other: &Hostname) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

/// Serialized as the comparison form.
impl serde::Serialize for Hostname {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Accepts a comparison form (as written by `Serialize`, punycode included)
/// or, failing that, any name [`Hostname::parse`] accepts.
impl<'de> serde::Deserialize<'de> for Hostname {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Hostname, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Hostname;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hostname")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Hostname, E> {
                Hostname::from_comparison(v)
                    .or_else(|_| Hostname::parse(v))
                    .map_err(|e| E::custom(format_args!("invalid hostname {v:?}: {e}")))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::repr::INLINE_CAP;
    use super::*;
    use proptest::prelude::*;

    /// The full checks an ASCII host part goes through without the fast path.
    fn full_checks(host: &str) -> bool {
        check_labels(host).is_ok() && check_ascii(host).is_ok()
    }

    #[test]
    fn plain_ascii_cases() {
        for ok in [
            "a", "a.b", "a.b.", "A-b.c0", "x1-2", "ab-c.d", "xn-a.b", "0.0",
        ] {
            assert!(plain_ascii(ok.as_bytes()).is_some(), "{ok}");
        }
        assert_eq!(plain_ascii(b"Registry.IO"), Some(true));
        assert_eq!(plain_ascii(b"registry.io"), Some(false));
        for odd in [
            ".", "a..b", ".a", "a.b..", "-a", "a-", "a.-b", "xn--a", "XN--a", "ab--c", "a_b",
            "a b", "a:b", "a.b-",
        ] {
            assert_eq!(plain_ascii(odd.as_bytes()), None, "{odd}");
        }
    }

    /// What the full checks make of a Unicode host part.
    fn full_international(host: &str) -> Result<String, HostnameErrorKind> {
        check_labels(host)?;
        let ascii = idn::lookup_to_ascii(host)?;
        check_no_empty_label(&ascii)?;
        Ok(ascii)
    }

    #[test]
    fn plain_international_cases() {
        for (given, ascii) in [
            ("münchen.de", "xn--mnchen-3ya.de"),
            ("Испытание.com", "xn--80akhbyknj4f.com"),
            ("bücher.de.", "xn--bcher-kva.de."),
            ("a。b．ü｡d", "a.b.xn--tda.d"),
            ("ｘｎ－－mnchen－3ya.de", "xn--mnchen-3ya.de"),
        ] {
            assert_eq!(
                plain_international(given).as_deref(),
                Some(ascii),
                "{given}"
            );
            assert_eq!(full_international(given).as_deref(), Ok(ascii), "{given}");
        }
        for odd in [
            "bücher-online.de",
            "ü..de",
            "ü。。de",
            "。ü",
            "ü.de..",
            "\u{AD}.ü",
            "ü_x.de",
            "ascii.only",
        ] {
            assert_eq!(plain_international(odd), None, "{odd}");
        }
    }

    #[test]
    fn the_ascii_fast_path_takes_the_common_names() {
        let long = format!("{}.example.com", "a".repeat(INLINE_CAP - 12));
        for (given, expected) in [
            ("registry.terraform.io", "registry.terraform.io"),
            ("Registry.Terraform.IO:443", "registry.terraform.io"),
            ("REGISTRY.TERRAFORM.IO:8443", "registry.terraform.io:8443"),
            (
                "tfe.internal.example.com:8443",
                "tfe.internal.example.com:8443",
            ),
            ("app.terraform.io", "app.terraform.io"),
            ("App.Terraform.Io:1", "app.terraform.io:1"),
            ("a.b.c.d.e.f.g.h.", "a.b.c.d.e.f.g.h."),
            ("eu-west-1.example.com", "eu-west-1.example.com"),
            (
                "127.000.000.001.example:65535",
                "127.000.000.001.example:65535",
            ),
            (
                "terraform-registry.platform.corp.example.com:8443",
                "terraform-registry.platform.corp.example.com:8443",
            ),
            (&long, &long),
        ] {
            let fast = ascii::parse(given).unwrap_or_else(|| panic!("{given} not taken"));
            assert_eq!(fast.as_str(), expected, "{given}");
            let full = Hostname::parse_in_full(given).expect("valid");
            assert_eq!(full.as_str(), expected, "{given}");
            assert!(matches!(fast, Repr::Inline { .. }));
        }
        let too_long = format!("{}.example.com", "a".repeat(INLINE_CAP - 11));
        for left in [
            // Short host parts, and long comparison forms.
            "localhost",
            "localhost:8080",
            "a.io",
            "app.terraform.i",
            &too_long,
            // Ports the full checks normalize or refuse.
            "registry.terraform.io:0443",
            "registry.terraform.io:081",
            "registry.terraform.io:0",
            "registry.terraform.io:65536",
            "registry.terraform.io:",
            "registry.terraform.io:+443",
            "http://registry.terraform.io",
            // `--` anywhere, valid or not.
            "ab--cd.example.com",
            "xn--mnchen-3ya.example.com",
            "registry.example.com--",
            // Labels the full checks refuse.
            ".registry.terraform.io",
            "registry..terraform.io",
            "registry.terraform.io..",
            "-registry.terraform.io",
            "registry-.terraform.io",
            "registry.terraform.io-",
            "registry.-terraform.io",
            // Anything but letters, digits, `-` and `.`.
            "registry_terraform.io",
            "registry.terraform.io/",
            "registry.terraform.io:443:443",
            "münchen.example.com",
            "registry.terraform\0.io",
        ] {
            assert!(ascii::parse(left).is_none(), "{left} taken");
        }
    }

    /// Text for the ASCII fast path: near its lengths, ports and rules.
    fn ascii_names() -> impl Strategy<Value = String> {
        let port = prop_oneof![
            Just(String::new()),
            Just(":443".to_owned()),
            "[:][0-9]{1,6}",
            Just(":".to_owned()),
        ];
        let label = "[a-zA-Z0-9]{1,9}(-[a-zA-Z0-9]{1,5})?";
        let valid = prop::collection::vec(label, 3..10).prop_map(|labels| labels.join("."));
        // A name with one byte changed to one that matters to the rules.
        let changed = (
            valid.clone(),
            any::<prop::sample::Index>(),
            "[-.:_/\\u{0}\\u{80}ü]",
        )
            .prop_map(|(name, at, with)| {
                let at = at.index(name.len());
                format!("{}{with}{}", &name[..at], &name[at + 1..])
            });
        let host = prop_oneof![
            4 => valid,
            4 => changed,
            1 => "[a-zA-Z0-9.-]{12,66}",
            1 => "([a-zA-Z0-9]{1,12}[.-]{1,2}){2,8}[a-zA-Z0-9]{0,3}",
            1 => "[aZ9.:-]{14,40}",
            1 => "[ -~]{14,40}",
            1 => "[a-z.\\u{0}\\u{7f}\\u{80}ü_-]{14,30}",
        ];
        (host, port).prop_map(|(h, p)| h + &p)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// The ASCII fast path changes no result: whatever it takes, the full
        /// checks give the same, and parsing gives what they give.
        #[test]
        fn the_ascii_fast_path_agrees_with_the_full_checks(given in ascii_names()) {
            let full = Hostname::parse_in_full(&given);
            if let Some(fast) = ascii::parse(&given) {
                let full = full.clone().expect("the full checks accept it");
                prop_assert_eq!(fast.as_bytes(), full.as_bytes());
                let inline = matches!(full.0, Repr::Inline { .. });
                prop_assert!(inline, "{:?} is not inline", given);
            }
            prop_assert_eq!(Hostname::parse(&given).map_err(|e| e.kind().clone()), full);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        /// The international fast path agrees with the full checks.
        #[test]
        fn plain_international_agrees_with_the_full_checks(
            host in "[aü.\u{3002}\u{FF0E}\u{FF61}\u{AD}\u{200D}_x-]{1,10}"
        ) {
            if let Some(ascii) = plain_international(&host) {
                prop_assert_eq!(full_international(&host), Ok(ascii), "{:?}", host);
            }
        }

        /// The fast path accepts exactly what the full checks accept.
        #[test]
        fn plain_ascii_agrees_with_the_full_checks(host in "[aXn0._-]{1,12}|[ -~]{1,8}") {
            prop_assert_eq!(plain_ascii(host.as_bytes()).is_some(), full_checks(&host), "{:?}", host);
        }
    }
}
