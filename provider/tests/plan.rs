//! The plan of a lock run, driven by hand with no sockets: canned registry
//! answers and the signed registry fixture's real files, and a network
//! mirror made of the tree Terraform's `providers mirror` wrote
//! (docs/behaviour.md, LOCKRUN-1 to LOCKRUN-4, LOCKRUN-7).

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::SystemTime;

use tfdisco_core::url::Url;
use tfdisco_core::{
    Dialect, Error, Platform, ProviderPackage, ProviderSource, ProviderVersion, ProviderVersions,
    SigningKey, Sink, Version, VersionConstraints,
};
use tfdisco_provider::plan::{
    ArchiveSink, Job, JobId, JobOutput, LockFailure, LockProblem, ProviderPlan, Requirement,
};
use tfdisco_provider::{SignatureCheck, Trust};

const T: Dialect = Dialect::Terraform;
const HOST: &str = "registry.example.com";

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures/signed-registry")
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn version_file(name: &str, version: &str, tail: &str) -> Vec<u8> {
    read(fixture().join(format!(
        "ns/{name}/{version}/terraform-provider-{name}_{version}_{tail}"
    )))
}

fn source(name: &str) -> ProviderSource {
    ProviderSource::parse(&format!("{HOST}/ns/{name}"), T).expect("a source")
}

fn requirement(name: &str, constraints: &str, locked: Option<&str>) -> Requirement {
    Requirement {
        source: source(name),
        constraints: VersionConstraints::parse(constraints, T).expect("constraints"),
        locked: locked.map(|v| Version::parse(v, T).expect("a version")),
        recorded: None,
    }
}

fn platform(given: &str) -> Platform {
    Platform::parse(given).expect("a platform")
}

fn new_plan(requirements: Vec<Requirement>, platforms: &[&str]) -> ProviderPlan {
    ProviderPlan::new(
        requirements,
        platforms.iter().map(|p| platform(p)).collect(),
        SignatureCheck::new(T, SystemTime::now()),
    )
}

fn url(path: &str) -> Url {
    Url::parse(&format!("https://{HOST}{path}")).expect("a URL")
}

fn versions(name: &str, listed: &[&str]) -> JobOutput {
    JobOutput::Versions(ProviderVersions {
        source: source(name),
        url: url(&format!("/v1/providers/ns/{name}/versions")),
        versions: listed
            .iter()
            .map(|v| ProviderVersion {
                version: (*v).to_owned(),
                protocols: vec!["5.0".into()],
                platforms: Vec::new(),
            })
            .collect(),
        warnings: Vec::new(),
    })
}

fn files(name: &str, version: &Version) -> String {
    format!("/files/ns/{name}/{version}/")
}

/// The package answer the fixture's registry gives.
fn package(name: &str, version: &Version, platform: &Platform) -> JobOutput {
    let version_text = version.to_string();
    let sums = String::from_utf8(version_file(name, &version_text, "SHA256SUMS")).expect("text");
    let filename = format!("terraform-provider-{name}_{version}_{platform}.zip");
    let shasum = sums
        .lines()
        .find_map(|l| l.strip_suffix(&format!("  {filename}")))
        .expect("listed")
        .to_owned();
    let dir = files(name, version);
    JobOutput::Package(Box::new(ProviderPackage {
        source: source(name),
        version: version_text,
        platform: platform.clone(),
        download_url: url(&format!("{dir}{filename}")),
        shasums_url: url(&format!(
            "{dir}terraform-provider-{name}_{version}_SHA256SUMS"
        )),
        shasums_signature_url: url(&format!(
            "{dir}terraform-provider-{name}_{version}_SHA256SUMS.sig"
        )),
        filename,
        shasum,
        protocols: vec!["5.0".into()],
        signing_keys: vec![SigningKey {
            key_id: String::from_utf8(read(fixture().join("key_id")))
                .expect("text")
                .trim()
                .to_owned(),
            ascii_armor: String::from_utf8(read(fixture().join("key.asc"))).expect("text"),
            trust_signature: String::new(),
            source: "tfdisco".into(),
            source_url: None,
        }],
        packages: None,
    }))
}

/// The bytes behind a download URL of the fixture (or of the mirror).
fn download(url: &Url) -> Vec<u8> {
    if let Some(path) = url.path().strip_prefix(mirror::PATH) {
        return mirror::file(path);
    }
    let path = url.path().strip_prefix("/files/").expect("a fixture file");
    read(fixture().join(path))
}

fn archive(bytes: &[u8]) -> JobOutput {
    let mut sink = ArchiveSink::new();
    for chunk in bytes.chunks(1000) {
        sink.write(chunk).expect("never refuses");
    }
    JobOutput::Archive(sink.finish().expect("a digest"))
}

/// Answers every job as the fixture's registry would, in the order they
/// come, `spoil` changing a download's bytes; returns the jobs seen.
fn run(plan: &mut ProviderPlan, spoil: impl Fn(&Url, &mut Vec<u8>)) -> Vec<Job> {
    let mut seen = Vec::new();
    while let Some((id, job)) = plan.next_job() {
        seen.push(job.clone());
        plan.complete(id, answer(job, &spoil));
    }
    assert!(plan.is_finished());
    seen
}

fn answer(job: Job, spoil: &impl Fn(&Url, &mut Vec<u8>)) -> Result<JobOutput, Error> {
    Ok(match job {
        Job::Versions { source } => {
            let name = source.type_name().to_owned();
            let listed: &[&str] = match name.as_str() {
                "alpha" => &["1.0.0", "1.1.0", "2.0.0", "2.1.0-beta1"],
                _ => &["0.9.0", "0.10.0-beta1", "0.10.0"],
            };
            versions(&name, listed)
        }
        Job::Package {
            source,
            version,
            platform,
        } => {
            if platform.os == "plan9" {
                return Err(Error::NotFound {
                    url: url("/v1/providers/ns/x/1.0.0/download/plan9/amd64").into(),
                    message: format!("provider {source} {version} is not available for {platform}"),
                });
            }
            package(source.type_name(), &version, &platform)
        }
        Job::Document { url, .. } => {
            let mut bytes = download(&url);
            spoil(&url, &mut bytes);
            JobOutput::Document(bytes)
        }
        Job::Archive { url, .. } => {
            let mut bytes = download(&url);
            spoil(&url, &mut bytes);
            archive(&bytes)
        }
        other => mirror::answer(other, spoil)?,
    })
}

/// What each job is, in a word.
fn kinds(jobs: &[Job]) -> Vec<&'static str> {
    jobs.iter()
        .map(|j| match j {
            Job::Versions { .. } => "versions",
            Job::Package { .. } => "package",
            Job::Document { .. } => "document",
            Job::Archive { .. } => "archive",
            _ => "other",
        })
        .collect()
}

fn failures(plan: ProviderPlan) -> Vec<LockFailure> {
    plan.finish().expect_err("a failure")
}

