//! Service identifiers such as `modules.v1` (docs/behaviour.md, SVCID-1 to
//! SVCID-5).

use std::borrow::Cow;
use std::fmt;

use crate::Dialect;

/// A parsed service identifier: a name, a dot, and a version (`providers.v1`).
///
/// How the version is read depends on the [`Dialect`]: OpenTofu wants `v` and
/// an integer (and reads `tfe.v2.1` as major 2), Terraform takes go-version
/// syntax (`modules.1`, `login.v1.1`, `thing.v1-beta`). Whatever the dialect,
/// services are looked up by the exact identifier text.
///
/// ```
/// use tfdisco_core::{Dialect, ServiceId};
///
/// let id = ServiceId::parse("tfe.v2.1", Dialect::OpenTofu)?;
/// assert_eq!((id.name(), id.version().as_ref()), ("tfe", "2"));
/// let id = ServiceId::parse("modules.v1-beta", Dialect::Terraform)?;
/// assert_eq!((id.name(), id.version().as_ref()), ("modules", "v1-beta"));
/// assert!(ServiceId::parse("modules.v1-beta", Dialect::OpenTofu).is_err());
/// # Ok::<(), tfdisco_core::ServiceIdError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ServiceId {
    id: Box<str>,
    name_len: usize,
    major: Option<u64>,
}

impl ServiceId {
    /// The service ids Terraform and OpenTofu use: the registries
    /// (`modules.v1`, `providers.v1`), `terraform login` (`login.v1`), HCP
    /// Terraform / Terraform Enterprise (`tfe.v2`, `tfe.v2.1`, `tfe.v2.2`,
    /// `motd.v1`, `state.v2`) and the remote backend's `versions.v1`.
    pub const KNOWN: &'static [&'static str] = &[
        "modules.v1",
        "providers.v1",
        "login.v1",
        "tfe.v2",
        "tfe.v2.1",
        "tfe.v2.2",
        "motd.v1",
        "versions.v1",
        "state.v2",
    ];

    /// True for an id in [`ServiceId::KNOWN`].
    pub fn is_known(id: &str) -> bool {
        ServiceId::KNOWN.contains(&id)
    }

    /// Parses `id` under the rules of `dialect`.
    pub fn parse(id: &str, dialect: Dialect) -> Result<ServiceId, ServiceIdError> {
        let parsed = ParsedId::parse(id, dialect)?;
        Ok(ServiceId {
            id: id.into(),
            name_len: parsed.name.len(),
            major: match parsed.version {
                Version::Major(m) => Some(m),
                Version::Text(_) => None,
            },
        })
    }

    /// The identifier as given, e.g. `modules.v1`.
    pub fn as_str(&self) -> &str {
        &self.id
    }

    /// The service name, before the first dot.
    pub fn name(&self) -> &str {
        &self.id[..self.name_len]
    }

    /// The version as error messages show it: the integer in the OpenTofu
    /// dialect (`2`), the text after the dot in the Terraform dialect (`v2`).
    pub fn version(&self) -> Cow<'_, str> {
        match self.major {
            Some(m) => Cow::Owned(m.to_string()),
            None => Cow::Borrowed(&self.id[self.name_len + 1..]),
        }
    }
}

impl fmt::Display for ServiceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

/// A service id split into its parts without copying.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ParsedId<'a> {
    pub(crate) name: &'a str,
    pub(crate) version: Version<'a>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Version<'a> {
    /// OpenTofu: the integer major version.
    Major(u64),
    /// Terraform: the text after the dot, validated as a go-version.
    Text(&'a str),
}

impl fmt::Display for Version<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version::Major(m) => write!(f, "{m}"),
            Version::Text(t) => f.write_str(t),
        }
    }
}

impl<'a> ParsedId<'a> {
    pub(crate) fn parse(id: &'a str, dialect: Dialect) -> Result<ParsedId<'a>, ServiceIdError> {
        let err = |kind| ServiceIdError {
            id: id.to_owned(),
            kind,
        };
        let Some((name, rest)) = id.split_once('.') else {
            return Err(err(ServiceIdErrorKind::Format));
        };
        let version = match dialect {
            Dialect::OpenTofu => {
                let rest = if name == "tfe" {
                    rest.split_once('.').map_or(rest, |(v, _)| v)
                } else {
                    rest
                };
                let digits = rest.strip_prefix('v').unwrap_or("");
                Version::Major(parse_uint(digits).ok_or_else(|| err(ServiceIdErrorKind::NotMajor))?)
            }
            Dialect::Terraform => {
                check_go_version(rest).map_err(err)?;
                Version::Text(rest)
            }
        };
        Ok(ParsedId { name, version })
    }
}

/// Go `strconv.ParseUint(s, 10, 64)`: one or more ASCII digits, at most 2^64-1.
fn parse_uint(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// hashicorp/go-version's `NewVersion` grammar, which reduces to
/// `v? N(.N)* (A X*(.X+)*)? (+X+(.X+)*)?` with `N` = digits,
/// `A` = `[A-Za-z~-]` and `X` = `[0-9A-Za-z~-]`; each `N` must fit an i64.
fn check_go_version(v: &str) -> Result<(), ServiceIdErrorKind> {
    let malformed = || ServiceIdErrorKind::Malformed(v.to_owned());
    let is_x = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'~';
    let b = v.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'v'));
    // go-version matches the whole grammar first and parses segments after.
    let mut overflow = None;
    // Numeric segments.
    loop {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(malformed());
        }
        let segment = &v[start..i];
        if overflow.is_none() && segment.parse::<i64>().is_err() {
            overflow = Some(segment);
        }
        if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
        } else {
            break;
        }
    }
    // Pre-release: A X* (. X+)*
    if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'-' || b[i] == b'~') {
        i += 1;
        i = dotted_run(b, i, is_x, true);
    }
    // Metadata: + X+ (. X+)*
    if b.get(i) == Some(&b'+') {
        let start = i + 1;
        i = dotted_run(b, start, is_x, false);
        if i == start {
            return Err(malformed());
        }
    }
    if i != b.len() {
        return Err(malformed());
    }
    match overflow {
        Some(segment) => Err(ServiceIdErrorKind::OutOfRange(segment.to_owned())),
        None => Ok(()),
    }
}

