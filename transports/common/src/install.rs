//! `terraform init`'s provider installation as a library call
//! (docs/behaviour.md, INSTALL): a configuration's required providers, its
//! lock file and the installation methods, the provider crate's install
//! plan run over a client, each package unpacked as it downloads into a
//! staging folder (`tfdisco_config::ProvidersFolder`), placed in
//! `.terraform/providers` (or the plugin cache, linked) once every package
//! is verified, and the lock file replaced atomically when it changes.

mod options;
mod report;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use tfdisco_config::{
    Destination, DialectChoice, FilesystemMirror, LockFile, LockedProvider, ProvidersFolder, Staged,
    StagedPackage, oci_repository_address,
};
use tfdisco_core::{Error, Platform, ProviderSource, Sink, Version};
use tfdisco_provider::lock_plan::{
    CACHE_WAIT_REPORTED_AFTER, CacheRules, InstallRules, Installed, Job, JobOutput, LockPlan,
    Origin, ProviderLock,
};
use tfdisco_provider::{LocalLocation, LocalPackage, MethodKind, SignatureCheck};

use crate::lock::{ArchiveAt, Archives, Inputs};
use crate::{AsyncClient, BlockingClient, LockError, Transport};

pub use options::{Cancel, InstallEvent, InstallEvents, InstallOptions};
pub use report::{InstallReport, InstalledProvider, install_word};

/// How long a run waits between two tries of a busy plugin cache entry's
/// lock.
const LOCK_RETRY: Duration = Duration::from_millis(50);

/// An install run between reading and writing.
pub(crate) struct InstallRun {
    path: PathBuf,
    lock_file: LockFile,
    before: Vec<u8>,
    platform: Platform,
    readonly: bool,
    folder: ProvidersFolder,
    /// The installation methods each provider may come from, in priority
    /// order, by name, for the report.
    from: HashMap<ProviderSource, Vec<String>>,
    /// Archives unpacked as they downloaded, by provider and version.
    staged: Mutex<HashMap<(ProviderSource, Version), Staged>>,
    /// Filesystem mirrors' unpacked packages the plan took (linked, not
    /// copied), by provider and version.
    local_dirs: Mutex<HashMap<(ProviderSource, Version), PathBuf>>,
    /// Providers the configuration requires.
    required: Vec<ProviderSource>,
    /// What the report warns about.
    warnings: Vec<String>,
    /// Told what the run does.
    events: Option<options::InstallEvents>,
    /// Stops the run.
    cancel: Cancel,
    /// The dialect followed, and what chose it, for the report.
    dialect: DialectChoice,
    /// When this run first found each busy cache entry's lock held, and
    /// whether the wait was reported.
    waits: Mutex<HashMap<(ProviderSource, Version), (Instant, bool)>>,
}