/// LOCKRUN-1, LOCKRUN-2: versions first; then each platform's package
/// answer; each version's SHA256SUMS and signature once however many
/// platforms share them (D18); the locked hashes are every platform's h1
/// and every zh of the signed SHA256SUMS.
#[test]
fn each_file_once_and_every_hash_verified() {
    let mut plan = new_plan(
        vec![requirement("alpha", "~> 1.0", None)],
        &["linux_amd64", "darwin_arm64"],
    );
    let jobs = run(&mut plan, |_, _| {});
    assert_eq!(
        kinds(&jobs),
        [
            "versions", "package", "package", "archive", "archive", "document", "document"
        ]
    );
    let locks = plan.finish().expect("locked");
    assert_eq!(locks.len(), 1);
    let lock = &locks[0];
    assert_eq!(lock.version.to_string(), "1.1.0");
    assert_eq!(lock.constraints, "~> 1.0");
    assert_eq!(lock.trust, Trust::Community);
    assert_eq!(lock.key_id.as_deref(), Some("93BBAC3B9551CE46"));
    let h1 = lock.hashes.iter().filter(|h| h.starts_with("h1:")).count();
    let zh = lock.hashes.iter().filter(|h| h.starts_with("zh:")).count();
    assert_eq!((h1, zh), (2, 3), "{:?}", lock.hashes);
    let mut sorted = lock.hashes.clone();
    sorted.sort();
    assert_eq!(sorted, lock.hashes);
}

/// LOCKRUN-2: of the jobs ready, documents go last, so that a job cap
/// delays a `SHA256SUMS` or a signature rather than a package's download
/// (in the order the jobs became ready, beta's archive would come after
/// alpha's two documents).
#[test]
fn documents_are_handed_out_last() {
    let mut plan = new_plan(
        vec![
            requirement("alpha", "1.0.0", None),
            requirement("beta", "0.9.0", None),
        ],
        &["linux_amd64"],
    );
    let jobs = run(&mut plan, |_, _| {});
    assert_eq!(
        kinds(&jobs),
        [
            "versions", "versions", "package", "package", "archive", "archive", "document",
            "document", "document", "document"
        ]
    );
    assert_eq!(plan.finish().expect("locked").len(), 2);
}

/// LOCKRUN-3: a damaged archive fails its checksum (as the CLIs check the
/// checksum before reading the zip), naming provider, version, platform
/// and `checksum`; nothing is locked.
#[test]
fn a_damaged_archive_is_a_checksum_failure() {
    let mut plan = new_plan(vec![requirement("alpha", "1.0.0", None)], &["linux_amd64"]);
    run(&mut plan, |url, bytes| {
        if url.path().ends_with(".zip") {
            let middle = bytes.len() / 2;
            bytes[middle] ^= 1;
        }
    });
    let failures = failures(plan);
    assert_eq!(failures.len(), 1);
    let failure = &failures[0];
    assert!(matches!(failure.problem, LockProblem::Checksum(_)));
    assert_eq!(
        (failure.kind(), !failure.is_unavailable()),
        ("checksum", true)
    );
    let message = failure.to_string();
    assert!(
        message.starts_with(&format!(
            "{HOST}/ns/alpha 1.0.0 for linux_amd64: checksum: archive has incorrect checksum zh:"
        )),
        "{message}"
    );
}

/// LOCKRUN-3: a signature that does not verify is a `signature` failure.
#[test]
fn a_bad_signature_is_a_signature_failure() {
    let mut plan = new_plan(vec![requirement("beta", "0.9.0", None)], &["windows_amd64"]);
    run(&mut plan, |url, bytes| {
        if url.path().ends_with(".sig") {
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
        }
    });
    let failures = failures(plan);
    assert_eq!(failures[0].kind(), "signature", "{}", failures[0]);
    assert!(!failures[0].is_unavailable());
}

/// LOCKRUN-4: no version, a locked version outside the constraints and a
/// platform not offered are exit code 3, in Terraform's words.
#[test]
fn versions_and_platforms_that_do_not_fit() {
    let mut plan = new_plan(
        vec![requirement("alpha", ">= 3.0.0", None)],
        &["linux_amd64"],
    );
    run(&mut plan, |_, _| {});
    let failure = &failures(plan)[0];
    assert_eq!(
        (failure.kind(), failure.is_unavailable()),
        ("version", true)
    );
    assert!(
        failure
            .to_string()
            .ends_with("no available releases match the given constraints >= 3.0.0")
    );

    let mut plan = new_plan(
        vec![requirement("alpha", "~> 2.0", Some("1.0.0"))],
        &["linux_amd64"],
    );
    run(&mut plan, |_, _| {});
    let failure = &failures(plan)[0];
    assert!(failure.is_unavailable());
    assert!(
        failure.to_string().contains(&format!(
            "locked provider {HOST}/ns/alpha 1.0.0 does not match configured version constraint ~> 2.0; must use terraform init -upgrade"
        )),
        "{failure}"
    );

    let mut plan = new_plan(
        vec![requirement("beta", ">= 0.9.0", None)],
        &["plan9_amd64"],
    );
    run(&mut plan, |_, _| {});
    let failure = &failures(plan)[0];
    assert_eq!(
        (failure.kind(), failure.is_unavailable()),
        ("platform", true)
    );
    assert_eq!(failure.platform, Some(platform("plan9_amd64")));
}

/// LOCKRUN-1: the locked version is kept while it fits; a pre-release only
/// when named exactly.
#[test]
fn the_locked_version_is_kept_and_pre_releases_need_naming() {
    let mut plan = new_plan(
        vec![
            requirement("alpha", ">= 1.0.0", Some("1.0.0")),
            requirement("beta", "0.10.0-beta1", None),
        ],
        &["linux_amd64"],
    );
    run(&mut plan, |_, _| {});
    let versions: Vec<String> = plan
        .finish()
        .expect("locked")
        .iter()
        .map(|l| l.version.to_string())
        .collect();
    assert_eq!(versions, ["1.0.0", "0.10.0-beta1"]);
}

/// LOCKRUN-2: after a failure no new job is handed out; the jobs already
/// running still complete, and every failure is reported.
#[test]
fn a_failure_stops_new_jobs_and_running_ones_finish() {
    let mut plan = new_plan(
        vec![
            requirement("alpha", "~> 1.0", None),
            requirement("beta", ">= 0.9.0", None),
        ],
        &["linux_amd64"],
    );
    let (first, _) = plan.next_job().expect("alpha's versions");
    let (second, _) = plan.next_job().expect("beta's versions");
    assert!(plan.next_job().is_none());
    let refused = |id: JobId| Error::Status {
        url: url(&format!("/v1/providers/ns/{id:?}/versions")).into(),
        status: tfdisco_core::http::StatusCode::INTERNAL_SERVER_ERROR,
    };
    plan.complete(first, Err(refused(first)));
    assert!(plan.next_job().is_none());
    assert!(!plan.is_finished(), "beta's versions still run");
    plan.complete(second, Err(refused(second)));
    assert!(plan.is_finished());
    let failures = failures(plan);
    assert_eq!(failures.len(), 2);
    assert!(
        failures
            .iter()
            .all(|f| f.kind() == "request" && !f.is_unavailable())
    );
}

/// HASH-17: one plan's packages share their signature checks by what was
/// checked, never across different inputs: of two providers, only the one
/// whose signature was spoiled fails, on every platform it was asked for.
#[test]
fn shared_signature_checks_follow_their_inputs() {
    let mut plan = new_plan(
        vec![
            requirement("alpha", "1.0.0", None),
            requirement("beta", "0.9.0", None),
        ],
        &["linux_amd64", "windows_amd64"],
    );
    let check_all = |url: &Url, bytes: &mut Vec<u8>| {
        if url.path().contains("/beta/") && url.path().ends_with(".sig") {
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
        }
    };
    // Answer every job, even after the failure stops new ones: hand out
    // what is ready first.
    run(&mut plan, check_all);
    let failures = failures(plan);
    assert!(!failures.is_empty());
    for failure in &failures {
        assert_eq!(failure.source, source("beta"), "{failure}");
        assert_eq!(failure.kind(), "signature", "{failure}");
    }
}

