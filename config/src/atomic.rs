//! Files replaced whole: the lock file, a mirror's indexes.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Replaces the file at `path` with `bytes`, never leaving it half
/// written: a temporary file in the same directory
/// (named after the file, as Go's `os.CreateTemp(dir, file)` names it),
/// written and flushed to disk, given mode 0644 as Terraform gives it, then
/// renamed over `path`, and the directory flushed so that the rename
/// survives a crash (where the file system allows it). Any failure removes the temporary file and leaves
/// `path` as it was.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let prefix = path.file_name().unwrap_or_default();
    let mut temp = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    set_mode(temp.path())?;
    temp.persist(path).map_err(|e| e.error)?;
    // The file is in place; a file system that cannot flush a directory
    // (some refuse) has still replaced it.
    let _ = sync_dir(dir);
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_mode(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> std::io::Result<()> {
    Ok(())
}
