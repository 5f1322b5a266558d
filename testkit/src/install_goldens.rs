//! Golden results of the real `terraform init` (Terraform 1.11.4) installing
//! providers from the [signed registry](crate::signed_registry) or a
//! mirror, one per [`Case`], and what `tfdisco install` must do with the
//! same input: the same, or, where a case says so
//! ([`Expect::Differs`]), a deliberate difference.
//!
//! Each case is a folder of `fixtures/install-goldens/`:
//!
//! - `input/`: the configuration (`main.tf`, with `{HOST}` where the
//!   providers' host goes) and the lock file before the run, if any (made as
//!   the case's [`LockInput`] says);
//! - `before.txt`: the [manifest](tree_manifest) of `.terraform/providers`
//!   and the plugin cache as [`Case::prepare`] leaves them;
//! - `tree.txt`: the manifest after `terraform init`;
//! - `terraform.lock.hcl`: the lock file after the run (absent when there
//!   is none);
//! - `terraform.out`: what Terraform printed (the host `{HOST}`, the test
//!   server `{SERVER}`, the working directory `{DIR}`, the cache `{CACHE}`);
//! - `exit-code`: its exit code;
//! - `requests.txt`: the requests the test server saw, in order
//!   (`METHOD /path`), so a run that downloads nothing shows it.
//!
//! Every run is on `linux_amd64` ([`PLATFORM`]) under umask `022`
//! ([`UMASK`]). Terraform walks the providers of a run in Go's map order,
//! so with two providers the order of `terraform.out`'s and
//! `requests.txt`'s lines is one of several (the generator keeps the
//! committed file when only the order changed).
//! `cargo run -p tfdisco-testkit --bin install-goldens` makes them again
//! with the `terraform` on the PATH; the tests never need it.
//!
//! ```no_run
//! use tfdisco_testkit::TestServer;
//! use tfdisco_testkit::install_goldens::CASES;
//!
//! for case in CASES {
//!     let server = TestServer::start();
//!     let scratch = tempfile::tempdir().expect("a temporary folder");
//!     let setup = case.setup(&server, scratch.path());
//!     server.take_requests();
//!     // … `tfdisco install --dialect terraform` in `setup.dir` with
//!     // `setup.env()` and `case.args`, exiting with `exit` …
//!     # let exit = 0;
//!     let observed = setup.observe(exit, &server.take_requests());
//!     case.expected_for_tfdisco(&setup.host)
//!         .check(&observed)
//!         .unwrap_or_else(|e| panic!("{}: {e}", case.name));
//! }
//! ```

pub(crate) mod tree;
mod zip;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use crate::golden_files::{LOCK_FILE, MIRROR_HOST, Spoil};
use crate::golden_files::{copy_text_tree, read_hosted};
use crate::mirror_goldens::{self, MIRROR_PATH};
use crate::signed_registry::{self, NAMESPACE};
use crate::{Seen, TestServer};

pub use crate::golden_files::HOST;
pub use crate::terraform::{
    INIT_ARGS, TERRAFORM_VAR, TERRAFORM_VERSION, UMASK, run_terraform, run_terraform_init,
    terraform_available, terraform_program, terraform_version,
};
pub use tree::{
    CACHE, CACHE_LOCK_SUFFIX, DIR, ManifestLine, PROVIDERS_DIR, parse_line, process_umask,
    split_cache_lock_files, tree_manifest, with_umask,
};

/// A stored (uncompressed) zip of `entries` (name, Unix mode with its file
/// type bits, content), made by "Unix": a small package for tests (the
/// OCI module packages of the suite and the CLI's tests).
pub fn stored_zip(entries: &[(&str, u32, &[u8])]) -> Vec<u8> {
    zip::write_stored(entries)
}

/// The platform every golden was made on: Terraform installs for the
/// platform it runs on, so the goldens' paths hold it.
pub const PLATFORM: &str = "linux_amd64";

/// The folder, under the working directory, that holds a filesystem
/// mirror (so an unpacked mirror's links read `{DIR}/fs-mirror/…`).
pub const FS_MIRROR_DIR: &str = "fs-mirror";

/// Where the providers come from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// Their registry: the signed registry on the test server (the implied
    /// installation methods; no `provider_installation` block).
    Registry,
    /// `provider_installation { filesystem_mirror { path = "DIR/fs-mirror" } }`
    /// holding a copy of this mirror tree
    /// ([`mirror_goldens::tree_dir`]: `mirror-fresh` packed, `unpacked`).
    FsMirror(&'static str),
    /// A filesystem mirror as above holding one archive, `alpha` 1.1.0 for
    /// [`PLATFORM`] (packed layout), with these entries, written by
    /// [`Case::prepare`]: archives a registry would not serve.
    FsMirrorZip(&'static [ZipEntry]),
    /// `provider_installation { network_mirror { url = "https://<server>/mirror/" } }`
    /// serving this mirror tree ([`mirror_goldens::serve_tree`]). The
    /// providers' host is [`MIRROR_HOST`], which has no port: Terraform
    /// 1.11.4 cannot ask a network mirror about one that has (D19).
    NetMirror(&'static str),
    /// `provider_installation` with these methods, in this order, each
    /// with its `include` and `exclude` patterns: several that may install
    /// a provider (INSTALL-13). A case with a network mirror has the
    /// providers' host [`MIRROR_HOST`], and `direct` reaches the signed
    /// registry through a `host` block naming its `providers.v1`.
    Methods(&'static [Method]),
}

/// One method of a [`Source::Methods`] case.
#[derive(Debug, Clone, Copy)]
pub struct Method {
    /// What it is.
    pub via: Via,
    /// Its `include` patterns (`{HOST}` for the providers' host).
    pub include: &'static [&'static str],
    /// Its `exclude` patterns (`{HOST}` for the providers' host).
    pub exclude: &'static [&'static str],
}

/// What a [`Method`] is.
#[derive(Debug, Clone, Copy)]
pub enum Via {
    /// `direct {}`: the signed registry.
    Direct,
    /// `filesystem_mirror { path = "DIR/FOLDER" }` holding these packages
    /// of the signed registry, written by [`Case::prepare`] in this layout.
    FsMirror {
        /// The folder under the working directory.
        folder: &'static str,
        /// Packed archives or unpacked folders.
        layout: Layout,
        /// What it holds.
        packages: &'static [Mirrored],
    },
    /// `network_mirror { url = "https://<server>PATH" }` serving these
    /// packages of the signed registry: `index.json` and `<version>.json`
    /// listing each archive's `h1:`, as `providers mirror` writes them
    /// (or, with `status`, that status for everything under `PATH`).
    NetMirror {
        /// Where it is on the test server (`/…/`).
        path: &'static str,
        /// What it serves.
        packages: &'static [Mirrored],
        /// A status every request under `path` gets instead (500: a
        /// mirror that fails).
        status: Option<u16>,
    },
}

/// How a [`Via::FsMirror`] holds its packages (FSM-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `HOST/NS/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`.
    Packed,
    /// `HOST/NS/TYPE/VERSION/OS_ARCH/`, unpacked as Terraform unpacks.
    Unpacked,
}