/// A network mirror serving the tree Terraform 1.11.4's `providers mirror`
/// wrote (`testkit/fixtures/mirror-goldens/mirror-fresh`), its
/// documents read by the real goals on the socket-free harness.
mod mirror {
    use tfdisco_core::url::Url;
    use tfdisco_core::{Config, Dialect, Error, NetworkMirror, Transfer};
    use tfdisco_provider::SignatureCheck;
    use tfdisco_provider::plan::{Job, JobOutput, Origin, ProviderPlan};

    use super::common::{Net, Reply};
    use super::{HOST, T, platform, read, requirement};

    pub(super) const PATH: &str = "/mirror/";

    fn tree() -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../testkit/fixtures/mirror-goldens/mirror-fresh/tree/{HOST}")
    }

    /// A file of the tree, by its path under the host's folder's parent.
    pub(super) fn file(path: &str) -> Vec<u8> {
        let rest = path
            .strip_prefix(&format!("{HOST}/"))
            .unwrap_or_else(|| panic!("{path} is not under {HOST}"));
        read(tree().join(rest))
    }

    pub(super) fn base() -> NetworkMirror {
        NetworkMirror::new(Url::parse(&format!("https://mirror.example.net{PATH}")).expect("URL"))
            .expect("https")
    }

    /// Serves `url`'s file of the tree on a harness and reads it with the
    /// real goal.
    fn serve(url: &Url, edit: &dyn Fn(&Url, &mut Vec<u8>)) -> Net {
        let mut net = Net::new();
        let path = url.path().strip_prefix(PATH).expect("under the mirror");
        let mut bytes = file(path);
        edit(url, &mut bytes);
        net.on(
            url.as_str(),
            Reply::new(200)
                .header("Content-Type", "application/json")
                .body(&bytes),
        );
        net
    }

    pub(super) fn answer(job: Job, edit: &impl Fn(&Url, &mut Vec<u8>)) -> Result<JobOutput, Error> {
        let config = Config::new(Dialect::Terraform);
        match job {
            Job::MirrorVersions { mirror, source } => {
                let mut net = serve(&mirror.versions_url(&source), edit);
                let now = net.now();
                net.run(Transfer::network_mirror_versions(
                    &mirror, &source, &config, None, now,
                ))
                .map(JobOutput::MirrorVersions)
            }
            Job::MirrorArchives {
                mirror,
                source,
                version,
            } => {
                let mut net = serve(&mirror.archives_url(&source, &version), edit);
                let now = net.now();
                net.run(Transfer::network_mirror_archives(
                    &mirror, &source, &version, &config, None, now,
                ))
                .map(|a| JobOutput::MirrorArchives(Box::new(a)))
            }
            other => panic!("not a mirror job: {other:?}"),
        }
    }

    fn plan(platforms: &[&str]) -> ProviderPlan {
        ProviderPlan::with_origin(
            vec![
                requirement("alpha", "~> 1.0", None),
                requirement("beta", ">= 0.9.0", None),
            ],
            platforms.iter().map(|p| platform(p)).collect(),
            SignatureCheck::new(T, std::time::SystemTime::now()),
            Origin::NetworkMirror(base()),
        )
    }

    /// LOCKRUN-7: from a network mirror, its index, each version's
    /// archives once, each platform's archive; the lock file gets each
    /// package's h1: (the unpacked files, not the archive's h1: the mirror
    /// lists), as Terraform's golden `net-mirror` lock file has them.
    #[test]
    fn a_network_mirror_gives_the_packages_h1() {
        let mut plan = plan(&["linux_amd64", "darwin_arm64", "windows_amd64"]);
        let jobs = super::run(&mut plan, |_, _| {});
        let kinds: Vec<&str> = jobs
            .iter()
            .map(|j| match j {
                Job::MirrorVersions { .. } => "index",
                Job::MirrorArchives { .. } => "archives",
                Job::Archive { .. } => "archive",
                _ => "other",
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "index", "index", "archives", "archives", "archive", "archive", "archive",
                "archive", "archive", "archive"
            ]
        );
        let locks = plan.finish().expect("locked");
        let golden = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../testkit/fixtures/lock-goldens/net-mirror/terraform.lock.hcl"),
        )
        .expect("the golden");
        for lock in &locks {
            assert_eq!(lock.trust, tfdisco_provider::Trust::Checksum);
            assert_eq!(lock.key_id, None);
            assert_eq!(lock.hashes.len(), 3, "{:?}", lock.hashes);
            for hash in &lock.hashes {
                assert!(hash.starts_with("h1:"), "{hash}");
                assert!(golden.contains(hash.as_str()), "{hash} not in {golden}");
            }
            // What `tfdisco mirror` would list: the archive's own h1:.
            for package in &lock.packages {
                let listed = String::from_utf8(file(&format!(
                    "{HOST}/ns/{}/{}.json",
                    lock.source.type_name(),
                    lock.version
                )))
                .expect("text");
                assert!(listed.contains(&package.archive.h1_zip()), "{listed}");
            }
        }
    }

    /// LOCKRUN-7, HASH-22: an archive the mirror's hash does not vouch for
    /// is a checksum failure naming provider, version and platform.
    #[test]
    fn a_wrong_listed_hash_is_a_checksum_failure() {
        let mut plan = plan(&["linux_amd64"]);
        super::run(&mut plan, |url, bytes| {
            if url.path().ends_with("/alpha/1.1.0.json") {
                let text = String::from_utf8(bytes.clone()).expect("text");
                let entry = text.find("linux_amd64").expect("the platform");
                let at = entry + text[entry..].find("h1:").expect("a hash") + 3;
                *bytes = format!("{}AAAA{}", &text[..at], &text[at + 4..]).into_bytes();
            }
        });
        let failures = super::failures(plan);
        assert_eq!(failures.len(), 1);
        let failure = &failures[0];
        assert_eq!(
            (failure.kind(), !failure.is_unavailable()),
            ("checksum", true)
        );
        let message = failure.to_string();
        assert!(
            message.starts_with(&format!(
                "{HOST}/ns/alpha 1.1.0 for linux_amd64: checksum: provider package doesn't match \
                 the expected checksum \"h1:AAAA"
            )),
            "{message}"
        );
    }

    /// LOCKRUN-7: a platform the mirror lists no archive for is exit code 3.
    #[test]
    fn a_platform_the_mirror_lacks() {
        let mut plan = plan(&["plan9_amd64"]);
        super::run(&mut plan, |_, _| {});
        let failures = super::failures(plan);
        assert_eq!(
            (failures[0].kind(), failures[0].is_unavailable()),
            ("platform", true)
        );
        assert!(
            failures[0].to_string().contains(
                "does not have a package of registry.example.com/ns/alpha 1.1.0 for plan9_amd64"
            ),
            "{}",
            failures[0]
        );
    }
}

/// Install runs (INSTALL-2 to INSTALL-4, INSTALL-7): `init`'s plan for one platform.
mod install {
    use super::*;
    use tfdisco_provider::plan::{
        CacheRules, InstallRules, Installed, InstalledPackages, Origin, Recorded,
    };

    fn install_plan(requirement: Requirement, rules: InstallRules) -> ProviderPlan {
        ProviderPlan::install(
            vec![(requirement, Origin::Registry)],
            platform("linux_amd64"),
            SignatureCheck::new(T, SystemTime::now()),
            rules,
        )
    }

    fn recorded(version: &str, hashes: &[&str]) -> Option<Recorded> {
        Some(Recorded {
            version: Version::parse(version, T).expect("a version"),
            hashes: hashes.iter().map(|h| (*h).to_owned()).collect(),
        })
    }

