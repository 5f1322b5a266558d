//! Golden provider mirrors written by the real `terraform providers mirror`
//! against the [signed registry](crate::signed_registry), one per [`Case`],
//! and the trees the lock cases of [`lock_goldens`](crate::lock_goldens)
//! read as filesystem mirrors or serve as network mirrors.
//!
//! Each case is a folder of `fixtures/mirror-goldens/`: `input/` (the
//! configuration, with `{HOST}` where the registry's host goes, and the
//! lock file before the run, if any), `before/` when that lock file was
//! made by `providers lock` first, `tree/` (what Terraform wrote into the
//! output folder, under a folder named `{HOST}`) and `terraform.out` (what
//! it printed). `unpacked/tree/` is a mirror in the unpacked layout, made
//! from the same packages. `cargo run -p tfdisco-testkit --bin lock-goldens`
//! makes the cases again with the `terraform` on the PATH; the tests never
//! need it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::golden_files::{HOST, copy_text_tree, read_hosted};
use crate::{Reply, TestServer};

/// Where a test server serves a mirror tree: `https://<server>/mirror/`.
pub const MIRROR_PATH: &str = "/mirror/";

/// One golden `providers mirror` run.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its folder under `fixtures/mirror-goldens/`.
    pub name: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// The `-platform` arguments.
    pub platforms: &'static [&'static str],
    /// The `-platform` arguments of the `providers lock` run that made
    /// `input/`'s lock file from `before/` (none: no lock file).
    pub before_platforms: &'static [&'static str],
    /// Another case whose tree the output folder holds before the run.
    pub seed: Option<&'static str>,
}

/// Every case, in the order they are made (a seed before its user).
pub const CASES: &[Case] = &[
    Case {
        name: "mirror-fresh",
        about: "two providers for three platforms into an empty folder; a pre-release skipped",
        platforms: &["linux_amd64", "darwin_arm64", "windows_amd64"],
        before_platforms: &[],
        seed: None,
    },
    Case {
        name: "mirror-locked",
        about: "the locked version (alpha 1.0.0, not the newest 1.1.0) into mirror-fresh's \
                folder: the indexes list what is already there too",
        platforms: &["linux_amd64"],
        before_platforms: &["linux_amd64"],
        seed: Some("mirror-fresh"),
    },
];

/// A mirror in the unpacked layout (`HOST/NS/TYPE/VERSION/OS_ARCH/`), made
/// from the signed registry's packages: no case, only a tree.
pub const UNPACKED: &str = "unpacked";

/// The folder of all the cases.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mirror-goldens")
}

/// The tree of a case (or of [`UNPACKED`]).
pub fn tree_dir(name: &str) -> PathBuf {
    goldens_dir().join(name).join("tree")
}

impl Case {
    /// This case's folder.
    pub fn dir(&self) -> PathBuf {
        goldens_dir().join(self.name)
    }

    /// Copies `input/` (the configuration and its lock file) into `into`
    /// with `{HOST}` replaced by `host`.
    pub fn prepare(&self, into: &Path, host: &str) {
        copy_text_tree(&self.dir().join("input"), into, host);
    }

    /// Copies `before/` into `into`; false when the case has none.
    pub fn prepare_before(&self, into: &Path, host: &str) -> bool {
        let before = self.dir().join("before");
        before.is_dir() && {
            copy_text_tree(&before, into, host);
            true
        }
    }

