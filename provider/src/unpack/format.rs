//! Which archive a module package is, as Terraform's go-getter tells it:
//! the `archive=` query value, or the URL path's extension (docs/behaviour.md,
//! TAR-1).

use std::fmt;

/// An archive format Terraform 1.11 knows for module packages (its
/// `goGetterDecompressors` map). [`Zip`](ArchiveFormat::Zip),
/// [`TarGz`](ArchiveFormat::TarGz), [`TarBz2`](ArchiveFormat::TarBz2) and
/// [`TarXz`](ArchiveFormat::TarXz) are unpacked into a module's folder;
/// the one-file compressions ([`Bz2`](ArchiveFormat::Bz2),
/// [`Gz`](ArchiveFormat::Gz), [`Xz`](ArchiveFormat::Xz)) are no folder,
/// and Terraform refuses them for a module:
/// [`check_supported`](ArchiveFormat::check_supported) says so in its
/// words.
///
/// ```
/// use tfdisco_provider::ArchiveFormat;
///
/// assert_eq!(ArchiveFormat::from_path("/v1/x.tar.gz"), Some(ArchiveFormat::TarGz));
/// assert_eq!(ArchiveFormat::from_path("/m.tgz"), Some(ArchiveFormat::TarGz));
/// // The longest known suffix: `tar.bz2`, not `bz2`.
/// assert_eq!(ArchiveFormat::from_path("/m.tar.bz2"), Some(ArchiveFormat::TarBz2));
/// assert_eq!(ArchiveFormat::from_path("/m.tar"), None);
/// assert_eq!(ArchiveFormat::from_archive_value("zip"), Some(ArchiveFormat::Zip));
/// assert!(ArchiveFormat::TarXz.check_supported().is_ok());
/// assert_eq!(
///     ArchiveFormat::Xz.check_supported().unwrap_err().to_string(),
///     "xz-compressed files can only unarchive to a single file"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArchiveFormat {
    /// `zip`.
    Zip,
    /// `tar.gz`, `tgz`.
    TarGz,
    /// `tar.bz2`, `tbz2`, `tar.tbz2`.
    TarBz2,
    /// `tar.xz`, `txz`.
    TarXz,
    /// `bz2`: one file, bzip2-compressed (no module package).
    Bz2,
    /// `gz`: one file, gzip-compressed (no module package).
    Gz,
    /// `xz`: one file, xz-compressed (no module package).
    Xz,
}

/// Terraform's keys and what each is.
const KEYS: [(&str, ArchiveFormat); 11] = [
    ("bz2", ArchiveFormat::Bz2),
    ("gz", ArchiveFormat::Gz),
    ("xz", ArchiveFormat::Xz),
    ("zip", ArchiveFormat::Zip),
    ("tar.bz2", ArchiveFormat::TarBz2),
    ("tar.tbz2", ArchiveFormat::TarBz2),
    ("tbz2", ArchiveFormat::TarBz2),
    ("tar.gz", ArchiveFormat::TarGz),
    ("tgz", ArchiveFormat::TarGz),
    ("tar.xz", ArchiveFormat::TarXz),
    ("txz", ArchiveFormat::TarXz),
];

impl ArchiveFormat {
    /// The format an `archive=` query value names, exactly as one of
    /// Terraform's keys (`zip`, `tar.gz`, `tgz`, `tar.bz2`, `tbz2`,
    /// `tar.tbz2`, `tar.xz`, `txz`, `bz2`, `gz`, `xz`); `None` for any other
    /// (go-getter then fails: "unsupported archive type").
    pub fn from_archive_value(value: &str) -> Option<ArchiveFormat> {
        KEYS.iter().find(|(key, _)| *key == value).map(|&(_, f)| f)
    }

    /// The format of a URL path (or a file name) by its extension: the
    /// longest key `k` such that the path ends in `.k`, as go-getter picks
    /// it when there is no `archive=`; `None` when none does (the path is
    /// no archive to unpack).
    pub fn from_path(path: &str) -> Option<ArchiveFormat> {
        KEYS.iter()
            .filter(|(key, _)| {
                path.strip_suffix(key)
                    .is_some_and(|rest| rest.ends_with('.'))
            })
            .max_by_key(|(key, _)| key.len())
            .map(|&(_, f)| f)
    }

