//! The gzip framing of a `Content-Encoding: gzip` body (RFC 1952), decoded
//! as it streams in (docs/behaviour.md, GZIP-1 to GZIP-3): each member's
//! header, its raw deflate data (miniz_oxide's inflate), and its trailer,
//! whose CRC-32 and length are checked; members may follow one another.
//! Anything else (not gzip, a bad header or checksum, a stream cut short,
//! trailing bytes that are no member) is refused with what was wrong.

use std::fmt;

use miniz_oxide::inflate::stream::{InflateState, inflate};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

/// Decoded bytes are handed on in pieces of at most this size.
const OUT: usize = 32 * 1024;

/// The header flags (RFC 1952, 2.3.1).
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const RESERVED: u8 = 0xe0;

/// Why a gzip stream was refused ([`Corrupt`](GzipError::Corrupt), with
/// what was wrong), or what the receiver of its bytes said
/// ([`Refused`](GzipError::Refused)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GzipError<E> {
    /// The stream is not valid gzip: not gzip at all, a bad header or
    /// checksum, cut short, or trailing bytes that are no member.
    Corrupt(&'static str),
    /// The receiver of the decoded bytes refused them.
    Refused(E),
}

impl<E: fmt::Display> fmt::Display for GzipError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GzipError::Corrupt(problem) => write!(f, "gzip: {problem}"),
            GzipError::Refused(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for GzipError<E> {}

/// A gzip stream (RFC 1952) being decoded as it streams in, without I/O:
/// [`write`](Gunzip::write) each piece as it arrives, then
/// [`finish`](Gunzip::finish) at its end. Members may follow one another
/// and decode as one stream, as Go's `gzip.Reader` reads them (its
/// multistream mode, the default); each member's CRC-32 and length are
/// checked. Memory is fixed (the inflate state and a 32 KiB window of
/// output), whatever the stream's size.
///
/// ```
/// use tfdisco_core::{Gunzip, GzipError};
///
/// // `gzip -n` of "hi\n", twice: two members are one stream.
/// let member = b"\x1f\x8b\x08\0\0\0\0\0\0\x03\xcb\xc8\xe4\x02\0\x7a\x7a\x6f\xed\x03\0\0\0";
/// let stream = [&member[..], &member[..]].concat();
/// let mut gunzip = Gunzip::new();
/// let mut out = Vec::new();
/// for piece in stream.chunks(5) {
///     gunzip.write(piece, &mut |bytes: &[u8]| {
///         out.extend_from_slice(bytes);
///         Ok::<(), ()>(())
///     })?;
/// }
/// gunzip.finish::<()>()?;
/// assert_eq!(out, b"hi\nhi\n");
/// // Cut short: an error, not a shorter stream.
/// let mut gunzip = Gunzip::new();
/// gunzip.write(&member[..10], &mut |_: &[u8]| Ok::<(), ()>(()))?;
/// assert_eq!(gunzip.finish::<()>(), Err(GzipError::Corrupt("the gzip stream ends early")));
/// # Ok::<(), GzipError<()>>(())
/// ```
pub struct Gunzip {
    part: Part,
    /// The header's bytes so far (for its CRC) and flags.
    header: Header,
    inflate: Box<InflateState>,
    /// The member's decoded bytes so far: their CRC-32 and length.
    crc: Crc32,
    size: u32,
    trailer: [u8; 8],
    trailer_len: usize,
    /// Whether a whole member has been read.
    members: usize,
    out: Box<[u8; OUT]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The ten bytes every header starts with.
    Fixed,
    /// The two bytes of `XLEN`.
    ExtraLength,
    /// The extra field, this many bytes left.
    Extra(usize),
    /// The file name, up to its zero byte.
    Name,
    /// The comment, up to its zero byte.
    Comment,
    /// The header's own CRC-16.
    HeaderCrc,
    /// The deflate data.
    Data,
    /// The CRC-32 and length.
    Trailer,
}

struct Header {
    fixed: [u8; 10],
    /// Bytes read of the current fixed-size piece.
    have: usize,
    flags: u8,
    crc: Crc32,
    /// The two bytes of `XLEN` or of the header CRC.
    pair: [u8; 2],
}

impl Header {
    fn new() -> Header {
        Header {
            fixed: [0; 10],
            have: 0,
            flags: 0,
            crc: Crc32::new(),
            pair: [0; 2],
        }
    }
}

/// Adds `byte` to `piece`, a fixed-size part of the header of which `have`
/// bytes are read: true once it is whole (`have` back to 0 for the next).
fn fill(piece: &mut [u8], have: &mut usize, byte: u8) -> bool {
    piece[*have] = byte;
    *have += 1;
    if *have < piece.len() {
        return false;
    }
    *have = 0;
    true
}

impl fmt::Debug for Gunzip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gunzip")
            .field("part", &self.part)
            .field("members", &self.members)
            .finish_non_exhaustive()
    }
}

impl Default for Gunzip {
    fn default() -> Self {
        Gunzip::new()
    }
}

