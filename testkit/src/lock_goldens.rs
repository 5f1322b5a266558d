//! Golden lock files written by the real `terraform providers lock` against
//! the [signed registry](crate::signed_registry), one per [`Case`], and
//! what tfdisco must do with the same input: write the same bytes, or fail
//! the same way and leave the lock file as it was.
//!
//! Each case is a folder of `fixtures/lock-goldens/`: `input/` (the
//! configuration, with `{HOST}` where the registry's host goes, and the
//! lock file before the run, if any), `terraform.lock.hcl` (what Terraform
//! wrote; absent when it refused) and `terraform.out` (what it printed); a
//! case run with a plugin cache ([`Cache::Dir`], `-enable-plugin-cache`)
//! also `cache-before.txt` and `cache.txt` (the cache's
//! [manifest](crate::install_goldens::tree_manifest) before and after the
//! run) and `requests.txt` (Terraform's requests, sorted), which
//! [`Case::check_run`] compares a run with.
//! `cargo run -p tfdisco-testkit --bin lock-goldens` makes them again with
//! the `terraform` on the PATH; the tests never need it.
//!
//! ```no_run
//! use tfdisco_testkit::{TestServer, lock_goldens, signed_registry};
//!
//! let server = TestServer::start();
//! let registry = signed_registry::install(&server);
//! let host = server.host().to_string();
//! for case in lock_goldens::CASES {
//!     let dir = std::env::temp_dir().join(case.name);
//!     case.prepare(&dir, &host);
//!     case.spoil(&registry);
//!     // … lock `dir` for `case.platforms` …
//!     let _expected = case.expected(&host); // the lock file's bytes afterwards
//! }
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use crate::golden_files::{copy_text_tree, read_hosted};
use crate::install_goldens::{
    Change, Package, downloads, hosted_manifest, process_umask, request_line,
    split_cache_lock_files, tree_manifest, with_umask,
};
use crate::mirror_goldens::{self, MIRROR_PATH};
use crate::signed_registry::{self, SignedRegistry};
use crate::{Seen, TestServer};

pub use crate::golden_files::{HOST, LOCK_FILE, MIRROR_HOST, Spoil};

/// Where a case's run takes the providers from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    /// Their registry, the signed registry.
    Registry,
    /// `-fs-mirror=DIR`: a copy of this mirror tree
    /// ([`mirror_goldens::tree_dir`]).
    FsMirror(&'static str),
    /// `-net-mirror=https://<server>/mirror/`: this mirror tree served by
    /// the test server ([`mirror_goldens::serve_tree`]).
    NetMirror(&'static str),
}

/// How a case ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The lock file is written (`terraform.lock.hcl` holds it).
    Written,
    /// The run fails, leaving the lock file as it was: `tfdisco lock`'s
    /// exit code, and words its message (and Terraform's) must hold.
    Refused {
        /// `tfdisco lock`'s exit code: 1 verification, 3 versions/platforms.
        exit: i32,
        /// Words the message must hold, besides the provider's address.
        words: &'static [&'static str],
    },
}

/// The plugin cache of a case's run (`TF_PLUGIN_CACHE_DIR`).
#[derive(Debug, Clone, Copy)]
pub enum Cache {
    /// None is configured.
    None,
    /// `TF_PLUGIN_CACHE_DIR` names a folder (it exists).
    Dir {
        /// `plugin_cache_may_break_dependency_lock_file = true` in the CLI
        /// configuration.
        may_break: bool,
        /// What it holds before the run, unpacked as Terraform unpacks.
        holds: &'static [Cached],
        /// Where tfdisco deliberately does otherwise than Terraform; `None`:
        /// the same lock file and the same cache.
        differs: Option<Differs>,
    },
}

/// A package of the signed registry in a case's plugin cache before the run.
#[derive(Debug, Clone, Copy)]
pub struct Cached {
    /// The package and what was done to it.
    pub package: Package,
    /// Its platform.
    pub platform: &'static str,
}

