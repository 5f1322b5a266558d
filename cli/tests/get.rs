//! `tfdisco get` (docs/behaviour.md, MOD-1 to MOD-11), the real binary on
//! every transport against a module registry and an archive host on
//! loopback, and a Git repository the test makes with the real `git`:
//! the manifest byte for byte, the folders, a re-run without a request,
//! `--upgrade`, and a failure that leaves everything as it was.
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::{Run, TRANSPORTS, ca_file, get_in, tfdisco};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::{Reply, TestServer};

/// A module registry with `acme/net/aws` 1.0.0 and 1.1.0, whose 1.1.0
/// package is a zip one folder down (`X-Terraform-Get: ./pkg.zip//net`).
fn registry(versions: &[&str]) -> TestServer {
    let server = TestServer::start();
    server.route(
        "/.well-known/terraform.json",
        Reply::json(r#"{"modules.v1": "/v1/modules/"}"#),
    );
    let list: Vec<String> = versions
        .iter()
        .map(|v| format!(r#"{{"version": "{v}"}}"#))
        .collect();
    server.route(
        "/v1/modules/acme/net/aws/versions",
        Reply::json(&format!(
            r#"{{"modules": [{{"versions": [{}]}}]}}"#,
            list.join(",")
        )),
    );
    for version in versions {
        server.route(
            &format!("/v1/modules/acme/net/aws/{version}/download"),
            Reply::new(204).header("X-Terraform-Get", "./pkg.zip//net"),
        );
        let main = format!("# net {version}\nmodule \"shared\" {{ source = \"../shared\" }}\n");
        let zip = stored_zip(&[
            ("net/main.tf", 0o100_644, main.as_bytes()),
            ("net/run.sh", 0o100_755, b"#!/bin/sh\n"),
            ("shared/main.tf", 0o100_600, b"# shared\n"),
        ]);
        server.route(
            &format!("/v1/modules/acme/net/aws/{version}/pkg.zip"),
            Reply::new(200).body(&zip),
        );
    }
    server
}

/// A Git repository with one commit, tagged `v1.0.0`.
fn repository(dir: &Path) {
    fs::create_dir_all(dir.join("sub")).expect("a folder");
    fs::write(dir.join("main.tf"), "# git root\n").expect("a file");
    fs::write(dir.join("sub/main.tf"), "# git sub\n").expect("a file");
    fs::write(dir.join(".gitignore"), "*.tfstate\n").expect("a file");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "one",
        ],
        &["tag", "v1.0.0"],
    ] {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    }
}

struct Setup {
    _scratch: tempfile::TempDir,
    home: std::path::PathBuf,
    dir: std::path::PathBuf,
    repo: std::path::PathBuf,
}

fn setup(server: &TestServer, version: &str) -> Setup {
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    let dir = scratch.path().join("work");
    let repo = scratch.path().join("repo");
    fs::create_dir_all(&home).expect("a home");
    fs::create_dir_all(dir.join("modules/app")).expect("a folder");
    repository(&repo);
    fs::write(
        dir.join("main.tf"),
        format!(
            r#"module "net" {{
  source  = "127.0.0.1:{port}/acme/net/aws"
  version = "{version}"
}}
module "app" {{ source = "./modules/app" }}
module "git" {{ source = "git::file://{repo}?ref=v1.0.0" }}
module "again" {{ source = "git::file://{repo}//sub?ref=v1.0.0" }}
"#,
            port = server.port(),
            repo = repo.display(),
        ),
    )
    .expect("a configuration");
    fs::write(dir.join("modules/app/main.tf"), "# app\n").expect("a file");
    Setup {
        _scratch: scratch,
        home,
        dir,
        repo,
    }
}

fn get(setup: &Setup, transport: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--transport", transport];
    args.extend_from_slice(extra);
    get_in(&setup.home, &setup.dir, "terraform", &args)
}

fn manifest(setup: &Setup) -> String {
    fs::read_to_string(setup.dir.join(".terraform/modules/modules.json")).expect("a manifest")
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).expect("there").permissions().mode() & 0o7777
}

