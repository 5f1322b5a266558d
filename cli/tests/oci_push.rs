//! `tfdisco oci push-provider` against a real OCI registry (Debian's
//! `docker-registry`, Basic auth from the CLI configuration's
//! `oci_credentials` block; OCI-8): the signed registry's releases pushed,
//! then `tfdisco lock --oci-mirror` on them gives Terraform's lock file
//! from the registry; a second push sends no blob; wrong credentials are
//! exit 1 with no secret printed.

mod common;

use std::fs;
use std::path::Path;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::lock_goldens::CASES;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry};
use tfdisco_testkit::signed_registry::{self, NAMESPACE, PLATFORMS, PROVIDERS};

const SECRET: &str = "cli-push-secret";

/// A home whose CLI configuration gives `password` for `registry`.
fn home(registry: &OciRegistry, password: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    fs::write(
        home.path().join("tofu.rc"),
        format!(
            "oci_credentials \"{}\" {{\n  username = \"ci\"\n  password = \"{password}\"\n}}\n",
            registry.host()
        ),
    )
    .expect("the CLI configuration");
    home
}

fn run(home: &Path, args: &[&str]) -> Run {
    let config = home.join("tofu.rc").to_string_lossy().into_owned();
    let ca = ca_file();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--ca-file", ca.as_str(), "--dialect", "opentofu"]);
    tfdisco(home, &[("TF_CLI_CONFIG_FILE", config.as_str())], &all)
}

/// Pushes every release of the signed registry; gives each run.
fn push_all(registry: &OciRegistry, home: &Path, zips: &Path) -> Vec<Run> {
    let mut runs = Vec::new();
    for (name, versions) in PROVIDERS {
        let repository = format!("{}/pushed/{NAMESPACE}/{name}", registry.host());
        for version in versions {
            let mut files = Vec::new();
            for platform in PLATFORMS {
                let file = signed_registry::package_file(name, version, platform);
                let path = zips.join(&file);
                fs::write(&path, signed_registry::file(name, version, &file)).expect("a zip");
                files.push(path.to_string_lossy().into_owned());
            }
            let mut args = vec!["oci", "push-provider", repository.as_str(), version];
            args.extend(files.iter().map(String::as_str));
            runs.push(run(home, &args));
        }
    }
    runs
}

#[test]
fn pushed_releases_lock_as_terraform_locks_the_registry() {
    let registry = OciRegistry::start(OciAuth::basic("ci", SECRET));
    let home = home(&registry, SECRET);
    let zips = tempfile::tempdir().expect("temp dir");
    for first in push_all(&registry, home.path(), zips.path()) {
        assert_eq!(first.code, Some(0), "{}", first.stderr);
        assert!(!first.stdout.contains(" 0 blobs sent"), "{}", first.stdout);
    }
    for again in push_all(&registry, home.path(), zips.path()) {
        assert_eq!(again.code, Some(0), "{}", again.stderr);
        assert!(again.stdout.contains(" 0 blobs sent"), "{}", again.stdout);
    }
    // Promoted to another repository: every blob mounted, none sent.
    let from = format!("{}/pushed/{NAMESPACE}/alpha", registry.host());
    let to = format!("{}/promoted/{NAMESPACE}/alpha", registry.host());
    let mut args = vec!["oci", "push-provider", to.as_str(), "1.0.0", "--json"];
    let files: Vec<String> = PLATFORMS
        .iter()
        .map(|p| {
            let file = signed_registry::package_file("alpha", "1.0.0", p);
            zips.path().join(file).to_string_lossy().into_owned()
        })
        .collect();
    args.extend(files.iter().map(String::as_str));
    args.extend(["--mount-from", from.as_str()]);
    let promoted = run(home.path(), &args);
    assert_eq!(promoted.code, Some(0), "{}", promoted.stderr);
    let report = promoted.json();
    assert_eq!(report["blobs_sent"], 0, "{report}");
    assert_eq!(report["blobs_mounted"], PLATFORMS.len() + 1, "{report}");
    assert_eq!(report["tag"], "1.0.0", "{report}");
    assert_eq!(
        registry.tags(&format!("promoted/{NAMESPACE}/alpha")),
        vec!["1.0.0".to_owned()]
    );
    let case = CASES
        .iter()
        .find(|c| c.name == "fresh")
        .expect("the fresh case");
    let host = "registry.example.test";
    let work = tempfile::tempdir().expect("temp dir");
    let dir = work.path().join("run");
    case.prepare(&dir, host);
    let template = format!("{}/pushed/{{namespace}}/{{type}}", registry.host());
    let chdir = dir.to_string_lossy().into_owned();
    let mut args = vec![
        "lock",
        "--chdir",
        chdir.as_str(),
        "--oci-mirror",
        template.as_str(),
    ];
    for platform in case.platforms {
        args.extend(["--platform", platform]);
    }
    let locked = run(home.path(), &args);
    assert_eq!(locked.code, Some(0), "{}", locked.stderr);
    let written = fs::read_to_string(dir.join(".terraform.lock.hcl")).expect("a lock file");
    let expected = case.expected(host).expect("Terraform's lock file");
    let body = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&written), body(&expected));
}

