//! The dependency lock file, `.terraform.lock.hcl` (docs/behaviour.md, LOCK-1
//! to LOCK-8): read as `loadLocks` reads it, updated as `providers lock`
//! and `init` update it, written byte for byte as `SaveLocksToBytes` writes
//! it, and replaced atomically.

mod parse;
mod write;

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, ProviderSource};

use crate::Diagnostic;
use crate::hcl_text;

/// The name of the lock file in a configuration's root directory.
pub const LOCK_FILE_NAME: &str = ".terraform.lock.hcl";

/// A dependency lock file: one [`LockedProvider`] per provider, kept sorted
/// by address as the CLIs write them.
///
/// ```
/// use tfdisco_config::{LockFile, LockedProvider};
/// use tfdisco_core::{Dialect, ProviderSource};
///
/// let mut lock = LockFile::new(Dialect::Terraform);
/// let null = ProviderSource::parse("hashicorp/null", Dialect::Terraform)?;
/// lock.merge(LockedProvider::new(null.clone(), "3.2.1", Some(">= 3.0.0"), ["zh:ab", "h1:cd="])?);
/// let text = String::from_utf8(lock.to_bytes())?;
/// assert!(text.starts_with("# This file is maintained automatically by \"terraform init\".\n"));
/// assert!(text.ends_with(
///     "\nprovider \"registry.terraform.io/hashicorp/null\" {\n  version     = \"3.2.1\"\n  \
///      constraints = \">= 3.0.0\"\n  hashes = [\n    \"h1:cd=\",\n    \"zh:ab\",\n  ]\n}\n"
/// ));
/// let reread = LockFile::parse(&String::from_utf8(lock.to_bytes())?, ".terraform.lock.hcl", Dialect::Terraform)?;
/// assert_eq!(reread.provider(&null).map(|p| p.version()), Some("3.2.1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockFile {
    dialect: Dialect,
    providers: BTreeMap<ProviderSource, LockedProvider>,
    warnings: Vec<Diagnostic>,
}

/// One `provider` block: the provider, the version selected, the
/// configuration's constraints when it was selected, and the package hashes
/// (sorted, without duplicates).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedProvider {
    source: ProviderSource,
    version: String,
    constraints: Option<String>,
    hashes: Vec<String>,
}

/// A lock file that cannot be read, parsed or written, or a value a lock
/// file cannot hold.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockFileError {
    /// Reading or writing the file failed. A failed write leaves the old
    /// file as it was.
    Io {
        /// The lock file.
        path: PathBuf,
        /// `"read"` or `"write"`.
        action: &'static str,
        /// What the operating system said.
        source: io::Error,
    },
    /// The file is not a lock file the CLI accepts: every problem, in
    /// Terraform's words, each with its line.
    Invalid {
        /// The lock file.
        path: PathBuf,
        /// The problems, in the order found.
        diagnostics: Vec<Diagnostic>,
    },
    /// A provider, version or hash that no lock file may hold.
    InvalidValue {
        /// What is wrong.
        message: String,
    },
}

