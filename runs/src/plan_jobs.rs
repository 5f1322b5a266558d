//! How a plan's jobs are run over a client (docs/behaviour.md, LOCKRUN-2):
//! at most `jobs` at once, as concurrent futures of one call on an async
//! client ([`Futures`]) or on as many threads of it on a blocking one
//! ([`Threads`]), both behind [`Jobs`], so that each run is written once;
//! each request with the client's rules (discovery, credentials, retries,
//! limits), downloads without a token, an archive hashed as it streams or
//! staged in a mirror folder, a filesystem mirror's package hashed from
//! disk.

use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, PoisonError};
use std::task::Poll;

use tfdisco_config::{MirrorError, MirrorFolder, StagedArchive, hash_local_package};
use tfdisco_core::url::Url;
use tfdisco_core::{Contents, Error, Hostname, Platform, ProviderSource, Sink, Version};
use tfdisco_oci::{Descriptor, RepositoryAddress};
use tfdisco_provider::LocalPackage;
use tfdisco_provider::plan::{ArchiveSink, Job, JobId, JobOutput, ProviderPlan};

use crate::On;
use crate::{AsyncClient, BlockingClient, Transport};

/// A plan whose jobs a run drives: the provider crate's `ProviderPlan`,
/// the module installer's plan. The driver takes jobs while the plan has
/// some ready, runs them (as many at once as it may) and hands each
/// result back; the plan is finished when none is ready or running.
pub(crate) trait JobPlan: Send {
    /// What names a job.
    type Id: Send;
    /// A job.
    type Job: Send;
    /// A job's result: done, or why the job could not run (the transport
    /// cannot block here).
    type Output: Send;

    /// The next job ready to run.
    fn next_job(&mut self) -> Option<(Self::Id, Self::Job)>;

    /// Whether no job is ready or running.
    fn is_finished(&self) -> bool;

    /// A job's result.
    fn complete(&mut self, id: Self::Id, output: Self::Output);

    /// The result of a job that could not run.
    fn not_run(error: Error) -> Self::Output;
}

impl JobPlan for ProviderPlan {
    type Id = JobId;
    type Job = Job;
    type Output = Result<JobOutput, Error>;

    fn next_job(&mut self) -> Option<(JobId, Job)> {
        ProviderPlan::next_job(self)
    }

    fn is_finished(&self) -> bool {
        ProviderPlan::is_finished(self)
    }

    fn complete(&mut self, id: JobId, output: Result<JobOutput, Error>) {
        ProviderPlan::complete(self, id, output);
    }

    fn not_run(error: Error) -> Result<JobOutput, Error> {
        Err(error)
    }
}

/// How a run's jobs run: the one difference between a run on an async
/// client and on a blocking one.
pub(crate) trait Jobs: Sync {
    /// The client's transport.
    type T: Transport;

    /// The async client every request goes through.
    fn client(&self) -> &AsyncClient<Self::T>;

    /// Runs `plan`'s jobs with `run`, at most `jobs` at once, until it is
    /// finished.
    fn run<'a, P: JobPlan>(
        &'a self,
        plan: &'a mut P,
        jobs: NonZeroUsize,
        run: &'a RunJob<'a, P>,
    ) -> impl Future<Output = ()> + Send + 'a;
}

/// One job of a plan, as a future.
pub(crate) type JobFuture<'a, P = ProviderPlan> =
    Pin<Box<dyn Future<Output = <P as JobPlan>::Output> + Send + 'a>>;

/// How a run makes each job of its plan.
pub(crate) type RunJob<'a, P = ProviderPlan> =
    dyn Fn(<P as JobPlan>::Job) -> JobFuture<'a, P> + Send + Sync + 'a;

/// An async client's jobs: concurrent futures of the run's own future.
pub(crate) struct Futures<'c, T>(pub(crate) &'c AsyncClient<T>);

/// A blocking client's jobs: on threads of the run's call, each job's
/// future run to completion on its thread.
pub(crate) struct Threads<'c, T>(pub(crate) &'c BlockingClient<T>);

impl<T: Transport> Jobs for Futures<'_, T> {
    type T = T;

    fn client(&self) -> &AsyncClient<T> {
        self.0
    }

    async fn run<'a, P: JobPlan>(
        &'a self,
        plan: &'a mut P,
        jobs: NonZeroUsize,
        run: &'a RunJob<'a, P>,
    ) {
        run_concurrently(plan, jobs, run).await;
    }
}

