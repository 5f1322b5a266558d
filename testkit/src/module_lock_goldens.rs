//! Golden lock files of the real `terraform get` followed by `terraform
//! providers lock -platform=…` (Terraform 1.11.4) on configurations whose
//! providers are required inside modules, one per [`Case`]: what `tfdisco
//! lock` must leave on a fresh copy of the same input (no `.terraform`),
//! as it installs the configuration's remote modules first (MOD-11).
//!
//! One loopback [`TestServer`] serves everything under one host,
//! [`REGISTRY_HOST`] (no port): the CLI configuration's `host` block gives
//! its `modules.v1` and its `providers.v1` on the test server. So the
//! providers' addresses in the lock file (`registry.example.test/ns/alpha`),
//! the module packages' bytes and the git repository's commit ids are the
//! same at every run.
//!
//! - The providers are the [signed registry](crate::signed_registry)'s,
//!   `ns/alpha` and `ns/beta`.
//! - The module registry (namespace `tfdisco`, system `test`, every
//!   download `./pkg.zip` beside the download URL but [`TAR_MODULE`]'s,
//!   `./pkg.tar.gz`): `uses-alpha` 1.0.0 (and `uses-alpha-tar` 1.0.0)
//!   requires alpha `~> 1.0`; `outer` 1.0.0 calls `inner` `~> 1.0`;
//!   `inner` 1.0.0 requires alpha `>= 1.0.0`, 1.1.0 requires alpha
//!   `>= 1.1.0`. Zips, as tfdisco does not unpack tar archives yet: the
//!   one tar case is a [known difference](Case::known_difference).
//! - The git repository `{GIT}/providers.git` ([`make_providers_repo`],
//!   the real `git`, fixed identities and dates): tagged `v1.0.0`, a module
//!   requiring beta with no constraint; then on `main` one requiring beta
//!   `0.9.0`.
//!
//! Each case is a folder of `fixtures/module-lock-goldens/`: `input/` (the
//! configuration), `modules.json` (`.terraform/modules/modules.json` after
//! `terraform get`), `terraform.lock.hcl` (the lock file after `terraform
//! providers lock`) and `terraform.out` (what the two printed), with the
//! placeholders of [`Setup::normalize`] (`{HOST}`, `{GIT}`, …); the order
//! of the providers' lines in `terraform.out` changes from run to run
//! (it is not compared).
//! `cargo run -p tfdisco-testkit --bin module-lock-goldens [CASE…]` makes
//! them again with the `terraform` and `git` on the PATH; the tests never
//! need Terraform (the set-up needs `git`).
//!
//! What Terraform 1.11.4 does that may surprise:
//!
//! - `providers lock` refuses to run before `get` (`Module not installed`,
//!   exit 1), local module calls too: the goldens are `get`, then `lock`;
//! - a provider no module constrains gets no `constraints` line, and its
//!   `version` is not aligned (`version = "0.10.0"`: `registry-and-git`);
//! - the constraints of every module are merged into one line, each once,
//!   in Terraform's order, not the modules': `">= 1.1.0, < 2.0.0"`
//!   (`nested-merged`, `inner` 1.1.0's, not 1.0.0's, with the root's),
//!   `"0.9.0, ~> 0.9"` (`local-wraps-registry`, the git module at
//!   `?ref=main` with the root's);
//! - the lock file holds an `h1:` for each platform asked and the `zh:` of
//!   every platform (as `lock_goldens` shows).
//!
//! ```no_run
//! use tfdisco_testkit::TestServer;
//! use tfdisco_testkit::module_lock_goldens::CASES;
//!
//! for case in CASES {
//!     let server = TestServer::start();
//!     let scratch = tempfile::tempdir().expect("a temporary folder");
//!     let setup = case.setup(&server, scratch.path());
//!     // … `tfdisco lock --platform …` in `setup.dir` with `setup.env()` …
//!     let _lock = case.terraform_lock(&setup); // the lock file's bytes
//!     let _json = case.terraform_modules_json(&setup); // modules.json's
//! }
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use crate::install_goldens::stored_zip;
use crate::module_goldens::git::git;
use crate::module_goldens::registry::{MODULES_PATH, NAMESPACE, SYSTEM};
use crate::module_goldens::tar::{Entry, tar_gz};
use crate::module_goldens::{mkdir, read_fixture};
use crate::{Reply, TestServer, signed_registry};

