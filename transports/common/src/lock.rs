//! `terraform providers lock` as a library call (docs/behaviour.md,
//! LOCKRUN): a configuration's required providers, its lock file, the core's
//! `LockPlan` run over a client, the lock file replaced atomically.
//! [`AsyncClient::lock`](crate::AsyncClient::lock) runs the plan's jobs as
//! concurrent futures, [`BlockingClient::lock`](crate::BlockingClient::lock)
//! on as many threads; both at most [`LockOptions::concurrency`] at once.

use std::fmt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Condvar, Mutex, PoisonError};
use std::task::Poll;
use std::time::SystemTime;

use tfdisco_config::{
    Configuration, ConfigurationError, FilesystemMirror, LOCK_FILE_NAME, LockFile, LockFileError,
    LockedProvider, MirrorFolder, hash_local_package,
};
use tfdisco_core::{
    Contents, Dialect, Error, NetworkMirror, Platform, ProviderSource, Version, VersionConstraints,
};
use tfdisco_provider::lock_plan::{
    ArchiveSink, DOCUMENT_LIMIT, Job, JobId, JobOutput, LockFailure, LockPlan, Origin,
    ProviderLock, Requirement,
};
use tfdisco_provider::{LocalPackage, SignatureCheck, Trust};

use crate::{AsyncClient, BlockingClient, Transport};

/// How many jobs a lock run has under way at once by default.
pub const DEFAULT_LOCK_CONCURRENCY: usize = 8;

/// What to lock, and for which platforms.
///
/// ```
/// use tfdisco_transport::LockOptions;
/// use tfdisco_core::Platform;
///
/// let options = LockOptions::new()
///     .platform(Platform::parse("linux_amd64")?)
///     .platform(Platform::parse("darwin_arm64")?)
///     .concurrency(4);
/// assert_eq!(options.platforms().len(), 2);
/// # Ok::<(), tfdisco_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LockOptions {
    platforms: Vec<Platform>,
    providers: Vec<ProviderSource>,
    concurrency: usize,
    origin: Origin,
    fs_mirror: Option<PathBuf>,
}

impl Default for LockOptions {
    fn default() -> Self {
        LockOptions::new()
    }
}

impl LockOptions {
    /// Every provider the configuration requires, for the platform this
    /// program runs on ([`Platform::current`]), 8 jobs at once.
    pub fn new() -> LockOptions {
        LockOptions {
            platforms: Vec::new(),
            providers: Vec::new(),
            concurrency: DEFAULT_LOCK_CONCURRENCY,
            origin: Origin::Registry,
            fs_mirror: None,
        }
    }

    /// Takes every provider from a network mirror (`-net-mirror=URL`)
    /// instead of its registry: its versions, its archives, checked against
    /// the hashes the mirror lists (LOCKRUN-7).
    pub fn net_mirror(mut self, mirror: NetworkMirror) -> LockOptions {
        self.origin = Origin::NetworkMirror(mirror);
        self.fs_mirror = None;
        self
    }

    /// Takes every provider from the filesystem mirror at `dir`
    /// (`-fs-mirror=DIR`) instead of its registry: the packages found there
    /// in either layout, unauthenticated (LOCKRUN-8). The folder is read
    /// when the run starts.
    pub fn fs_mirror(mut self, dir: impl Into<PathBuf>) -> LockOptions {
        self.fs_mirror = Some(dir.into());
        self.origin = Origin::Registry;
        self
    }

    /// Takes the providers from the mirror the CLIs' flags name, if any:
    /// `net_mirror`, an `https:` URL (`-net-mirror`), or `fs_mirror`, a
    /// folder (`-fs-mirror`); not both (LOCKRUN-7, LOCKRUN-8). The one
    /// reading of those flags the CLI and the language packages share.
    ///
    /// ```
    /// use tfdisco_transport::LockOptions;
    ///
    /// let options = LockOptions::new().mirrors(Some("https://mirror.example.com/p/"), None)?;
    /// assert!(options.fs_mirror_dir().is_none());
    /// assert!(LockOptions::new().mirrors(Some("http://mirror.example.com/"), None).is_err());
    /// assert!(LockOptions::new().mirrors(Some("https://m.example/"), Some("/srv/m".into())).is_err());
    /// # Ok::<(), tfdisco_core::Error>(())
    /// ```
    pub fn mirrors(
        self,
        net_mirror: Option<&str>,
        fs_mirror: Option<PathBuf>,
    ) -> Result<LockOptions, Error> {
        match (net_mirror, fs_mirror) {
            (Some(_), Some(_)) => Err(Error::InvalidArgument {
                message: "a network mirror and a filesystem mirror are mutually exclusive"
                    .to_owned(),
            }),
            (Some(given), None) => {
                let mirror = tfdisco_core::url::Url::parse(given)
                    .map_err(|e| e.to_string())
                    .and_then(|url| NetworkMirror::new(url).map_err(|e| e.to_string()))
                    .map_err(|problem| Error::InvalidArgument {
                        message: format!(
                            "invalid network mirror URL {given:?}: a network mirror must be at a \
                             valid https: URL ({problem})"
                        ),
                    })?;
                Ok(self.net_mirror(mirror))
            }
            (None, Some(dir)) => Ok(self.fs_mirror(dir)),
            (None, None) => Ok(self),
        }
    }

