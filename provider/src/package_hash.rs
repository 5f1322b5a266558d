//! Provider package hashes and their verification, without I/O
//! (docs/behaviour.md, HASH-1 to HASH-20).
//!
//! - [`PackageHasher`] reads a provider package archive (a zip) as it
//!   downloads, in chunks of any size, in one pass, and gives its two lock
//!   file hashes: `zh:` (the SHA-256 of the archive) and `h1:` (Go's
//!   `dirhash.Hash1` of its files). It never holds the archive: its memory
//!   is a fixed buffer and one small record per entry.
//! - [`hash1_of_files`] gives the same `h1:` for an unpacked package's
//!   files, from their names and contents' SHA-256.
//! - [`Sha256Sums`] reads a release's `SHA256SUMS` as Terraform does.
//! - [`authenticate_package`] makes Terraform's and OpenTofu's checks of a
//!   downloaded package, in their order: OpenTofu's `packages` hashes when
//!   the registry gave them, `SHA256SUMS` lists the package's `shasum`, the
//!   archive has that SHA-256, and the detached OpenPGP signature of
//!   `SHA256SUMS` verifies with one of the registry's signing keys; it
//!   reports how the key is trusted ([`Trust`]).

mod authenticate;
mod dirhash;
mod error;
mod files;
mod signature;
mod sums;
mod trust;
mod zip;

use std::fmt;
use std::io::Read;

use base64::Engine as _;
use sha2::{Digest, Sha256};

pub use authenticate::{
    Authentication, AuthenticationError, MirrorAuthentication, PackageCheck, SignatureCheck,
    Signatures, authenticate_mirror_archive, authenticate_package, signature_required,
    trusted_mirror_hashes,
};
pub use error::PackageHashError;
pub use files::hash1_of_files;
pub use signature::{SignatureError, Signer, verify_signature};
pub use sums::{Sha256Sums, SumsError};
pub use trust::{HASHICORP_KEY_ID, HASHICORP_PARTNERS_KEY_ID, Trust, TrustRoots};

pub(crate) use dirhash::check_name;
pub(crate) use zip::{Listed, Observer};

/// The `h1:` hash of a package with no files.
pub const EMPTY_H1: &str = "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";

/// Reads a provider package archive in one pass and gives its hashes
/// (HASH-1 to HASH-9).
///
/// Feed it the archive's bytes in order, in chunks of any size, as they
/// arrive ([`update`](PackageHasher::update)); then
/// [`finish`](PackageHasher::finish). Nothing is buffered beyond the header
/// being read (at most about 192 KiB, for a header with the longest name,
/// extra field and comment), 64 KiB for inflating and one small record per
/// entry; time is linear in the archive and what it inflates to.
///
/// ```
/// use tfdisco_provider::PackageHasher;
///
/// // An empty zip archive: just the end of central directory record.
/// let archive = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
/// let mut hasher = PackageHasher::new();
/// for chunk in archive.chunks(5) {
///     hasher.update(chunk)?;
/// }
/// let hashes = hasher.finish()?;
/// assert_eq!(hashes.h1(), "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
/// assert_eq!(hashes.size(), 22);
/// # Ok::<(), tfdisco_provider::PackageHashError>(())
/// ```
pub struct PackageHasher {
    archive: Sha256,
    zip: zip::ZipReader,
    failed: Option<PackageHashError>,
    /// Every byte given, counted past a failure too.
    read: u64,
}

impl Default for PackageHasher {
    fn default() -> Self {
        PackageHasher::new()
    }
}

impl fmt::Debug for PackageHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackageHasher")
            .field("read", &self.read)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl PackageHasher {
    /// A hasher that has read nothing.
    pub fn new() -> PackageHasher {
        PackageHasher {
            archive: Sha256::new(),
            zip: zip::ZipReader::new(),
            failed: None,
            read: 0,
        }
    }

    /// Reads the next bytes of the archive. An error is final: this call
    /// and every later one return it, and [`finish`](PackageHasher::finish)
    /// too; the archive's SHA-256 still counts every byte
    /// ([`finish_digest`](PackageHasher::finish_digest)).
    pub fn update(&mut self, chunk: &[u8]) -> Result<(), PackageHashError> {
        self.update_with(chunk, &mut zip::Unobserved)
            .inspect_err(|error| {
                self.failed = Some(error.clone());
            })
    }

    /// [`update`](PackageHasher::update), with `observer` shown the
    /// archive as it is read (the unpacker, `crate::unpack`). An error does
    /// not make the hasher fail for later calls: the observer's owner stops
    /// at it.
    pub(crate) fn update_with<O: Observer>(
        &mut self,
        chunk: &[u8],
        observer: &mut O,
    ) -> Result<(), O::Error> {
        self.archive.update(chunk);
        self.read += chunk.len() as u64;
        if let Some(error) = &self.failed {
            return Err(error.clone().into());
        }
        self.zip.update(chunk, observer)
    }

    /// How many bytes of the archive have been read.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The SHA-256 and size of every byte given, and the hashes or why the
    /// archive has none: a package is checked against its checksum first,
    /// so a damaged archive is reported as one whose checksum does not
    /// match (HASH-17).
    pub fn finish_digest(self) -> ArchiveDigest {
        let sha256 = self.archive.clone().finalize().into();
        let size = self.read;
        ArchiveDigest {
            sha256,
            size,
            hashes: self.finish(),
        }
    }

    /// The hashes, once the whole archive has been read: an archive that
    /// ends before its end of central directory record is
    /// [`PackageHashError::Truncated`].
    pub fn finish(self) -> Result<PackageHashes, PackageHashError> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        let size = self.zip.position();
        let records = self.zip.finish()?;
        let h1 = dirhash::hash1(&records)?;
        Ok(PackageHashes {
            sha256: self.archive.finalize().into(),
            h1,
            h1_zip: dirhash::hash1_zip(&records),
            size,
            files: records.iter().filter(|r| !r.folder).count(),
        })
    }
}

