//! Provider versions and version constraints, as `terraform init`,
//! `terraform providers lock` and their OpenTofu counterparts read, match,
//! select and write them (docs/behaviour.md, VER-1 to VER-12).
//!
//! Both CLIs use `github.com/apparentlymart/go-versions` for providers:
//! Terraform v1.0.2, OpenTofu v1.0.3. The two accept and refuse the same
//! inputs; v1.0.3 names a `v` prefix in more of its messages, so the
//! parsers take a [`Dialect`].
//!
//! - A [`Version`] is read as `versions.ParseVersion` reads it, ordered and
//!   written as go-versions does.
//! - [`VersionConstraints`] are read as `getproviders.ParseVersionConstraints`
//!   (`constraints.ParseRubyStyleMulti`) reads them;
//!   [`VersionConstraints::allows`] is `MeetingConstraints`, and `Display`
//!   is `VersionConstraintsString` (the lock file's `constraints`).
//! - [`select`] is the installer's choice among a registry's versions, with
//!   the lock file's version kept while it still meets the constraints.
//!
//! ```
//! use tfdisco_core::{Dialect, Version, VersionConstraints, select};
//!
//! let mut constraints = VersionConstraints::parse(">= 1.0", Dialect::Terraform)?;
//! constraints.merge(&VersionConstraints::parse("< 2.0.0, != 1.2.0", Dialect::Terraform)?);
//! assert_eq!(constraints.to_string(), ">= 1.0.0, != 1.2.0, < 2.0.0");
//!
//! let available: Vec<Version> = ["1.1.0", "1.2.0", "2.0.0", "1.3.0-beta1"]
//!     .iter()
//!     .map(|v| v.parse())
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(select(&available, &constraints, None)?.to_string(), "1.1.0");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod constraint;
mod extra;
mod scan;
mod select;

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::{Dialect, go_quote};

pub use constraint::{Constraint, Operator, VersionConstraints};
pub use select::{SelectionError, newest, select};

/// One version: `MAJOR.MINOR.PATCH`, an optional pre-release and optional
/// build metadata, as go-versions reads and orders it.
///
/// Equality (and hashing) compares every part, build metadata included, as
/// Go's `==` on `versions.Version` does; the order is semantic versioning's
/// precedence ([`Version::cmp_precedence`]) with build metadata deciding
/// last, so that it is total.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    build: String,
}

