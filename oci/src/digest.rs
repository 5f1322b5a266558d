//! Content digests (`sha256:…`), as the OCI image specification defines
//! them, and their checking as bytes stream in (OCI-3).

use std::fmt;
use std::str::FromStr;

use sha2::Digest as _;

/// A digest algorithm tfdisco can verify. The image specification
/// registers `sha256` and `sha512`; `sha384` is go-digest's too, so
/// OpenTofu (through ORAS) accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    /// SHA-256: 64 lowercase hex digits.
    Sha256,
    /// SHA-384: 96 lowercase hex digits.
    Sha384,
    /// SHA-512: 128 lowercase hex digits.
    Sha512,
}

impl Algorithm {
    /// The name in a digest's text: `sha256`, `sha384`, `sha512`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha384 => "sha384",
            Algorithm::Sha512 => "sha512",
        }
    }

    fn hex_len(self) -> usize {
        match self {
            Algorithm::Sha256 => 64,
            Algorithm::Sha384 => 96,
            Algorithm::Sha512 => 128,
        }
    }
}

/// A content digest, `ALGORITHM:HEX`: what names a manifest or a blob.
///
/// ```
/// use tfdisco_oci::{Algorithm, Digest};
/// let d: Digest = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a".parse()?;
/// assert_eq!(d.algorithm(), Algorithm::Sha256);
/// assert_eq!(Digest::of(Algorithm::Sha256, b"{}").to_string(), d.to_string());
/// assert!("sha256:ABC".parse::<Digest>().is_err());
/// # Ok::<(), tfdisco_oci::InvalidDigest>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest {
    algorithm: Algorithm,
    hex: Box<str>,
}

impl Digest {
    /// The digest of `bytes`.
    pub fn of(algorithm: Algorithm, bytes: &[u8]) -> Digest {
        let mut hasher = Hasher::new(algorithm);
        hasher.update(bytes);
        hasher.finish()
    }

    /// The SHA-256 digest whose 32 bytes are `bytes` (a hash computed
    /// elsewhere, as a package's `zh:`).
    pub fn sha256(bytes: [u8; 32]) -> Digest {
        Digest {
            algorithm: Algorithm::Sha256,
            hex: hex(&bytes).into(),
        }
    }

    /// The digest of what `reader` gives, read to its end, and how many
    /// bytes that was: a file's digest without holding the file.
    ///
    /// ```
    /// use tfdisco_oci::{Algorithm, Digest};
    /// let (digest, size) = Digest::of_reader(Algorithm::Sha256, &b"{}"[..])?;
    /// assert_eq!((digest, size), (Digest::of(Algorithm::Sha256, b"{}"), 2));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn of_reader(
        algorithm: Algorithm,
        mut reader: impl std::io::Read,
    ) -> std::io::Result<(Digest, u64)> {
        let mut hasher = Hasher::new(algorithm);
        let mut buffer = vec![0; 64 * 1024];
        let mut size = 0u64;
        loop {
            let read = match reader.read(&mut buffer) {
                Ok(0) => return Ok((hasher.finish(), size)),
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buffer[..read]);
            size += read as u64;
        }
    }

    /// Its algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Its hex digits (lowercase).
    pub fn hex(&self) -> &str {
        &self.hex
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.algorithm.name(), self.hex)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

/// A text that is not a digest tfdisco can verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidDigest {
    /// The text (a digest is never secret).
    pub text: String,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl fmt::Display for InvalidDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid digest {:?}: {}", self.text, self.problem)
    }
}

impl std::error::Error for InvalidDigest {}

impl FromStr for Digest {
    type Err = InvalidDigest;

    fn from_str(text: &str) -> Result<Digest, InvalidDigest> {
        let invalid = |problem| InvalidDigest {
            text: text.to_owned(),
            problem,
        };
        let (name, hex) = text
            .split_once(':')
            .ok_or_else(|| invalid("no ':' between the algorithm and the hex digits"))?;
        let algorithm = match name {
            "sha256" => Algorithm::Sha256,
            "sha384" => Algorithm::Sha384,
            "sha512" => Algorithm::Sha512,
            _ => return Err(invalid("the algorithm is not sha256, sha384 or sha512")),
        };
        if hex.len() != algorithm.hex_len() {
            return Err(invalid(
                "the hex digits are not as many as the algorithm gives",
            ));
        }
        if !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(invalid("the digits are not lowercase hex"));
        }
        Ok(Digest {
            algorithm,
            hex: hex.into(),
        })
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A running digest of one of the algorithms.
#[derive(Clone)]
pub(crate) struct Hasher(HasherState);

#[derive(Clone)]
enum HasherState {
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Hasher {
    pub(crate) fn new(algorithm: Algorithm) -> Hasher {
        Hasher(match algorithm {
            Algorithm::Sha256 => HasherState::Sha256(sha2::Sha256::new()),
            Algorithm::Sha384 => HasherState::Sha384(sha2::Sha384::new()),
            Algorithm::Sha512 => HasherState::Sha512(sha2::Sha512::new()),
        })
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            HasherState::Sha256(h) => h.update(bytes),
            HasherState::Sha384(h) => h.update(bytes),
            HasherState::Sha512(h) => h.update(bytes),
        }
    }

