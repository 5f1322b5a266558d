//! The jobs a plan with install rules hands out, done on disk: what is
//! installed of a package (the plugin cache entry's lock taken first), a
//! package unpacked as it downloads into its staging folder, placed in the
//! cache as soon as it is verified, a cache entry released
//! (docs/behaviour.md, INSTALL-10, INSTALL-12). An install run (`init`)
//! and a lock run with the plugin cache (`providers lock
//! -enable-plugin-cache`, LOCKRUN-10) share them: the plan decides, this
//! does what it decides.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tfdisco_config::{Destination, ProvidersFolder, Staged, StagedPackage};
use tfdisco_core::{Error, Platform, ProviderSource, Sink, Version};
use tfdisco_provider::plan::{CACHE_WAIT_REPORTED_AFTER, Job, JobOutput};
use tfdisco_provider::{LocalLocation, LocalPackage};

use super::options::{Cancel, InstallEvent, InstallEvents};
use crate::On;
use crate::plan_jobs::{ArchiveJob, Archives};
use crate::{AsyncClient, Transport};

/// How long a run waits between two tries of a busy plugin cache entry's
/// lock.
const LOCK_RETRY: Duration = Duration::from_millis(50);

/// A package of a run: a provider's version for a platform.
type Key = (ProviderSource, Version, Platform);

fn key(source: &ProviderSource, version: &Version, platform: &Platform) -> Key {
    (source.clone(), version.clone(), platform.clone())
}

/// What a run's install jobs work on: the providers folder (the working
/// folder's, or a lock run's private one) and the plugin cache, what was
/// staged and not placed yet, and whom to tell.
pub(crate) struct Installer {
    pub(crate) folder: ProvidersFolder,
    /// Archives unpacked as they downloaded.
    staged: Mutex<HashMap<Key, Staged>>,
    /// Filesystem mirrors' unpacked packages the plan took (linked, not
    /// copied).
    local_dirs: Mutex<HashMap<Key, PathBuf>>,
    /// Told what the run does.
    events: Option<InstallEvents>,
    /// Stops the run.
    pub(crate) cancel: Cancel,
    /// When this run first found each busy cache entry's lock held, and
    /// whether the wait was reported.
    waits: Mutex<HashMap<Key, (Instant, bool)>>,
}

impl std::fmt::Debug for Installer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installer")
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl Installer {
    /// Jobs on `folder`, telling `events`, stopped by `cancel`.
    pub(crate) fn new(
        folder: ProvidersFolder,
        events: Option<InstallEvents>,
        cancel: Cancel,
    ) -> Installer {
        Installer {
            folder,
            staged: Mutex::new(HashMap::new()),
            local_dirs: Mutex::new(HashMap::new()),
            events,
            cancel,
            waits: Mutex::new(HashMap::new()),
        }
    }

    /// An error for a job of a cancelled run (what it says is not shown:
    /// the run ends with `RunError::Cancelled`).
    pub(crate) fn check_cancelled(&self) -> Result<(), Error> {
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
                .entry(key(source, version, platform))
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
            .map_err(|e| {
                Error::local_file(self.folder.cache().unwrap_or(self.folder.target()), e)
            })?;
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
    fn place_in_cache(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<JobOutput, Error> {
        let placed = match self.take_staged(source, version, platform)? {
            Some(staged) => self
                .folder
                .place(&staged)
                .map_err(|e| Error::local_file(staged.final_path(), e)),
            // An unpacked filesystem mirror's folder is linked at the end.
            None => Ok(()),
        };
        self.release(source, version, platform);
        placed.map(|()| JobOutput::Done)
    }

    /// The plan's `Release` job: the cache entry's lock released.
    fn release(&self, source: &ProviderSource, version: &Version, platform: &Platform) {
        self.folder.release_cache_entry(source, version, platform);
    }

    /// The staged package of a provider's version for a platform (a
    /// download, or a filesystem mirror's archive, unpacked); `None` for a
    /// mirror's unpacked folder, which is linked rather than copied.
    pub(crate) fn take_staged(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Result<Option<Staged>, Error> {
        if let Some(staged) = self
            .staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key(source, version, platform))
        {
            return Ok(Some(staged));
        }
        match self.local_dir(source, version, platform) {
            Some(_) => Ok(None),
            None => Err(Error::LocalFile {
                path: self.folder.target_path(source, version, platform),
                problem: "the package was not fetched".to_owned(),
            }),
        }
    }

    /// A filesystem mirror's unpacked folder the plan took for a
    /// provider's version and platform.
    pub(crate) fn local_dir(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Option<PathBuf> {
        self.local_dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key(source, version, platform))
            .cloned()
    }

    /// The sink an archive of the plan downloads into: unpacked into a
    /// staging folder (in the plugin cache when one is used).
    fn stage(
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
            .map_err(|e| Error::local_file(self.folder.target(), e))
    }

    /// Tells the caller's events function, if any.
    fn event(&self, event: InstallEvent<'_>) {
        if let Some(events) = &self.events {
            events(event);
        }
    }

    /// Keeps an archive staged for placement.
    fn staged(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
        staged: Staged,
    ) {
        self.staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key(source, version, platform), staged);
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
                    .insert(key(source, version, platform), dir.clone());
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
                self.staged(source, version, platform, staged);
                output
            }
            Err(e) => JobOutput::NoPackage(format!("{}: {e}", file.display())),
        }))
    }
}