impl Gunzip {
    /// A decoder at the start of a stream.
    pub fn new() -> Gunzip {
        Gunzip {
            part: Part::Fixed,
            header: Header::new(),
            inflate: InflateState::new_boxed(DataFormat::Raw),
            crc: Crc32::new(),
            size: 0,
            trailer: [0; 8],
            trailer_len: 0,
            members: 0,
            out: Box::new([0; OUT]),
        }
    }

    /// Decodes the next bytes of the stream, handing what they decode to
    /// to `out`, in order (pieces of at most 32 KiB, never empty). An
    /// error `out` returns is [`GzipError::Refused`].
    pub fn write<E>(
        &mut self,
        mut input: &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), GzipError<E>> {
        while !input.is_empty() {
            match self.part {
                Part::Data => {
                    if self.inflate_some(&mut input, out)? {
                        self.part = Part::Trailer;
                    }
                }
                Part::Trailer => {
                    let take = (8 - self.trailer_len).min(input.len());
                    self.trailer[self.trailer_len..self.trailer_len + take]
                        .copy_from_slice(&input[..take]);
                    self.trailer_len += take;
                    input = &input[take..];
                    if self.trailer_len == 8 {
                        self.end_member()?;
                    }
                }
                _ => {
                    let byte = input[0];
                    input = &input[1..];
                    self.header_byte(byte)?;
                }
            }
        }
        Ok(())
    }

    /// The end of the stream: it must end after a whole member (an empty
    /// stream is an error too).
    pub fn finish<E>(&self) -> Result<(), GzipError<E>> {
        if self.members > 0 && self.part == Part::Fixed && self.header.have == 0 {
            Ok(())
        } else if self.members == 0 && self.part == Part::Fixed && self.header.have == 0 {
            Err(GzipError::Corrupt("the body is empty"))
        } else {
            Err(GzipError::Corrupt("the gzip stream ends early"))
        }
    }

    fn header_byte<E>(&mut self, byte: u8) -> Result<(), GzipError<E>> {
        let h = &mut self.header;
        if self.part != Part::HeaderCrc {
            h.crc.update(&[byte]);
        }
        self.part = match self.part {
            Part::Fixed => {
                if !fill(&mut h.fixed, &mut h.have, byte) {
                    return Ok(());
                }
                if h.fixed[..3] != [0x1f, 0x8b, 8] {
                    return Err(GzipError::Corrupt("invalid gzip header"));
                }
                h.flags = h.fixed[3];
                if h.flags & RESERVED != 0 {
                    return Err(GzipError::Corrupt("invalid gzip header flags"));
                }
                next_part(Part::Fixed, h.flags)
            }
            Part::ExtraLength => {
                if !fill(&mut h.pair, &mut h.have, byte) {
                    return Ok(());
                }
                match u16::from_le_bytes(h.pair) {
                    0 => next_part(Part::Extra(0), h.flags),
                    length => Part::Extra(usize::from(length)),
                }
            }
            Part::Extra(1) => next_part(Part::Extra(0), h.flags),
            Part::Extra(left) => Part::Extra(left.saturating_sub(1)),
            part @ (Part::Name | Part::Comment) if byte == 0 => next_part(part, h.flags),
            part @ (Part::Name | Part::Comment) => part,
            Part::HeaderCrc => {
                if !fill(&mut h.pair, &mut h.have, byte) {
                    return Ok(());
                }
                if u16::from_le_bytes(h.pair) != h.crc.value() as u16 {
                    return Err(GzipError::Corrupt(
                        "the gzip header checksum does not match",
                    ));
                }
                Part::Data
            }
            part @ (Part::Data | Part::Trailer) => part,
        };
        Ok(())
    }

