//! `terraform providers mirror` as a library call (docs/behaviour.md,
//! MIRROR-9 to MIRROR-13): the providers a configuration requires, each at
//! the version its lock file holds (or the newest its constraints allow),
//! downloaded from its registry and verified as a lock run verifies them
//! (the core's `LockPlan`), written into a mirror folder under staging
//! names, then given their final names and indexed only when every package
//! passed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tfdisco_config::MirrorFolder;
use tfdisco_core::{Dialect, Platform, ProviderSource, Version};
use tfdisco_provider::lock_plan::{LockPlan, ProviderLock};
use tfdisco_provider::{SignatureCheck, Trust};

use crate::lock::{Archives, Inputs, platforms_or_current};
use crate::{AsyncClient, BlockingClient, DEFAULT_LOCK_CONCURRENCY, LockError, Transport};

/// What to mirror, for which platforms.
///
/// ```
/// use tfdisco_core::Platform;
/// use tfdisco_transport::MirrorOptions;
///
/// let options = MirrorOptions::new()
///     .platform(Platform::parse("linux_amd64")?)
///     .lock_file(false);
/// assert!(!options.uses_lock_file());
/// # Ok::<(), tfdisco_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MirrorOptions {
    platforms: Vec<Platform>,
    concurrency: usize,
    lock_file: bool,
}

impl Default for MirrorOptions {
    fn default() -> Self {
        MirrorOptions::new()
    }
}

impl MirrorOptions {
    /// Every provider the configuration requires, at its locked version,
    /// for the platform this program runs on, 8 jobs at once.
    pub fn new() -> MirrorOptions {
        MirrorOptions {
            platforms: Vec::new(),
            concurrency: DEFAULT_LOCK_CONCURRENCY,
            lock_file: true,
        }
    }

    /// Adds a platform (`-platform=OS_ARCH`); with none, the current one.
    pub fn platform(mut self, platform: Platform) -> MirrorOptions {
        self.platforms.push(platform);
        self
    }

    /// Adds platforms.
    pub fn platforms_from(
        mut self,
        platforms: impl IntoIterator<Item = Platform>,
    ) -> MirrorOptions {
        self.platforms.extend(platforms);
        self
    }

    /// At most `jobs` requests at once (at least 1).
    pub fn concurrency(mut self, jobs: usize) -> MirrorOptions {
        self.concurrency = jobs.max(1);
        self
    }

    /// Whether the lock file decides the versions (`-lock-file=false`
    /// ignores it; the default reads it, as both CLIs do). OpenTofu has no
    /// such flag: it always reads it.
    pub fn lock_file(mut self, read: bool) -> MirrorOptions {
        self.lock_file = read;
        self
    }

    /// The platforms given.
    pub fn platforms(&self) -> &[Platform] {
        &self.platforms
    }

    /// The concurrency.
    pub fn jobs(&self) -> usize {
        self.concurrency
    }

    /// Whether the lock file is read.
    pub fn uses_lock_file(&self) -> bool {
        self.lock_file
    }
}

/// What a mirror run did.
#[derive(Clone, Debug)]
pub struct MirrorReport {
    /// The mirror folder.
    pub folder: PathBuf,
    /// The platforms mirrored.
    pub platforms: Vec<Platform>,
    /// Each provider mirrored, in address order.
    pub providers: Vec<MirroredProvider>,
    /// Every `index.json` and `<version>.json` written.
    pub indexes: Vec<PathBuf>,
    /// Archives of the folder left out of the indexes, and why.
    pub skipped: Vec<(PathBuf, String)>,
    /// What the folder's scan said about paths that are no package.
    pub warnings: Vec<String>,
}

/// One provider of a [`MirrorReport`].
#[derive(Clone, Debug)]
pub struct MirroredProvider {
    /// The provider.
    pub source: ProviderSource,
    /// The version mirrored.
    pub version: Version,
    /// Its constraints as the lock file writes them (empty: none).
    pub constraints: String,
    /// True when the lock file decided the version.
    pub locked: bool,
    /// How the key that signed its checksums is trusted.
    pub trust: Trust,
    /// That key's id (none when OpenTofu skipped the signature).
    pub key_id: Option<String>,
    /// The archives written, one per platform.
    pub archives: Vec<PathBuf>,
}

/// A mirror run between reading and writing.
struct MirrorRun {
    folder: MirrorFolder,
    platforms: Vec<Platform>,
    dialect: Dialect,
    locked: Vec<ProviderSource>,
}

