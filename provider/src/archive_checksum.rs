//! go-getter's `checksum=` on a module package's archive, as Terraform
//! 1.11's go-getter (v1.7.5, `checksum.go`) reads and checks it
//! (docs/behaviour.md, MOD-15), without I/O: the value parsed
//! ([`ChecksumRequest::parse`]), a checksum file read
//! ([`ArchiveChecksum::from_checksum_file`]), the archive's bytes hashed as
//! they arrive and compared ([`ChecksumHasher`]).
//!
//! ```
//! use tfdisco_provider::{ArchiveChecksum, ChecksumRequest};
//!
//! let request = ChecksumRequest::parse(
//!     "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
//! )?;
//! let ChecksumRequest::Digest(checksum) = request else { unreachable!() };
//! let mut hasher = checksum.hasher();
//! hasher.update(b"hel");
//! hasher.update(b"lo");
//! assert!(hasher.verify("x.zip").is_ok());
//!
//! // A checksum file names the archive by its name, `*name`, a path…
//! let sums = "d41d8cd98f00b204e9800998ecf8427e  other.zip\n\
//!             5d41402abc4b2a76b9719d911017c592 *x.zip\n";
//! let checksum = ArchiveChecksum::from_checksum_file(sums, "/dl/x.zip", "/dl/SUMS")?;
//! assert_eq!(checksum.to_string(), "md5:5d41402abc4b2a76b9719d911017c592");
//! # Ok::<(), tfdisco_provider::ChecksumError>(())
//! ```

use std::fmt;

use md5::Md5;
use sha2::{Digest, Sha256, Sha512};

/// A hash go-getter checks an archive with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChecksumKind {
    /// `md5` (16 bytes).
    Md5,
    /// `sha1` (20 bytes).
    Sha1,
    /// `sha256` (32 bytes).
    Sha256,
    /// `sha512` (64 bytes).
    Sha512,
}

impl ChecksumKind {
    /// The kind `checksum=TYPE:…` names, any case (`SHA256` too).
    fn of_type(name: &str) -> Option<ChecksumKind> {
        match name.to_ascii_lowercase().as_str() {
            "md5" => Some(ChecksumKind::Md5),
            "sha1" => Some(ChecksumKind::Sha1),
            "sha256" => Some(ChecksumKind::Sha256),
            "sha512" => Some(ChecksumKind::Sha512),
            _ => None,
        }
    }

    /// The kind a hash of `len` bytes is, as go-getter guesses it.
    fn of_len(len: usize) -> Option<ChecksumKind> {
        match len {
            16 => Some(ChecksumKind::Md5),
            20 => Some(ChecksumKind::Sha1),
            32 => Some(ChecksumKind::Sha256),
            64 => Some(ChecksumKind::Sha512),
            _ => None,
        }
    }

    /// Its name: `md5`, `sha1`, `sha256`, `sha512`.
    pub fn name(self) -> &'static str {
        match self {
            ChecksumKind::Md5 => "md5",
            ChecksumKind::Sha1 => "sha1",
            ChecksumKind::Sha256 => "sha256",
            ChecksumKind::Sha512 => "sha512",
        }
    }

    /// The Go type go-getter's mismatch message ends with (`%T` of the
    /// hash): `*sha256.digest`.
    fn go_type(self) -> &'static str {
        match self {
            ChecksumKind::Md5 => "*md5.digest",
            ChecksumKind::Sha1 => "*sha1.digest",
            ChecksumKind::Sha256 => "*sha256.digest",
            ChecksumKind::Sha512 => "*sha512.digest",
        }
    }
}

/// What a `checksum=` value asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChecksumRequest {
    /// The hash itself (`sha256:HEX`, or `HEX` whose length says the kind).
    Digest(ArchiveChecksum),
    /// `file:URL`: the hash is in the checksum file at `URL` (GNU or BSD
    /// style), to be fetched and read with
    /// [`ArchiveChecksum::from_checksum_file`].
    File(String),
}

