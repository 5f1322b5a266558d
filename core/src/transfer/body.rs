//! A response body as it arrives: `Content-Encoding` (gzip decoded here, so
//! every transport behaves the same) and the size limit on the decoded
//! bytes, with memory never past the limit plus a small constant
//! (docs/behaviour.md, DISCO-7, GZIP-1 to GZIP-3). A streamed body (a
//! download, DL-2) keeps nothing: each chunk is handed on decoded.

use http::HeaderMap;
use http::header::CONTENT_ENCODING;

use super::gzip::{Gunzip, GzipError};

/// How a body is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Identity,
    Gzip,
}

/// The response's `Content-Encoding`: none, `identity` or `gzip` (any
/// case); anything else, including a list, is refused with its text.
pub(crate) fn encoding(headers: &HeaderMap) -> Result<Encoding, String> {
    let mut values = headers.get_all(CONTENT_ENCODING).iter();
    let Some(value) = values.next() else {
        return Ok(Encoding::Identity);
    };
    let text = String::from_utf8_lossy(value.as_bytes());
    let token = text.trim();
    if values.next().is_some() {
        let all: Vec<_> = headers
            .get_all(CONTENT_ENCODING)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        return Err(all.join(", "));
    }
    if token.is_empty() || token.eq_ignore_ascii_case("identity") {
        Ok(Encoding::Identity)
    } else if token.eq_ignore_ascii_case("gzip") {
        Ok(Encoding::Gzip)
    } else {
        Err(token.to_owned())
    }
}

/// Why a body was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// More decoded bytes than the limit.
    TooLarge,
    /// The gzip stream is broken (what is wrong with it).
    Corrupt(String),
}

/// Up to this size a body's buffer grows by doubling.
const SMALL: usize = 64 * 1024;

/// The decoded bytes so far, never more than the limit: the byte past it is
/// refused, and the buffer grows at most to the limit. A streamed body keeps
/// only what one pushed chunk decoded to, until the next push.
struct Limited {
    bytes: Vec<u8>,
    limit: usize,
    /// Decoded bytes so far (those handed on included, when streamed).
    total: usize,
    /// False for a streamed body: `bytes` is scratch.
    keep: bool,
}

impl Limited {
    fn push(&mut self, chunk: &[u8]) -> Result<(), BodyError> {
        let room = self.limit - self.total;
        if chunk.len() > room {
            return Err(BodyError::TooLarge);
        }
        self.total += chunk.len();
        if !self.keep {
            self.bytes.extend_from_slice(chunk);
            return Ok(());
        }
        let needed = self.bytes.len() + chunk.len();
        if needed > self.bytes.capacity() {
            // Small bodies grow by doubling; past SMALL the buffer is sized
            // for the limit at once, so that growing never holds an old and
            // a new copy of a large body (the limit plus SMALL at most).
            let target = if needed <= SMALL {
                (self.bytes.capacity() * 2)
                    .clamp(needed, SMALL)
                    .min(self.limit)
            } else {
                self.limit
            };
            self.bytes.reserve_exact(target - self.bytes.len());
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }
}

/// A body being received.
pub(crate) struct Body(Decoding);

enum Decoding {
    Identity(Limited),
    /// Boxed: the decoder's state is large and most bodies are not gzip.
    Gzip(Box<Gunzip>, Limited),
}

impl Body {
    /// A body of `encoding` whose decoded size may not pass `limit`; a
    /// plain body of `declared` bytes is reserved for at once.
    pub(crate) fn new(encoding: Encoding, limit: u64, declared: Option<u64>) -> Body {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let reserve = match encoding {
            Encoding::Identity => declared.map_or(0, |n| usize::try_from(n).unwrap_or(limit)),
            // The compressed length says little about the decoded one.
            Encoding::Gzip => 0,
        };
        Body::with(encoding, limit, reserve.min(limit), true)
    }

    /// A body handed on chunk by chunk ([`Body::push_streamed`]), whose
    /// decoded size may not pass `limit`: nothing of it is kept.
    pub(crate) fn streamed(encoding: Encoding, limit: u64) -> Body {
        Body::with(
            encoding,
            usize::try_from(limit).unwrap_or(usize::MAX),
            0,
            false,
        )
    }

