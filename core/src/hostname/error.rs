use std::fmt;

use crate::go_quote::go_quote;

/// A string that is not a valid service hostname: the input, and why
/// ([`HostnameErrorKind`]).
///
/// Its message names the input, `invalid hostname "foo_bar": idna:
/// disallowed rune U+005F`, and so does the [`crate::Error`] it becomes
/// with `?`.
///
/// ```
/// use tfdisco_core::{Hostname, HostnameErrorKind};
///
/// let e = Hostname::parse("foo_bar").unwrap_err();
/// assert_eq!(e.input(), "foo_bar");
/// assert_eq!(e.kind(), &HostnameErrorKind::DisallowedRune('_'));
/// assert_eq!(e.to_string(), r#"invalid hostname "foo_bar": idna: disallowed rune U+005F"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostnameError {
    input: Box<str>,
    kind: HostnameErrorKind,
}

impl HostnameError {
    pub(crate) fn new(input: &str, kind: HostnameErrorKind) -> HostnameError {
        HostnameError {
            input: input.into(),
            kind,
        }
    }

    /// What was given.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// Why it is not a hostname.
    pub fn kind(&self) -> &HostnameErrorKind {
        &self.kind
    }
}

impl fmt::Display for HostnameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid hostname {:?}: {}", self.input, self.kind)
    }
}

impl std::error::Error for HostnameError {}

/// Why a string is not a valid service hostname.
///
/// The messages are the exact texts of the Go implementations where Go has
/// the same rule (they do not repeat the input); the rules we add (D1–D3)
/// have their own texts (docs/behaviour.md, HOST-1 to HOST-6).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostnameErrorKind {
    /// The host part is empty (`""`, `":8080"`).
    Empty,
    /// A label is empty: a leading dot, two consecutive dots, or a trailing `..` (D3).
    EmptyLabel,
    /// A label is given in punycode (`xn--…`, any case, D2); users must give Unicode.
    PunycodeLabel {
        /// The label as given.
        label: String,
    },
    /// The port portion is not 1 to 5 ASCII digits (D1: no signs, no spaces).
    PortNotDigits,
    /// The port number is greater than 65535.
    PortTooLarge,
    /// The port has more than 5 digits even though its value is in range (D1).
    PortTooLong,
    /// The port number is 0 (D1).
    PortZero,
    /// The input looks like a URL (`https://example.com`), not a hostname.
    FullUrl,
    /// The name contains a character that hostnames may not contain.
    DisallowedRune(char),
    /// A label breaks the IDNA rules (hyphen placement, joiners, bidi, invalid punycode).
    InvalidLabel {
        /// The offending label.
        label: String,
    },
    /// A stored value is not in comparison form (see [`crate::Hostname::from_comparison`]).
    NotComparisonForm,
}

impl fmt::Display for HostnameErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostnameErrorKind::Empty => f.write_str("empty string is not a valid hostname"),
            HostnameErrorKind::EmptyLabel => {
                f.write_str("hostname contains empty label (two consecutive periods)")
            }
            HostnameErrorKind::PunycodeLabel { label } => write!(
                f,
                "hostname label \"{label}\" specified in punycode format; \
                 service hostnames must be given in unicode"
            ),
            HostnameErrorKind::PortNotDigits => {
                f.write_str("port portion contains non-digit characters")
            }
            HostnameErrorKind::PortTooLarge => f.write_str("port number is greater than 65535"),
            HostnameErrorKind::PortTooLong => f.write_str("port number has more than 5 digits"),
            HostnameErrorKind::PortZero => f.write_str("port number must be between 1 and 65535"),
            HostnameErrorKind::FullUrl => {
                f.write_str("need just a hostname and optional port number, not a full URL")
            }
            HostnameErrorKind::DisallowedRune(c) => {
                write!(f, "idna: disallowed rune U+{:04X}", u32::from(*c))
            }
            HostnameErrorKind::InvalidLabel { label } => {
                write!(f, "idna: invalid label {}", go_quote(label))
            }
            HostnameErrorKind::NotComparisonForm => f.write_str(
                "not a hostname in comparison form (lower-case ASCII or punycode, normalized port)",
            ),
        }
    }
}