/// A package of the signed registry (namespace [`NAMESPACE`]) a mirror of
/// a [`Method`] holds.
#[derive(Debug, Clone, Copy)]
pub struct Mirrored {
    /// The provider's type.
    pub name: &'static str,
    /// Its version.
    pub version: &'static str,
    /// Its platform.
    pub platform: &'static str,
}

/// One entry of a [`Source::FsMirrorZip`] archive.
#[derive(Debug, Clone, Copy)]
pub struct ZipEntry {
    /// The name as stored.
    pub name: &'static str,
    /// The Unix mode in the external attributes, file type bits included
    /// (`0o100755`, `0o120777` for a symlink).
    pub mode: u32,
    /// The content (a symlink's target).
    pub content: &'static [u8],
}

/// How the case's input lock file (`input/.terraform.lock.hcl`) is made
/// by the generator; [`Case::prepare`] copies the committed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockInput {
    /// No lock file.
    None,
    /// The lock file another install case's run wrote.
    Case(&'static str),
    /// A lock golden's input lock file ([`lock_goldens`](crate::lock_goldens)).
    LockGolden(&'static str),
    /// What `terraform providers lock -platform=… PROVIDER…` writes for the
    /// case's configuration (`{HOST}` in the providers; none: all).
    ProvidersLock {
        /// The `-platform` arguments.
        platforms: &'static [&'static str],
        /// The providers named.
        providers: &'static [&'static str],
    },
}

/// What was done to a package unpacked before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing: it is what `init` unpacks.
    None,
    /// This file's content replaced by `modified\n` (its mode kept).
    Modify(&'static str),
    /// This file added (`extra\n`, mode `0644`).
    Extra(&'static str),
    /// As [`Change::Modify`], and beside the platform folder the file an
    /// earlier tfdisco trusted, `OS_ARCH.metadata.json`, made to vouch for
    /// the result ([`vouching_metadata`]): what someone who can write a
    /// shared cache plants.
    Tamper(&'static str),
}

/// A package of the signed registry unpacked (for [`PLATFORM`]) before the
/// run, as Terraform unpacks it, into `.terraform/providers` or the cache.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    /// The provider's type (namespace [`NAMESPACE`]).
    pub name: &'static str,
    /// Its version.
    pub version: &'static str,
    /// What was done to it afterwards.
    pub change: Change,
}

/// The plugin cache of a run.
#[derive(Debug, Clone, Copy)]
pub enum Cache {
    /// None.
    None,
    /// `TF_PLUGIN_CACHE_DIR` names a folder (it exists).
    Dir {
        /// `plugin_cache_may_break_dependency_lock_file = true` in the CLI
        /// configuration.
        may_break: bool,
        /// What it holds before the run.
        holds: &'static [Package],
    },
}

/// What tfdisco's tree must be, where it differs from Terraform's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// Terraform's (`tree.txt`).
    Terraform,
    /// As it was before the run (`before.txt`): nothing placed.
    Before,
    /// Another case's `tree.txt`.
    Case(&'static str),
    /// Terraform's with the setuid, setgid and sticky bits of every file
    /// cleared.
    TerraformMasked,
}

/// What tfdisco's lock file must be, where it differs from Terraform's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// Terraform's (`terraform.lock.hcl`, or none).
    Terraform,
    /// The input one (or none): unchanged.
    Before,
    /// Another case's `terraform.lock.hcl`.
    Case(&'static str),
}

/// What tfdisco must ask the network, where it differs from Terraform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requests {
    /// The archives Terraform downloaded (its `GET`s of a `.zip`), each
    /// once, and no other archive; other requests are its own (no `HEAD`,
    /// each document once). Nothing at all when Terraform asked nothing.
    Downloads,
    /// No request at all.
    None,
}

/// What `tfdisco install` must do with a case's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// What Terraform did: its exit code, tree (the cache entries' lock files aside:
    /// [`split_cache_lock_files`]) and lock file, and the same archives
    /// downloaded ([`Requests::Downloads`]).
    Same,
    /// A deliberate difference (`docs/behaviour.md`, INSTALL rules).
    Differs {
        /// Why, in a line.
        why: &'static str,
        /// tfdisco's exit code.
        exit: i32,
        /// Its tree.
        tree: Tree,
        /// Its lock file.
        lock: Lock,
        /// Its requests.
        requests: Requests,
    },
}

/// One golden case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its folder under `fixtures/install-goldens/`.
    pub name: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// Where the providers come from.
    pub source: Source,
    /// The providers' host, when it cannot be the test server's.
    pub host: Option<&'static str>,
    /// How the input lock file was made.
    pub lock: LockInput,
    /// Packages in `.terraform/providers` before the run.
    pub installed: &'static [Package],
    /// The plugin cache.
    pub cache: Cache,
    /// What is done to the registry before the run.
    pub spoil: &'static [Spoil],
    /// `init`'s arguments besides [`INIT_ARGS`] (`-upgrade`,
    /// `-lockfile=readonly`).
    pub args: &'static [&'static str],
    /// Terraform's exit code (`exit-code` holds it too).
    pub exit: i32,
    /// What tfdisco must do.
    pub tfdisco: Expect,
}

const fn package(name: &'static str, version: &'static str) -> Package {
    Package {
        name,
        version,
        change: Change::None,
    }
}

const ALPHA: Package = package("alpha", "1.1.0");
const BETA: Package = package("beta", "0.10.0");
const BOTH: &[Package] = &[ALPHA, BETA];
const ALPHA_BINARY: &str = "terraform-provider-alpha_v1.1.0";

/// A package for [`PLATFORM`] a mirror holds.
const fn mirrored(name: &'static str, version: &'static str) -> Mirrored {
    Mirrored {
        name,
        version,
        platform: PLATFORM,
    }
}

/// The registry's newest versions, alpha 1.1.0 and beta 0.10.0.
const NEWEST: &[Mirrored] = &[mirrored("alpha", "1.1.0"), mirrored("beta", "0.10.0")];

/// Alpha 1.1.0 alone.
const ALPHA_ONLY: &[Mirrored] = &[mirrored("alpha", "1.1.0")];

/// Alpha 1.1.0 for another platform than [`PLATFORM`].
const ALPHA_DARWIN: Mirrored = Mirrored {
    platform: "darwin_arm64",
    ..mirrored("alpha", "1.1.0")
};

/// [`ALPHA`] with `change` done to it.
const fn alpha_with(change: Change) -> Package {
    Package { change, ..ALPHA }
}

/// A plugin cache holding `holds`, without
/// `plugin_cache_may_break_dependency_lock_file`.
const fn cache(holds: &'static [Package]) -> Cache {
    Cache::Dir {
        may_break: false,
        holds,
    }
}

/// A method with these `include` patterns and no `exclude` ones.
const fn method(via: Via, include: &'static [&'static str]) -> Method {
    Method {
        via,
        include,
        exclude: &[],
    }
}

