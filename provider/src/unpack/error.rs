//! Why a provider package was not unpacked (docs/behaviour.md, UNPACK-3 to
//! UNPACK-10).

use std::fmt;
use std::io;

use crate::PackageHashError;

/// Why an [`Unpacker`](super::Unpacker) stopped: an archive it refuses to
/// unpack (its names, its entries' kinds, its size), one the
/// [`PackageHasher`](crate::PackageHasher) refuses
/// ([`Archive`](UnpackError::Archive)), or the operations' writer failed
/// ([`Output`](UnpackError::Output)).
///
/// Entry names are shown as the archive spells them (bytes that are not
/// UTF-8 replaced).
#[derive(Debug)]
#[non_exhaustive]
pub enum UnpackError {
    /// An absolute entry name: `/x`, `\x`, or on a drive (`C:\x`, `C:x`).
    /// Terraform unpacks `/x` as `x`.
    AbsoluteName {
        /// The entry's name.
        entry: String,
    },
    /// An entry name with a `..` element (between `/` or `\`), as Terraform
    /// refuses it ("entry contains '..'").
    ParentElement {
        /// The entry's name.
        entry: String,
    },
    /// An entry name that is not UTF-8.
    NotUtf8 {
        /// The entry's name.
        entry: String,
    },
    /// A symbolic link (Unix mode `S_IFLNK`): Terraform writes it as a
    /// regular file of mode 0777 holding the link's target.
    Symlink {
        /// The entry's name.
        entry: String,
    },
    /// Two entries of the same path: two files, or two folder entries.
    /// Terraform keeps the last file.
    DuplicateName {
        /// The second entry's name.
        entry: String,
    },
    /// A path that would be a file and a folder: a file entry `c` and a
    /// folder entry `c/` or another entry `c/d`, in either order.
    NameConflict {
        /// The entry that made the conflict (the later one).
        entry: String,
        /// The path that would be both.
        path: String,
    },
    /// A folder entry with content: by its name (`docs/`) or by the mode
    /// the central directory gives it. Terraform ignores the content.
    FolderWithContent {
        /// The entry's name.
        entry: String,
    },
    /// More entries than [`UnpackLimits::max_entries`](super::UnpackLimits).
    TooManyEntries {
        /// The first entry past the limit.
        entry: String,
        /// The limit.
        limit: usize,
    },
    /// More content than [`UnpackLimits::max_bytes`](super::UnpackLimits).
    TooLarge {
        /// The entry whose content went past the limit.
        entry: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// More content than the archive read so far may unpack to before it
    /// is verified: [`UnpackLimits::max_ratio`](super::UnpackLimits) times
    /// its bytes, beyond [`UnpackLimits::ratio_allowance`](super::UnpackLimits)
    /// (a deflate bomb, UNPACK-10).
    TooExpanded {
        /// The entry whose content went past the bound.
        entry: String,
        /// The bytes of the archive read when it did.
        read: u64,
        /// The most the files may hold for each byte read.
        ratio: u64,
        /// What the files may hold whatever the ratio, in bytes.
        allowance: u64,
        /// What they may hold in all, in bytes
        /// ([`UnpackLimits::max_bytes`](super::UnpackLimits)).
        limit: u64,
    },
    /// A tar entry name with a `..` element (between `/` or `\`), as
    /// Terraform's go-getter refuses it, with its message.
    EntryContainsDotDot {
        /// The entry's name.
        entry: String,
    },
    /// A tar archive with no file (only folders, or no entry at all), as
    /// Terraform's go-getter refuses it ("empty archive").
    EmptyArchive,
    /// A tar archive that cannot be read: a bad header (checksum, numeric
    /// field, PAX record), cut short, or what is not unpacked (a sparse
    /// file, a file naming the package's folder itself).
    Tar {
        /// The entry it is about, when it is about one.
        entry: Option<String>,
        /// What was wrong.
        reason: String,
    },
    /// A `.tar.gz` whose gzip stream is not valid: not gzip, a bad header
    /// or checksum, cut short, trailing bytes that are no member.
    Gzip(&'static str),
    /// A `.tar.bz2` whose bzip2 stream is not valid: not bzip2, a bad
    /// block or checksum, cut short, trailing bytes that are no stream.
    Bzip2(&'static str),
    /// A `.tar.xz` whose xz stream is not valid: not xz, a bad block,
    /// index or check, cut short, trailing bytes that are no stream, or a
    /// dictionary larger than the decoder's memory limit (128 MiB).
    Xz(&'static str),
    /// An archive the [`PackageHasher`](crate::PackageHasher) refuses: not
    /// a zip, cut short, damaged, encrypted, with names the `h1:` rules
    /// refuse (HASH-3 to HASH-9).
    Archive(PackageHashError),
    /// The operations' writer failed: the unpacking stopped there.
    Output(io::Error),
}

impl UnpackError {
    /// A short word naming the kind of failure, for programs and logs:
    /// `absolute-name`, `parent-element`, `not-utf8`, `symlink`,
    /// `duplicate-name`, `name-conflict`, `folder-with-content`,
    /// `too-many-entries`, `too-large`, `too-expanded`, `empty-archive`,
    /// `tar`, `gzip`, `bzip2`, `xz`, `output` (a tar entry's `..` is `parent-element`
    /// too), or for
    /// [`Archive`](UnpackError::Archive) the hasher's
    /// ([`PackageHashError::kind`]).
    pub fn kind(&self) -> &'static str {
        match self {
            UnpackError::AbsoluteName { .. } => "absolute-name",
            UnpackError::ParentElement { .. } => "parent-element",
            UnpackError::NotUtf8 { .. } => "not-utf8",
            UnpackError::Symlink { .. } => "symlink",
            UnpackError::DuplicateName { .. } => "duplicate-name",
            UnpackError::NameConflict { .. } => "name-conflict",
            UnpackError::FolderWithContent { .. } => "folder-with-content",
            UnpackError::TooManyEntries { .. } => "too-many-entries",
            UnpackError::TooLarge { .. } => "too-large",
            UnpackError::TooExpanded { .. } => "too-expanded",
            UnpackError::EntryContainsDotDot { .. } => "parent-element",
            UnpackError::EmptyArchive => "empty-archive",
            UnpackError::Tar { .. } => "tar",
            UnpackError::Gzip(_) => "gzip",
            UnpackError::Bzip2(_) => "bzip2",
            UnpackError::Xz(_) => "xz",
            UnpackError::Archive(e) => e.kind(),
            UnpackError::Output(_) => "output",
        }
    }

    /// The name of the entry the failure is about, if it is about one.
    pub fn entry(&self) -> Option<&str> {
        match self {
            UnpackError::AbsoluteName { entry }
            | UnpackError::ParentElement { entry }
            | UnpackError::NotUtf8 { entry }
            | UnpackError::Symlink { entry }
            | UnpackError::DuplicateName { entry }
            | UnpackError::NameConflict { entry, .. }
            | UnpackError::FolderWithContent { entry }
            | UnpackError::TooManyEntries { entry, .. }
            | UnpackError::TooLarge { entry, .. }
            | UnpackError::TooExpanded { entry, .. }
            | UnpackError::EntryContainsDotDot { entry } => Some(entry),
            UnpackError::Tar { entry, .. } => entry.as_deref(),
            UnpackError::Archive(e) => e.entry(),
            UnpackError::Output(_)
            | UnpackError::EmptyArchive
            | UnpackError::Gzip(_)
            | UnpackError::Bzip2(_)
            | UnpackError::Xz(_) => None,
        }
    }

    /// The same error again, for every call after it (an [`io::Error`]
    /// cannot be cloned: its kind and message are).
    pub(super) fn repeat(&self) -> UnpackError {
        match self {
            UnpackError::AbsoluteName { entry } => UnpackError::AbsoluteName {
                entry: entry.clone(),
            },
            UnpackError::ParentElement { entry } => UnpackError::ParentElement {
                entry: entry.clone(),
            },
            UnpackError::NotUtf8 { entry } => UnpackError::NotUtf8 {
                entry: entry.clone(),
            },
            UnpackError::Symlink { entry } => UnpackError::Symlink {
                entry: entry.clone(),
            },
            UnpackError::DuplicateName { entry } => UnpackError::DuplicateName {
                entry: entry.clone(),
            },
            UnpackError::NameConflict { entry, path } => UnpackError::NameConflict {
                entry: entry.clone(),
                path: path.clone(),
            },
            UnpackError::FolderWithContent { entry } => UnpackError::FolderWithContent {
                entry: entry.clone(),
            },
            UnpackError::TooManyEntries { entry, limit } => UnpackError::TooManyEntries {
                entry: entry.clone(),
                limit: *limit,
            },
            UnpackError::TooLarge { entry, limit } => UnpackError::TooLarge {
                entry: entry.clone(),
                limit: *limit,
            },
            UnpackError::TooExpanded {
                entry,
                read,
                ratio,
                allowance,
                limit,
            } => UnpackError::TooExpanded {
                entry: entry.clone(),
                read: *read,
                ratio: *ratio,
                allowance: *allowance,
                limit: *limit,
            },
            UnpackError::EntryContainsDotDot { entry } => UnpackError::EntryContainsDotDot {
                entry: entry.clone(),
            },
            UnpackError::EmptyArchive => UnpackError::EmptyArchive,
            UnpackError::Tar { entry, reason } => UnpackError::Tar {
                entry: entry.clone(),
                reason: reason.clone(),
            },
            UnpackError::Gzip(reason) => UnpackError::Gzip(reason),
            UnpackError::Bzip2(reason) => UnpackError::Bzip2(reason),
            UnpackError::Xz(reason) => UnpackError::Xz(reason),
            UnpackError::Archive(e) => UnpackError::Archive(e.clone()),
            UnpackError::Output(e) => UnpackError::Output(io::Error::new(e.kind(), e.to_string())),
        }
    }
}

impl From<PackageHashError> for UnpackError {
    fn from(e: PackageHashError) -> UnpackError {
        UnpackError::Archive(e)
    }
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const OUTSIDE: &str = "it would be unpacked outside the package's folder";
        let archive = "provider package archive: ";
        match self {
            UnpackError::AbsoluteName { entry } => {
                write!(
                    f,
                    "{archive}entry {entry:?} has an absolute name: {OUTSIDE}"
                )
            }
            UnpackError::ParentElement { entry } => {
                write!(
                    f,
                    "{archive}entry {entry:?} has a \"..\" element: {OUTSIDE}"
                )
            }
            UnpackError::NotUtf8 { entry } => {
                write!(f, "{archive}entry {entry:?}: its name is not UTF-8")
            }
            UnpackError::Symlink { entry } => write!(
                f,
                "{archive}entry {entry:?} is a symbolic link: packages with links are not unpacked"
            ),
            UnpackError::DuplicateName { entry } => {
                write!(f, "{archive}two entries are named {entry:?}")
            }
            UnpackError::NameConflict { entry, path } => write!(
                f,
                "{archive}entry {entry:?}: {path:?} would be both a file and a folder"
            ),
            UnpackError::FolderWithContent { entry } => {
                write!(f, "{archive}entry {entry:?} is a folder with content")
            }
            UnpackError::TooManyEntries { entry, limit } => write!(
                f,
                "{archive}entry {entry:?} is past the limit of {limit} entries"
            ),
            UnpackError::TooLarge { entry, limit } => write!(
                f,
                "{archive}entry {entry:?} takes the unpacked package past the limit of {limit} bytes"
            ),
            UnpackError::TooExpanded {
                entry,
                read,
                ratio,
                allowance,
                limit,
            } => write!(
                f,
                "{archive}entry {entry:?} expands to more than {ratio} times the {read} bytes of \
                 the archive read so far (an archive not yet verified may expand to {ratio} times \
                 its size beyond its first {}, and to {} in all)",
                Amount(*allowance),
                Amount(*limit),
            ),
            UnpackError::EntryContainsDotDot { entry } => {
                write!(f, "entry contains '..': {entry}")
            }
            UnpackError::EmptyArchive => {
                write!(f, "empty archive: the tar archive has no file")
            }
            UnpackError::Tar {
                entry: Some(entry),
                reason,
            } => write!(f, "tar archive: entry {entry:?}: {reason}"),
            UnpackError::Tar {
                entry: None,
                reason,
            } => write!(f, "tar archive: {reason}"),
            UnpackError::Gzip(reason) => write!(f, "tar.gz archive: gzip: {reason}"),
            UnpackError::Bzip2(reason) => write!(f, "tar.bz2 archive: bzip2: {reason}"),
            UnpackError::Xz(reason) => write!(f, "tar.xz archive: xz: {reason}"),
            UnpackError::Archive(e) => e.fmt(f),
            UnpackError::Output(e) => write!(f, "writing the unpacked package: {e}"),
        }
    }
}

/// A number of bytes as the limits are set: `64 MiB`, `4 GiB`, or
/// `1000 bytes` when it is no whole number of KiB.
struct Amount(u64);

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.0;
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if bytes != 0 && bytes.trailing_zeros() >= shift {
                return write!(f, "{} {unit}", bytes >> shift);
            }
        }
        write!(f, "{bytes} bytes")
    }
}

impl std::error::Error for UnpackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UnpackError::Archive(e) => Some(e),
            UnpackError::Output(e) => Some(e),
            _ => None,
        }
    }
}