    /// The format of an OpenTofu direct module package (no name to go
    /// by) from its first bytes, as OpenTofu sniffs it, in its order: a
    /// zip (`PK\x03\x04`, or `PK\x05\x06` for an empty one), then gzip
    /// (`\x1f\x8b\x08`), xz (its six-byte magic) and bzip2 (`BZ`, in a
    /// file of four bytes at least), each taken for a tar archive. `None`
    /// when none matches (or `start` is shorter than
    /// [`SNIFF_LEN`](ArchiveFormat::SNIFF_LEN) and the file may go on).
    ///
    /// ```
    /// use tfdisco_provider::ArchiveFormat;
    ///
    /// assert_eq!(ArchiveFormat::sniff(b"PK\x03\x04\x14\x00"), Some(ArchiveFormat::Zip));
    /// assert_eq!(ArchiveFormat::sniff(b"\xfd7zXZ\x00"), Some(ArchiveFormat::TarXz));
    /// assert_eq!(ArchiveFormat::sniff(b"BZh9"), Some(ArchiveFormat::TarBz2));
    /// assert_eq!(ArchiveFormat::sniff(b"<html>"), None);
    /// ```
    pub fn sniff(start: &[u8]) -> Option<ArchiveFormat> {
        if start.starts_with(b"PK\x03\x04") || start.starts_with(b"PK\x05\x06") {
            Some(ArchiveFormat::Zip)
        } else if start.starts_with(b"\x1f\x8b\x08") {
            Some(ArchiveFormat::TarGz)
        } else if start.starts_with(b"\xfd7zXZ\x00") {
            Some(ArchiveFormat::TarXz)
        } else if start.len() >= 4 && start.starts_with(b"BZ") {
            Some(ArchiveFormat::TarBz2)
        } else {
            None
        }
    }

    /// How many first bytes [`sniff`](ArchiveFormat::sniff) needs to decide
    /// (fewer only when the file is that short).
    pub const SNIFF_LEN: usize = 6;

    /// The format's name, as Terraform's main key for it (`tar.gz`).
    pub fn name(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::TarGz => "tar.gz",
            ArchiveFormat::TarBz2 => "tar.bz2",
            ArchiveFormat::TarXz => "tar.xz",
            ArchiveFormat::Bz2 => "bz2",
            ArchiveFormat::Gz => "gz",
            ArchiveFormat::Xz => "xz",
        }
    }

    /// Whether this crate unpacks it into a folder: `zip`, `tar.gz`,
    /// `tar.bz2`, `tar.xz`.
    pub fn is_supported(self) -> bool {
        matches!(
            self,
            ArchiveFormat::Zip
                | ArchiveFormat::TarGz
                | ArchiveFormat::TarBz2
                | ArchiveFormat::TarXz
        )
    }

    /// `Ok` for a format this crate unpacks, or the error saying which one
    /// it is not.
    pub fn check_supported(self) -> Result<ArchiveFormat, UnsupportedArchive> {
        if self.is_supported() {
            Ok(self)
        } else {
            Err(UnsupportedArchive { format: self })
        }
    }
}

impl fmt::Display for ArchiveFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format that is no folder: one compressed file, which go-getter
/// refuses to unpack into a module's folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedArchive {
    /// The format.
    pub format: ArchiveFormat,
}

impl fmt::Display for UnsupportedArchive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // go-getter's words (`Bzip2Decompressor` and the others in
        // directory mode).
        let compression = match self.format {
            ArchiveFormat::Bz2 => "bzip2",
            ArchiveFormat::Xz => "xz",
            ArchiveFormat::Gz => "gzip",
            // Only asked of an unpacker of another kind
            // (`TarUnpacker::with_format` of a zip).
            other => return write!(f, "a {other} archive is not read by this unpacker"),
        };
        write!(
            f,
            "{compression}-compressed files can only unarchive to a single file"
        )
    }
}

impl std::error::Error for UnsupportedArchive {}