/// What tfdisco leaves where it deliberately differs from Terraform
/// (docs/behaviour.md names the difference).
#[derive(Debug, Clone, Copy)]
pub struct Differs {
    /// Why, in a line.
    pub why: &'static str,
    /// The lock file tfdisco leaves.
    pub lock: Lock,
    /// The case whose `cache.txt` is the cache tfdisco leaves.
    pub cache: &'static str,
}

/// Which lock file tfdisco leaves in a [`Differs`] case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// Terraform's (`terraform.lock.hcl`).
    Terraform,
    /// The input one, unchanged.
    Before,
}

/// One golden case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its folder under `fixtures/lock-goldens/`.
    pub name: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// The `-platform` arguments.
    pub platforms: &'static [&'static str],
    /// The providers named on the command line (`{HOST}/ns/alpha`); none
    /// means every provider the configuration requires.
    pub providers: &'static [&'static str],
    /// The `-platform` arguments of the run that made `input/`'s lock file
    /// from `before/` (unused when the case has no `before/`).
    pub before_platforms: &'static [&'static str],
    /// What is done to the registry before the run.
    pub spoil: &'static [Spoil],
    /// Where the providers come from.
    pub from: From,
    /// The providers' host, when it cannot be the test server's (Terraform
    /// 1.11.4 cannot ask a network mirror about a host with a port: D19).
    pub host: Option<&'static str>,
    /// What is done to a served mirror before the run.
    pub mirror_spoil: &'static [mirror_goldens::Spoil],
    /// How it ends.
    pub outcome: Outcome,
    /// `-enable-plugin-cache` (`tfdisco lock --enable-plugin-cache`).
    pub enable_plugin_cache: bool,
    /// The plugin cache configured for the run.
    pub cache: Cache,
}

const ALL: &[&str] = &["linux_amd64", "darwin_arm64", "windows_amd64"];

/// The platforms of the plugin cache cases.
const TWO: &[&str] = &["linux_amd64", "darwin_arm64"];

const fn cached(name: &'static str, version: &'static str, platform: &'static str) -> Cached {
    Cached {
        package: Package {
            name,
            version,
            change: Change::None,
        },
        platform,
    }
}

/// `change` done to alpha 1.1.0's linux_amd64 entry.
const fn changed_alpha(change: Change) -> Cached {
    Cached {
        package: Package {
            name: "alpha",
            version: "1.1.0",
            change,
        },
        platform: "linux_amd64",
    }
}

const ALPHA_LINUX: Cached = cached("alpha", "1.1.0", "linux_amd64");
const ALPHA_DARWIN: Cached = cached("alpha", "1.1.0", "darwin_arm64");
const BETA_LINUX: Cached = cached("beta", "0.10.0", "linux_amd64");
const BETA_DARWIN: Cached = cached("beta", "0.10.0", "darwin_arm64");

/// Both providers' packages for both platforms of [`TWO`], as `cache-fill`
/// leaves them.
const FILLED: &[Cached] = &[ALPHA_LINUX, ALPHA_DARWIN, BETA_LINUX, BETA_DARWIN];

/// What a case is where it says nothing else: every provider the
/// configuration requires, no `before/`, from the unspoiled registry, the
/// lock file written, no plugin cache. Every case names itself, says what
/// it shows and gives its platforms.
const PLAIN: Case = Case {
    name: "",
    about: "",
    platforms: &[],
    providers: &[],
    before_platforms: &[],
    spoil: &[],
    from: From::Registry,
    host: None,
    mirror_spoil: &[],
    outcome: Outcome::Written,
    enable_plugin_cache: false,
    cache: Cache::None,
};

/// A run that fails with `exit`, its message holding `words`.
const fn refused(exit: i32, words: &'static [&'static str]) -> Outcome {
    Outcome::Refused { exit, words }
}