impl std::fmt::Debug for InstallRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstallRun")
            .field("path", &self.path)
            .field("platform", &self.platform)
            .field("readonly", &self.readonly)
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl InstallRun {
    /// Reads the configuration in `dir`, its lock file, the installation
    /// methods and the plugin cache, and makes the plan (INSTALL-13).
    pub(crate) fn prepare(
        dir: &Path,
        dialect: tfdisco_core::Dialect,
        options: &InstallOptions,
    ) -> Result<(InstallRun, LockPlan), LockError> {
        if options.upgrade && options.readonly {
            return Err(LockError::Usage(
                "The -upgrade flag conflicts with -lockfile=readonly.".to_owned(),
            ));
        }
        let Inputs {
            path,
            lock_file,
            mut requirements,
        } = Inputs::read(dir, dialect, &options.providers)?;
        let required = requirements.iter().map(|r| r.source.clone()).collect();
        let mut folders: HashMap<PathBuf, Origin> = HashMap::new();
        let mut from = HashMap::new();
        let mut with_origins = Vec::with_capacity(requirements.len());
        let mut warnings = options.warnings.clone();
        for mut requirement in requirements.drain(..) {
            if let Some(over) = options.installation.dev_override(&requirement.source) {
                // Not installed: the CLI uses the override's folder
                // (INSTALL-14).
                warnings.push(format!(
                    "{} is not installed: a development override uses {}",
                    requirement.source,
                    over.dir.display()
                ));
                continue;
            }
            if options.upgrade {
                requirement.locked = None;
            }
            let (origin, names) = origin_for(&requirement.source, options, dialect, &mut folders)?;
            from.insert(requirement.source.clone(), names);
            with_origins.push((requirement, origin));
        }
        let plugin_cache = options.plugin_cache();
        let cache = plugin_cache.dir().filter(|dir| dir.is_dir());
        let folder = ProvidersFolder::new(dir, cache).map_err(|error| LockError::Folder {
            path: dir.to_owned(),
            error: error.into(),
        })?;
        let rules = InstallRules {
            cache: folder.cache().map(|_| CacheRules {
                may_break_lock_file: plugin_cache.may_break_dependency_lock_file(),
            }),
        };
        let platform = Platform::current();
        let check = SignatureCheck::new(dialect, SystemTime::now());
        let plan = LockPlan::install(with_origins, platform.clone(), check, rules);
        let before = lock_file.to_bytes();
        Ok((
            InstallRun {
                path,
                lock_file,
                before,
                platform,
                readonly: options.readonly,
                folder,
                from,
                staged: Mutex::new(HashMap::new()),
                local_dirs: Mutex::new(HashMap::new()),
                required,
                warnings,
                events: options.events.clone(),
                cancel: options.cancel.clone(),
                waits: Mutex::new(HashMap::new()),
                dialect: options
                    .dialect_choice
                    .clone()
                    .unwrap_or_else(|| DialectChoice::given(dialect)),
            },
            plan,
        ))
    }

    /// An error for a job of a cancelled run (what it says is not shown:
    /// the run ends with [`LockError::Cancelled`]).
    fn check_cancelled(&self) -> Result<(), Error> {
        if self.cancel.is_cancelled() {
            return Err(local_problem(
                self.folder.target(),
                "the install was cancelled".to_owned(),
            ));
        }
        Ok(())
    }

    /// Notes that a cache entry's lock was found held at `now`, and tells
    /// the events function once the run has waited for it
    /// [`CACHE_WAIT_REPORTED_AFTER`].
    fn waiting(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
        now: Instant,
    ) {
        let waited = {
            let mut waits = self.waits.lock().unwrap_or_else(PoisonError::into_inner);
            let (since, told) = waits
                .entry((source.clone(), version.clone()))
                .or_insert((now, false));
            let waited = now.saturating_duration_since(*since);
            if *told || waited < CACHE_WAIT_REPORTED_AFTER {
                return;
            }
            *told = true;
            waited
        };
        if let Some(lock_file) = self.folder.cache_lock_file(source, version, platform) {
            self.event(InstallEvent::WaitingForCache {
                source,
                version,
                platform,
                lock_file: &lock_file,
                waited,
            });
        }
    }

    /// The answer to the plan's `Installed` job: the cache entry's lock
    /// taken, then what is installed; when another run holds the lock, a
    /// short wait and [`JobOutput::Busy`] (the plan asks again), so that a
    /// waiting job never keeps a job's place.
    async fn installed<T: Transport>(
        &self,
        client: &AsyncClient<T>,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<JobOutput, Error> {
        let taken = self
            .folder
            .try_lock_cache_entry(source, version, platform)
            .map_err(|e| local_error(self.folder.cache().unwrap_or(self.folder.target()), e))?;
        if !taken {
            let transport = client.transport();
            let now = transport.now();
            self.waiting(source, version, platform, now);
            transport.sleep_until(now + LOCK_RETRY).await;
            self.check_cancelled()?;
            return Ok(JobOutput::Busy);
        }
        Ok(JobOutput::Installed(
            self.folder.installed(source, version, platform),
        ))
    }

    /// The plan's `Place` job (a plugin cache): the verified package into
    /// the cache in place of what the entry held, the entry's lock
    /// released.
    pub(crate) fn place_in_cache(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<JobOutput, Error> {
        let placed = match self.take_staged(source, version, platform)? {
            Some(staged) => self
                .folder
                .place(&staged)
                .map_err(|e| local_error(staged.final_path(), e)),
            // An unpacked filesystem mirror's folder is linked at the end.
            None => Ok(()),
        };
        self.release(source, version, platform);
        placed.map(|()| JobOutput::Done)
    }

    /// The plan's `Release` job: the cache entry's lock released.
    pub(crate) fn release(&self, source: &ProviderSource, version: &Version, platform: &Platform) {
        self.folder.release_cache_entry(source, version, platform);
    }

    /// The staged package of a provider's version (a download, or a
    /// filesystem mirror's archive, unpacked); `None` for a mirror's
    /// unpacked folder, which is linked rather than copied.
    fn take_staged(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<Option<Staged>, Error> {
        let key = (source.clone(), version.clone());
        if let Some(staged) = self
            .staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key)
        {
            return Ok(Some(staged));
        }
        match self.local_dir(source, version) {
            Some(_) => Ok(None),
            None => Err(Error::LocalFile {
                path: self.folder.target_path(source, version, platform),
                problem: "the package was not fetched".to_owned(),
            }),
        }
    }

    /// A filesystem mirror's unpacked folder the plan took for a
    /// provider's version.
    fn local_dir(&self, source: &ProviderSource, version: &Version) -> Option<PathBuf> {
        self.local_dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(source.clone(), version.clone()))
            .cloned()
    }

    /// The sink an archive of the plan downloads into: unpacked into a
    /// staging folder (in the plugin cache when one is used).
    pub(crate) fn stage(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<StagedPackage, Error> {
        let into = match self.folder.cache() {
            Some(_) => Destination::Cache,
            None => Destination::Target,
        };
        self.folder
            .stage(source, version, platform, into)
            .map_err(|e| local_error(self.folder.target(), e))
    }

    /// Tells the caller's events function, if any.
    pub(crate) fn event(&self, event: InstallEvent<'_>) {
        if let Some(events) = &self.events {
            events(event);
        }
    }

    /// Keeps an archive staged for placement.
    pub(crate) fn staged(&self, source: ProviderSource, version: Version, staged: Staged) {
        self.staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((source, version), staged);
    }

    /// The plan's `LocalPackage` job: an archive unpacked into its staging
    /// folder now, its hashes those of what was unpacked (the same
    /// reading the hasher does); an unpacked folder hashed, and kept to be
    /// linked.
    fn local_package(&self, package: &LocalPackage) -> Result<Option<JobOutput>, Error> {
        let LocalPackage {
            source,
            version,
            platform,
            ..
        } = package;
        let file = match &package.location {
            LocalLocation::Archive(file) => file,
            LocalLocation::Directory(dir) => {
                self.local_dirs
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert((source.clone(), version.clone()), dir.clone());
                return Ok(None);
            }
        };
        let staged = unpack_file(file, self.stage(source, version, platform)?)?;
        Ok(Some(match &staged.digest().hashes {
            Ok(hashes) => {
                let output = JobOutput::Local {
                    h1: hashes.h1(),
                    archive: Some(*hashes),
                };
                self.staged(source.clone(), version.clone(), staged);
                output
            }
            Err(e) => JobOutput::NoPackage(format!("{}: {e}", file.display())),
        }))
    }

    /// Records what the plan gave in the lock file (INSTALL-5); refuses a
    /// change under `--lockfile readonly`; places every package; replaces
    /// the lock file when its bytes change. A failed plan changes nothing.
    pub(crate) fn apply(mut self, plan: LockPlan) -> Result<InstallReport, LockError> {
        if self.cancel.is_cancelled() {
            return Err(LockError::Cancelled);
        }
        let locks = plan.finish().map_err(LockError::Failed)?;
        let mut providers = Vec::with_capacity(locks.len());
        for lock in &locks {
            providers.push(self.record(lock)?);
        }
        // Providers the configuration no longer requires leave the lock
        // file, as `init` removes them.
        let gone: Vec<ProviderSource> = self
            .lock_file
            .providers()
            .map(|locked| locked.source().clone())
            .filter(|source| !self.required.contains(source))
            .collect();
        for source in &gone {
            self.lock_file.remove(source);
        }
        let changed = self.lock_file.to_bytes() != self.before;
        if changed && self.readonly {
            return Err(LockError::ReadOnly(format!(
                "the lock file {} would change, and it is read-only (--lockfile readonly)",
                self.path.display()
            )));
        }
        for lock in &locks {
            self.place(lock)?;
        }
        if changed {
            self.lock_file
                .write_atomically(&self.path)
                .map_err(LockError::LockFile)?;
        }
        Ok(InstallReport {
            path: self.path,
            changed,
            platform: self.platform,
            providers,
            warnings: self.warnings,
            dialect: self.dialect,
        })
    }

    fn record(&mut self, lock: &ProviderLock) -> Result<InstalledProvider, LockError> {
        let version = lock.version.to_string();
        let old: Vec<String> = match self.lock_file.provider(&lock.source) {
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
        let recorded = self.lock_file.merge(locked);
        let hashes_added = recorded
            .hashes()
            .iter()
            .filter(|h| !old.contains(h))
            .cloned()
            .collect();
        let bytes = lock.packages.first().map_or(0, |p| p.archive.size());
        Ok(InstalledProvider {
            source: lock.source.clone(),
            version: lock.version.clone(),
            installed: lock.installed.unwrap_or(Installed::Fetched),
            from: self.method_name(lock),
            bytes: if lock.installed == Some(Installed::Fetched) {
                bytes
            } else {
                0
            },
            hashes_added,
            trust: lock.trust,
            key_id: lock.key_id.clone(),
        })
    }

    /// The method a provider's package came from, by name; for a package
    /// kept, the first method that may install it.
    fn method_name(&self, lock: &ProviderLock) -> String {
        let names = self
            .from
            .get(&lock.source)
            .map(Vec::as_slice)
            .unwrap_or_default();
        names
            .get(lock.method.unwrap_or(0))
            .cloned()
            .unwrap_or_default()
    }

    /// Puts a provider's package in place in the working folder
    /// (INSTALL-1, INSTALL-2, INSTALL-10): with a plugin cache, a link to
    /// the cache's entry (already placed there); without, the staged
    /// package renamed into place; a filesystem mirror's unpacked folder,
    /// a link to it.
    fn place(&self, lock: &ProviderLock) -> Result<(), LockError> {
        let (source, version, platform) = (&lock.source, &lock.version, &self.platform);
        let folder_error =
            |path: &Path, error: Box<dyn std::error::Error + Send + Sync>| LockError::Folder {
                path: path.to_owned(),
                error,
            };
        let target = self.folder.target_path(source, version, platform);
        match (lock.installed, self.local_dir(source, version)) {
            (Some(Installed::Reused) | None, _) => Ok(()),
            (_, Some(dir)) => self
                .folder
                .link_to_folder(source, version, platform, &dir)
                .map_err(|e| folder_error(&target, e.into())),
            _ if self.folder.cache().is_some() => self
                .folder
                .link_to_cache(source, version, platform)
                .map_err(|e| folder_error(&target, e.into())),
            _ => {
                let staged = self
                    .take_staged(source, version, platform)
                    .map_err(|e| folder_error(&target, e.to_string().into()))?;
                match staged {
                    Some(staged) => self
                        .folder
                        .place(&staged)
                        .map_err(|e| folder_error(staged.final_path(), e.into())),
                    None => Ok(()),
                }
            }
        }
    }
}

/// A download's sink that fails once the run is cancelled, so that a
/// cancelled run stops its downloads at the next chunk.
struct Cancellable {
    sink: StagedPackage,
    cancel: Cancel,
}

impl Sink for Cancellable {
    type Output = Staged;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if self.cancel.is_cancelled() {
            return Err("the install was cancelled".to_owned());
        }
        self.sink.write(chunk)
    }

    fn finish(&mut self) -> Result<Staged, String> {
        self.sink.finish()
    }
}

/// A filesystem mirror's archive unpacked through `sink`.
fn unpack_file(file: &Path, mut sink: StagedPackage) -> Result<Staged, Error> {
    use std::io::Read;
    let mut reader = std::fs::File::open(file).map_err(|e| local_error(file, e))?;
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(local_error(file, e)),
        };
        sink.write(&buf[..n])
            .map_err(|problem| local_problem(file, problem))?;
    }
    sink.finish()
        .map_err(|problem| local_problem(file, problem))
}

