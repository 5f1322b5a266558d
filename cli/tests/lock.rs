//! `tfdisco lock` against the signed registry on the loopback test server:
//! Terraform's golden lock files (and, with `--enable-plugin-cache`, its
//! plugin caches), exit codes, `--json`, messages.

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
    lock_with(dir, &[], args)
}

/// [`lock`] with these environment variables.
fn lock_with(dir: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
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
    tfdisco(home.path(), vars, &all)
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
/// with the case's exit code and the lock file as it was; with a plugin
/// cache (`TF_PLUGIN_CACHE_DIR`, and `TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE`
/// for may-break), the cache Terraform left and the archives it downloaded.
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
        if case.enable_plugin_cache {
            args.push("--enable-plugin-cache".to_owned());
        }
        let mut vars = Vec::new();
        let cache = setup.cache.as_ref().map(|c| c.display().to_string());
        if let Some(cache) = &cache {
            vars.push(("TF_PLUGIN_CACHE_DIR", cache.as_str()));
        }
        if setup.may_break {
            vars.push(("TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE", "1"));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        server.take_requests();
        let run = lock_with(&setup.dir, &vars, &args);
        let after = fs::read_to_string(setup.dir.join(LOCK_FILE)).ok();
        assert_eq!(after, case.expected(&host), "{}: {}", case.name, run.stderr);
        if let Err(problem) = case.check_run(&setup, &server.requests(), &host) {
            panic!("{}: {problem}", case.name);
        }
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

/// `--plugin-cache DIR` names the cache (with `--enable-plugin-cache`
/// only); `--json` keeps its shape, a provider whose every package came
/// from the cache reported as matching the lock file, without a key.
#[test]
fn the_plugin_cache_folder_on_the_command_line() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let fill = case("cache-fill");
    let host = server.host().to_string();
    let scratch = tempfile::tempdir().expect("temp dir");
    let setup = fill.setup(&server, &host, scratch.path());
    let cache = setup.cache.clone().expect("a cache");
    let cache_arg = cache.display().to_string();

    let alone = lock(&setup.dir, &["--plugin-cache", &cache_arg]);
    assert_eq!(alone.code, Some(2), "{}", alone.stderr);
    assert!(
        alone.stderr.contains("--enable-plugin-cache"),
        "{}",
        alone.stderr
    );

    let mut args = platform_args(fill);
    args.extend(["--enable-plugin-cache", "--plugin-cache", &cache_arg].map(str::to_owned));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    server.take_requests();
    let filled = lock(&setup.dir, &args);
    assert_eq!(filled.code, Some(0), "{}", filled.stderr);
    let after = fs::read_to_string(setup.dir.join(LOCK_FILE)).ok();
    assert_eq!(after, fill.expected(&host));
    if let Err(problem) = fill.check_run(&setup, &server.requests(), &host) {
        panic!("{problem}");
    }

    // Again, with the lock file just written: every entry from the cache.
    let mut again = args.clone();
    again.push("--json");
    server.take_requests();
    let hit = lock(&setup.dir, &again);
    assert_eq!(hit.code, Some(0), "{}", hit.stderr);
    let archives: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.path.clone())
        .filter(|p| p.ends_with(".zip"))
        .collect();
    assert!(archives.is_empty(), "{archives:?}");
    let v = hit.json();
    assert_eq!(v["changed"], false);
    assert_eq!(
        v["platforms"],
        serde_json::json!(["linux_amd64", "darwin_arm64"])
    );
    for provider in v["providers"].as_array().expect("providers") {
        assert_eq!(provider["trust"], "matches the lock file");
        assert_eq!(provider["key_id"], serde_json::Value::Null);
        assert_eq!(provider["hashes_added"], serde_json::json!([]));
    }

    // A folder that is not there: warned about, locked without it.
    let missing = scratch.path().join("missing").display().to_string();
    let mut without = platform_args(fill);
    without.extend(["--enable-plugin-cache", "--plugin-cache", &missing].map(str::to_owned));
    let without: Vec<&str> = without.iter().map(String::as_str).collect();
    let run = lock(&setup.dir, &without);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("cannot be opened"), "{}", run.stderr);
    assert!(!scratch.path().join("missing").exists());
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