impl<T: Transport> On<'_, T> {
    /// Runs one job of a plan with install rules: its own (what is
    /// installed, a package placed in the cache or a cache entry released,
    /// an archive unpacked as it downloads); any other as a lock run runs
    /// it.
    pub(crate) async fn install_job(
        self,
        installer: &Installer,
        job: Job,
    ) -> Result<JobOutput, Error> {
        installer.check_cancelled()?;
        let job = match ArchiveJob::of(job) {
            Ok(archive) => return self.install_archive(installer, archive).await,
            Err(job) => job,
        };
        match job {
            Job::Installed {
                source,
                version,
                platform,
            } => {
                installer
                    .installed(&self, &source, &version, &platform)
                    .await
            }
            Job::Place {
                source,
                version,
                platform,
            } => installer.place_in_cache(&source, &version, &platform),
            Job::Release {
                source,
                version,
                platform,
            } => {
                installer.release(&source, &version, &platform);
                Ok(JobOutput::Done)
            }
            Job::LocalPackage { package } => match installer.local_package(&package)? {
                Some(output) => Ok(output),
                None => {
                    self.run_job_into(Job::LocalPackage { package }, Archives::Hashed)
                        .await
                }
            },
            other => self.run_job_into(other, Archives::Hashed).await,
        }
    }

    /// An archive of the plan, unpacked as it downloads into its staging
    /// folder, kept for placement.
    async fn install_archive(
        self,
        installer: &Installer,
        job: ArchiveJob,
    ) -> Result<JobOutput, Error> {
        let ArchiveJob {
            at,
            source,
            version,
            platform,
        } = job;
        let sink = Cancellable {
            sink: installer.stage(&source, &version, &platform)?,
            cancel: installer.cancel.clone(),
        };
        installer.event(InstallEvent::Downloading {
            source: &source,
            version: &version,
        });
        let staged = self.fetch_archive(at, sink).await?;
        let digest = staged.digest().clone();
        installer.event(InstallEvent::Downloaded {
            source: &source,
            version: &version,
            bytes: digest.size,
        });
        installer.staged(&source, &version, &platform, staged);
        Ok(JobOutput::Archive(digest))
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
    let mut reader = std::fs::File::open(file).map_err(|e| Error::local_file(file, e))?;
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::local_file(file, e)),
        };
        sink.write(&buf[..n])
            .map_err(|problem| local_problem(file, problem))?;
    }
    sink.finish()
        .map_err(|problem| local_problem(file, problem))
}

/// A local file that could not be read or written: [`Error::LocalFile`](tfdisco_core::Error::LocalFile).
fn local_problem(path: &Path, problem: String) -> Error {
    Error::LocalFile {
        path: path.to_owned(),
        problem,
    }
}
