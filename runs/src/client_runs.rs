//! The runs as calls of a client: [`Runs`] on every `AsyncClient`
//! (tokio's, async-std's), [`BlockingRuns`] on every `BlockingClient`
//! (libcurl's, or any client for blocking code). Bring the trait into
//! scope and call the run on the client:
//!
//! ```no_run
//! use tfdisco_runs::{LockOptions, Runs};
//! use tfdisco_transport::{AsyncClient, Transport};
//!
//! async fn lock<T: Transport>(client: &AsyncClient<T>) -> Result<(), tfdisco_runs::RunError> {
//!     let report = client.lock("infra/", &LockOptions::new()).await?;
//!     println!("{} providers locked", report.providers.len());
//!     Ok(())
//! }
//! ```

use std::future::Future;
use std::num::NonZeroUsize;
use std::path::Path;
use std::time::SystemTime;

use tfdisco_core::{Error, Platform, Version};
use tfdisco_oci::RepositoryAddress;
use tfdisco_oci::module::OciModuleSource;
use tfdisco_provider::oci_mirror::OciMirrorTemplate;
use tfdisco_provider::plan::ProviderPlan;
use tfdisco_transport::{AsyncClient, BlobSource, BlockingClient, Transport};

use futures_lite::future::block_on;

use crate::plan_jobs::{Archives, Futures, Threads, run_plan_into};
use crate::{
    DownloadedModule, GetOptions, GetReport, InstallOptions, InstallReport, LockOptions,
    LockReport, MirrorOptions, MirrorReport, OciMirrorReport, On, PushedRelease, ResolvedModule,
    RunError,
};
use crate::{install, lock, mirror, modules};

/// The runs of an async client: each reads and writes the local files it
/// names, makes its requests with the client's rules (discovery,
/// credentials, retries, limits) and runs its jobs as concurrent futures of
/// the call.
pub trait Runs {
    /// `terraform init`'s provider installation in `dir`: reads the
    /// configuration, its lock file and the installation methods; keeps
    /// what is installed and vouched for by the lock file; fetches,
    /// verifies and unpacks the rest (at most [`InstallOptions::jobs`]
    /// requests at once) into `.terraform/providers` (or the plugin cache,
    /// linked); then replaces the lock file atomically when it changes. On
    /// any failure nothing is placed and the lock file is as it was.
    fn install(
        &self,
        dir: impl AsRef<Path>,
        options: &InstallOptions,
    ) -> impl Future<Output = Result<InstallReport, RunError>> + Send;

    /// `terraform providers lock` in `dir`: reads the configuration and its
    /// lock file, selects and verifies each provider's version for every
    /// platform with this client's rules, then replaces the lock file
    /// atomically when it changes. Jobs run as concurrent futures of this
    /// call, at most [`LockOptions::jobs`] at once. On any failure the
    /// lock file is left as it was.
    fn lock(
        &self,
        dir: impl AsRef<Path>,
        options: &LockOptions,
    ) -> impl Future<Output = Result<LockReport, RunError>> + Send;

    /// `terraform providers mirror FOLDER` for the configuration in `dir`:
    /// each provider it requires, at the version its lock file holds (or
    /// the newest its constraints allow), for every platform, downloaded
    /// from its registry and verified as [`Runs::lock`] verifies;
    /// written into `folder` as `HOST/NAMESPACE/TYPE/terraform-provider-
    /// TYPE_VERSION_OS_ARCH.zip` with each provider's `index.json` and
    /// `<version>.json`, byte for byte as the dialect's CLI writes them.
    /// Nothing gets its final name until every package passed; on a
    /// failure the folder is left as it was.
    fn mirror(
        &self,
        dir: impl AsRef<Path>,
        folder: impl AsRef<Path>,
        options: &MirrorOptions,
    ) -> impl Future<Output = Result<MirrorReport, RunError>> + Send;

