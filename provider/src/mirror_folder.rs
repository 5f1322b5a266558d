//! A provider mirror folder as `terraform providers mirror` writes it
//! (docs/behaviour.md, MIRROR-9 to MIRROR-13), without I/O: which versions
//! a run mirrors, where each package goes, which hashes each dialect lists
//! for it, and the bytes of `index.json` and `<version>.json`.
//! `tfdisco_config::MirrorFolder` does the file work: staging files,
//! renames, the folder's scan, atomic writes.
//!
//! ```
//! use std::path::Path;
//! use tfdisco_core::{Dialect, Platform, ProviderSource, Version};
//! use tfdisco_provider::mirror_folder::{MirrorIndexes, package_path};
//! use tfdisco_provider::{LocalLocation, LocalPackage, package_filename};
//!
//! let source = ProviderSource::parse("example.com/ns/alpha", Dialect::Terraform)?;
//! let version: Version = "1.1.0".parse()?;
//! let platform = Platform::new("linux", "amd64");
//! let path = package_path(&source, &version, &platform);
//! assert_eq!(
//!     path,
//!     Path::new("example.com/ns/alpha/terraform-provider-alpha_1.1.0_linux_amd64.zip")
//! );
//!
//! // The folder's scan found the archive there: it is indexed.
//! let found = LocalPackage {
//!     filename: package_filename(&source, &version, &platform),
//!     location: LocalLocation::Archive(Path::new("/srv/mirror").join(&path)),
//!     source,
//!     version,
//!     platform,
//! };
//! let mut indexes = MirrorIndexes::new();
//! indexes.add_archive(&found, vec!["h1:…".into()]);
//! let written: Vec<String> = indexes
//!     .documents()
//!     .iter()
//!     .map(|(path, _)| path.display().to_string())
//!     .collect();
//! assert_eq!(written, ["example.com/ns/alpha/index.json", "example.com/ns/alpha/1.1.0.json"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod documents;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use tfdisco_core::{Dialect, Platform, ProviderSource, Version};

use crate::fs_mirror::{LocalPackage, package_filename, provider_dir};
use crate::package_hash::PackageHashes;
use crate::plan::{LockedPackage, Requirement};

pub use documents::{ArchiveEntry, mirror_archives_document, mirror_index_document};

/// Where a package goes in a mirror folder, relative to it: under the
/// host's display form (Unicode, port kept), the namespace and the type,
/// named `terraform-provider-TYPE_VERSION_OS_ARCH.zip` (MIRROR-10).
pub fn package_path(source: &ProviderSource, version: &Version, platform: &Platform) -> PathBuf {
    provider_dir(source).join(package_filename(source, version, platform))
}

/// The staging name of a package, relative to the folder: its name with a
/// `.` in front, beside it; a scan of the folder never takes it for a
/// package (MIRROR-11).
pub fn staging_path(source: &ProviderSource, version: &Version, platform: &Platform) -> PathBuf {
    provider_dir(source).join(format!(".{}", package_filename(source, version, platform)))
}

/// Which versions a mirror run takes (MIRROR-9): with the lock file
/// deciding (the default, `-lock-file=false` turns it off for Terraform;
/// OpenTofu always reads it) and a lock file that locks anything, each
/// provider's locked version, which every provider must then have;
/// otherwise the newest each provider's constraints allow (the locked
/// versions dropped). Gives the requirements to plan and the providers
/// whose version the lock file decided.
///
/// ```
/// use tfdisco_core::{Dialect, ProviderSource, VersionConstraints};
/// use tfdisco_provider::plan::Requirement;
/// use tfdisco_provider::mirror_folder::mirrored_versions;
///
/// let source = ProviderSource::parse("hashicorp/null", Dialect::OpenTofu)?;
/// let unlocked = vec![Requirement { source, constraints: VersionConstraints::new(), locked: None, recorded: None }];
/// let error = mirrored_versions(unlocked, Dialect::OpenTofu, false, true).unwrap_err();
/// assert!(error.to_string().ends_with("run tofu init -upgrade"), "{error}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mirrored_versions(
    mut requirements: Vec<Requirement>,
    dialect: Dialect,
    read_lock_file: bool,
    lock_file_locks_anything: bool,
) -> Result<(Vec<Requirement>, Vec<ProviderSource>), NotLocked> {
    let decides = (read_lock_file || dialect == Dialect::OpenTofu) && lock_file_locks_anything;
    if !decides {
        for requirement in &mut requirements {
            requirement.locked = None;
        }
        return Ok((requirements, Vec::new()));
    }
    let mut locked = Vec::with_capacity(requirements.len());
    for requirement in &requirements {
        if requirement.locked.is_none() {
            return Err(NotLocked {
                source: Box::new(requirement.source.clone()),
                dialect,
            });
        }
        locked.push(requirement.source.clone());
    }
    Ok((requirements, locked))
}