/// A plugin cache holding `holds`, without
/// `plugin_cache_may_break_dependency_lock_file`, where tfdisco does as
/// Terraform does.
const fn cache(holds: &'static [Cached]) -> Cache {
    Cache::Dir {
        may_break: false,
        holds,
        differs: None,
    }
}

/// Every case.
pub const CASES: &[Case] = &[
    Case {
        name: "fresh",
        about: "no lock file yet; two providers for three platforms; a pre-release skipped",
        platforms: ALL,
        ..PLAIN
    },
    Case {
        name: "add-platform",
        about: "a lock file for linux_amd64 gains darwin_arm64's hashes",
        platforms: &["darwin_arm64"],
        before_platforms: &["linux_amd64"],
        ..PLAIN
    },
    Case {
        name: "pinned-then-widened",
        about: "locked at a pinned 1.0.0, the constraint widened: 1.0.0 kept, constraints rewritten",
        platforms: &["linux_amd64"],
        before_platforms: &["linux_amd64"],
        ..PLAIN
    },
    Case {
        name: "child-module",
        about: "constraints from a local child module (.tf.json) merged with the root's",
        platforms: &["linux_amd64", "windows_amd64"],
        ..PLAIN
    },
    Case {
        name: "no-providers",
        about: "a configuration that requires no provider, no lock file yet: a lock file of \
                its two header lines",
        platforms: &["linux_amd64"],
        ..PLAIN
    },
    Case {
        name: "unrelated-locked",
        about: "a provider the configuration no longer requires stays in the lock file",
        platforms: &["linux_amd64"],
        before_platforms: &["linux_amd64"],
        ..PLAIN
    },
    Case {
        name: "prerelease-named",
        about: "a pre-release chosen because the constraint names it; one provider named",
        platforms: &["darwin_arm64"],
        providers: &["{HOST}/ns/beta"],
        ..PLAIN
    },
    Case {
        name: "locked-outside",
        about: "the locked version no longer meets the constraints",
        platforms: &["linux_amd64"],
        before_platforms: &["linux_amd64"],
        outcome: refused(3, &["1.0.0", "~> 2.0"]),
        ..PLAIN
    },
    Case {
        name: "no-match",
        about: "no version meets the constraints",
        platforms: &["linux_amd64"],
        outcome: refused(3, &[">= 3.0.0"]),
        ..PLAIN
    },
    Case {
        name: "unknown-platform",
        about: "a platform the registry does not offer",
        platforms: &["linux_amd64", "plan9_amd64"],
        before_platforms: &["linux_amd64"],
        outcome: refused(3, &["plan9_amd64"]),
        ..PLAIN
    },
    Case {
        name: "corrupted-archive",
        about: "an archive whose bytes do not match its checksum",
        platforms: &["linux_amd64", "darwin_arm64"],
        before_platforms: &["linux_amd64"],
        spoil: &[Spoil::Corrupt("alpha", "1.1.0", "darwin_arm64")],
        outcome: refused(1, &["1.1.0", "darwin_arm64", "checksum"]),
        ..PLAIN
    },
    Case {
        name: "bad-signature",
        about: "a SHA256SUMS whose signature does not verify",
        platforms: &["linux_amd64", "windows_amd64"],
        before_platforms: &["linux_amd64"],
        spoil: &[Spoil::BadSignature("alpha", "1.1.0")],
        outcome: refused(1, &["1.1.0", "signature"]),
        ..PLAIN
    },
    Case {
        name: "fs-mirror",
        about: "-fs-mirror: the packed tree providers mirror wrote; one h1: per platform",
        platforms: &["linux_amd64", "darwin_arm64"],
        from: From::FsMirror("mirror-fresh"),
        ..PLAIN
    },
    Case {
        name: "fs-mirror-unpacked",
        about: "-fs-mirror: an unpacked tree (beta's package has a folder)",
        platforms: &["linux_amd64", "darwin_arm64"],
        from: From::FsMirror(mirror_goldens::UNPACKED),
        ..PLAIN
    },
    Case {
        name: "net-mirror",
        about: "-net-mirror: providers mirror's tree served over https; the archives checked \
                against its hashes, the unpacked h1: recorded",
        platforms: &["linux_amd64", "darwin_arm64", "windows_amd64"],
        from: From::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        ..PLAIN
    },
    Case {
        name: "net-mirror-wrong-hash",
        about: "-net-mirror: the mirror lists a hash the archive does not have",
        platforms: &["linux_amd64", "darwin_arm64"],
        from: From::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        mirror_spoil: &[mirror_goldens::Spoil::WrongHash(
            "alpha",
            "1.1.0",
            "darwin_arm64",
        )],
        outcome: refused(1, &["1.1.0", "darwin_arm64", "checksum"]),
        ..PLAIN
    },
    Case {
        name: "net-mirror-truncated",
        about: "-net-mirror: the mirror serves an archive cut short",
        platforms: &["linux_amd64"],
        from: From::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        mirror_spoil: &[mirror_goldens::Spoil::Truncated(
            "alpha",
            "1.1.0",
            "linux_amd64",
        )],
        outcome: refused(1, &["1.1.0", "linux_amd64", "checksum"]),
        ..PLAIN
    },
    Case {
        name: "net-mirror-not-found",
        about: "-net-mirror: the mirror does not have a provider (404)",
        platforms: &["linux_amd64"],
        from: From::NetMirror("mirror-locked"),
        host: Some(MIRROR_HOST),
        outcome: refused(3, &["gamma"]),
        ..PLAIN
    },
    Case {
        name: "cache-fill",
        about: "-enable-plugin-cache with an empty plugin cache, no lock file, two platforms: \
                every package downloaded and unpacked into the cache, for each platform; the \
                lock file as without the flag",
        platforms: TWO,
        enable_plugin_cache: true,
        cache: cache(&[]),
        ..PLAIN
    },
    Case {
        name: "cache-hit",
        about: "cache-fill's cache and its lock file: every entry vouched for by the lock file, \
                linked; nothing downloaded, the lock file unchanged",
        platforms: TWO,
        before_platforms: TWO,
        enable_plugin_cache: true,
        cache: cache(FILLED),
        ..PLAIN
    },
    Case {
        name: "cache-no-lock",
        about: "cache-fill's cache without a lock file: nothing vouches for the entries, so \
                every package is downloaded again and unpacked over its entry",
        platforms: TWO,
        enable_plugin_cache: true,
        cache: cache(FILLED),
        ..PLAIN
    },
    Case {
        name: "cache-tampered",
        about: "cache-hit with alpha's linux_amd64 executable replaced and a file beside the \
                entry vouching for it: the lock file does not, so that package is downloaded \
                again into the cache; the side file stays",
        platforms: TWO,
        before_platforms: TWO,
        enable_plugin_cache: true,
        cache: Cache::Dir {
            may_break: false,
            holds: &[
                changed_alpha(Change::Tamper("terraform-provider-alpha_v1.1.0")),
                ALPHA_DARWIN,
                BETA_LINUX,
                BETA_DARWIN,
            ],
            differs: None,
        },
        ..PLAIN
    },
    Case {
        name: "cache-extra-file",
        about: "cache-hit with a file added to alpha's linux_amd64 entry: downloaded again; \
                Terraform unpacks over the entry, the file stays and the entry's new h1: \
                joins the lock file",
        platforms: TWO,
        before_platforms: TWO,
        enable_plugin_cache: true,
        cache: Cache::Dir {
            may_break: false,
            holds: &[
                changed_alpha(Change::Extra("extra.txt")),
                ALPHA_DARWIN,
                BETA_LINUX,
                BETA_DARWIN,
            ],
            differs: Some(Differs {
                why: "a cache entry is replaced whole by the verified package: the planted \
                      file goes, and the lock file gets the registry's package alone (D23)",
                lock: Lock::Before,
                cache: "cache-hit",
            }),
        },
        ..PLAIN
    },
    Case {
        name: "cache-may-break",
        about: "plugin_cache_may_break_dependency_lock_file, no lock file, a cache holding \
                alpha for both platforms and beta for linux_amd64: those linked without a \
                download, their h1: alone recorded; beta for darwin_arm64 downloaded into the \
                cache",
        platforms: TWO,
        enable_plugin_cache: true,
        cache: Cache::Dir {
            may_break: true,
            holds: &[ALPHA_LINUX, ALPHA_DARWIN, BETA_LINUX],
            differs: None,
        },
        ..PLAIN
    },
    Case {
        name: "cache-flag-without-cache",
        about: "-enable-plugin-cache with no plugin cache configured: a lock run as without \
                the flag",
        platforms: TWO,
        enable_plugin_cache: true,
        ..PLAIN
    },
    Case {
        name: "cache-without-flag",
        about: "a plugin cache configured, without -enable-plugin-cache: not used, nothing \
                written into it",
        platforms: TWO,
        cache: cache(&[]),
        ..PLAIN
    },
];