impl MirrorRun {
    /// Reads the configuration in `dir` and (unless told not to) its lock
    /// file, and makes the plan (MIRROR-9).
    fn prepare(
        dir: &Path,
        folder: &Path,
        dialect: Dialect,
        options: &MirrorOptions,
    ) -> Result<(MirrorRun, LockPlan), LockError> {
        let Inputs {
            lock_file,
            mut requirements,
            ..
        } = Inputs::read(dir, dialect, &[])?;
        let use_lock = options.lock_file || dialect == Dialect::OpenTofu;
        let mut locked = Vec::new();
        if use_lock && lock_file.providers().len() > 0 {
            for requirement in &requirements {
                if requirement.locked.is_none() {
                    return Err(LockError::Usage(format!(
                        "Inconsistent dependency lock file: provider {}: required by this \
                         configuration but no version is selected; to update the locked \
                         dependency selections to match a changed configuration, run {} init \
                         -upgrade",
                        requirement.source,
                        match dialect {
                            Dialect::Terraform => "terraform",
                            Dialect::OpenTofu => "tofu",
                        }
                    )));
                }
                locked.push(requirement.source.clone());
            }
        } else {
            for requirement in &mut requirements {
                requirement.locked = None;
            }
        }
        let platforms = platforms_or_current(&options.platforms);
        let check = SignatureCheck::new(dialect, SystemTime::now());
        let plan = LockPlan::new(requirements, platforms.clone(), check);
        Ok((
            MirrorRun {
                folder: MirrorFolder::new(folder),
                platforms,
                dialect,
                locked,
            },
            plan,
        ))
    }

    /// Places every verified package under its final name and writes the
    /// indexes (MIRROR-11, MIRROR-12); after a failure, removes what was
    /// staged and changes nothing.
    fn apply(self, plan: LockPlan) -> Result<MirrorReport, LockError> {
        let locks = match plan.finish() {
            Ok(locks) => locks,
            Err(failures) => {
                self.folder.discard_staged();
                return Err(LockError::Failed(failures));
            }
        };
        let mut computed = HashMap::new();
        let mut providers = Vec::with_capacity(locks.len());
        for lock in locks {
            providers.push(self.place(lock, &mut computed)?);
        }
        let indexes = self
            .folder
            .write_indexes(self.dialect, &computed)
            .map_err(|error| LockError::Folder {
                path: self.folder.root().to_owned(),
                error: error.into(),
            })?;
        Ok(MirrorReport {
            folder: self.folder.root().to_owned(),
            platforms: self.platforms.clone(),
            providers,
            indexes: indexes.written,
            skipped: indexes.skipped,
            warnings: indexes.warnings,
        })
    }

    /// One provider's packages under their final names, with the hashes
    /// its `<version>.json` lists for them: Terraform's `h1:` of the archive
    /// (`dirhash.HashZip`); OpenTofu's `zh:` and the registry's own hashes
    /// of the platform (MIRROR-12).
    fn place(
        &self,
        lock: ProviderLock,
        computed: &mut HashMap<PathBuf, Vec<String>>,
    ) -> Result<MirroredProvider, LockError> {
        let mut archives = Vec::with_capacity(lock.packages.len());
        for package in &lock.packages {
            let placed = self
                .folder
                .place(&lock.source, &lock.version, &package.platform)
                .map_err(|error| LockError::Folder {
                    path: self
                        .folder
                        .package_path(&lock.source, &lock.version, &package.platform),
                    error: error.into(),
                })?;
            let hashes = match self.dialect {
                Dialect::Terraform => vec![package.archive.h1_zip()],
                Dialect::OpenTofu => {
                    let mut hashes = vec![package.archive.zh()];
                    hashes.extend(package.reported.iter().cloned());
                    hashes.sort();
                    hashes.dedup();
                    hashes
                }
            };
            computed.insert(placed.clone(), hashes);
            archives.push(placed);
        }
        Ok(MirroredProvider {
            locked: self.locked.contains(&lock.source),
            source: lock.source,
            version: lock.version,
            constraints: lock.constraints,
            trust: lock.trust,
            key_id: lock.key_id,
            archives,
        })
    }
}

impl<T: Transport> AsyncClient<T> {
    /// `terraform providers mirror FOLDER` for the configuration in `dir`:
    /// each provider it requires, at the version its lock file holds (or
    /// the newest its constraints allow), for every platform, downloaded
    /// from its registry and verified as [`AsyncClient::lock`] verifies;
    /// written into `folder` as `HOST/NAMESPACE/TYPE/terraform-provider-
    /// TYPE_VERSION_OS_ARCH.zip` with each provider's `index.json` and
    /// `<version>.json`, byte for byte as the dialect's CLI writes them.
    /// Nothing gets its final name until every package passed; on a
    /// failure the folder is left as it was.
    pub async fn mirror(
        &self,
        dir: impl AsRef<Path>,
        folder: impl AsRef<Path>,
        options: &MirrorOptions,
    ) -> Result<MirrorReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = MirrorRun::prepare(dir.as_ref(), folder.as_ref(), dialect, options)?;
        self.run_plan_into(&mut plan, options.jobs(), Archives::Staged(&run.folder))
            .await;
        run.apply(plan)
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::mirror`] for blocking code: the jobs run on
    /// [`MirrorOptions::concurrency`] threads of this call.
    ///
    /// ```no_run
    /// use tfdisco_core::Platform;
    /// use tfdisco_transport::{BlockingClient, MirrorOptions, Transport};
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
    pub fn mirror(
        &self,
        dir: impl AsRef<Path>,
        folder: impl AsRef<Path>,
        options: &MirrorOptions,
    ) -> Result<MirrorReport, LockError> {
        let dialect = self.cache().config().dialect();
        let (run, mut plan) = MirrorRun::prepare(dir.as_ref(), folder.as_ref(), dialect, options)?;
        self.run_plan_into(&mut plan, options.jobs(), Archives::Staged(&run.folder));
        run.apply(plan)
    }
}