/// Consumes `X* (. X+)*` (or `X+ (. X+)*` when `allow_empty_head` is false)
/// from `i` and returns where it stopped; a dot not followed by `X` is left.
fn dotted_run(b: &[u8], mut i: usize, is_x: impl Fn(u8) -> bool, allow_empty_head: bool) -> usize {
    let start = i;
    while i < b.len() && is_x(b[i]) {
        i += 1;
    }
    if i == start && !allow_empty_head {
        return start;
    }
    while b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|&c| is_x(c)) {
        i += 2;
        while i < b.len() && is_x(b[i]) {
            i += 1;
        }
    }
    i
}

/// A service id that does not parse (texts: docs/behaviour.md, SVCID-1 to
/// SVCID-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceIdError {
    id: String,
    kind: ServiceIdErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ServiceIdErrorKind {
    Format,
    NotMajor,
    Malformed(String),
    OutOfRange(String),
}

impl ServiceIdError {
    /// The identifier that failed to parse.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl fmt::Display for ServiceIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = &self.id;
        match &self.kind {
            ServiceIdErrorKind::Format => {
                return write!(f, "invalid service ID format (i.e. service.vN): {id}");
            }
            ServiceIdErrorKind::NotMajor => f.write_str(
                "invalid service version: must be \"v\" followed by an integer major version number",
            )?,
            ServiceIdErrorKind::Malformed(v) => {
                write!(f, "invalid service version: Malformed version: {v}")?
            }
            ServiceIdErrorKind::OutOfRange(segment) => write!(
                f,
                "invalid service version: Error parsing version: \
                 strconv.ParseInt: parsing \"{segment}\": value out of range"
            )?,
        }
        write!(f, " (service ID {id:?})")
    }
}

impl std::error::Error for ServiceIdError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn tf(v: &str) -> bool {
        check_go_version(v).is_ok()
    }

    #[test]
    fn go_version_grammar() {
        for ok in [
            "v1",
            "1",
            "v1.1",
            "v2.1",
            "v1-beta",
            "1.2.3",
            "v1beta",
            "1-",
            "1--x",
            "1.0-rc.1",
            "1+meta",
            "1.2-pre+meta.7",
            "v1~x",
            "01",
        ] {
            assert!(tf(ok), "{ok} should be valid");
        }
        for bad in [
            "V1", "vx", "v", "v-1", "", "1.", "1..2", "1.x", "1+", "1+a.", "1-a.", " 1", "vv1",
        ] {
            assert!(!tf(bad), "{bad} should be malformed");
        }
        assert_eq!(
            check_go_version("v99999999999999999999"),
            Err(ServiceIdErrorKind::OutOfRange(
                "99999999999999999999".into()
            ))
        );
        assert_eq!(
            check_go_version("99999999999999999999."),
            Err(ServiceIdErrorKind::Malformed(
                "99999999999999999999.".into()
            ))
        );
    }

    #[test]
    fn opentofu_versions() {
        let major = |id| match ParsedId::parse(id, Dialect::OpenTofu).map(|p| p.version) {
            Ok(Version::Major(m)) => Some(m),
            _ => None,
        };
        assert_eq!(major("modules.v1"), Some(1));
        assert_eq!(major("modules.v01"), Some(1));
        assert_eq!(major("tfe.v2.1"), Some(2));
        assert_eq!(major("tfx.v2.1"), None);
        assert_eq!(major("modules.1"), None);
        assert_eq!(major("modules.v+1"), None);
        assert_eq!(major("modules.v18446744073709551615"), Some(u64::MAX));
        assert_eq!(major("modules.v18446744073709551616"), None);
    }

    #[test]
    fn messages() {
        let e = ServiceId::parse("nodot", Dialect::OpenTofu).expect_err("no dot");
        assert_eq!(
            e.to_string(),
            "invalid service ID format (i.e. service.vN): nodot"
        );
        let e = ServiceId::parse("a.V1", Dialect::Terraform).expect_err("upper-case V");
        assert!(
            e.to_string()
                .starts_with("invalid service version: Malformed version: V1")
        );
    }
}
