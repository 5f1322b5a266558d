//! A working folder's providers folder (`.terraform/providers`) and the
//! plugin cache, on disk (docs/behaviour.md, INSTALL-1, INSTALL-2,
//! INSTALL-10, INSTALL-12): what
//! is installed there, the plugin cache entries' locks, a package unpacked
//! as it downloads into a staging folder beside its place, and its
//! placement. The provider crate decides (its install plan); this does what
//! it decides.

mod lock;
mod staged;

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_provider::plan::{
    InstalledPackages, cache_lock_path, package_dir, staging_prefix, stale_staging,
};

use crate::fs_mirror::hash_folder;

pub use lock::CacheLock;
pub use staged::{Staged, StagedPackage};

/// The providers folder of a working folder, and the plugin cache when one
/// is used. Staging folders it made and did not place are removed, and the
/// cache locks it holds released, when it is dropped.
#[derive(Debug)]
pub struct ProvidersFolder {
    target: PathBuf,
    cache: Option<PathBuf>,
    /// Staging folders made and not placed yet.
    staged: Mutex<Vec<PathBuf>>,
    /// The folders made for them (two runs of `stage` at once may both
    /// count a folder, or count a parent after its child): removed again (when
    /// empty) with a staging folder never placed, so that a failed run
    /// leaves no `.terraform/providers` it did not find.
    made: Mutex<Vec<PathBuf>>,
    /// The cache entries' locks held, by lock file.
    locks: Mutex<HashMap<PathBuf, CacheLock>>,
}

/// Which folder a package goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The working folder's providers folder.
    Target,
    /// The plugin cache (the working folder then links to it).
    Cache,
}

impl ProvidersFolder {
    /// The providers folder of the working folder `dir`
    /// (`dir/.terraform/providers`), and the plugin cache `cache` if one is
    /// used (a relative path is taken from the current folder, as the CLIs
    /// take it).
    pub fn new(dir: &Path, cache: Option<&Path>) -> io::Result<ProvidersFolder> {
        let cache = match cache {
            Some(cache) if cache.is_relative() => Some(std::env::current_dir()?.join(cache)),
            Some(cache) => Some(cache.to_owned()),
            None => None,
        };
        Ok(ProvidersFolder {
            target: dir.join(".terraform").join("providers"),
            cache,
            staged: Mutex::new(Vec::new()),
            made: Mutex::new(Vec::new()),
            locks: Mutex::new(HashMap::new()),
        })
    }

    /// The working folder's providers folder.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The plugin cache folder, absolute, if one is used.
    pub fn cache(&self) -> Option<&Path> {
        self.cache.as_deref()
    }

