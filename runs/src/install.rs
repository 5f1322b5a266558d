//! `terraform init`'s provider installation as a library call
//! (docs/behaviour.md, INSTALL): a configuration's required providers, its
//! lock file and the installation methods, the provider crate's install
//! plan run over a client, each package unpacked as it downloads into a
//! staging folder (`tfdisco_config::ProvidersFolder`), placed in
//! `.terraform/providers` (or the plugin cache, linked) once every package
//! is verified, and the lock file replaced atomically when it changes.

mod installer;
mod options;
mod report;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tfdisco_config::{
    DialectChoice, FilesystemMirror, LockFile, ProvidersFolder, oci_repository_address,
};
use tfdisco_core::{Platform, ProviderSource};
use tfdisco_provider::plan::{
    CacheRules, InstallRules, Installed, Origin, OriginError, ProviderLock, ProviderPlan,
    readonly_refusal, unrequired,
};
use tfdisco_provider::{LocalPackages, SignatureCheck};

use crate::inputs::{Inputs, dialect_choice, record, write_if_changed};
use crate::plan_jobs::{JobFuture, Jobs, Notes};
use crate::{GetOptions, On, RunError};

pub(crate) use installer::Installer;
pub use options::{Cancel, InstallEvent, InstallEvents, InstallOptions};
pub use report::{InstallReport, InstalledProvider, install_word};

/// An install run between reading and writing.
pub(crate) struct InstallRun {
    path: PathBuf,
    lock_file: LockFile,
    before: Vec<u8>,
    platform: Platform,
    readonly: bool,
    /// The jobs on `.terraform/providers` and the plugin cache.
    installer: Installer,
    /// The installation methods each provider may come from, in priority
    /// order, by name, for the report.
    from: HashMap<ProviderSource, Vec<String>>,
    /// Providers the configuration requires.
    required: Vec<ProviderSource>,
    /// What the report warns about.
    warnings: Vec<String>,
    /// The dialect followed, and what chose it, for the report.
    dialect: DialectChoice,
}

