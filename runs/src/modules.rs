//! `terraform get`: every module a configuration calls, recursively,
//! installed into `.terraform/modules` with its manifest, as the dialect's
//! CLI installs them (docs/behaviour.md, MOD-1 to MOD-10). The decisions
//! are the plan's (`plan.rs`); the driver here runs its jobs over the
//! client (`fetch.rs`) and places the result (`place.rs`).

mod cache;
mod checksum;
mod direct;
mod failure;
mod fetch;
mod page;
mod peek;
mod place;
mod plan;
#[cfg(test)]
mod plan_tests;
mod ssh_key;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tfdisco_config::{ModuleCall, ModuleLock, ModuleManifest};
use tfdisco_core::Dialect;

use crate::oci_module::oci_module_from_cache;
use crate::off_thread::off_thread;
use crate::plan_jobs::{JobFuture, Jobs, Notes};
use crate::report_text::path_text;
use crate::{ClientSetup, DEFAULT_JOBS, On, RunError, Transport};
use tfdisco_oci::module::OciModuleSource;

pub use failure::{FailureKind, ModuleFailure};
pub use fetch::GIT_TIMEOUT;
use fetch::Remote;
use peek::Peek;
use place::Staging;
use plan::{Job, ModulePlan, Output};

/// What a `get` run is asked to do (`tfdisco get`'s flags, the language
/// packages' options).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GetOptions {
    /// Install every module again, re-resolving registry versions
    /// (`get -update`, `init -upgrade`), instead of keeping what the
    /// manifest lists.
    pub upgrade: bool,
    /// How many requests, downloads and clones at once (default
    /// [`DEFAULT_JOBS`]).
    pub jobs: NonZeroUsize,
    /// Write the module lock (`.tfdisco.modules.lock.json`, MOD-12); every
    /// module it has no entry for is fetched, for its hash. A lock that is
    /// there is read and checked either way.
    pub lock: bool,
    /// The shared module cache's folder (MOD-13), if any.
    pub module_cache: Option<PathBuf>,
}

impl Default for GetOptions {
    fn default() -> Self {
        GetOptions::new()
    }
}

impl GetOptions {
    /// Keep what is installed; [`DEFAULT_JOBS`] at once.
    pub fn new() -> GetOptions {
        GetOptions {
            upgrade: false,
            jobs: DEFAULT_JOBS,
            lock: false,
            module_cache: None,
        }
    }

    /// The module cache the client's set-up names: `TF_MODULE_CACHE_DIR`,
    /// else the CLI configuration's `module_cache_dir` (MOD-13), as
    /// `tfdisco get` finds it.
    pub fn with_setup(mut self, setup: &ClientSetup) -> GetOptions {
        let found = match setup.cli_config() {
            Some(config) => config.module_cache_dir(setup.env()),
            None => tfdisco_config::CliConfig::default().module_cache_dir(setup.env()),
        };
        if let Some(dir) = found {
            self.module_cache = Some(dir);
        }
        self
    }

    /// Share packages through the module cache in `dir` (`--module-cache`).
    pub fn module_cache(mut self, dir: impl Into<PathBuf>) -> GetOptions {
        self.module_cache = Some(dir.into());
        self
    }

    /// Write the module lock (`--lock`).
    pub fn lock(mut self, lock: bool) -> GetOptions {
        self.lock = lock;
        self
    }

    /// At most `jobs` requests, downloads and clones at once.
    pub fn jobs(mut self, jobs: NonZeroUsize) -> GetOptions {
        self.jobs = jobs;
        self
    }

    /// Install everything again (`--upgrade`).
    pub fn upgrade(mut self, upgrade: bool) -> GetOptions {
        self.upgrade = upgrade;
        self
    }
}

/// What a `get` run did: `{"manifest", "changed", "modules": [{"key",
/// "source", "version", "dir", "installed"}]}`.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct GetReport {
    /// The module manifest.
    #[serde(serialize_with = "path_text")]
    pub manifest: PathBuf,
    /// True when its bytes changed (and it was written).
    pub changed: bool,
    /// Every module of the configuration but the root, by key.
    pub modules: Vec<InstalledModule>,
}

