//! Where a `get` writes (docs/behaviour.md, MOD-10): a private staging
//! folder inside `.terraform/modules`, which every package is fetched into
//! and every module folder made in; only once every module is installed
//! are the folders renamed into place and the manifest replaced. On any
//! failure the staging folder goes and nothing else changes.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use tfdisco_config::MODULES_DIR;

use super::plan::Finished;

/// The staging folder of one run, removed when dropped.
pub(crate) struct Staging {
    path: PathBuf,
    /// `.terraform` and `.terraform/modules`, when this run made them.
    made: Vec<PathBuf>,
    kept_made: bool,
}

impl Staging {
    /// A new staging folder in `root/.terraform/modules` (made if need
    /// be).
    pub(crate) fn make(root: &Path) -> io::Result<Staging> {
        let modules = root.join(MODULES_DIR);
        let made: Vec<PathBuf> = [modules.clone(), root.join(".terraform")]
            .into_iter()
            .filter(|dir| !dir.exists())
            .collect();
        fs::create_dir_all(&modules)?;
        let path = tempfile::Builder::new()
            .prefix(".tfdisco-staging-")
            .rand_bytes(16)
            .tempdir_in(&modules)?
            .keep();
        Ok(Staging {
            path,
            made,
            kept_made: false,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Places what `finished` says: each module folder made in the
    /// staging folder (a package's first module takes the package, later
    /// ones a copy without dot files, as Terraform copies), then the old
    /// folders of the modules replaced removed, the new ones renamed into
    /// place, and the manifest written.
    pub(crate) fn place(mut self, root: &Path, finished: &Finished) -> io::Result<()> {
        let modules = root.join(MODULES_DIR);
        let built = self.path.join("modules");
        fs::create_dir(&built)?;
        for placement in finished.placements.iter().filter(|p| !p.first) {
            let to = built.join(&placement.key);
            fs::create_dir(&to)?;
            copy_without_dot_files(&placement.from, &to)?;
        }
        for placement in finished.placements.iter().filter(|p| p.first) {
            fs::rename(&placement.from, built.join(&placement.key))?;
        }
        for key in &finished.replaced {
            let old = modules.join(key);
            match fs::symlink_metadata(&old) {
                Ok(meta) if meta.is_dir() => fs::remove_dir_all(&old)?,
                Ok(_) => fs::remove_file(&old)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        for placement in &finished.placements {
            fs::rename(built.join(&placement.key), modules.join(&placement.key))?;
        }
        finished.manifest.write(root)?;
        self.kept_made = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
        if !self.kept_made {
            for dir in &self.made {
                let _ = fs::remove_dir(dir);
            }
        }
    }
}

/// Go's `copy.CopyDir` as Terraform uses it for a second module of one
/// package: every entry but those whose name starts with `.` (their
/// folders not entered), folders made with mode 0755 (less the umask),
/// files with their mode, links as links.
pub(crate) fn copy_without_dot_files(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let source = entry.path();
        let target = to.join(&name);
        let kind = entry.file_type()?;
        if kind.is_dir() {
            make_folder(&target)?;
            copy_without_dot_files(&source, &target)?;
        } else if kind.is_symlink() {
            let link = fs::read_link(&source)?;
            symlink(&link, &target)?;
        } else {
            fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

/// A copy of everything in `from` into the folder `to`: dot files too,
/// files and folders with their modes, links as links (a module cache
/// entry taken or filled, MOD-13).
pub(crate) fn copy_all(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            fs::create_dir(&target)?;
            copy_all(&source, &target)?;
            fs::set_permissions(&target, fs::metadata(&source)?.permissions())?;
        } else if kind.is_symlink() {
            symlink(&fs::read_link(&source)?, &target)?;
        } else {
            fs::copy(&source, &target)?;
        }
    }
    fs::set_permissions(to, fs::metadata(from)?.permissions())
}

#[cfg(unix)]
fn make_folder(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o755).create(path)
}

#[cfg(not(unix))]
fn make_folder(path: &Path) -> io::Result<()> {
    fs::create_dir(path)
}

#[cfg(unix)]
fn symlink(link: &Path, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(link, at)
}

#[cfg(not(unix))]
fn symlink(link: &Path, at: &Path) -> io::Result<()> {
    fs::copy(at.parent().unwrap_or(at).join(link), at).map(drop)
}