pub use crate::golden_files::LOCK_FILE;
pub use crate::module_goldens::{HOST, MODULES_DIR, MODULES_JSON, REGISTRY_HOST, Setup};

/// The path of the signed registry's `providers.v1` on the test server.
pub const PROVIDERS_PATH: &str = "/v1/providers/";

/// The git repository's folder name inside the git folder (`{GIT}`).
pub const PROVIDERS_REPO: &str = "providers.git";

/// The commit tagged `v1.0.0` in [`PROVIDERS_REPO`].
pub const PROVIDERS_TAG_COMMIT: &str = "6a0cab8a59eecc40cb536b666f3c0828e6b5a792";
/// The newest commit on `main` in [`PROVIDERS_REPO`].
pub const PROVIDERS_MAIN_COMMIT: &str = "6ed4e5c4a4b5ec14dc1ef675aa378269349fd170";

/// The committed lock file (Terraform's `.terraform.lock.hcl`).
pub const LOCK_GOLDEN: &str = "terraform.lock.hcl";

/// One golden case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its folder under `fixtures/module-lock-goldens/`.
    pub name: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// The platforms locked (`-platform=…`, `--platform …`).
    pub platforms: &'static [&'static str],
    /// Where tfdisco is known to leave something else than Terraform (a
    /// bug or a missing feature, in a line): the test checks that it still
    /// does, and fails once it no longer does, so the mark goes. `None`:
    /// the same lock file and `modules.json`.
    pub known_difference: Option<&'static str>,
}

/// Every case, in the order the generator makes them.
pub const CASES: &[Case] = &[
    Case {
        name: "registry-and-git",
        about: "a registry module requiring alpha ~> 1.0 and a git module (?ref=v1.0.0) requiring beta with no constraint; two platforms",
        platforms: &["linux_amd64", "darwin_arm64"],
        known_difference: None,
    },
    Case {
        name: "nested-merged",
        about: "a registry module calling another (~> 1.0: inner 1.1.0) that requires alpha >= 1.1.0, the root requiring alpha < 2.0.0: the constraints merged",
        platforms: &["linux_amd64"],
        known_difference: None,
    },
    Case {
        name: "registry-and-git-all-platforms",
        about: "registry-and-git's configuration locked for three platforms",
        platforms: &["linux_amd64", "darwin_arm64", "windows_amd64"],
        known_difference: None,
    },
    Case {
        name: "local-wraps-registry",
        about: "a local module calling the registry module requiring alpha ~> 1.0, the root requiring beta ~> 0.9 and the git module at main (beta 0.9.0)",
        platforms: &["windows_amd64"],
        known_difference: None,
    },
    Case {
        name: "registry-tar",
        about: "registry-and-git with the registry module's package a .tar.gz",
        platforms: &["linux_amd64"],
        known_difference: None,
    },
];

/// The folder holding every case's folder.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/module-lock-goldens")
}

/// The case named `name`; panics when there is none.
pub fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no module lock golden case {name}"))
}

/// A module's `terraform` block requiring `provider` (`alpha`, `beta`) of
/// the registry `host`, with `constraint` (none: no `version`).
fn requires(host: &str, provider: &str, constraint: Option<&str>) -> String {
    let version = constraint
        .map(|c| format!("\n      version = \"{c}\""))
        .unwrap_or_default();
    format!(
        "terraform {{\n  required_providers {{\n    {provider} = {{\n      source  = \"{host}/{}/{provider}\"{version}\n    }}\n  }}\n}}\n",
        signed_registry::NAMESPACE
    )
}

