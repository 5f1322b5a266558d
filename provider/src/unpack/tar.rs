//! A module package `.tar.gz`, `.tar.bz2` or `.tar.xz` unpacked as it
//! downloads, without I/O, as Terraform 1.11's go-getter (v1.7.5, `untar`)
//! unpacks it (docs/behaviour.md, TAR-1 to TAR-9).
//!
//! [`TarUnpacker`] decodes the compressed stream (gzip with the core's
//! `Gunzip`, bzip2, xz; streams one after another are one, as Go's readers
//! take them), reads the tar entries as Go's `archive/tar` does (USTAR, GNU and
//! PAX headers: GNU long names `L`/`K` and PAX `path`/`size` records apply
//! to the next entry; PAX global headers `g` are skipped, as Go returns
//! them and go-getter skips them), and gives the same [`UnpackOp`]s as the
//! zip [`Unpacker`](super::Unpacker), to the same writer (see [the unpack
//! module](super)): relative normalized paths, a file's folders before it,
//! each folder and file created exclusively.
//!
//! What each entry becomes, as go-getter makes it:
//!
//! - a folder (type `5`, or a name ending in `/` with the old type `\0`,
//!   or the mode's `S_IFDIR` bits): its `Folder` (0755); its recorded mode
//!   ([`TarUnpacked::folder_modes`]) is set at the end, in the archive's
//!   order, as go-getter's last pass over the folder headers does. Folders
//!   only implied by a file's path stay 0755. A `./` entry is the
//!   package's folder itself: its mode is recorded under the path `""`.
//! - anything else (regular files, symbolic and hard links, devices,
//!   FIFOs, unknown types): a regular file holding the entry's content
//!   (none for links, devices and FIFOs, whose size Go ignores), with the
//!   header's mode bits `0o7777` (setuid, setgid and sticky included: Go's
//!   `os.Chmod` sets them from the `FileMode` `archive/tar` gives) in
//!   [`TarUnpacked::modes`]. A symbolic link is thus an empty file of mode
//!   0777.
//!
//! Names: one with a `..` element (between `/` or `\`) is refused
//! ([`UnpackError::EntryContainsDotDot`], go-getter's message); an absolute
//! one lands inside the package's folder, as go-getter's
//! `filepath.Join(dst, name)` puts it (`/etc/x` is `etc/x`); empty and `.`
//! elements go (`./a` is `a`). Names that are not UTF-8, or hold a `\` or a
//! newline, are refused (Terraform on Unix would write them as they are).
//! Two entries of one file's path are refused
//! ([`UnpackError::DuplicateName`]): go-getter keeps the later one, but the
//! writer creates each file exclusively. A folder entry twice is fine.
//!
//! ```
//! use tfdisco_provider::TarUnpacker;
//! # fn tar_gz() -> Vec<u8> {
//! #     let mut block = [0u8; 512];
//! #     block[..4].copy_from_slice(b"main");
//! #     block[100..108].copy_from_slice(b"0000644\0");
//! #     block[124..136].copy_from_slice(b"00000000003\0");
//! #     block[156] = b'0';
//! #     block[148..156].copy_from_slice(b"        ");
//! #     let sum: u32 = block.iter().map(|&b| u32::from(b)).sum();
//! #     block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
//! #     let mut tar = block.to_vec();
//! #     let mut data = [0u8; 512];
//! #     data[..3].copy_from_slice(b"hi\n");
//! #     tar.extend_from_slice(&data);
//! #     tar.extend_from_slice(&[0; 1024]);
//! #     let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
//! #     std::io::Write::write_all(&mut gz, &tar).unwrap();
//! #     gz.finish().unwrap()
//! # }
//! let archive = tar_gz(); // one file, `main`, mode 0644
//! let mut unpacker = TarUnpacker::new();
//! let mut written = Vec::new();
//! for chunk in archive.chunks(100) {
//!     unpacker.update(chunk, |op| {
//!         written.push(format!("{op:?}"));
//!         Ok(())
//!     })?;
//! }
//! let unpacked = unpacker.finish()?;
//! assert_eq!(written, [r#"File("main")"#, "Data([104, 105, 10])", "FileEnd"]);
//! assert_eq!(unpacked.modes, [("main".to_owned(), 0o644)]);
//! assert_eq!((unpacked.files, unpacked.bytes), (1, 3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod header;

