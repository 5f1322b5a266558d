//! `terraform providers lock` as a library call (docs/behaviour.md,
//! LOCKRUN): a configuration's required providers, its lock file, the
//! provider crate's `LockPlan` run over a client, the lock file replaced
//! atomically. With the plugin cache (`-enable-plugin-cache`, LOCKRUN-10)
//! the plan's install jobs are an install run's, on a private, empty
//! providers folder and the cache. [`AsyncClient::lock`](crate::AsyncClient::lock) runs the
//! plan's jobs as concurrent futures,
//! [`BlockingClient::lock`](crate::BlockingClient::lock) on as many threads;
//! both at most [`LockOptions::jobs`] at once.

mod options;
mod report;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Condvar, Mutex, PoisonError};
use std::task::Poll;
use std::time::SystemTime;

use tfdisco_config::{
    Configuration, DialectChoice, FilesystemMirror, LOCK_FILE_NAME, LockFile, LockedProvider,
    MirrorError, MirrorFolder, ProvidersFolder, hash_local_package,
};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Contents, Dialect, Error, Hostname, Platform, ProviderSource, Sink, Version, VersionConstraints,
};
use tfdisco_oci::{Descriptor, RepositoryAddress};
use tfdisco_provider::lock_plan::{
    ArchiveSink, CacheRules, Job, JobId, JobOutput, LockPlan, Origin, ProviderLock, Recorded,
    Requirement,
};
use tfdisco_provider::{LocalPackage, SignatureCheck};

use crate::install::Installer;
use crate::{AsyncClient, BlockingClient, Cancel, Transport};

pub use options::{DEFAULT_JOBS, LockOptions, ProvidersFrom, jobs};
pub(crate) use report::Words;
pub use report::{LockError, LockReport, ProviderReport, failure_exit_code};

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
    fn new(cache: &Path) -> Result<CachedRun, LockError> {
        let target = tempfile::Builder::new()
            .prefix("tfdisco-providers-lock-")
            .tempdir()
            .map_err(|error| LockError::Folder {
                path: std::env::temp_dir(),
                error: error.into(),
            })?;
        let folder = ProvidersFolder::new(target.path(), Some(cache)).map_err(|error| {
            LockError::Folder {
                path: cache.to_owned(),
                error: error.into(),
            }
        })?;
        Ok(CachedRun {
            installer: Installer::new(folder, None, Cancel::new()),
            _target: target,
        })
    }
}

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