    /// Runs the plan, answering `Installed` with `found` and every other
    /// job as the fixture's registry; the kinds of the jobs seen.
    fn run_with(plan: &mut ProviderPlan, found: &InstalledPackages) -> Vec<&'static str> {
        run_busy(plan, found, 0)
    }

    /// [`run_with`], the cache entry's lock held by another run the first
    /// `busy` times it is asked for.
    fn run_busy(
        plan: &mut ProviderPlan,
        found: &InstalledPackages,
        mut busy: usize,
    ) -> Vec<&'static str> {
        let mut seen = Vec::new();
        while let Some((id, job)) = plan.next_job() {
            seen.push(match &job {
                Job::Installed { .. } => "installed",
                Job::Versions { .. } => "versions",
                Job::Package { .. } => "package",
                Job::Document { .. } => "document",
                Job::Archive { .. } => "archive",
                Job::Place { .. } => "place",
                Job::Release { .. } => "release",
                _ => "other",
            });
            let result = match job {
                Job::Installed { .. } if busy > 0 => {
                    busy -= 1;
                    Ok(JobOutput::Busy)
                }
                Job::Installed { .. } => Ok(JobOutput::Installed(found.clone())),
                Job::Place { .. } | Job::Release { .. } => Ok(JobOutput::Done),
                other => answer(other, &|_: &Url, _: &mut Vec<u8>| {}),
            };
            plan.complete(id, result);
        }
        assert!(plan.is_finished());
        seen
    }

    /// The `h1:` and `zh:` the lock file gets for alpha 1.1.0 on
    /// linux_amd64, from a fresh install.
    fn fresh_hashes() -> Vec<String> {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            InstallRules::default(),
        );
        run_with(&mut plan, &InstalledPackages::default());
        plan.finish().expect("installed").remove(0).hashes
    }

    #[test]
    fn a_fresh_install_fetches_and_verifies_the_one_platform() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            InstallRules::default(),
        );
        let jobs = run_with(&mut plan, &InstalledPackages::default());
        assert_eq!(
            jobs,
            [
                "versions",
                "installed",
                "package",
                "archive",
                "document",
                "document"
            ]
        );
        let lock = plan.finish().expect("installed").remove(0);
        assert_eq!(lock.installed, Some(Installed::Fetched));
        assert_eq!(lock.version.to_string(), "1.1.0");
        let h1 = lock.hashes.iter().filter(|h| h.starts_with("h1:")).count();
        let zh = lock.hashes.iter().filter(|h| h.starts_with("zh:")).count();
        assert_eq!((h1, zh), (1, 3), "this platform's h1, every signed zh");
    }

    #[test]
    fn an_install_the_lock_file_vouches_for_is_kept_without_a_request() {
        let hashes = fresh_hashes();
        let h1 = hashes
            .iter()
            .find(|h| h.starts_with("h1:"))
            .expect("h1")
            .clone();
        let mut locked = requirement("alpha", "~> 1.0", Some("1.1.0"));
        let as_recorded: Vec<&str> = hashes.iter().map(String::as_str).collect();
        locked.recorded = recorded("1.1.0", &as_recorded);
        let mut plan = install_plan(locked, InstallRules::default());
        let found = InstalledPackages {
            target: Some(h1),
            cache: None,
        };
        assert_eq!(run_with(&mut plan, &found), ["installed"], "no request");
        let lock = plan.finish().expect("kept").remove(0);
        assert_eq!(lock.installed, Some(Installed::Reused));
        assert_eq!(lock.hashes, hashes, "the lock file's, unchanged");
        assert_eq!(lock.trust, Trust::LockFile);
    }

    #[test]
    fn an_install_that_does_not_match_is_fetched_again() {
        let hashes = fresh_hashes();
        let mut locked = requirement("alpha", "~> 1.0", Some("1.1.0"));
        let as_recorded: Vec<&str> = hashes.iter().map(String::as_str).collect();
        locked.recorded = recorded("1.1.0", &as_recorded);
        let mut plan = install_plan(locked, InstallRules::default());
        let found = InstalledPackages {
            target: Some("h1:modified".into()),
            cache: None,
        };
        let jobs = run_with(&mut plan, &found);
        assert_eq!(jobs[0], "installed", "looked at before the versions");
        assert!(jobs.contains(&"archive"), "{jobs:?}");
        let lock = plan.finish().expect("installed").remove(0);
        assert_eq!(lock.installed, Some(Installed::Fetched));
        assert_eq!(lock.hashes, hashes);
    }

    #[test]
    fn a_locked_version_outside_the_constraints_fails_before_any_request() {
        let mut locked = requirement("alpha", "~> 1.0", Some("2.0.0"));
        locked.recorded = recorded("2.0.0", &["h1:x"]);
        let mut plan = install_plan(locked, InstallRules::default());
        assert!(run_with(&mut plan, &InstalledPackages::default()).is_empty());
        let failures = failures(plan);
        assert_eq!(failures[0].kind(), "version");
        assert!(failures[0].is_unavailable());
    }

    #[test]
    fn a_package_the_lock_file_does_not_record_is_refused() {
        let mut locked = requirement("alpha", "~> 1.0", Some("1.1.0"));
        locked.recorded = recorded("1.1.0", &["h1:someone-else", "zh:0000"]);
        let mut plan = install_plan(locked, InstallRules::default());
        run_with(&mut plan, &InstalledPackages::default());
        let failures = failures(plan);
        assert!(matches!(failures[0].problem, LockProblem::NotRecorded(_)));
        assert_eq!(failures[0].kind(), "checksum");
        assert!(
            failures[0].to_string().ends_with(
                "doesn't match any of the checksums previously recorded in the dependency lock file"
            ),
            "{}",
            failures[0]
        );
    }

    #[test]
    fn the_plugin_cache_is_linked_when_vouched_for() {
        let cache = InstallRules {
            cache: Some(CacheRules::default()),
        };
        let cached = InstalledPackages {
            target: None,
            cache: Some("h1:cached".into()),
        };
        let mut locked = requirement("alpha", "~> 1.0", Some("1.1.0"));
        locked.recorded = recorded("1.1.0", &["h1:cached", "zh:signed"]);
        let mut plan = install_plan(locked, cache.clone());
        assert_eq!(
            run_busy(&mut plan, &cached, 2),
            ["installed", "installed", "installed", "release"],
            "asked again while another run held the lock, then released at once"
        );
        let lock = plan.finish().expect("linked").remove(0);
        assert_eq!(lock.installed, Some(Installed::FromCache));
        assert_eq!(lock.hashes, ["h1:cached", "zh:signed"]);
    }

    /// A cache entry the lock file does not vouch for (no entry for the
    /// provider, as when it is added to the configuration) is fetched and
    /// verified as any other download, and the verified package placed in
    /// the cache, whatever the entry is: a cache is written by others.
    #[test]
    fn a_cache_entry_nothing_vouches_for_is_replaced_by_a_verified_download() {
        let cache = InstallRules {
            cache: Some(CacheRules::default()),
        };
        let cached = InstalledPackages {
            target: None,
            cache: Some("h1:planted".into()),
        };
        let mut plan = install_plan(requirement("alpha", "~> 1.0", None), cache);
        let jobs = run_with(&mut plan, &cached);
        assert!(jobs.contains(&"archive"), "{jobs:?}");
        assert_eq!(
            &jobs[jobs.len() - 2..],
            ["document", "place"],
            "into the cache as soon as verified (after its last document): {jobs:?}"
        );
        let lock = plan.finish().expect("installed").remove(0);
        assert_eq!(lock.installed, Some(Installed::Fetched));
        assert_eq!(lock.hashes, fresh_hashes(), "the registry's hashes only");
        assert!(!lock.hashes.contains(&"h1:planted".to_owned()));
    }
}

