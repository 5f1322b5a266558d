//! How a plan's jobs are run over a client (docs/behaviour.md, LOCKRUN-2):
//! at most `jobs` at once, as concurrent futures of one call
//! ([`AsyncClient`]) or on as many threads of it ([`BlockingClient`]); each
//! request with the client's rules (discovery, credentials, retries,
//! limits), downloads without a token, an archive hashed as it streams or
//! staged in a mirror folder, a filesystem mirror's package hashed from
//! disk. The lock, install and mirror runs drive their plans with these.

use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, PoisonError};
use std::task::Poll;

use tfdisco_config::{MirrorError, MirrorFolder, hash_local_package};
use tfdisco_core::url::Url;
use tfdisco_core::{Contents, Error, Hostname, Platform, ProviderSource, Sink, Version};
use tfdisco_oci::{Descriptor, RepositoryAddress};
use tfdisco_provider::LocalPackage;
use tfdisco_provider::lock_plan::{ArchiveSink, Job, JobId, JobOutput, LockPlan};

use crate::On;
use crate::{AsyncClient, BlockingClient, Transport};

impl<T: Transport> On<'_, AsyncClient<T>> {
    /// [`Runs::run_plan`](crate::Runs::run_plan).
    pub(crate) async fn run_plan(&self, plan: &mut LockPlan, jobs: NonZeroUsize) {
        self.run_plan_into(plan, jobs, Archives::Hashed).await;
    }

    /// Runs a plan's jobs, the archives going where `archives` says.
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

    /// Makes one request of a plan (the registry calls with the client's
    /// discovery and credentials, the downloads without a token, a
    /// filesystem mirror's packages hashed from disk), an archive going
    /// where `archives` says.
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
                .network_mirror_versions(&mirror, &source)
                .await
                .map(JobOutput::MirrorVersions),
            Job::MirrorArchives {
                mirror,
                source,
                version,
            } => self
                .network_mirror_archives(&mirror, &source, &version)
                .await
                .map(|archives| JobOutput::MirrorArchives(Box::new(archives))),
            // A job of a kind this version does not know.
            other => Err(Error::InvalidArgument {
                message: format!("a lock run cannot make the job {other:?}"),
            }),
        }
    }
}

impl<T: Transport> On<'_, AsyncClient<T>> {
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
                let sink = folder.stage(source, version, platform).map_err(|e| {
                    Error::local_file(&folder.staging_path(source, version, platform), e)
                })?;
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
/// that cannot be read, or is no package, is [`Error::LocalFile`](tfdisco_core::Error::LocalFile).
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

/// A local file that could not be written: [`Error::LocalFile`](tfdisco_core::Error::LocalFile).
impl<T: Transport> On<'_, BlockingClient<T>> {
    /// Runs a plan's jobs on `jobs` threads of this call until it is
    /// finished, the archives going where `archives` says.
    pub(crate) fn run_plan_into(
        &self,
        plan: &mut LockPlan,
        jobs: NonZeroUsize,
        archives: Archives<'_>,
    ) {
        self.run_plan_with(plan, jobs, |job| {
            self.wait(On(self.as_async()).run_job_into(job, archives))
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
