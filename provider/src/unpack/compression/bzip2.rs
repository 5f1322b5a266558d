//! bzip2, as Go's `compress/bzip2` reads it for go-getter's
//! `TarBzip2Decompressor`: streams one after another are one (a stream
//! that follows must start with `BZh`), each block's and each stream's
//! CRC checked.

use ::bzip2::{Decompress, Error, Status};

use super::OUT;
use crate::UnpackError;

/// A bzip2 decoder fed in chunks of any size.
pub(crate) struct Bunzip2 {
    stream: Decompress,
    /// Whether the current stream has ended (nothing of a next one read).
    between: bool,
    /// How many streams have ended.
    streams: u64,
    out: Box<[u8; OUT]>,
}

impl Bunzip2 {
    pub(crate) fn new() -> Bunzip2 {
        Bunzip2 {
            stream: Decompress::new(false),
            between: true,
            streams: 0,
            out: Box::new([0; OUT]),
        }
    }

    pub(crate) fn write(
        &mut self,
        mut input: &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), UnpackError>,
    ) -> Result<(), UnpackError> {
        while !input.is_empty() {
            if self.between && self.streams > 0 {
                // Another stream follows: a new decoder checks its magic.
                self.stream = Decompress::new(false);
            }
            self.between = false;
            let (read, written) = (self.stream.total_in(), self.stream.total_out());
            let status = self
                .stream
                .decompress(input, &mut self.out[..])
                .map_err(|e| {
                    UnpackError::Bzip2(match e {
                        Error::DataMagic if self.streams > 0 => {
                            "bad magic value in continuation file"
                        }
                        Error::DataMagic => "not a bzip2 stream (no BZh magic)",
                        Error::Data => "the bzip2 data is damaged (a bad block or checksum)",
                        Error::Sequence | Error::Param => "the bzip2 decoder refused the stream",
                    })
                })?;
            let used = usize::try_from(self.stream.total_in() - read).unwrap_or(input.len());
            let made = usize::try_from(self.stream.total_out() - written).unwrap_or(0);
            input = &input[used.min(input.len())..];
            if made > 0 {
                out(&self.out[..made])?;
            }
            if status == Status::StreamEnd {
                self.between = true;
                self.streams += 1;
            } else if used == 0 && made == 0 {
                // No progress with input left: cannot happen with a whole
                // output buffer free, but never loop on it.
                return Err(UnpackError::Bzip2("the bzip2 decoder made no progress"));
            }
        }
        // What the last input decoded to may still be held back.
        while !self.between {
            let written = self.stream.total_out();
            let status = self
                .stream
                .decompress(&[], &mut self.out[..])
                .map_err(|_| UnpackError::Bzip2("the bzip2 data is damaged"))?;
            let made = usize::try_from(self.stream.total_out() - written).unwrap_or(0);
            if made > 0 {
                out(&self.out[..made])?;
            }
            if status == Status::StreamEnd {
                self.between = true;
                self.streams += 1;
            } else if made < OUT {
                break;
            }
        }
        Ok(())
    }

    pub(crate) fn finish(&mut self) -> Result<(), UnpackError> {
        match (self.between, self.streams) {
            (true, 0) => Err(UnpackError::Bzip2("the body is empty")),
            (true, _) => Ok(()),
            (false, _) => Err(UnpackError::Bzip2("the bzip2 stream ends early")),
        }
    }
}