#[test]
fn registry_zip_git_and_local_modules_on_every_transport() {
    for transport in TRANSPORTS {
        let server = registry(&["1.0.0", "1.1.0"]);
        let setup = setup(&server, "~> 1.0");
        let run = get(&setup, transport, &[]);
        assert_eq!(run.code, Some(0), "{transport}: {}", run.stderr);
        let host = format!("127.0.0.1:{}", server.port());
        let repo = setup.repo.display();
        assert_eq!(
            manifest(&setup),
            format!(
                concat!(
                    r#"{{"Modules":[{{"Key":"","Source":"","Dir":"."}},"#,
                    r#"{{"Key":"again","Source":"git::file://{repo}//sub?ref=v1.0.0","Dir":".terraform/modules/again/sub"}},"#,
                    r#"{{"Key":"app","Source":"./modules/app","Dir":"modules/app"}},"#,
                    r#"{{"Key":"git","Source":"git::file://{repo}?ref=v1.0.0","Dir":".terraform/modules/git"}},"#,
                    r#"{{"Key":"net","Source":"{host}/acme/net/aws","Version":"1.1.0","Dir":".terraform/modules/net/net"}},"#,
                    r#"{{"Key":"net.shared","Source":"../shared","Dir":".terraform/modules/net/shared"}}]}}"#
                ),
                host = host,
                repo = repo
            ),
            "{transport}"
        );
        let modules = setup.dir.join(".terraform/modules");
        assert_eq!(
            fs::read_to_string(modules.join("net/net/main.tf")).expect("a file"),
            "# net 1.1.0\nmodule \"shared\" { source = \"../shared\" }\n"
        );
        assert_eq!(mode(&modules.join("net/net/run.sh")), 0o755);
        assert_eq!(mode(&modules.join("net/shared/main.tf")), 0o600);
        // `again` is walked first: it keeps the clone, `.git` and all;
        // `git` gets a copy without dot files.
        assert!(modules.join("again/.git").is_dir(), "{transport}");
        assert!(modules.join("again/.gitignore").is_file(), "{transport}");
        assert!(!modules.join("git/.git").exists(), "{transport}");
        assert!(!modules.join("git/.gitignore").exists(), "{transport}");
        assert_eq!(
            fs::read_to_string(modules.join("git/sub/main.tf")).expect("a file"),
            "# git sub\n"
        );
        let leftovers: Vec<String> = fs::read_dir(&modules)
            .expect("the modules folder")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(leftovers.is_empty(), "{transport}: {leftovers:?}");

        // A second run keeps everything and asks nothing.
        server.take_requests();
        let before = manifest(&setup);
        let again = get(&setup, transport, &["--json"]);
        assert_eq!(again.code, Some(0), "{transport}: {}", again.stderr);
        assert!(server.take_requests().is_empty(), "{transport}");
        assert_eq!(manifest(&setup), before);
        let report = again.json();
        assert_eq!(report["changed"], false);
        assert_eq!(report["modules"][3]["key"], "net");
        assert_eq!(report["modules"][3]["installed"], "kept");

        // --upgrade fetches everything again.
        let upgraded = get(&setup, transport, &["--upgrade"]);
        assert_eq!(upgraded.code, Some(0), "{transport}: {}", upgraded.stderr);
        let paths = server.paths();
        assert!(paths.iter().any(|p| p.ends_with("/versions")), "{paths:?}");
        assert!(
            paths.iter().any(|p| p.ends_with("/1.1.0/pkg.zip")),
            "{paths:?}"
        );
        assert_eq!(manifest(&setup), before);
    }
}