impl ChecksumRequest {
    /// Reads a `checksum=` value as go-getter's `extractChecksum` does:
    /// `TYPE:HEX` (`md5`, `sha1`, `sha256`, `sha512`, any case),
    /// `file:URL`, or `HEX` alone, its kind told by its length.
    pub fn parse(value: &str) -> Result<ChecksumRequest, ChecksumError> {
        match value.split_once(':') {
            Some(("file", url)) => Ok(ChecksumRequest::File(url.to_owned())),
            Some((kind, hex)) => ArchiveChecksum::of_type(kind, hex).map(ChecksumRequest::Digest),
            None => ArchiveChecksum::of_value(value).map(ChecksumRequest::Digest),
        }
    }
}

/// The hash an archive must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveChecksum {
    kind: ChecksumKind,
    expected: Vec<u8>,
}

impl ArchiveChecksum {
    /// Go's `newChecksumFromType`.
    fn of_type(kind: &str, hex: &str) -> Result<ArchiveChecksum, ChecksumError> {
        let expected = decode_hex(hex)?;
        let kind = ChecksumKind::of_type(kind)
            .ok_or_else(|| ChecksumError(format!("unsupported checksum type: {kind}")))?;
        Ok(ArchiveChecksum { kind, expected })
    }

    /// Go's `newChecksumFromValue`.
    fn of_value(hex: &str) -> Result<ArchiveChecksum, ChecksumError> {
        let expected = decode_hex(hex)?;
        let kind = ChecksumKind::of_len(expected.len())
            .ok_or_else(|| ChecksumError(format!("Unknown type for checksum {hex}")))?;
        Ok(ArchiveChecksum { kind, expected })
    }

    /// The archive's hash in a checksum file's `text`, as go-getter's
    /// `ChecksumFromFile` finds it: the first line (GNU `HEX  NAME` or
    /// `HEX *NAME`, BSD `TYPE (NAME) = HEX`, or a line of another shape,
    /// which names no file and so is taken) that parses and names the
    /// archive: by its file name, `*` or `?` and the name, its path
    /// relative to the checksum file's folder (also with `./`), or its
    /// absolute path. `archive_path` and `checksum_file_path` are the two
    /// URLs' paths.
    pub fn from_checksum_file(
        text: &str,
        archive_path: &str,
        checksum_file_path: &str,
    ) -> Result<ArchiveChecksum, ChecksumError> {
        let names = names_of(archive_path, checksum_file_path);
        for line in text.split_inclusive('\n') {
            let Some((checksum, name)) = parse_line(line) else {
                continue;
            };
            if name.is_empty() || names.iter().any(|n| !n.is_empty() && *n == name) {
                return Ok(checksum);
            }
        }
        Err(ChecksumError(format!(
            "no checksum found in: {checksum_file_path}"
        )))
    }

    /// The kind of hash.
    pub fn kind(&self) -> ChecksumKind {
        self.kind
    }

    /// A hasher for the archive's bytes, to [`verify`](ChecksumHasher::verify)
    /// against this.
    pub fn hasher(&self) -> ChecksumHasher {
        let state = match self.kind {
            ChecksumKind::Md5 => State::Md5(Md5::new()),
            ChecksumKind::Sha1 => State::Sha1(Box::new(sha1_smol::Sha1::new())),
            ChecksumKind::Sha256 => State::Sha256(Sha256::new()),
            ChecksumKind::Sha512 => State::Sha512(Box::new(Sha512::new())),
        };
        ChecksumHasher {
            state,
            expected: self.clone(),
        }
    }
}

impl fmt::Display for ArchiveChecksum {
    /// `KIND:HEX`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.name(), hex(&self.expected))
    }
}

/// An archive's bytes hashed as they arrive.
pub struct ChecksumHasher {
    state: State,
    expected: ArchiveChecksum,
}

enum State {
    Md5(Md5),
    Sha1(Box<sha1_smol::Sha1>),
    Sha256(Sha256),
    Sha512(Box<Sha512>),
}

impl fmt::Debug for ChecksumHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChecksumHasher")
            .field("expected", &self.expected)
            .finish_non_exhaustive()
    }
}

impl ChecksumHasher {
    /// Takes the next bytes of the archive.
    pub fn update(&mut self, bytes: &[u8]) {
        match &mut self.state {
            State::Md5(h) => h.update(bytes),
            State::Sha1(h) => h.update(bytes),
            State::Sha256(h) => h.update(bytes),
            State::Sha512(h) => h.update(bytes),
        }
    }

