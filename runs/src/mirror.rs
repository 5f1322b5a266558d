//! `terraform providers mirror` as a library call (docs/behaviour.md,
//! MIRROR-9 to MIRROR-13): the providers a configuration requires, each at
//! the version its lock file holds (or the newest its constraints allow),
//! downloaded from its registry and verified as a lock run verifies them
//! (the provider crate's `ProviderPlan`), written into a mirror folder under staging
//! names, then given their final names and indexed only when every package
//! passed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tfdisco_config::{DialectChoice, MirrorFolder};
use tfdisco_core::{Dialect, Platform, ProviderSource};
use tfdisco_provider::SignatureCheck;
use tfdisco_provider::mirror_folder;
use tfdisco_provider::plan::{ProviderLock, ProviderPlan};

use crate::RunError;
use crate::inputs::{Inputs, dialect_choice};
use crate::lock::platforms_or_current;
use crate::plan_jobs::{Archives, Jobs, run_plan_into};

mod options;
mod report;
mod to_oci;

pub use options::MirrorOptions;
pub use report::{MirrorReport, MirroredProvider};
pub(crate) use to_oci::stage as stage_for_oci;
pub use to_oci::{OciMirrorReport, OciMirroredProvider};

/// A mirror run between reading and writing.
struct MirrorRun {
    folder: MirrorFolder,
    platforms: Vec<Platform>,
    dialect: Dialect,
    /// What chose it, for the report.
    choice: DialectChoice,
    /// Every provider the configuration requires.
    sources: Vec<ProviderSource>,
    /// Those whose version the lock file decides.
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
        now: SystemTime,
    ) -> Result<(MirrorRun, ProviderPlan), RunError> {
        let inputs = Inputs::read(dir, dialect, &[])?;
        let (requirements, locked) = mirror_folder::mirrored_versions(
            inputs.requirements,
            dialect,
            options.lock_file,
            inputs.lock_file.providers().len() > 0,
        )
        .map_err(|e| RunError::Usage(e.to_string()))?;
        let platforms = platforms_or_current(&options.platforms);
        let sources = requirements.iter().map(|r| r.source.clone()).collect();
        let check = SignatureCheck::new(dialect, now);
        let plan = ProviderPlan::new(requirements, platforms.clone(), check);
        Ok((
            MirrorRun {
                folder: MirrorFolder::new(folder),
                platforms,
                dialect,
                choice: dialect_choice(options.dialect_choice.as_ref(), dialect),
                sources,
                locked,
            },
            plan,
        ))
    }

    /// Places every verified package under its final name and writes the
    /// indexes (MIRROR-11, MIRROR-12); after a failure, removes what was
    /// staged and changes nothing.
    fn apply(self, plan: ProviderPlan) -> Result<MirrorReport, RunError> {
        let locks = match plan.finish() {
            Ok(locks) => locks,
            Err(failures) => {
                self.folder.discard_staged();
                return Err(RunError::Failed(failures));
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
            .map_err(RunError::in_folder(self.folder.root()))?;
        Ok(MirrorReport {
            folder: self.folder.root().to_owned(),
            platforms: self.platforms.clone(),
            providers,
            indexes: indexes.written,
            skipped: indexes.skipped,
            warnings: indexes.warnings,
            dialect: self.choice.clone(),
        })
    }

    /// One provider's packages under their final names, with the hashes
    /// its `<version>.json` lists for them (MIRROR-12,
    /// `tfdisco_provider::mirror_folder::listed_hashes`).
    fn place(
        &self,
        lock: ProviderLock,
        computed: &mut HashMap<PathBuf, Vec<String>>,
    ) -> Result<MirroredProvider, RunError> {
        let mut archives = Vec::with_capacity(lock.packages.len());
        for package in &lock.packages {
            let placed = self
                .folder
                .place(&lock.source, &lock.version, &package.platform)
                .map_err(RunError::in_folder(&self.folder.package_path(
                    &lock.source,
                    &lock.version,
                    &package.platform,
                )))?;
            let hashes = mirror_folder::listed_hashes(self.dialect, package);
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

/// [`Runs::mirror`](crate::Runs::mirror) and
/// [`BlockingRuns::mirror`](crate::BlockingRuns::mirror).
pub(crate) async fn mirror(
    jobs: &impl Jobs,
    dir: &Path,
    folder: &Path,
    options: &MirrorOptions,
    now: SystemTime,
) -> Result<MirrorReport, RunError> {
    crate::modules::get_if_missing(jobs, dir, options.jobs).await?;
    let dialect = jobs.client().cache().config().dialect();
    let (run, mut plan) = MirrorRun::prepare(dir, folder, dialect, options, now)?;
    run_plan_into(jobs, &mut plan, options.jobs, Archives::Staged(&run.folder)).await;
    run.apply(plan)
}
