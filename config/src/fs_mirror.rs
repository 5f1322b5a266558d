//! Filesystem mirrors on disk (docs/behaviour.md, FSM-1 to FSM-6): the
//! directory walked as Terraform walks it, each path judged by the core
//! (`tfdisco_provider::classify_mirror_path`), and a package's hashes: an
//! archive streamed through the core's `PackageHasher`, an unpacked
//! directory's files hashed one by one into `hash1_of_files`.

use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tfdisco_core::Dialect;
use tfdisco_provider::{
    EntryKind, LocalLocation, LocalPackage, LocalPackages, MirrorEntry, MirrorPath,
    PackageHashError, PackageHashes, PackageReadError, classify_mirror_path, hash_package_reader,
    hash1_of_files,
};

/// Why a mirror could not be scanned or a package hashed.
#[derive(Debug)]
#[non_exhaustive]
pub enum MirrorError {
    /// A path of the mirror could not be read while walking it: the whole
    /// scan fails, as in Go (`cannot search <path>: …`).
    Search {
        /// The path.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A package's file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A package archive is no package the hasher reads, or a directory's
    /// names cannot be hashed.
    Package {
        /// The archive or directory.
        path: PathBuf,
        /// Why.
        error: PackageHashError,
    },
}

impl fmt::Display for MirrorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MirrorError::Search { path, source } => {
                write!(f, "cannot search {}: {source}", path.display())
            }
            MirrorError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            MirrorError::Package { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl MirrorError {
    /// The file or directory at fault.
    pub fn path(&self) -> &Path {
        match self {
            MirrorError::Search { path, .. }
            | MirrorError::Read { path, .. }
            | MirrorError::Package { path, .. } => path,
        }
    }

    /// What went wrong, without the path: the operating system's words, or
    /// why the package cannot be hashed.
    pub fn problem(&self) -> String {
        match self {
            MirrorError::Search { source, .. } | MirrorError::Read { source, .. } => {
                source.to_string()
            }
            MirrorError::Package { error, .. } => error.to_string(),
        }
    }
}

impl std::error::Error for MirrorError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MirrorError::Search { source, .. } | MirrorError::Read { source, .. } => Some(source),
            MirrorError::Package { error, .. } => Some(error),
        }
    }
}

/// A filesystem mirror, scanned (FSM-1 to FSM-5).
///
/// ```
/// use std::fs;
/// use tfdisco_config::FilesystemMirror;
/// use tfdisco_core::{Dialect, Platform, ProviderSource};
///
/// let dir = tempfile::tempdir()?;
/// let null = dir.path().join("registry.terraform.io/hashicorp/null");
/// fs::create_dir_all(null.join("3.2.1/linux_amd64"))?;
/// fs::write(null.join("terraform-provider-null_3.2.0_linux_amd64.zip"), b"")?;
/// fs::write(null.join("index.json"), b"{}")?;
///
/// let mirror = FilesystemMirror::scan(dir.path(), Dialect::Terraform)?;
/// let provider = ProviderSource::parse("hashicorp/null", Dialect::Terraform)?;
/// let found = mirror.packages();
/// let versions: Vec<String> = found.versions(&provider).iter().map(|v| v.to_string()).collect();
/// assert_eq!(versions, ["3.2.0", "3.2.1"]);
/// assert!(mirror.warnings()[0].starts_with(r#"ignoring file "registry.terraform.io/hashicorp/null/index.json""#));
/// let linux = Platform::new("linux", "amd64");
/// let package = found.package(&provider, &"3.2.1".parse()?, &linux).expect("found");
/// assert_eq!(package.filename, "terraform-provider-null_3.2.1_linux_amd64.zip");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct FilesystemMirror {
    base: PathBuf,
    walked: PathBuf,
    packages: LocalPackages,
    warnings: Vec<String>,
}

