//! `terraform providers lock` as a library call (docs/behaviour.md,
//! LOCKRUN): a configuration's required providers, its lock file, the
//! provider crate's `ProviderPlan` run over a client, the lock file replaced
//! atomically. With the plugin cache (`-enable-plugin-cache`, LOCKRUN-10)
//! the plan's install jobs are an install run's, on a private, empty
//! providers folder and the cache. [`Runs::lock`](crate::Runs::lock) runs the
//! plan's jobs as concurrent futures,
//! [`BlockingRuns::lock`](crate::BlockingRuns::lock) on as many threads;
//! both at most [`LockOptions::jobs`] at once.

mod options;
mod report;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tfdisco_config::{DialectChoice, FilesystemMirror, LockFile, ProvidersFolder};
use tfdisco_core::{Dialect, Platform};
use tfdisco_provider::SignatureCheck;
use tfdisco_provider::plan::{CacheRules, Origin, ProviderLock, ProviderPlan, Requirement};

use crate::Cancel;
use crate::On;
use crate::inputs::{Inputs, dialect_choice, record, write_if_changed};
use crate::install::Installer;
use crate::plan_jobs::{Archives, JobFuture, Jobs, Notes, run_plan_into};

pub use options::{DEFAULT_JOBS, LockOptions, ProvidersFrom, jobs};
pub use report::{LockReport, ProviderReport, RunError, failure_exit_code};

/// A lock run between reading and writing: the plan, and what it updates.
#[derive(Debug)]
pub(crate) struct LockRun {
    path: PathBuf,
    lock_file: LockFile,
    /// The lock file's bytes as read; `None` when there was none.
    before: Option<Vec<u8>>,
    platforms: Vec<Platform>,
    dialect: DialectChoice,
    /// With the plugin cache: the jobs on it.
    cached: Option<CachedRun>,
}

/// What a lock run with the plugin cache works on (LOCKRUN-10): the
/// cache, and a providers folder of its own that stays empty, as
/// `providers lock` installs into a temporary folder (so that nothing of
/// the working folder's `.terraform` counts, and nothing is written there).
#[derive(Debug)]
struct CachedRun {
    /// Dropped first: the staging folders it made go, its locks are
    /// released.
    installer: Installer,
    _target: tempfile::TempDir,
}

impl CachedRun {
    /// The jobs on the cache at `cache`, from a new empty folder.
    fn new(cache: &Path) -> Result<CachedRun, RunError> {
        let target = private_temp_dir("tfdisco-providers-lock-")?;
        let folder =
            ProvidersFolder::new(target.path(), Some(cache)).map_err(RunError::in_folder(cache))?;
        Ok(CachedRun {
            installer: Installer::new(folder, None, Cancel::new()),
            _target: target,
        })
    }
}

/// Where a lock run takes its providers' packages from: one origin for
/// all (a filesystem mirror read once), or, from an OCI mirror, each
/// provider's own repository.
fn origins(
    requirements: Vec<Requirement>,
    from: &ProvidersFrom,
    dialect: Dialect,
) -> Result<Vec<(Requirement, Origin)>, RunError> {
    let shared = match from {
        ProvidersFrom::Registry => Origin::Registry,
        ProvidersFrom::NetworkMirror(mirror) => Origin::NetworkMirror(mirror.clone()),
        ProvidersFrom::FilesystemMirror(folder) => {
            let scan =
                FilesystemMirror::scan(folder, dialect).map_err(RunError::in_folder(folder))?;
            Origin::Filesystem(scan.packages().clone())
        }
        ProvidersFrom::OciMirror(template) => {
            return requirements
                .into_iter()
                .map(|requirement| {
                    let address = template.address_for(&requirement.source).map_err(|e| {
                        RunError::Usage(format!(
                            "selecting OCI repository address for {}: {e}",
                            requirement.source
                        ))
                    })?;
                    Ok((requirement, Origin::OciMirror(address)))
                })
                .collect();
        }
    };
    Ok(requirements
        .into_iter()
        .map(|requirement| (requirement, shared.clone()))
        .collect())
}

/// The platforms given, or the one this program runs on.
pub(crate) fn platforms_or_current(given: &[Platform]) -> Vec<Platform> {
    if given.is_empty() {
        vec![Platform::current()]
    } else {
        given.to_vec()
    }
}