/// A filesystem mirror in `folder`.
const fn fs_mirror(folder: &'static str, layout: Layout, packages: &'static [Mirrored]) -> Via {
    Via::FsMirror {
        folder,
        layout,
        packages,
    }
}

/// A filesystem mirror in [`FS_MIRROR_DIR`], packed.
const fn packed_mirror(packages: &'static [Mirrored]) -> Via {
    fs_mirror(FS_MIRROR_DIR, Layout::Packed, packages)
}

/// A network mirror at [`MIRROR_PATH`] serving `packages`.
const fn net_mirror(packages: &'static [Mirrored]) -> Via {
    Via::NetMirror {
        path: MIRROR_PATH,
        packages,
        status: None,
    }
}

/// `direct {}`, without patterns.
const DIRECT: Method = method(Via::Direct, &[]);

const fn entry(name: &'static str, mode: u32, content: &'static [u8]) -> ZipEntry {
    ZipEntry {
        name,
        mode,
        content,
    }
}

/// Alpha's executable as the registry's archive holds it.
const ALPHA_EXECUTABLE: ZipEntry = entry(ALPHA_BINARY, 0o100755, b"#!/bin/sh\n");

/// What a case is where it says nothing else: the providers from the
/// signed registry, no input lock file, nothing installed or cached
/// before, an unspoiled registry, no extra arguments, exit 0, and tfdisco
/// doing what Terraform did. Every case names itself and says what it shows.
const PLAIN: Case = Case {
    name: "",
    about: "",
    source: Source::Registry,
    host: None,
    lock: LockInput::None,
    installed: &[],
    cache: Cache::None,
    spoil: &[],
    args: &[],
    exit: 0,
    tfdisco: Expect::Same,
};

/// The providers of the case's host, as a pattern.
const ALL_OF_HOST: &[&str] = &["{HOST}/*/*"];

/// A locked version already in place is used as it is: exit 0,
/// Terraform's tree and lock file, no request.
const REUSED_WITHOUT_REQUESTS: Expect = Expect::Differs {
    why: "a locked version already in place (in .terraform/providers or the \
          cache) is used without any request; Terraform still asks discovery and the versions",
    exit: 0,
    tree: Tree::Terraform,
    lock: Lock::Terraform,
    requests: Requests::None,
};

/// An install that does not match the lock file, replaced by the
/// verified packages: exit 0, `fresh`'s tree, the lock file unchanged.
const fn replaced_by_fresh(why: &'static str) -> Expect {
    Expect::Differs {
        why,
        exit: 0,
        tree: Tree::Case("fresh"),
        lock: Lock::Before,
        requests: Requests::Downloads,
    }
}

/// `-lockfile=readonly` with a lock file that would change: exit 3 after
/// the downloads, nothing placed, the lock file unchanged.
const READONLY_REFUSES: Expect = Expect::Differs {
    why: "--lockfile readonly and a lock file that would change: exit 3, nothing \
          placed, the lock file as it was; Terraform installs, then exits 1 for a new provider or \
          only warns (exit 0) for new hashes",
    exit: 3,
    tree: Tree::Before,
    lock: Lock::Before,
    requests: Requests::Downloads,
};

const HOSTILE_ENTRY: &str = "a package entry that is a symlink, absolute, a duplicate or has a `..` \
     element is refused (exit 1) and nothing is placed; Terraform unpacks it its own way";

/// A package with a [`HOSTILE_ENTRY`]: exit 1, nothing placed, no request.
const REFUSES_HOSTILE_ENTRY: Expect = Expect::Differs {
    why: HOSTILE_ENTRY,
    exit: 1,
    tree: Tree::Before,
    lock: Lock::Before,
    requests: Requests::None,
};