impl Version {
    /// `MAJOR.MINOR.PATCH` with no pre-release or build metadata.
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: String::new(),
            build: String::new(),
        }
    }

    /// Parses a version as `versions.ParseVersion` does (VER-1, VER-2):
    /// one to three numbers (missing ones are zero; leading zeros are
    /// allowed), then optionally `-PRE` and `+BUILD` of ASCII letters,
    /// digits, dots and dashes. Nothing may come before or after it, not
    /// even spaces. The errors have go-versions' wording; `dialect` picks
    /// the release of go-versions whose wording is used (Terraform v1.0.2,
    /// OpenTofu v1.0.3).
    pub fn parse(input: &str, dialect: Dialect) -> Result<Version, VersionError> {
        if input.trim().is_empty() {
            return Err(VersionError::new("empty specification"));
        }
        let (raw, remain) = scan::scan(input, dialect);
        match raw.op.trim() {
            ">" | ">=" | "<" | "<=" | "!" | "!=" | "~>" | "^" | "~" => {
                return Err(VersionError::new(format!(
                    "can't use constraint operator {}; an exact version is required",
                    go_quote(raw.op)
                )));
            }
            "" => {
                if !raw.sep.is_empty() {
                    if raw.sep.contains('v') {
                        return Err(VersionError::new(r#"a "v" prefix should not be used"#));
                    }
                    return Err(VersionError::new(
                        "extraneous spaces at start of specification",
                    ));
                }
            }
            _ => {
                return Err(VersionError::new(format!(
                    "invalid sequence {} at start of specification",
                    go_quote(raw.op)
                )));
            }
        }
        if !remain.is_empty() {
            let rest = remain.trim();
            let message = if rest.is_empty() {
                "extraneous spaces at end of specification".to_owned()
            } else if input.starts_with('v') {
                r#"a "v" prefix should not be used"#.to_owned()
            } else if rest.starts_with(',') || rest.starts_with('|') {
                "can't specify multiple versions; a single exact version is required".to_owned()
            } else if rest.starts_with('-') {
                "can't specify version range; a single exact version is required".to_owned()
            } else if input.trim().starts_with(rest) {
                "invalid specification; required format is three positive integers \
                 separated by periods"
                    .to_owned()
            } else {
                format!("invalid characters {}", go_quote(rest))
            };
            return Err(VersionError::new(message));
        }
        if raw.num_count > 3 {
            return Err(VersionError::too_many_numbers());
        }
        let mut numbers = [0u64; 3];
        for (i, num) in raw.nums.iter().enumerate() {
            if i >= raw.num_count {
                continue;
            }
            if is_wildcard(num) {
                return Err(VersionError::new(format!(
                    "can't use wildcard for {} number; an exact version is required",
                    NUMBER_NAMES[i]
                )));
            }
        }
        for (i, num) in raw.nums.iter().enumerate().take(raw.num_count) {
            numbers[i] = parse_number(num)?;
        }
        Ok(Version {
            major: numbers[0],
            minor: numbers[1],
            patch: numbers[2],
            pre: raw.pre.to_owned(),
            build: raw.meta.to_owned(),
        })
    }

    /// The major number.
    pub fn major(&self) -> u64 {
        self.major
    }

    /// The minor number.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// The patch number.
    pub fn patch(&self) -> u64 {
        self.patch
    }

    /// The pre-release, without its `-` (empty for a release).
    pub fn pre(&self) -> &str {
        &self.pre
    }

    /// The build metadata, without its `+` (empty when there is none).
    pub fn build(&self) -> &str {
        &self.build
    }

    /// Whether this is a pre-release (has a `-PRE` part).
    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }

    /// Whether this is `0.0.0` with nothing after it: go-versions'
    /// `Unspecified`, which no constraint set ever contains (VER-8).
    pub fn is_unspecified(&self) -> bool {
        *self == Version::default()
    }

    /// Precedence, as go-versions' `LessThan` and `GreaterThan` decide it
    /// (VER-3): the numbers, then a release above its pre-releases, then
    /// the pre-releases' order. Build metadata is not looked at.
    pub fn cmp_precedence(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => extra::cmp_extra(&self.pre, &other.pre),
            })
    }

    /// The same version without its build metadata.
    pub fn without_build(&self) -> Version {
        Version {
            build: String::new(),
            ..self.clone()
        }
    }

    pub(crate) fn from_parts(numbers: [u64; 3], pre: &str, build: &str) -> Version {
        Version {
            major: numbers[0],
            minor: numbers[1],
            patch: numbers[2],
            pre: pre.to_owned(),
            build: build.to_owned(),
        }
    }
}

/// The names go-versions gives the three numbers in its messages.
const NUMBER_NAMES: [&str; 3] = ["major", "minor", "patch"];

fn is_wildcard(num: &str) -> bool {
    matches!(num, "*" | "x" | "X")
}

/// A number of digits as `strconv.ParseUint(s, 10, 64)` reads it; past
/// `u64::MAX` go-versions panics, tfdisco returns an error (D14).
fn parse_number(num: &str) -> Result<u64, VersionError> {
    num.parse().map_err(|_| {
        VersionError::new(format!(
            "version number {} is too large; the largest is {}",
            go_quote(num),
            u64::MAX
        ))
    })
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        self.cmp_precedence(other)
            .then_with(|| extra::cmp_extra(&self.build, &other.build))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, as go-versions' `String` writes it
/// (numbers without leading zeros).
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build)?;
        }
        Ok(())
    }
}

/// [`Version::parse`] with the default dialect.
impl FromStr for Version {
    type Err = VersionError;

    fn from_str(s: &str) -> Result<Version, VersionError> {
        Version::parse(s, Dialect::default())
    }
}

crate::message_error! {
    /// Why a version or a version constraint was refused: go-versions' message,
    /// word for word (the constraint parser's wrapping included).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct VersionError {
        /// The message.
        message: String,
    }
    fn new;
}

impl VersionError {
    fn too_many_numbers() -> VersionError {
        VersionError::new(
            "too many numbered portions; only three are allowed (major, minor, patch)",
        )
    }
}
