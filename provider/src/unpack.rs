//! A provider package unpacked as it downloads, without I/O
//! (docs/behaviour.md, UNPACK-1 to UNPACK-10); a module package's
//! `.tar.gz`, `.tar.bz2` or `.tar.xz` by [`TarUnpacker`], to the same
//! writer (TAR-1 to TAR-9).
//!
//! [`Unpacker`] reads the archive through the [`PackageHasher`]'s one-pass
//! zip reader and turns it into [`UnpackOp`]s for a writer: the folders to
//! create, the files to create and their bytes, in the order the archive
//! holds them, but for entries with no content and no trailing `/`: only
//! the central directory, after every entry, tells an empty file from a
//! folder that only its mode makes one, so they come then. Its result, [`Unpacked`], carries what only the end of the
//! archive tells: each file's permission bits, the `h1:` of the unpacked
//! package and the archive's hashes.
//!
//! **The writer** (the I/O side) does this, in a private staging folder
//! that nothing else reads until the package is verified:
//!
//! 1. `Folder(path)`: creates the folder (mode 0755), its parent already
//!    created; `File(path)`: creates the file (mode 0600), its folder
//!    already created; `Data(bytes)`: appends them to that file;
//!    `FileEnd`: closes it. Paths are relative, `/`-separated, without
//!    empty, `.` or `..` elements and never absolute: joined to the staging
//!    folder they stay inside it. Creating each folder and file exclusively
//!    (`create_dir`, `create_new`) makes names a file system folds together
//!    (`A` and `a` on macOS and Windows) an error, not a silent overwrite.
//! 2. Once [`finish`](Unpacker::finish) gave [`Unpacked`] and the archive
//!    was verified (its `zh:` against the signed `SHA256SUMS`, the `h1:`
//!    against the lock file): sets each file's mode from
//!    [`Unpacked::modes`] and moves the staging folder into place. On any
//!    error it removes the staging folder.
//!
//! Memory does not grow with the size of the archive's content: the
//! hasher's (a header, 64 KiB for inflating, a record per entry) and, per
//! entry, its path's elements and mode. [`UnpackLimits`] bound the entries
//! and the bytes written, which the I/O side writes before the archive is
//! verified: in all, and to a multiple of the archive read so far, so
//! that a few MiB of deflate cannot fill a disk.
//!
//! ```
//! use tfdisco_provider::{Unpacker, hash_package};
//! # fn zip(name: &str, data: &[u8]) -> Vec<u8> {
//! #     let crc = crc32fast::hash(data).to_le_bytes();
//! #     let size = (data.len() as u32).to_le_bytes();
//! #     let len = (name.len() as u16).to_le_bytes();
//! #     let mut z = b"PK\x03\x04\x14\0\0\0\0\0\0\0\0\0".to_vec();
//! #     for part in [&crc[..], &size, &size, &len, &[0, 0], name.as_bytes(), data] {
//! #         z.extend_from_slice(part);
//! #     }
//! #     let start = (z.len() as u32).to_le_bytes();
//! #     let mut c = b"PK\x01\x02\x14\x03\x14\0\0\0\0\0\0\0\0\0".to_vec();
//! #     for part in [&crc[..], &size, &size, &len, &[0; 8], &(0o100755u32 << 16).to_le_bytes(), &[0; 4], name.as_bytes()] {
//! #         c.extend_from_slice(part);
//! #     }
//! #     z.extend_from_slice(&c);
//! #     for part in [&b"PK\x05\x06\0\0\0\0\x01\0\x01\0"[..], &(c.len() as u32).to_le_bytes(), &start, &[0, 0]] {
//! #         z.extend_from_slice(part);
//! #     }
//! #     z
//! # }
//!
//! // A package with one file, `bin/provider`, mode 0755.
//! let archive = zip("bin/provider", b"#!/bin/sh\n");
//! let mut unpacker = Unpacker::new();
//! let mut written = Vec::new();
//! for chunk in archive.chunks(7) {
//!     // As each chunk arrives; the writer creates, writes and closes.
//!     unpacker.update(chunk, |op| {
//!         written.push(format!("{op:?}"));
//!         Ok(())
//!     })?;
//! }
//! let unpacked = unpacker.finish()?;
//! assert_eq!(written.first().map(String::as_str), Some(r#"Folder("bin")"#));
//! assert_eq!(written[1], r#"File("bin/provider")"#);
//! assert_eq!(written.last().map(String::as_str), Some("FileEnd"));
//! assert_eq!(unpacked.modes, [("bin/provider".to_owned(), 0o755)]);
//! assert_eq!(unpacked.h1, hash_package(&archive)?.h1());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod compression;
mod error;
mod format;
mod mode;
mod names;
pub mod tar;
mod tree;