/// Every case, in the order they are made (a case whose input lock file is
/// another's result after it).
pub const CASES: &[Case] = &[
    Case {
        name: "fresh",
        about: "two providers from the signed registry, no lock file (one source in mixed case)",
        ..PLAIN
    },
    Case {
        name: "kept",
        about: "fresh's install and lock file: both kept, nothing downloaded",
        lock: LockInput::Case("fresh"),
        installed: BOTH,
        tfdisco: REUSED_WITHOUT_REQUESTS,
        ..PLAIN
    },
    Case {
        name: "modified",
        about: "fresh's install with alpha's executable modified: alpha downloaded again and \
                restored, the lock file unchanged",
        lock: LockInput::Case("fresh"),
        installed: &[alpha_with(Change::Modify(ALPHA_BINARY)), BETA],
        ..PLAIN
    },
    Case {
        name: "extra-file",
        about: "fresh's install with a file added to alpha's: Terraform unzips over it, the \
                file stays and its h1: joins the lock file",
        lock: LockInput::Case("fresh"),
        installed: &[alpha_with(Change::Extra("extra.txt")), BETA],
        tfdisco: replaced_by_fresh(
            "an install that does not match the lock file is replaced: the extra file \
             goes, the lock file keeps its hashes",
        ),
        ..PLAIN
    },
    Case {
        name: "extra-file-readonly",
        about: "extra-file with -lockfile=readonly: Terraform only warns (exit 0), the file stays, \
                the lock file is not written",
        lock: LockInput::Case("fresh"),
        installed: &[alpha_with(Change::Extra("extra.txt")), BETA],
        args: &["-lockfile=readonly"],
        tfdisco: replaced_by_fresh(
            "the mismatching install is replaced; the lock file would not change, so \
             readonly is no obstacle",
        ),
        ..PLAIN
    },
    Case {
        name: "cache-fill",
        about: "an empty plugin cache (TF_PLUGIN_CACHE_DIR), no lock file: unpacked into the \
                cache, linked from .terraform/providers",
        cache: cache(&[]),
        ..PLAIN
    },
    Case {
        name: "cache-hit",
        about: "a second directory with cache-fill's lock file and cache: links only, \
                nothing downloaded",
        lock: LockInput::Case("cache-fill"),
        cache: cache(BOTH),
        tfdisco: REUSED_WITHOUT_REQUESTS,
        ..PLAIN
    },
    Case {
        name: "cache-no-lock",
        about: "a second directory with cache-fill's cache but no lock file: Terraform downloads \
                again and unpacks over the cache entries",
        cache: cache(BOTH),
        ..PLAIN
    },
    Case {
        name: "cache-may-break",
        about: "cache-no-lock with plugin_cache_may_break_dependency_lock_file: linked from the \
                cache without a download, the lock file gets the h1: alone",
        cache: Cache::Dir {
            may_break: true,
            holds: BOTH,
        },
        ..PLAIN
    },
    Case {
        name: "cache-tampered",
        about: "cache-no-lock with alpha's cached executable replaced and a file beside it \
                vouching for the replacement: Terraform downloads alpha again and unpacks \
                over it; the side file stays",
        cache: cache(&[alpha_with(Change::Tamper(ALPHA_BINARY)), BETA]),
        ..PLAIN
    },
    Case {
        name: "cache-tampered-new-provider",
        about: "cache-tampered with a lock file that records beta only (alpha newly \
                required): beta linked from the cache, alpha downloaded and unpacked over \
                the tampered entry",
        lock: LockInput::ProvidersLock {
            platforms: &[PLATFORM],
            providers: &["{HOST}/ns/beta"],
        },
        cache: cache(&[alpha_with(Change::Tamper(ALPHA_BINARY)), BETA]),
        ..PLAIN
    },
    Case {
        name: "cache-tampered-locked",
        about: "cache-hit with alpha's cached executable replaced: the lock file does not \
                vouch for it, so alpha is downloaded again into the cache",
        lock: LockInput::Case("cache-fill"),
        cache: cache(&[alpha_with(Change::Tamper(ALPHA_BINARY)), BETA]),
        ..PLAIN
    },
    Case {
        name: "cache-extra-file",
        about: "cache-no-lock with a file added to alpha's cache entry: Terraform unpacks \
                over it, the file stays and the lock file records the h1: of the entry \
                with it",
        cache: cache(&[alpha_with(Change::Extra("extra.txt")), BETA]),
        tfdisco: Expect::Differs {
            why: "a cache entry is replaced whole by the verified package: the planted file \
                  goes, and the lock file records the registry's package alone",
            exit: 0,
            tree: Tree::Case("cache-no-lock"),
            lock: Lock::Case("cache-no-lock"),
            requests: Requests::Downloads,
        },
        ..PLAIN
    },
    Case {
        name: "corrupted-archive",
        about: "alpha's archive does not match its checksum: exit 1, nothing installed",
        spoil: &[Spoil::Corrupt("alpha", "1.1.0", PLATFORM)],
        exit: 1,
        ..PLAIN
    },
    Case {
        name: "bad-signature",
        about: "alpha's SHA256SUMS signature does not verify: exit 1, nothing installed",
        spoil: &[Spoil::BadSignature("alpha", "1.1.0")],
        exit: 1,
        ..PLAIN
    },
    Case {
        name: "readonly-new-provider",
        about: "-lockfile=readonly, beta not in the lock file: Terraform installs both, then \
                exits 1",
        lock: LockInput::ProvidersLock {
            platforms: &[PLATFORM],
            providers: &["{HOST}/ns/alpha"],
        },
        args: &["-lockfile=readonly"],
        exit: 1,
        tfdisco: READONLY_REFUSES,
        ..PLAIN
    },
    Case {
        name: "readonly-hash-change",
        about: "-lockfile=readonly, a lock file made for darwin_arm64 only: Terraform installs, \
                warns that the linux_amd64 h1: is not recorded, exits 0",
        lock: LockInput::ProvidersLock {
            platforms: &["darwin_arm64"],
            providers: &[],
        },
        args: &["-lockfile=readonly"],
        tfdisco: READONLY_REFUSES,
        ..PLAIN
    },
    Case {
        name: "locked-outside",
        about: "alpha locked at 1.0.0, the configuration wants ~> 2.0: exit 1 before any request",
        lock: LockInput::LockGolden("locked-outside"),
        exit: 1,
        tfdisco: Expect::Differs {
            why: "a locked version outside the constraints exits 3 (no version fits); \
                  Terraform exits 1",
            exit: 3,
            tree: Tree::Terraform,
            lock: Lock::Terraform,
            requests: Requests::None,
        },
        ..PLAIN
    },
    Case {
        name: "upgrade",
        about: "alpha 1.0.0 locked and installed, -upgrade: 1.1.0 installed beside it, the lock \
                file moves to 1.1.0",
        lock: LockInput::LockGolden("locked-outside"),
        installed: &[package("alpha", "1.0.0")],
        args: &["-upgrade"],
        ..PLAIN
    },
    Case {
        name: "fs-mirror",
        about: "a packed filesystem mirror (providers mirror's tree): unpacked, unauthenticated, \
                the lock file gets the h1: alone",
        source: Source::FsMirror("mirror-fresh"),
        ..PLAIN
    },
    Case {
        name: "fs-mirror-unpacked",
        about: "an unpacked filesystem mirror: .terraform/providers links to the mirror's folders",
        source: Source::FsMirror(mirror_goldens::UNPACKED),
        ..PLAIN
    },
    Case {
        name: "net-mirror",
        about: "a network mirror (providers mirror's tree over https): no discovery, the \
                archives checked against the mirror's hashes, the lock file gets the h1: alone",
        source: Source::NetMirror("mirror-fresh"),
        host: Some(MIRROR_HOST),
        ..PLAIN
    },
    Case {
        name: "fs-mirror-older",
        about: "a packed filesystem mirror including {HOST}/*/* with alpha 1.0.0 and beta 0.9.0, \
                then direct {}: the newest versions of both methods (alpha 1.1.0, beta 0.10.0), \
                which the mirror lacks, come from the registry with its signed hashes",
        source: Source::Methods(&[
            method(
                packed_mirror(&[mirrored("alpha", "1.0.0"), mirrored("beta", "0.9.0")]),
                ALL_OF_HOST,
            ),
            DIRECT,
        ]),
        ..PLAIN
    },
    Case {
        name: "fs-mirror-same",
        about: "fs-mirror-older with the mirror holding the newest versions (alpha 1.1.0, beta \
                0.10.0): the mirror comes first, so both come from it, unauthenticated, their \
                h1: alone in the lock file; the registry is asked for versions only",
        source: Source::Methods(&[method(packed_mirror(NEWEST), ALL_OF_HOST), DIRECT]),
        ..PLAIN
    },
    Case {
        name: "fs-mirror-packed-unpacked",
        about: "a packed filesystem mirror (alpha 1.0.0, beta 0.10.0), then an unpacked one \
                (alpha 1.1.0, beta 0.10.0): alpha 1.1.0 linked from the second, beta unpacked \
                from the first",
        source: Source::Methods(&[
            method(
                fs_mirror(
                    "fs-packed",
                    Layout::Packed,
                    &[mirrored("alpha", "1.0.0"), mirrored("beta", "0.10.0")],
                ),
                &[],
            ),
            method(fs_mirror("fs-unpacked", Layout::Unpacked, NEWEST), &[]),
        ]),
        ..PLAIN
    },
    Case {
        name: "net-mirror-then-direct",
        about: "a network mirror including {HOST}/ns/alpha and serving alpha 1.1.0, then \
                direct {}: alpha from the mirror (verified checksum, its h1: alone), beta, \
                which only direct may install, from the registry",
        source: Source::Methods(&[method(net_mirror(ALPHA_ONLY), &["{HOST}/ns/alpha"]), DIRECT]),
        host: Some(MIRROR_HOST),
        ..PLAIN
    },
    Case {
        name: "net-mirror-unknown-provider",
        about: "a network mirror without include patterns that does not know beta (404 for its \
                index.json), then direct {}: the versions are direct's, but the mirror is \
                asked for 0.10.0.json first, and its 404 there is a failed query: exit 1",
        source: Source::Methods(&[method(net_mirror(ALPHA_ONLY), &[]), DIRECT]),
        host: Some(MIRROR_HOST),
        exit: 1,
        ..PLAIN
    },
    Case {
        name: "net-mirror-older",
        about: "a network mirror serving alpha 1.0.0 only, then direct {}: 1.1.0, the \
                registry's, is selected and asked of the mirror first, whose 404 for \
                1.1.0.json is a failed query, not a reason to ask the registry",
        source: Source::Methods(&[
            method(net_mirror(&[mirrored("alpha", "1.0.0")]), &[]),
            DIRECT,
        ]),
        host: Some(MIRROR_HOST),
        exit: 1,
        ..PLAIN
    },
    Case {
        name: "net-mirror-500",
        about: "a network mirror answering 500, then direct {}: the failed query of the \
                mirror's versions fails the provider; the registry is not a fallback",
        source: Source::Methods(&[
            Method {
                via: Via::NetMirror {
                    path: MIRROR_PATH,
                    packages: &[],
                    status: Some(500),
                },
                include: &[],
                exclude: &[],
            },
            DIRECT,
        ]),
        host: Some(MIRROR_HOST),
        exit: 1,
        ..PLAIN
    },
    Case {
        name: "missing-platform",
        about: "a packed filesystem mirror and a network mirror holding alpha 1.1.0 for \
                darwin_arm64 only, then direct {}: neither has linux_amd64, so the package \
                comes from the registry",
        source: Source::Methods(&[
            method(packed_mirror(&[ALPHA_DARWIN]), &[]),
            method(net_mirror(&[ALPHA_DARWIN]), &[]),
            DIRECT,
        ]),
        host: Some(MIRROR_HOST),
        ..PLAIN
    },
    Case {
        name: "zip-setuid",
        about: "a filesystem mirror's archive with a setuid executable and a 0600 file: \
                Terraform keeps both modes",
        source: Source::FsMirrorZip(&[
            entry(ALPHA_BINARY, 0o104755, b"#!/bin/sh\n"),
            entry("private.txt", 0o100600, b"private\n"),
        ]),
        tfdisco: Expect::Differs {
            why: "setuid, setgid and sticky bits are cleared when unpacking",
            exit: 0,
            tree: Tree::TerraformMasked,
            lock: Lock::Terraform,
            requests: Requests::None,
        },
        ..PLAIN
    },
    Case {
        name: "zip-symlink",
        about: "an archive with a symlink entry: Terraform writes a 0777 file holding the target",
        source: Source::FsMirrorZip(&[
            ALPHA_EXECUTABLE,
            entry("link", 0o120777, ALPHA_BINARY.as_bytes()),
        ]),
        tfdisco: REFUSES_HOSTILE_ENTRY,
        ..PLAIN
    },
    Case {
        name: "zip-absolute",
        about: "an archive with an absolute entry name: Terraform puts it inside the package",
        source: Source::FsMirrorZip(&[
            ALPHA_EXECUTABLE,
            entry("/abs/file.txt", 0o100644, b"absolute\n"),
        ]),
        tfdisco: REFUSES_HOSTILE_ENTRY,
        ..PLAIN
    },
    Case {
        name: "zip-duplicate",
        about: "an archive naming the executable twice: the last one wins, content and mode",
        source: Source::FsMirrorZip(&[
            entry(ALPHA_BINARY, 0o100755, b"first\n"),
            entry(ALPHA_BINARY, 0o100700, b"second\n"),
        ]),
        tfdisco: REFUSES_HOSTILE_ENTRY,
        ..PLAIN
    },
    Case {
        name: "zip-dotdot",
        about: "an archive with a `..` entry: Terraform fails (exit 1) and leaves what it \
                unpacked before it",
        source: Source::FsMirrorZip(&[
            ALPHA_EXECUTABLE,
            entry("../escaped.txt", 0o100644, b"escaped\n"),
        ]),
        exit: 1,
        tfdisco: REFUSES_HOSTILE_ENTRY,
        ..PLAIN
    },
];

