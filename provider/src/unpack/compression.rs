//! The compression around a module package's tar archive, decoded as the
//! archive arrives (docs/behaviour.md, TAR-1): gzip with the core's
//! [`Gunzip`], bzip2 with libbzip2's Rust port, xz with liblzma. Streams
//! one after another are one archive, as Go's readers take them.

mod bzip2;
mod xz;

use tfdisco_core::{Gunzip, GzipError};

use super::{ArchiveFormat, UnpackError};

/// A decoder of one of the compressions a module package's tar archive
/// comes in.
pub(super) enum Decompressor {
    Gzip(Gunzip),
    Bzip2(bzip2::Bunzip2),
    Xz(xz::Unxz),
}

impl Decompressor {
    /// The decoder of a tar archive's `format`; `None` for a format that
    /// is no compressed tar archive.
    pub(super) fn of(format: ArchiveFormat) -> Option<Decompressor> {
        match format {
            ArchiveFormat::TarGz => Some(Decompressor::Gzip(Gunzip::new())),
            ArchiveFormat::TarBz2 => Some(Decompressor::Bzip2(bzip2::Bunzip2::new())),
            ArchiveFormat::TarXz => Some(Decompressor::Xz(xz::Unxz::new())),
            _ => None,
        }
    }

    /// Decodes the next bytes, handing what they decode to to `out`, in
    /// order; an error `out` returns is returned as it is.
    pub(super) fn write(
        &mut self,
        input: &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), UnpackError>,
    ) -> Result<(), UnpackError> {
        match self {
            Decompressor::Gzip(gunzip) => gunzip.write(input, out).map_err(|e| match e {
                GzipError::Corrupt(reason) => UnpackError::Gzip(reason),
                GzipError::Refused(e) => e,
            }),
            Decompressor::Bzip2(bunzip2) => bunzip2.write(input, out),
            Decompressor::Xz(unxz) => unxz.write(input, out),
        }
    }

    /// The end of the compressed bytes: they must end after a whole
    /// stream (no bytes at all is an error too).
    pub(super) fn finish(&mut self) -> Result<(), UnpackError> {
        match self {
            Decompressor::Gzip(gunzip) => gunzip.finish::<()>().map_err(|e| match e {
                GzipError::Corrupt(reason) => UnpackError::Gzip(reason),
                GzipError::Refused(()) => UnpackError::Gzip("refused"),
            }),
            Decompressor::Bzip2(bunzip2) => bunzip2.finish(),
            Decompressor::Xz(unxz) => unxz.finish(),
        }
    }
}

/// How many decoded bytes are handed on at a time.
const OUT: usize = 32 * 1024;
