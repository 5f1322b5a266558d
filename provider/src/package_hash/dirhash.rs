//! The `h1:` hash of a package's files: Go's `golang.org/x/mod/sumdb/dirhash`
//! `Hash1` over the files as Terraform and OpenTofu record them
//! (docs/behaviour.md, HASH-2, HASH-7 to HASH-9).

use sha2::{Digest, Sha256};

use super::error::{PackageHashError, shown};
use super::zip::Record;

/// One name for `Hash1`: an archive's entry, or a file of a directory.
pub(super) struct Named<'a> {
    /// The name's bytes; a folder's may end in `/`.
    pub(super) name: &'a [u8],
    /// The SHA-256 of the content (ignored for a folder).
    pub(super) sha256: &'a [u8; 32],
    /// A folder: no line of its own.
    pub(super) folder: bool,
}

impl<'a> From<&'a Record> for Named<'a> {
    fn from(r: &'a Record) -> Named<'a> {
        Named {
            name: &r.name,
            sha256: &r.sha256,
            folder: r.folder,
        }
    }
}

/// `Hash1`'s summary hash of an archive's entries ([`hash1_named`]).
pub(super) fn hash1(records: &[Record]) -> Result<[u8; 32], PackageHashError> {
    let named: Vec<Named<'_>> = records.iter().map(Named::from).collect();
    hash1_named(&named)
}

/// `Hash1`'s summary hash of these names: for every file (folders are no
/// lines), sorted by name as bytes, `<hex SHA-256>  <name>\n`; checked
/// first so that the summary is the one of the unpacked package.
pub(super) fn hash1_named(records: &[Named<'_>]) -> Result<[u8; 32], PackageHashError> {
    check_names(records)?;
    let mut files: Vec<&Named<'_>> = records.iter().filter(|r| !r.folder).collect();
    files.sort_unstable_by(|a, b| a.name.cmp(b.name));
    if let Some(pair) = files.windows(2).find(|pair| pair[0].name == pair[1].name) {
        return Err(PackageHashError::DuplicateName {
            entry: shown(pair[0].name),
        });
    }
    Ok(summary(files.into_iter()))
}

/// `dirhash.HashZip`'s summary of the same entries: every entry, folders
/// included, under the name the archive gives it (`docs/`), sorted by name
/// as bytes, each with the SHA-256 of its content (a folder's is empty).
/// This is the `h1:` `terraform providers mirror` lists for an archive and
/// a network mirror's `h1:` is checked against (HASH-21); it differs from
/// [`hash1`]'s when the archive has folder entries. Call it after [`hash1`],
/// which checks the names.
pub(super) fn hash1_zip(records: &[Record]) -> [u8; 32] {
    let mut entries: Vec<Named<'_>> = records.iter().map(Named::from).collect();
    entries.sort_unstable_by(|a, b| a.name.cmp(b.name));
    summary(entries.iter())
}

/// `Hash1`'s summary of these entries, in the order given.
fn summary<'a>(entries: impl Iterator<Item = &'a Named<'a>>) -> [u8; 32] {
    let mut summary = Sha256::new();
    let mut line = Vec::with_capacity(128);
    for entry in entries {
        line.clear();
        push_hex(&mut line, entry.sha256);
        line.extend_from_slice(b"  ");
        line.extend_from_slice(entry.name);
        line.push(b'\n');
        summary.update(&line);
    }
    summary.finalize().into()
}

/// Lower-case hex of `bytes`, appended.
pub(super) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0xf)]);
    }
}

/// The path of an entry without a folder's trailing `/`.
fn path<'a>(record: &Named<'a>) -> &'a [u8] {
    folder_path(record.name, record.folder)
}

/// `name` without its trailing `/` when it is a folder's.
fn folder_path(name: &[u8], folder: bool) -> &[u8] {
    match name.strip_suffix(b"/") {
        Some(path) if folder => path,
        _ => name,
    }
}

/// Whether `path` is a plain relative path: not empty, not absolute, no
/// `\` or NUL, and no empty, `.` or `..` element (Go's `fs.ValidPath`, with
/// the backslash and NUL refused as the unpacking would read them).
fn is_plain(path: &[u8]) -> bool {
    !path.is_empty()
        && !path.iter().any(|&b| b == b'\\' || b == 0)
        && path
            .split(|&b| b == b'/')
            .all(|element| !matches!(element, b"" | b"." | b".."))
}

/// The rules on one entry's name (HASH-7): no newline (Go's `Hash1`
/// refuses them) and a plain relative path (a folder's one trailing `/`
/// aside). The unpacker (`crate::unpack`) checks each name so as its entry
/// starts.
pub(crate) fn check_name(name: &[u8], folder: bool) -> Result<(), PackageHashError> {
    if name.contains(&b'\n') {
        return Err(PackageHashError::NewlineInName { entry: shown(name) });
    }
    if !is_plain(folder_path(name, folder)) {
        return Err(PackageHashError::UnsafeName { entry: shown(name) });
    }
    Ok(())
}

/// The rules on names (HASH-7 to HASH-9): no newline (Go's `Hash1` refuses
/// them), plain relative paths, and no file where the package has a
/// folder.
fn check_names(records: &[Named<'_>]) -> Result<(), PackageHashError> {
    for record in records {
        check_name(record.name, record.folder)?;
    }
    // A file is a folder of the package when a folder entry has its name or
    // another entry's path starts with it and a `/`: in all paths, sorted,
    // the first one from `<name>/` on tells (linear in the names' length,
    // times a logarithm).
    let mut paths: Vec<&[u8]> = records.iter().map(path).collect();
    paths.sort_unstable();
    let mut folders: Vec<&[u8]> = records.iter().filter(|r| r.folder).map(path).collect();
    folders.sort_unstable();
    let mut key = Vec::new();
    for file in records.iter().filter(|r| !r.folder) {
        key.clear();
        key.extend_from_slice(file.name);
        key.push(b'/');
        let at = paths.partition_point(|p| *p < &key[..]);
        let parent = paths.get(at).is_some_and(|p| p.starts_with(&key));
        if parent || folders.binary_search(&file.name).is_ok() {
            return Err(PackageHashError::NameConflict {
                entry: shown(file.name),
            });
        }
    }
    Ok(())
}