/// The case named `name`.
pub fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no install golden {name}"))
}

/// The folder of all the cases.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/install-goldens")
}

/// The files every case has (`terraform.lock.hcl` besides, when Terraform
/// left one).
pub const CASE_FILES: [&str; 6] = [
    "input/main.tf",
    "before.txt",
    "tree.txt",
    "terraform.out",
    "exit-code",
    "requests.txt",
];

/// The committed lock file after the run.
pub const LOCK_GOLDEN: &str = "terraform.lock.hcl";

fn read_fixture(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of a manifest with `host` for `{HOST}`, sorted again by path
/// (the host's text may sort otherwise than `{HOST}`).
pub(crate) fn hosted_manifest(text: &str, host: &str) -> String {
    let mut lines: Vec<(String, String)> = text
        .lines()
        .map(|line| {
            let line = line.replace(HOST, host);
            let path = parse_line(&line)
                .unwrap_or_else(|| panic!("not a manifest line: {line}"))
                .path
                .to_owned();
            (path, line)
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, line)| line + "\n").collect()
}

/// `manifest` with the setuid, setgid and sticky bits of its files cleared.
fn masked(manifest: &str) -> String {
    manifest
        .lines()
        .map(|line| match parse_line(line) {
            Some(entry) if entry.kind == "file" && entry.mode & 0o7000 != 0 => format!(
                "file {:04o} {} {}\n",
                entry.mode & 0o777,
                entry.path,
                entry.detail
            ),
            _ => format!("{line}\n"),
        })
        .collect()
}

impl Case {
    /// This case's folder.
    pub fn dir(&self) -> PathBuf {
        goldens_dir().join(self.name)
    }

    /// The providers' host for a run on `server`: the case's own, or the
    /// server's.
    pub fn host(&self, server: &TestServer) -> String {
        match self.host {
            Some(host) => host.to_owned(),
            None => server.host().to_string(),
        }
    }

    /// Whether the run has a plugin cache.
    pub fn uses_cache(&self) -> bool {
        matches!(self.cache, Cache::Dir { .. })
    }

    /// Serves what the run asks on `server`: the signed registry, spoiled
    /// as the case says, and the network mirror it reads.
    pub fn serve(&self, server: &TestServer) {
        let registry = signed_registry::install(server);
        for spoil in self.spoil {
            match *spoil {
                Spoil::Corrupt(name, version, platform) => {
                    registry.corrupt(name, version, platform)
                }
                Spoil::BadSignature(name, version) => registry.bad_signature(name, version),
            }
        }
        let host = self.host(server);
        match self.source {
            Source::NetMirror(tree) => {
                mirror_goldens::serve_tree(server, &mirror_goldens::tree_dir(tree), &host, &[]);
            }
            Source::Methods(methods) => {
                for method in methods {
                    match method.via {
                        Via::NetMirror {
                            path,
                            packages,
                            status,
                        } => serve_packages(server, path, packages, status, &host),
                        Via::Direct | Via::FsMirror { .. } => {}
                    }
                }
            }
            Source::Registry | Source::FsMirror(_) | Source::FsMirrorZip(_) => {}
        }
    }

    /// Writes the case's input for the providers' `host`: `input/` (the
    /// configuration and lock file) into `dir`; the packages installed
    /// before the run into `dir/.terraform/providers`; those the cache
    /// holds into `cache` (which must be given when the case has one, and
    /// is made when missing); a filesystem mirror into `dir/fs-mirror`.
    /// Folders are made `0755` less the umask, files get their archive
    /// modes, as Terraform makes them: under umask `022` the result's
    /// [manifest](tree_manifest) is `before.txt`.
    pub fn prepare(&self, dir: &Path, cache: Option<&Path>, host: &str) {
        copy_text_tree(&self.dir().join("input"), dir, host);
        let providers = dir.join(PROVIDERS_DIR);
        for package in self.installed {
            package.unpack(&providers, host);
        }
        if let Cache::Dir { holds, .. } = self.cache {
            let cache = cache.unwrap_or_else(|| panic!("{}: a cache folder is needed", self.name));
            zip::mkdir_all(cache);
            for package in holds {
                package.unpack(cache, host);
            }
        }
        let mirror = dir.join(FS_MIRROR_DIR);
        match self.source {
            Source::FsMirror(tree) => {
                mirror_goldens::copy_tree(&mirror_goldens::tree_dir(tree), &mirror, host)
            }
            Source::FsMirrorZip(entries) => {
                let folder = mirror.join(host).join(NAMESPACE).join("alpha");
                zip::mkdir_all(&folder);
                let entries: Vec<(&str, u32, &[u8])> = entries
                    .iter()
                    .map(|e| (e.name, e.mode, e.content))
                    .collect();
                let file = signed_registry::package_file("alpha", "1.1.0", PLATFORM);
                let path = folder.join(file);
                fs::write(&path, zip::write_stored(&entries))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            Source::Methods(methods) => {
                for method in methods {
                    if let Via::FsMirror {
                        folder,
                        layout,
                        packages,
                    } = method.via
                    {
                        write_packages(&dir.join(folder), layout, packages, host);
                    }
                }
            }
            Source::Registry | Source::NetMirror(_) => {}
        }
    }

    /// The CLI configuration of a run in `dir` on `server`: no checkpoint,
    /// may-break when the case says, and its `provider_installation` (none
    /// for the registry: the implied methods).
    pub fn cli_config(&self, dir: &Path, server: &TestServer) -> String {
        let quoted = |text: &str| tfdisco_core::serde_json::Value::from(text).to_string();
        let mut text = String::from("disable_checkpoint = true\n");
        if let Cache::Dir {
            may_break: true, ..
        } = self.cache
        {
            text.push_str("plugin_cache_may_break_dependency_lock_file = true\n");
        }
        let method = match self.source {
            Source::Registry => None,
            Source::FsMirror(_) | Source::FsMirrorZip(_) => Some(format!(
                "filesystem_mirror {{\n    path = {}\n  }}",
                quoted(&dir.join(FS_MIRROR_DIR).to_string_lossy())
            )),
            Source::NetMirror(_) => Some(format!(
                "network_mirror {{\n    url = {}\n  }}",
                quoted(&server.url(MIRROR_PATH))
            )),
            Source::Methods(methods) => {
                let host = self.host(server);
                let patterns = |name: &str, patterns: &[&str]| {
                    if patterns.is_empty() {
                        return String::new();
                    }
                    let quoted: Vec<String> = patterns
                        .iter()
                        .map(|p| quoted(&p.replace(HOST, &host)))
                        .collect();
                    format!("    {name} = [{}]\n", quoted.join(", "))
                };
                let blocks: Vec<String> = methods
                    .iter()
                    .map(|method| {
                        let (name, location) = match method.via {
                            Via::Direct => ("direct", String::new()),
                            Via::FsMirror { folder, .. } => (
                                "filesystem_mirror",
                                format!(
                                    "    path = {}\n",
                                    quoted(&dir.join(folder).to_string_lossy())
                                ),
                            ),
                            Via::NetMirror { path, .. } => (
                                "network_mirror",
                                format!("    url = {}\n", quoted(&server.url(path))),
                            ),
                        };
                        format!(
                            "{name} {{\n{location}{}{}  }}",
                            patterns("include", method.include),
                            patterns("exclude", method.exclude)
                        )
                    })
                    .collect();
                if self.host.is_some() && methods.iter().any(|m| matches!(m.via, Via::Direct)) {
                    // `direct` for a host without a port: the signed
                    // registry's services, without discovery.
                    text.push_str(&format!(
                        "host {} {{\n  services = {{\n    \"providers.v1\" = {}\n  }}\n}}\n",
                        quoted(&host),
                        quoted(&server.url("/v1/providers/"))
                    ));
                }
                Some(blocks.join("\n  "))
            }
        };
        if let Some(method) = method {
            text.push_str(&format!("provider_installation {{\n  {method}\n}}\n"));
        }
        text
    }

    /// Sets a run up on `server` in `scratch`: serves it, prepares
    /// `scratch/work` (and `scratch/cache` when the case has a cache),
    /// writes the CLI configuration `scratch/terraformrc` and makes an
    /// empty `scratch/home`.
    pub fn setup(&self, server: &TestServer, scratch: &Path) -> Setup {
        self.serve(server);
        let host = self.host(server);
        let dir = scratch.join("work");
        let cache = self.uses_cache().then(|| scratch.join("cache"));
        self.prepare(&dir, cache.as_deref(), &host);
        let home = scratch.join("home");
        zip::mkdir_all(&home);
        let cli_config = scratch.join("terraformrc");
        fs::write(&cli_config, self.cli_config(&dir, server))
            .unwrap_or_else(|e| panic!("{}: {e}", cli_config.display()));
        Setup {
            dir,
            cache,
            cli_config,
            home,
            host,
            server_host: server.host().to_string(),
        }
    }

    /// The input lock file with `host` in it; `None` when there is none.
    pub fn input_lock(&self, host: &str) -> Option<String> {
        read_hosted(&self.dir().join("input").join(LOCK_FILE), host)
    }

    /// The manifest [`Case::prepare`] makes (under umask `022`).
    pub fn before_tree(&self, host: &str) -> String {
        hosted_manifest(&read_fixture(&self.dir().join("before.txt")), host)
    }

    /// The manifest Terraform left (under umask `022`).
    pub fn expected_tree(&self, host: &str) -> String {
        hosted_manifest(&read_fixture(&self.dir().join("tree.txt")), host)
    }

    /// The lock file Terraform left, with `host` in it; `None` when there
    /// is none.
    pub fn expected_lock(&self, host: &str) -> Option<String> {
        read_hosted(&self.dir().join(LOCK_GOLDEN), host)
    }

    /// Terraform's exit code, as committed.
    pub fn terraform_exit(&self) -> i32 {
        let text = read_fixture(&self.dir().join("exit-code"));
        text.trim()
            .parse()
            .unwrap_or_else(|e| panic!("{}: exit-code {text:?}: {e}", self.name))
    }

    /// What Terraform printed, with `host` in it.
    pub fn terraform_output(&self, host: &str) -> String {
        read_hosted(&self.dir().join("terraform.out"), host).unwrap_or_default()
    }

    /// The requests Terraform made, in order (`METHOD /path`), with `host`
    /// in them.
    pub fn terraform_requests(&self, host: &str) -> Vec<String> {
        read_fixture(&self.dir().join("requests.txt"))
            .replace(HOST, host)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// True when tfdisco refuses the case's package as no package it can
    /// unpack: every failure is then of kind `package`.
    pub fn refuses_the_package(&self) -> bool {
        matches!(self.tfdisco, Expect::Differs { why, .. } if why == HOSTILE_ENTRY)
    }

    /// What `tfdisco install` must do with this case's input, for the
    /// providers' `host`.
    pub fn expected_for_tfdisco(&self, host: &str) -> Expected {
        let (exit, tree, lock, requests) = match self.tfdisco {
            Expect::Same => (
                self.exit,
                Tree::Terraform,
                Lock::Terraform,
                Requests::Downloads,
            ),
            Expect::Differs {
                exit,
                tree,
                lock,
                requests,
                ..
            } => (exit, tree, lock, requests),
        };
        let tree = match tree {
            Tree::Terraform => self.expected_tree(host),
            Tree::Before => self.before_tree(host),
            Tree::Case(other) => case(other).expected_tree(host),
            Tree::TerraformMasked => masked(&self.expected_tree(host)),
        };
        let lock = match lock {
            Lock::Terraform => self.expected_lock(host),
            Lock::Before => self.input_lock(host),
            Lock::Case(other) => case(other).expected_lock(host),
        };
        let terraform = self.terraform_requests(host);
        let requests = match requests {
            Requests::None => ExpectedRequests::None,
            Requests::Downloads if terraform.is_empty() => ExpectedRequests::None,
            Requests::Downloads => ExpectedRequests::Downloads(downloads(&terraform)),
        };
        Expected {
            exit,
            tree,
            lock,
            requests,
        }
    }
}

impl Package {
    /// The folder of this package for [`PLATFORM`] under `base` (a
    /// providers folder or a cache).
    pub fn path(&self, base: &Path, host: &str) -> PathBuf {
        self.path_for(PLATFORM, base, host)
    }

    /// The folder of this package for `platform` under `base`.
    pub fn path_for(&self, platform: &str, base: &Path, host: &str) -> PathBuf {
        base.join(host)
            .join(NAMESPACE)
            .join(self.name)
            .join(self.version)
            .join(platform)
    }

    /// Unpacks the signed registry's package for [`PLATFORM`] into its
    /// folder under `base` as Terraform does, then changes it as it says.
    pub fn unpack(&self, base: &Path, host: &str) {
        self.unpack_for(PLATFORM, base, host);
    }

    /// [`Package::unpack`] for `platform` (a lock run's plugin cache holds
    /// packages of every platform it locked).
    pub fn unpack_for(&self, platform: &str, base: &Path, host: &str) {
        let target = self.path_for(platform, base, host);
        let file = signed_registry::package_file(self.name, self.version, platform);
        zip::unpack(
            signed_registry::file(self.name, self.version, &file),
            &target,
        );
        let (path, content) = match self.change {
            Change::None => return,
            Change::Modify(file) | Change::Tamper(file) => {
                (target.join(file), b"modified\n" as &[u8])
            }
            Change::Extra(file) => (target.join(file), b"extra\n" as &[u8]),
        };
        if let Change::Modify(_) | Change::Tamper(_) = self.change {
            assert!(path.is_file(), "{}: no such file to modify", path.display());
        }
        fs::write(&path, content).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Change::Extra(_) = self.change {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o644))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        if let Change::Tamper(_) = self.change {
            let metadata = target.with_file_name(format!("{platform}.metadata.json"));
            fs::write(&metadata, vouching_metadata(&target))
                .unwrap_or_else(|e| panic!("{}: {e}", metadata.display()));
        }
    }
}

/// Writes `packages` of the signed registry into the filesystem mirror
/// `mirror` in `layout`, under the providers' `host`.
fn write_packages(mirror: &Path, layout: Layout, packages: &[Mirrored], host: &str) {
    for package in packages {
        let folder = mirror.join(host).join(NAMESPACE).join(package.name);
        let file = signed_registry::package_file(package.name, package.version, package.platform);
        let bytes = signed_registry::file(package.name, package.version, &file);
        match layout {
            Layout::Packed => {
                zip::mkdir_all(&folder);
                let path = folder.join(&file);
                fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            Layout::Unpacked => {
                zip::unpack(bytes, &folder.join(package.version).join(package.platform));
            }
        }
    }
}

/// Serves `packages` of the signed registry as a network mirror at `path`
/// on `server`, for the providers' `host`: each provider's `index.json`,
/// each version's `<version>.json` listing its archives with their `h1:`
/// (`dirhash.HashZip`, as `providers mirror` lists them), and the
/// archives; anything else under `path` is a 404. With `status`, every
/// request under `path` gets that status.
fn serve_packages(
    server: &TestServer,
    path: &str,
    packages: &[Mirrored],
    status: Option<u16>,
    host: &str,
) {
    use std::collections::{BTreeMap, BTreeSet};
    use tfdisco_provider::{ArchiveEntry, mirror_archives_document, mirror_index_document};

    if let Some(status) = status {
        server.route_prefix(path, crate::Reply::new(status).body(b"mirror failure"));
        return;
    }
    server.route_prefix(path, crate::Reply::new(404).body(b"not found"));
    let json = |bytes: Vec<u8>| {
        crate::Reply::new(200)
            .header("Content-Type", "application/json")
            .body(&bytes)
    };
    let mut versions: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut archives: BTreeMap<(&str, &str), BTreeMap<String, ArchiveEntry>> = BTreeMap::new();
    for package in packages {
        versions
            .entry(package.name)
            .or_default()
            .insert(package.version);
        let file = signed_registry::package_file(package.name, package.version, package.platform);
        let bytes = signed_registry::file(package.name, package.version, &file);
        let hashes =
            tfdisco_provider::hash_package(bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        archives
            .entry((package.name, package.version))
            .or_default()
            .insert(
                package.platform.to_owned(),
                ArchiveEntry {
                    hashes: vec![hashes.h1_zip()],
                    url: file.clone(),
                },
            );
        server.route(
            &format!("{path}{host}/{NAMESPACE}/{}/{file}", package.name),
            crate::Reply::new(200)
                .header("Content-Type", "application/zip")
                .body(bytes),
        );
    }
    for (name, listed) in &versions {
        server.route(
            &format!("{path}{host}/{NAMESPACE}/{name}/index.json"),
            json(mirror_index_document(listed.iter().copied())),
        );
    }
    for ((name, version), entries) in &archives {
        server.route(
            &format!("{path}{host}/{NAMESPACE}/{name}/{version}.json"),
            json(mirror_archives_document(entries)),
        );
    }
}

/// What an earlier tfdisco read beside a cache entry as its installer's
/// word: `{"version":1,"package_hash":"h1:…","signed_hashes":[…]}`, here
/// vouching for the folder `entry` as it is now (the `h1:` of its files)
/// with a made-up signed hash. tfdisco reads no such file: a cache vouches
/// for nothing (INSTALL-3).
pub fn vouching_metadata(entry: &Path) -> String {
    let h1 =
        tfdisco_config::hash_folder(entry).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
    format!(
        "{{\"version\":1,\"package_hash\":\"{h1}\",\"signed_hashes\":[\"zh:{}\"]}}\n",
        "0".repeat(64)
    )
}

/// The archive downloads among `requests` (`GET` of a `.zip`), sorted.
pub fn downloads(requests: &[String]) -> Vec<String> {
    let mut out: Vec<String> = requests
        .iter()
        .filter_map(|r| r.strip_prefix("GET "))
        .filter(|path| path.ends_with(".zip"))
        .map(str::to_owned)
        .collect();
    out.sort();
    out
}

/// Where a case's run reads and writes ([`Case::setup`]).
#[derive(Debug, Clone)]
pub struct Setup {
    /// The working directory: the configuration, the lock file,
    /// `.terraform/providers`.
    pub dir: PathBuf,
    /// The plugin cache, when the case has one.
    pub cache: Option<PathBuf>,
    /// The CLI configuration file ([`Case::cli_config`]).
    pub cli_config: PathBuf,
    /// An empty home folder.
    pub home: PathBuf,
    /// The providers' host.
    pub host: String,
    /// The test server's host (`localhost:PORT`).
    pub server_host: String,
}

impl Setup {
    /// The variables of a run: `TF_CLI_CONFIG_FILE`, `HOME` and, with a
    /// cache, `TF_PLUGIN_CACHE_DIR`.
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let mut env = vec![
            (
                "TF_CLI_CONFIG_FILE",
                self.cli_config.clone().into_os_string(),
            ),
            ("HOME", self.home.clone().into_os_string()),
        ];
        if let Some(cache) = &self.cache {
            env.push(("TF_PLUGIN_CACHE_DIR", cache.clone().into_os_string()));
        }
        env
    }

    /// The manifest of the working directory's providers and the cache now.
    pub fn tree(&self) -> String {
        tree_manifest(&self.dir, self.cache.as_deref())
    }

    /// What a run that exited with `exit` and made `requests` left.
    pub fn observe(&self, exit: i32, requests: &[Seen]) -> Observed {
        Observed {
            exit,
            tree: self.tree(),
            lock: fs::read_to_string(self.dir.join(LOCK_FILE)).ok(),
            requests: requests.iter().map(request_line).collect(),
        }
    }

    /// `text` with the placeholders the goldens use: the cache `{CACHE}`,
    /// the working directory `{DIR}`, the folder holding them (and the CLI
    /// configuration and home) `{SCRATCH}`, the providers' host `{HOST}`,
    /// the server's `{SERVER}`.
    pub fn normalize(&self, text: &str) -> String {
        let mut text = text.to_owned();
        if let Some(cache) = &self.cache {
            text = text.replace(&*cache.to_string_lossy(), CACHE);
        }
        text = text.replace(&*self.dir.to_string_lossy(), DIR);
        if let Some(scratch) = self.dir.parent() {
            text = text.replace(&*scratch.to_string_lossy(), "{SCRATCH}");
        }
        text = text.replace(&self.host, HOST);
        text.replace(&self.server_host, "{SERVER}")
    }
}

/// `METHOD /path[?query]`.
pub fn request_line(seen: &Seen) -> String {
    match &seen.query {
        Some(query) => format!("{} {}?{query}", seen.method, seen.path),
        None => format!("{} {}", seen.method, seen.path),
    }
}

/// What an install run left: compare it with an [`Expected`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// The exit code.
    pub exit: i32,
    /// The [manifest](tree_manifest) of `.terraform/providers` and the cache.
    pub tree: String,
    /// The lock file, if any.
    pub lock: Option<String>,
    /// The requests made, in order ([`request_line`]).
    pub requests: Vec<String>,
}

/// What the network must have seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectedRequests {
    /// No request at all.
    None,
    /// Exactly these archive downloads (sorted paths), each once; other
    /// requests are free.
    Downloads(Vec<String>),
}

/// What an install run must leave ([`Case::expected_for_tfdisco`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The exit code.
    pub exit: i32,
    /// The manifest, under umask `022` ([`Expected::under_umask`]).
    pub tree: String,
    /// The lock file, if any.
    pub lock: Option<String>,
    /// The requests.
    pub requests: ExpectedRequests,
}