/// The module registry's packages: name, version, `main.tf`, for the
/// registry `host`.
fn packages(host: &str) -> Vec<(&'static str, &'static str, String)> {
    vec![
        (
            "uses-alpha",
            "1.0.0",
            requires(host, "alpha", Some("~> 1.0")),
        ),
        (
            "outer",
            "1.0.0",
            format!(
                "module \"inner\" {{\n  source  = \"{host}/{NAMESPACE}/inner/{SYSTEM}\"\n  version = \"~> 1.0\"\n}}\n"
            ),
        ),
        ("inner", "1.0.0", requires(host, "alpha", Some(">= 1.0.0"))),
        ("inner", "1.1.0", requires(host, "alpha", Some(">= 1.1.0"))),
        (TAR_MODULE, "1.0.0", requires(host, "alpha", Some("~> 1.0"))),
    ]
}

/// The one module whose package is a `.tar.gz` (`./pkg.tar.gz`):
/// `uses-alpha`'s package as a tar.
pub const TAR_MODULE: &str = "uses-alpha-tar";

/// Serves on `server` the module registry (its packages calling the
/// registry `host`) and the signed registry's providers API and files;
/// every other path is a `404`. No discovery document: the CLI
/// configuration's `host` block names the services.
pub fn serve(server: &TestServer, host: &str) {
    server.route_prefix("/", Reply::new(404).body(b"not found"));
    signed_registry::install_registry(server);
    let mut versions: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, version, main) in packages(host) {
        match versions.iter_mut().find(|(n, _)| *n == name) {
            Some((_, list)) => list.push(version),
            None => versions.push((name, vec![version])),
        }
        let base = format!("{MODULES_PATH}{NAMESPACE}/{name}/{SYSTEM}/{version}");
        let (file, kind, archive) = if name == TAR_MODULE {
            let entries = [Entry::File("main.tf", 0o644, main.as_bytes())];
            ("pkg.tar.gz", "application/x-gzip", tar_gz(&entries))
        } else {
            let entries = [("main.tf", 0o100_644, main.as_bytes())];
            ("pkg.zip", "application/zip", stored_zip(&entries))
        };
        server.route(
            &format!("{base}/download"),
            Reply::new(204).header("X-Terraform-Get", &format!("./{file}")),
        );
        server.route(
            &format!("{base}/{file}"),
            Reply::new(200).header("Content-Type", kind).body(&archive),
        );
    }
    for (name, list) in versions {
        let listed: Vec<String> = list
            .iter()
            .map(|v| format!("{{\"version\":\"{v}\"}}"))
            .collect();
        server.route(
            &format!("{MODULES_PATH}{NAMESPACE}/{name}/{SYSTEM}/versions"),
            Reply::json(&format!(
                "{{\"modules\":[{{\"versions\":[{}]}}]}}",
                listed.join(",")
            )),
        );
    }
}

/// Makes the repository `folder/providers.git` with the real `git` (an
/// old one there is replaced): `main.tf` requiring beta of `host` with no
/// constraint, tagged `v1.0.0`; then on `main`, requiring beta `0.9.0`.
/// Returns its path.
pub fn make_providers_repo(folder: &Path, host: &str) -> PathBuf {
    let repo = folder.join(PROVIDERS_REPO);
    let _ = fs::remove_dir_all(&repo);
    mkdir(&repo, 0o755);
    let first = "2026-01-02T03:04:05Z";
    git(&repo, first, &["init", "-q", "-b", "main"]);
    crate::module_goldens::git::write(&repo.join("main.tf"), 0o644, &requires(host, "beta", None));
    git(&repo, first, &["add", "-A"]);
    git(&repo, first, &["commit", "-q", "-m", "beta"]);
    git(&repo, first, &["tag", "v1.0.0"]);
    let second = "2026-01-03T03:04:05Z";
    crate::module_goldens::git::write(
        &repo.join("main.tf"),
        0o644,
        &requires(host, "beta", Some("0.9.0")),
    );
    git(&repo, second, &["commit", "-q", "-a", "-m", "beta 0.9.0"]);
    repo
}