    pub(crate) fn finish(self) -> Digest {
        let (algorithm, bytes) = match self.0 {
            HasherState::Sha256(h) => (Algorithm::Sha256, h.finalize().to_vec()),
            HasherState::Sha384(h) => (Algorithm::Sha384, h.finalize().to_vec()),
            HasherState::Sha512(h) => (Algorithm::Sha512, h.finalize().to_vec()),
        };
        Digest {
            algorithm,
            hex: hex(&bytes).into(),
        }
    }
}

/// Lowercase hex digits of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 15)]));
    }
    hex
}

/// Checks content against the digest and size a descriptor gave, as it
/// streams in (OCI-3): more bytes than the size is an error at once; at the
/// end, the size and the digest must both match.
#[derive(Clone)]
pub struct Verifier {
    expected: Digest,
    size: u64,
    seen: u64,
    hasher: Hasher,
}

/// Content that is not what its descriptor says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// More bytes than the descriptor's size arrived.
    TooLong {
        /// The descriptor's size.
        size: u64,
    },
    /// Fewer bytes than the descriptor's size arrived.
    TooShort {
        /// The descriptor's size.
        size: u64,
        /// What arrived.
        seen: u64,
    },
    /// The bytes have another digest.
    Digest {
        /// The descriptor's digest.
        expected: Digest,
        /// The content's.
        actual: Digest,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::TooLong { size } => {
                write!(
                    f,
                    "the content is longer than its descriptor's size, {size} bytes"
                )
            }
            Mismatch::TooShort { size, seen } => write!(
                f,
                "the content is {seen} bytes long, its descriptor's size {size} bytes"
            ),
            Mismatch::Digest { expected, actual } => write!(
                f,
                "the content's digest is {actual}, not its descriptor's {expected}"
            ),
        }
    }
}

impl std::error::Error for Mismatch {}

impl Verifier {
    /// A check of content that must be `size` bytes with digest `expected`.
    pub fn new(expected: Digest, size: u64) -> Verifier {
        Verifier {
            hasher: Hasher::new(expected.algorithm()),
            expected,
            size,
            seen: 0,
        }
    }

    /// The next bytes of the content.
    pub fn update(&mut self, bytes: &[u8]) -> Result<(), Mismatch> {
        self.seen = self.seen.saturating_add(bytes.len() as u64);
        if self.seen > self.size {
            return Err(Mismatch::TooLong { size: self.size });
        }
        self.hasher.update(bytes);
        Ok(())
    }

    /// The end of the content: its size and digest checked.
    pub fn finish(self) -> Result<Digest, Mismatch> {
        if self.seen != self.size {
            return Err(Mismatch::TooShort {
                size: self.size,
                seen: self.seen,
            });
        }
        let actual = self.hasher.finish();
        if actual != self.expected {
            return Err(Mismatch::Digest {
                expected: self.expected,
                actual,
            });
        }
        Ok(actual)
    }
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier")
            .field("expected", &self.expected)
            .field("size", &self.size)
            .field("seen", &self.seen)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY_JSON: &str =
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";

    #[test]
    fn known_digests() {
        assert_eq!(Digest::of(Algorithm::Sha256, b"{}").to_string(), EMPTY_JSON);
        assert_eq!(
            Digest::of(Algorithm::Sha512, b"").hex(),
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce\
             47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
        );
        assert_eq!(Digest::of(Algorithm::Sha384, b"").hex().len(), 96);
    }

    #[test]
    fn parsing_refuses_what_cannot_be_checked() {
        for (text, problem) in [
            ("sha256", "no ':'"),
            ("md5:d41d8cd98f00b204e9800998ecf8427e", "algorithm"),
            ("sha256:44136fa355b3678a", "as many"),
            (
                &EMPTY_JSON.to_uppercase().replace("SHA", "sha"),
                "lowercase",
            ),
            ("", "no ':'"),
        ] {
            let e = text.parse::<Digest>().expect_err(text);
            assert!(e.problem.contains(problem), "{text}: {e}");
        }
        let d: Digest = EMPTY_JSON.parse().expect("valid");
        assert_eq!(d.to_string(), EMPTY_JSON);
        assert_eq!(
            serde_json::from_str::<Digest>(&format!("\"{EMPTY_JSON}\"")).expect("json"),
            d
        );
    }

    #[test]
    fn the_verifier_checks_size_and_digest() {
        let d: Digest = EMPTY_JSON.parse().expect("valid");
        let mut v = Verifier::new(d.clone(), 2);
        v.update(b"{").expect("within");
        v.update(b"}").expect("within");
        assert_eq!(v.finish(), Ok(d.clone()));

        let mut long = Verifier::new(d.clone(), 2);
        assert_eq!(long.update(b"{} "), Err(Mismatch::TooLong { size: 2 }));

        let mut short = Verifier::new(d.clone(), 2);
        short.update(b"{").expect("within");
        assert_eq!(short.finish(), Err(Mismatch::TooShort { size: 2, seen: 1 }));

        let mut other = Verifier::new(d.clone(), 2);
        other.update(b"[]").expect("within");
        let Err(Mismatch::Digest { expected, actual }) = other.finish() else {
            panic!("a digest mismatch")
        };
        assert_eq!(expected, d);
        assert_eq!(actual, Digest::of(Algorithm::Sha256, b"[]"));
    }
}