use std::fmt;
use std::io;

pub use error::UnpackError;
pub use format::{ArchiveFormat, UnsupportedArchive};
pub use tar::{TarUnpacked, TarUnpacker};

use crate::PackageHasher;
use crate::PackageHashes;
use crate::package_hash::{Listed, Observer};
use tree::{Leaf, Tree};

/// What the writer does next (see [the module](self)): paths are relative,
/// `/`-separated, normalized and inside the package's folder; a file's
/// folders come before it; `Data` only between a `File` and its `FileEnd`.
///
/// Not `#[non_exhaustive]`, on purpose: a writer that meets an operation it
/// does not know cannot write the package right, so a new one must fail to
/// compile there rather than fall into a catch-all arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnpackOp<'a> {
    /// Create this folder (mode 0755); its parent folder exists.
    Folder(&'a str),
    /// Create this file, empty (mode 0600 while it is written); its folder
    /// exists. Its bytes follow.
    File(&'a str),
    /// Append these bytes (never empty) to the file being written.
    Data(&'a [u8]),
    /// The file being written is whole: close it.
    FileEnd,
}

/// What an [`Unpacker`] may write: it refuses an archive that would go
/// past any limit before it writes past it (docs/behaviour.md, UNPACK-9,
/// UNPACK-10).
///
/// Everything is written before the archive is verified (its checksum and
/// signature need the whole download), by whoever serves the download. So
/// besides the entries and the bytes in all, the bytes the files hold
/// together are bounded by the archive itself: at any moment they may be
/// at most `max_ratio` times the bytes of the archive read so far (every
/// byte given to [`update`](Unpacker::update), the chunk being read
/// included: a lower bound of the archive's size), or `ratio_allowance`
/// when that is more, and never more than `max_bytes`:
///
/// ```text
/// written ≤ min(max_bytes, max(ratio_allowance, max_ratio × bytes read))
/// ```
///
/// The defaults come from real packages. Provider binaries are Go
/// programs, which deflate 3× to 5×: the 674 MiB binary of `hashicorp/aws`
/// 5.100.0 (`linux_amd64`, among the largest providers) deflates to
/// 141 MiB at zlib's default level (4.8×, and at most 5.5× over any of its
/// beginnings, as it streams), the 86 MiB `terraform` 1.11.4 binary 3.4×
/// (3.7×). A ratio of 32 leaves almost six times that, while a download
/// host must then send a MiB for every 32 MiB it makes an install job
/// write, not the KiB per MiB deflate needs (1032×). The allowance,
/// 64 MiB, lets a small package of compressible files (documentation,
/// schemas; the testkit's packages deflate about 10×) through whatever its
/// ratio; the cap, 4 GiB, is six times the largest binary above.
///
/// ```
/// use tfdisco_provider::UnpackLimits;
///
/// let limits = UnpackLimits::default();
/// assert_eq!(limits.max_bytes, 4 << 30);
/// assert_eq!((limits.max_ratio, limits.ratio_allowance), (32, 64 << 20));
/// // A 10 MiB archive read whole may unpack to 320 MiB; its first
/// // 100 KiB to 64 MiB.
/// assert_eq!(limits.bound(10 << 20), 320 << 20);
/// assert_eq!(limits.bound(100 << 10), 64 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnpackLimits {
    /// The most bytes all files may hold together, however large the
    /// archive (default 4 GiB).
    pub max_bytes: u64,
    /// The most entries the archive may have, folders included (default
    /// 100,000).
    pub max_entries: usize,
    /// The most bytes all files may hold together for each byte of the
    /// archive read so far, beyond `ratio_allowance` (default 32).
    pub max_ratio: u64,
    /// The bytes all files may hold together whatever the ratio (default
    /// 64 MiB), within `max_bytes`.
    pub ratio_allowance: u64,
}

impl Default for UnpackLimits {
    fn default() -> Self {
        UnpackLimits {
            max_bytes: 4 << 30,
            max_entries: 100_000,
            max_ratio: 32,
            ratio_allowance: 64 << 20,
        }
    }
}

impl UnpackLimits {
    /// The most bytes all files may hold together once `read` bytes of the
    /// archive have been read: `max_ratio` times them or `ratio_allowance`,
    /// whichever is more, and at most `max_bytes`.
    pub fn bound(&self, read: u64) -> u64 {
        self.by_ratio(read).min(self.max_bytes)
    }

    /// The bound without `max_bytes`.
    fn by_ratio(&self, read: u64) -> u64 {
        self.max_ratio
            .saturating_mul(read)
            .max(self.ratio_allowance)
    }
}

/// A package unpacked: what the writer still needs and what was written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unpacked {
    /// Each file's final permission bits (`0o000` to `0o777`), from the
    /// central directory, in its order: the writer sets them once the
    /// package is verified (UNPACK-5). Folders are 0755.
    pub modes: Vec<(String, u32)>,
    /// The `h1:` of the unpacked package, as Go's `dirhash.HashDir` gives
    /// it over what was written (UNPACK-8): the archive's
    /// [`PackageHashes::h1`].
    pub h1: String,
    /// The archive's hashes: `zh:`, its `h1:` as `HashZip` gives it, its
    /// size (as [`PackageHasher`] gives them).
    pub archive: PackageHashes,
    /// How many files were written.
    pub files: usize,
    /// How many bytes the files hold together.
    pub bytes: u64,
}