    /// `terraform providers mirror` into OCI repositories: each provider
    /// the configuration in `dir` requires, at the version its lock file
    /// holds (or the newest its constraints allow), for every platform of
    /// `options`, downloaded from its registry and verified as
    /// [`Runs::mirror`] verifies; then, once every package passed,
    /// pushed to the repository `template` names for it, in OpenTofu's
    /// `oci_mirror` layout ([`Runs::oci_push_provider`]), so that
    /// [`LockOptions::mirrors`](crate::LockOptions::mirrors) with the same
    /// template locks what the registry would lock. Nothing is pushed when
    /// a package fails; the packages wait in a private temporary folder,
    /// removed when the call returns.
    fn mirror_to_oci(
        &self,
        dir: impl AsRef<Path>,
        template: &OciMirrorTemplate,
        options: &MirrorOptions,
    ) -> impl Future<Output = Result<OciMirrorReport, RunError>> + Send;

    /// `terraform get` in `dir`: every module the configuration calls,
    /// recursively (registry modules at the newest version their
    /// constraint allows, https archives, Git repositories through the
    /// system `git`, OpenTofu's `oci://` packages, local paths), installed
    /// into `.terraform/modules` with its `modules.json`, byte for byte as
    /// the dialect's CLI writes them. What the manifest lists is kept
    /// unless [`GetOptions::upgrade`]. Everything is fetched into a private
    /// staging folder first; on any failure nothing is placed and the
    /// manifest is as it was ([`RunError::Modules`]).
    fn get(
        &self,
        dir: impl AsRef<Path>,
        options: &GetOptions,
    ) -> impl Future<Output = Result<GetReport, RunError>> + Send;

    /// The manifest `source` selects (its tag, `latest` by default, or its
    /// digest), with the client's credentials for the repository if the
    /// registry asks: checked as OpenTofu checks it (an OCI image manifest
    /// of artifact type `application/vnd.opentofu.modulepkg` with one
    /// `archive/zip` layer), and its digest, which
    /// [`ResolvedModule::pinned`] pins the source to. Nothing is written.
    ///
    /// Errors are [`Error::Registry`](tfdisco_core::Error::Registry) of `RegistryCall::OciModule`
    /// (`tfdisco_core::RegistryCall`): a tag or digest the repository does not
    /// have is [`Error::NotFound`](tfdisco_core::Error::NotFound) with OpenTofu's `resolving tag:
    /// REGISTRY/REPOSITORY:TAG: not found`; a manifest OpenTofu refuses is
    /// [`Error::InvalidResponse`](tfdisco_core::Error::InvalidResponse) with its message.
    fn oci_module_resolve(
        &self,
        source: &OciModuleSource,
    ) -> impl Future<Output = Result<ResolvedModule, Error>> + Send;

    /// The module package `source` selects, downloaded into the folder
    /// `into` ([`Runs::oci_module_resolve`], then the layer): its
    /// bytes streamed through the size and digest check into the
    /// unpacker (which refuses what provider packages refuse: absolute
    /// names, `..`, links, duplicates), written to a staging folder beside
    /// `into`, which is renamed to `into` only once the blob was verified,
    /// the zip unpacked whole and the source's `//subdir` found in it.
    ///
    /// `into` must not exist, or be an empty folder (which is replaced);
    /// its missing parent folders are made. On any failure nothing is left
    /// behind: no staging folder, no parent made, `into` as it was. A blob
    /// that is not what its descriptor says is OpenTofu's `invalid blob
    /// returned from registry: …`; a zip the unpacker refuses, its
    /// `decompressing package into DIR: …`; a folder that cannot be
    /// written, [`Error::LocalFile`](tfdisco_core::Error::LocalFile).
    fn oci_module_download(
        &self,
        source: &OciModuleSource,
        into: &Path,
    ) -> impl Future<Output = Result<DownloadedModule, Error>> + Send;