/// A lock run with the plugin cache (`providers lock -enable-plugin-cache`,
/// LOCKRUN-10): versions first, then each platform's cache entry; an entry
/// the lock file vouches for (or any, when the cache may break it and the
/// lock file records nothing) linked without a request, every other
/// platform fetched, verified and placed in the cache; nothing the lock
/// file records refuses a package.
mod plugin_cache {
    use super::*;
    use tfdisco_provider::plan::{CacheRules, InstalledPackages, Origin, ProviderLock, Recorded};

    const TWO: [&str; 2] = ["linux_amd64", "darwin_arm64"];

    fn cached_plan(requirement: Requirement, may_break: bool) -> ProviderPlan {
        ProviderPlan::with_plugin_cache(
            vec![(requirement, Origin::Registry)],
            TWO.iter().map(|p| platform(p)).collect(),
            SignatureCheck::new(T, SystemTime::now()),
            CacheRules {
                may_break_lock_file: may_break,
            },
        )
    }

    /// Alpha locked for both platforms without a cache: every hash, and
    /// each platform's `h1:`.
    fn fresh() -> (ProviderLock, Vec<String>) {
        let mut plan = new_plan(vec![requirement("alpha", "~> 1.0", None)], &TWO);
        run(&mut plan, |_, _| {});
        let lock = plan.finish().expect("locked").remove(0);
        let h1s = lock.packages.iter().map(|p| p.archive.h1()).collect();
        (lock, h1s)
    }

    fn recorded(hashes: &[String]) -> Option<Recorded> {
        Some(Recorded {
            version: Version::parse("1.1.0", T).expect("a version"),
            hashes: hashes.to_vec(),
        })
    }

    /// Runs the plan, the cache holding `cache(platform)`'s `h1:` for each
    /// platform, every other job answered as the fixture's registry; the
    /// jobs seen, each as a word and its platform.
    fn run_cached(
        plan: &mut ProviderPlan,
        cache: impl Fn(&Platform) -> Option<String>,
    ) -> Vec<String> {
        let mut seen = Vec::new();
        while let Some((id, job)) = plan.next_job() {
            let (word, on) = match &job {
                Job::Versions { .. } => ("versions", None),
                Job::Installed { platform, .. } => ("installed", Some(platform.clone())),
                Job::Release { platform, .. } => ("release", Some(platform.clone())),
                Job::Place { platform, .. } => ("place", Some(platform.clone())),
                Job::Package { platform, .. } => ("package", Some(platform.clone())),
                Job::Archive { platform, .. } => ("archive", Some(platform.clone())),
                Job::Document { .. } => ("document", None),
                _ => ("other", None),
            };
            seen.push(match &on {
                Some(platform) => format!("{word} {platform}"),
                None => word.to_owned(),
            });
            let result = match job {
                Job::Installed { platform, .. } => Ok(JobOutput::Installed(InstalledPackages {
                    target: None,
                    cache: cache(&platform),
                })),
                Job::Place { .. } | Job::Release { .. } => Ok(JobOutput::Done),
                other => answer(other, &|_: &Url, _: &mut Vec<u8>| {}),
            };
            plan.complete(id, result);
        }
        assert!(plan.is_finished());
        seen
    }

    #[test]
    fn an_entry_the_lock_file_vouches_for_is_linked_the_others_fetched_into_the_cache() {
        let (fresh, h1s) = fresh();
        let mut locked = requirement("alpha", "~> 1.0", Some("1.1.0"));
        locked.recorded = recorded(&fresh.hashes);
        let mut plan = cached_plan(locked, false);
        let linux = h1s[0].clone();
        let jobs = run_cached(&mut plan, |p| match p.to_string().as_str() {
            "linux_amd64" => Some(linux.clone()),
            _ => Some("h1:planted".into()),
        });
        assert_eq!(
            jobs[0], "versions",
            "asked as providers lock asks: {jobs:?}"
        );
        for expected in [
            "installed linux_amd64",
            "installed darwin_arm64",
            "release linux_amd64",
            "package darwin_arm64",
            "archive darwin_arm64",
            "place darwin_arm64",
        ] {
            assert!(jobs.iter().any(|j| j == expected), "{expected} in {jobs:?}");
        }
        for never in [
            "package linux_amd64",
            "archive linux_amd64",
            "place linux_amd64",
        ] {
            assert!(!jobs.iter().any(|j| j == never), "{never} in {jobs:?}");
        }
        assert_eq!(
            jobs.last().map(String::as_str),
            Some("place darwin_arm64"),
            "placed once verified: {jobs:?}"
        );
        let lock = plan.finish().expect("locked").remove(0);
        assert_eq!(
            lock.hashes, fresh.hashes,
            "what the lock file had, and darwin's own"
        );
        assert!(!lock.hashes.contains(&"h1:planted".to_owned()));
        assert_eq!(lock.installed, None, "a lock run's");
        assert_eq!(lock.trust, Trust::Community, "the package fetched says");
    }

    #[test]
    fn the_lock_file_refuses_no_package() {
        let (fresh, _) = fresh();
        let mut locked = requirement("alpha", "~> 1.0", Some("1.1.0"));
        locked.recorded = recorded(&["h1:someone-else".to_owned()]);
        let mut plan = cached_plan(locked, false);
        let jobs = run_cached(&mut plan, |_| None);
        assert_eq!(jobs.iter().filter(|j| j.starts_with("place")).count(), 2);
        let lock = plan.finish().expect("not refused").remove(0);
        assert_eq!(lock.hashes, fresh.hashes, "the verified packages' alone");
    }

    #[test]
    fn may_break_links_any_entry_the_lock_file_has_nothing_for() {
        let (fresh, h1s) = fresh();
        let mut plan = cached_plan(requirement("alpha", "~> 1.0", None), true);
        let jobs = run_cached(&mut plan, |p| {
            let i = TWO.iter().position(|t| *t == p.to_string())?;
            Some(h1s[i].clone())
        });
        assert_eq!(
            jobs,
            [
                "versions",
                "installed linux_amd64",
                "installed darwin_arm64",
                "release linux_amd64",
                "release darwin_arm64"
            ]
        );
        let lock = plan.finish().expect("locked").remove(0);
        let mut h1s = h1s;
        h1s.sort();
        assert_eq!(lock.hashes, h1s, "each entry's h1: alone, no zh:");
        assert_ne!(lock.hashes, fresh.hashes);
        assert_eq!(lock.trust, Trust::LockFile);

        // Without may-break the same entries vouch for nothing.
        let mut plan = cached_plan(requirement("alpha", "~> 1.0", None), false);
        run_cached(&mut plan, |_| Some("h1:whatever".into()));
        assert_eq!(
            plan.finish().expect("locked").remove(0).hashes,
            fresh.hashes
        );
    }
}

/// A filesystem mirror's packages: hashed (or, installing, unpacked) by the
/// driver; one that is no package fails its provider as `package`
/// (LOCKRUN-4, INSTALL-8).
mod filesystem {
    use super::*;
    use tfdisco_provider::plan::{InstallRules, InstalledPackages, Origin};
    use tfdisco_provider::{LocalLocation, LocalPackage, LocalPackages, package_filename};

