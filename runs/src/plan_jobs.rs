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
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

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

    /// What a running job may tell the plan before it ends.
    type Note: Send;

    /// A running job's note (given before that job's result).
    fn noted(&mut self, note: Self::Note);
}

/// What a run's jobs tell their plan while they run (a module package's
/// calls, read from its first files while the rest streams in), held
/// until the driver hands them to the plan, between jobs and before any
/// job's result. A note wakes the driver: the future polling the jobs,
/// or the threads waiting for a job.
pub(crate) struct Notes<N> {
    queue: Mutex<Vec<N>>,
    /// Counts notes and jobs' ends: what an idle thread waits to change.
    rung: Mutex<u64>,
    bell: Condvar,
    /// The task polling the jobs, when it waits.
    waker: Mutex<Option<Waker>>,
}

impl<N> Notes<N> {
    pub(crate) fn new() -> Notes<N> {
        Notes {
            queue: Mutex::new(Vec::new()),
            rung: Mutex::new(0),
            bell: Condvar::new(),
            waker: Mutex::new(None),
        }
    }

    /// Tells the plan `note`, as soon as the driver can.
    pub(crate) fn note(&self, note: N) {
        guard(&self.queue).push(note);
        self.ring();
        if let Some(waker) = guard(&self.waker).take() {
            waker.wake();
        }
    }

    /// Every note not yet handed to the plan, in the order told.
    fn take(&self) -> Vec<N> {
        std::mem::take(&mut *guard(&self.queue))
    }

    fn has_any(&self) -> bool {
        !guard(&self.queue).is_empty()
    }

    /// Something changed (a note, a job's end): idle threads look again.
    fn ring(&self) {
        *guard(&self.rung) += 1;
        self.bell.notify_all();
    }

    /// How many times the bell rang so far.
    fn rung(&self) -> u64 {
        *guard(&self.rung)
    }