    /// Pushes a provider release, `version` for each platform's zip (in
    /// memory or a `BlobSource::file`, read a chunk at a time), to the
    /// repository at `address`, in OpenTofu's layout (OCI-8). With
    /// `mount_from`, blobs the repository lacks are first asked to be
    /// mounted from that repository of the same registry (a release
    /// promoted from one repository to another sends no blob).
    fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, BlobSource)>,
        mount_from: Option<&RepositoryAddress>,
    ) -> impl Future<Output = Result<PushedRelease, Error>> + Send;

    /// Runs a plan's jobs, at most `jobs` at once, until it is finished.
    fn run_plan(
        &self,
        plan: &mut ProviderPlan,
        jobs: NonZeroUsize,
    ) -> impl Future<Output = ()> + Send;
}

impl<T: Transport> Runs for AsyncClient<T> {
    fn install(
        &self,
        dir: impl AsRef<Path>,
        options: &InstallOptions,
    ) -> impl Future<Output = Result<InstallReport, RunError>> + Send {
        let dir = dir.as_ref().to_owned();
        async move { install::install(&Futures(self), &dir, options, clock()).await }
    }

    fn lock(
        &self,
        dir: impl AsRef<Path>,
        options: &LockOptions,
    ) -> impl Future<Output = Result<LockReport, RunError>> + Send {
        let dir = dir.as_ref().to_owned();
        async move { lock::lock(&Futures(self), &dir, options, clock()).await }
    }

    fn mirror(
        &self,
        dir: impl AsRef<Path>,
        folder: impl AsRef<Path>,
        options: &MirrorOptions,
    ) -> impl Future<Output = Result<MirrorReport, RunError>> + Send {
        let dir = dir.as_ref().to_owned();
        let folder = folder.as_ref().to_owned();
        async move { mirror::mirror(&Futures(self), &dir, &folder, options, clock()).await }
    }

    fn mirror_to_oci(
        &self,
        dir: impl AsRef<Path>,
        template: &OciMirrorTemplate,
        options: &MirrorOptions,
    ) -> impl Future<Output = Result<OciMirrorReport, RunError>> + Send {
        let dir = dir.as_ref().to_owned();
        async move {
            let (pushes, plan) =
                mirror::stage_for_oci(&Futures(self), &dir, template, options, clock()).await?;
            pushes.push(On(self), plan).await
        }
    }

    fn get(
        &self,
        dir: impl AsRef<Path>,
        options: &GetOptions,
    ) -> impl Future<Output = Result<GetReport, RunError>> + Send {
        let dir = dir.as_ref().to_owned();
        async move { modules::get(&Futures(self), &dir, options).await }
    }

    async fn oci_module_resolve(&self, source: &OciModuleSource) -> Result<ResolvedModule, Error> {
        On(self).oci_module_resolve(source).await
    }

    async fn oci_module_download(
        &self,
        source: &OciModuleSource,
        into: &Path,
    ) -> Result<DownloadedModule, Error> {
        On(self).oci_module_download(source, into).await
    }

    async fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, BlobSource)>,
        mount_from: Option<&RepositoryAddress>,
    ) -> Result<PushedRelease, Error> {
        On(self)
            .oci_push_provider(address, version, zips, mount_from)
            .await
    }

    async fn run_plan(&self, plan: &mut ProviderPlan, jobs: NonZeroUsize) {
        run_plan_into(&Futures(self), plan, jobs, Archives::Hashed).await
    }
}

/// The runs of a blocking client: [`Runs`]' calls, each run to completion
/// on the calling thread, its jobs on as many threads of the call.
pub trait BlockingRuns {
    /// [`Runs::install`] for blocking code: the jobs run on
    /// [`InstallOptions::jobs`] threads of this call.
    fn install(
        &self,
        dir: impl AsRef<Path>,
        options: &InstallOptions,
    ) -> Result<InstallReport, RunError>;

