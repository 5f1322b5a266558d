//! `tfdisco mirror --to-oci TEMPLATE` (docs/behaviour.md, OCI-9): the
//! providers a mirror run selects, downloaded and verified against their
//! registry's signatures as [`Runs::mirror`] verifies them, into a
//! private staging folder; once every package passed, each provider's
//! release pushed to the repository the template names for it, in
//! OpenTofu's layout ([`Runs::oci_push_provider`]: blobs the
//! repository has are not sent again, the tag is written last).

use std::path::Path;
use std::time::SystemTime;

use serde::Serialize;
use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_oci::{Digest, RepositoryAddress};
use tfdisco_provider::Trust;
use tfdisco_provider::oci_mirror::OciMirrorTemplate;
use tfdisco_provider::plan::{LockFailure, LockProblem, ProviderLock, ProviderPlan};

use super::{MirrorOptions, MirrorRun};
use crate::On;
use crate::plan_jobs::{Archives, Jobs, run_plan_into};
use crate::report_text::{text, trust_label, words};
use crate::{BlobSource, PushedRelease, RunError, Transport};

/// What a mirror run into OCI repositories did: `{"template", "platforms",
/// "providers": [{"source", "version", "constraints", "locked", "trust",
/// "key_id", "repository", "tag", "index", "packages": [{"platform",
/// "digest"}], "blobs_sent", "blobs_mounted"}]}`.
#[derive(Clone, Debug, Serialize)]
pub struct OciMirrorReport {
    /// The repository template.
    pub template: String,
    /// The platforms mirrored.
    #[serde(serialize_with = "words")]
    pub platforms: Vec<Platform>,
    /// Each provider pushed, in address order.
    pub providers: Vec<OciMirroredProvider>,
}

/// One provider of an [`OciMirrorReport`]: a [`MirroredProvider`]'s
/// members but the archives (`"source"` to `"key_id"`), then its
/// release's.
///
/// [`MirroredProvider`]: crate::MirroredProvider
#[derive(Clone, Debug, Serialize)]
pub struct OciMirroredProvider {
    /// The provider.
    #[serde(serialize_with = "text")]
    pub source: ProviderSource,
    /// The version mirrored.
    #[serde(serialize_with = "text")]
    pub version: Version,
    /// Its constraints as the lock file writes them (empty: none).
    pub constraints: String,
    /// True when the lock file decided the version.
    pub locked: bool,
    /// How the key that signed its checksums is trusted.
    #[serde(serialize_with = "trust_label")]
    pub trust: Trust,
    /// That key's id (none when OpenTofu skipped the signature).
    pub key_id: Option<String>,
    /// What was pushed: the repository, the tag, the index's digest, each
    /// platform's zip digest and how many blobs were sent.
    #[serde(flatten)]
    pub release: PushedRelease,
}

/// A run between its downloads and its pushes.
pub(crate) struct Pushes {
    run: MirrorRun,
    addresses: Vec<(ProviderSource, RepositoryAddress)>,
    template: String,
    /// Removed when the run ends, whatever happened.
    _staging: tempfile::TempDir,
}

impl Pushes {
    /// Reads the configuration in `dir` and its lock file, makes the plan,
    /// and gives every provider its repository before anything is
    /// downloaded.
    fn prepare(
        dir: &Path,
        template: &OciMirrorTemplate,
        dialect: tfdisco_core::Dialect,
        options: &MirrorOptions,
        now: SystemTime,
    ) -> Result<(Pushes, ProviderPlan), RunError> {
        let staging = crate::lock::private_temp_dir("tfdisco-mirror-")?;
        let (run, plan) = MirrorRun::prepare(dir, staging.path(), dialect, options, now)?;
        let mut addresses: Vec<(ProviderSource, RepositoryAddress)> =
            Vec::with_capacity(run.sources.len());
        for source in &run.sources {
            let address = template.address_for(source).map_err(RunError::Usage)?;
            // Two providers' releases in one repository would mix (and a
            // version of both would keep only the last one's tag).
            if let Some((other, _)) = addresses.iter().find(|(_, a)| *a == address) {
                return Err(RunError::Usage(format!(
                    "the template {} gives {other} and {source} the same repository {address}: \
                     name each provider's with {{hostname}}, {{namespace}} and {{type}}",
                    template.as_str()
                )));
            }
            addresses.push((source.clone(), address));
        }
        Ok((
            Pushes {
                run,
                addresses,
                template: template.as_str().to_owned(),
                _staging: staging,
            },
            plan,
        ))
    }