impl FilesystemMirror {
    /// Walks `dir` as Terraform walks a filesystem mirror (FSM-2): the base
    /// may be a symbolic link (it is resolved first, and the packages'
    /// locations are under the resolved path); below it, entries in
    /// lexical order, symbolic links not descended into (a link to an
    /// `OS_ARCH` directory or to an archive is still a package). A base
    /// that is not a directory holds nothing; one that does not exist, or
    /// any directory that cannot be read, fails the scan. `dialect` says
    /// which registry two-part and legacy addresses are on.
    pub fn scan(dir: &Path, dialect: Dialect) -> Result<FilesystemMirror, MirrorError> {
        let walked = eval_symlinks(dir);
        let search = |path: &Path, source| MirrorError::Search {
            path: path.to_owned(),
            source,
        };
        let root = fs::symlink_metadata(&walked).map_err(|e| search(&walked, e))?;
        let mut mirror = FilesystemMirror {
            base: dir.to_owned(),
            walked: walked.clone(),
            packages: LocalPackages::default(),
            warnings: Vec::new(),
        };
        let mut found = Vec::new();
        // Depth first, in lexical order: children are pushed in reverse.
        let mut stack: Vec<(PathBuf, Vec<String>, Metadata)> = vec![(walked, Vec::new(), root)];
        while let Some((path, components, meta)) = stack.pop() {
            if let Some(package) = mirror.visit(dialect, &path, &components, &meta) {
                found.push(package);
            }
            if !meta.is_dir() {
                continue;
            }
            let mut names: Vec<_> = fs::read_dir(&path)
                .and_then(|entries| entries.map(|e| e.map(|e| e.file_name())).collect())
                .map_err(|e| search(&path, e))?;
            names.sort();
            let mut children = Vec::with_capacity(names.len());
            for name in names {
                let child = path.join(&name);
                let meta = fs::symlink_metadata(&child).map_err(|e| search(&child, e))?;
                let mut components = components.clone();
                components.push(name.to_string_lossy().into_owned());
                children.push((child, components, meta));
            }
            stack.extend(children.into_iter().rev());
        }
        mirror.packages = LocalPackages::new(found);
        Ok(mirror)
    }

    /// Judges one path of the walk: a package, or a warning kept.
    fn visit(
        &mut self,
        dialect: Dialect,
        path: &Path,
        components: &[String],
        meta: &Metadata,
    ) -> Option<LocalPackage> {
        if components.is_empty() {
            return None;
        }
        let parts: Vec<&str> = components.iter().map(String::as_str).collect();
        let kind = if parts.len() < 3 {
            Ok(EntryKind::Directory)
        } else {
            fs::metadata(path)
                .map(|m| {
                    if m.is_dir() {
                        EntryKind::Directory
                    } else {
                        EntryKind::File
                    }
                })
                .map_err(|e| e.to_string())
        };
        let entry = classify_mirror_path(&MirrorPath {
            dialect,
            base: &self.walked,
            given_base: &self.base,
            components: &parts,
            is_symlink: meta.file_type().is_symlink(),
            kind,
        });
        match entry {
            MirrorEntry::Package(package) => return Some(*package),
            MirrorEntry::Warning(warning) => self.warnings.push(warning),
            MirrorEntry::Ignored => {}
        }
        None
    }

    /// The directory as given.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The directory walked: the base with symbolic links resolved.
    pub fn walked(&self) -> &Path {
        &self.walked
    }

    /// Every package found, in Go's order (FSM-4), and which one a
    /// version and platform get (FSM-5).
    pub fn packages(&self) -> &LocalPackages {
        &self.packages
    }

    /// What Terraform would log with `[WARN]` about paths that are not
    /// packages, in the walk's order (FSM-3).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// Go's `filepath.EvalSymlinks` as the scan uses it: the path with its
/// symbolic links resolved, and as given when it has none (a relative path
/// stays relative) or cannot be resolved.
fn eval_symlinks(dir: &Path) -> PathBuf {
    match (fs::canonicalize(dir), std::path::absolute(dir)) {
        (Ok(real), Ok(absolute)) if real != absolute.components().collect::<PathBuf>() => real,
        _ => dir.to_owned(),
    }
}

/// The hashes of a local package (FSM-6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalHashes {
    h1: String,
    files: usize,
    archive: Option<PackageHashes>,
}

impl LocalHashes {
    /// `h1:` of the package's files: what Terraform records in the lock
    /// file for a package it installed from a mirror, whichever the layout.
    pub fn h1(&self) -> &str {
        &self.h1
    }