/// A provider the configuration requires that the lock file does not
/// lock, when the lock file decides the versions (MIRROR-9): the CLIs'
/// "Inconsistent dependency lock file".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLocked {
    source: Box<ProviderSource>,
    dialect: Dialect,
}

impl NotLocked {
    /// The provider the lock file does not lock.
    pub fn source(&self) -> &ProviderSource {
        &self.source
    }
}

impl fmt::Display for NotLocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Inconsistent dependency lock file: provider {}: required by this configuration but \
             no version is selected; to update the locked dependency selections to match a \
             changed configuration, run {} init -upgrade",
            self.source,
            self.dialect.command()
        )
    }
}

impl std::error::Error for NotLocked {}

/// The hashes a `<version>.json` lists for an archive this run downloaded
/// and verified (MIRROR-12): Terraform's `h1:` of the archive as
/// `dirhash.HashZip` gives it; OpenTofu's `zh:` with the hashes the
/// registry reported for the platform, sorted, each once.
pub fn listed_hashes(dialect: Dialect, package: &LockedPackage) -> Vec<String> {
    match dialect {
        Dialect::Terraform => vec![package.archive.h1_zip()],
        Dialect::OpenTofu => {
            let mut hashes = vec![package.archive.zh()];
            hashes.extend(package.reported.iter().cloned());
            hashes.sort();
            hashes.dedup();
            hashes
        }
    }
}

/// The hashes a `<version>.json` lists for an archive the folder already
/// held, which this run did not download (MIRROR-12): its `h1:` as
/// `dirhash.HashZip` gives it, read from the file, in either dialect.
pub fn found_hashes(archive: &PackageHashes) -> Vec<String> {
    vec![archive.h1_zip()]
}

/// The indexes of a mirror folder, made from the packages it holds
/// (MIRROR-12): each provider's `index.json` (its versions) and each
/// version's `<version>.json` (its archives, keyed by platform).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirrorIndexes {
    /// Provider → version → platform → archive.
    providers: BTreeMap<ProviderSource, BTreeMap<String, BTreeMap<String, ArchiveEntry>>>,
}

impl MirrorIndexes {
    /// No provider yet.
    pub fn new() -> MirrorIndexes {
        MirrorIndexes::default()
    }

    /// A provider the folder holds packages of: it gets an `index.json`,
    /// even when none of its packages is an archive.
    pub fn add_provider(&mut self, source: &ProviderSource) {
        self.providers.entry(source.clone()).or_default();
    }

    /// An archive the folder's scan found, listed with `hashes` (from
    /// [`listed_hashes`] or [`found_hashes`]) under its file name as found.
    pub fn add_archive(&mut self, package: &LocalPackage, hashes: Vec<String>) {
        let url = package
            .location
            .path()
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.providers
            .entry(package.source.clone())
            .or_default()
            .entry(package.version.to_string())
            .or_default()
            .insert(package.platform.to_string(), ArchiveEntry { hashes, url });
    }

    /// Every document, each with its path relative to the folder: per
    /// provider in address order, its `index.json`, then each version's
    /// `<version>.json`.
    pub fn documents(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for (source, versions) in &self.providers {
            let dir = provider_dir(source);
            out.push((
                dir.join("index.json"),
                mirror_index_document(versions.keys().map(String::as_str)),
            ));
            for (version, archives) in versions {
                out.push((
                    dir.join(format!("{version}.json")),
                    mirror_archives_document(archives),
                ));
            }
        }
        out
    }
}