#[test]
fn a_failure_places_nothing_and_keeps_the_manifest() {
    let server = registry(&["1.0.0"]);
    let setup = setup(&server, "1.0.0");
    let run = get(&setup, "tokio", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let before = manifest(&setup);
    let modules = setup.dir.join(".terraform/modules");

    // The version asked for is gone, and the archive of the next one too.
    fs::write(
        setup.dir.join("main.tf"),
        fs::read_to_string(setup.dir.join("main.tf"))
            .expect("the configuration")
            .replace("\"1.0.0\"", "\">= 2.0\""),
    )
    .expect("a configuration");
    let failed = get(&setup, "tokio", &["--json"]);
    assert_eq!(failed.code, Some(3), "{}", failed.stdout);
    let report = failed.json();
    assert_eq!(report["error"]["kind"], "modules");
    assert_eq!(report["failures"][0]["key"], "net");
    assert_eq!(report["failures"][0]["kind"], "no_version");
    assert_eq!(manifest(&setup), before);
    assert!(modules.join("net/net/main.tf").is_file());

    server.route(
        "/v1/modules/acme/net/aws/versions",
        Reply::json(r#"{"modules": [{"versions": [{"version": "2.0.0"}]}]}"#),
    );
    server.route(
        "/v1/modules/acme/net/aws/2.0.0/download",
        Reply::new(204).header("X-Terraform-Get", "./gone.zip"),
    );
    server.route("/v1/modules/acme/net/aws/2.0.0/gone.zip", Reply::new(404));
    let failed = get(&setup, "tokio", &[]);
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("Failed to download module"),
        "{}",
        failed.stderr
    );
    assert_eq!(manifest(&setup), before);
    assert_eq!(
        fs::read_to_string(modules.join("net/net/main.tf")).expect("kept"),
        "# net 1.0.0\nmodule \"shared\" { source = \"../shared\" }\n"
    );
    let names: Vec<String> = fs::read_dir(&modules)
        .expect("the modules folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(!names.iter().any(|n| n.starts_with('.')), "{names:?}");
}

#[test]
fn lock_installs_missing_modules_first() {
    let server = registry(&["1.0.0"]);
    let setup = setup(&server, "1.0.0");
    let ca = ca_file();
    let dir = setup.dir.to_string_lossy().into_owned();
    let args = [
        "lock",
        "--chdir",
        &dir,
        "--ca-file",
        &ca,
        "--dialect",
        "terraform",
    ];
    let run = tfdisco(&setup.home, &[], &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(manifest(&setup).contains(r#""Key":"net.shared""#));
    // Installed now, the modules are kept by the next run.
    server.take_requests();
    let again = tfdisco(&setup.home, &[], &args);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(server.take_requests().is_empty());
}

fn lock_file(setup: &Setup) -> String {
    fs::read_to_string(setup.dir.join(".tfdisco.modules.lock.json")).expect("a module lock")
}

#[test]
fn the_module_lock_keeps_versions_and_refuses_another_package() {
    let server = registry(&["1.0.0", "1.1.0"]);
    let setup = setup(&server, ">= 1.0");
    // Without --lock, no lock is written.
    let run = get(&setup, "tokio", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!setup.dir.join(".tfdisco.modules.lock.json").exists());

    // --lock fetches what the lock has no entry for, for its hash.
    server.take_requests();
    let locked = get(&setup, "tokio", &["--lock"]);
    assert_eq!(locked.code, Some(0), "{}", locked.stderr);
    assert!(server.paths().iter().any(|p| p.ends_with("/1.1.0/pkg.zip")));
    let lock: serde_json::Value = serde_json::from_str(&lock_file(&setup)).expect("JSON");
    assert_eq!(lock["version"], 1);
    let modules = lock["modules"].as_object().expect("modules");
    let keys: Vec<&String> = modules.keys().collect();
    assert_eq!(
        keys,
        ["again", "git", "net"],
        "local modules are not locked"
    );
    assert_eq!(modules["net"]["version"], "1.1.0");
    assert!(
        modules["net"]["hash"]
            .as_str()
            .expect("a hash")
            .starts_with("h1:")
    );
    let commit = modules["git"]["hash"].as_str().expect("a hash");
    assert!(commit.starts_with("git:") && commit.len() == 44, "{commit}");
    assert_eq!(modules["again"]["hash"], modules["git"]["hash"]);

    // A newer version: a fresh install keeps the locked one.
    let server_versions = r#"{"modules": [{"versions": [{"version": "1.0.0"}, {"version": "1.1.0"}, {"version": "1.2.0"}]}]}"#;
    server.route(
        "/v1/modules/acme/net/aws/versions",
        Reply::json(server_versions),
    );
    server.route(
        "/v1/modules/acme/net/aws/1.2.0/download",
        Reply::new(204).header("X-Terraform-Get", "./pkg.zip//net"),
    );
    fs::remove_dir_all(setup.dir.join(".terraform")).expect("removed");
    let again = get(&setup, "tokio", &[]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(
        manifest(&setup).contains(r#""Version":"1.1.0""#),
        "{}",
        manifest(&setup)
    );

    // The same version, another package: refused, nothing placed.
    let other = stored_zip(&[("net/main.tf", 0o100_644, b"# not the same\n")]);
    server.route(
        "/v1/modules/acme/net/aws/1.1.0/pkg.zip",
        Reply::new(200).body(&other),
    );
    fs::remove_dir_all(setup.dir.join(".terraform")).expect("removed");
    let before = lock_file(&setup);
    let refused = get(&setup, "tokio", &[]);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(refused.stderr.contains("module lock"), "{}", refused.stderr);
    assert!(!setup.dir.join(".terraform/modules/net").exists());
    assert_eq!(lock_file(&setup), before);
}

/// A fresh working directory beside `setup`'s with the same configuration
/// and module lock.
fn another_dir(setup: &Setup, name: &str) -> Setup {
    let dir = setup.dir.parent().expect("a parent").join(name);
    fs::create_dir_all(dir.join("modules/app")).expect("a folder");
    for file in [
        "main.tf",
        ".tfdisco.modules.lock.json",
        "modules/app/main.tf",
    ] {
        fs::copy(setup.dir.join(file), dir.join(file)).expect("copied");
    }
    Setup {
        _scratch: tempfile::tempdir().expect("a folder"),
        home: setup.home.clone(),
        dir,
        repo: setup.repo.clone(),
    }
}

fn archive_downloads(server: &TestServer) -> usize {
    server
        .take_requests()
        .iter()
        .filter(|seen| seen.path.ends_with(".zip"))
        .count()
}

#[test]
fn a_warm_module_cache_installs_without_a_download_and_vouches_for_nothing() {
    let server = registry(&["1.0.0", "1.1.0"]);
    let first = setup(&server, "~> 1.0");
    let cache = first.dir.parent().expect("a parent").join("cache");
    let cache_arg = cache.to_string_lossy().into_owned();
    let run = get(&first, "tokio", &["--lock", "--module-cache", &cache_arg]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(archive_downloads(&server), 1);

    // Another working directory: the archive from the cache, the git
    // repository too (it is gone).
    fs::rename(&first.repo, first.repo.with_extension("moved")).expect("moved");
    let second = another_dir(&first, "second");
    let run = get(&second, "curl", &["--module-cache", &cache_arg]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(archive_downloads(&server), 0, "no download");
    assert_eq!(manifest(&second), manifest(&first));
    let modules = second.dir.join(".terraform/modules");
    assert_eq!(mode(&modules.join("net/net/run.sh")), 0o755);
    assert!(modules.join("again/.git").is_dir());
    fs::rename(first.repo.with_extension("moved"), &first.repo).expect("moved back");

    // An entry someone changed is not taken: fetched again, the entry
    // replaced.
    let entries: Vec<std::path::PathBuf> = fs::read_dir(cache.join("v1"))
        .expect("entries")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("net/main.tf").is_file())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    fs::write(entries[0].join("net/main.tf"), "# planted\n").expect("planted");
    let third = another_dir(&first, "third");
    let run = get(&third, "async-std", &["--module-cache", &cache_arg]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(archive_downloads(&server), 1, "fetched again");
    let installed = third.dir.join(".terraform/modules/net/net/main.tf");
    assert!(
        fs::read_to_string(installed)
            .expect("a file")
            .starts_with("# net 1.1.0"),
        "the planted file is not installed"
    );
    assert!(
        fs::read_to_string(entries[0].join("net/main.tf"))
            .expect("a file")
            .starts_with("# net 1.1.0"),
        "the entry is replaced"
    );

    // A planted file in a git entry, likewise.
    let git_entry = fs::read_dir(cache.join("v1"))
        .expect("entries")
        .map(|e| e.expect("an entry").path())
        .find(|p| p.join(".git").is_dir())
        .expect("the git entry");
    fs::write(git_entry.join("planted.tf"), "# planted\n").expect("planted");
    let fourth = another_dir(&first, "fourth");
    let run = get(&fourth, "tokio", &["--module-cache", &cache_arg]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        !fourth
            .dir
            .join(".terraform/modules/again/planted.tf")
            .exists()
    );
    assert!(
        !git_entry.join("planted.tf").exists(),
        "the entry is replaced"
    );
}

#[test]
fn eight_processes_share_one_empty_module_cache_and_download_each_package_once() {
    let server = registry(&["1.0.0", "1.1.0"]);
    let first = setup(&server, "~> 1.0");
    let run = get(&first, "tokio", &["--lock"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    server.take_requests();
    let cache = first.dir.parent().expect("a parent").join("shared-cache");
    let cache_arg = cache.to_string_lossy().into_owned();
    let dirs: Vec<Setup> = (0..8)
        .map(|i| another_dir(&first, &format!("p{i}")))
        .collect();
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let handles: Vec<_> = dirs
            .iter()
            .map(|dir| scope.spawn(|| get(dir, "tokio", &["--module-cache", &cache_arg])))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a run"))
            .collect()
    });
    for (dir, run) in dirs.iter().zip(&runs) {
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(manifest(dir), manifest(&first));
    }
    assert_eq!(archive_downloads(&server), 1, "one download in all");
}

#[test]
fn a_folder_that_is_not_there_is_an_error_and_is_not_made() {
    let home = tempfile::tempdir().expect("a home");
    let missing = home.path().join("not-there");
    let dir = missing.to_string_lossy().into_owned();
    let run = tfdisco(
        home.path(),
        &[],
        &["get", "--chdir", &dir, "--dialect", "terraform"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("no such folder"), "{}", run.stderr);
    assert!(!missing.exists());
}