    /// [`Runs::lock`] for blocking code: the jobs run on
    /// [`LockOptions::jobs`] threads of this call.
    ///
    /// ```no_run
    /// use tfdisco_core::Platform;
    /// use tfdisco_runs::{BlockingRuns, RunError, LockOptions};
    /// use tfdisco_transport::{BlockingClient, Transport};
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
    ///         Err(RunError::Failed(failures)) => {
    ///             for failure in &failures {
    ///                 eprintln!("{failure}"); // provider, version, platform, what failed
    ///             }
    ///         }
    ///         Err(other) => return Err(other.into()),
    ///     }
    ///     Ok(())
    /// }
    /// ```
    fn lock(&self, dir: impl AsRef<Path>, options: &LockOptions) -> Result<LockReport, RunError>;

    /// [`Runs::mirror`] for blocking code: the jobs run on
    /// [`MirrorOptions::jobs`] threads of this call.
    ///
    /// ```no_run
    /// use tfdisco_core::Platform;
    /// use tfdisco_runs::{BlockingRuns, MirrorOptions};
    /// use tfdisco_transport::{BlockingClient, Transport};
    ///
    /// fn mirror<T: Transport>(client: &BlockingClient<T>) -> Result<(), Box<dyn std::error::Error>> {
    ///     let options = MirrorOptions::new().platform(Platform::parse("linux_amd64")?);
    ///     let report = client.mirror("infra/", "/srv/mirror", &options)?;
    ///     for p in &report.providers {
    ///         println!("{} {}: {} archives", p.source, p.version, p.archives.len());
    ///     }
    ///     Ok(())
    /// }
    /// ```
    fn mirror(
        &self,
        dir: impl AsRef<Path>,
        folder: impl AsRef<Path>,
        options: &MirrorOptions,
    ) -> Result<MirrorReport, RunError>;

    /// [`Runs::mirror_to_oci`] for blocking code: the downloads run
    /// on [`MirrorOptions::jobs`] threads of this call.
    ///
    /// ```no_run
    /// use tfdisco_core::Platform;
    /// use tfdisco_runs::tfdisco_provider::oci_mirror::OciMirrorTemplate;
    /// use tfdisco_runs::{BlockingRuns, MirrorOptions};
    /// use tfdisco_transport::{BlockingClient, Transport};
    ///
    /// fn copy<T: Transport>(client: &BlockingClient<T>) -> Result<(), Box<dyn std::error::Error>> {
    ///     let template = OciMirrorTemplate::parse("ghcr.io/acme/providers/{namespace}/{type}")?;
    ///     let options = MirrorOptions::new().platform(Platform::parse("linux_amd64")?);
    ///     let report = client.mirror_to_oci("infra/", &template, &options)?;
    ///     for p in &report.providers {
    ///         println!("{}:{} {}", p.release.address, p.release.tag, p.release.index);
    ///     }
    ///     Ok(())
    /// }
    /// ```
    fn mirror_to_oci(
        &self,
        dir: impl AsRef<Path>,
        template: &OciMirrorTemplate,
        options: &MirrorOptions,
    ) -> Result<OciMirrorReport, RunError>;

    /// [`Runs::get`] for blocking code.
    ///
    /// ```no_run
    /// use tfdisco_runs::{BlockingRuns, GetOptions};
    /// use tfdisco_transport::{BlockingClient, Transport};
    ///
    /// fn get<T: Transport>(client: &BlockingClient<T>) -> Result<(), Box<dyn std::error::Error>> {
    ///     let report = client.get("infra/", &GetOptions::new())?;
    ///     for module in &report.modules {
    ///         println!("{} {} in {}", module.key, module.source, module.dir);
    ///     }
    ///     Ok(())
    /// }
    /// ```
    fn get(&self, dir: impl AsRef<Path>, options: &GetOptions) -> Result<GetReport, RunError>;

    /// [`Runs::oci_module_resolve`] for blocking code.
    fn oci_module_resolve(&self, source: &OciModuleSource) -> Result<ResolvedModule, Error>;