impl<T: Transport> Jobs for Threads<'_, T> {
    type T = T;

    fn client(&self) -> &AsyncClient<T> {
        self.0.as_async()
    }

    async fn run<'a, P: JobPlan>(
        &'a self,
        plan: &'a mut P,
        jobs: NonZeroUsize,
        run: &'a RunJob<'a, P>,
    ) {
        run_on_threads(plan, jobs, |job| {
            self.0
                .wait(async { Ok(run(job).await) })
                .unwrap_or_else(P::not_run)
        });
    }
}

/// Runs `plan`'s jobs over `jobs`, the archives going where `archives`
/// says.
pub(crate) async fn run_plan_into(
    jobs: &impl Jobs,
    plan: &mut ProviderPlan,
    count: NonZeroUsize,
    archives: Archives<'_>,
) {
    let client = jobs.client();
    let run = |job| -> JobFuture<'_> { Box::pin(On(client).run_job_into(job, archives)) };
    jobs.run(plan, count, &run).await;
}

/// Runs a plan's jobs with `run` as concurrent futures of this one, at
/// most `jobs` at once, until it is finished.
async fn run_concurrently<'a, P: JobPlan>(plan: &mut P, jobs: NonZeroUsize, run: &RunJob<'a, P>) {
    let mut running: Vec<(P::Id, JobFuture<'a, P>)> = Vec::new();
    loop {
        while running.len() < jobs.get() {
            let Some((id, job)) = plan.next_job() else {
                break;
            };
            running.push((id, run(job)));
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

impl<T: Transport> On<'_, T> {
    /// Makes one request of a plan (the registry calls with the client's
    /// discovery and credentials, the downloads without a token, a
    /// filesystem mirror's packages hashed from disk), an archive going
    /// where `archives` says.
    pub(crate) async fn run_job_into(
        self,
        job: Job,
        archives: Archives<'_>,
    ) -> Result<JobOutput, Error> {
        let job = match ArchiveJob::of(job) {
            Ok(archive) => return self.archive_into(archive, archives).await,
            Err(job) => job,
        };
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

impl<T: Transport> On<'_, T> {
    /// An archive downloaded into the sink `archives` gives: hashed, or
    /// staged in a mirror folder.
    async fn archive_into(
        self,
        job: ArchiveJob,
        archives: Archives<'_>,
    ) -> Result<JobOutput, Error> {
        match archives {
            Archives::Hashed => self.fetch_archive(job.at, ArchiveSink::new()).await,
            Archives::Staged(folder) => {
                let sink = job.stage_in(folder)?;
                self.fetch_archive(job.at, sink).await
            }
        }
        .map(JobOutput::Archive)
    }

    /// An archive from where the plan found it, into `sink`.
    pub(crate) async fn fetch_archive<S>(self, at: ArchiveAt, sink: S) -> Result<S::Output, Error>
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

/// A job that downloads a package archive ([`Job::Archive`] from a URL,
/// [`Job::OciBlob`] from an OCI layer): where its bytes are and what they
/// are the package of.
pub(crate) struct ArchiveJob {
    pub(crate) at: ArchiveAt,
    pub(crate) source: ProviderSource,
    pub(crate) version: Version,
    pub(crate) platform: Platform,
}

impl ArchiveJob {
    /// The archive `job` downloads, or `job` itself when it downloads none.
    #[expect(
        clippy::result_large_err,
        reason = "the job given back is the caller's to run, moved as it came"
    )]
    pub(crate) fn of(job: Job) -> Result<ArchiveJob, Job> {
        let (at, source, version, platform) = match job {
            Job::Archive {
                url,
                about,
                source,
                version,
                platform,
                ..
            } => (ArchiveAt::Url { url, about }, source, version, platform),
            Job::OciBlob {
                address,
                layer,
                source,
                version,
                platform,
            } => (ArchiveAt::Oci { address, layer }, source, version, platform),
            other => return Err(other),
        };
        Ok(ArchiveJob {
            at,
            source,
            version,
            platform,
        })
    }

    /// The staging file of its archive in the mirror folder `folder`.
    fn stage_in(&self, folder: &MirrorFolder) -> Result<StagedArchive, Error> {
        let (source, version, platform) = (&self.source, &self.version, &self.platform);
        folder
            .stage(source, version, platform)
            .map_err(|e| Error::local_file(&folder.staging_path(source, version, platform), e))
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

/// Runs a plan's jobs with `run` on `jobs` threads of this call until it
/// is finished.
fn run_on_threads<P: JobPlan>(
    plan: &mut P,
    jobs: NonZeroUsize,
    run: impl Fn(P::Job) -> P::Output + Sync,
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
