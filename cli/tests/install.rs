//! `tfdisco install` as a process against the signed registry on the
//! loopback test server: many processes sharing one plugin cache, the
//! command's exit codes and `--json`, and a real `terraform init` after it.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::{TestServer, signed_registry};

/// A configuration requiring `ns/alpha` (~> 1.0) and `ns/beta` of `host`.
fn configuration(dir: &Path, host: &str) {
    fs::create_dir_all(dir).expect("a folder");
    fs::write(
        dir.join("main.tf"),
        format!(
            "terraform {{\n  required_providers {{\n    alpha = {{\n      source  = \"{host}/ns/alpha\"\n      version = \"~> 1.0\"\n    }}\n    beta = {{\n      source = \"{host}/ns/beta\"\n    }}\n  }}\n}}\n"
        ),
    )
    .expect("main.tf");
}

/// `tfdisco install --dialect terraform --ca-file CA --chdir DIR args…`.
fn install(home: &Path, dir: &Path, args: &[&str]) -> Run {
    let ca = ca_file();
    let chdir = dir.to_string_lossy().into_owned();
    let mut all = vec![
        "install",
        "--dialect",
        "terraform",
        "--ca-file",
        ca.as_str(),
        "--chdir",
        chdir.as_str(),
    ];
    all.extend_from_slice(args);
    tfdisco(home, &[], &all)
}

/// The archives the server sent (`GET …zip`).
fn downloads(server: &TestServer) -> Vec<String> {
    let mut paths: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with(".zip"))
        .map(|r| r.path.clone())
        .collect();
    paths.sort();
    paths
}

/// `tfdisco install --dialect terraform --json` in each of `dirs` at once,
/// all with the plugin cache `cache`: every run's exit code and lock file.
fn install_at_once(home: &Path, dirs: &[std::path::PathBuf], cache: &Path) -> Vec<String> {
    let ca = ca_file();
    let children: Vec<_> = dirs
        .iter()
        .map(|dir| {
            let child = Command::new(env!("CARGO_BIN_EXE_tfdisco"))
                .args([
                    "install",
                    "--dialect",
                    "terraform",
                    "--ca-file",
                    &ca,
                    "--json",
                ])
                .arg("--chdir")
                .arg(dir)
                .arg("--plugin-cache")
                .arg(cache)
                .env_clear()
                .env("HOME", home)
                .env("PATH", "/usr/bin:/bin")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("tfdisco runs");
            (dir, child)
        })
        .collect();
    let mut locks = Vec::new();
    for (dir, child) in children {
        let run = Run::from(child.wait_with_output().expect("it ends"));
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        locks.push(fs::read_to_string(dir.join(".terraform.lock.hcl")).expect("a lock file"));
    }
    locks
}

/// The `h1:` of the registry's packages for linux_amd64, as a lock file
/// writes it, and whether the plugin cache `cache` holds exactly their
/// files (compared with the packages unpacked into `scratch`).
fn genuine(cache: &Path, host: &str, scratch: &Path) -> Vec<(String, bool)> {
    use tfdisco_testkit::install_goldens::{Change, Package};
    [("alpha", "1.1.0"), ("beta", "0.10.0")]
        .iter()
        .map(|&(name, version)| {
            let file = signed_registry::package_file(name, version, "linux_amd64");
            let zip = signed_registry::file(name, version, &file);
            let h1 = tfdisco_provider::hash_package(zip).expect("a package").h1();
            let package = Package {
                name,
                version,
                change: Change::None,
            };
            package.unpack(scratch, host);
            let same = files(&package.path(scratch, host)) == files(&package.path(cache, host));
            (h1, same)
        })
        .collect()
}

/// Every file under `dir` (path relative to it, bytes), sorted.
fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = fs::read(&path).expect("a file");
                out.push((path.strip_prefix(dir).expect("inside").to_owned(), bytes));
            }
        }
    }
    out.sort();
    out
}