/// The origin of a provider's packages: the installation methods that may
/// install it, in priority order, asked as `init` asks them
/// ([`Origin::Methods`], INSTALL-13); and their names for the report.
fn origin_for(
    source: &ProviderSource,
    options: &InstallOptions,
    dialect: tfdisco_core::Dialect,
    folders: &mut HashMap<PathBuf, Origin>,
) -> Result<(Origin, Vec<String>), LockError> {
    let methods: Vec<_> = options.installation.handling(source).collect();
    if methods.is_empty() {
        return Err(LockError::Usage(format!(
            "no installation method of the CLI configuration may install {source}"
        )));
    }
    let mut origins = Vec::with_capacity(methods.len());
    let mut names = Vec::with_capacity(methods.len());
    for method in methods {
        let (origin, name) = method_origin(&method.kind, source, dialect, folders)?;
        origins.push(origin);
        names.push(name);
    }
    Ok((Origin::Methods(origins), names))
}

/// One installation method as the plan's origin, and its name for the
/// report: `registry`, a network mirror's URL, a filesystem mirror's
/// folder (scanned once per run), an OCI repository.
fn method_origin(
    kind: &MethodKind,
    source: &ProviderSource,
    dialect: tfdisco_core::Dialect,
    folders: &mut HashMap<PathBuf, Origin>,
) -> Result<(Origin, String), LockError> {
    Ok(match kind {
        MethodKind::Direct { .. } => (Origin::Registry, "registry".to_owned()),
        MethodKind::NetworkMirror {
            mirror,
            trust_all_hashes,
            ..
        } => {
            // OpenTofu's `trust_all_hashes` (MIRROR-14); the CLI
            // configuration reads it only for OpenTofu.
            let origin = if *trust_all_hashes == Some(true) {
                Origin::TrustedNetworkMirror(mirror.clone())
            } else {
                Origin::NetworkMirror(mirror.clone())
            };
            (origin, mirror.base().to_string())
        }
        MethodKind::FilesystemMirror { path } => {
            let origin = match folders.get(path) {
                Some(origin) => origin.clone(),
                None => {
                    let scan = FilesystemMirror::scan(path, dialect).map_err(|error| {
                        LockError::Folder {
                            path: path.clone(),
                            error: error.into(),
                        }
                    })?;
                    let origin = Origin::Filesystem(scan.packages().clone());
                    folders.insert(path.clone(), origin.clone());
                    origin
                }
            };
            (origin, path.display().to_string())
        }
        MethodKind::OciMirror {
            repository_template,
        } => {
            let address = oci_repository_address(repository_template, source).map_err(|e| {
                LockError::Usage(format!(
                    "selecting OCI repository address for {source}: {e}"
                ))
            })?;
            let name = address.to_string();
            (Origin::OciMirror(address), name)
        }
    })
}

