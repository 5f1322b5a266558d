//! What a lock, install or mirror run asks of its plan, from what the
//! configuration and its lock file say (docs/behaviour.md, LOCKRUN-1):
//! every lockable provider required (or those named, which must be
//! required), its constraints merged as Terraform merges them, and the
//! version the lock file holds. The run reads the files; the choices and
//! the messages are made here.

use tfdisco_core::{Dialect, ProviderSource, Version, VersionConstraints};

use super::{Recorded, Requirement};

/// A provider as a configuration requires it.
#[derive(Clone, Debug)]
pub struct Required<'a> {
    /// Its source address.
    pub source: &'a ProviderSource,
    /// Whether a lock file records it (a built-in provider it does not).
    pub lockable: bool,
    /// Each `version` constraint a module gives it, with where it stands
    /// (`FILE:LINE`, for the message when it does not parse).
    pub constraints: Vec<(&'a str, String)>,
}

/// The plan's requirements: each lockable provider of `required` (only
/// those of `named` when it is not empty), with its constraints merged and
/// what `recorded` says the lock file holds for it (a version that does
/// not parse in `dialect` counts as none). The error is the message the
/// run reports: a constraint that does not parse, or a named provider the
/// configuration does not require (Terraform's `Invalid provider
/// argument`).
pub fn requirements<'a>(
    required: impl IntoIterator<Item = Required<'a>>,
    named: &[ProviderSource],
    recorded: impl Fn(&ProviderSource) -> Option<(String, Vec<String>)>,
    dialect: Dialect,
) -> Result<Vec<Requirement>, String> {
    let required: Vec<Required<'a>> = required.into_iter().collect();
    for named in named {
        if !required.iter().any(|r| r.source == named && r.lockable) {
            return Err(format!(
                "Invalid provider argument: The provider {named} is not required by the current \
                 configuration."
            ));
        }
    }
    let mut requirements = Vec::new();
    for provider in required {
        if !provider.lockable || !(named.is_empty() || named.contains(provider.source)) {
            continue;
        }
        let mut constraints = VersionConstraints::new();
        for (given, at) in &provider.constraints {
            let parsed = VersionConstraints::parse(given, dialect).map_err(|e| {
                format!(
                    "{at}: invalid version constraint for {}: {e}",
                    provider.source
                )
            })?;
            constraints.merge(&parsed);
        }
        let recorded = recorded(provider.source).and_then(|(version, hashes)| {
            Some(Recorded {
                version: Version::parse(&version, dialect).ok()?,
                hashes,
            })
        });
        requirements.push(Requirement {
            source: provider.source.clone(),
            constraints,
            locked: recorded.as_ref().map(|r| r.version.clone()),
            recorded,
        });
    }
    Ok(requirements)
}