impl Expected {
    /// The same expectation for a run under `umask` ([`with_umask`]).
    pub fn under_umask(mut self, umask: u32) -> Expected {
        self.tree = with_umask(&self.tree, umask);
        self
    }

    /// Checks `observed`: the exit code, the tree byte for byte once the
    /// cache entries' lock files are set aside
    /// ([`split_cache_lock_files`]: tfdisco's cross-process locks), the lock
    /// file byte for byte, the requests. The error says every difference.
    pub fn check(&self, observed: &Observed) -> Result<(), String> {
        let mut problems = Vec::new();
        if observed.exit != self.exit {
            problems.push(format!(
                "exit code {} where {} was expected",
                observed.exit, self.exit
            ));
        }
        let (tree, _lock_files) = split_cache_lock_files(&observed.tree);
        if tree != self.tree {
            problems.push(format!(
                "the tree differs:\n--- expected\n{}--- observed\n{tree}",
                self.tree
            ));
        }
        if observed.lock != self.lock {
            problems.push(format!(
                "the lock file differs:\n--- expected\n{}\n--- observed\n{}",
                self.lock.as_deref().unwrap_or("(none)"),
                observed.lock.as_deref().unwrap_or("(none)")
            ));
        }
        match &self.requests {
            ExpectedRequests::None if !observed.requests.is_empty() => problems.push(format!(
                "requests were made where none was expected: {:?}",
                observed.requests
            )),
            ExpectedRequests::Downloads(expected) => {
                let got = downloads(&observed.requests);
                if got != *expected {
                    problems.push(format!(
                        "downloads {got:?} where {expected:?} were expected"
                    ));
                }
            }
            ExpectedRequests::None => {}
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }
}

#[cfg(test)]
mod tests;

/// Whether this machine can make goldens, saying why not on stderr: the
/// real `terraform` runs (a warning when it is not
/// [`TERRAFORM_VERSION`]), `git` too when `needs_git`, and the process
/// umask is [`UMASK`] (the goldens' folders are `0755`). Every golden
/// generator checks it first.
pub fn ready_to_generate(needs_git: bool) -> bool {
    if !terraform_available() {
        eprintln!(
            "{} does not run: install Terraform {TERRAFORM_VERSION} or set ${TERRAFORM_VAR}",
            terraform_program().to_string_lossy()
        );
        return false;
    }
    if needs_git && !crate::module_goldens::git::git_available() {
        eprintln!("git does not run: the git cases need it");
        return false;
    }
    match terraform_version() {
        Some(version) if version == TERRAFORM_VERSION => {}
        found => eprintln!(
            "warning: the goldens are Terraform {TERRAFORM_VERSION}'s; this is {}",
            found.as_deref().unwrap_or("an unknown version")
        ),
    }
    if process_umask() != UMASK {
        eprintln!("run with umask {UMASK:03o}: the goldens' folders are 0755");
        return false;
    }
    true
}
