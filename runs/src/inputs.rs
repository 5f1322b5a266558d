//! What a lock, install or mirror run reads before it asks anything
//! (docs/behaviour.md, LOCKRUN-1): the configuration's required providers
//! with their merged constraints, and the lock file; and how a lock or
//! install run records in that lock file what its plan locked.

use std::path::{Path, PathBuf};

use tfdisco_config::{Configuration, DialectChoice, LOCK_FILE_NAME, LockFile, LockedProvider};
use tfdisco_core::{Dialect, ProviderSource};
use tfdisco_provider::plan::{ProviderLock, Required, Requirement, requirements};

use crate::RunError;

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
    ) -> Result<Inputs, RunError> {
        let configuration = Configuration::load(dialect, dir).map_err(RunError::Configuration)?;
        configuration
            .require_complete()
            .map_err(RunError::Configuration)?;
        let path = dir.join(LOCK_FILE_NAME);
        let lock_file = LockFile::read(&path, dialect).map_err(RunError::LockFile)?;
        let required = configuration.providers().map(|provider| Required {
            source: provider.source(),
            lockable: provider.is_lockable(),
            constraints: provider
                .constraints()
                .iter()
                .map(|given| {
                    let line = given.line().map_or(String::new(), |l| l.to_string());
                    (
                        given.constraints(),
                        format!("{}:{line}", given.file().display()),
                    )
                })
                .collect(),
        });
        let recorded = |source: &ProviderSource| {
            let entry = lock_file.provider(source)?;
            Some((entry.version().to_owned(), entry.hashes().to_vec()))
        };
        let requirements =
            requirements(required, named, recorded, dialect).map_err(RunError::Usage)?;
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
) -> Result<Vec<String>, RunError> {
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
    .map_err(RunError::LockFile)?;
    let recorded = lock_file.merge(locked);
    Ok(recorded
        .hashes()
        .iter()
        .filter(|h| !old.contains(h))
        .cloned()
        .collect())
}

/// Writes `lock_file` to `path` (atomically) when its bytes `changed`; an
/// unchanged file is left as it is.
pub(crate) fn write_if_changed(
    lock_file: &LockFile,
    path: &Path,
    changed: bool,
) -> Result<(), RunError> {
    if changed {
        lock_file
            .write_atomically(path)
            .map_err(RunError::LockFile)?;
    }
    Ok(())
}

/// What chose a run's dialect, for its report: what its options say, else
/// that the client was given it (CFG-14).
pub(crate) fn dialect_choice(given: Option<&DialectChoice>, dialect: Dialect) -> DialectChoice {
    given
        .cloned()
        .unwrap_or_else(|| DialectChoice::given(dialect))
}