    /// Whether the archive, read whole, has the expected hash; else
    /// go-getter's words, the archive named `file`.
    pub fn verify(self, file: &str) -> Result<(), ChecksumError> {
        let actual: Vec<u8> = match self.state {
            State::Md5(h) => h.finalize().to_vec(),
            State::Sha1(h) => h.digest().bytes().to_vec(),
            State::Sha256(h) => h.finalize().to_vec(),
            State::Sha512(h) => h.finalize().to_vec(),
        };
        if actual == self.expected.expected {
            return Ok(());
        }
        Err(ChecksumError(format!(
            "Checksums did not match for {file}.\nExpected: {}\nGot: {}\n{}",
            hex(&self.expected.expected),
            hex(&actual),
            self.expected.kind.go_type()
        )))
    }
}

/// A `checksum=` that cannot be read, a checksum file that names no hash
/// for the archive, or an archive whose hash is another, in go-getter's
/// words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksumError(String);

impl fmt::Display for ChecksumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChecksumError {}

/// The names a checksum file may give the archive (go-getter's options).
fn names_of(archive_path: &str, checksum_file_path: &str) -> [String; 6] {
    let absolute = clean(archive_path);
    let file_name = absolute.rsplit('/').next().unwrap_or("").to_owned();
    let folder = clean(match checksum_file_path.rfind('/') {
        Some(0) => "/",
        Some(at) => &checksum_file_path[..at],
        None => ".",
    });
    let relative = relative(&folder, &absolute);
    [
        file_name.clone(),
        format!("*{file_name}"),
        format!("?{file_name}"),
        relative.clone(),
        format!("./{relative}"),
        absolute,
    ]
}

