//! `SHA256SUMS` as both CLIs read it: the rules, and how they compare with
//! the CLIs' own code, are docs/behaviour.md's HASH-10 and HASH-11.

use std::fmt;

use tfdisco_core::go_quote;

/// A release's `SHA256SUMS` document: lines of `<hex SHA-256>  <file name>`,
/// as HashiCorp's release process and goreleaser write them.
///
/// The bytes are kept as given: the signature is over them (HASH-12).
#[derive(Clone, PartialEq, Eq)]
pub struct Sha256Sums {
    document: Vec<u8>,
}

impl fmt::Debug for Sha256Sums {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sha256Sums")
            .field("bytes", &self.document.len())
            .finish()
    }
}

/// Why `SHA256SUMS` does not vouch for a package (HASH-10), in Terraform's
/// words.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SumsError {
    /// No line names the package's file.
    NotListed {
        /// The package's file name.
        filename: String,
    },
    /// The line naming it has a hash that is not hex.
    InvalidHash {
        /// The hash as written.
        hash: String,
        /// Go's `encoding/hex` message.
        reason: String,
    },
    /// The line naming it has another SHA-256 than the registry's `shasum`.
    Mismatch {
        /// The SHA-256 listed (the bytes the hex gave, zeros after them).
        listed: [u8; 32],
        /// The registry's `shasum`.
        expected: [u8; 32],
    },
}

impl fmt::Display for SumsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SumsError::NotListed { filename } => write!(
                f,
                "checksum list has no SHA-256 hash for {}",
                go_quote(filename)
            ),
            SumsError::InvalidHash { hash, reason } => write!(
                f,
                "checksum list has invalid SHA256 hash {}: {reason}",
                go_quote(hash)
            ),
            SumsError::Mismatch { listed, expected } => write!(
                f,
                "checksum list has unexpected SHA-256 hash {} (expected {})",
                hex(listed),
                hex(expected)
            ),
        }
    }
}

impl std::error::Error for SumsError {}

/// Lower-case hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    super::dirhash::push_hex(&mut out, bytes);
    String::from_utf8(out).unwrap_or_default()
}