/// One module of a [`GetReport`].
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct InstalledModule {
    /// Its key (`vpc`, `vpc.subnets`).
    pub key: String,
    /// Its source, as the manifest records it (serialized with any
    /// `sshkey` value left out: `tfdisco_core::without_ssh_key`).
    #[serde(serialize_with = "source_shown")]
    pub source: String,
    /// The version installed, for a registry module.
    pub version: Option<String>,
    /// Its folder, relative to the configuration's.
    pub dir: String,
    /// `fetched` (this run), `kept` (the manifest's record as it was:
    /// nothing fetched; a local path listed before too) or `local` (a path
    /// newly recorded, nothing installed).
    pub installed: &'static str,
}

/// A source as reports show it: without its `sshkey` value.
fn source_shown<S: serde::Serializer>(source: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&tfdisco_core::without_ssh_key(source))
}

/// [`Runs::get`](crate::Runs::get) over `jobs`: the plan's jobs at most
/// [`GetOptions::jobs`] at once.
pub(crate) async fn get(
    jobs: &impl Jobs,
    root: &Path,
    options: &GetOptions,
) -> Result<GetReport, RunError> {
    let client = jobs.client();
    let dialect = client.cache().config().dialect();
    let unreadable = |diagnostic| {
        RunError::Modules(vec![ModuleFailure {
            key: String::new(),
            kind: FailureKind::Configuration,
            diagnostic,
        }])
    };
    if !root.is_dir() {
        return Err(RunError::Folder {
            path: root.to_owned(),
            error: "no such folder: the configuration's folder must exist".into(),
        });
    }
    let old = ModuleManifest::read(root).map_err(unreadable)?;
    let lock = ModuleLock::read(root).map_err(unreadable)?;
    let staging = Staging::make(root).map_err(RunError::in_folder(root))?;
    let mut plan = ModulePlan::locked(
        dialect,
        root,
        old.clone(),
        staging.path(),
        options.upgrade,
        lock.unwrap_or_default(),
        options.lock,
    );
    let cache = options.module_cache.as_deref();
    let notes = Notes::new();
    let notes = &notes;
    let each = |job| -> JobFuture<'_, ModulePlan> {
        Box::pin(async move { Ok(On(client).run_module_job(job, dialect, cache, notes).await) })
    };
    jobs.run(&mut plan, options.jobs, &each, notes).await;
    let finished = plan.finish().map_err(RunError::Modules)?;
    let before = std::fs::read(root.join(tfdisco_config::MODULE_MANIFEST)).ok();
    let changed = before.as_deref() != Some(&finished.manifest.to_bytes()[..]);
    let modules = finished
        .manifest
        .records()
        .filter(|r| !r.key.is_empty())
        .map(|r| InstalledModule {
            key: r.key.clone(),
            source: r.source.clone(),
            version: r.version.clone(),
            dir: r.dir.clone(),
            installed: if finished.placements.iter().any(|p| p.key == r.key) {
                "fetched"
            } else if old.get(&r.key) == Some(r) {
                "kept"
            } else {
                "local"
            },
        })
        .collect();
    staging
        .place(root, &finished)
        .map_err(RunError::in_folder(&root.join(tfdisco_config::MODULES_DIR)))?;
    if options.lock {
        finished.lock.write(root).map_err(RunError::in_folder(
            &root.join(tfdisco_config::MODULE_LOCK_FILE),
        ))?;
    }
    Ok(GetReport {
        manifest: root.join(tfdisco_config::MODULE_MANIFEST),
        changed,
        modules,
    })
}

/// `init`'s module installation, before an install run's providers: none
/// when the root module calls no module (then `init` writes no manifest,
/// where `get` writes one), else [`get`] (MOD-11).
pub(crate) async fn get_for_init(
    jobs: &impl Jobs,
    root: &Path,
    options: &GetOptions,
) -> Result<Vec<InstalledModule>, RunError> {
    let dialect = jobs.client().cache().config().dialect();
    match ModuleCall::read_all(dialect, "", root) {
        Ok(calls) if calls.is_empty() => Ok(Vec::new()),
        // A root module that does not read is the install run's to report.
        Err(_) => Ok(Vec::new()),
        Ok(_) => Ok(get(jobs, root, options).await?.modules),
    }
}