    /// Inflates as much of `input` as it can: true once the member's
    /// deflate data has ended (the rest of `input` is what follows it).
    fn inflate_some<E>(
        &mut self,
        input: &mut &[u8],
        out: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<bool, GzipError<E>> {
        loop {
            let result = inflate(&mut self.inflate, input, &mut self.out[..], MZFlush::None);
            *input = &input[result.bytes_consumed..];
            let written = &self.out[..result.bytes_written];
            if !written.is_empty() {
                self.crc.update(written);
                self.size = self.size.wrapping_add(written.len() as u32);
                out(written).map_err(GzipError::Refused)?;
            }
            let progress = result.bytes_consumed > 0 || result.bytes_written > 0;
            match result.status {
                Ok(MZStatus::StreamEnd) => return Ok(true),
                Ok(_) | Err(MZError::Buf) => {
                    if result.bytes_written == OUT {
                        // More output may be waiting.
                        continue;
                    }
                    if input.is_empty() {
                        return Ok(false);
                    }
                    if !progress {
                        return Err(GzipError::Corrupt("the deflate data cannot be decoded"));
                    }
                }
                Err(_) => return Err(GzipError::Corrupt("corrupt deflate stream")),
            }
        }
    }

    /// Checks a member's trailer and gets ready for the next member.
    fn end_member<E>(&mut self) -> Result<(), GzipError<E>> {
        let [c0, c1, c2, c3, s0, s1, s2, s3] = self.trailer;
        if u32::from_le_bytes([c0, c1, c2, c3]) != self.crc.value() {
            return Err(GzipError::Corrupt("the gzip checksum does not match"));
        }
        if u32::from_le_bytes([s0, s1, s2, s3]) != self.size {
            return Err(GzipError::Corrupt("the gzip length does not match"));
        }
        self.members += 1;
        self.part = Part::Fixed;
        self.header = Header::new();
        self.inflate.reset(DataFormat::Raw);
        self.crc = Crc32::new();
        self.size = 0;
        self.trailer_len = 0;
        Ok(())
    }
}

/// The header part after `done`, skipping those the flags say are absent.
fn next_part(done: Part, flags: u8) -> Part {
    let mut next = match done {
        Part::Fixed => Part::ExtraLength,
        Part::ExtraLength | Part::Extra(_) => Part::Name,
        Part::Name => Part::Comment,
        Part::Comment => Part::HeaderCrc,
        Part::HeaderCrc | Part::Data | Part::Trailer => Part::Data,
    };
    loop {
        next = match next {
            Part::ExtraLength if flags & FEXTRA == 0 => Part::Name,
            Part::Name if flags & FNAME == 0 => Part::Comment,
            Part::Comment if flags & FCOMMENT == 0 => Part::HeaderCrc,
            Part::HeaderCrc if flags & FHCRC == 0 => Part::Data,
            other => return other,
        };
    }
}

/// CRC-32 as gzip (and zip) use it: the IEEE polynomial, reflected.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Crc32(u32);

/// The CRC of each byte value, slicing by one byte.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

impl Crc32 {
    pub(crate) fn new() -> Crc32 {
        Crc32(!0)
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let mut crc = self.0;
        for &b in bytes {
            crc = CRC_TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
        }
        self.0 = crc;
    }

    pub(crate) fn value(&self) -> u32 {
        !self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    use flate2::write::GzEncoder;
    use flate2::{Compression, GzBuilder};

    fn decode(stream: &[u8], chunk: usize) -> Result<Vec<u8>, GzipError<()>> {
        let mut g = Gunzip::new();
        let mut out = Vec::new();
        for piece in stream.chunks(chunk) {
            g.write(piece, &mut |b: &[u8]| {
                out.extend_from_slice(b);
                Ok(())
            })?;
        }
        g.finish()?;
        Ok(out)
    }

    #[test]
    fn crc32_check_value() {
        let mut crc = Crc32::new();
        crc.update(b"123456789");
        assert_eq!(crc.value(), 0xcbf4_3926);
        assert_eq!(Crc32::new().value(), 0);
    }

    #[test]
    fn every_optional_header_part_in_any_chunks() {
        let data: Vec<u8> = (0..200_000u32)
            .flat_map(|n| (n % 251).to_le_bytes())
            .collect();
        let mut e = GzBuilder::new()
            .filename("name.json")
            .comment("a comment")
            .extra(vec![1, 2, 3, 4, 5])
            .write(Vec::new(), Compression::default());
        e.write_all(&data).expect("in memory");
        let mut stream = e.finish().expect("in memory");
        // FHCRC, which flate2 does not write: set the flag and add the
        // header's CRC-16 after the comment's zero byte.
        let header_end = 10 + 2 + 5 + "name.json".len() + 1 + "a comment".len() + 1;
        stream[3] |= FHCRC;
        let mut crc = Crc32::new();
        crc.update(&stream[..header_end]);
        let crc16 = (crc.value() as u16).to_le_bytes();
        stream.splice(header_end..header_end, crc16);
        for chunk in [1, 3, 4096, stream.len()] {
            assert_eq!(decode(&stream, chunk).as_deref(), Ok(&data[..]), "{chunk}");
        }
        stream[header_end] ^= 1;
        assert_eq!(
            decode(&stream, 7),
            Err(GzipError::Corrupt(
                "the gzip header checksum does not match"
            ))
        );
    }

    #[test]
    fn the_ends_of_a_stream() {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(b"{}").expect("in memory");
        let good = e.finish().expect("in memory");
        assert_eq!(decode(b"", 4), Err(GzipError::Corrupt("the body is empty")));
        for cut in [1, 9, 12, good.len() - 1] {
            assert!(
                matches!(decode(&good[..cut], 4), Err(GzipError::Corrupt(_))),
                "{cut}"
            );
        }
        let mut length = good.clone();
        let at = length.len() - 1;
        length[at] ^= 1;
        assert_eq!(
            decode(&length, 4),
            Err(GzipError::Corrupt("the gzip length does not match"))
        );
    }

    #[test]
    fn the_receiver_may_refuse() {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(&[b' '; 100]).expect("in memory");
        let stream = e.finish().expect("in memory");
        let mut g = Gunzip::new();
        let refused = g.write(&stream, &mut |_: &[u8]| Err("no"));
        assert_eq!(refused, Err(GzipError::Refused("no")));
    }
}