use std::fmt;
use std::io;

use sha2::{Digest, Sha256};

use super::compression::Decompressor;
use super::tree::{Leaf, Tree};
use super::{ArchiveFormat, UnpackError, UnpackLimits, UnpackOp, UnsupportedArchive};
use crate::hash1_of_files;
use crate::package_hash::check_name;
use header::{BLOCK, Header, MAX_SPECIAL, Pax};

/// A compressed tar archive unpacked: what the writer still needs and what was written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TarUnpacked {
    /// Each file's mode (`0o0000` to `0o7777`: the header's, setuid,
    /// setgid and sticky bits included), in the archive's order: the
    /// writer sets them at the end (TAR-4).
    pub modes: Vec<(String, u32)>,
    /// Each folder entry's mode (`0o0000` to `0o7777`), in the archive's
    /// order, set after the files' (a folder twice: both, the later last):
    /// go-getter's last pass (TAR-5). `""` is the package's folder itself
    /// (a `./` entry). Folders only implied by a path stay 0755.
    pub folder_modes: Vec<(String, u32)>,
    /// The `h1:` of the files written, as Go's `dirhash.HashDir` gives it
    /// over the unpacked folder.
    pub h1: String,
    /// The SHA-256 of the archive's bytes (the `.tar.gz` as downloaded).
    pub sha256: [u8; 32],
    /// The archive's size in bytes.
    pub size: u64,
    /// How many files were written.
    pub files: usize,
    /// How many bytes the files hold together.
    pub bytes: u64,
}

/// Unpacks a `.tar.gz` (or `.tar.bz2`, `.tar.xz`:
/// [`with_format`](TarUnpacker::with_format)) as it downloads, in chunks of
/// any size: see [the module](self).
///
/// An error is final: the call that meets it and every later one return it
/// (an [`UnpackError::Output`] again with the same kind and message).
pub struct TarUnpacker {
    decompressor: Decompressor,
    sha256: Sha256,
    size: u64,
    reader: Reader,
    failed: Option<UnpackError>,
}

impl Default for TarUnpacker {
    fn default() -> Self {
        TarUnpacker::new()
    }
}