    /// Where the providers come from: their registry, a network mirror,
    /// or (with [`LockOptions::fs_mirror`], once read) a filesystem mirror.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The filesystem mirror given, if any.
    pub fn fs_mirror_dir(&self) -> Option<&Path> {
        self.fs_mirror.as_deref()
    }

    /// Adds a platform (`-platform=OS_ARCH`); with none, the current one.
    pub fn platform(mut self, platform: Platform) -> LockOptions {
        self.platforms.push(platform);
        self
    }

    /// Adds platforms.
    pub fn platforms_from(mut self, platforms: impl IntoIterator<Item = Platform>) -> LockOptions {
        self.platforms.extend(platforms);
        self
    }

    /// Locks only this provider (and others named so); it must be one the
    /// configuration requires.
    pub fn provider(mut self, source: ProviderSource) -> LockOptions {
        self.providers.push(source);
        self
    }

    /// At most `jobs` requests at once (at least 1).
    pub fn concurrency(mut self, jobs: usize) -> LockOptions {
        self.concurrency = jobs.max(1);
        self
    }

    /// The platforms given.
    pub fn platforms(&self) -> &[Platform] {
        &self.platforms
    }

    /// The providers named.
    pub fn providers(&self) -> &[ProviderSource] {
        &self.providers
    }

    /// The concurrency.
    pub fn jobs(&self) -> usize {
        self.concurrency
    }
}

/// What a lock run did.
#[derive(Clone, Debug)]
pub struct LockReport {
    /// The lock file.
    pub path: PathBuf,
    /// True when its bytes changed (and it was written).
    pub changed: bool,
    /// The platforms locked.
    pub platforms: Vec<Platform>,
    /// Each provider locked, in address order.
    pub providers: Vec<ProviderReport>,
}

/// One provider of a [`LockReport`].
#[derive(Clone, Debug)]
pub struct ProviderReport {
    /// The provider.
    pub source: ProviderSource,
    /// The version locked.
    pub version: Version,
    /// Its constraints as the lock file writes them (empty: none).
    pub constraints: String,
    /// The hashes the lock file did not hold before, sorted.
    pub hashes_added: Vec<String>,
    /// How the key that signed its checksums is trusted.
    pub trust: Trust,
    /// That key's id (none when OpenTofu skipped the signature).
    pub key_id: Option<String>,
}