/// What a [`PackageHasher`] read: the archive's SHA-256 and size whatever
/// its contents, and its hashes or why it has none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveDigest {
    /// The SHA-256 of every byte.
    pub sha256: [u8; 32],
    /// How many bytes.
    pub size: u64,
    /// The package's hashes, or why it cannot be read as a package.
    pub hashes: Result<PackageHashes, PackageHashError>,
}

impl ArchiveDigest {
    /// The hashes to check the archive's checksum with: its own, or (for an
    /// archive that is no package) the SHA-256 and size with the `h1:` of
    /// an empty package, which nothing records: so that the checksum is
    /// checked before the archive is read as a package (HASH-17).
    pub fn checkable(&self) -> PackageHashes {
        match &self.hashes {
            Ok(hashes) => *hashes,
            Err(_) => PackageHashes {
                sha256: self.sha256,
                h1: dirhash::hash1(&[]).unwrap_or_default(),
                h1_zip: dirhash::hash1_zip(&[]),
                size: self.size,
                files: 0,
            },
        }
    }
}

/// The hashes of a provider package archive, as lock files write them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackageHashes {
    sha256: [u8; 32],
    h1: [u8; 32],
    h1_zip: [u8; 32],
    size: u64,
    files: usize,
}

impl fmt::Debug for PackageHashes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackageHashes")
            .field("zh", &self.zh())
            .field("h1", &self.h1())
            .field("h1_zip", &self.h1_zip())
            .field("size", &self.size)
            .field("files", &self.files)
            .finish()
    }
}

impl PackageHashes {
    /// The SHA-256 of the archive's bytes.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// The SHA-256 of the archive in lower-case hex, as `SHA256SUMS` and the
    /// registry's `shasum` write it.
    pub fn sha256_hex(&self) -> String {
        let mut hex = Vec::with_capacity(64);
        dirhash::push_hex(&mut hex, &self.sha256);
        String::from_utf8(hex).unwrap_or_default()
    }

    /// `zh:` and the archive's SHA-256 in lower-case hex (HASH-1).
    pub fn zh(&self) -> String {
        format!("zh:{}", self.sha256_hex())
    }

    /// `h1:` and the base64 (standard, padded) SHA-256 of the summary of the
    /// package's files (HASH-2).
    pub fn h1(&self) -> String {
        format!(
            "h1:{}",
            base64::engine::general_purpose::STANDARD.encode(self.h1)
        )
    }

    /// `h1:` as Go's `dirhash.HashZip` computes it over the archive: every
    /// entry, folder entries included, under its name in the archive. It is
    /// the `h1:` of [`h1`](PackageHashes::h1) when the archive has no folder
    /// entries. `terraform providers mirror` lists it in a mirror's
    /// `<version>.json`, and a network mirror's `h1:` is checked against it
    /// (HASH-21).
    pub fn h1_zip(&self) -> String {
        format!(
            "h1:{}",
            base64::engine::general_purpose::STANDARD.encode(self.h1_zip)
        )
    }

    /// Whether the archive matches `hash`, a lock file hash as a network
    /// mirror lists it: `zh:` against the archive's SHA-256, `h1:` against
    /// [`h1_zip`](PackageHashes::h1_zip) (Terraform checks the downloaded
    /// archive, not the unpacked package). Other schemes never match.
    pub fn matches(&self, hash: &str) -> bool {
        match hash.split_once(':') {
            Some(("zh", _)) => hash == self.zh(),
            Some(("h1", _)) => hash == self.h1_zip(),
            _ => false,
        }
    }

    /// The archive's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// How many files the `h1:` summary has a line for.
    pub fn files(&self) -> usize {
        self.files
    }
}

/// The hashes of a whole archive in memory: [`PackageHasher`] fed at once.
pub fn hash_package(archive: &[u8]) -> Result<PackageHashes, PackageHashError> {
    let mut hasher = PackageHasher::new();
    hasher.update(archive)?;
    hasher.finish()
}

/// The hashes of the archive `reader` reads, read in 64 KiB chunks to its
/// end: a read error as [`PackageReadError::Read`], an archive that cannot
/// be hashed as [`PackageReadError::Package`]. The caller opens the file (or
/// any other reader); nothing here touches the file system.
pub fn hash_package_reader<R: Read>(mut reader: R) -> Result<PackageHashes, PackageReadError> {
    let mut hasher = PackageHasher::new();
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(PackageReadError::Read(e)),
        };
        hasher
            .update(&buf[..n])
            .map_err(PackageReadError::Package)?;
    }
    hasher.finish().map_err(PackageReadError::Package)
}

/// Why [`hash_package_reader`] gave no hashes.
#[derive(Debug)]
pub enum PackageReadError {
    /// The reader failed.
    Read(std::io::Error),
    /// What it read is no package that can be hashed.
    Package(PackageHashError),
}

impl fmt::Display for PackageReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackageReadError::Read(e) => e.fmt(f),
            PackageReadError::Package(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PackageReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PackageReadError::Read(e) => Some(e),
            PackageReadError::Package(e) => Some(e),
        }
    }
}
