//! `tfdisco lock` against the signed registry on the loopback test server:
//! Terraform's golden lock files, exit codes, `--json`, messages.

mod common;

use std::fs;
use std::path::Path;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::lock_goldens::{CASES, Case, LOCK_FILE, Outcome};
use tfdisco_testkit::{TestServer, signed_registry};

fn case(name: &str) -> &'static Case {
    CASES.iter().find(|c| c.name == name).expect("a case")
}

/// `tfdisco lock --dialect terraform --chdir DIR --ca-file CA args…`.
fn lock(dir: &Path, args: &[&str]) -> Run {
    let home = tempfile::tempdir().expect("temp dir");
    let ca = ca_file();
    let chdir = dir.to_string_lossy().into_owned();
    let mut all = vec![
        "lock",
        "--dialect",
        "terraform",
        "--ca-file",
        ca.as_str(),
        "--chdir",
        chdir.as_str(),
    ];
    all.extend_from_slice(args);
    tfdisco(home.path(), &[], &all)
}

/// The case's input in a temporary directory, for `server`.
fn prepared(case: &Case, server: &TestServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    case.prepare(dir.path(), server.host().as_ref());
    dir
}

fn platform_args(case: &Case) -> Vec<String> {
    case.platforms
        .iter()
        .flat_map(|p| ["--platform".to_owned(), (*p).to_owned()])
        .collect()
}

/// Every case, through the command line: Terraform's bytes, or its refusal
/// with the case's exit code and the lock file as it was.
#[test]
fn every_golden_case() {
    for case in CASES {
        let server = TestServer::start();
        let host = case.host(&server);
        let scratch = tempfile::tempdir().expect("temp dir");
        let setup = case.setup(&server, &host, scratch.path());
        let mut args = platform_args(case);
        args.extend(case.provider_args(&host));
        if let Some(mirror) = &setup.fs_mirror {
            args.extend(["--fs-mirror".to_owned(), mirror.display().to_string()]);
        }
        if let Some(url) = &setup.net_mirror {
            args.extend(["--net-mirror".to_owned(), url.clone()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = lock(&setup.dir, &args);
        let after = fs::read_to_string(setup.dir.join(LOCK_FILE)).ok();
        assert_eq!(after, case.expected(&host), "{}: {}", case.name, run.stderr);
        match case.outcome {
            Outcome::Written => {
                assert_eq!(run.code, Some(0), "{}: {}", case.name, run.stderr);
            }
            Outcome::Refused { exit, words } => {
                assert_eq!(run.code, Some(exit), "{}: {}", case.name, run.stderr);
                for word in words {
                    assert!(
                        run.stderr.contains(word),
                        "{}: {word:?} in {}",
                        case.name,
                        run.stderr
                    );
                }
            }
        }
    }
}

#[test]
fn json_reports_each_provider() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let fresh = case("fresh");
    let dir = prepared(fresh, &server);
    let run = lock(dir.path(), &["--platform", "linux_amd64", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["changed"], true);
    assert_eq!(v["platforms"], serde_json::json!(["linux_amd64"]));
    let host = server.host().to_string();
    let providers = v["providers"].as_array().expect("providers");
    assert_eq!(providers.len(), 2);
    assert_eq!(providers[0]["source"], format!("{host}/ns/alpha"));
    assert_eq!(providers[0]["version"], "1.1.0");
    assert_eq!(providers[0]["constraints"], "~> 1.0");
    assert_eq!(providers[0]["trust"], "self-signed");
    assert_eq!(providers[0]["key_id"], signed_registry::key_id());
    // One h1 for the platform, a zh for each of the three archives.
    assert_eq!(
        providers[0]["hashes_added"].as_array().map(Vec::len),
        Some(4)
    );

    // Again: nothing to add, nothing written.
    let again = lock(dir.path(), &["--platform", "linux_amd64", "--json"]);
    let v = again.json();
    assert_eq!(v["changed"], false);
    assert_eq!(v["providers"][1]["hashes_added"], serde_json::json!([]));
}

#[test]
fn json_failures_name_provider_platform_and_kind() {
    let server = TestServer::start();
    let registry = signed_registry::install(&server);
    registry.corrupt("alpha", "1.1.0", "linux_amd64");
    let dir = prepared(case("fresh"), &server);
    let run = lock(dir.path(), &["--platform", "linux_amd64", "--json"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["error"]["exit_code"], 1);
    let failure = &v["failures"][0];
    assert_eq!(failure["source"], format!("{}/ns/alpha", server.host()));
    assert_eq!(failure["version"], "1.1.0");
    assert_eq!(failure["platform"], "linux_amd64");
    assert_eq!(failure["kind"], "checksum");
    assert!(!dir.path().join(LOCK_FILE).exists());
}

#[test]
fn usage_errors_exit_2() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let dir = prepared(case("fresh"), &server);
    let bad_platform = lock(dir.path(), &["--platform", "Linux-AMD64"]);
    assert_eq!(bad_platform.code, Some(2), "{}", bad_platform.stderr);
    assert!(
        bad_platform.stderr.contains("Linux-AMD64"),
        "{}",
        bad_platform.stderr
    );

    let other = format!("{}/ns/gamma", server.host());
    let not_required = lock(dir.path(), &[&other]);
    assert_eq!(not_required.code, Some(2), "{}", not_required.stderr);
    assert!(
        not_required
            .stderr
            .contains("is not required by the current configuration"),
        "{}",
        not_required.stderr
    );

    // One rule for jobs in every front end: 0 is refused, not made 1.
    let no_jobs = lock(dir.path(), &["--jobs", "0"]);
    assert_eq!(no_jobs.code, Some(2), "{}", no_jobs.stderr);
    assert!(
        no_jobs.stderr.contains("jobs must be at least 1"),
        "{}",
        no_jobs.stderr
    );

    fs::write(dir.path().join("broken.tf"), "terraform {\n").expect("write");
    let broken = lock(dir.path(), &[]);
    assert_eq!(broken.code, Some(2), "{}", broken.stderr);
    assert!(broken.stderr.contains("broken.tf"), "{}", broken.stderr);
    assert!(!dir.path().join(LOCK_FILE).exists());
}

#[test]
fn help_lists_exit_codes() {
    let home = tempfile::tempdir().expect("temp dir");
    let help = tfdisco(home.path(), &[], &["lock", "--help"]);
    assert_eq!(help.code, Some(0));
    for words in [
        "--platform <OS_ARCH>",
        "--chdir <DIR>",
        "--json",
        "Exit codes",
        "3 no",
    ] {
        assert!(help.stdout.contains(words), "{words:?} in {}", help.stdout);
    }
}