impl LockRun {
    /// Reads the configuration in `dir`, its lock file and the filesystem
    /// mirror if one is given, and makes the plan (LOCKRUN-1).
    pub(crate) fn prepare(
        dir: &Path,
        dialect: Dialect,
        options: &LockOptions,
        now: SystemTime,
    ) -> Result<(LockRun, ProviderPlan), RunError> {
        let Inputs {
            path,
            lock_file,
            requirements,
        } = Inputs::read(dir, dialect, &options.providers)?;
        let origins = origins(requirements, &options.from, dialect)?;
        let platforms = platforms_or_current(&options.platforms);
        let check = SignatureCheck::new(dialect, now);
        // A cache whose folder does not exist is none, as for an install
        // (INSTALL-11).
        let cache = options.plugin_cache().and_then(|cache| {
            let folder = cache.dir().filter(|folder| folder.is_dir())?.to_owned();
            let rules = CacheRules {
                may_break_lock_file: cache.may_break_dependency_lock_file(),
            };
            Some((folder, rules))
        });
        let (plan, cached) = match cache {
            Some((folder, rules)) => {
                let plan =
                    ProviderPlan::with_plugin_cache(origins, platforms.clone(), check, rules);
                (plan, Some(CachedRun::new(&folder)?))
            }
            None => (
                ProviderPlan::with_origins(origins, platforms.clone(), check),
                None,
            ),
        };
        // A lock file that is not there yet is written even when it gets
        // no provider: its two header lines, as `providers lock` writes them.
        let before = match std::fs::symlink_metadata(&path) {
            Ok(_) => Some(lock_file.to_bytes()),
            Err(_) => None,
        };
        Ok((
            LockRun {
                path,
                lock_file,
                before,
                platforms,
                dialect: dialect_choice(options.dialect_choice.as_ref(), dialect),
                cached,
            },
            plan,
        ))
    }

    /// The install jobs of a run with the plugin cache.
    fn installer(&self) -> Option<&Installer> {
        self.cached.as_ref().map(|cached| &cached.installer)
    }

    /// Records what the plan gave and replaces the lock file when its
    /// bytes change (LOCKRUN-5); a failed plan changes nothing.
    pub(crate) fn apply(mut self, plan: ProviderPlan) -> Result<LockReport, RunError> {
        let locks = plan.finish().map_err(RunError::Failed)?;
        let mut providers = Vec::with_capacity(locks.len());
        for lock in locks {
            providers.push(self.record(lock)?);
        }
        let changed = self.before.as_deref() != Some(&self.lock_file.to_bytes()[..]);
        write_if_changed(&self.lock_file, &self.path, changed)?;
        Ok(LockReport {
            path: self.path,
            changed,
            platforms: self.platforms,
            providers,
            dialect: self.dialect,
        })
    }

    fn record(&mut self, lock: ProviderLock) -> Result<ProviderReport, RunError> {
        let hashes_added = record(&mut self.lock_file, &lock)?;
        Ok(ProviderReport {
            source: lock.source,
            version: lock.version,
            constraints: lock.constraints,
            hashes_added,
            trust: lock.trust,
            key_id: lock.key_id,
        })
    }
}

/// [`Runs::lock`](crate::Runs::lock) and
/// [`BlockingRuns::lock`](crate::BlockingRuns::lock).
pub(crate) async fn lock(
    jobs: &impl Jobs,
    dir: &Path,
    options: &LockOptions,
    now: SystemTime,
) -> Result<LockReport, RunError> {
    crate::modules::get_if_missing(jobs, dir, options.jobs).await?;
    let client = jobs.client();
    let dialect = client.cache().config().dialect();
    let (run, mut plan) = LockRun::prepare(dir, dialect, options, now)?;
    match run.installer() {
        Some(installer) => {
            let each = |job| -> JobFuture<'_> { Box::pin(On(client).install_job(installer, job)) };
            jobs.run(&mut plan, options.jobs, &each, &Notes::new())
                .await
        }
        None => run_plan_into(jobs, &mut plan, options.jobs, Archives::Hashed).await,
    }
    run.apply(plan)
}

/// A new private folder in the system's temporary folder, removed when
/// dropped: where a run keeps what must not be seen before it is whole.
pub(crate) fn private_temp_dir(prefix: &str) -> Result<tempfile::TempDir, RunError> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(RunError::in_folder(&std::env::temp_dir()))
}