    /// `zh:` of the archive (packed layout only).
    pub fn zh(&self) -> Option<String> {
        self.archive.as_ref().map(PackageHashes::zh)
    }

    /// The archive's hashes, size and SHA-256 (packed layout only).
    pub fn archive(&self) -> Option<&PackageHashes> {
        self.archive.as_ref()
    }

    /// How many files the `h1:` summary has a line for.
    pub fn files(&self) -> usize {
        self.files
    }
}

/// The hashes of a package found in a filesystem mirror (FSM-6): an
/// archive read in one pass through the core's `PackageHasher` (memory
/// independent of its size), giving `h1:` of its files and `zh:`; an
/// unpacked directory walked (files only, in any order, symbolic links to
/// files followed as Go's `os.Open` follows them, a link to a directory an
/// error), each file's SHA-256 read in chunks, into `hash1_of_files`.
pub fn hash_local_package(package: &LocalPackage) -> Result<LocalHashes, MirrorError> {
    match &package.location {
        LocalLocation::Archive(path) => {
            let hashes = hash_package_file(path)?;
            Ok(LocalHashes {
                h1: hashes.h1(),
                files: hashes.files(),
                archive: Some(hashes),
            })
        }
        LocalLocation::Directory(path) => hash_directory(path),
    }
}

/// The hashes of the provider package archive at `path` (a zip file), read
/// once in 64 KiB chunks through the provider crate's `PackageHasher`, in
/// memory independent of its size: what `hash_local_package` gives for a
/// packed package, what a mirror folder's indexes list, and what the
/// language packages' `hash_package` returns. A file that cannot be opened
/// or read is [`MirrorError::Read`]; one that is no package that can be
/// hashed, [`MirrorError::Package`].
pub fn hash_package_file(path: &Path) -> Result<PackageHashes, MirrorError> {
    let read = |source| MirrorError::Read {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(read)?;
    hash_package_reader(file).map_err(|e| match e {
        PackageReadError::Read(source) => read(source),
        PackageReadError::Package(error) => MirrorError::Package {
            path: path.to_owned(),
            error,
        },
    })
}

/// The `h1:` of a package folder's files (links followed), as
/// [`hash_local_package`] hashes an unpacked package: what an installed
/// package (or a plugin cache entry) is compared with (INSTALL-3).
pub fn hash_folder(dir: &Path) -> Result<String, MirrorError> {
    hash_directory(dir).map(|hashes| hashes.h1)
}

fn hash_directory(dir: &Path) -> Result<LocalHashes, MirrorError> {
    let base = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let search = |path: &Path, source| MirrorError::Search {
        path: path.to_owned(),
        source,
    };
    let mut files: Vec<(Vec<u8>, [u8; 32])> = Vec::new();
    let mut stack: Vec<(PathBuf, Vec<u8>)> = vec![(base.clone(), Vec::new())];
    while let Some((path, name)) = stack.pop() {
        let entries = fs::read_dir(&path).map_err(|e| search(&path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| search(&path, e))?;
            let child = entry.path();
            let meta = fs::symlink_metadata(&child).map_err(|e| search(&child, e))?;
            let mut child_name = name.clone();
            if !child_name.is_empty() {
                child_name.push(b'/');
            }
            child_name.extend_from_slice(&name_bytes(&entry.file_name()));
            if meta.is_dir() {
                stack.push((child, child_name));
            } else {
                files.push((child_name, sha256_file(&child)?));
            }
        }
    }
    let h1 = hash1_of_files(&files).map_err(|error| MirrorError::Package {
        path: dir.to_owned(),
        error,
    })?;
    Ok(LocalHashes {
        h1,
        files: files.len(),
        archive: None,
    })
}

#[cfg(unix)]
fn name_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn name_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

/// The SHA-256 of a file's content, read in 64 KiB chunks (links followed).
fn sha256_file(path: &Path) -> Result<[u8; 32], MirrorError> {
    let read = |source| MirrorError::Read {
        path: path.to_owned(),
        source,
    };
    let mut file = File::open(path).map_err(read)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read(e)),
        }
    }
    Ok(hasher.finalize().into())
}
