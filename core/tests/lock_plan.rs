//! The plan of a lock run, driven by hand with no sockets: canned registry
//! answers and the signed registry fixture's real files (docs/behaviour.md,
//! LOCKRUN-1 to LOCKRUN-4).

use std::path::PathBuf;
use std::time::SystemTime;

use tfdisco_core::lock_plan::{
    ArchiveSink, Job, JobId, JobOutput, LockFailure, LockPlan, LockProblem, Requirement,
};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Dialect, Error, Platform, ProviderPackage, ProviderSource, ProviderVersion, ProviderVersions,
    SignatureCheck, SigningKey, Sink, Trust, Version, VersionConstraints,
};

const T: Dialect = Dialect::Terraform;
const HOST: &str = "registry.example.com";

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../transports/testkit/fixtures/signed-registry")
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
    }
}

fn platform(given: &str) -> Platform {
    Platform::parse(given).expect("a platform")
}

fn new_plan(requirements: Vec<Requirement>, platforms: &[&str]) -> LockPlan {
    LockPlan::new(
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

/// The bytes behind a download URL of the fixture.
fn download(url: &Url) -> Vec<u8> {
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
fn run(plan: &mut LockPlan, spoil: impl Fn(&Url, &mut Vec<u8>)) -> Vec<Job> {
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
    })
}

fn failures(plan: LockPlan) -> Vec<LockFailure> {
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
    let kinds: Vec<&str> = jobs
        .iter()
        .map(|j| match j {
            Job::Versions { .. } => "versions",
            Job::Package { .. } => "package",
            Job::Document { .. } => "document",
            Job::Archive { .. } => "archive",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "versions", "package", "package", "document", "document", "archive", "archive"
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
    assert_eq!((failure.kind(), failure.exit_code()), ("checksum", 1));
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
    assert_eq!(failures[0].exit_code(), 1);
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
    assert_eq!((failure.kind(), failure.exit_code()), ("version", 3));
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
    assert_eq!(failure.exit_code(), 3);
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
    assert_eq!((failure.kind(), failure.exit_code()), ("platform", 3));
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
            .all(|f| f.kind() == "request" && f.exit_code() == 1)
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
