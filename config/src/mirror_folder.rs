//! The folder `tfdisco mirror` writes (docs/behaviour.md, MIRROR-10 to
//! MIRROR-13): each package at `HOST/NAMESPACE/TYPE/terraform-provider-
//! TYPE_VERSION_OS_ARCH.zip`, downloaded under a staging name beside it and
//! renamed only once verified, and each provider's `index.json` and
//! `<version>.json` made from what the folder then holds, each replaced
//! atomically.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use tfdisco_core::{Dialect, Platform, ProviderSource, Sink, Version};
use tfdisco_provider::mirror_folder::{self, MirrorIndexes};
use tfdisco_provider::plan::ArchiveSink;
use tfdisco_provider::{ArchiveDigest, LocalLocation};

use crate::FilesystemMirror;
use crate::atomic::write_atomically;
use crate::fs_mirror::hash_package_file;

/// A mirror folder being written.
#[derive(Debug)]
pub struct MirrorFolder {
    root: PathBuf,
    /// The staging files made, not yet placed or discarded.
    staged: Mutex<Vec<PathBuf>>,
}

/// What [`MirrorFolder::write_indexes`] wrote, and what it left out.
#[derive(Clone, Debug, Default)]
pub struct Indexes {
    /// Every `index.json` and `<version>.json` written.
    pub written: Vec<PathBuf>,
    /// Archives left out of the indexes, and why (one that cannot be
    /// hashed, say).
    pub skipped: Vec<(PathBuf, String)>,
    /// What the folder's scan said about paths that are no package.
    pub warnings: Vec<String>,
}

impl MirrorFolder {
    /// The folder at `root` (made when the first package is staged).
    pub fn new(root: impl Into<PathBuf>) -> MirrorFolder {
        MirrorFolder {
            root: root.into(),
            staged: Mutex::new(Vec::new()),
        }
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where a package goes in the folder (MIRROR-10,
    /// `tfdisco_provider::mirror_folder::package_path`).
    pub fn package_path(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> PathBuf {
        self.root
            .join(mirror_folder::package_path(source, version, platform))
    }

    /// Where a package is downloaded to before it is verified (MIRROR-11,
    /// `tfdisco_provider::mirror_folder::staging_path`).
    pub fn staging_path(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> PathBuf {
        self.root
            .join(mirror_folder::staging_path(source, version, platform))
    }

    /// Starts the download of a package: its folders made, its staging file
    /// created (or emptied), and a sink that writes there and hashes what
    /// it writes.
    pub fn stage(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> io::Result<StagedArchive> {
        let path = self.staging_path(source, version, platform);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = File::create(&path)?;
        self.staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.clone());
        Ok(StagedArchive {
            path,
            file: Some(BufWriter::with_capacity(64 * 1024, file)),
            hasher: ArchiveSink::new(),
        })
    }

    /// Gives a verified package its final name (MIRROR-11).
    pub fn place(
        &self,
        source: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> io::Result<PathBuf> {
        let staging = self.staging_path(source, version, platform);
        let target = self.package_path(source, version, platform);
        fs::rename(&staging, &target)?;
        self.staged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|p| p != &staging);
        Ok(target)
    }

    /// Removes every staging file not placed: what a failed run downloaded
    /// leaves nothing behind.
    pub fn discard_staged(&self) {
        let staged =
            std::mem::take(&mut *self.staged.lock().unwrap_or_else(PoisonError::into_inner));
        for path in staged {
            let _ = fs::remove_file(path);
        }
    }

    /// Writes every provider's `index.json` and each version's
    /// `<version>.json` from what the folder holds (MIRROR-12): every
    /// packed package found by a scan of the folder, whether this run
    /// placed it or not. An archive's hashes are the `computed` ones when
    /// given (by its path), else those listed for an archive found there
    /// (`tfdisco_provider::mirror_folder::found_hashes`), read from the file.
    /// Each document is replaced atomically.
    pub fn write_indexes(
        &self,
        dialect: Dialect,
        computed: &HashMap<PathBuf, Vec<String>>,
    ) -> io::Result<Indexes> {
        // A run with nothing to mirror still leaves the folder it was given.
        fs::create_dir_all(&self.root)?;
        let scan = FilesystemMirror::scan(&self.root, dialect).map_err(io::Error::other)?;
        let mut indexes = Indexes {
            warnings: scan.warnings().to_vec(),
            ..Indexes::default()
        };
        let mut documents = MirrorIndexes::new();
        for package in scan.packages() {
            documents.add_provider(&package.source);
            let LocalLocation::Archive(path) = &package.location else {
                continue;
            };
            let hashes = match computed.get(path) {
                Some(hashes) => hashes.clone(),
                None => match hash_package_file(path) {
                    Ok(hashes) => mirror_folder::found_hashes(&hashes),
                    Err(e) => {
                        indexes.skipped.push((path.clone(), e.problem()));
                        continue;
                    }
                },
            };
            documents.add_archive(package, hashes);
        }
        for (relative, bytes) in documents.documents() {
            let path = self.root.join(relative);
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir)?;
            }
            write_atomically(&path, &bytes)?;
            indexes.written.push(path);
        }
        Ok(indexes)
    }
}

impl Drop for MirrorFolder {
    fn drop(&mut self) {
        self.discard_staged();
    }
}

/// A package being downloaded into its staging file: a `tfdisco_core::Sink` that
/// writes each chunk there and hashes it, in memory independent of the
/// archive's size.
#[derive(Debug)]
pub struct StagedArchive {
    path: PathBuf,
    file: Option<BufWriter<File>>,
    hasher: ArchiveSink,
}

impl Sink for StagedArchive {
    type Output = ArchiveDigest;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        let file = self.file.as_mut().ok_or("the staging file is closed")?;
        file.write_all(chunk)
            .map_err(|e| format!("writing {}: {e}", self.path.display()))?;
        self.hasher.write(chunk)
    }

    fn finish(&mut self) -> Result<ArchiveDigest, String> {
        let file = self.file.take().ok_or("the staging file is closed")?;
        file.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .map_err(|e| format!("writing {}: {e}", self.path.display()))?;
        self.hasher.finish()
    }
}