impl LockFile {
    /// An empty lock file for `dialect` (what the CLIs start from when there
    /// is no file).
    pub fn new(dialect: Dialect) -> LockFile {
        LockFile {
            dialect,
            providers: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Reads the lock file at `path`. A file that does not exist is an
    /// empty lock file, as for the CLIs; one larger than 16 MiB, not UTF-8,
    /// or not valid is an error.
    pub fn read(path: impl AsRef<Path>, dialect: Dialect) -> Result<LockFile, LockFileError> {
        let path = path.as_ref();
        match hcl_text::read_limited(path) {
            Ok(text) => LockFile::parse(&text, path, dialect),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(LockFile::new(dialect)),
            Err(source) => Err(LockFileError::Io {
                path: path.to_owned(),
                action: "read",
                source,
            }),
        }
    }

    /// Parses a lock file's text; `path` only names it in messages. Problems
    /// are errors as in Go's `loadLocks` (LOCK-2, LOCK-3); a `module` block
    /// is only a warning ([`LockFile::warnings`]).
    pub fn parse(
        text: &str,
        path: impl AsRef<Path>,
        dialect: Dialect,
    ) -> Result<LockFile, LockFileError> {
        parse::parse(text, path.as_ref(), dialect)
    }

    /// The dialect whose header the file is written with.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The locked providers, sorted by address.
    pub fn providers(&self) -> impl ExactSizeIterator<Item = &LockedProvider> {
        self.providers.values()
    }

    /// The lock of one provider.
    pub fn provider(&self, source: &ProviderSource) -> Option<&LockedProvider> {
        self.providers.get(source)
    }

    /// True when no provider is locked.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }

    /// Warnings from parsing (a `module` block, which Terraform ignores).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Replaces a provider's lock whole (Go's `SetProvider`).
    pub fn set(&mut self, lock: LockedProvider) {
        self.providers.insert(lock.source.clone(), lock);
    }

    /// Records a newly selected or verified lock as `providers lock` and
    /// `init` do (LOCK-6): when the file already locks the same version, the
    /// hashes become the union of the old and new ones; when the version
    /// changes, the old hashes go. The constraints are always the new ones.
    /// Providers not named are kept. Returns the lock now recorded.
    pub fn merge(&mut self, mut lock: LockedProvider) -> &LockedProvider {
        if let Some(old) = self.providers.get(&lock.source)
            && old.version == lock.version
        {
            lock.hashes = union(&old.hashes, &lock.hashes);
        }
        let source = lock.source.clone();
        self.providers.insert(source.clone(), lock);
        &self.providers[&source]
    }

    /// Removes a provider's lock, returning it.
    pub fn remove(&mut self, source: &ProviderSource) -> Option<LockedProvider> {
        self.providers.remove(source)
    }

    /// The file as the dialect's CLI writes it, byte for byte (LOCK-4).
    pub fn to_bytes(&self) -> Vec<u8> {
        write::to_bytes(self)
    }

    /// Replaces the file at `path` with [`to_bytes`](LockFile::to_bytes)
    /// atomically (LOCK-5): a temporary file beside it, written, flushed to
    /// disk, made mode 0644, renamed over it, and the directory flushed. On
    /// any failure the old file is left as it was.
    pub fn write_atomically(&self, path: impl AsRef<Path>) -> Result<(), LockFileError> {
        write::write_atomically(path.as_ref(), &self.to_bytes())
    }
}

impl LockedProvider {
    /// A lock, checked as Go checks a lock file's (LOCK-3): the provider
    /// must be lockable (fully qualified, neither built in nor legacy), the
    /// version a normalized version number, each hash `scheme:value`.
    /// Hashes are sorted and duplicates dropped; an empty `constraints` is
    /// none. `constraints` is kept as given: the caller normalizes it as
    /// the CLIs do (`>= 1.0` is written `>= 1.0.0`).
    pub fn new<I, H>(
        source: ProviderSource,
        version: &str,
        constraints: Option<&str>,
        hashes: I,
    ) -> Result<LockedProvider, LockFileError>
    where
        I: IntoIterator<Item = H>,
        H: Into<String>,
    {
        let invalid = |message: String| Err(LockFileError::InvalidValue { message });
        if let Err(problem) = parse::lockable(&source) {
            return invalid(problem);
        }
        if source.validate().is_err() {
            return invalid(format!(
                "Provider source address {source} is not fully qualified (hostname/namespace/type)."
            ));
        }
        if let Err(problem) = parse::check_version(&source, version, Dialect::Terraform) {
            return invalid(problem);
        }
        let mut list = Vec::new();
        for hash in hashes {
            let hash = hash.into();
            if let Err(why) = parse::check_hash(&hash) {
                return invalid(why);
            }
            list.push(hash);
        }
        Ok(LockedProvider {
            source,
            version: version.to_owned(),
            constraints: constraints.filter(|c| !c.is_empty()).map(str::to_owned),
            hashes: sorted(list),
        })
    }

    /// The provider.
    pub fn source(&self) -> &ProviderSource {
        &self.source
    }

    /// The version selected, in normalized form.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The constraints recorded with it, if any.
    pub fn constraints(&self) -> Option<&str> {
        self.constraints.as_deref()
    }

    /// The hashes (`h1:…`, `zh:…`, or another scheme), sorted.
    pub fn hashes(&self) -> &[String] {
        &self.hashes
    }
}

/// Sorted, without duplicates (Go's `NewProviderLock`).
fn sorted(mut hashes: Vec<String>) -> Vec<String> {
    hashes.sort();
    hashes.dedup();
    hashes
}

fn union(old: &[String], new: &[String]) -> Vec<String> {
    sorted(old.iter().chain(new).cloned().collect())
}

impl fmt::Display for LockFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockFileError::Io {
                path,
                action: "write",
                source,
            } => write!(
                f,
                "Failed to update dependency lock file: Error while writing new dependency lock information to {}: {source}.",
                path.display()
            ),
            LockFileError::Io { path, source, .. } => write!(
                f,
                "failed to read dependency lock file {}: {source}",
                path.display()
            ),
            LockFileError::Invalid { path, diagnostics } => {
                write!(f, "failed to read dependency lock file {}:", path.display())?;
                for diag in diagnostics {
                    write!(f, "\n- {}", diag.located())?;
                }
                Ok(())
            }
            LockFileError::InvalidValue { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for LockFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockFileError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