#[test]
fn a_push_with_wrong_credentials_fails_and_says_no_secret() {
    let registry = OciRegistry::start(OciAuth::basic("ci", SECRET));
    let home = home(&registry, "not-the-secret");
    let zips = tempfile::tempdir().expect("temp dir");
    let file = signed_registry::package_file("alpha", "1.0.0", "linux_amd64");
    let path = zips.path().join(&file);
    fs::write(&path, signed_registry::file("alpha", "1.0.0", &file)).expect("a zip");
    let repository = format!("{}/pushed/ns/alpha", registry.host());
    let path = path.to_string_lossy().into_owned();
    let failed = run(
        home.path(),
        &[
            "oci",
            "push-provider",
            repository.as_str(),
            "1.0.0",
            path.as_str(),
        ],
    );
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert!(failed.stderr.contains("401"), "{}", failed.stderr);
    for text in [&failed.stdout, &failed.stderr] {
        assert!(
            !text.contains("not-the-secret") && !text.contains(SECRET),
            "{text}"
        );
    }
    // A zip whose name says another version is a usage error.
    let misnamed = run(
        home.path(),
        &[
            "oci",
            "push-provider",
            repository.as_str(),
            "2.0.0",
            path.as_str(),
        ],
    );
    assert_eq!(misnamed.code, Some(2), "{}", misnamed.stderr);
}

/// `tfdisco mirror --to-oci` copies what a configuration selects from the
/// signed registry (verified against its signatures) into OCI
/// repositories; `tfdisco lock --oci-mirror` on the copy then writes
/// Terraform's lock file from the registry. A second copy sends no blob.
#[test]
fn mirror_to_oci_then_lock_from_the_copy_gives_the_registrys_lock_file() {
    let server = tfdisco_testkit::TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let registry = OciRegistry::start(OciAuth::basic("ci", SECRET));
    let home = home(&registry, SECRET);
    let case = CASES
        .iter()
        .find(|c| c.name == "fresh")
        .expect("the fresh case");
    let work = tempfile::tempdir().expect("temp dir");
    let dir = work.path().join("run");
    case.prepare(&dir, &host);
    let chdir = dir.to_string_lossy().into_owned();
    let template = format!("{}/copy/{{namespace}}/{{type}}", registry.host());
    let mirror = |json: bool| {
        let mut args = vec![
            "mirror",
            "--chdir",
            chdir.as_str(),
            "--to-oci",
            template.as_str(),
        ];
        for platform in case.platforms {
            args.extend(["--platform", platform]);
        }
        if json {
            args.push("--json");
        }
        run(home.path(), &args)
    };
    let first = mirror(false);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert!(first.stdout.contains("- Mirrored"), "{}", first.stdout);
    // alpha's config and zips sent; beta's config mounted from alpha's
    // repository, its zips sent.
    assert!(
        first.stdout.contains("; 4 blobs sent, 0 mounted)")
            && first.stdout.contains("; 3 blobs sent, 1 mounted)"),
        "{}",
        first.stdout
    );
    assert!(
        !dir.join(".terraform.lock.hcl").exists(),
        "a mirror run writes no lock file"
    );

    let again = mirror(true);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    let report = again.json();
    assert_eq!(report["template"], template.as_str());
    let providers = report["providers"].as_array().expect("providers");
    assert_eq!(providers.len(), 2, "{report}");
    for provider in providers {
        assert_eq!(provider["blobs_sent"], 0, "{provider}");
        assert_eq!(provider["blobs_mounted"], 0, "{provider}");
        assert_eq!(
            provider["packages"].as_array().map(Vec::len),
            Some(case.platforms.len()),
            "{provider}"
        );
        let repository = provider["repository"].as_str().expect("repository");
        let tag = provider["tag"].as_str().expect("tag");
        let name = repository
            .strip_prefix(&format!("{}/", registry.host()))
            .expect("in the registry");
        assert_eq!(registry.tags(name), vec![tag.to_owned()], "{provider}");
    }

    let mut args = vec![
        "lock",
        "--chdir",
        chdir.as_str(),
        "--oci-mirror",
        template.as_str(),
    ];
    for platform in case.platforms {
        args.extend(["--platform", platform]);
    }
    let locked = run(home.path(), &args);
    assert_eq!(locked.code, Some(0), "{}", locked.stderr);
    let written = fs::read_to_string(dir.join(".terraform.lock.hcl")).expect("a lock file");
    let expected = case.expected(&host).expect("Terraform's lock file");
    let body = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&written), body(&expected));
}