    /// Each verified package of `lock` as the file it was staged in, its
    /// digest the one the run computed as it downloaded.
    fn zips(&self, lock: &ProviderLock) -> Vec<(Platform, BlobSource)> {
        lock.packages
            .iter()
            .map(|package| {
                let path =
                    self.run
                        .folder
                        .staging_path(&lock.source, &lock.version, &package.platform);
                let digest = Digest::sha256(package.archive.sha256());
                let blob = BlobSource::verified_file(path, digest, package.archive.size());
                (package.platform.clone(), blob)
            })
            .collect()
    }

    /// Pushes every provider the plan verified, one after the other.
    pub(crate) async fn push<T: Transport>(
        self,
        client: On<'_, T>,
        plan: ProviderPlan,
    ) -> Result<OciMirrorReport, RunError> {
        let locks = plan.finish().map_err(RunError::Failed)?;
        let mut providers: Vec<OciMirroredProvider> = Vec::with_capacity(locks.len());
        for lock in locks {
            let Some((_, address)) = self.addresses.iter().find(|(s, _)| *s == lock.source) else {
                // The plan locks only the configuration's providers, each
                // given its repository by `prepare`.
                return Err(RunError::Usage(format!(
                    "{}: no repository was named for it",
                    lock.source
                )));
            };
            // The blobs releases share (the empty config) are mounted from
            // the repository pushed before, when on the same registry.
            let before = providers
                .last()
                .map(|p| &p.release.address)
                .filter(|a| a.registry() == address.registry() && *a != address);
            let release = client
                .oci_push_provider(address, &lock.version, self.zips(&lock), before)
                .await
                .map_err(|error| {
                    RunError::Failed(vec![LockFailure::new(
                        lock.source.clone(),
                        Some(lock.version.clone()),
                        None,
                        LockProblem::Request(error),
                        self.run.dialect,
                    )])
                })?;
            providers.push(OciMirroredProvider {
                locked: self.run.locked.contains(&lock.source),
                source: lock.source,
                version: lock.version,
                constraints: lock.constraints,
                trust: lock.trust,
                key_id: lock.key_id,
                release,
            });
        }
        Ok(OciMirrorReport {
            template: self.template,
            platforms: self.run.platforms,
            providers,
        })
    }
}

/// The first half of [`Runs::mirror_to_oci`](crate::Runs::mirror_to_oci)
/// and [`BlockingRuns::mirror_to_oci`](crate::BlockingRuns::mirror_to_oci):
/// every package downloaded and verified into the private staging folder;
/// then [`Pushes::push`], once the plan finished.
pub(crate) async fn stage(
    jobs: &impl Jobs,
    dir: &Path,
    template: &OciMirrorTemplate,
    options: &MirrorOptions,
    now: SystemTime,
) -> Result<(Pushes, ProviderPlan), RunError> {
    let dialect = jobs.client().cache().config().dialect();
    let (pushes, mut plan) = Pushes::prepare(dir, template, dialect, options, now)?;
    let staged = Archives::Staged(&pushes.run.folder);
    run_plan_into(jobs, &mut plan, options.jobs, staged).await;
    Ok((pushes, plan))
}

#[cfg(test)]
mod tests {
    use tfdisco_core::{Dialect, serde_json};
    use tfdisco_oci::Algorithm;

    use super::*;

    /// The report's document, byte for byte: its members and their order
    /// are what `tfdisco mirror --to-oci --json` and the packages give.
    #[test]
    fn the_report_json() {
        let platform = Platform::parse("linux_amd64").expect("a platform");
        let digest = Digest::of(Algorithm::Sha256, b"{}");
        let report = OciMirrorReport {
            template: "r.example/p/{type}".to_owned(),
            platforms: vec![platform.clone()],
            providers: vec![OciMirroredProvider {
                source: ProviderSource::parse_argument("hashicorp/aws", Dialect::Terraform)
                    .expect("a source"),
                version: Version::parse("5.0.0", Dialect::Terraform).expect("a version"),
                constraints: String::new(),
                locked: true,
                trust: Trust::Official,
                key_id: Some("K".to_owned()),
                release: PushedRelease {
                    address: RepositoryAddress::parse("r.example/p/aws").expect("an address"),
                    tag: "5.0.0".to_owned(),
                    index: digest.clone(),
                    packages: vec![(platform, digest.clone())],
                    blobs_sent: 2,
                    blobs_mounted: 1,
                },
            }],
        };
        assert_eq!(
            serde_json::to_string(&report).expect("JSON"),
            format!(
                r#"{{"template":"r.example/p/{{type}}","platforms":["linux_amd64"],"providers":[{{"source":"registry.terraform.io/hashicorp/aws","version":"5.0.0","constraints":"","locked":true,"trust":"signed by HashiCorp","key_id":"K","repository":"r.example/p/aws","tag":"5.0.0","index":"{digest}","packages":[{{"platform":"linux_amd64","digest":"{digest}"}}],"blobs_sent":2,"blobs_mounted":1}}]}}"#
            )
        );
    }
}