/// Where a lock run takes its providers' packages from: one origin for
/// all (a filesystem mirror read once), or, from an OCI mirror, each
/// provider's own repository.
fn origins(
    requirements: Vec<Requirement>,
    from: &ProvidersFrom,
    dialect: Dialect,
) -> Result<Vec<(Requirement, Origin)>, LockError> {
    let shared = match from {
        ProvidersFrom::Registry => Origin::Registry,
        ProvidersFrom::NetworkMirror(mirror) => Origin::NetworkMirror(mirror.clone()),
        ProvidersFrom::FilesystemMirror(folder) => {
            let scan =
                FilesystemMirror::scan(folder, dialect).map_err(|error| LockError::Folder {
                    path: folder.clone(),
                    error: error.into(),
                })?;
            Origin::Filesystem(scan.packages().clone())
        }
        ProvidersFrom::OciMirror(template) => {
            return requirements
                .into_iter()
                .map(|requirement| {
                    let address = template.address_for(&requirement.source).map_err(|e| {
                        LockError::Usage(format!(
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
    ) -> Result<(LockRun, LockPlan), LockError> {
        let Inputs {
            path,
            lock_file,
            requirements,
        } = Inputs::read(dir, dialect, &options.providers)?;
        let origins = origins(requirements, &options.from, dialect)?;
        let platforms = platforms_or_current(&options.platforms);
        let check = SignatureCheck::new(dialect, SystemTime::now());
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
                let plan = LockPlan::with_plugin_cache(origins, platforms.clone(), check, rules);
                (plan, Some(CachedRun::new(&folder)?))
            }
            None => (
                LockPlan::with_origins(origins, platforms.clone(), check),
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
                dialect: options
                    .dialect_choice
                    .clone()
                    .unwrap_or_else(|| DialectChoice::given(dialect)),
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
    pub(crate) fn apply(mut self, plan: LockPlan) -> Result<LockReport, LockError> {
        let locks = plan.finish().map_err(LockError::Failed)?;
        let mut providers = Vec::with_capacity(locks.len());
        for lock in locks {
            providers.push(self.record(lock)?);
        }
        let changed = self.before.as_deref() != Some(&self.lock_file.to_bytes()[..]);
        if changed {
            self.lock_file
                .write_atomically(&self.path)
                .map_err(LockError::LockFile)?;
        }
        Ok(LockReport {
            path: self.path,
            changed,
            platforms: self.platforms,
            providers,
            dialect: self.dialect,
        })
    }

    fn record(&mut self, lock: ProviderLock) -> Result<ProviderReport, LockError> {
        let version = lock.version.to_string();
        let old: Vec<String> = match self.lock_file.provider(&lock.source) {
            Some(old) if old.version() == version => old.hashes().to_vec(),
            _ => Vec::new(),
        };
        let constraints = Some(lock.constraints.as_str()).filter(|c| !c.is_empty());
        let locked = LockedProvider::new(lock.source.clone(), &version, constraints, lock.hashes)
            .map_err(LockError::LockFile)?;
        let recorded = self.lock_file.merge(locked);
        let hashes_added = recorded
            .hashes()
            .iter()
            .filter(|h| !old.contains(h))
            .cloned()
            .collect();
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

impl<T: Transport> AsyncClient<T> {
    /// `terraform providers lock` in `dir`: reads the configuration and its
    /// lock file, selects and verifies each provider's version for every
    /// platform with this client's rules, then replaces the lock file
    /// atomically when it changes. Jobs run as concurrent futures of this
    /// call, at most [`LockOptions::jobs`] at once. On any failure the
    /// lock file is left as it was.
    pub async fn lock(
        &self,
        dir: impl AsRef<Path>,
        options: &LockOptions,
    ) -> Result<LockReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = LockRun::prepare(dir.as_ref(), dialect, options)?;
        match run.installer() {
            Some(installer) => {
                self.run_plan_with(&mut plan, options.jobs, |job| {
                    self.install_job(installer, job)
                })
                .await
            }
            None => self.run_plan(&mut plan, options.jobs).await,
        }
        run.apply(plan)
    }

    /// Runs a plan's jobs, at most `jobs` at once, until it is finished.
    pub async fn run_plan(&self, plan: &mut LockPlan, jobs: NonZeroUsize) {
        self.run_plan_into(plan, jobs, Archives::Hashed).await;
    }

    /// [`AsyncClient::run_plan`], the archives going where `archives` says.
    pub(crate) async fn run_plan_into(
        &self,
        plan: &mut LockPlan,
        jobs: NonZeroUsize,
        archives: Archives<'_>,
    ) {
        self.run_plan_with(plan, jobs, |job| self.run_job_into(job, archives))
            .await;
    }

    /// Runs a plan's jobs with `run`, at most `jobs` at once, until it is
    /// finished.
    pub(crate) async fn run_plan_with<'a, F, R>(
        &'a self,
        plan: &mut LockPlan,
        jobs: NonZeroUsize,
        run: R,
    ) where
        R: Fn(Job) -> F,
        F: Future<Output = Result<JobOutput, Error>> + Send + 'a,
    {
        type Running<'a> = Pin<Box<dyn Future<Output = Result<JobOutput, Error>> + Send + 'a>>;
        let mut running: Vec<(JobId, Running<'_>)> = Vec::new();
        loop {
            while running.len() < jobs.get() {
                let Some((id, job)) = plan.next_job() else {
                    break;
                };
                running.push((id, Box::pin(run(job))));
            }
            if running.is_empty() {
                break;
            }
            let (id, result) = std::future::poll_fn(|cx| {
                let done = running.iter_mut().enumerate().find_map(|(i, (_, job))| {
                    match job.as_mut().poll(cx) {
                        Poll::Ready(result) => Some((i, result)),
                        Poll::Pending => None,
                    }
                });
                match done {
                    Some((i, result)) => Poll::Ready((running.swap_remove(i).0, result)),
                    None => Poll::Pending,
                }
            })
            .await;
            plan.complete(id, result);
        }
    }

    /// Makes one request of a `tfdisco_provider::lock_plan::LockPlan`: the registry calls with this
    /// client's discovery and credentials, the downloads without a token,
    /// a filesystem mirror's packages hashed from disk.
    pub async fn run_job(&self, job: Job) -> Result<JobOutput, Error> {
        self.run_job_into(job, Archives::Hashed).await
    }

    /// [`AsyncClient::run_job`], an archive going where `archives` says.
    pub(crate) async fn run_job_into(
        &self,
        job: Job,
        archives: Archives<'_>,
    ) -> Result<JobOutput, Error> {
        match job {
            Job::Versions { source } => self
                .provider_versions(&source)
                .await
                .map(JobOutput::Versions),
            Job::Package {
                source,
                version,
                platform,
            } => self
                .provider_package(&source, &version.to_string(), &platform)
                .await
                .map(|package| JobOutput::Package(Box::new(package))),
            Job::Document { url, about } => {
                let limit = self.cache().config().registry_body_limit();
                let contents = Contents::limited(usize::try_from(limit).unwrap_or(usize::MAX));
                self.download(url, contents, &about)
                    .await
                    .map(JobOutput::Document)
            }
            Job::Archive {
                url,
                about,
                source,
                version,
                platform,
                ..
            } => {
                let at = ArchiveAt::Url { url, about };
                self.archive_into(at, archives, &source, &version, &platform)
                    .await
            }
            Job::OciBlob {
                address,
                layer,
                source,
                version,
                platform,
            } => {
                let at = ArchiveAt::Oci { address, layer };
                self.archive_into(at, archives, &source, &version, &platform)
                    .await
            }
            Job::OciTags { address, .. } => self.oci_tags(&address).await.map(JobOutput::OciTags),
            Job::OciManifest {
                address,
                reference,
                accept,
            } => {
                let accept: Vec<&str> = accept.iter().map(String::as_str).collect();
                self.oci_manifest(&address, &reference, &accept)
                    .await
                    .map(|m| JobOutput::OciManifest(Box::new(m)))
            }
            Job::LocalPackage { package } => hash_local(&package),
            Job::MirrorVersions { mirror, source } => self
                .mirror_versions(&mirror, &source)
                .await
                .map(JobOutput::MirrorVersions),
            Job::MirrorArchives {
                mirror,
                source,
                version,
            } => self
                .mirror_archives(&mirror, &source, &version)
                .await
                .map(|archives| JobOutput::MirrorArchives(Box::new(archives))),
            // A job of a kind this version does not know.
            other => Err(Error::InvalidArgument {
                message: format!("a lock run cannot make the job {other:?}"),
            }),
        }
    }
}

impl<T: Transport> AsyncClient<T> {
    /// An archive downloaded into the sink `archives` gives: hashed, or
    /// staged in a mirror folder.
    async fn archive_into(
        &self,
        at: ArchiveAt,
        archives: Archives<'_>,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<JobOutput, Error> {
        match archives {
            Archives::Hashed => self.fetch_archive(at, ArchiveSink::new()).await,
            Archives::Staged(folder) => {
                let sink = folder
                    .stage(source, version, platform)
                    .map_err(|e| local_error(&folder.staging_path(source, version, platform), e))?;
                self.fetch_archive(at, sink).await
            }
        }
        .map(JobOutput::Archive)
    }

    /// An archive from where the plan found it, into `sink`.
    pub(crate) async fn fetch_archive<S>(&self, at: ArchiveAt, sink: S) -> Result<S::Output, Error>
    where
        S: Sink,
        S::Output: Send,
    {
        match at {
            ArchiveAt::Url { url, about } => self.download(url, sink, &about).await,
            ArchiveAt::Oci { address, layer } => {
                Box::pin(self.oci_package_blob(&address, &layer, sink)).await
            }
        }
    }
}

/// Where a package archive is: a URL (a registry's, a network mirror's),
/// or a layer of an OCI repository.
pub(crate) enum ArchiveAt {
    /// Downloaded without a token (DL-1).
    Url { url: Url, about: Hostname },
    /// An OCI blob, with the repository's credentials.
    Oci {
        address: RepositoryAddress,
        layer: Descriptor,
    },
}

/// Where a run's archives go as they download.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Archives<'a> {
    /// Hashed, and kept nowhere (a lock run).
    Hashed,
    /// Hashed and written to their staging files in this folder
    /// (`tfdisco mirror`).
    Staged(&'a MirrorFolder),
}

/// A filesystem mirror's package hashed from disk (LOCKRUN-8): an archive
/// read through the hasher, a directory's files into their `h1:`. A file
/// that cannot be read, or is no package, is [`Error::LocalFile`].
fn hash_local(package: &LocalPackage) -> Result<JobOutput, Error> {
    let hashes = match hash_local_package(package) {
        Ok(hashes) => hashes,
        Err(e @ MirrorError::Package { .. }) => return Ok(JobOutput::NoPackage(e.to_string())),
        Err(e) => {
            return Err(Error::LocalFile {
                path: e.path().to_owned(),
                problem: e.problem(),
            });
        }
    };
    Ok(JobOutput::Local {
        h1: hashes.h1().to_owned(),
        archive: hashes.archive().copied(),
    })
}

/// A local file that could not be written: [`Error::LocalFile`].
fn local_error(path: &Path, error: std::io::Error) -> Error {
    Error::LocalFile {
        path: path.to_owned(),
        problem: error.to_string(),
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::lock`] for blocking code: the jobs run on
    /// [`LockOptions::jobs`] threads of this call.
    ///
    /// ```no_run
    /// use tfdisco_core::Platform;
    /// use tfdisco_transport::{BlockingClient, LockError, LockOptions, Transport};
    ///
    /// fn lock<T: Transport>(client: &BlockingClient<T>) -> Result<(), Box<dyn std::error::Error>> {
    ///     let options = LockOptions::new()
    ///         .platform(Platform::parse("linux_amd64")?)
    ///         .platform(Platform::parse("darwin_arm64")?);
    ///     match client.lock("infra/", &options) {
    ///         Ok(report) => {
    ///             for p in &report.providers {
    ///                 println!("{} {}: {} hashes added", p.source, p.version, p.hashes_added.len());
    ///             }
    ///         }
    ///         Err(LockError::Failed(failures)) => {
    ///             for failure in &failures {
    ///                 eprintln!("{failure}"); // provider, version, platform, what failed
    ///             }
    ///         }
    ///         Err(other) => return Err(other.into()),
    ///     }
    ///     Ok(())
    /// }
    /// ```
    pub fn lock(
        &self,
        dir: impl AsRef<Path>,
        options: &LockOptions,
    ) -> Result<LockReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = LockRun::prepare(dir.as_ref(), dialect, options)?;
        match run.installer() {
            Some(installer) => self.run_plan_with(&mut plan, options.jobs, |job| {
                self.block_on(self.as_async().install_job(installer, job))
            }),
            None => self.run_plan_into(&mut plan, options.jobs, Archives::Hashed),
        }
        run.apply(plan)
    }

    /// Runs a plan's jobs on `jobs` threads of this call until it is
    /// finished, the archives going where `archives` says.
    pub(crate) fn run_plan_into(
        &self,
        plan: &mut LockPlan,
        jobs: NonZeroUsize,
        archives: Archives<'_>,
    ) {
        self.run_plan_with(plan, jobs, |job| {
            self.block_on(self.as_async().run_job_into(job, archives))
        });
    }

    /// Runs a plan's jobs with `run` on `jobs` threads of this call until
    /// it is finished.
    pub(crate) fn run_plan_with(
        &self,
        plan: &mut LockPlan,
        jobs: NonZeroUsize,
        run: impl Fn(Job) -> Result<JobOutput, Error> + Sync,
    ) {
        let plan = Mutex::new(plan);
        let changed = Condvar::new();
        let lock = || plan.lock().unwrap_or_else(PoisonError::into_inner);
        std::thread::scope(|scope| {
            for _ in 0..jobs.get() {
                scope.spawn(|| {
                    loop {
                        let (id, job) = {
                            let mut guard = lock();
                            loop {
                                if let Some(next) = guard.next_job() {
                                    break next;
                                }
                                if guard.is_finished() {
                                    changed.notify_all();
                                    return;
                                }
                                guard = changed.wait(guard).unwrap_or_else(PoisonError::into_inner);
                            }
                        };
                        let result = run(job);
                        lock().complete(id, result);
                        changed.notify_all();
                    }
                });
            }
        });
    }
}