    /// [`Runs::oci_module_download`] for blocking code.
    ///
    /// ```no_run
    /// use std::path::Path;
    /// use tfdisco_runs::BlockingRuns;
    /// use tfdisco_transport::{BlockingClient, Transport};
    /// use tfdisco_transport::reexports::tfdisco_oci::OciModuleSource;
    ///
    /// fn fetch<T: Transport>(client: &BlockingClient<T>) -> Result<(), Box<dyn std::error::Error>> {
    ///     let source = OciModuleSource::parse("oci://ghcr.io/acme/vpc//subnet?tag=1.2.0")?;
    ///     let module = client.oci_module_download(&source, Path::new(".terraform/modules/vpc"))?;
    ///     println!("{} files, pinned as {}", module.files, module.resolved.pinned());
    ///     println!("the module is in {}", module.module_dir.display());
    ///     Ok(())
    /// }
    /// ```
    fn oci_module_download(
        &self,
        source: &OciModuleSource,
        into: &Path,
    ) -> Result<DownloadedModule, Error>;

    /// [`Runs::oci_push_provider`] for blocking code.
    fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, BlobSource)>,
        mount_from: Option<&RepositoryAddress>,
    ) -> Result<PushedRelease, Error>;

    /// [`Runs::run_plan`] for blocking code: the jobs on `jobs` threads of
    /// this call.
    fn run_plan(&self, plan: &mut ProviderPlan, jobs: NonZeroUsize);
}

impl<T: Transport> BlockingRuns for BlockingClient<T> {
    fn install(
        &self,
        dir: impl AsRef<Path>,
        options: &InstallOptions,
    ) -> Result<InstallReport, RunError> {
        block_on(install::install(
            &Threads(self),
            dir.as_ref(),
            options,
            clock(),
        ))
    }

    fn lock(&self, dir: impl AsRef<Path>, options: &LockOptions) -> Result<LockReport, RunError> {
        block_on(lock::lock(&Threads(self), dir.as_ref(), options, clock()))
    }

    fn mirror(
        &self,
        dir: impl AsRef<Path>,
        folder: impl AsRef<Path>,
        options: &MirrorOptions,
    ) -> Result<MirrorReport, RunError> {
        block_on(mirror::mirror(
            &Threads(self),
            dir.as_ref(),
            folder.as_ref(),
            options,
            clock(),
        ))
    }

    fn mirror_to_oci(
        &self,
        dir: impl AsRef<Path>,
        template: &OciMirrorTemplate,
        options: &MirrorOptions,
    ) -> Result<OciMirrorReport, RunError> {
        let jobs = Threads(self);
        let (pushes, plan) = block_on(mirror::stage_for_oci(
            &jobs,
            dir.as_ref(),
            template,
            options,
            clock(),
        ))?;
        // A transport that cannot block here failed every download already.
        self.wait(async { Ok(pushes.push(On(self.as_async()), plan).await) })
            .unwrap_or_else(|error| Err(RunError::Usage(error.to_string())))
    }

    fn get(&self, dir: impl AsRef<Path>, options: &GetOptions) -> Result<GetReport, RunError> {
        block_on(modules::get(&Threads(self), dir.as_ref(), options))
    }

    fn oci_module_resolve(&self, source: &OciModuleSource) -> Result<ResolvedModule, Error> {
        self.wait(On(self.as_async()).oci_module_resolve(source))
    }

    fn oci_module_download(
        &self,
        source: &OciModuleSource,
        into: &Path,
    ) -> Result<DownloadedModule, Error> {
        self.wait(On(self.as_async()).oci_module_download(source, into))
    }

    fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, BlobSource)>,
        mount_from: Option<&RepositoryAddress>,
    ) -> Result<PushedRelease, Error> {
        self.wait(On(self.as_async()).oci_push_provider(address, version, zips, mount_from))
    }

    fn run_plan(&self, plan: &mut ProviderPlan, jobs: NonZeroUsize) {
        block_on(run_plan_into(&Threads(self), plan, jobs, Archives::Hashed));
    }
}

/// The time the runs check signatures at (a signing key's expiry): the one
/// place a run reads the clock, passed to each run's plan as an input.
fn clock() -> SystemTime {
    SystemTime::now()
}