    fn with(encoding: Encoding, limit: usize, reserve: usize, keep: bool) -> Body {
        let decoded = Limited {
            bytes: Vec::with_capacity(reserve),
            limit,
            total: 0,
            keep,
        };
        Body(match encoding {
            Encoding::Identity => Decoding::Identity(decoded),
            Encoding::Gzip => Decoding::Gzip(Box::default(), decoded),
        })
    }

    /// Takes a chunk of a streamed body as it came over the wire and gives
    /// back what it decodes to: the chunk itself when not encoded (no
    /// copy), else the decoder's output for it, kept until the next push.
    pub(crate) fn push_streamed<'a>(&'a mut self, chunk: &'a [u8]) -> Result<&'a [u8], BodyError> {
        match &mut self.0 {
            Decoding::Identity(decoded) => {
                let room = decoded.limit - decoded.total;
                if chunk.len() > room {
                    return Err(BodyError::TooLarge);
                }
                decoded.total += chunk.len();
                Ok(chunk)
            }
            Decoding::Gzip(decoder, decoded) => {
                decoded.bytes.clear();
                decoder
                    .write(chunk, &mut |out| decoded.push(out))
                    .map_err(body_error)?;
                Ok(&decoded.bytes)
            }
        }
    }

    /// The end of a streamed body: what the decoder still held, decoded.
    pub(crate) fn finish_streamed(self) -> Result<Vec<u8>, BodyError> {
        match self.0 {
            Decoding::Identity(_) => Ok(Vec::new()),
            Decoding::Gzip(decoder, _) => {
                // Everything decoded was handed on with its chunk.
                decoder.finish().map_err(body_error)?;
                Ok(Vec::new())
            }
        }
    }

    /// Takes a chunk as it came over the wire.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<(), BodyError> {
        match &mut self.0 {
            Decoding::Identity(decoded) => decoded.push(chunk),
            Decoding::Gzip(decoder, decoded) => decoder
                .write(chunk, &mut |out| decoded.push(out))
                .map_err(body_error),
        }
    }

    /// The whole decoded body, once the last chunk arrived.
    pub(crate) fn finish(self) -> Result<Vec<u8>, BodyError> {
        match self.0 {
            Decoding::Identity(decoded) => Ok(decoded.bytes),
            Decoding::Gzip(decoder, decoded) => {
                decoder.finish().map_err(body_error)?;
                Ok(decoded.bytes)
            }
        }
    }
}