impl std::fmt::Debug for InstallRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstallRun")
            .field("path", &self.path)
            .field("platform", &self.platform)
            .field("readonly", &self.readonly)
            .field("folder", &self.installer.folder)
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
        now: SystemTime,
    ) -> Result<(InstallRun, ProviderPlan), RunError> {
        if options.upgrade && options.readonly {
            return Err(RunError::Usage(
                "The -upgrade flag conflicts with -lockfile=readonly.".to_owned(),
            ));
        }
        let Inputs {
            path,
            lock_file,
            mut requirements,
        } = Inputs::read(dir, dialect, &options.providers)?;
        let required = requirements.iter().map(|r| r.source.clone()).collect();
        let mut folders: HashMap<PathBuf, LocalPackages> = HashMap::new();
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
        let folder = ProvidersFolder::new(dir, cache).map_err(RunError::in_folder(dir))?;
        let rules = InstallRules {
            cache: folder.cache().map(|_| CacheRules {
                may_break_lock_file: plugin_cache.may_break_dependency_lock_file(),
            }),
        };
        let platform = Platform::current();
        let check = SignatureCheck::new(dialect, now);
        let plan = ProviderPlan::install(with_origins, platform.clone(), check, rules);
        let before = lock_file.to_bytes();
        Ok((
            InstallRun {
                path,
                lock_file,
                before,
                platform,
                readonly: options.readonly,
                installer: Installer::new(folder, options.events.clone(), options.cancel.clone()),
                from,
                required,
                warnings,
                dialect: dialect_choice(options.dialect_choice.as_ref(), dialect),
            },
            plan,
        ))
    }

    /// Records what the plan gave in the lock file (INSTALL-5); refuses a
    /// change under `--lockfile readonly`; places every package; replaces
    /// the lock file when its bytes change. A failed plan changes nothing.
    pub(crate) fn apply(mut self, plan: ProviderPlan) -> Result<InstallReport, RunError> {
        if self.installer.cancel.is_cancelled() {
            return Err(RunError::Cancelled);
        }
        let locks = plan.finish().map_err(RunError::Failed)?;
        let mut providers = Vec::with_capacity(locks.len());
        for lock in &locks {
            providers.push(self.record(lock)?);
        }
        let locked = self.lock_file.providers().map(|locked| locked.source());
        for source in &unrequired(locked, &self.required) {
            self.lock_file.remove(source);
        }
        let changed = self.lock_file.to_bytes() != self.before;
        if let Some(refusal) = readonly_refusal(changed, self.readonly, &self.path) {
            return Err(RunError::ReadOnly(refusal));
        }
        for lock in &locks {
            self.place(lock)?;
        }
        write_if_changed(&self.lock_file, &self.path, changed)?;
        Ok(InstallReport {
            path: self.path,
            changed,
            platform: self.platform,
            providers,
            warnings: self.warnings,
            dialect: self.dialect,
            modules: Vec::new(),
        })
    }

    fn record(&mut self, lock: &ProviderLock) -> Result<InstalledProvider, RunError> {
        let hashes_added = record(&mut self.lock_file, lock)?;
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
    fn place(&self, lock: &ProviderLock) -> Result<(), RunError> {
        let (source, version, platform) = (&lock.source, &lock.version, &self.platform);
        let (installer, folder) = (&self.installer, &self.installer.folder);
        let target = folder.target_path(source, version, platform);
        match (
            lock.installed,
            installer.local_dir(source, version, platform),
        ) {
            (Some(Installed::Reused) | None, _) => Ok(()),
            (_, Some(dir)) => folder
                .link_to_folder(source, version, platform, &dir)
                .map_err(RunError::in_folder(&target)),
            _ if folder.cache().is_some() => folder
                .link_to_cache(source, version, platform)
                .map_err(RunError::in_folder(&target)),
            _ => {
                let staged = installer
                    .take_staged(source, version, platform)
                    .map_err(|e| RunError::in_folder(&target)(e.to_string()))?;
                match staged {
                    Some(staged) => folder
                        .place(&staged)
                        .map_err(RunError::in_folder(staged.final_path())),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The origin of a provider's packages and its methods' names, as the
/// provider crate chooses them (INSTALL-13), with each filesystem mirror
/// scanned once per run and each OCI template's address for `source`.
fn origin_for(
    source: &ProviderSource,
    options: &InstallOptions,
    dialect: tfdisco_core::Dialect,
    folders: &mut HashMap<PathBuf, LocalPackages>,
) -> Result<(Origin, Vec<String>), RunError> {
    let packages = |path: &Path| -> Result<LocalPackages, RunError> {
        if let Some(packages) = folders.get(path) {
            return Ok(packages.clone());
        }
        let scan = FilesystemMirror::scan(path, dialect).map_err(RunError::in_folder(path))?;
        folders.insert(path.to_owned(), scan.packages().clone());
        Ok(scan.packages().clone())
    };
    let address = |template: &str| {
        oci_repository_address(template, source).map_err(|e| {
            RunError::Usage(format!(
                "selecting OCI repository address for {source}: {e}"
            ))
        })
    };
    options
        .installation
        .origin_for(source, packages, address)
        .map_err(|error| match error {
            OriginError::NoMethod(message) => RunError::Usage(message),
            OriginError::Caller(error) => error,
        })
}

/// [`Runs::install`](crate::Runs::install) and
/// [`BlockingRuns::install`](crate::BlockingRuns::install).
pub(crate) async fn install(
    jobs: &impl Jobs,
    dir: &Path,
    options: &InstallOptions,
    now: SystemTime,
) -> Result<InstallReport, RunError> {
    // `init`: the modules first, then the providers they require.
    let mut get = GetOptions::new()
        .upgrade(options.upgrade)
        .jobs(options.jobs);
    get.module_cache.clone_from(&options.module_cache);
    let modules = crate::modules::get_for_init(jobs, dir, &get).await?;
    let client = jobs.client();
    let dialect = client.cache().config().dialect();
    let (run, mut plan) = InstallRun::prepare(dir, dialect, options, now)?;
    let installer = &run.installer;
    let each = |job| -> JobFuture<'_> { Box::pin(On(client).install_job(installer, job)) };
    jobs.run(&mut plan, options.jobs, &each, &Notes::new())
        .await;
    let mut report = run.apply(plan)?;
    report.modules = modules;
    Ok(report)
}