    fn mirrored(name: &str, version: &str) -> Origin {
        let (source, version) = (source(name), Version::parse(version, T).expect("a version"));
        let platform = platform("linux_amd64");
        let filename = package_filename(&source, &version, &platform);
        Origin::Filesystem(LocalPackages::new(vec![LocalPackage {
            location: LocalLocation::Archive(PathBuf::from("/mirror").join(&filename)),
            filename,
            source,
            version,
            platform,
        }]))
    }

    /// Installs alpha from the mirror, the driver answering its package
    /// with `local`; the kinds of the jobs seen.
    fn install(local: JobOutput) -> (ProviderPlan, Vec<&'static str>) {
        let mut plan = ProviderPlan::install(
            vec![(
                requirement("alpha", "~> 1.0", None),
                mirrored("alpha", "1.1.0"),
            )],
            platform("linux_amd64"),
            SignatureCheck::new(T, SystemTime::now()),
            InstallRules::default(),
        );
        let mut seen = Vec::new();
        while let Some((id, job)) = plan.next_job() {
            let output = match job {
                Job::Installed { .. } => {
                    seen.push("installed");
                    JobOutput::Installed(InstalledPackages::default())
                }
                Job::LocalPackage { .. } => {
                    seen.push("local");
                    local.clone()
                }
                other => panic!("no other job: {other:?}"),
            };
            plan.complete(id, Ok(output));
        }
        (plan, seen)
    }

    #[test]
    fn a_mirrored_package_is_locked_by_its_h1() {
        let (plan, jobs) = install(JobOutput::Local {
            h1: "h1:unpacked".into(),
            archive: None,
        });
        assert_eq!(jobs, ["installed", "local"]);
        let lock = plan.finish().expect("installed").remove(0);
        assert_eq!(lock.version.to_string(), "1.1.0");
        assert_eq!(lock.hashes, ["h1:unpacked"]);
        assert_eq!(lock.trust, Trust::Unauthenticated);
    }

    #[test]
    fn a_mirrored_file_that_is_no_package_is_a_package_failure() {
        let why = "/mirror/terraform-provider-alpha_1.1.0_linux_amd64.zip: entry \"/abs\" has an absolute name";
        let (plan, jobs) = install(JobOutput::NoPackage(why.into()));
        assert_eq!(jobs, ["installed", "local"]);
        let failures = failures(plan);
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].kind(), "package");
        assert!(!failures[0].is_unavailable());
        assert!(failures[0].to_string().ends_with(why), "{}", failures[0]);
    }
}

/// Several installation methods (`Origin::Methods`, INSTALL-13): the
/// versions of every method united, the package from the first method that
/// has it for the platform, falling through only where Go's `MultiSource`
/// falls through; the lock file gets the hashes of the origin the package
/// came from.
mod methods {
    use super::common::{Net, Reply};
    use super::*;
    use tfdisco_core::{Config, Transfer};
    use tfdisco_provider::plan::{InstallRules, Installed, InstalledPackages, Origin};
    use tfdisco_provider::{LocalLocation, LocalPackage, LocalPackages, package_filename};

    /// A packed filesystem mirror holding these packages of `name`.
    fn filesystem(name: &str, packages: &[(&str, &str)]) -> Origin {
        let source = source(name);
        Origin::Filesystem(LocalPackages::new(
            packages
                .iter()
                .map(|(version, platform_name)| {
                    let version = Version::parse(version, T).expect("a version");
                    let platform = platform(platform_name);
                    let filename = package_filename(&source, &version, &platform);
                    LocalPackage {
                        location: LocalLocation::Archive(PathBuf::from("/mirror").join(&filename)),
                        filename,
                        source: source.clone(),
                        version,
                        platform,
                    }
                })
                .collect(),
        ))
    }

    fn net_mirror() -> Origin {
        Origin::NetworkMirror(mirror::base())
    }

    /// What the network mirror answers instead of its tree.
    #[derive(Clone, Copy)]
    enum Mirror {
        /// Its tree (mirror-fresh: alpha 1.1.0, beta 0.10.0).
        Tree,
        /// This status for every document.
        Status(u16),
        /// Its tree, without the linux_amd64 archive of any version.
        WithoutLinux,
    }

    /// An install plan of `requirement` for linux_amd64 from `methods`.
    fn install_plan(requirement: Requirement, methods: Vec<Origin>) -> ProviderPlan {
        ProviderPlan::install(
            vec![(requirement, Origin::Methods(methods))],
            platform("linux_amd64"),
            SignatureCheck::new(T, SystemTime::now()),
            InstallRules::default(),
        )
    }