/// A local file that could not be read or written: [`Error::LocalFile`].
fn local_error(path: &Path, error: std::io::Error) -> Error {
    local_problem(path, error.to_string())
}

fn local_problem(path: &Path, problem: String) -> Error {
    Error::LocalFile {
        path: path.to_owned(),
        problem,
    }
}

impl<T: Transport> AsyncClient<T> {
    /// `terraform init`'s provider installation in `dir`: reads the
    /// configuration, its lock file and the installation methods; keeps
    /// what is installed and vouched for by the lock file; fetches,
    /// verifies and unpacks the rest (at most [`InstallOptions::jobs`]
    /// requests at once) into `.terraform/providers` (or the plugin cache,
    /// linked); then replaces the lock file atomically when it changes. On
    /// any failure nothing is placed and the lock file is as it was.
    pub async fn install(
        &self,
        dir: impl AsRef<Path>,
        options: &InstallOptions,
    ) -> Result<InstallReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = InstallRun::prepare(dir.as_ref(), dialect, options)?;
        self.run_plan_with(&mut plan, options.jobs, |job| self.install_job(&run, job))
            .await;
        run.apply(plan)
    }

    /// Runs one job of an install plan: its own (what is installed, a
    /// package placed in the cache or a cache entry released, an archive
    /// unpacked as it downloads); any other as a lock run runs it.
    async fn install_job(&self, run: &InstallRun, job: Job) -> Result<JobOutput, Error> {
        run.check_cancelled()?;
        match job {
            Job::Installed {
                source,
                version,
                platform,
            } => run.installed(self, &source, &version, &platform).await,
            Job::Place {
                source,
                version,
                platform,
            } => run.place_in_cache(&source, &version, &platform),
            Job::Release {
                source,
                version,
                platform,
            } => {
                run.release(&source, &version, &platform);
                Ok(JobOutput::Done)
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
                self.install_archive(run, at, source, version, platform)
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
                self.install_archive(run, at, source, version, platform)
                    .await
            }
            Job::LocalPackage { package } => match run.local_package(&package)? {
                Some(output) => Ok(output),
                None => {
                    self.run_job_into(Job::LocalPackage { package }, Archives::Hashed)
                        .await
                }
            },
            other => self.run_job_into(other, Archives::Hashed).await,
        }
    }
}

