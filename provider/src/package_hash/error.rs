//! Why a provider package could not be hashed (docs/behaviour.md, HASH-3 to
//! HASH-9).

use std::fmt;

/// Why a provider package archive could not be hashed: it is not a zip
/// archive the hasher reads, it is damaged or cut short, or its names are
/// ones the two hashes of a package would not agree on.
///
/// Entry names are shown as the archive spells them (bytes that are not
/// UTF-8 replaced); offsets count bytes from the start of the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PackageHashError {
    /// Bytes that are no zip record where one must start: before the first
    /// entry, between entries or in the central directory.
    NotAZip {
        /// Where the record should have started.
        offset: u64,
        /// What was expected there.
        expected: &'static str,
    },
    /// The archive ended before its end of central directory record did.
    Truncated {
        /// How many bytes were read.
        offset: u64,
        /// What was being read when the bytes ran out.
        within: String,
    },
    /// Bytes after the end of central directory record and its comment.
    TrailingData {
        /// Where they start.
        offset: u64,
    },
    /// An entry this hasher cannot read: encrypted, or compressed with a
    /// method other than stored (0) or deflated (8), as Go's `archive/zip`.
    Unsupported {
        /// The entry's name.
        entry: String,
        /// What is not supported.
        what: String,
    },
    /// An entry whose data is damaged: invalid deflate data, a CRC-32 or a
    /// size that does not match the data, a data descriptor that does not
    /// match.
    Corrupt {
        /// The entry's name.
        entry: String,
        /// What is wrong.
        problem: String,
    },
    /// The central directory disagrees with the entries as they were read:
    /// a name, a CRC-32, a size, the method or the flags differ, an entry is
    /// missing from one of them, or the end record's counts and offsets are
    /// not those of the directory.
    CentralDirectory {
        /// What disagrees.
        problem: String,
    },
    /// An entry name with a newline (Go's `dirhash`: "filenames with
    /// newlines are not supported").
    NewlineInName {
        /// The entry's name.
        entry: String,
    },
    /// An entry name that is not a plain relative path: empty, absolute,
    /// with a `\`, a NUL, or an empty, `.` or `..` element.
    UnsafeName {
        /// The entry's name.
        entry: String,
    },
    /// Two file entries of the same name.
    DuplicateName {
        /// The entry's name.
        entry: String,
    },
    /// A file entry whose name is also a folder of the package (another
    /// entry's parent, or a folder entry).
    NameConflict {
        /// The entry's name.
        entry: String,
    },
    /// An archive the hasher reads but the unpacker refuses to unpack
    /// (`tfdisco install`: a link, an absolute name, a limit; UNPACK-3 to
    /// UNPACK-9).
    NotUnpacked {
        /// Why.
        problem: String,
    },
}

impl PackageHashError {
    /// A short word naming the kind of failure, for programs and logs:
    /// `not-a-zip`, `truncated`, `trailing-data`, `unsupported`, `corrupt`,
    /// `central-directory`, `newline-in-name`, `unsafe-name`,
    /// `duplicate-name`, `name-conflict`, `not-unpacked`.
    pub fn kind(&self) -> &'static str {
        match self {
            PackageHashError::NotAZip { .. } => "not-a-zip",
            PackageHashError::Truncated { .. } => "truncated",
            PackageHashError::TrailingData { .. } => "trailing-data",
            PackageHashError::Unsupported { .. } => "unsupported",
            PackageHashError::Corrupt { .. } => "corrupt",
            PackageHashError::CentralDirectory { .. } => "central-directory",
            PackageHashError::NewlineInName { .. } => "newline-in-name",
            PackageHashError::UnsafeName { .. } => "unsafe-name",
            PackageHashError::DuplicateName { .. } => "duplicate-name",
            PackageHashError::NameConflict { .. } => "name-conflict",
            PackageHashError::NotUnpacked { .. } => "not-unpacked",
        }
    }

    /// [`PackageHashError::NotUnpacked`] for the unpacker's message
    /// `problem` (its `provider package archive: ` prefix left out, since
    /// this error's own message has it).
    pub fn not_unpacked(problem: impl Into<String>) -> PackageHashError {
        let problem = problem.into();
        let problem = problem
            .strip_prefix("provider package archive: ")
            .map_or_else(|| problem.clone(), str::to_owned);
        PackageHashError::NotUnpacked { problem }
    }

    /// The name of the entry the failure is about, if it is about one.
    pub fn entry(&self) -> Option<&str> {
        match self {
            PackageHashError::Unsupported { entry, .. }
            | PackageHashError::Corrupt { entry, .. }
            | PackageHashError::NewlineInName { entry }
            | PackageHashError::UnsafeName { entry }
            | PackageHashError::DuplicateName { entry }
            | PackageHashError::NameConflict { entry } => Some(entry),
            _ => None,
        }
    }
}

impl fmt::Display for PackageHashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("provider package archive: ")?;
        match self {
            PackageHashError::NotAZip { offset, expected } => {
                write!(f, "not a zip archive: expected {expected} at byte {offset}")
            }
            PackageHashError::Truncated { offset, within } => {
                write!(
                    f,
                    "truncated: the archive ends at byte {offset}, within {within}"
                )
            }
            PackageHashError::TrailingData { offset } => write!(
                f,
                "unexpected data at byte {offset}, after the end of central directory record"
            ),
            PackageHashError::Unsupported { entry, what } => {
                write!(f, "entry {entry:?}: {what} is not supported")
            }
            PackageHashError::Corrupt { entry, problem } => {
                write!(f, "entry {entry:?} is corrupt: {problem}")
            }
            PackageHashError::CentralDirectory { problem } => {
                write!(
                    f,
                    "the central directory does not match the entries: {problem}"
                )
            }
            PackageHashError::NewlineInName { entry } => write!(
                f,
                "entry {entry:?}: file names with newlines are not supported (dirhash)"
            ),
            PackageHashError::UnsafeName { entry } => write!(
                f,
                "entry {entry:?}: not a relative path of plain names separated by '/'"
            ),
            PackageHashError::DuplicateName { entry } => {
                write!(f, "two entries are named {entry:?}")
            }
            PackageHashError::NameConflict { entry } => {
                write!(
                    f,
                    "entry {entry:?} is a file and also a folder of other entries"
                )
            }
            PackageHashError::NotUnpacked { problem } => f.write_str(problem),
        }
    }
}

impl std::error::Error for PackageHashError {}

/// An entry name for messages.
pub(super) fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}
