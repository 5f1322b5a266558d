//! Which version `init` and `providers lock` choose (docs/behaviour.md,
//! VER-11, VER-12): Terraform's `providercache.Installer`
//! (`EnsureProviderVersions`), OpenTofu's the same.

use std::fmt;

use super::{Version, VersionConstraints};
use crate::{Dialect, ProviderSource};

/// Chooses a provider version from the versions a registry lists, as the
/// installer does (VER-11):
///
/// - with a `locked` version (the lock file's, when not upgrading): it must
///   meet the constraints ([`SelectionError::LockedNotAllowed`] otherwise)
///   and be listed, exactly, build metadata included
///   ([`SelectionError::LockedUnavailable`] otherwise), and it is kept even
///   when newer versions meet the constraints;
/// - without: the newest listed version the constraints allow
///   ([`VersionConstraints::allows`]; [`SelectionError::NoMatch`] if none).
///
/// Among versions of equal precedence (differing only in build metadata)
/// the one listed last wins, as the installer's stable sort and backwards
/// walk decide.
pub fn select(
    available: &[Version],
    constraints: &VersionConstraints,
    locked: Option<&Version>,
) -> Result<Version, SelectionError> {
    if let Some(locked) = locked
        && !constraints.allows(locked)
    {
        return Err(SelectionError::LockedNotAllowed {
            locked: locked.clone(),
            constraints: constraints.to_string(),
        });
    }
    let acceptable = |v: &Version| match locked {
        // go-versions' `Only(locked)`; `Set.Has` never holds `0.0.0`, and
        // a locked `0.0.0` was refused above.
        Some(locked) => v == locked,
        None => constraints.allows(v),
    };
    let mut best: Option<&Version> = None;
    for v in available.iter().filter(|v| acceptable(v)) {
        if best.is_none_or(|b| v.cmp_precedence(b).is_ge()) {
            best = Some(v);
        }
    }
    match (best, locked) {
        (Some(v), _) => Ok(v.clone()),
        (None, Some(locked)) => Err(SelectionError::LockedUnavailable {
            locked: locked.clone(),
        }),
        (None, None) => Err(SelectionError::NoMatch {
            constraints: constraints.to_string(),
        }),
    }
}

/// The newest of `versions`, as go-versions' `List.Newest` picks it: the
/// highest precedence, the last listed among equals. `None` when no version
/// is newer than `0.0.0` (go-versions returns its `Unspecified`, `0.0.0`,
/// then): an empty list, or only `0.0.0` and its pre-releases.
pub fn newest(versions: &[Version]) -> Option<&Version> {
    let zero = Version::default();
    let mut best: Option<&Version> = None;
    for v in versions.iter().rev() {
        if v.cmp_precedence(best.unwrap_or(&zero)).is_gt() {
            best = Some(v);
        }
    }
    best
}

/// Why no version was selected.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectionError {
    /// No listed version meets the constraints.
    NoMatch {
        /// The constraints, normalised.
        constraints: String,
    },
    /// The locked version no longer meets the constraints: `init -upgrade`
    /// is needed.
    LockedNotAllowed {
        /// The lock file's version.
        locked: Version,
        /// The constraints, normalised.
        constraints: String,
    },
    /// The locked version meets the constraints but is no longer listed.
    LockedUnavailable {
        /// The lock file's version.
        locked: Version,
    },
}

impl SelectionError {
    /// The CLI's message for this provider (VER-12), word for word:
    /// `locked provider registry.terraform.io/hashicorp/aws 1.0.0 does not
    /// match configured version constraint ~> 2.0; must use terraform init
    /// -upgrade to allow selection of new versions` (`tofu init -upgrade`
    /// for OpenTofu). The other two messages name no provider; the CLIs
    /// print them after it.
    pub fn message(&self, provider: &ProviderSource, dialect: Dialect) -> String {
        match self {
            SelectionError::LockedNotAllowed {
                locked,
                constraints,
            } => {
                let cli = dialect.command();
                format!(
                    "locked provider {provider} {locked} does not match configured version \
                     constraint {constraints}; must use {cli} init -upgrade to allow selection \
                     of new versions"
                )
            }
            other => other.to_string(),
        }
    }
}

/// The CLIs' messages; the locked-version one without the provider and the
/// command ([`SelectionError::message`] has them).
impl fmt::Display for SelectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectionError::NoMatch { constraints } => write!(
                f,
                "no available releases match the given constraints {constraints}"
            ),
            SelectionError::LockedNotAllowed {
                locked,
                constraints,
            } => write!(
                f,
                "locked version {locked} does not match configured version constraint \
                 {constraints}; must use init -upgrade to allow selection of new versions"
            ),
            SelectionError::LockedUnavailable { locked } => write!(
                f,
                "the previously-selected version {locked} is no longer available"
            ),
        }
    }
}

impl std::error::Error for SelectionError {}