const ALPHA_ZIP: &str = "/files/ns/alpha/1.1.0/terraform-provider-alpha_1.1.0_linux_amd64.zip";
const BETA_ZIP: &str = "/files/ns/beta/0.10.0/terraform-provider-beta_0.10.0_linux_amd64.zip";

/// Eight processes at once into one empty plugin cache, each working folder
/// with a lock file that records the packages (the usual CI case): all
/// succeed, each package is downloaded once in all (the others wait for
/// the cache entry's lock and link what the first put there, which the lock
/// file vouches for), and nothing beside the packages but their lock files
/// is written into the cache (INSTALL-3, INSTALL-12).
#[test]
fn eight_processes_with_lock_files_share_one_empty_cache() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");
    let first = scratch.path().join("first");
    configuration(&first, &host);
    let run = install(&home, &first, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lock = fs::read_to_string(first.join(".terraform.lock.hcl")).expect("a lock file");
    let cache = scratch.path().join("cache");
    fs::create_dir(&cache).expect("the cache");
    let dirs: Vec<_> = (0..8)
        .map(|i| {
            let dir = scratch.path().join(format!("work{i}"));
            configuration(&dir, &host);
            fs::write(dir.join(".terraform.lock.hcl"), &lock).expect("a lock file");
            dir
        })
        .collect();
    server.take_requests();
    let locks = install_at_once(&home, &dirs, &cache);
    assert_eq!(
        downloads(&server),
        [ALPHA_ZIP, BETA_ZIP],
        "each package once in all"
    );
    for written in &locks {
        assert_eq!(written, &lock, "the lock file as it was");
    }
    for (h1, same) in genuine(&cache, &host, &scratch.path().join("genuine")) {
        assert!(lock.contains(h1.as_str()), "{h1} in\n{lock}");
        assert!(same, "the cache holds the registry's package");
    }
    let mut beside: Vec<String> = ["alpha/1.1.0", "beta/0.10.0"]
        .iter()
        .flat_map(|version| {
            let dir = cache.join(format!("{host}/ns/{version}"));
            fs::read_dir(&dir)
                .expect("a version folder")
                .map(|entry| {
                    entry
                        .expect("an entry")
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    beside.sort();
    assert_eq!(
        beside,
        [
            "linux_amd64",
            "linux_amd64",
            "linux_amd64.lock",
            "linux_amd64.lock"
        ],
        "the packages and OpenTofu's lock files only"
    );
}

/// Eight processes at once into one empty plugin cache with no lock file:
/// all succeed and each verifies its own download against the registry's
/// signature (the cache vouches for nothing, as in Terraform and
/// OpenTofu); every lock file is the same and records the genuine
/// packages (INSTALL-3, INSTALL-12).
#[test]
fn eight_processes_without_lock_files_each_verify_a_download() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let scratch = tempfile::tempdir().expect("a folder");
    let cache = scratch.path().join("cache");
    fs::create_dir(&cache).expect("the cache");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");
    let dirs: Vec<_> = (0..8)
        .map(|i| {
            let dir = scratch.path().join(format!("work{i}"));
            configuration(&dir, &host);
            dir
        })
        .collect();
    let locks = install_at_once(&home, &dirs, &cache);
    let got = downloads(&server);
    for zip in [ALPHA_ZIP, BETA_ZIP] {
        assert_eq!(got.iter().filter(|path| *path == zip).count(), 8, "{got:?}");
    }
    for lock in &locks {
        assert_eq!(
            lock, &locks[0],
            "every working folder got the same lock file"
        );
    }
    for (h1, same) in genuine(&cache, &host, &scratch.path().join("genuine")) {
        assert!(locks[0].contains(h1.as_str()), "{h1} in\n{}", locks[0]);
        assert!(same, "the cache holds the registry's package");
    }
}

/// The command's exit codes and `--json`: a fresh install (0), the same
/// again under `--lockfile readonly` (0, nothing asked), a lock file that
/// would change under it (3, nothing placed), a damaged archive (1).
#[test]
fn exit_codes_and_json() {
    let server = TestServer::start();
    let registry = signed_registry::install(&server);
    let host = server.host().to_string();
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");
    let dir = scratch.path().join("work");
    configuration(&dir, &host);

    let fresh = install(&home, &dir, &["--json"]);
    assert_eq!(fresh.code, Some(0), "{}", fresh.stderr);
    let report = fresh.json();
    assert_eq!(report["changed"], true);
    assert_eq!(report["platform"], "linux_amd64");
    let providers = report["providers"].as_array().expect("providers");
    assert_eq!(providers.len(), 2);
    assert_eq!(providers[0]["installed"], "downloaded");
    assert!(providers[0]["bytes"].as_u64().expect("bytes") > 0);
    assert!(
        dir.join(format!(
            ".terraform/providers/{host}/ns/alpha/1.1.0/linux_amd64/terraform-provider-alpha_v1.1.0"
        ))
        .is_file()
    );

    server.take_requests();
    let again = install(&home, &dir, &["--lockfile", "readonly", "--json"]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(again.json()["providers"][0]["installed"], "reused");
    assert!(server.requests().is_empty(), "nothing asked");

    // A new provider under --lockfile readonly: exit 3, nothing placed.
    let other = scratch.path().join("other");
    configuration(&other, &host);
    let refused = install(&home, &other, &["--lockfile", "readonly"]);
    assert_eq!(refused.code, Some(3), "{}", refused.stderr);
    assert!(refused.stderr.contains("read-only"), "{}", refused.stderr);
    assert!(!other.join(".terraform").exists(), "nothing placed");
    assert!(!other.join(".terraform.lock.hcl").exists());

    // A damaged archive: exit 1, nothing placed.
    registry.corrupt("alpha", "1.1.0", "linux_amd64");
    let damaged = scratch.path().join("damaged");
    configuration(&damaged, &host);
    let failed = install(&home, &damaged, &["--json"]);
    assert_eq!(failed.code, Some(1), "{}", failed.stdout);
    let error = failed.json();
    assert_eq!(error["failures"][0]["kind"], "checksum", "{error}");
    assert!(!damaged.join(".terraform").exists(), "nothing placed");
}

/// After `tfdisco install`, a real `terraform init -lockfile=readonly` in
/// the same folder succeeds and downloads nothing: what tfdisco placed is
/// what Terraform would have (INSTALL-1, INSTALL-5). An oracle check: it
/// says it is skipped where there is no `terraform` (the goldens pin the
/// same without it).
#[test]
fn terraform_init_after_tfdisco_install_downloads_nothing() {
    use tfdisco_testkit::install_goldens::{run_terraform_init, terraform_available};
    if !terraform_available() {
        eprintln!("skipped: no terraform on the PATH");
        return;
    }
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");
    let dir = scratch.path().join("work");
    configuration(&dir, &host);
    let run = install(&home, &dir, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lock_before = fs::read(dir.join(".terraform.lock.hcl")).expect("a lock file");
    server.take_requests();
    let config = scratch.path().join("terraformrc");
    fs::write(&config, "").expect("an empty CLI configuration");
    let (code, output) = run_terraform_init(
        &dir,
        &[
            ("HOME", home.as_os_str()),
            ("TF_CLI_CONFIG_FILE", config.as_os_str()),
        ],
        &["-lockfile=readonly"],
    );
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("Using previously-installed"), "{output}");
    assert!(
        downloads(&server).is_empty(),
        "Terraform downloaded {:?}",
        downloads(&server)
    );
    assert_eq!(
        fs::read(dir.join(".terraform.lock.hcl")).expect("a lock file"),
        lock_before,
        "the lock file as tfdisco wrote it"
    );
}

/// INSTALL-14: a provider the CLI configuration's `dev_overrides` names is
/// not installed (nor downloaded), a warning names the folder that
/// overrides it, and the lock file keeps what it held for it; the other
/// providers install as before.
#[test]
fn a_development_override_is_not_installed_and_keeps_its_lock_entry() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let home = tempfile::tempdir().expect("temp dir");
    let work = tempfile::tempdir().expect("temp dir");
    let dir = work.path().join("run");
    configuration(&dir, &host);
    let first = install(home.path(), &dir, &[]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let lock_path = dir.join(".terraform.lock.hcl");
    let locked = fs::read_to_string(&lock_path).expect("a lock file");
    assert!(locked.contains(&format!("\"{host}/ns/alpha\"")), "{locked}");
    fs::remove_dir_all(dir.join(".terraform")).expect("a fresh start");

    let over = work.path().join("alpha-dev");
    fs::create_dir_all(&over).expect("the override's folder");
    fs::write(
        home.path().join(".terraformrc"),
        format!(
            "provider_installation {{\n  dev_overrides {{\n    \"{host}/ns/alpha\" = \"{}\"\n  }}\n  direct {{}}\n}}\n",
            over.display()
        ),
    )
    .expect("the CLI configuration");
    let alpha = |paths: Vec<String>| paths.iter().filter(|p| p.contains("alpha")).count();
    let before = alpha(downloads(&server));
    let second = install(home.path(), &dir, &[]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert!(
        second.stderr.contains(&format!(
            "{host}/ns/alpha is not installed: a development override uses {}",
            over.display()
        )),
        "{}",
        second.stderr
    );
    let providers = dir.join(".terraform/providers").join(&host).join("ns");
    assert!(!providers.join("alpha").exists(), "alpha was installed");
    assert!(providers.join("beta").is_dir(), "beta was not installed");
    assert_eq!(
        alpha(downloads(&server)),
        before,
        "alpha was downloaded again"
    );
    assert_eq!(
        fs::read_to_string(&lock_path).expect("a lock file"),
        locked,
        "the lock file changed"
    );
}

/// Several installation methods (INSTALL-13): `tfdisco install --json`
/// names, for each provider, the method its package came from (a network
/// mirror's URL, `registry`, a filesystem mirror's folder), with its trust,
/// on the golden cases of several methods; and a failed query of a method
/// is the provider's failure, not a fallback.
#[test]
fn several_methods_say_where_each_package_came_from() {
    use tfdisco_testkit::install_goldens::case;

    let run_case = |name: &str| {
        let server = TestServer::start();
        let scratch = tempfile::tempdir().expect("a folder");
        let setup = case(name).setup(&server, scratch.path());
        let env: Vec<(&str, String)> = setup
            .env()
            .into_iter()
            .map(|(k, v)| (k, v.to_string_lossy().into_owned()))
            .collect();
        let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let ca = ca_file();
        let dir = setup.dir.to_string_lossy().into_owned();
        let run = tfdisco(
            &setup.home,
            &vars,
            &[
                "install",
                "--dialect",
                "terraform",
                "--ca-file",
                &ca,
                "--chdir",
                &dir,
                "--json",
            ],
        );
        let from: Vec<(String, String, String)> = run
            .json()
            .get("providers")
            .and_then(|p| p.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|p| {
                let field = |name: &str| p[name].as_str().unwrap_or_default().to_owned();
                (field("source"), field("from"), field("trust"))
            })
            .collect();
        let mirror = server.url("/mirror/");
        (run, from, setup, mirror)
    };

    let (run, from, setup, mirror) = run_case("net-mirror-then-direct");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let host = &setup.host;
    assert_eq!(
        from,
        [
            (
                format!("{host}/ns/alpha"),
                mirror,
                "verified checksum".to_owned()
            ),
            (
                format!("{host}/ns/beta"),
                "registry".to_owned(),
                "self-signed".to_owned()
            ),
        ]
    );

    let (run, from, setup, _) = run_case("fs-mirror-packed-unpacked");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let folder = |name: &str| setup.dir.join(name).to_string_lossy().into_owned();
    let froms: Vec<&str> = from.iter().map(|(_, from, _)| from.as_str()).collect();
    assert_eq!(froms, [folder("fs-unpacked"), folder("fs-packed")]);

    let (run, _, _, _) = run_case("net-mirror-unknown-provider");
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let error = run.json();
    assert_eq!(error["failures"][0]["kind"], "request", "{error}");
    assert!(
        error["failures"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does not have archive index for previously-reported")),
        "{error}"
    );
}