    /// Runs the plan: nothing installed, a filesystem mirror's packages
    /// hashed as `h1:mirrored`, the network mirror as `net` says, the rest
    /// as the fixture's registry; the kinds of the jobs seen.
    fn run(plan: &mut ProviderPlan, net: Mirror) -> Vec<&'static str> {
        let mut seen = Vec::new();
        while let Some((id, job)) = plan.next_job() {
            seen.push(match &job {
                Job::Installed { .. } => "installed",
                Job::Versions { .. } => "versions",
                Job::Package { .. } => "package",
                Job::Document { .. } => "document",
                Job::Archive { .. } => "archive",
                Job::MirrorVersions { .. } => "mirror-index",
                Job::MirrorArchives { .. } => "mirror-archives",
                Job::LocalPackage { .. } => "local",
                _ => "other",
            });
            let result = match job {
                Job::Installed { .. } => Ok(JobOutput::Installed(InstalledPackages::default())),
                Job::LocalPackage { .. } => Ok(JobOutput::Local {
                    h1: "h1:mirrored".into(),
                    archive: None,
                }),
                job @ (Job::MirrorVersions { .. } | Job::MirrorArchives { .. }) => {
                    mirrored(job, net)
                }
                other => answer(other, &|_: &Url, _: &mut Vec<u8>| {}),
            };
            plan.complete(id, result);
        }
        assert!(plan.is_finished());
        seen
    }

    /// A network mirror's document, read by the real goals.
    fn mirrored(job: Job, net: Mirror) -> Result<JobOutput, Error> {
        let status = match net {
            Mirror::Tree => None,
            Mirror::Status(status) => Some(status),
            Mirror::WithoutLinux => None,
        };
        let edit = move |_: &Url, bytes: &mut Vec<u8>| {
            if let Mirror::WithoutLinux = net {
                let text = String::from_utf8(bytes.clone()).expect("text");
                *bytes = text
                    .replace("\"linux_amd64\"", "\"plan9_amd64\"")
                    .into_bytes();
            }
        };
        let config = Config::new(T);
        let mut harness = Net::new();
        let url = match &job {
            Job::MirrorVersions { mirror, source } => mirror.versions_url(source),
            Job::MirrorArchives {
                mirror,
                source,
                version,
            } => mirror.archives_url(source, version),
            _ => unreachable!("mirror jobs only"),
        };
        let path = url
            .path()
            .strip_prefix(mirror::PATH)
            .expect("under the mirror");
        let reply = match status {
            Some(status) => Reply::new(status).body(b"no"),
            None if !mirror_has(path) => Reply::new(404).body(b"not found"),
            None => {
                let mut bytes = mirror::file(path);
                edit(&url, &mut bytes);
                Reply::new(200)
                    .header("Content-Type", "application/json")
                    .body(&bytes)
            }
        };
        harness.on(url.as_str(), reply);
        let now = harness.now();
        match job {
            Job::MirrorVersions { mirror, source } => harness
                .run(Transfer::network_mirror_versions(
                    &mirror, &source, &config, None, now,
                ))
                .map(JobOutput::MirrorVersions),
            Job::MirrorArchives {
                mirror,
                source,
                version,
            } => harness
                .run(Transfer::network_mirror_archives(
                    &mirror, &source, &version, &config, None, now,
                ))
                .map(|a| JobOutput::MirrorArchives(Box::new(a))),
            _ => unreachable!("mirror jobs only"),
        }
    }

    /// Whether mirror-fresh's tree has the document at `path`.
    fn mirror_has(path: &str) -> bool {
        [
            "alpha/index.json",
            "alpha/1.1.0.json",
            "beta/index.json",
            "beta/0.10.0.json",
        ]
        .iter()
        .any(|tail| path.ends_with(tail))
    }

    fn the_lock(plan: ProviderPlan) -> tfdisco_provider::plan::ProviderLock {
        plan.finish().expect("installed").remove(0)
    }

    /// A filesystem mirror holding an older version than the registry: the
    /// versions are united, the newest selected, and the mirror, without
    /// it, skipped for the registry, whose signed hashes are recorded.
    #[test]
    fn an_older_mirror_gives_way_to_the_registry() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![
                filesystem("alpha", &[("1.0.0", "linux_amd64")]),
                Origin::Registry,
            ],
        );
        let jobs = run(&mut plan, Mirror::Tree);
        assert_eq!(
            jobs,
            [
                "versions",
                "installed",
                "package",
                "archive",
                "document",
                "document"
            ]
        );
        let lock = the_lock(plan);
        assert_eq!(lock.version.to_string(), "1.1.0");
        assert_eq!(lock.method, Some(1), "from the registry");
        assert_eq!(lock.installed, Some(Installed::Fetched));
        let zh = lock.hashes.iter().filter(|h| h.starts_with("zh:")).count();
        assert_eq!(zh, 3, "every signed zh: {:?}", lock.hashes);
    }

    /// The same version in a filesystem mirror and the registry: the
    /// mirror comes first, so the package is its own (its h1: alone), and
    /// the registry is asked its versions only.
    #[test]
    fn the_first_method_with_the_version_gives_the_package() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![
                filesystem("alpha", &[("1.1.0", "linux_amd64")]),
                Origin::Registry,
            ],
        );
        assert_eq!(
            run(&mut plan, Mirror::Tree),
            ["versions", "installed", "local"]
        );
        let lock = the_lock(plan);
        assert_eq!(lock.method, Some(0));
        assert_eq!(lock.hashes, ["h1:mirrored"]);
        assert_eq!(lock.trust, Trust::Unauthenticated);
    }

    /// A platform a method lacks: the next method is asked, for a
    /// filesystem mirror (no package for it) and a network mirror (no
    /// archive for it in `<version>.json`) alike.
    #[test]
    fn a_method_without_the_platform_is_skipped() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![
                filesystem("alpha", &[("1.1.0", "darwin_arm64")]),
                Origin::Registry,
            ],
        );
        let jobs = run(&mut plan, Mirror::Tree);
        assert!(
            !jobs.contains(&"local") && jobs.contains(&"package"),
            "{jobs:?}"
        );
        assert_eq!(the_lock(plan).method, Some(1));

        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![net_mirror(), Origin::Registry],
        );
        let jobs = run(&mut plan, Mirror::WithoutLinux);
        assert_eq!(
            jobs,
            [
                "mirror-index",
                "versions",
                "installed",
                "mirror-archives",
                "package",
                "archive",
                "document",
                "document"
            ]
        );
        assert_eq!(the_lock(plan).method, Some(1));
    }

    /// A network mirror first with the version: its archive, checked
    /// against its hashes, the lock file its package's h1: alone
    /// (Terraform records no mirror hash).
    #[test]
    fn a_network_mirror_first() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![net_mirror(), Origin::Registry],
        );
        let jobs = run(&mut plan, Mirror::Tree);
        assert_eq!(
            jobs,
            [
                "mirror-index",
                "versions",
                "installed",
                "mirror-archives",
                "archive"
            ]
        );
        let lock = the_lock(plan);
        assert_eq!(lock.method, Some(0));
        assert_eq!(lock.trust, Trust::Checksum);
        assert_eq!(lock.hashes.len(), 1);
        assert!(lock.hashes[0].starts_with("h1:"));
    }

    /// A failure that is not "not here" is no reason to ask the next
    /// method: a network mirror answering 500 for the versions, or 404 for
    /// the `<version>.json` of a version another method offers (Go's
    /// "query failed"), fails the provider as a request.
    #[test]
    fn other_failures_do_not_fall_through() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![net_mirror(), Origin::Registry],
        );
        let jobs = run(&mut plan, Mirror::Status(500));
        assert_eq!(
            jobs,
            ["mirror-index", "versions"],
            "nothing after the versions"
        );
        let failed = failures(plan);
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].kind(), "request");
        assert!(failed[0].to_string().contains("500"), "{}", failed[0]);

        let mut plan = install_plan(
            requirement("alpha", ">= 1.0", None),
            vec![net_mirror(), Origin::Registry],
        );
        let jobs = run(&mut plan, Mirror::Tree);
        assert_eq!(
            jobs,
            ["mirror-index", "versions", "installed", "mirror-archives"],
            "2.0.0, the registry's, asked of the mirror first"
        );
        let failed = failures(plan);
        assert_eq!(failed[0].kind(), "request");
        assert_eq!(
            failed[0]
                .version
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some("2.0.0")
        );
        assert!(
            failed[0]
                .to_string()
                .contains("does not have archive index for previously-reported"),
            "{}",
            failed[0]
        );
    }

    /// No method with a version: a registry that does not know the
    /// provider says so; else Go's `ErrProviderNotFound`. No method with
    /// the platform: Go's `ErrPlatformNotSupported`, whatever each said.
    #[test]
    fn nothing_anywhere() {
        let mut plan = install_plan(
            requirement("alpha", "~> 1.0", None),
            vec![net_mirror(), filesystem("alpha", &[])],
        );
        run(&mut plan, Mirror::Status(404));
        let failed = failures(plan);
        assert_eq!(
            (failed[0].kind(), failed[0].is_unavailable()),
            ("provider", true)
        );
        assert_eq!(
            failed[0].to_string(),
            format!(
                "{HOST}/ns/alpha: provider {HOST}/ns/alpha was not found in any of the search \
                 locations"
            )
        );

        let mut plan = ProviderPlan::install(
            vec![(
                requirement("alpha", "~> 1.0", None),
                Origin::Methods(vec![net_mirror(), Origin::Registry]),
            )],
            platform("plan9_amd64"),
            SignatureCheck::new(T, SystemTime::now()),
            InstallRules::default(),
        );
        run(&mut plan, Mirror::Tree);
        let failed = failures(plan);
        assert_eq!(failed[0].kind(), "platform");
        assert_eq!(
            failed[0].to_string(),
            format!(
                "{HOST}/ns/alpha 1.1.0 for plan9_amd64: provider {HOST}/ns/alpha 1.1.0 is not \
                 available for plan9_amd64"
            )
        );
    }

    /// A list inside the list is read as its methods in its place.
    #[test]
    fn lists_are_flattened() {
        let nested = Origin::Methods(vec![
            Origin::Methods(vec![filesystem("alpha", &[("1.0.0", "linux_amd64")])]),
            Origin::Methods(vec![Origin::Registry]),
        ]);
        let mut plan = ProviderPlan::install(
            vec![(requirement("alpha", "~> 1.0", None), nested)],
            platform("linux_amd64"),
            SignatureCheck::new(T, SystemTime::now()),
            InstallRules::default(),
        );
        run(&mut plan, Mirror::Tree);
        assert_eq!(the_lock(plan).method, Some(1));
    }
}