/// Before a lock or mirror run: when the configuration in `root` calls
/// remote modules that are not installed (so their providers are
/// unknown), installs its modules first, as `terraform get` would
/// (MOD-11). A configuration that does not read is left to the run to
/// report.
pub(crate) async fn get_if_missing(
    jobs: &impl Jobs,
    root: &Path,
    count: NonZeroUsize,
) -> Result<(), RunError> {
    let dialect = jobs.client().cache().config().dialect();
    let missing = tfdisco_config::Configuration::load(dialect, root)
        .is_ok_and(|configuration| configuration.require_complete().is_err());
    if missing {
        get(jobs, root, &GetOptions::new().jobs(count)).await?;
    }
    Ok(())
}

impl<T: Transport> On<'_, T> {
    /// A package through the module cache in `dir` (MOD-13): under the
    /// entry's lock, the entry when the lock identifies the package and the
    /// copy is it, else fetched and the entry replaced.
    async fn fetch_through_cache(
        &self,
        dir: &Path,
        package: &Remote,
        into: &Path,
        expected: Option<String>,
        dialect: Dialect,
        peek: &Peek<'_>,
    ) -> Result<String, String> {
        let entry = std::sync::Arc::new(cache::Entry::of(dir, package.address()));
        let waiting = std::sync::Arc::clone(&entry);
        let held = off_thread(move || waiting.lock())
            .await
            .unwrap_or_else(|| Err("the module cache's lock failed unexpectedly".into()))?;
        if let Some(source) = fetch::oci_source(package, dialect)? {
            let hash = self
                .fetch_oci_through_cache(&entry, &source, into, expected)
                .await;
            drop(held);
            return hash;
        }
        if let Some(expected) = expected {
            let (entry, into, hash) = (
                std::sync::Arc::clone(&entry),
                into.to_owned(),
                expected.clone(),
            );
            if off_thread(move || entry.take(&into, &hash)).await == Some(true) {
                drop(held);
                return Ok(expected);
            }
        }
        let hash = self
            .fetch_module_package(package, into, dialect, Some(peek))
            .await?;
        // The run has its package whether or not the cache takes a copy.
        let into = into.to_owned();
        let _ = off_thread(move || entry.fill(&into)).await;
        drop(held);
        Ok(hash)
    }

    /// An `oci://` package through its cache entry (held): the entry when
    /// its manifest has the digest the module lock records and its blob is
    /// that manifest's layer, else fetched and the manifest and blob kept
    /// as the new entry.
    async fn fetch_oci_through_cache(
        &self,
        entry: &std::sync::Arc<cache::Entry>,
        source: &OciModuleSource,
        into: &Path,
        expected: Option<String>,
    ) -> Result<String, String> {
        if let Some(expected) = expected {
            let (folder, source, into, digest) = (
                entry.folder().to_owned(),
                source.clone(),
                into.to_owned(),
                expected.clone(),
            );
            let taken =
                off_thread(move || oci_module_from_cache(&folder, &digest, &source, &into)).await;
            if matches!(taken, Some(Ok(_))) {
                return Ok(expected);
            }
        }
        let fresh = entry.fresh().ok();
        let keep = fresh.as_ref().map(cache::Entry::filled);
        let module = self
            .oci_module_download_keeping(source, into, keep.as_deref())
            .await
            .map_err(|e| e.to_string())?;
        if let Some(fresh) = fresh {
            // The run has its package whether or not the cache takes it.
            let entry = std::sync::Arc::clone(entry);
            let _ = off_thread(move || entry.replace(&fresh)).await;
        }
        Ok(module.resolved.digest.to_string())
    }

    /// Runs one job of a module plan, a fetch telling `notes` its
    /// package's calls as it streams in.
    async fn run_module_job(
        &self,
        job: Job,
        dialect: Dialect,
        cache: Option<&Path>,
        notes: &Notes<plan::Peeked>,
    ) -> Output {
        match job {
            Job::Calls { key, dir } => Output::Calls(ModuleCall::read_all(dialect, &key, &dir)),
            Job::Versions { source } => Output::Versions(self.module_versions(&source).await),
            Job::Location { source, version } => {
                Output::Location(self.module_download(&source, &version).await)
            }
            Job::Fetch {
                package,
                into,
                expected,
                watch,
            } => {
                let peek = Peek {
                    notes,
                    watch,
                    dialect,
                };
                Output::Fetch(match cache {
                    None => {
                        self.fetch_module_package(&package, &into, dialect, Some(&peek))
                            .await
                    }
                    Some(dir) => {
                        self.fetch_through_cache(dir, &package, &into, expected, dialect, &peek)
                            .await
                    }
                })
            }
        }
    }
}