/// Unpacks a provider package archive as it downloads, in chunks of any
/// size: see [the module](self) for the writer's part.
///
/// An error is final: the call that meets it and every later one return it
/// (an [`UnpackError::Output`] again with the same kind and message).
pub struct Unpacker {
    hasher: PackageHasher,
    state: State,
    failed: Option<UnpackError>,
}

impl Default for Unpacker {
    fn default() -> Self {
        Unpacker::new()
    }
}

impl fmt::Debug for Unpacker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Unpacker")
            .field("read", &self.hasher.bytes_read())
            .field("limits", &self.state.limits)
            .field("files", &self.state.files)
            .field("bytes", &self.state.bytes)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl Unpacker {
    /// An unpacker with the default [`UnpackLimits`].
    pub fn new() -> Unpacker {
        Unpacker::with_limits(UnpackLimits::default())
    }

    /// An unpacker with these limits.
    pub fn with_limits(limits: UnpackLimits) -> Unpacker {
        Unpacker {
            hasher: PackageHasher::new(),
            state: State {
                limits,
                tree: Tree::new(),
                entries: Vec::new(),
                current: None,
                files: 0,
                bytes: 0,
                read: 0,
                modes: Vec::new(),
                links_as_files: false,
            },
            failed: None,
        }
    }

    /// An unpacker of a module package, as go-getter unpacks a zip for
    /// `terraform get`: a symbolic link is written as a regular file
    /// holding the link's target, with the link's mode (`0777`), where a
    /// provider package with a link is refused (UNPACK-3; MOD-7).
    pub fn module_package() -> Unpacker {
        let mut unpacker = Unpacker::new();
        unpacker.state.links_as_files = true;
        unpacker
    }

    /// Reads the next bytes of the archive and gives `out` the operations
    /// they make, in order. An error `out` returns stops the unpacking:
    /// [`UnpackError::Output`].
    pub fn update(
        &mut self,
        chunk: &[u8],
        mut out: impl FnMut(UnpackOp<'_>) -> io::Result<()>,
    ) -> Result<(), UnpackError> {
        if let Some(failed) = &self.failed {
            return Err(failed.repeat());
        }
        // What the files may hold is bounded by the archive read so far,
        // this chunk included (UNPACK-10).
        self.state.read = self.hasher.bytes_read() + chunk.len() as u64;
        let mut sink = Sink {
            state: &mut self.state,
            out: &mut out,
        };
        self.hasher
            .update_with(chunk, &mut sink)
            .inspect_err(|e| self.failed = Some(e.repeat()))
    }

    /// How many bytes of the archive have been read.
    pub fn bytes_read(&self) -> u64 {
        self.hasher.bytes_read()
    }

    /// The package unpacked, once the whole archive has been read. Every
    /// operation was given by [`update`](Unpacker::update) (the archive's
    /// last bytes are its end record's): nothing is left to write here. An
    /// archive cut short is an [`UnpackError::Archive`] (`truncated`).
    pub fn finish(self) -> Result<Unpacked, UnpackError> {
        if let Some(failed) = self.failed {
            return Err(failed);
        }
        let archive = self.hasher.finish()?;
        let State {
            files,
            bytes,
            modes,
            ..
        } = self.state;
        // The files written are the archive's files, under the same names,
        // with the same bytes: the `h1:` of the one is the other's.
        debug_assert_eq!(files, archive.files());
        debug_assert_eq!(files, modes.len());
        Ok(Unpacked {
            modes,
            h1: archive.h1(),
            archive,
            files,
            bytes,
        })
    }
}

/// What an entry became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Became {
    /// A file: `File` was given.
    File,
    /// A folder entry: its `Folder` was given, or its path was one already.
    Folder,
    /// No `/` ends its name and no content yet: a file or, by the mode the
    /// central directory gives it, a folder (UNPACK-7). Its folders (in
    /// node `parent`) were given.
    Undecided { parent: usize },
}