    /// Waits until the bell rang after `seen`.
    fn wait_past(&self, seen: u64) {
        let mut rung = guard(&self.rung);
        while *rung == seen {
            rung = self.bell.wait(rung).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A mutex's guard, whether or not a thread panicked holding it.
fn guard<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Hands every note held to `plan`.
fn hand_notes<P: JobPlan>(plan: &mut P, notes: &Notes<P::Note>) {
    for note in notes.take() {
        plan.noted(note);
    }
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

    type Note = std::convert::Infallible;

    fn noted(&mut self, note: std::convert::Infallible) {
        match note {}
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
    /// finished; what they note on `notes` is handed to the plan as they
    /// run.
    fn run<'a, P: JobPlan>(
        &'a self,
        plan: &'a mut P,
        jobs: NonZeroUsize,
        run: &'a RunJob<'a, P>,
        notes: &'a Notes<P::Note>,
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
        notes: &'a Notes<P::Note>,
    ) {
        run_concurrently(plan, jobs, run, notes).await;
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
        notes: &'a Notes<P::Note>,
    ) {
        run_on_threads(plan, jobs, notes, |job| {
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
    jobs.run(plan, count, &run, &Notes::new()).await;
}

/// Runs a plan's jobs with `run` as concurrent futures of this one, at
/// most `jobs` at once, until it is finished, handing it their notes.
async fn run_concurrently<'a, P: JobPlan>(
    plan: &mut P,
    jobs: NonZeroUsize,
    run: &RunJob<'a, P>,
    notes: &Notes<P::Note>,
) {
    let mut running: Vec<(P::Id, JobFuture<'a, P>)> = Vec::new();
    loop {
        hand_notes(plan, notes);
        while running.len() < jobs.get() {
            let Some((id, job)) = plan.next_job() else {
                break;
            };
            running.push((id, run(job)));
        }
        if running.is_empty() {
            break;
        }
        let done = std::future::poll_fn(|cx| {
            *guard(&notes.waker) = Some(cx.waker().clone());
            let done = running.iter_mut().enumerate().find_map(|(i, (_, job))| {
                match job.as_mut().poll(cx) {
                    Poll::Ready(result) => Some((i, result)),
                    Poll::Pending => None,
                }
            });
            match done {
                Some((i, result)) => Poll::Ready(Some((running.swap_remove(i).0, result))),
                // A note may make a job ready.
                None if notes.has_any() => Poll::Ready(None),
                None => Poll::Pending,
            }
        })
        .await;
        if let Some((id, result)) = done {
            hand_notes(plan, notes);
            plan.complete(id, result);
        }
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
/// is finished, handing it their notes. An idle thread waits for the bell
/// of `notes`, which rings at every note and every job's end.
fn run_on_threads<P: JobPlan>(
    plan: &mut P,
    jobs: NonZeroUsize,
    notes: &Notes<P::Note>,
    run: impl Fn(P::Job) -> P::Output + Sync,
) {
    let plan = Mutex::new(plan);
    std::thread::scope(|scope| {
        for _ in 0..jobs.get() {
            scope.spawn(|| {
                loop {
                    let (id, job) = loop {
                        let seen = notes.rung();
                        {
                            let mut plan = guard(&plan);
                            hand_notes(&mut **plan, notes);
                            if let Some(next) = plan.next_job() {
                                break next;
                            }
                            if plan.is_finished() {
                                drop(plan);
                                notes.ring();
                                return;
                            }
                        }
                        notes.wait_past(seen);
                    };
                    let result = run(job);
                    {
                        let mut plan = guard(&plan);
                        hand_notes(&mut **plan, notes);
                        plan.complete(id, result);
                    }
                    notes.ring();
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Arc;
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A plan of one job, `first`, that adds `second` when told `go`.
    #[derive(Default)]
    struct Toy {
        ready: VecDeque<(u32, &'static str)>,
        running: usize,
        noted: Vec<&'static str>,
        done: Vec<&'static str>,
    }

    impl JobPlan for Toy {
        type Id = u32;
        type Job = &'static str;
        type Output = &'static str;
        type Note = &'static str;

        fn next_job(&mut self) -> Option<(u32, &'static str)> {
            let next = self.ready.pop_front()?;
            self.running += 1;
            Some(next)
        }

        fn is_finished(&self) -> bool {
            self.ready.is_empty() && self.running == 0
        }

        fn complete(&mut self, _: u32, output: &'static str) {
            self.running -= 1;
            self.done.push(output);
        }

        fn not_run(_: Error) -> &'static str {
            "not run"
        }

        fn noted(&mut self, note: &'static str) {
            self.noted.push(note);
            if note == "go" {
                self.ready.push_back((2, "second"));
            }
        }
    }

    fn toy() -> Toy {
        let mut plan = Toy::default();
        plan.ready.push_back((1, "first"));
        plan
    }

    /// Whether `second` ran, and the task waiting for it.
    #[derive(Default)]
    struct Flag {
        state: Mutex<(Option<bool>, Option<Waker>)>,
        changed: Condvar,
    }

    impl Flag {
        /// Sets it (`true`: `second` ran; `false`: the test gave up).
        fn set(&self, ran: bool) {
            let mut state = guard(&self.state);
            state.0.get_or_insert(ran);
            if let Some(waker) = state.1.take() {
                waker.wake();
            }
            self.changed.notify_all();
        }

        fn wait(&self) -> bool {
            let mut state = guard(&self.state);
            while state.0.is_none() {
                state = self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            state.0 == Some(true)
        }

        fn poll(&self, cx: &mut std::task::Context<'_>) -> Poll<bool> {
            let mut state = guard(&self.state);
            match state.0 {
                Some(ran) => Poll::Ready(ran),
                None => {
                    state.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    /// Runs `body` with a flag that a watchdog gives up on after 10 s, so
    /// that a runner that never hands the note over fails the test
    /// instead of hanging it.
    fn with_watchdog(body: impl FnOnce(&Arc<Flag>)) {
        let flag = Arc::new(Flag::default());
        let (stop, stopped) = mpsc::channel::<()>();
        let dog = {
            let flag = Arc::clone(&flag);
            std::thread::spawn(move || {
                if stopped.recv_timeout(Duration::from_secs(10)).is_err() {
                    flag.set(false);
                }
            })
        };
        body(&flag);
        drop(stop);
        dog.join().expect("the watchdog");
    }

    /// On threads: `first` notes `go` and then waits for `second`, which
    /// the plan adds only on that note; both run at once.
    #[test]
    fn a_note_reaches_the_plan_while_its_job_runs_on_threads() {
        with_watchdog(|flag| {
            let mut plan = toy();
            let notes = Notes::new();
            let two = NonZeroUsize::new(2).expect("two");
            run_on_threads(&mut plan, two, &notes, |job| match job {
                "first" => {
                    notes.note("go");
                    if flag.wait() { "first" } else { "first, alone" }
                }
                _ => {
                    flag.set(true);
                    "second"
                }
            });
            assert_eq!(plan.noted, ["go"]);
            plan.done.sort_unstable();
            assert_eq!(plan.done, ["first", "second"], "both ran, first not alone");
        });
    }

    /// As concurrent futures of one task: the same.
    #[test]
    fn a_note_reaches_the_plan_while_its_job_runs_as_a_future() {
        with_watchdog(|flag| {
            let mut plan = toy();
            let notes = Notes::new();
            let run = |job: &'static str| -> JobFuture<'_, Toy> {
                let (flag, notes) = (Arc::clone(flag), &notes);
                Box::pin(async move {
                    if job == "first" {
                        notes.note("go");
                        let ran = std::future::poll_fn(|cx| flag.poll(cx)).await;
                        if ran { "first" } else { "first, alone" }
                    } else {
                        flag.set(true);
                        "second"
                    }
                })
            };
            let two = NonZeroUsize::new(2).expect("two");
            futures_lite::future::block_on(run_concurrently(&mut plan, two, &run, &notes));
            assert_eq!(plan.noted, ["go"]);
            plan.done.sort_unstable();
            assert_eq!(plan.done, ["first", "second"], "both ran, first not alone");
        });
    }
}
