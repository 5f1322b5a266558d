//! `tfdisco mirror` and `tfdisco lock --net-mirror/--fs-mirror` through the
//! command line: Terraform's golden folders and lock files, exit codes,
//! `--json`, usage errors.

mod common;

use std::fs;

use common::{ca_file, tfdisco};
use tfdisco_testkit::mirror_goldens::{CASES, read_tree};
use tfdisco_testkit::{TestServer, signed_registry};

/// `tfdisco mirror --dialect terraform --ca-file CA --chdir DIR FOLDER args…`.
fn mirror(dir: &std::path::Path, folder: &std::path::Path, args: &[&str]) -> common::Run {
    let home = tempfile::tempdir().expect("temp dir");
    let ca = ca_file();
    let chdir = dir.to_string_lossy().into_owned();
    let folder = folder.to_string_lossy().into_owned();
    let mut all = vec![
        "mirror",
        "--dialect",
        "terraform",
        "--ca-file",
        ca.as_str(),
        "--chdir",
        chdir.as_str(),
        folder.as_str(),
    ];
    all.extend_from_slice(args);
    tfdisco(home.path(), &[], &all)
}

/// MIRROR-9 to MIRROR-13: every case through the command line, the folder
/// byte for byte as Terraform wrote it.
#[test]
fn every_golden_case() {
    for case in CASES {
        let server = TestServer::start();
        signed_registry::install(&server);
        let host = server.host().to_string();
        let scratch = tempfile::tempdir().expect("temp dir");
        let dir = scratch.path().join("run");
        case.prepare(&dir, &host);
        let out = scratch.path().join("out");
        case.seed(&out, &host);
        let mut args = Vec::new();
        for platform in case.platforms {
            args.extend(["--platform", platform]);
        }
        let run = mirror(&dir, &out, &args);
        assert_eq!(run.code, Some(0), "{}: {}", case.name, run.stderr);
        assert_eq!(read_tree(&out), case.expected(&host), "{}", case.name);
        assert!(
            run.stdout.contains("Selected v"),
            "{}: {}",
            case.name,
            run.stdout
        );
    }
}

#[test]
fn json_and_failures() {
    let server = TestServer::start();
    let registry = signed_registry::install(&server);
    let host = server.host().to_string();
    let case = CASES
        .iter()
        .find(|c| c.name == "mirror-fresh")
        .expect("case");
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = scratch.path().join("run");
    case.prepare(&dir, &host);
    let out = scratch.path().join("out");

    let run = mirror(&dir, &out, &["--platform", "linux_amd64", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["platforms"], serde_json::json!(["linux_amd64"]));
    assert_eq!(v["providers"][0]["source"], format!("{host}/ns/alpha"));
    assert_eq!(v["providers"][0]["version"], "1.1.0");
    assert_eq!(v["providers"][0]["locked"], false);
    assert_eq!(v["providers"][0]["trust"], "self-signed");
    assert_eq!(v["indexes"].as_array().map(Vec::len), Some(4));

    // A corrupt archive: exit 1, the folder as it was.
    let before = read_tree(&out);
    registry.corrupt("beta", "0.10.0", "darwin_arm64");
    let failed = mirror(&dir, &out, &["--platform", "darwin_arm64", "--json"]);
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    let v = failed.json();
    assert_eq!(v["failures"][0]["kind"], "checksum");
    assert_eq!(v["failures"][0]["platform"], "darwin_arm64");
    assert_eq!(read_tree(&out), before);
}

/// A configuration that requires no provider: nothing to mirror, the
/// folder made, exit 0.
#[test]
fn nothing_to_mirror() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("new").join("mirror");
    let run = mirror(dir.path(), &out, &["--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(out.is_dir());
    assert_eq!(run.json()["providers"], serde_json::json!([]));
}

#[test]
fn usage_errors_exit_2() {
    let home = tempfile::tempdir().expect("temp dir");
    let missing = tfdisco(home.path(), &[], &["mirror"]);
    assert_eq!(missing.code, Some(2), "{}", missing.stderr);
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("main.tf"), "terraform {\n").expect("write");
    let out = dir.path().join("out");
    let broken = mirror(dir.path(), &out, &[]);
    assert_eq!(broken.code, Some(2), "{}", broken.stderr);
    assert!(broken.stderr.contains("main.tf"), "{}", broken.stderr);
    assert!(!out.exists());

    let both = tfdisco(
        home.path(),
        &[],
        &[
            "lock",
            "--net-mirror",
            "https://m.example/",
            "--fs-mirror",
            "/tmp",
        ],
    );
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    let http = tfdisco(
        home.path(),
        &[],
        &["lock", "--net-mirror", "http://m.example/"],
    );
    assert_eq!(http.code, Some(2), "{}", http.stderr);
    assert!(http.stderr.contains("https: URL"), "{}", http.stderr);
}

#[test]
fn help_lists_the_options() {
    let home = tempfile::tempdir().expect("temp dir");
    let help = tfdisco(home.path(), &[], &["mirror", "--help"]);
    assert_eq!(help.code, Some(0));
    for words in [
        "--platform <OS_ARCH>",
        "--chdir <DIR>",
        "--lock-file",
        "--json",
        "Exit codes",
    ] {
        assert!(help.stdout.contains(words), "{words:?} in {}", help.stdout);
    }
    let lock = tfdisco(home.path(), &[], &["lock", "--help"]);
    for words in ["--net-mirror <URL>", "--fs-mirror <DIR>"] {
        assert!(lock.stdout.contains(words), "{words:?} in {}", lock.stdout);
    }
}
