//! What a lock, install or mirror run reads before it asks anything
//! (docs/behaviour.md, LOCKRUN-1): the configuration's required providers
//! with their merged constraints, and the lock file; and how a lock or
//! install run records in that lock file what its plan locked.

use std::path::{Path, PathBuf};

use tfdisco_config::{Configuration, LOCK_FILE_NAME, LockFile, LockedProvider};
use tfdisco_core::{Dialect, ProviderSource, Version, VersionConstraints};
use tfdisco_provider::lock_plan::{ProviderLock, Recorded, Requirement};

use crate::LockError;

/// What a run reads before it asks anything: the lock file, and what each
/// provider the configuration requires needs.
pub(crate) struct Inputs {
    pub(crate) path: PathBuf,
    pub(crate) lock_file: LockFile,
    pub(crate) requirements: Vec<Requirement>,
}

impl Inputs {
    /// Reads the configuration in `dir` and its lock file (LOCKRUN-1):
    /// every provider it requires (or those `named`, which it must
    /// require), with its merged constraints and the version the lock file
    /// holds for it.
    pub(crate) fn read(
        dir: &Path,
        dialect: Dialect,
        named: &[ProviderSource],
    ) -> Result<Inputs, LockError> {
        let configuration = Configuration::load(dialect, dir).map_err(LockError::Configuration)?;
        configuration
            .require_complete()
            .map_err(LockError::Configuration)?;
        let path = dir.join(LOCK_FILE_NAME);
        let lock_file = LockFile::read(&path, dialect).map_err(LockError::LockFile)?;
        for named in named {
            if !configuration
                .provider(named)
                .is_some_and(|p| p.is_lockable())
            {
                return Err(LockError::Usage(format!(
                    "Invalid provider argument: The provider {named} is not required by the \
                     current configuration."
                )));
            }
        }
        let mut requirements = Vec::new();
        for provider in configuration.providers() {
            let wanted = named.is_empty() || named.contains(provider.source());
            if !provider.is_lockable() || !wanted {
                continue;
            }
            let mut constraints = VersionConstraints::new();
            for given in provider.constraints() {
                let parsed =
                    VersionConstraints::parse(given.constraints(), dialect).map_err(|e| {
                        LockError::Usage(format!(
                            "{}:{}: invalid version constraint for {}: {e}",
                            given.file().display(),
                            given.line().map_or(String::new(), |l| l.to_string()),
                            provider.source()
                        ))
                    })?;
                constraints.merge(&parsed);
            }
            let recorded = lock_file.provider(provider.source()).and_then(|entry| {
                Some(Recorded {
                    version: Version::parse(entry.version(), dialect).ok()?,
                    hashes: entry.hashes().to_vec(),
                })
            });
            requirements.push(Requirement {
                source: provider.source().clone(),
                constraints,
                locked: recorded.as_ref().map(|r| r.version.clone()),
                recorded,
            });
        }
        Ok(Inputs {
            path,
            lock_file,
            requirements,
        })
    }
}

/// Records a provider the plan locked in `lock_file` (merged with what the
/// file held for it) and gives the hashes the file did not hold before for
/// that version, in the order the file keeps them: every hash when the
/// version is new to it.
pub(crate) fn record(
    lock_file: &mut LockFile,
    lock: &ProviderLock,
) -> Result<Vec<String>, LockError> {
    let version = lock.version.to_string();
    let old: Vec<String> = match lock_file.provider(&lock.source) {
        Some(old) if old.version() == version => old.hashes().to_vec(),
        _ => Vec::new(),
    };
    let constraints = Some(lock.constraints.as_str()).filter(|c| !c.is_empty());
    let locked = LockedProvider::new(
        lock.source.clone(),
        &version,
        constraints,
        lock.hashes.clone(),
    )
    .map_err(LockError::LockFile)?;
    let recorded = lock_file.merge(locked);
    Ok(recorded
        .hashes()
        .iter()
        .filter(|h| !old.contains(h))
        .cloned()
        .collect())
}