impl<T: Transport> AsyncClient<T> {
    /// An archive of the plan, unpacked as it downloads into its staging
    /// folder, kept for placement.
    async fn install_archive(
        &self,
        run: &InstallRun,
        at: ArchiveAt,
        source: ProviderSource,
        version: Version,
        platform: Platform,
    ) -> Result<JobOutput, Error> {
        let sink = Cancellable {
            sink: run.stage(&source, &version, &platform)?,
            cancel: run.cancel.clone(),
        };
        run.event(InstallEvent::Downloading {
            source: &source,
            version: &version,
        });
        let staged = self.fetch_archive(at, sink).await?;
        let digest = staged.digest().clone();
        run.event(InstallEvent::Downloaded {
            source: &source,
            version: &version,
            bytes: digest.size,
        });
        run.staged(source, version, staged);
        Ok(JobOutput::Archive(digest))
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::install`] for blocking code: the jobs run on
    /// [`InstallOptions::jobs`] threads of this call.
    pub fn install(
        &self,
        dir: impl AsRef<Path>,
        options: &InstallOptions,
    ) -> Result<InstallReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = InstallRun::prepare(dir.as_ref(), dialect, options)?;
        self.run_plan_with(&mut plan, options.jobs, |job| {
            self.block_on(self.as_async().install_job(&run, job))
        });
        run.apply(plan)
    }
}