    /// Where a package is unpacked in the working folder's providers folder.
    pub fn target_path(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> PathBuf {
        self.target.join(package_dir(source, version, platform))
    }

    /// Where a package is unpacked in the plugin cache, if one is used.
    pub fn cache_path(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Option<PathBuf> {
        let cache = self.cache.as_ref()?;
        Some(cache.join(package_dir(source, version, platform)))
    }

    /// Takes the lock of a plugin cache entry (OpenTofu's `OS_ARCH.lock`, a
    /// whole-file `fcntl` write lock, INSTALL-12) without waiting: true when
    /// this folder holds it (now or already), false when another process,
    /// or another run of this one, does. Without a cache, true. Once taken,
    /// the staging folders for the entry that no run can be using any more
    /// are removed (INSTALL-10): a run killed mid-download leaves nothing
    /// in the way of the next.
    pub fn try_lock_cache_entry(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> io::Result<bool> {
        let Some(cache) = &self.cache else {
            return Ok(true);
        };
        let path = cache.join(cache_lock_path(source, version, platform));
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        if locks.contains_key(&path) {
            return Ok(true);
        }
        match CacheLock::try_take(&path)? {
            Some(lock) => {
                locks.insert(path.clone(), lock);
                if let Some(version_dir) = path.parent() {
                    sweep_staging(version_dir, platform);
                }
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The lock file of a plugin cache entry, if a cache is used.
    pub fn cache_lock_file(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Option<PathBuf> {
        let cache = self.cache.as_ref()?;
        Some(cache.join(cache_lock_path(source, version, platform)))
    }

    /// Whether this folder holds the lock of a plugin cache entry.
    fn holds(&self, source: &ProviderSource, version: &Version, platform: &Platform) -> bool {
        self.cache_lock_file(source, version, platform)
            .is_some_and(|path| {
                self.locks
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .contains_key(&path)
            })
    }

    /// What is installed of a version for a platform (the answer to the
    /// install plan's `Installed` job): the `h1:` of the working folder's
    /// install (through a link into the cache, as the CLIs read it), and of
    /// the cache's entry, read from its files alone. Take the cache
    /// entry's lock first ([`ProvidersFolder::try_lock_cache_entry`]). A
    /// folder that cannot be read counts as not installed: it is then
    /// replaced.
    pub fn installed(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> InstalledPackages {
        let target = hash_installed(&self.target_path(source, version, platform));
        let cache = self
            .cache
            .as_ref()
            .and_then(|cache| hash_installed(&cache.join(package_dir(source, version, platform))));
        InstalledPackages { target, cache }
    }

    /// A staging folder for a package going `into` the target or the
    /// cache, beside its final place, and the sink that unpacks the archive
    /// into it as it downloads (INSTALL-10). Its name has a random part and
    /// it is created exclusively, so that no folder left behind or planted
    /// is ever taken for it. Into the cache only while this folder holds
    /// the entry's lock.
    pub fn stage(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
        into: Destination,
    ) -> io::Result<StagedPackage> {
        let base = match (into, &self.cache) {
            (Destination::Cache, Some(cache)) => {
                if !self.holds(source, version, platform) {
                    return Err(io::Error::other(
                        "a package is staged in the plugin cache only while its entry is locked",
                    ));
                }
                cache
            }
            _ => &self.target,
        };
        let final_path = base.join(package_dir(source, version, platform));
        let parent = final_path.parent().unwrap_or(base);
        let missing: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|dir| !dir.exists())
            .map(Path::to_owned)
            .collect();
        create_dirs(parent)?;
        self.made
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(missing.into_iter().rev());
        let staging = create_staging(parent, platform)?;
        self.staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(staging.clone());
        Ok(StagedPackage::new(staging, final_path))
    }

    /// Puts a staged package in its place: its files given their modes, the
    /// folder renamed over whatever was there (INSTALL-2, INSTALL-10).
    /// The working folder is linked to a cache entry separately
    /// ([`ProvidersFolder::link_to_cache`]).
    pub fn place(&self, staged: &Staged) -> io::Result<()> {
        staged.apply_modes()?;
        replace_dir(staged.staging(), staged.final_path())?;
        self.staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|path| path != staged.staging());
        Ok(())
    }

    /// Releases the lock of a plugin cache entry this folder holds, if it
    /// holds it.
    pub fn release_cache_entry(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) {
        if let Some(cache) = &self.cache {
            let path = cache.join(cache_lock_path(source, version, platform));
            self.locks
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&path);
        }
    }

    /// Links the working folder's install to the cache's entry (an absolute
    /// link, INSTALL-2).
    pub fn link_to_cache(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> io::Result<()> {
        let Some(entry) = self.cache_path(source, version, platform) else {
            return Err(io::Error::other("no plugin cache is used"));
        };
        self.link(&entry, &self.target_path(source, version, platform))
    }

    /// Links the working folder's install to an unpacked package of a
    /// filesystem mirror (an absolute link, as the CLIs make it).
    pub fn link_to_folder(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
        folder: &Path,
    ) -> io::Result<()> {
        let folder = std::path::absolute(folder)?;
        self.link(&folder, &self.target_path(source, version, platform))
    }

    /// Makes `link` a symbolic link to `to` (absolute), replacing what was
    /// there; where links cannot be made, a copy (as the CLIs fall back).
    fn link(&self, to: &Path, link: &Path) -> io::Result<()> {
        if let Some(parent) = link.parent() {
            create_dirs(parent)?;
        }
        remove_any(link)?;
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(to, link)
        }
        #[cfg(not(unix))]
        {
            copy_dir(to, link)
        }
    }
}

impl Drop for ProvidersFolder {
    fn drop(&mut self) {
        let staged = std::mem::take(
            self.staged
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for staging in staged {
            let _ = fs::remove_dir_all(staging);
        }
        // The folders made for them, deepest first; one that holds
        // anything (a package placed, a lock file) stays.
        let made = std::mem::take(self.made.get_mut().unwrap_or_else(PoisonError::into_inner));
        for dir in deepest_first(made) {
            let _ = fs::remove_dir(dir);
        }
        // Dropping the locks releases them.
    }
}

/// The `h1:` of an installed package folder (a link followed), if it is
/// one that can be read.
fn hash_installed(path: &Path) -> Option<String> {
    if !fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    hash_folder(path).ok()
}

/// Makes a staging folder for `platform` in `parent`: its name
/// [`staging_prefix`] and a random part, the folder created exclusively
/// (mode 0755 less the umask, as the CLIs make folders).
fn create_staging(parent: &Path, platform: &Platform) -> io::Result<PathBuf> {
    let prefix = staging_prefix(platform);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).rand_bytes(16);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o755));
    }
    Ok(builder.tempdir_in(parent)?.keep())
}

/// Removes the staging folders in `version_dir` that a run holding the
/// lock of `platform`'s entry there knows no run is using
/// ([`stale_staging`]): those a killed run left. What cannot be removed
/// stays, with a trace line: it is in no one's way.
fn sweep_staging(version_dir: &Path, platform: &Platform) {
    let Ok(entries) = fs::read_dir(version_dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|modified| now.duration_since(modified).ok());
        if meta.is_dir() && stale_staging(name, platform, age) {
            let path = entry.path();
            match fs::remove_dir_all(&path) {
                Ok(()) => tracing::debug!(path = %path.display(), "removed a stale staging folder"),
                Err(error) => tracing::debug!(
                    path = %path.display(),
                    %error,
                    "could not remove a stale staging folder"
                ),
            }
        }
    }
}

/// Creates `dir` and its parents with mode 0755 (the process's umask
/// applies, as it does for the CLIs).
fn create_dirs(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// Removes whatever is at `path`: a link (not what it points to), a file,
/// a folder and its contents; nothing there is fine.
fn remove_any(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Renames the folder `from` to `to`, removing what was at `to` first.
fn replace_dir(from: &Path, to: &Path) -> io::Result<()> {
    remove_any(to)?;
    fs::rename(from, to)
}

#[cfg(not(unix))]
fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// Folders in the order they can be removed: every folder after all those
/// inside it, each once; the order of the list does not matter (two runs
/// of `stage` at once may add a parent after another's child).
fn deepest_first(mut dirs: Vec<PathBuf>) -> Vec<PathBuf> {
    dirs.sort_by(|a, b| {
        b.components()
            .count()
            .cmp(&a.components().count())
            .then_with(|| a.cmp(b))
    });
    dirs.dedup();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run A found `ns` made and counted only `ns/alpha`; run B, before A
    /// made anything, counted `providers`, `ns` and `ns/beta`, and added
    /// them after A's: removed in the order added, reversed, `ns` would be
    /// tried while `ns/alpha` is still there, and stay.
    #[test]
    fn folders_two_stages_made_at_once_all_go() {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let dir = scratch.path();
        let folder = ProvidersFolder::new(dir, None).expect("a providers folder");
        let ns = folder.target().join("host/ns");
        for made in [ns.join("alpha"), ns.join("beta")] {
            fs::create_dir_all(made).expect("made");
        }
        folder.made.lock().expect("not poisoned").extend([
            ns.join("alpha"),
            folder.target().to_owned(),
            folder.target().join("host"),
            ns.clone(),
            ns.join("beta"),
            ns.clone(),
        ]);
        drop(folder);
        assert_eq!(
            fs::read_dir(dir).expect("the working folder").count(),
            1,
            "only .terraform, which this run did not count as made"
        );
        assert!(!dir.join(".terraform/providers").exists());
    }
}