/// Go's `path.Clean` of an absolute path (a relative one is made
/// absolute first, as `filepath.Abs` would from `/`).
fn clean(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Go's `filepath.Rel(from, to)` of two clean absolute paths.
fn relative(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let to: Vec<&str> = to.split('/').filter(|p| !p.is_empty()).collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Go's `parseChecksumLine`: the hash and the file name it is for (`""`:
/// no name); `None` for a line that gives none.
fn parse_line(line: &str) -> Option<(ArchiveChecksum, String)> {
    let parts: Vec<&str> = line.split_ascii_whitespace().collect();
    match parts.as_slice() {
        [] => None,
        [kind, name, _, hex] => {
            let name = name.strip_prefix('(')?.strip_suffix(')')?;
            if name.is_empty() {
                return None;
            }
            Some((ArchiveChecksum::of_type(kind, hex).ok()?, name.to_owned()))
        }
        [hex, name] => Some((ArchiveChecksum::of_value(hex).ok()?, (*name).to_owned())),
        [hex, ..] => Some((ArchiveChecksum::of_value(hex).ok()?, String::new())),
    }
}

/// Go's `hex.DecodeString`, with its errors' words.
fn decode_hex(text: &str) -> Result<Vec<u8>, ChecksumError> {
    let digit = |c: u8| -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 2);
    for pair in bytes.chunks(2) {
        let high = digit(pair[0]).ok_or_else(|| invalid_byte(pair[0]))?;
        let Some(&low) = pair.get(1) else {
            return Err(ChecksumError(
                "invalid checksum: encoding/hex: odd length hex string".to_owned(),
            ));
        };
        let low = digit(low).ok_or_else(|| invalid_byte(low))?;
        out.push(high << 4 | low);
    }
    Ok(out)
}

/// Go's `hex.InvalidByteError` of the byte `b`: `%#U` of the byte taken
/// as a rune (`U+0067 'g'`; a byte of a UTF-8 sequence is its Latin-1
/// character, as in Go; a control character without the quote).
fn invalid_byte(b: u8) -> ChecksumError {
    let c = char::from(b);
    let shown = if c.is_control() || matches!(b, 0xa0 | 0xad) {
        format!("U+{b:04X}")
    } else {
        format!("U+{b:04X} '{c}'")
    };
    ChecksumError(format!(
        "invalid checksum: encoding/hex: invalid byte: {shown}"
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_go_getter_reads_them() {
        let sha256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        for (value, kind) in [
            (format!("sha256:{sha256}"), ChecksumKind::Sha256),
            (format!("SHA256:{sha256}"), ChecksumKind::Sha256),
            (sha256.to_owned(), ChecksumKind::Sha256),
            (
                "5d41402abc4b2a76b9719d911017c592".to_owned(),
                ChecksumKind::Md5,
            ),
            (
                "sha1:aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d".to_owned(),
                ChecksumKind::Sha1,
            ),
        ] {
            let Ok(ChecksumRequest::Digest(checksum)) = ChecksumRequest::parse(&value) else {
                panic!("{value}");
            };
            assert_eq!(checksum.kind(), kind, "{value}");
            let mut hasher = checksum.hasher();
            hasher.update(b"hello");
            hasher
                .verify("x")
                .unwrap_or_else(|e| panic!("{value}: {e}"));
        }
        assert_eq!(
            ChecksumRequest::parse("file:https://h/SUMS"),
            Ok(ChecksumRequest::File("https://h/SUMS".to_owned()))
        );
        for (value, words) in [
            ("crc32:00", "unsupported checksum type: crc32"),
            ("abcd", "Unknown type for checksum abcd"),
            (
                "sha256:abc",
                "invalid checksum: encoding/hex: odd length hex string",
            ),
            (
                "sha256:zz",
                "invalid checksum: encoding/hex: invalid byte: U+007A 'z'",
            ),
            (
                "sha256:aé",
                "invalid checksum: encoding/hex: invalid byte: U+00C3 'Ã'",
            ),
            (
                "sha256:a\n",
                "invalid checksum: encoding/hex: invalid byte: U+000A",
            ),
        ] {
            let err = ChecksumRequest::parse(value).expect_err(value);
            assert_eq!(err.to_string(), words, "{value}");
        }
    }

    #[test]
    fn a_mismatch_in_go_getters_words() {
        let Ok(ChecksumRequest::Digest(checksum)) =
            ChecksumRequest::parse("md5:00000000000000000000000000000000")
        else {
            panic!("an md5");
        };
        let mut hasher = checksum.hasher();
        hasher.update(b"hello");
        assert_eq!(
            hasher
                .verify("https://h/x.zip")
                .expect_err("another hash")
                .to_string(),
            "Checksums did not match for https://h/x.zip.\n\
             Expected: 00000000000000000000000000000000\n\
             Got: 5d41402abc4b2a76b9719d911017c592\n*md5.digest"
        );
    }

    #[test]
    fn checksum_files_as_go_getter_reads_them() {
        let md5 = "5d41402abc4b2a76b9719d911017c592";
        let found = |text: &str, archive: &str, sums: &str| {
            ArchiveChecksum::from_checksum_file(text, archive, sums).map(|c| c.to_string())
        };
        let want = Ok(format!("md5:{md5}"));
        // GNU style, by name, `*name`, relative path, `./` path, absolute.
        for name in [
            "x.zip",
            "*x.zip",
            "?x.zip",
            "v1/x.zip",
            "./v1/x.zip",
            "/dl/v1/x.zip",
        ] {
            let text = format!("00000000000000000000000000000000  other.zip\n{md5}  {name}\n");
            assert_eq!(found(&text, "/dl/v1/x.zip", "/dl/SUMS"), want, "{name}");
        }
        // BSD style; a line of another shape names no file and is taken.
        assert_eq!(
            found(&format!("MD5 (x.zip) = {md5}\n"), "/x.zip", "/SUMS"),
            want
        );
        assert_eq!(found(&format!("{md5} a b\n"), "/x.zip", "/SUMS"), want);
        // Lines that do not parse are skipped; no line for the archive.
        assert_eq!(
            found(
                &format!("garbage  x.zip\nMD5 x.zip = {md5}\n{md5}  y.zip"),
                "/x.zip",
                "/d/SUMS"
            ),
            Err(ChecksumError("no checksum found in: /d/SUMS".to_owned()))
        );
        // The last line needs no newline.
        assert_eq!(found(&format!("{md5}  x.zip"), "/x.zip", "/SUMS"), want);
        assert_eq!(relative("/a/b", "/a/c/d"), "../c/d");
    }
}