fn body_error(e: GzipError<BodyError>) -> BodyError {
    match e {
        GzipError::Corrupt(problem) => BodyError::Corrupt(problem.to_owned()),
        GzipError::Refused(refused) => refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;
    use http::HeaderValue;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).expect("in memory");
        e.finish().expect("in memory")
    }

    fn decode(encoded: &[u8], limit: u64, chunk: usize) -> Result<Vec<u8>, BodyError> {
        let mut body = Body::new(Encoding::Gzip, limit, None);
        for piece in encoded.chunks(chunk) {
            body.push(piece)?;
        }
        body.finish()
    }

    #[test]
    fn encodings() {
        let h = |values: &[&str]| {
            let mut map = HeaderMap::new();
            for v in values {
                map.append(CONTENT_ENCODING, HeaderValue::from_str(v).expect("valid"));
            }
            encoding(&map)
        };
        assert_eq!(h(&[]), Ok(Encoding::Identity));
        assert_eq!(h(&["identity"]), Ok(Encoding::Identity));
        assert_eq!(h(&[""]), Ok(Encoding::Identity));
        assert_eq!(h(&["gzip"]), Ok(Encoding::Gzip));
        assert_eq!(h(&[" GZip "]), Ok(Encoding::Gzip));
        assert_eq!(h(&["br"]), Err("br".to_owned()));
        assert_eq!(h(&["x-gzip"]), Err("x-gzip".to_owned()));
        assert_eq!(h(&["gzip, br"]), Err("gzip, br".to_owned()));
        assert_eq!(h(&["gzip", "gzip"]), Err("gzip, gzip".to_owned()));
    }

    #[test]
    fn gzip_in_any_chunks_and_concatenated_members() {
        let doc = br#"{"modules.v1": "/m/"}"#;
        for chunk in [1, 7, 4096] {
            assert_eq!(decode(&gzip(doc), 1024, chunk).as_deref(), Ok(&doc[..]));
        }
        let mut two = gzip(b"{\"a.v1\": ");
        two.extend(gzip(b"\"/a/\"}"));
        assert_eq!(
            decode(&two, 1024, 5).as_deref(),
            Ok(&b"{\"a.v1\": \"/a/\"}"[..])
        );
    }

    #[test]
    fn the_limit_is_on_decoded_bytes() {
        let doc = vec![b' '; 1000];
        assert_eq!(decode(&gzip(&doc), 1000, 64).map(|b| b.len()), Ok(1000));
        assert_eq!(decode(&gzip(&doc), 999, 64), Err(BodyError::TooLarge));
    }

    #[test]
    fn a_bomb_stops_at_the_limit_with_its_memory() {
        let bomb = gzip(&vec![0u8; 10 << 20]);
        assert!(bomb.len() < 20_000, "{}", bomb.len());
        let mut body = Body::new(Encoding::Gzip, 1 << 20, None);
        let mut result = Ok(());
        for piece in bomb.chunks(16 * 1024) {
            result = body.push(piece);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(BodyError::TooLarge));
        let Decoding::Gzip(_, decoded) = &body.0 else {
            unreachable!("a gzip body")
        };
        let decoded = &decoded.bytes;
        assert!(decoded.len() <= 1 << 20);
        assert!(decoded.capacity() <= 1 << 20, "{}", decoded.capacity());
    }

    #[test]
    fn broken_streams_are_corrupt() {
        let good = gzip(b"{}");
        for bad in [
            &b"not gzip at all"[..],
            &good[..good.len() - 3],
            &[&good[..], b"trailing garbage"].concat()[..],
        ] {
            assert!(
                matches!(decode(bad, 1024, 4), Err(BodyError::Corrupt(_))),
                "{bad:?}"
            );
        }
        let mut flipped = good.clone();
        let crc = flipped.len() - 8;
        flipped[crc] ^= 1;
        assert!(matches!(
            decode(&flipped, 1024, 4),
            Err(BodyError::Corrupt(_))
        ));
    }

    #[test]
    fn streamed_bodies_keep_nothing_and_keep_the_limit() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|n| n.to_le_bytes()).collect();
        for (encoding, wire) in [
            (Encoding::Identity, data.clone()),
            (Encoding::Gzip, gzip(&data)),
        ] {
            let mut body = Body::streamed(encoding, data.len() as u64);
            let mut out = Vec::new();
            for piece in wire.chunks(1000) {
                out.extend_from_slice(body.push_streamed(piece).expect("within the limit"));
            }
            out.extend(body.finish_streamed().expect("complete"));
            assert_eq!(out, data, "{encoding:?}");
            let mut short = Body::streamed(encoding, data.len() as u64 - 1);
            let refused = wire
                .chunks(1000)
                .map(|piece| short.push_streamed(piece).map(|_| ()))
                .find(Result::is_err)
                .or_else(|| Some(short.finish_streamed().map(|_| ())));
            assert_eq!(refused, Some(Err(BodyError::TooLarge)), "{encoding:?}");
        }
    }

    #[test]
    fn plain_bodies_grow_no_further_than_the_limit() {
        let mut body = Body::new(Encoding::Identity, 100, None);
        for _ in 0..10 {
            body.push(&[b' '; 10]).expect("within the limit");
        }
        assert_eq!(body.push(b" "), Err(BodyError::TooLarge));
        let Decoding::Identity(decoded) = &body.0 else {
            unreachable!("a plain body")
        };
        assert!(decoded.bytes.capacity() <= 100);
    }
}