impl Case {
    /// This case's folder.
    pub fn dir(&self) -> PathBuf {
        goldens_dir().join(self.name)
    }

    /// Sets a run up on `server` in `scratch`, without Terraform: serves
    /// the module and provider registries ([`serve`]), makes the git
    /// repository in `scratch/git`, copies `input/` into `scratch/work`
    /// (the placeholders filled in; no `.terraform`), writes the CLI
    /// configuration `scratch/terraformrc` (the `host` block) and makes an
    /// empty `scratch/home`.
    pub fn setup(&self, server: &TestServer, scratch: &Path) -> Setup {
        let git = scratch.join("git");
        make_providers_repo(&git, REGISTRY_HOST);
        serve(server, REGISTRY_HOST);
        let setup = Setup {
            dir: scratch.join("work"),
            cli_config: scratch.join("terraformrc"),
            home: scratch.join("home"),
            git,
            host: REGISTRY_HOST.to_owned(),
            server_host: server.host().to_string(),
            remotes: None,
        };
        setup.copy_filled(&self.dir().join("input"), &setup.dir);
        mkdir(&setup.home, 0o755);
        let config = format!(
            "disable_checkpoint = true\nhost \"{REGISTRY_HOST}\" {{\n  services = {{\n    \"modules.v1\"   = \"{}\"\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
            server.url(MODULES_PATH),
            server.url(PROVIDERS_PATH)
        );
        fs::write(&setup.cli_config, config)
            .unwrap_or_else(|e| panic!("{}: {e}", setup.cli_config.display()));
        setup
    }

    /// `-platform=P` for each platform: `terraform providers lock`'s.
    pub fn terraform_platform_args(&self) -> Vec<String> {
        self.platforms
            .iter()
            .map(|p| format!("-platform={p}"))
            .collect()
    }

    /// `--platform P` for each platform: `tfdisco lock`'s.
    pub fn tfdisco_platform_args(&self) -> Vec<&'static str> {
        self.platforms
            .iter()
            .flat_map(|p| ["--platform", *p])
            .collect()
    }

    /// The lock file Terraform wrote, placeholders filled in for `setup`.
    pub fn terraform_lock(&self, setup: &Setup) -> String {
        setup.fill(&read_fixture(&self.dir().join(LOCK_GOLDEN)))
    }

    /// The `modules.json` Terraform's `get` wrote, placeholders filled in
    /// for `setup`.
    pub fn terraform_modules_json(&self, setup: &Setup) -> String {
        setup.fill(&read_fixture(&self.dir().join(MODULES_JSON)))
    }

    /// What Terraform printed (`get`'s, then `providers lock`'s), with the
    /// placeholders.
    pub fn terraform_output(&self) -> String {
        read_fixture(&self.dir().join("terraform.out"))
    }
}

impl Setup {
    /// The lock file in the working directory now, if any.
    pub fn lock_file(&self) -> Option<String> {
        crate::module_goldens::read_optional(&self.dir.join(LOCK_FILE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_goldens::git::{commit_of, git_available};

    #[test]
    fn every_case_has_its_files() {
        for case in CASES {
            let dir = case.dir();
            for file in ["input/main.tf", MODULES_JSON, LOCK_GOLDEN, "terraform.out"] {
                assert!(dir.join(file).is_file(), "{}: {file}", case.name);
            }
            assert!(!case.platforms.is_empty(), "{}", case.name);
        }
    }

    /// The repository's commits are the same at every run.
    #[test]
    fn the_repository_is_the_same_at_every_run() {
        if !git_available() {
            eprintln!("skipped: git does not run");
            return;
        }
        let scratch = tempfile::tempdir().expect("a folder");
        let repo = make_providers_repo(scratch.path(), REGISTRY_HOST);
        assert_eq!(commit_of(&repo, "v1.0.0"), PROVIDERS_TAG_COMMIT);
        assert_eq!(commit_of(&repo, "main"), PROVIDERS_MAIN_COMMIT);
    }
}
