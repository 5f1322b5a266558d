//! The shared module cache (docs/behaviour.md, MOD-13): one folder per
//! package address under `DIR/v1/`, the package as it was fetched (`.git`
//! and all), taken under the entry's lock (`ENTRY.lock`, the plugin
//! cache's `fcntl` lock) so that concurrent runs fetch each package once.
//!
//! The cache vouches for nothing. An entry is used only for a package the
//! module lock identifies, and only once its copy in the run's staging
//! folder is checked against that identity: the `h1:` of its files, or the
//! Git commit (HEAD, every object checked by `git fsck`, the files checked
//! out compared with HEAD's tree, nothing untracked). An entry that fails
//! the check, or a package the lock does not identify, is fetched and the
//! entry replaced.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tfdisco_config::{CacheLock, hash_folder};

use super::fetch::git;
use super::place::copy_all;

/// How long a run waits for an entry another run holds.
const WAIT_LIMIT: Duration = Duration::from_secs(900);

/// An entry of the cache in `dir` for a package address: its folder and
/// its lock file.
pub(crate) struct Entry {
    package: PathBuf,
    lock: PathBuf,
}

impl Entry {
    pub(crate) fn of(dir: &Path, address: &str) -> Entry {
        let digest = Sha256::digest(address.as_bytes());
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        let base = dir.join("v1");
        Entry {
            package: base.join(&name),
            lock: base.join(format!("{name}.lock")),
        }
    }

    /// Takes the entry's lock, waiting (on this thread) while another run
    /// holds it, up to [`WAIT_LIMIT`].
    pub(crate) fn lock(&self) -> Result<CacheLock, String> {
        let start = Instant::now();
        loop {
            match CacheLock::try_take(&self.lock) {
                Ok(Some(lock)) => return Ok(lock),
                Ok(None) if start.elapsed() < WAIT_LIMIT => {
                    std::thread::sleep(Duration::from_millis(25));
                }
                Ok(None) => {
                    return Err(format!(
                        "the module cache entry {} is held by another run for more than {} s",
                        self.lock.display(),
                        WAIT_LIMIT.as_secs()
                    ));
                }
                Err(e) => return Err(format!("{}: {e}", self.lock.display())),
            }
        }
    }

    /// The entry copied into `into` (a new folder) when it is there and
    /// the copy is the package `expected` identifies; false when it must be
    /// fetched (`into` is then removed).
    pub(crate) fn take(&self, into: &Path, expected: &str) -> bool {
        if !self.package.is_dir() {
            return false;
        }
        let copied = fs::create_dir(into).and_then(|()| copy_all(&self.package, into));
        if copied.is_ok() && identifies(into, expected) {
            return true;
        }
        let _ = fs::remove_dir_all(into);
        false
    }

    /// Replaces the entry by a copy of the package fetched into `from`.
    pub(crate) fn fill(&self, from: &Path) -> io::Result<()> {
        let fresh = self.fresh()?;
        copy_all(from, &Entry::filled(&fresh))?;
        self.replace(&fresh)
    }

    /// A new, empty folder beside the entry (`Entry::filled` of it) to fill
    /// and then [`replace`](Entry::replace) the entry with.
    pub(crate) fn fresh(&self) -> io::Result<tempfile::TempDir> {
        let parent = self.package.parent().unwrap_or(&self.package);
        fs::create_dir_all(parent)?;
        let fresh = tempfile::Builder::new()
            .prefix(".fill-")
            .tempdir_in(parent)?;
        fs::create_dir(Entry::filled(&fresh))?;
        Ok(fresh)
    }

    /// The folder of a [`fresh`](Entry::fresh) one to fill.
    pub(crate) fn filled(fresh: &tempfile::TempDir) -> PathBuf {
        fresh.path().join("package")
    }

    /// The entry replaced by what was filled into `fresh`.
    pub(crate) fn replace(&self, fresh: &tempfile::TempDir) -> io::Result<()> {
        if self.package.exists() {
            let old = fresh.path().join("old");
            fs::rename(&self.package, &old)?;
        }
        fs::rename(Entry::filled(fresh), &self.package)
    }

    /// The entry's folder (which may not be there).
    pub(crate) fn folder(&self) -> &Path {
        &self.package
    }
}

/// Whether the package in `dir` is the one `expected` names: `h1:` of its
/// files, or `git:COMMIT` checked with `git` (MOD-13). An `oci://`
/// package's entry holds its manifest and blob instead, checked as it is
/// unpacked (`oci_module_from_cache`).
fn identifies(dir: &Path, expected: &str) -> bool {
    if expected.starts_with("h1:") {
        return hash_folder(dir).is_ok_and(|h1| h1 == expected);
    }
    match expected.strip_prefix("git:") {
        Some(commit) => git_identifies(dir, commit),
        None => false,
    }
}

/// HEAD is `commit`, every object is sound, and the files are HEAD's tree
/// and nothing else: the index made again from HEAD (no stat data, so
/// every file's content is hashed), compared with the files.
fn git_identifies(dir: &Path, commit: &str) -> bool {
    let run = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        git(Some(dir), &args)
    };
    let head = run(&["rev-parse", "--verify", "HEAD^{commit}"]);
    if head.as_deref().map(str::trim) != Ok(commit) {
        return false;
    }
    let _ = fs::remove_file(dir.join(".git/index"));
    run(&["fsck", "--no-progress", "--no-dangling"]).is_ok()
        && run(&["read-tree", "HEAD"]).is_ok()
        && run(&["update-index", "-q", "--refresh"]).is_ok()
        && run(&["diff-files", "--quiet"]).is_ok()
        && run(&["ls-files", "--others", "-z"]).is_ok_and(|untracked| untracked.is_empty())
}