/// The folder of all the cases.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lock-goldens")
}

impl Case {
    /// This case's folder.
    pub fn dir(&self) -> PathBuf {
        goldens_dir().join(self.name)
    }

    /// Copies `input/` into `into` with `{HOST}` replaced by `host`.
    pub fn prepare(&self, into: &Path, host: &str) {
        copy_text_tree(&self.dir().join("input"), into, host);
    }

    /// The providers' host for a run on `server`: the case's own, or the
    /// server's.
    pub fn host(&self, server: &TestServer) -> String {
        match self.host {
            Some(host) => host.to_owned(),
            None => server.host().to_string(),
        }
    }

    /// Sets a run up on `server` with the providers at `host`: the
    /// registry (spoiled as the case says) or the mirror the case reads,
    /// its input in `scratch/run`. Returns where things are.
    pub fn setup(&self, server: &TestServer, host: &str, scratch: &Path) -> Setup {
        let registry = signed_registry::install(server);
        self.spoil(&registry);
        let dir = scratch.join("run");
        self.prepare(&dir, host);
        let mut setup = Setup {
            dir,
            fs_mirror: None,
            net_mirror: None,
            cache: None,
            may_break: false,
        };
        if let Cache::Dir { may_break, .. } = self.cache {
            let cache = scratch.join("cache");
            self.prepare_cache(&cache, host);
            setup.cache = Some(cache);
            setup.may_break = may_break;
        }
        match self.from {
            From::Registry => {}
            From::FsMirror(tree) => {
                let mirror = scratch.join("fs-mirror");
                mirror_goldens::copy_tree(&mirror_goldens::tree_dir(tree), &mirror, host);
                setup.fs_mirror = Some(mirror);
            }
            From::NetMirror(tree) => {
                let tree = mirror_goldens::tree_dir(tree);
                mirror_goldens::serve_tree(server, &tree, host, self.mirror_spoil);
                setup.net_mirror = Some(server.url(MIRROR_PATH));
            }
        }
        setup
    }

