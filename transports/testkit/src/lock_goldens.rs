//! Golden lock files written by the real `terraform providers lock` against
//! the [signed registry](crate::signed_registry), one per [`Case`], and
//! what tfdisco must do with the same input: write the same bytes, or fail
//! the same way and leave the lock file as it was.
//!
//! Each case is a folder of `fixtures/lock-goldens/`: `input/` (the
//! configuration, with `{HOST}` where the registry's host goes, and the
//! lock file before the run, if any), `terraform.lock.hcl` (what Terraform
//! wrote; absent when it refused) and `terraform.out` (what it printed).
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

use std::path::{Path, PathBuf};

use crate::TestServer;
use crate::golden_files::{copy_text_tree, read_hosted};
use crate::mirror_goldens::{self, MIRROR_PATH};
use crate::signed_registry::{self, SignedRegistry};

pub use crate::golden_files::HOST;

/// What a case does to the registry before the run.
#[derive(Debug, Clone, Copy)]
pub enum Spoil {
    /// [`SignedRegistry::corrupt`]: provider, version, platform.
    Corrupt(&'static str, &'static str, &'static str),
    /// [`SignedRegistry::bad_signature`]: provider, version.
    BadSignature(&'static str, &'static str),
}

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
}

const ALL: &[&str] = &["linux_amd64", "darwin_arm64", "windows_amd64"];

/// Every case.
pub const CASES: &[Case] = &[
    Case {
        name: "fresh",
        about: "no lock file yet; two providers for three platforms; a pre-release skipped",
        platforms: ALL,
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "add-platform",
        about: "a lock file for linux_amd64 gains darwin_arm64's hashes",
        platforms: &["darwin_arm64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "pinned-then-widened",
        about: "locked at a pinned 1.0.0, the constraint widened: 1.0.0 kept, constraints rewritten",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "child-module",
        about: "constraints from a local child module (.tf.json) merged with the root's",
        platforms: &["linux_amd64", "windows_amd64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "no-providers",
        about: "a configuration that requires no provider, no lock file yet: a lock file of \
                its two header lines",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "unrelated-locked",
        about: "a provider the configuration no longer requires stays in the lock file",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "prerelease-named",
        about: "a pre-release chosen because the constraint names it; one provider named",
        platforms: &["darwin_arm64"],
        providers: &["{HOST}/ns/beta"],
        before_platforms: &[],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "locked-outside",
        about: "the locked version no longer meets the constraints",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Refused {
            exit: 3,
            words: &["1.0.0", "~> 2.0"],
        },
    },
    Case {
        name: "no-match",
        about: "no version meets the constraints",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Refused {
            exit: 3,
            words: &[">= 3.0.0"],
        },
    },
    Case {
        name: "unknown-platform",
        about: "a platform the registry does not offer",
        platforms: &["linux_amd64", "plan9_amd64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Refused {
            exit: 3,
            words: &["plan9_amd64"],
        },
    },
    Case {
        name: "corrupted-archive",
        about: "an archive whose bytes do not match its checksum",
        platforms: &["linux_amd64", "darwin_arm64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[Spoil::Corrupt("alpha", "1.1.0", "darwin_arm64")],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Refused {
            exit: 1,
            words: &["1.1.0", "darwin_arm64", "checksum"],
        },
    },
    Case {
        name: "bad-signature",
        about: "a SHA256SUMS whose signature does not verify",
        platforms: &["linux_amd64", "windows_amd64"],
        providers: &[],
        before_platforms: &["linux_amd64"],
        spoil: &[Spoil::BadSignature("alpha", "1.1.0")],
        from: From::Registry,
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Refused {
            exit: 1,
            words: &["1.1.0", "signature"],
        },
    },
    Case {
        name: "fs-mirror",
        about: "-fs-mirror: the packed tree providers mirror wrote; one h1: per platform",
        platforms: &["linux_amd64", "darwin_arm64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::FsMirror("mirror-fresh"),
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "fs-mirror-unpacked",
        about: "-fs-mirror: an unpacked tree (beta's package has a folder)",
        platforms: &["linux_amd64", "darwin_arm64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::FsMirror(mirror_goldens::UNPACKED),
        host: None,
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "net-mirror",
        about: "-net-mirror: providers mirror's tree served over https; the archives checked \
                against its hashes, the unpacked h1: recorded",
        platforms: &["linux_amd64", "darwin_arm64", "windows_amd64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        mirror_spoil: &[],
        outcome: Outcome::Written,
    },
    Case {
        name: "net-mirror-wrong-hash",
        about: "-net-mirror: the mirror lists a hash the archive does not have",
        platforms: &["linux_amd64", "darwin_arm64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        mirror_spoil: &[mirror_goldens::Spoil::WrongHash(
            "alpha",
            "1.1.0",
            "darwin_arm64",
        )],
        outcome: Outcome::Refused {
            exit: 1,
            words: &["1.1.0", "darwin_arm64", "checksum"],
        },
    },
    Case {
        name: "net-mirror-truncated",
        about: "-net-mirror: the mirror serves an archive cut short",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        mirror_spoil: &[mirror_goldens::Spoil::Truncated(
            "alpha",
            "1.1.0",
            "linux_amd64",
        )],
        outcome: Outcome::Refused {
            exit: 1,
            words: &["1.1.0", "linux_amd64", "checksum"],
        },
    },
    Case {
        name: "net-mirror-not-found",
        about: "-net-mirror: the mirror does not have a provider (404)",
        platforms: &["linux_amd64"],
        providers: &[],
        before_platforms: &[],
        spoil: &[],
        from: From::NetMirror("mirror-locked"),
        host: Some(MIRROR_HOST),
        mirror_spoil: &[],
        outcome: Outcome::Refused {
            exit: 3,
            words: &["gamma"],
        },
    },
];

/// The providers' host in the network mirror cases.
pub const MIRROR_HOST: &str = "registry.example.test";

/// The folder of all the cases.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lock-goldens")
}

/// The lock file's name.
pub const LOCK_FILE: &str = ".terraform.lock.hcl";

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
        };
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

    /// The lock file after the run, with `host` in it: what Terraform
    /// wrote, or (when it refused) the one before; `None` when there is none.
    pub fn expected(&self, host: &str) -> Option<String> {
        match self.outcome {
            Outcome::Written => Some(
                read_hosted(&self.dir().join("terraform.lock.hcl"), host)
                    .unwrap_or_else(|| panic!("{}: no terraform.lock.hcl", self.name)),
            ),
            Outcome::Refused { .. } => self.before(host),
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
}

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
            if let Outcome::Refused { words, .. } = case.outcome {
                let out = case.terraform_output("h");
                for word in words {
                    assert!(out.contains(word), "{}: {word:?} not in {out}", case.name);
                }
            }
        }
    }
}