/// Why a lock run failed; the lock file is then as it was.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// The configuration does not parse, or has modules not read.
    Configuration(ConfigurationError),
    /// The lock file cannot be read, or not written.
    LockFile(LockFileError),
    /// A provider named is not one the configuration requires, or a
    /// constraint cannot be read.
    Usage(String),
    /// Providers that could not be locked: every failure.
    Failed(Vec<LockFailure>),
    /// A mirror folder could not be read (`-fs-mirror`) or written
    /// (`tfdisco mirror`).
    Folder {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl LockError {
    /// What failed, in one word, as `tfdisco lock --json` and the language
    /// packages name it: `configuration`, `lock_file`, `usage`, `failed` or
    /// `folder`.
    pub fn kind(&self) -> &'static str {
        match self {
            LockError::Configuration(_) => "configuration",
            LockError::LockFile(_) => "lock_file",
            LockError::Usage(_) => "usage",
            LockError::Failed(_) => "failed",
            LockError::Folder { .. } => "folder",
        }
    }

    /// `tfdisco lock`'s exit code: 2 for the configuration, the lock file's
    /// contents or the arguments; 3 when no version or platform fits; 1 for
    /// a failed request, verification or write.
    pub fn exit_code(&self) -> i32 {
        match self {
            LockError::Configuration(_) | LockError::Usage(_) => 2,
            LockError::LockFile(LockFileError::Io { .. }) | LockError::Folder { .. } => 1,
            LockError::LockFile(_) => 2,
            LockError::Failed(failures) => failures
                .iter()
                .map(LockFailure::exit_code)
                .find(|code| *code != 3)
                .unwrap_or(3),
        }
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Configuration(e) => {
                f.write_str("the configuration cannot be read:")?;
                for diagnostic in e.diagnostics() {
                    write!(f, "\n- {}", diagnostic.located())?;
                }
                Ok(())
            }
            LockError::LockFile(e) => write!(f, "{e}"),
            LockError::Usage(message) => f.write_str(message),
            LockError::Folder { path, error } => {
                write!(f, "cannot use {}: {error}", path.display())
            }
            LockError::Failed(failures) => {
                f.write_str("some providers could not be locked:")?;
                for failure in failures {
                    write!(f, "\n- {failure}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LockError {}

/// A lock run between reading and writing: the plan, and what it updates.
#[derive(Debug)]
pub(crate) struct LockRun {
    path: PathBuf,
    lock_file: LockFile,
    before: Vec<u8>,
    platforms: Vec<Platform>,
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
            let locked = lock_file
                .provider(provider.source())
                .and_then(|locked| Version::parse(locked.version(), dialect).ok());
            requirements.push(Requirement {
                source: provider.source().clone(),
                constraints,
                locked,
            });
        }
        Ok(Inputs {
            path,
            lock_file,
            requirements,
        })
    }
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
        let origin = match &options.fs_mirror {
            Some(folder) => {
                let scan =
                    FilesystemMirror::scan(folder, dialect).map_err(|error| LockError::Folder {
                        path: folder.clone(),
                        error: error.into(),
                    })?;
                Origin::Filesystem(scan.packages().clone())
            }
            None => options.origin.clone(),
        };
        let platforms = platforms_or_current(&options.platforms);
        let check = SignatureCheck::new(dialect, SystemTime::now());
        let plan = LockPlan::with_origin(requirements, platforms.clone(), check, origin);
        let before = lock_file.to_bytes();
        Ok((
            LockRun {
                path,
                lock_file,
                before,
                platforms,
            },
            plan,
        ))
    }
    /// Records what the plan gave and replaces the lock file when its
    /// bytes change (LOCKRUN-5); a failed plan changes nothing.
    pub(crate) fn apply(mut self, plan: LockPlan) -> Result<LockReport, LockError> {
        let locks = plan.finish().map_err(LockError::Failed)?;
        let mut providers = Vec::with_capacity(locks.len());
        for lock in locks {
            providers.push(self.record(lock)?);
        }
        let changed = self.lock_file.to_bytes() != self.before;
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
    /// call, at most [`LockOptions::concurrency`] at once. On any failure the
    /// lock file is left as it was.
    pub async fn lock(
        &self,
        dir: impl AsRef<Path>,
        options: &LockOptions,
    ) -> Result<LockReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = LockRun::prepare(dir.as_ref(), dialect, options)?;
        self.run_plan(&mut plan, options.jobs()).await;
        run.apply(plan)
    }

    /// Runs a plan's jobs, at most `jobs` at once, until it is finished.
    pub async fn run_plan(&self, plan: &mut LockPlan, jobs: usize) {
        self.run_plan_into(plan, jobs, Archives::Hashed).await;
    }

    /// [`AsyncClient::run_plan`], the archives going where `archives` says.
    pub(crate) async fn run_plan_into(
        &self,
        plan: &mut LockPlan,
        jobs: usize,
        archives: Archives<'_>,
    ) {
        type Running<'a> = Pin<Box<dyn Future<Output = Result<JobOutput, Error>> + Send + 'a>>;
        let mut running: Vec<(JobId, Running<'_>)> = Vec::new();
        loop {
            while running.len() < jobs.max(1) {
                let Some((id, job)) = plan.next_job() else {
                    break;
                };
                running.push((id, Box::pin(self.run_job_into(job, archives))));
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
            Job::Document { url, about } => self
                .download(url, Contents::limited(DOCUMENT_LIMIT), &about)
                .await
                .map(JobOutput::Document),
            Job::Archive {
                url,
                about,
                source,
                version,
                platform,
                ..
            } => match archives {
                Archives::Hashed => self
                    .download(url, ArchiveSink::new(), &about)
                    .await
                    .map(JobOutput::Archive),
                Archives::Staged(folder) => {
                    let sink = folder.stage(&source, &version, &platform).map_err(|e| {
                        local_error(&folder.staging_path(&source, &version, &platform), e)
                    })?;
                    self.download(url, sink, &about)
                        .await
                        .map(JobOutput::Archive)
                }
            },
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
/// read through the hasher, a directory's files into their `h1:`.
fn hash_local(package: &LocalPackage) -> Result<JobOutput, Error> {
    let hashes = hash_local_package(package).map_err(|e| Error::InvalidArgument {
        message: e.to_string(),
    })?;
    Ok(JobOutput::Local {
        h1: hashes.h1().to_owned(),
        archive: hashes.archive().copied(),
    })
}

/// A local file that could not be read or written, as a request failure.
fn local_error(path: &Path, error: std::io::Error) -> Error {
    Error::InvalidArgument {
        message: format!("{}: {error}", path.display()),
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::lock`] for blocking code: the jobs run on
    /// [`LockOptions::concurrency`] threads of this call.
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
        self.run_plan_into(&mut plan, options.jobs(), Archives::Hashed);
        run.apply(plan)
    }

    /// Runs a plan's jobs on `jobs` threads of this call until it is
    /// finished, the archives going where `archives` says.
    pub(crate) fn run_plan_into(&self, plan: &mut LockPlan, jobs: usize, archives: Archives<'_>) {
        let plan = Mutex::new(plan);
        let changed = Condvar::new();
        let lock = || plan.lock().unwrap_or_else(PoisonError::into_inner);
        std::thread::scope(|scope| {
            for _ in 0..jobs.max(1) {
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
                        let result = self.block_on(self.as_async().run_job_into(job, archives));
                        lock().complete(id, result);
                        changed.notify_all();
                    }
                });
            }
        });
    }
}
