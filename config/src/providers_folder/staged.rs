//! A package archive unpacked as it downloads (docs/behaviour.md,
//! INSTALL-10): the provider crate's `Unpacker` reads it as it streams in
//! and says what to create; its files are written here, into a private
//! staging folder beside the package's final place, with mode 0600 until
//! the package is verified and placed.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tfdisco_core::Sink;
use tfdisco_provider::{
    ArchiveDigest, PackageHashError, UnpackError, UnpackOp, Unpacked, Unpacker,
};

/// The sink of a package archive being installed; what it gives when the
/// archive is read whole is a [`Staged`] package.
#[derive(Debug)]
pub struct StagedPackage {
    staging: PathBuf,
    final_path: PathBuf,
    /// Reads the archive; `None` once it refused it (the download still
    /// runs to its end, for the checksum check).
    unpacker: Option<Unpacker>,
    /// The file being written.
    file: Option<BufWriter<File>>,
    /// Why the archive could not be unpacked.
    refused: Option<UnpackError>,
    /// The SHA-256 and size of every byte (the archive's `zh:`, also when
    /// it cannot be unpacked).
    sha256: Sha256,
    size: u64,
}

impl StagedPackage {
    /// A sink unpacking an archive into `staging` (an existing, empty
    /// folder) for a package whose place is `final_path`: a provider
    /// install's ([`ProvidersFolder::stage`](crate::ProvidersFolder::stage)),
    /// or any package unpacked beside its place (an `oci://` module's).
    pub fn new(staging: PathBuf, final_path: PathBuf) -> StagedPackage {
        StagedPackage {
            staging,
            final_path,
            unpacker: Some(Unpacker::new()),
            file: None,
            refused: None,
            sha256: Sha256::new(),
            size: 0,
        }
    }

    /// Does one thing the unpacker says.
    fn apply(&mut self, op: UnpackOp<'_>) -> io::Result<()> {
        match op {
            UnpackOp::Folder(path) => fs::create_dir_all(self.staging.join(path)),
            UnpackOp::File(path) => {
                let file = create_file(&self.staging.join(path))?;
                self.file = Some(BufWriter::with_capacity(64 * 1024, file));
                Ok(())
            }
            UnpackOp::Data(bytes) => match &mut self.file {
                Some(file) => file.write_all(bytes),
                None => Err(io::Error::other("data outside a file")),
            },
            UnpackOp::FileEnd => match self.file.take() {
                Some(file) => file.into_inner().map_err(|e| e.into_error()).map(drop),
                None => Ok(()),
            },
        }
    }

    fn refuse(&mut self, why: UnpackError) {
        self.unpacker = None;
        self.file = None;
        self.refused.get_or_insert(why);
    }
}

/// A package archive read whole: its digest (what the plan verifies) and,
/// when it could be unpacked, the staging folder holding its files.
#[derive(Clone, Debug)]
pub struct Staged {
    staging: PathBuf,
    final_path: PathBuf,
    digest: ArchiveDigest,
    unpacked: Option<Unpacked>,
}

impl Staged {
    /// The archive's SHA-256, size and hashes (or why it is no package).
    pub fn digest(&self) -> &ArchiveDigest {
        &self.digest
    }

    /// The staging folder.
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Where the package goes.
    pub fn final_path(&self) -> &Path {
        &self.final_path
    }

    /// The `h1:` of the files unpacked, when it could be unpacked.
    pub fn h1(&self) -> Option<String> {
        self.unpacked.as_ref().map(|u| u.h1.clone())
    }

    /// What was unpacked (each file's mode, the `h1:`, how many files and
    /// bytes), when the archive could be.
    pub fn unpacked(&self) -> Option<&Unpacked> {
        self.unpacked.as_ref()
    }

    /// Gives every file its mode from the archive (INSTALL-1).
    pub fn apply_modes(&self) -> io::Result<()> {
        let Some(unpacked) = &self.unpacked else {
            return Err(io::Error::other("the package was not unpacked"));
        };
        for (path, mode) in &unpacked.modes {
            set_mode(&self.staging.join(path), *mode)?;
        }
        Ok(())
    }
}

impl Sink for StagedPackage {
    type Output = Staged;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.sha256.update(chunk);
        self.size += chunk.len() as u64;
        let Some(mut unpacker) = self.unpacker.take() else {
            return Ok(());
        };
        match unpacker.update(chunk, |op| self.apply(op)) {
            Ok(()) => self.unpacker = Some(unpacker),
            // Writing failed: the download cannot go on.
            Err(UnpackError::Output(e)) => {
                return Err(format!("writing {}: {e}", self.staging.display()));
            }
            // Not a package this can unpack: the checksum is still checked
            // first (HASH-17); the plan then reports why.
            Err(e) => self.refuse(e),
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Staged, String> {
        let sha256: [u8; 32] = std::mem::take(&mut self.sha256).finalize().into();
        let mut unpacked = None;
        let hashes = match self.unpacker.take() {
            Some(unpacker) => match unpacker.finish() {
                Ok(done) => {
                    let hashes = done.archive;
                    unpacked = Some(done);
                    Ok(hashes)
                }
                Err(UnpackError::Output(e)) => {
                    return Err(format!("writing {}: {e}", self.staging.display()));
                }
                Err(e) => Err(not_unpacked(e)),
            },
            None => Err(self
                .refused
                .take()
                .map_or_else(|| PackageHashError::not_unpacked("not read"), not_unpacked)),
        };
        Ok(Staged {
            staging: self.staging.clone(),
            final_path: self.final_path.clone(),
            digest: ArchiveDigest {
                sha256,
                size: self.size,
                hashes,
            },
            unpacked,
        })
    }
}

/// Why an archive is no package that can be installed: the hasher's own
/// error, or the unpacker's refusal.
fn not_unpacked(error: UnpackError) -> PackageHashError {
    match error {
        UnpackError::Archive(error) => error,
        other => PackageHashError::not_unpacked(other.to_string()),
    }
}

#[cfg(unix)]
fn create_file(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn create_file(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    let mut permissions = fs::metadata(path)?.permissions();
    permissions.set_readonly(mode & 0o200 == 0);
    fs::set_permissions(path, permissions)
}