impl fmt::Debug for TarUnpacker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TarUnpacker")
            .field("read", &self.size)
            .field("limits", &self.reader.limits)
            .field("files", &self.reader.files)
            .field("bytes", &self.reader.bytes)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl TarUnpacker {
    /// An unpacker with the default [`UnpackLimits`].
    pub fn new() -> TarUnpacker {
        TarUnpacker::with_limits(UnpackLimits::default())
    }

    /// A `.tar.gz` unpacker with these limits: the entries (folders
    /// included, PAX and GNU meta headers not), the bytes in all and to a
    /// multiple of the archive read so far, as for a zip (UNPACK-9,
    /// UNPACK-10).
    pub fn with_limits(limits: UnpackLimits) -> TarUnpacker {
        TarUnpacker::unpacking(Decompressor::of(ArchiveFormat::TarGz), limits)
            .expect("tar.gz is a compressed tar archive")
    }

    /// An unpacker of a tar archive compressed as `format` says
    /// ([`TarGz`](ArchiveFormat::TarGz), [`TarBz2`](ArchiveFormat::TarBz2),
    /// [`TarXz`](ArchiveFormat::TarXz)), with these limits; any other
    /// format is no compressed tar archive: `UnsupportedArchive`.
    pub fn with_format(
        format: ArchiveFormat,
        limits: UnpackLimits,
    ) -> Result<TarUnpacker, UnsupportedArchive> {
        TarUnpacker::unpacking(Decompressor::of(format), limits)
            .ok_or(UnsupportedArchive { format })
    }

    fn unpacking(decompressor: Option<Decompressor>, limits: UnpackLimits) -> Option<TarUnpacker> {
        Some(TarUnpacker {
            decompressor: decompressor?,
            sha256: Sha256::new(),
            size: 0,
            reader: Reader {
                limits,
                tree: Tree::new(),
                phase: Phase::Header,
                block: Box::new([0; BLOCK]),
                have: 0,
                pax: None,
                long_name: None,
                entries: 0,
                files: 0,
                bytes: 0,
                read: 0,
                modes: Vec::new(),
                folder_modes: Vec::new(),
                ignored: 0,
                hashes: Vec::new(),
            },
            failed: None,
        })
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
        self.sha256.update(chunk);
        self.size += chunk.len() as u64;
        self.reader.read = self.size;
        let reader = &mut self.reader;
        self.decompressor
            .write(chunk, &mut |bytes: &[u8]| reader.feed(bytes, &mut out))
            .inspect_err(|e| self.failed = Some(e.repeat()))
    }

    /// How many bytes of the archive have been read.
    pub fn bytes_read(&self) -> u64 {
        self.size
    }

    /// The package unpacked, once the whole archive has been read: a
    /// compressed stream or a tar entry cut short is an error, and so is an
    /// archive with no file (TAR-8).
    pub fn finish(mut self) -> Result<TarUnpacked, UnpackError> {
        if let Some(failed) = self.failed {
            return Err(failed);
        }
        self.decompressor.finish()?;
        let reader = self.reader;
        let at_boundary =
            reader.have == 0 && matches!(reader.phase, Phase::Header | Phase::Zero | Phase::End);
        if !at_boundary {
            return Err(UnpackError::Tar {
                entry: None,
                reason: "the tar archive ends early".to_owned(),
            });
        }
        if reader.files == 0 {
            return Err(UnpackError::EmptyArchive);
        }
        let h1 = hash1_of_files(&reader.hashes)?;
        Ok(TarUnpacked {
            modes: reader.modes,
            folder_modes: reader.folder_modes,
            h1,
            sha256: self.sha256.finalize().into(),
            size: self.size,
            files: reader.files,
            bytes: reader.bytes,
        })
    }
}