/// The value of an ASCII hex digit, either case.
fn digit(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// Go's `InvalidByteError` text: `encoding/hex: invalid byte: U+0067 'g'`.
fn invalid_byte(b: u8) -> String {
    let c = char::from(b);
    if c.is_ascii_graphic() || c == ' ' {
        format!("encoding/hex: invalid byte: U+{:04X} '{c}'", u32::from(b))
    } else {
        format!("encoding/hex: invalid byte: U+{:04X}", u32::from(b))
    }
}

/// Go's `hex.Decode` into a 32-byte array: pairs of digits (either case)
/// fill it from the start; an invalid digit or an odd length is an error.
/// Go panics on more than 64 digits; this is an error instead.
pub(super) fn decode_sha256(hex: &[u8]) -> Result<[u8; 32], String> {
    let mut out = [0; 32];
    let mut pairs = hex.chunks_exact(2);
    for (i, pair) in pairs.by_ref().enumerate() {
        let hi = digit(pair[0]).ok_or_else(|| invalid_byte(pair[0]))?;
        let lo = digit(pair[1]).ok_or_else(|| invalid_byte(pair[1]))?;
        let Some(slot) = out.get_mut(i) else {
            return Err("more than 64 hex digits for a SHA-256".to_owned());
        };
        *slot = (hi << 4) | lo;
    }
    if let [last] = pairs.remainder() {
        return Err(match digit(*last) {
            None => invalid_byte(*last),
            Some(_) => "encoding/hex: odd length hex string".to_owned(),
        });
    }
    Ok(out)
}

/// Go's `bytes.Fields`: the pieces between runs of white space (Unicode's,
/// as `unicode.IsSpace`; bytes that are not UTF-8 are not space).
pub(super) fn fields(line: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = None;
    let mut i = 0;
    while i < line.len() {
        let (space, width) = space_at(&line[i..]);
        match (space, start) {
            (true, Some(s)) => {
                out.push(&line[s..i]);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
        i += width;
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
    out
}

/// Whether `b` starts with a white-space character, and its width in
/// bytes (1 for a byte that starts no valid UTF-8 character, as Go's
/// decoder reads it).
fn space_at(b: &[u8]) -> (bool, usize) {
    let first = b[0];
    if first.is_ascii() {
        return (
            matches!(first, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' '),
            1,
        );
    }
    let width = match first {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (false, 1),
    };
    match b.get(..width).and_then(|c| std::str::from_utf8(c).ok()) {
        Some(c) => (c.chars().next().is_some_and(char::is_whitespace), width),
        None => (false, 1),
    }
}

/// `bufio.Scanner`'s longest line (`MaxScanTokenSize`): a longer one ends
/// the scan, and Terraform keeps the hashes read before it.
const MAX_LINE: usize = 64 * 1024;

impl Sha256Sums {
    /// Keeps the document's bytes (nothing is checked yet).
    pub fn new(document: impl Into<Vec<u8>>) -> Sha256Sums {
        Sha256Sums {
            document: document.into(),
        }
    }

    /// The document's bytes, as given.
    pub fn as_bytes(&self) -> &[u8] {
        &self.document
    }

    /// The SHA-256 listed for `filename`, as Terraform finds it: the first
    /// line (lines end at `\n`) whose second white-space-separated field is
    /// exactly `filename` (a `*` before the name, as `sha256sum -b` writes
    /// it, is part of the name); its first field is the hash, hex in either
    /// case (HASH-10).
    pub fn lookup(&self, filename: &str) -> Result<[u8; 32], SumsError> {
        let hash = self
            .document
            .split(|&b| b == b'\n')
            .map(fields)
            .find(|f| f.len() > 1 && f[1] == filename.as_bytes())
            .map(|f| f[0])
            .ok_or_else(|| SumsError::NotListed {
                filename: filename.to_owned(),
            })?;
        decode_sha256(hash).map_err(|reason| SumsError::InvalidHash {
            hash: String::from_utf8_lossy(hash).into_owned(),
            reason,
        })
    }

    /// Checks that the document lists `expected` for `filename`
    /// (Terraform's `matchingChecksumAuthentication`).
    pub fn check(&self, filename: &str, expected: &[u8; 32]) -> Result<(), SumsError> {
        let listed = self.lookup(filename)?;
        if listed == *expected {
            Ok(())
        } else {
            Err(SumsError::Mismatch {
                listed,
                expected: *expected,
            })
        }
    }

    /// Every archive's hash, as `zh:<lower-case hex>`, in the document's
    /// order, for a lock file: what `providers lock` records once the
    /// signature verified (HASH-11). `None` when the document does not look
    /// like a checksums list, as Terraform decides: a line of one field, a
    /// first field that is not 64 hex digits, or (where Go would panic) an
    /// empty line. Lines end at `\n` (a `\r` before it is dropped); a line
    /// of 64 KiB or more ends the list there.
    pub fn zip_hashes(&self) -> Option<Vec<String>> {
        let mut hashes = Vec::new();
        let mut rest = &self.document[..];
        while !rest.is_empty() {
            let (line, next) = match rest.iter().position(|&b| b == b'\n') {
                Some(at) => (&rest[..at], &rest[at + 1..]),
                None => (rest, &[][..]),
            };
            if line.len() >= MAX_LINE {
                break;
            }
            rest = next;
            let fields = fields(line);
            let first = fields.first()?;
            if fields.len() < 2 || first.len() != 64 {
                return None;
            }
            let sha256 = decode_sha256(first).ok()?;
            hashes.push(format!("zh:{}", hex(&sha256)));
        }
        Some(hashes)
    }
}