    /// Fills the output folder `out` with what it holds before the run.
    pub fn seed(&self, out: &Path, host: &str) {
        fs::create_dir_all(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        if let Some(seed) = self.seed {
            copy_tree(&tree_dir(seed), out, host);
        }
    }

    /// What the output folder holds after the run, with `host` for
    /// `{HOST}`: every file by its path relative to the folder.
    pub fn expected(&self, host: &str) -> BTreeMap<String, Vec<u8>> {
        read_tree(&tree_dir(self.name))
            .into_iter()
            .map(|(path, bytes)| (path.replace(HOST, host), bytes))
            .collect()
    }

    /// What Terraform printed, with `host` in it.
    pub fn terraform_output(&self, host: &str) -> String {
        read_hosted(&self.dir().join("terraform.out"), host).unwrap_or_default()
    }
}

/// Every file under `dir`, by its path relative to `dir` (`/`-separated),
/// with its bytes.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let entry = entry.expect("a directory entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}{name}");
            if entry.file_type().expect("a file type").is_dir() {
                walk(&entry.path(), &format!("{path}/"), out);
            } else {
                let bytes = fs::read(entry.path()).unwrap_or_else(|e| panic!("{path}: {e}"));
                out.insert(path, bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.is_dir() {
        walk(dir, "", &mut out);
    }
    out
}

/// Copies the mirror tree `tree` into `to`, bytes unchanged, a path
/// element `{HOST}` named `host`.
pub fn copy_tree(tree: &Path, to: &Path, host: &str) {
    for (path, bytes) in read_tree(tree) {
        let target = to.join(path.replace(HOST, host));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        }
        fs::write(&target, bytes).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
    }
}

/// What is done to a served mirror before a run.
#[derive(Debug, Clone, Copy)]
pub enum Spoil {
    /// `<version>.json` lists another archive's hash for this provider,
    /// version and platform.
    WrongHash(&'static str, &'static str, &'static str),
    /// The archive of this provider, version and platform is served cut in
    /// half.
    Truncated(&'static str, &'static str, &'static str),
}

/// Serves the mirror tree `tree` on `server` under [`MIRROR_PATH`], its
/// `{HOST}` folder as `host`, spoiled as `spoils` say: `.json` files as
/// `application/json`, archives as `application/zip`; anything else under
/// the path is a 404.
pub fn serve_tree(server: &TestServer, tree: &Path, host: &str, spoils: &[Spoil]) {
    server.route_prefix(MIRROR_PATH, Reply::new(404).body(b"not found"));
    let files = read_tree(tree);
    for (path, bytes) in &files {
        let served = path.replace(HOST, host);
        let route = format!("{MIRROR_PATH}{served}");
        let mut bytes = bytes.clone();
        let mut content_type = "application/zip";
        if path.ends_with(".json") {
            content_type = "application/json";
            for spoil in spoils {
                if let Spoil::WrongHash(name, version, platform) = *spoil
                    && path.ends_with(&format!("/ns/{name}/{version}.json"))
                {
                    bytes = wrong_hash(&bytes, platform);
                }
            }
        }
        for spoil in spoils {
            if let Spoil::Truncated(name, version, platform) = *spoil
                && path.ends_with(&format!(
                    "/terraform-provider-{name}_{version}_{platform}.zip"
                ))
            {
                bytes.truncate(bytes.len() / 2);
            }
        }
        server.route(
            &route,
            Reply::new(200)
                .header("Content-Type", content_type)
                .body(&bytes),
        );
    }
}

/// A `<version>.json` whose `platform` entry lists the hash of an empty
/// package instead of its own.
fn wrong_hash(document: &[u8], platform: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(document);
    let Some(at) = text.find(&format!("\"{platform}\"")) else {
        panic!("no {platform} in {text}");
    };
    let start = at + text[at..].find("\"h1:").expect("an h1: hash") + 1;
    let end = start + text[start..].find('"').expect("the hash's end");
    format!(
        "{}{}{}",
        &text[..start],
        tfdisco_provider::EMPTY_H1,
        &text[end..]
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_has_its_files() {
        for case in CASES {
            let dir = case.dir();
            assert!(dir.join("input/main.tf").is_file(), "{}", case.name);
            assert!(dir.join("terraform.out").is_file(), "{}", case.name);
            assert!(!read_tree(&tree_dir(case.name)).is_empty(), "{}", case.name);
            assert_eq!(
                dir.join("before").is_dir(),
                !case.before_platforms.is_empty(),
                "{}",
                case.name
            );
        }
        assert!(!read_tree(&tree_dir(UNPACKED)).is_empty());
    }

    #[test]
    fn a_wrong_hash_replaces_only_that_platform() {
        let doc = br#"{
  "archives": {
    "darwin_arm64": {
      "hashes": [
        "h1:AAA="
      ],
      "url": "a.zip"
    },
    "linux_amd64": {
      "hashes": [
        "h1:BBB="
      ],
      "url": "b.zip"
    }
  }
}"#;
        let spoiled = String::from_utf8(wrong_hash(doc, "linux_amd64")).expect("text");
        assert!(spoiled.contains("h1:AAA="), "{spoiled}");
        assert!(!spoiled.contains("h1:BBB="), "{spoiled}");
        assert!(spoiled.contains(tfdisco_provider::EMPTY_H1), "{spoiled}");
    }
}