/// A package that fails its checksum: exit 1, and nothing pushed at all,
/// not even the providers that passed. Wrong credentials: exit 1, no
/// secret printed.
#[test]
fn mirror_to_oci_pushes_nothing_when_a_package_fails() {
    let server = tfdisco_testkit::TestServer::start();
    let signed = signed_registry::install(&server);
    let host = server.host().to_string();
    let registry = OciRegistry::start(OciAuth::basic("ci", SECRET));
    let case = CASES
        .iter()
        .find(|c| c.name == "fresh")
        .expect("the fresh case");
    let work = tempfile::tempdir().expect("temp dir");
    let dir = work.path().join("run");
    case.prepare(&dir, &host);
    let chdir = dir.to_string_lossy().into_owned();
    let template = format!("{}/copy/{{namespace}}/{{type}}", registry.host());
    let args = [
        "mirror",
        "--chdir",
        chdir.as_str(),
        "--to-oci",
        template.as_str(),
        "--platform",
        "linux_amd64",
    ];

    let wrong = home(&registry, "not-the-secret");
    let refused = run(wrong.path(), &args);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(refused.stderr.contains("401"), "{}", refused.stderr);
    for text in [&refused.stdout, &refused.stderr] {
        assert!(
            !text.contains("not-the-secret") && !text.contains(SECRET),
            "{text}"
        );
    }

    let right = home(&registry, SECRET);
    signed.corrupt("beta", "0.10.0", "linux_amd64");
    let failed = run(right.path(), &args);
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert!(failed.stderr.contains("beta"), "{}", failed.stderr);
    for (name, _) in PROVIDERS {
        assert!(
            registry
                .tags(&format!("copy/{NAMESPACE}/{name}"))
                .is_empty(),
            "{name} was pushed"
        );
    }
    // A template that names no repository is a usage error, before any
    // download.
    let bad = run(
        right.path(),
        &[
            "mirror",
            "--chdir",
            chdir.as_str(),
            "--to-oci",
            "not a template{",
        ],
    );
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    // A template that gives both providers one repository would mix their
    // releases: refused before any download.
    let one = format!("{}/copy/all", registry.host());
    let mixed = run(
        right.path(),
        &[
            "mirror",
            "--chdir",
            chdir.as_str(),
            "--to-oci",
            one.as_str(),
        ],
    );
    assert_eq!(mixed.code, Some(2), "{}", mixed.stderr);
    assert!(
        mixed.stderr.contains("the same repository"),
        "{}",
        mixed.stderr
    );
    assert!(registry.tags("copy/all").is_empty());
}