    /// Makes the folder `cache` holding what the case's plugin cache holds
    /// before the run, for the providers' `host`, unpacked as Terraform
    /// unpacks (under umask `022`, its manifest is `cache-before.txt`).
    pub fn prepare_cache(&self, cache: &Path, host: &str) {
        fs::create_dir_all(cache).unwrap_or_else(|e| panic!("{}: {e}", cache.display()));
        if let Cache::Dir { holds, .. } = self.cache {
            for cached in holds {
                cached.package.unpack_for(cached.platform, cache, host);
            }
        }
    }

    /// Copies `before/` (the configuration that made `input/`'s lock file)
    /// into `into`; false when the case has none.
    pub fn prepare_before(&self, into: &Path, host: &str) -> bool {
        let before = self.dir().join("before");
        before.is_dir() && {
            copy_text_tree(&before, into, host);
            true
        }
    }

    /// Applies the case's [`Spoil`]s to `registry`.
    pub fn spoil(&self, registry: &SignedRegistry<'_>) {
        for spoil in self.spoil {
            match *spoil {
                Spoil::Corrupt(name, version, platform) => {
                    registry.corrupt(name, version, platform)
                }
                Spoil::BadSignature(name, version) => registry.bad_signature(name, version),
            }
        }
    }

    /// The lock file before the run, with `host` in it; `None` when there
    /// is none.
    pub fn before(&self, host: &str) -> Option<String> {
        read_hosted(&self.dir().join("input").join(LOCK_FILE), host)
    }