/// OpenTofu's `network_mirror { trust_all_hashes = true }` (MIRROR-14): the
/// hashes the mirror lists for every platform vouch for the archive, and
/// are recorded once it matched one of them, for the providers of
/// OpenTofu's default registry (whose hashes need no signature).
mod trusted {
    use super::common::{Net, Reply};
    use super::*;
    use tfdisco_core::{Config, Transfer};
    use tfdisco_provider::plan::{InstallRules, InstalledPackages, Origin, ProviderLock};

    const O: Dialect = Dialect::OpenTofu;

    fn alpha(host: &str) -> Requirement {
        Requirement {
            source: ProviderSource::parse(&format!("{host}/ns/alpha"), O).expect("a source"),
            constraints: VersionConstraints::parse("~> 1.0", O).expect("constraints"),
            locked: None,
            recorded: None,
        }
    }

    /// mirror-fresh's file at `path` (under any host's folder), edited.
    fn tree_file(path: &str, edit: &dyn Fn(&mut serde_json::Value)) -> Vec<u8> {
        let (_, rest) = path.split_once('/').expect("HOST/…");
        let bytes = mirror::file(&format!("{HOST}/{rest}"));
        if !path.ends_with(".json") {
            return bytes;
        }
        let mut value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        edit(&mut value);
        serde_json::to_vec(&value).expect("JSON")
    }

    /// Installs alpha from the mirror (trusted or not) with `check`, its
    /// documents edited by `edit`: the lock, or the failures.
    fn install(
        host: &str,
        trusted: bool,
        check: SignatureCheck,
        edit: &dyn Fn(&mut serde_json::Value),
    ) -> Result<Vec<ProviderLock>, Vec<LockFailure>> {
        let origin = match trusted {
            true => Origin::TrustedNetworkMirror(mirror::base()),
            false => Origin::NetworkMirror(mirror::base()),
        };
        let mut plan = ProviderPlan::install(
            vec![(alpha(host), Origin::Methods(vec![origin]))],
            platform("linux_amd64"),
            check,
            InstallRules::default(),
        );
        let config = Config::new(O);
        while let Some((id, job)) = plan.next_job() {
            let url = match &job {
                Job::MirrorVersions { mirror, source } => Some(mirror.versions_url(source)),
                Job::MirrorArchives {
                    mirror,
                    source,
                    version,
                } => Some(mirror.archives_url(source, version)),
                Job::Archive { url, .. } => Some(url.clone()),
                _ => None,
            };
            let mut net = Net::new();
            if let Some(url) = &url {
                let path = url.path().strip_prefix(mirror::PATH).expect("the mirror's");
                let bytes = tree_file(path, edit);
                net.on(
                    url.as_str(),
                    Reply::new(200)
                        .header("Content-Type", "application/json")
                        .body(&bytes),
                );
            }
            let now = net.now();
            let result = match job {
                Job::Installed { .. } => Ok(JobOutput::Installed(InstalledPackages::default())),
                Job::MirrorVersions { mirror, source } => net
                    .run(Transfer::network_mirror_versions(
                        &mirror, &source, &config, None, now,
                    ))
                    .map(JobOutput::MirrorVersions),
                Job::MirrorArchives {
                    mirror,
                    source,
                    version,
                } => net
                    .run(Transfer::network_mirror_archives(
                        &mirror, &source, &version, &config, None, now,
                    ))
                    .map(|a| JobOutput::MirrorArchives(Box::new(a))),
                Job::Archive { url, .. } => {
                    let path = url.path().strip_prefix(mirror::PATH).expect("the mirror's");
                    Ok(archive(&tree_file(path, edit)))
                }
                other => panic!("no other job: {other:?}"),
            };
            plan.complete(id, result);
        }
        plan.finish()
    }

    fn listed(platform: &str) -> String {
        let text =
            String::from_utf8(mirror::file(&format!("{HOST}/ns/alpha/1.1.0.json"))).expect("text");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        value["archives"][platform]["hashes"][0]
            .as_str()
            .expect("a hash")
            .to_owned()
    }

    fn opentofu() -> SignatureCheck {
        SignatureCheck::new(O, SystemTime::now())
    }

    fn unchanged(_: &mut serde_json::Value) {}

    #[test]
    fn every_platforms_hashes_are_recorded_for_the_default_registry() {
        let all = {
            let mut all: Vec<String> = ["darwin_arm64", "linux_amd64", "windows_amd64"]
                .into_iter()
                .map(listed)
                .collect();
            all.sort();
            all
        };
        let lock = install("registry.opentofu.org", true, opentofu(), &unchanged)
            .expect("installed")
            .remove(0);
        assert_eq!(
            lock.hashes, all,
            "the linux h1: is the package's and the matched one"
        );
        assert_eq!(
            lock.trust,
            Trust::Checksum,
            "verified checksum: one matched"
        );

        // Not trusted: this platform's, as without the setting.
        let plain = install("registry.opentofu.org", false, opentofu(), &unchanged)
            .expect("installed")
            .remove(0);
        assert_eq!(plain.hashes, [listed("linux_amd64")]);
    }

    #[test]
    fn signed_hashes_only_elsewhere_or_when_signatures_are_required() {
        let mut enforced = opentofu();
        enforced.require_signature = true;
        for (host, check) in [
            ("example.com", opentofu()),
            ("registry.opentofu.org", enforced),
        ] {
            let lock = install(host, true, check, &unchanged)
                .expect("installed")
                .remove(0);
            assert_eq!(lock.hashes, [listed("linux_amd64")], "{host}");
        }
        // Terraform has no such setting: the origin is a plain mirror.
        let lock = install(
            "registry.opentofu.org",
            true,
            SignatureCheck::new(T, SystemTime::now()),
            &unchanged,
        )
        .expect("installed")
        .remove(0);
        assert_eq!(lock.hashes, [listed("linux_amd64")]);
    }

    /// Another platform's hashes vouch for the archive too: with none for
    /// this platform, the archive must match one of theirs (and cannot);
    /// without the setting it is unauthenticated.
    #[test]
    fn other_platforms_hashes_vouch() {
        let no_linux = |value: &mut serde_json::Value| {
            if let Some(entry) = value.pointer_mut("/archives/linux_amd64/hashes") {
                *entry = serde_json::json!([]);
            }
        };
        let failed = install("registry.opentofu.org", true, opentofu(), &no_linux)
            .expect_err("no listed hash matches");
        assert_eq!(failed[0].kind(), "checksum");
        assert!(
            failed[0]
                .to_string()
                .contains("provider package doesn't match the any of the expected checksums"),
            "{}",
            failed[0]
        );
        let lock = install("registry.opentofu.org", false, opentofu(), &no_linux)
            .expect("installed")
            .remove(0);
        assert_eq!(lock.trust, Trust::Unauthenticated);

        // A null entry of another platform is an invalid answer (D20).
        let null_darwin = |value: &mut serde_json::Value| {
            value["archives"]["darwin_arm64"] = serde_json::Value::Null;
        };
        let failed = install("registry.opentofu.org", true, opentofu(), &null_darwin)
            .expect_err("a null entry");
        assert_eq!(failed[0].kind(), "request");
        install("registry.opentofu.org", false, opentofu(), &null_darwin)
            .expect("another platform's entry is not read");
    }
}
