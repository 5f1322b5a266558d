//! The `h1:` hash of a directory's files (docs/behaviour.md, FSM-6): the
//! same `Hash1` as an archive's, from names and contents' SHA-256 the
//! caller read.

use base64::Engine as _;

use super::dirhash::{Named, hash1_named};
use super::error::PackageHashError;

/// The `h1:` hash of a package's files given as `(name, SHA-256 of the
/// content)` pairs, in any order (Go's `dirhash.Hash1`, as
/// `dirhash.HashDir` hashes an unpacked package directory): names are
/// paths relative to the package's directory, with `/` between elements.
///
/// The names are checked as an archive's are (HASH-7, HASH-9): no newline,
/// plain relative paths, no name twice and no file whose name is another's
/// folder. A directory's walk gives such names; the checks are for names
/// from elsewhere.
///
/// ```
/// use tfdisco_provider::{EMPTY_H1, hash1_of_files};
///
/// let none: [(&str, [u8; 32]); 0] = [];
/// assert_eq!(hash1_of_files(&none)?, EMPTY_H1);
/// # Ok::<(), tfdisco_provider::PackageHashError>(())
/// ```
pub fn hash1_of_files<N: AsRef<[u8]>>(files: &[(N, [u8; 32])]) -> Result<String, PackageHashError> {
    let named: Vec<Named<'_>> = files
        .iter()
        .map(|(name, sha256)| Named {
            name: name.as_ref(),
            sha256,
            folder: false,
        })
        .collect();
    let summary = hash1_named(&named)?;
    Ok(format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary)
    ))
}