    /// The lock file tfdisco must leave, with `host` in it: what Terraform
    /// wrote, or (when it refused, or where the case [`Differs`] so) the
    /// one before; `None` when there is none.
    pub fn expected(&self, host: &str) -> Option<String> {
        match (self.outcome, self.differs()) {
            (
                Outcome::Written,
                Some(Differs {
                    lock: Lock::Before, ..
                }),
            ) => self.before(host),
            (Outcome::Written, _) => Some(self.terraform_lock(host)),
            (Outcome::Refused { .. }, _) => self.before(host),
        }
    }

    /// The lock file Terraform wrote, with `host` in it.
    pub fn terraform_lock(&self, host: &str) -> String {
        read_hosted(&self.dir().join("terraform.lock.hcl"), host)
            .unwrap_or_else(|| panic!("{}: no terraform.lock.hcl", self.name))
    }

    /// Where tfdisco deliberately does otherwise, if it does.
    pub fn differs(&self) -> Option<Differs> {
        match self.cache {
            Cache::Dir { differs, .. } => differs,
            Cache::None => None,
        }
    }

    /// The [manifest](tree_manifest) of the plugin cache before the run
    /// (`cache-before.txt`), with `host` in it; `None` without a cache.
    pub fn cache_before(&self, host: &str) -> Option<String> {
        read_hosted(&self.dir().join(CACHE_BEFORE), host).map(|text| hosted_manifest(&text, host))
    }

    /// The manifest of the plugin cache Terraform left (`cache.txt`), with
    /// `host` in it; `None` without a cache.
    pub fn terraform_cache(&self, host: &str) -> Option<String> {
        read_hosted(&self.dir().join(CACHE_AFTER), host).map(|text| hosted_manifest(&text, host))
    }

    /// The manifest of the plugin cache tfdisco must leave, the entries'
    /// lock files aside: Terraform's, or where the case [`Differs`],
    /// another case's; `None` without a cache.
    pub fn expected_cache(&self, host: &str) -> Option<String> {
        match self.differs() {
            Some(differs) => case(differs.cache).terraform_cache(host),
            None => self.terraform_cache(host),
        }
    }

    /// The requests Terraform made (`requests.txt`, sorted: `METHOD
    /// /path`), kept for the plugin cache cases; `None` for the others.
    pub fn terraform_requests(&self) -> Option<Vec<String>> {
        let text = read_hosted(&self.dir().join(REQUESTS), HOST)?;
        Some(text.lines().map(str::to_owned).collect())
    }