/// What the decoded tar stream is at.
#[derive(Debug)]
enum Phase {
    /// Reading a header block.
    Header,
    /// After one zero block: a second one ends the archive.
    Zero,
    /// The archive ended: what follows is ignored, as Go reads no further.
    End,
    /// A file's content, `left` bytes to go, then `pad` bytes of padding.
    File {
        left: u64,
        pad: u64,
        sha256: Sha256,
        path: Box<str>,
    },
    /// Bytes skipped: a folder's content, padding.
    Skip(u64),
    /// A meta entry's content, read whole.
    Meta {
        kind: Meta,
        left: u64,
        pad: u64,
        data: Vec<u8>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Meta {
    /// `x`: PAX records for the next entry.
    Pax,
    /// `g`: PAX global records, checked and ignored (as Go does).
    Global,
    /// `L`: the next entry's name.
    LongName,
    /// `K`: the next entry's link target (ignored: links are files).
    LongLink,
}

/// The tar reader over the decoded bytes.
#[derive(Debug)]
struct Reader {
    limits: UnpackLimits,
    tree: Tree,
    phase: Phase,
    block: Box<[u8; BLOCK]>,
    have: usize,
    /// The PAX records for the next entry.
    pax: Option<Pax>,
    /// The GNU long name of the next entry.
    long_name: Option<Vec<u8>>,
    entries: usize,
    files: usize,
    bytes: u64,
    /// The bytes of the archive read, the chunk being read included.
    read: u64,
    modes: Vec<(String, u32)>,
    folder_modes: Vec<(String, u32)>,
    /// The decoded bytes skipped or after the end.
    ignored: u64,
    /// Each file's path and content's SHA-256, for the `h1:`.
    hashes: Vec<(String, [u8; 32])>,
}

/// The padding after `size` bytes of content, to a whole block.
fn padding(size: u64) -> u64 {
    (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64
}

fn invalid(entry: Option<&[u8]>, reason: &str) -> UnpackError {
    UnpackError::Tar {
        entry: entry.map(|e| String::from_utf8_lossy(e).into_owned()),
        reason: reason.to_owned(),
    }
}

impl Reader {
    fn feed(
        &mut self,
        mut input: &[u8],
        out: &mut impl FnMut(UnpackOp<'_>) -> io::Result<()>,
    ) -> Result<(), UnpackError> {
        while !input.is_empty() {
            match &mut self.phase {
                // Read only to bound them: Go reads no further, and a gzip
                // bomb past the end must not run on unbounded.
                Phase::End => return self.ignore(input.len() as u64),
                Phase::Header | Phase::Zero => {
                    let take = (BLOCK - self.have).min(input.len());
                    self.block[self.have..self.have + take].copy_from_slice(&input[..take]);
                    self.have += take;
                    input = &input[take..];
                    if self.have == BLOCK {
                        self.have = 0;
                        self.header(out)?;
                    }
                }
                Phase::Skip(left) => {
                    let take = (*left).min(input.len() as u64);
                    *left -= take;
                    input = &input[take as usize..];
                    if *left == 0 {
                        self.phase = Phase::Header;
                    }
                    self.ignore(take)?;
                }
                Phase::Meta {
                    left, pad, data, ..
                } => {
                    let take = (*left).min(input.len() as u64) as usize;
                    data.extend_from_slice(&input[..take]);
                    *left -= take as u64;
                    input = &input[take..];
                    if *left == 0 {
                        let pad = *pad;
                        self.meta_end()?;
                        self.phase = if pad == 0 {
                            Phase::Header
                        } else {
                            Phase::Skip(pad)
                        };
                    }
                }
                Phase::File {
                    left,
                    pad,
                    sha256,
                    path,
                } => {
                    let take = (*left).min(input.len() as u64) as usize;
                    let bytes = &input[..take];
                    let limits = self.limits;
                    let bound = limits.bound(self.read);
                    if take as u64 > bound.saturating_sub(self.bytes) {
                        let entry = path.to_string();
                        return Err(if limits.by_ratio(self.read) < limits.max_bytes {
                            UnpackError::TooExpanded {
                                entry,
                                read: self.read,
                                ratio: limits.max_ratio,
                                allowance: limits.ratio_allowance,
                                limit: limits.max_bytes,
                            }
                        } else {
                            UnpackError::TooLarge {
                                entry,
                                limit: limits.max_bytes,
                            }
                        });
                    }
                    sha256.update(bytes);
                    self.bytes += take as u64;
                    *left -= take as u64;
                    input = &input[take..];
                    out(UnpackOp::Data(bytes)).map_err(UnpackError::Output)?;
                    if *left == 0 {
                        let pad = *pad;
                        self.file_end(out)?;
                        self.phase = if pad == 0 {
                            Phase::Header
                        } else {
                            Phase::Skip(pad)
                        };
                    }
                }
            }
        }
        Ok(())
    }

    /// Decoded bytes that are written nowhere (a folder's content, padding,
    /// what follows the end): bounded as the files' bytes are (TAR-9), so
    /// that decoding them cannot run on past what the archive may expand
    /// to.
    fn ignore(&mut self, bytes: u64) -> Result<(), UnpackError> {
        self.ignored += bytes;
        let bound = self.limits.bound(self.read);
        if self.ignored > bound {
            return Err(invalid(
                None,
                &format!(
                    "more than {bound} bytes that are no file's content (the most the {} bytes \
                     read so far may expand to)",
                    self.read
                ),
            ));
        }
        Ok(())
    }

    /// The header block read whole.
    fn header(
        &mut self,
        out: &mut impl FnMut(UnpackOp<'_>) -> io::Result<()>,
    ) -> Result<(), UnpackError> {
        if header::is_zero(&self.block) {
            self.phase = match self.phase {
                Phase::Zero => Phase::End,
                _ => Phase::Zero,
            };
            return Ok(());
        }
        if matches!(self.phase, Phase::Zero) {
            return Err(invalid(None, "a header follows a zero block"));
        }
        let header = header::parse(&self.block).map_err(|reason| invalid(None, reason))?;
        let meta = match header.typeflag {
            b'x' => Some(Meta::Pax),
            b'g' => Some(Meta::Global),
            b'L' => Some(Meta::LongName),
            b'K' => Some(Meta::LongLink),
            _ => None,
        };
        if let Some(kind) = meta {
            let size = u64::try_from(header.size)
                .map_err(|_| invalid(Some(&header.name), "negative size"))?;
            if size > MAX_SPECIAL {
                return Err(invalid(
                    Some(&header.name),
                    "an extended header or long name of more than 1 MiB",
                ));
            }
            self.phase = Phase::Meta {
                kind,
                left: size,
                pad: padding(size),
                data: Vec::new(),
            };
            if size == 0 {
                self.meta_end()?;
                self.phase = Phase::Header;
            }
            return Ok(());
        }
        self.entry(header, out)
    }

    /// A meta entry's content read whole.
    fn meta_end(&mut self) -> Result<(), UnpackError> {
        let Phase::Meta { kind, data, .. } = &mut self.phase else {
            return Ok(());
        };
        let data = std::mem::take(data);
        match kind {
            Meta::Pax => {
                self.pax = Some(header::parse_pax(&data).map_err(|r| invalid(None, r))?);
            }
            Meta::Global => {
                header::parse_pax(&data).map_err(|r| invalid(None, r))?;
            }
            Meta::LongName => self.long_name = Some(header::string(&data).to_vec()),
            Meta::LongLink => {}
        }
        Ok(())
    }

    /// A real entry's header: a folder or a file (TAR-2 to TAR-7).
    fn entry(
        &mut self,
        mut header: Header,
        out: &mut impl FnMut(UnpackOp<'_>) -> io::Result<()>,
    ) -> Result<(), UnpackError> {
        let pax = self.pax.take().unwrap_or_default();
        if let Some(path) = pax.path {
            header.name = path;
        }
        if let Some(size) = pax.size {
            header.size = size;
        }
        if let Some(name) = self.long_name.take() {
            header.name = name;
        }
        let name = header.name;
        let mut typeflag = header.typeflag;
        if typeflag == 0 {
            typeflag = if name.ends_with(b"/") { b'5' } else { b'0' };
        }
        if typeflag == b'S' || pax.sparse {
            return Err(invalid(Some(&name), "sparse files are not unpacked"));
        }
        // Go ignores the size of the types that have no content.
        let header_only = matches!(typeflag, b'1' | b'2' | b'3' | b'4' | b'5' | b'6');
        let size = if header_only {
            0
        } else {
            u64::try_from(header.size).map_err(|_| invalid(Some(&name), "negative size"))?
        };
        // Go's `FileInfo().Mode()`: the bits above the permissions are
        // `S_IFDIR` exactly, or the type is a folder's.
        let folder = typeflag == b'5' || header.mode & !0o7777 == 0o040000;
        let mode = (header.mode & 0o7777) as u32;

        if self.entries >= self.limits.max_entries {
            return Err(UnpackError::TooManyEntries {
                entry: String::from_utf8_lossy(&name).into_owned(),
                limit: self.limits.max_entries,
            });
        }
        self.entries += 1;
        let path = normalize(&name)?;
        let entry = std::str::from_utf8(&name).unwrap_or_default();
        if path.is_empty() {
            if !folder {
                return Err(invalid(Some(&name), "a file naming the package's folder"));
            }
            self.folder_modes.push((String::new(), mode));
            self.phase = skip(size);
            return Ok(());
        }
        let parent = self.tree.folder_of(entry, &path, |f| {
            out(UnpackOp::Folder(f)).map_err(UnpackError::Output)
        })?;
        if folder {
            match self.tree.add(entry, &path, parent, Leaf::Folder) {
                Ok(true) => out(UnpackOp::Folder(&path)).map_err(UnpackError::Output)?,
                // Already a folder: `MkdirAll` does nothing.
                Ok(false) | Err(UnpackError::DuplicateName { .. }) => {}
                Err(e) => return Err(e),
            }
            self.folder_modes.push((path, mode));
            self.phase = skip(size);
            return Ok(());
        }
        self.tree.add(entry, &path, parent, Leaf::File)?;
        out(UnpackOp::File(&path)).map_err(UnpackError::Output)?;
        self.modes.push((path.clone(), mode));
        self.phase = Phase::File {
            left: size,
            pad: padding(size),
            sha256: Sha256::new(),
            path: path.into(),
        };
        if size == 0 {
            self.file_end(out)?;
            self.phase = Phase::Header;
        }
        Ok(())
    }

    /// The file being written is whole.
    fn file_end(
        &mut self,
        out: &mut impl FnMut(UnpackOp<'_>) -> io::Result<()>,
    ) -> Result<(), UnpackError> {
        let Phase::File { sha256, path, .. } = &mut self.phase else {
            return Ok(());
        };
        let sha256 = std::mem::take(sha256).finalize().into();
        self.hashes.push((path.to_string(), sha256));
        self.files += 1;
        out(UnpackOp::FileEnd).map_err(UnpackError::Output)
    }
}

/// The phase after a header whose `size` bytes of content are skipped.
fn skip(size: u64) -> Phase {
    match size + padding(size) {
        0 => Phase::Header,
        n => Phase::Skip(n),
    }
}

/// The entry's name as the path it is unpacked at, relative to the
/// package's folder (TAR-6): a `..` element (between `/` or `\`) refused,
/// as go-getter's `containsDotDot` does; empty and `.` elements dropped, as
/// `filepath.Join(dst, name)` does, which also puts an absolute name
/// inside (`/etc/x` is `etc/x`). `""` is the package's folder itself. Not
/// UTF-8, a `\`, a newline: refused.
fn normalize(name: &[u8]) -> Result<String, UnpackError> {
    let lossy = || String::from_utf8_lossy(name).into_owned();
    if name
        .split(|&b| b == b'/' || b == b'\\')
        .any(|element| element == b"..")
    {
        return Err(UnpackError::EntryContainsDotDot { entry: lossy() });
    }
    let name = std::str::from_utf8(name).map_err(|_| UnpackError::NotUtf8 { entry: lossy() })?;
    let path = name
        .split('/')
        .filter(|e| !e.is_empty() && *e != ".")
        .collect::<Vec<_>>()
        .join("/");
    if !path.is_empty() {
        check_name(path.as_bytes(), false)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_go_getter_joins_them() {
        for (name, path) in [
            ("./", ""),
            (".", ""),
            ("./a", "a"),
            ("/etc/x", "etc/x"),
            ("a//b/./c/", "a/b/c"),
        ] {
            assert_eq!(normalize(name.as_bytes()).expect(name), path);
        }
        for name in ["../x", "a/../b", "a\\..\\b", ".."] {
            assert!(
                matches!(
                    normalize(name.as_bytes()),
                    Err(UnpackError::EntryContainsDotDot { .. })
                ),
                "{name}"
            );
        }
        assert!(normalize(b"a\\b").is_err());
        assert!(normalize(b"a\nb").is_err());
        assert!(matches!(
            normalize(b"\xff"),
            Err(UnpackError::NotUtf8 { .. })
        ));
    }
}