/// The entry being read.
#[derive(Debug)]
struct Current {
    index: usize,
    name: Box<str>,
}

impl Current {
    /// The entry's path: its name without a folder's trailing `/`.
    fn path(&self) -> &str {
        self.name.strip_suffix('/').unwrap_or(&self.name)
    }
}

#[derive(Debug)]
struct State {
    limits: UnpackLimits,
    tree: Tree,
    /// What each entry read became, by its index in the archive.
    entries: Vec<Became>,
    current: Option<Current>,
    files: usize,
    bytes: u64,
    /// The bytes of the archive read, the chunk being read included.
    read: u64,
    modes: Vec<(String, u32)>,
    /// A symbolic link is a file holding its target (a module package's
    /// rule), not a refusal.
    links_as_files: bool,
}

/// The state and the writer, for the zip reader's [`Observer`] calls.
struct Sink<'s, F> {
    state: &'s mut State,
    out: &'s mut F,
}

impl<F> Sink<'_, F>
where
    F: FnMut(UnpackOp<'_>) -> io::Result<()>,
{
    fn emit(&mut self, op: UnpackOp<'_>) -> Result<(), UnpackError> {
        (self.out)(op).map_err(UnpackError::Output)
    }

    /// Adds the file `path` (entry `name`, in folder node `parent`) and
    /// gives its `File`.
    fn add_file(&mut self, name: &str, path: &str, parent: usize) -> Result<(), UnpackError> {
        self.state.tree.add(name, path, parent, Leaf::File)?;
        self.emit(UnpackOp::File(path))
    }

    /// Adds the folder entry `path` (entry `name`, in folder node `parent`)
    /// and gives its `Folder` if it is a new folder.
    fn add_folder(&mut self, name: &str, path: &str, parent: usize) -> Result<(), UnpackError> {
        if self.state.tree.add(name, path, parent, Leaf::Folder)? {
            self.emit(UnpackOp::Folder(path))?;
        }
        Ok(())
    }
}

impl<F> Observer for Sink<'_, F>
where
    F: FnMut(UnpackOp<'_>) -> io::Result<()>,
{
    type Error = UnpackError;

    fn start(&mut self, index: usize, name: &[u8]) -> Result<(), UnpackError> {
        let limit = self.state.limits.max_entries;
        if index >= limit {
            return Err(UnpackError::TooManyEntries {
                entry: String::from_utf8_lossy(name).into_owned(),
                limit,
            });
        }
        let name = names::check(name)?;
        let current = Current {
            index,
            name: name.into(),
        };
        let path = current.path();
        let out = &mut *self.out;
        let parent = self.state.tree.folder_of(name, path, |folder| {
            out(UnpackOp::Folder(folder)).map_err(UnpackError::Output)
        })?;
        let became = if name.ends_with('/') {
            self.add_folder(name, path, parent)?;
            Became::Folder
        } else {
            Became::Undecided { parent }
        };
        debug_assert_eq!(self.state.entries.len(), index);
        self.state.entries.push(became);
        self.state.current = Some(current);
        Ok(())
    }

    fn content(&mut self, bytes: &[u8]) -> Result<(), UnpackError> {
        let Some(current) = self.state.current.take() else {
            // The reader starts every entry before its content.
            return Ok(());
        };
        let result = self.current_content(&current, bytes);
        self.state.current = Some(current);
        result
    }

    fn end(&mut self) -> Result<(), UnpackError> {
        let Some(current) = self.state.current.take() else {
            return Ok(());
        };
        if self.state.entries[current.index] == Became::File {
            self.state.files += 1;
            self.emit(UnpackOp::FileEnd)?;
        }
        Ok(())
    }

    fn listed(&mut self, index: usize, entry: Listed<'_>) -> Result<(), UnpackError> {
        let Some(&became) = self.state.entries.get(index) else {
            // The reader lists only entries it read.
            return Ok(());
        };
        let lossy = || String::from_utf8_lossy(entry.name).into_owned();
        let name =
            std::str::from_utf8(entry.name).map_err(|_| UnpackError::NotUtf8 { entry: lossy() })?;
        if mode::is_symlink(entry.made_by, entry.external) && !self.state.links_as_files {
            return Err(UnpackError::Symlink { entry: lossy() });
        }
        let file = match became {
            // Its name ends in `/`: a folder whatever its mode.
            Became::Folder => false,
            Became::File if entry.folder => {
                return Err(UnpackError::FolderWithContent { entry: lossy() });
            }
            Became::File => true,
            Became::Undecided { parent } if entry.folder => {
                self.add_folder(name, name, parent)?;
                self.state.entries[index] = Became::Folder;
                false
            }
            Became::Undecided { parent } => {
                self.add_file(name, name, parent)?;
                self.state.entries[index] = Became::File;
                self.state.files += 1;
                self.emit(UnpackOp::FileEnd)?;
                true
            }
        };
        if file {
            let mode = mode::permissions(entry.made_by, entry.external);
            self.state.modes.push((name.to_owned(), mode));
        }
        Ok(())
    }
}

impl<F> Sink<'_, F>
where
    F: FnMut(UnpackOp<'_>) -> io::Result<()>,
{
    /// Content of the entry being read: a file's bytes, after its `File`
    /// the first time.
    fn current_content(&mut self, current: &Current, bytes: &[u8]) -> Result<(), UnpackError> {
        let lossy = || current.name.to_string();
        match self.state.entries[current.index] {
            Became::Folder => return Err(UnpackError::FolderWithContent { entry: lossy() }),
            Became::Undecided { parent } => {
                self.add_file(&current.name, current.path(), parent)?;
                self.state.entries[current.index] = Became::File;
            }
            Became::File => {}
        }
        // Refused before anything past the bound is given (UNPACK-9,
        // UNPACK-10): the bound only grows as the archive is read, so what
        // was written is within it.
        let limits = self.state.limits;
        let read = self.state.read;
        let bound = limits.bound(read);
        if bytes.len() as u64 > bound.saturating_sub(self.state.bytes) {
            return Err(if limits.by_ratio(read) < limits.max_bytes {
                UnpackError::TooExpanded {
                    entry: lossy(),
                    read,
                    ratio: limits.max_ratio,
                    allowance: limits.ratio_allowance,
                    limit: limits.max_bytes,
                }
            } else {
                UnpackError::TooLarge {
                    entry: lossy(),
                    limit: limits.max_bytes,
                }
            });
        }
        self.state.bytes += bytes.len() as u64;
        self.emit(UnpackOp::Data(bytes))
    }
}
