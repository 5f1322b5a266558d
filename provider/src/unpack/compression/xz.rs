//! xz, as `github.com/ulikunitz/xz` reads it for go-getter's
//! `TarXzDecompressor`: streams one after another (and the stream padding
//! between them) are one, each block's check verified. liblzma decodes,
//! within [`XZ_MEMORY_LIMIT`].

use liblzma::stream::{Action, CONCATENATED, Error, Status, Stream};

use super::OUT;
use crate::UnpackError;

/// The most memory the xz decoder may use: a stream whose dictionary
/// needs more is refused, in words that name it (`xz -9` needs 65 MiB;
/// Go sets no limit).
pub(crate) const XZ_MEMORY_LIMIT: u64 = 128 << 20;

/// An xz decoder fed in chunks of any size.
pub(crate) struct Unxz {
    /// `None` when liblzma could not make a decoder.
    stream: Option<Stream>,
    ended: bool,
    out: Box<[u8; OUT]>,
}

impl Unxz {
    pub(crate) fn new() -> Unxz {
        Unxz {
            stream: Stream::new_stream_decoder(XZ_MEMORY_LIMIT, CONCATENATED).ok(),
            ended: false,
            out: Box::new([0; OUT]),
        }
    }

    pub(crate) fn write(
        &mut self,
        mut input: &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), UnpackError>,
    ) -> Result<(), UnpackError> {
        let Some(stream) = &mut self.stream else {
            return Err(UnpackError::Xz("liblzma could not make a decoder"));
        };
        loop {
            let (read, written) = (stream.total_in(), stream.total_out());
            let status = stream
                .process(input, &mut self.out[..], Action::Run)
                .map_err(refused)?;
            let used = usize::try_from(stream.total_in() - read).unwrap_or(input.len());
            let made = usize::try_from(stream.total_out() - written).unwrap_or(0);
            input = &input[used.min(input.len())..];
            if made > 0 {
                out(&self.out[..made])?;
            }
            if status == Status::StreamEnd {
                self.ended = true;
                return if input.is_empty() {
                    Ok(())
                } else {
                    Err(UnpackError::Xz("bytes after the end of the xz stream"))
                };
            }
            // Done when the input is read and the output no longer fills
            // the buffer (nothing held back).
            if input.is_empty() && made < OUT {
                return Ok(());
            }
            if used == 0 && made == 0 {
                // Cannot happen with a whole output buffer free; never
                // loop on it, nor drop the input.
                return Err(UnpackError::Xz("the xz decoder made no progress"));
            }
        }
    }

    pub(crate) fn finish(&mut self) -> Result<(), UnpackError> {
        let Some(stream) = &mut self.stream else {
            return Err(UnpackError::Xz("liblzma could not make a decoder"));
        };
        if self.ended {
            return Ok(());
        }
        if stream.total_in() == 0 {
            return Err(UnpackError::Xz("the body is empty"));
        }
        let written = stream.total_out();
        let status = stream
            .process(&[], &mut self.out[..], Action::Finish)
            .map_err(refused)?;
        if status == Status::StreamEnd && stream.total_out() == written {
            self.ended = true;
            Ok(())
        } else {
            Err(UnpackError::Xz("the xz stream ends early"))
        }
    }
}

fn refused(e: Error) -> UnpackError {
    UnpackError::Xz(match e {
        Error::Format => "not an xz stream (no xz magic)",
        Error::Data => "the xz data is damaged (a bad block, index or checksum)",
        Error::Options => "the xz stream uses options liblzma does not support",
        Error::MemLimit => "the xz stream needs more than 128 MiB of memory to decode",
        Error::Mem => "no memory to decode the xz stream",
        Error::Program | Error::NoCheck | Error::UnsupportedCheck => {
            "the xz decoder refused the stream"
        }
    })
}