    /// Checks what a run of this case left beside the lock file: the
    /// plugin cache's manifest (the entries' lock files set aside, as the
    /// install goldens set them aside: `split_cache_lock_files`), no
    /// `.terraform` in the working folder, and the archives downloaded
    /// (each of Terraform's once, no other). The error says every
    /// difference.
    pub fn check_run(&self, setup: &Setup, seen: &[Seen], host: &str) -> Result<(), String> {
        let mut problems = Vec::new();
        let manifest = tree_manifest(&setup.dir, setup.cache.as_deref());
        let (tree, _lock_files) = split_cache_lock_files(&manifest);
        let expected = self
            .expected_cache(host)
            .map(|tree| with_umask(&tree, process_umask()))
            .unwrap_or_default();
        if tree != expected {
            problems.push(format!(
                "the plugin cache differs:\n--- expected\n{expected}--- observed\n{tree}"
            ));
        }
        if let Some(requests) = self.terraform_requests() {
            let observed: Vec<String> = seen.iter().map(request_line).collect();
            let (got, wanted) = (downloads(&observed), downloads(&requests));
            if got != wanted {
                problems.push(format!("downloads {got:?} where {wanted:?} were expected"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }

    /// What Terraform printed, with `host` in it.
    pub fn terraform_output(&self, host: &str) -> String {
        read_hosted(&self.dir().join("terraform.out"), host).unwrap_or_default()
    }

    /// The command-line providers with `host` in them.
    pub fn provider_args(&self, host: &str) -> Vec<String> {
        self.providers
            .iter()
            .map(|p| p.replace(HOST, host))
            .collect()
    }
}

/// Where a case's run reads from and writes to ([`Case::setup`]).
#[derive(Debug, Clone)]
pub struct Setup {
    /// The configuration's folder, where the lock file is.
    pub dir: PathBuf,
    /// `-fs-mirror`'s folder.
    pub fs_mirror: Option<PathBuf>,
    /// `-net-mirror`'s URL.
    pub net_mirror: Option<String>,
    /// The plugin cache (`TF_PLUGIN_CACHE_DIR`), when the case has one.
    pub cache: Option<PathBuf>,
    /// `plugin_cache_may_break_dependency_lock_file = true`.
    pub may_break: bool,
}

/// The case named `name`.
pub fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no lock golden {name}"))
}

/// The manifest of a case's plugin cache before the run.
pub const CACHE_BEFORE: &str = "cache-before.txt";
/// The manifest of a case's plugin cache after Terraform's run.
pub const CACHE_AFTER: &str = "cache.txt";
/// The requests Terraform made in a plugin cache case, sorted.
pub const REQUESTS: &str = "requests.txt";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_has_its_files() {
        for case in CASES {
            let dir = case.dir();
            assert!(dir.join("input").is_dir(), "{}", case.name);
            assert!(dir.join("terraform.out").is_file(), "{}", case.name);
            assert_eq!(
                dir.join("terraform.lock.hcl").is_file(),
                case.outcome == Outcome::Written,
                "{}",
                case.name
            );
            assert_eq!(
                dir.join("before").is_dir(),
                !case.before_platforms.is_empty(),
                "{}",
                case.name
            );
            let cached = matches!(case.cache, Cache::Dir { .. });
            for file in [CACHE_BEFORE, CACHE_AFTER] {
                assert_eq!(dir.join(file).is_file(), cached, "{}: {file}", case.name);
            }
            assert_eq!(
                dir.join(REQUESTS).is_file(),
                cached || case.enable_plugin_cache,
                "{}",
                case.name
            );
            if let Outcome::Refused { words, .. } = case.outcome {
                let out = case.terraform_output("h");
                for word in words {
                    assert!(out.contains(word), "{}: {word:?} not in {out}", case.name);
                }
            }
        }
    }

    /// The caches the cases prepare are those the goldens were made from.
    #[test]
    fn prepared_caches_are_what_terraform_started_from() {
        let host = "localhost:8443";
        for case in CASES {
            let Some(before) = case.cache_before(host) else {
                continue;
            };
            let scratch = tempfile::tempdir().expect("a scratch folder");
            let cache = scratch.path().join("cache");
            case.prepare_cache(&cache, host);
            let prepared = tree_manifest(scratch.path(), Some(&cache));
            assert_eq!(
                prepared,
                with_umask(&before, process_umask()),
                "{}",
                case.name
            );
        }
    }

    /// A case that differs names a case with a cache, and one that does not
    /// keeps Terraform's lock file.
    #[test]
    fn differences_name_their_cache() {
        for each in CASES {
            if let Some(differs) = each.differs() {
                assert!(
                    case(differs.cache).terraform_cache("h").is_some(),
                    "{}",
                    each.name
                );
            }
        }
    }
}
