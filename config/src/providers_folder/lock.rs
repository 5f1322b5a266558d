//! A plugin cache entry's lock (docs/behaviour.md, INSTALL-12): OpenTofu's
//! `OS_ARCH.lock` beside the entry, locked whole for writing with `fcntl`
//! (a POSIX record lock, the kind OpenTofu takes), so that tfdisco runs and
//! `tofu` sharing a cache wait for each other. Such a lock belongs to the
//! process, and closing any of its descriptors of the file drops it: one
//! process-wide set of the locks held keeps two runs of one process from
//! opening the file twice (the second waits, as another process would).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The lock files this process holds a lock on.
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A held lock on a plugin cache entry, released when dropped. The lock
/// file itself stays (as OpenTofu leaves it).
#[derive(Debug)]
pub struct CacheLock {
    path: PathBuf,
    _file: File,
}

impl CacheLock {
    /// Takes the lock of the lock file `path` (made, with its folder, when
    /// missing) without waiting; `None` when it is held, by another
    /// process or by this one.
    pub fn try_take(path: &Path) -> io::Result<Option<CacheLock>> {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        if held.iter().any(|held| held == path) {
            return Ok(None);
        }
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = open(path)?;
        if !lock(&file)? {
            return Ok(None);
        }
        held.push(path.to_owned());
        Ok(Some(CacheLock {
            path: path.to_owned(),
            _file: file,
        }))
    }
}

impl Drop for CacheLock {
    fn drop(&mut self) {
        // The descriptor closes after this, which releases the lock; no
        // other descriptor of the file was opened meanwhile (`HELD`).
        HELD.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|held| *held != self.path);
    }
}

fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o644);
    }
    options.open(path)
}

/// A whole-file write lock without waiting: false when another process
/// holds one.
#[cfg(unix)]
fn lock(file: &File) -> io::Result<bool> {
    use rustix::fs::{FlockOperation, fcntl_lock};
    match fcntl_lock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::AGAIN || e == rustix::io::Errno::ACCESS => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Elsewhere the standard library's whole-file lock (`LockFileEx` on
/// Windows, the lock OpenTofu takes there). Not built nor tested on this
/// project's machines (INSTALL-12 says so).
#[cfg(not(unix))]
fn lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_in_a_process() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("h/ns/t/1.0.0/linux_amd64.lock");
        let first = CacheLock::try_take(&path).expect("no error").expect("free");
        assert!(
            CacheLock::try_take(&path).expect("no error").is_none(),
            "held"
        );
        drop(first);
        assert!(
            CacheLock::try_take(&path).expect("no error").is_some(),
            "released"
        );
        assert!(path.exists(), "the lock file stays");
    }
}
