//! A provider package unpacked as it downloads (docs/behaviour.md,
//! UNPACK-1 to UNPACK-10): the operations a writer gets for real archives
//! (written here, by Go's `archive/zip`, and the signed registry's), the
//! modes `terraform init` gives files, every hostile archive refused with
//! an error naming its entry, the same result whatever the chunks, the
//! unpacked `h1:` the hasher's and the lock files', and what an archive not
//! yet verified may write.

mod zipwriter;

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tfdisco_provider::{
    PackageHashError, UnpackError, UnpackLimits, UnpackOp, Unpacked, Unpacker, hash_package,
    hash1_of_files,
};
use zipwriter::{Descriptor, Entry, Method, Zip, hash1, zeros};

/// An operation, owned; consecutive `Data` are one (their split depends on
/// the chunks and the inflater).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Op {
    Folder(String),
    File(String),
    Data(Vec<u8>),
    FileEnd,
}

fn folder(path: &str) -> Op {
    Op::Folder(path.to_owned())
}

fn file(path: &str) -> Op {
    Op::File(path.to_owned())
}

fn data(bytes: &[u8]) -> Op {
    Op::Data(bytes.to_vec())
}

/// A writer in memory that holds the unpacker to its contract: paths
/// relative, normalized, each created once (exclusively) in a folder that
/// exists, `Data` only in an open file.
#[derive(Debug, Default)]
struct Disk {
    ops: Vec<Op>,
    folders: BTreeSet<String>,
    files: BTreeMap<String, Vec<u8>>,
    open: Option<String>,
}

impl Disk {
    fn apply(&mut self, op: UnpackOp<'_>) {
        match op {
            UnpackOp::Folder(path) | UnpackOp::File(path) => {
                assert!(self.open.is_none(), "{op:?} while a file is open");
                assert!(
                    !path.is_empty()
                        && !path.starts_with('/')
                        && path
                            .split('/')
                            .all(|e| !matches!(e, "" | "." | "..") && !e.contains('\\')),
                    "not a normalized relative path: {path:?}"
                );
                if let Some((parent, _)) = path.rsplit_once('/') {
                    assert!(self.folders.contains(parent), "{op:?} before its folder");
                }
                assert!(
                    !self.folders.contains(path) && !self.files.contains_key(path),
                    "{op:?} again"
                );
                if let UnpackOp::Folder(path) = op {
                    self.folders.insert(path.to_owned());
                    self.ops.push(folder(path));
                } else {
                    self.files.insert(path.to_owned(), Vec::new());
                    self.open = Some(path.to_owned());
                    self.ops.push(file(path));
                }
            }
            UnpackOp::Data(bytes) => {
                assert!(!bytes.is_empty(), "empty Data");
                let open = self.open.as_ref().expect("Data outside a file");
                self.files
                    .get_mut(open)
                    .expect("open")
                    .extend_from_slice(bytes);
                match self.ops.last_mut() {
                    Some(Op::Data(before)) => before.extend_from_slice(bytes),
                    _ => self.ops.push(data(bytes)),
                }
            }
            UnpackOp::FileEnd => {
                assert!(self.open.take().is_some(), "FileEnd outside a file");
                self.ops.push(Op::FileEnd);
            }
        }
    }

    /// Go's `dirhash.HashDir` of what was written.
    fn hash_dir(&self) -> String {
        let files: Vec<(&str, [u8; 32])> = self
            .files
            .iter()
            .map(|(name, bytes)| (name.as_str(), Sha256::digest(bytes).into()))
            .collect();
        hash1_of_files(&files).expect("written names are fine")
    }
}

/// The archive unpacked in chunks of `size` bytes: what was written, and
/// the result.
fn unpack_with(
    archive: &[u8],
    size: usize,
    limits: UnpackLimits,
) -> (Disk, Result<Unpacked, UnpackError>) {
    let mut unpacker = Unpacker::with_limits(limits);
    let mut disk = Disk::default();
    for chunk in archive.chunks(size.max(1)) {
        if let Err(e) = unpacker.update(chunk, |op| {
            disk.apply(op);
            Ok(())
        }) {
            return (disk, Err(e));
        }
    }
    let result = unpacker.finish();
    if result.is_ok() {
        assert!(disk.open.is_none(), "a file left open");
    }
    (disk, result)
}

/// The archive unpacked, the same whatever the chunks (UNPACK-1), with the
/// hasher's `h1:`, which is also the one of what was written (UNPACK-8).
fn unpack(archive: &[u8]) -> (Disk, Result<Unpacked, UnpackError>) {
    unpack_limited(archive, UnpackLimits::default())
}

fn unpack_limited(archive: &[u8], limits: UnpackLimits) -> (Disk, Result<Unpacked, UnpackError>) {
    let (disk, whole) = unpack_with(archive, archive.len(), limits);
    for size in [1, 7, 64, 4096] {
        let (other, result) = unpack_with(archive, size, limits);
        assert_eq!(other.ops, disk.ops, "chunks of {size}");
        match (&result, &whole) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "chunks of {size}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "chunks of {size}"),
            _ => panic!("chunks of {size}: {result:?} against {whole:?}"),
        }
    }
    if let Ok(unpacked) = &whole {
        let hashes = hash_package(archive).expect("the hasher takes what unpacks");
        assert_eq!(unpacked.h1, hashes.h1());
        assert_eq!(unpacked.archive, hashes);
        assert_eq!(unpacked.h1, disk.hash_dir());
        assert_eq!(unpacked.files, disk.files.len());
        assert_eq!(
            unpacked.bytes,
            disk.files.values().map(|f| f.len() as u64).sum::<u64>()
        );
        let moded: BTreeSet<&str> = unpacked.modes.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(moded, disk.files.keys().map(String::as_str).collect());
    }
    (disk, whole)
}

fn stored(name: &str, bytes: &[u8]) -> Entry {
    Entry::new(name, bytes, Method::Stored, Descriptor::None)
}

fn deflated(name: &str, bytes: &[u8]) -> Entry {
    Entry::new(name, bytes, Method::Deflated, Descriptor::Signed32)
}

fn with_mode(mut entry: Entry, made_by: u16, external: u32) -> Entry {
    entry.made_by = made_by;
    entry.external = external;
    entry
}

fn zip(entries: Vec<Entry>) -> Vec<u8> {
    Zip {
        entries,
        ..Zip::default()
    }
    .write()
}

fn modes(unpacked: &Unpacked) -> Vec<(&str, u32)> {
    unpacked
        .modes
        .iter()
        .map(|(p, m)| (p.as_str(), *m))
        .collect()
}

const UNIX: u16 = 3 << 8 | 20;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages");
    std::fs::read(path.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A package's files, each created, written and closed in the archive's
/// order, with their modes (UNPACK-1, UNPACK-5).
#[test]
fn a_simple_package() {
    let binary: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let archive = zip(vec![
        with_mode(
            deflated("terraform-provider-x_v1.0.0", &binary),
            UNIX,
            0o100_755 << 16,
        ),
        stored("LICENSE", b"MPL-2.0\n"),
    ]);
    let (disk, result) = unpack(&archive);
    let unpacked = result.expect("unpacks");
    assert_eq!(
        disk.ops,
        [
            file("terraform-provider-x_v1.0.0"),
            data(&binary),
            Op::FileEnd,
            file("LICENSE"),
            data(b"MPL-2.0\n"),
            Op::FileEnd,
        ]
    );
    assert_eq!(
        modes(&unpacked),
        [("terraform-provider-x_v1.0.0", 0o755), ("LICENSE", 0o644)]
    );
    assert_eq!(unpacked.files, 2);
    assert_eq!(unpacked.bytes, binary.len() as u64 + 8);
    assert_eq!(
        unpacked.h1,
        hash1(&[
            (b"terraform-provider-x_v1.0.0", &binary),
            (b"LICENSE", b"MPL-2.0\n")
        ])
    );
    assert_eq!(unpacked.archive.size(), archive.len() as u64);
}

/// Every folder of a file is announced once, shallowest first, before it
/// (UNPACK-2).
#[test]
fn nested_folders_are_announced_once_before_their_files() {
    let archive = zip(vec![
        stored("a/b/c.txt", b"c"),
        deflated("a/b/d.txt", b"d"),
        stored("a/e.txt", b"e"),
        stored("f/g/h", b"h"),
        stored("a/bc/i", b"i"),
    ]);
    let (disk, result) = unpack(&archive);
    result.expect("unpacks");
    let shape: Vec<Op> = disk
        .ops
        .into_iter()
        .filter(|op| !matches!(op, Op::Data(_) | Op::FileEnd))
        .collect();
    assert_eq!(
        shape,
        [
            folder("a"),
            folder("a/b"),
            file("a/b/c.txt"),
            file("a/b/d.txt"),
            file("a/e.txt"),
            folder("f"),
            folder("f/g"),
            file("f/g/h"),
            folder("a/bc"),
            file("a/bc/i"),
        ]
    );
}

/// Folder entries are created (empty ones too), once, with no mode of
/// their own; a folder only a mode makes (no `/`) is one too, and an empty
/// file is a file (UNPACK-2, UNPACK-7).
#[test]
fn folder_entries() {
    let archive = zip(vec![
        with_mode(stored("docs/", b""), UNIX, 0o040_700 << 16),
        stored("docs/README.md", b"# x\n"),
        stored("empty/", b""),
        stored("x/y/", b""),
        stored("a/b", b"b"),
        stored("a/", b""),
        with_mode(stored("by-mode", b""), UNIX, 0o040_755 << 16),
        with_mode(stored("dos-folder", b""), 20, 0x10),
        stored("empty-file", b""),
        with_mode(stored("later", b""), UNIX, 0o040_755 << 16),
        stored("later/inside", b"in"),
    ]);
    let (disk, result) = unpack(&archive);
    let unpacked = result.expect("unpacks");
    assert_eq!(
        disk.ops,
        [
            folder("docs"),
            file("docs/README.md"),
            data(b"# x\n"),
            Op::FileEnd,
            folder("empty"),
            folder("x"),
            folder("x/y"),
            folder("a"),
            file("a/b"),
            data(b"b"),
            Op::FileEnd,
            folder("later"),
            file("later/inside"),
            data(b"in"),
            Op::FileEnd,
            // From the central directory: what only its modes tell.
            folder("by-mode"),
            folder("dos-folder"),
            file("empty-file"),
            Op::FileEnd,
        ]
    );
    assert_eq!(
        modes(&unpacked),
        [
            ("docs/README.md", 0o644),
            ("a/b", 0o644),
            ("empty-file", 0o644),
            ("later/inside", 0o644),
        ]
    );
    assert_eq!(
        unpacked.h1,
        hash1(&[
            (b"docs/README.md", b"# x\n"),
            (b"a/b", b"b"),
            (b"empty-file", b""),
            (b"later/inside", b"in"),
        ])
    );
}

/// A file's permission bits, as Go's `FileHeader.Mode` reads them, setuid,
/// setgid and sticky masked off (UNPACK-5, UNPACK-6).
#[test]
fn modes_per_creator() {
    let archive = zip(vec![
        with_mode(stored("unix-755", b"x"), UNIX, 0o100_755 << 16),
        with_mode(stored("unix-600", b"x"), UNIX, 0o100_600 << 16),
        with_mode(stored("unix-4755", b"x"), UNIX, 0o104_755 << 16),
        with_mode(stored("unix-7777", b"x"), UNIX, 0o107_777 << 16),
        with_mode(stored("unix-none", b"x"), UNIX, 0),
        with_mode(stored("macos-640", b"x"), 19 << 8 | 20, 0o100_640 << 16),
        with_mode(stored("fat", b"x"), 20, 0x20),
        with_mode(stored("fat-read-only", b"x"), 20, 0x21),
        with_mode(stored("ntfs", b"x"), 11 << 8 | 20, 0x20),
        with_mode(stored("vfat-read-only", b"x"), 14 << 8 | 20, 0x01),
        with_mode(stored("other", b"x"), 10 << 8 | 20, 0o100_755 << 16),
    ]);
    let (_, result) = unpack(&archive);
    assert_eq!(
        modes(&result.expect("unpacks")),
        [
            ("unix-755", 0o755),
            ("unix-600", 0o600),
            ("unix-4755", 0o755),
            ("unix-7777", 0o777),
            ("unix-none", 0),
            ("macos-640", 0o640),
            ("fat", 0o666),
            ("fat-read-only", 0o444),
            ("ntfs", 0o666),
            ("vfat-read-only", 0o444),
            ("other", 0),
        ]
    );
    // Go's writer, as release tools use it.
    let (_, result) = unpack(&fixture("executable.zip"));
    assert_eq!(
        modes(&result.expect("unpacks")),
        [("terraform-provider-example_v1.0.0", 0o755)]
    );
}

/// What a refused archive gives: the error, and the paths of the files
/// written before it.
fn refused(archive: &[u8], limits: UnpackLimits) -> (UnpackError, Vec<String>) {
    let (disk, result) = unpack_limited(archive, limits);
    let err = result.expect_err("refused");
    (err, disk.files.into_keys().collect())
}

/// Each hostile archive is refused, naming the entry; a name is refused
/// before anything is written under it (UNPACK-3, UNPACK-4, UNPACK-7).
#[test]
fn hostile_archives_are_refused() {
    let limits = UnpackLimits::default();
    let cases: Vec<(&str, Vec<Entry>, &str, &str, &str)> = vec![
        (
            "..",
            vec![stored("ok", b"x"), stored("../x", b"x")],
            "parent-element",
            "../x",
            "entry \"../x\" has a \"..\" element: it would be unpacked outside the package's folder",
        ),
        (
            "a/../../x",
            vec![stored("a/../../x", b"x")],
            "parent-element",
            "a/../../x",
            "\"..\" element",
        ),
        (
            "backslash ..",
            vec![stored("a\\..\\..\\x", b"x")],
            "parent-element",
            "a\\..\\..\\x",
            "\"..\" element",
        ),
        (
            "/abs",
            vec![stored("/abs", b"x")],
            "absolute-name",
            "/abs",
            "entry \"/abs\" has an absolute name: it would be unpacked outside the package's folder",
        ),
        (
            "\\abs",
            vec![stored("\\abs", b"x")],
            "absolute-name",
            "\\abs",
            "absolute name",
        ),
        (
            "C:\\x",
            vec![stored("C:\\x", b"x")],
            "absolute-name",
            "C:\\x",
            "absolute name",
        ),
        (
            "C:x",
            vec![stored("C:x", b"x")],
            "absolute-name",
            "C:x",
            "absolute name",
        ),
        (
            "symlink",
            vec![
                with_mode(stored("link", b"/etc/passwd"), UNIX, 0o120_777 << 16),
                stored("after", b"x"),
            ],
            "symlink",
            "link",
            "entry \"link\" is a symbolic link: packages with links are not unpacked",
        ),
        (
            "empty symlink",
            vec![with_mode(stored("link", b""), UNIX, 0o120_777 << 16)],
            "symlink",
            "link",
            "symbolic link",
        ),
        (
            "duplicate",
            vec![stored("a", b"first"), stored("a", b"second")],
            "duplicate-name",
            "a",
            "two entries are named \"a\"",
        ),
        (
            "duplicate empty files",
            vec![stored("a", b""), stored("a", b"")],
            "duplicate-name",
            "a",
            "two entries are named \"a\"",
        ),
        (
            "duplicate folder entries",
            vec![stored("d/", b""), stored("d/", b"")],
            "duplicate-name",
            "d/",
            "two entries are named \"d/\"",
        ),
        (
            "c then c/d",
            vec![stored("c", b"x"), stored("c/d", b"x")],
            "name-conflict",
            "c/d",
            "entry \"c/d\": \"c\" would be both a file and a folder",
        ),
        (
            "c/d then c",
            vec![stored("c/d", b"x"), stored("c", b"x")],
            "name-conflict",
            "c",
            "entry \"c\": \"c\" would be both a file and a folder",
        ),
        (
            "c/ then c",
            vec![stored("c/", b""), stored("c", b"x")],
            "name-conflict",
            "c",
            "would be both a file and a folder",
        ),
        (
            "c then c/",
            vec![stored("c", b"x"), stored("c/", b"")],
            "name-conflict",
            "c/",
            "would be both a file and a folder",
        ),
        (
            "a/b/c then a/b",
            vec![stored("a/b/c", b"x"), stored("a/b", b"")],
            "name-conflict",
            "a/b",
            "\"a/b\" would be both a file and a folder",
        ),
        (
            "folder entry with content",
            vec![stored("docs/", b"hidden")],
            "folder-with-content",
            "docs/",
            "entry \"docs/\" is a folder with content",
        ),
        (
            "folder by mode with content",
            vec![with_mode(stored("docs", b"hidden"), UNIX, 0o040_755 << 16)],
            "folder-with-content",
            "docs",
            "is a folder with content",
        ),
        (
            "encrypted",
            vec![{
                let mut e = stored("secret", b"x");
                e.flags = 1;
                e
            }],
            "unsupported",
            "secret",
            "entry \"secret\": encryption is not supported",
        ),
        (
            "./x",
            vec![stored("./x", b"x")],
            "unsafe-name",
            "./x",
            "not a relative path of plain names",
        ),
        (
            "a//b",
            vec![stored("a//b", b"x")],
            "unsafe-name",
            "a//b",
            "not a relative path of plain names",
        ),
        (
            "newline",
            vec![stored("a\nb", b"x")],
            "newline-in-name",
            "a\nb",
            "newlines",
        ),
    ];
    for (what, entries, kind, entry, message) in cases {
        let (err, written) = refused(&zip(entries), limits);
        assert_eq!(err.kind(), kind, "{what}: {err}");
        assert_eq!(err.entry(), Some(entry), "{what}: {err}");
        assert!(err.to_string().contains(message), "{what}: {err}");
        assert!(
            err.to_string().starts_with("provider package archive: "),
            "{what}: {err}"
        );
        // A refused name never reaches the writer.
        if matches!(
            kind,
            "parent-element" | "absolute-name" | "unsafe-name" | "newline-in-name"
        ) {
            assert!(!written.iter().any(|w| w == entry), "{what}: {written:?}");
        }
    }
    // Go's writer: a link, a name that is not UTF-8.
    let (err, _) = refused(&fixture("symlink.zip"), limits);
    assert!(
        matches!(&err, UnpackError::Symlink { entry } if entry == "link"),
        "{err}"
    );
    let (err, written) = refused(&fixture("latin1.zip"), limits);
    assert_eq!(err.kind(), "not-utf8", "{err}");
    assert_eq!(
        err.to_string(),
        "provider package archive: entry \"caf\u{fffd}.txt\": its name is not UTF-8"
    );
    assert!(written.is_empty());
    for name in [
        "dotdot.zip",
        "absolute.zip",
        "duplicate.zip",
        "conflict.zip",
        "conflict-folder.zip",
    ] {
        refused(&fixture(name), limits);
    }
}

/// The limits: entries (folders count) and bytes written, refused before
/// the writer goes past them (UNPACK-9).
#[test]
fn limits() {
    let archive = zip(vec![
        stored("a", b"12345"),
        stored("d/", b""),
        deflated("b", b"67890"),
    ]);
    let (_, result) = unpack_limited(
        &archive,
        UnpackLimits {
            max_entries: 3,
            max_bytes: 10,
            ..UnpackLimits::default()
        },
    );
    assert_eq!(result.expect("at the limits").bytes, 10);
    let (err, _) = refused(
        &archive,
        UnpackLimits {
            max_entries: 2,
            ..UnpackLimits::default()
        },
    );
    assert!(
        matches!(&err, UnpackError::TooManyEntries { entry, limit: 2 } if entry == "b"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "provider package archive: entry \"b\" is past the limit of 2 entries"
    );
    let (disk, result) = unpack_with(
        &archive,
        1,
        UnpackLimits {
            max_bytes: 9,
            ..UnpackLimits::default()
        },
    );
    let err = result.expect_err("too large");
    assert!(
        matches!(&err, UnpackError::TooLarge { entry, limit: 9 } if entry == "b"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "provider package archive: entry \"b\" takes the unpacked package past the limit of 9 bytes"
    );
    let written: usize = disk.files.values().map(Vec::len).sum();
    assert!(written <= 9, "{written} bytes written");
    // A deflate bomb stops at the limit, not at its end.
    let bomb = zip(vec![deflated("bomb", &vec![0; 64 << 20])]);
    assert!(bomb.len() < 100_000);
    let (disk, result) = unpack_with(
        &bomb,
        bomb.len(),
        UnpackLimits {
            max_bytes: 1 << 20,
            ..UnpackLimits::default()
        },
    );
    assert_eq!(result.expect_err("too large").kind(), "too-large");
    assert!(disk.files["bomb"].len() <= 1 << 20);
    assert_eq!(UnpackLimits::default().max_bytes, 4 << 30);
    assert_eq!(UnpackLimits::default().max_entries, 100_000);
}

/// The archive fed in chunks of `size` to a writer that keeps only the
/// count of bytes written, and checks at every `Data` that the files hold
/// no more than `limits` allow for what was fed so far (UNPACK-10).
fn metered(
    archive: &[u8],
    size: usize,
    limits: UnpackLimits,
) -> (u64, Result<Unpacked, UnpackError>) {
    let mut unpacker = Unpacker::with_limits(limits);
    let mut written = 0u64;
    let mut fed = 0u64;
    for chunk in archive.chunks(size.max(1)) {
        fed += chunk.len() as u64;
        let result = unpacker.update(chunk, |op| {
            if let UnpackOp::Data(bytes) = op {
                written += bytes.len() as u64;
                assert!(
                    written <= limits.bound(fed),
                    "{written} bytes written after {fed} read"
                );
            }
            Ok(())
        });
        if let Err(e) = result {
            return (written, Err(e));
        }
    }
    (written, unpacker.finish())
}

const MIB: u64 = 1 << 20;

/// A deflate bomb (1 GiB of zeros in 1 MiB of archive) under the default
/// limits: refused once the files would pass 64 MiB, the allowance, since
/// 32 times what was read is less; what was written is within the bound
/// and the message names both bounds (UNPACK-10).
#[test]
fn a_deflate_bomb_stops_at_the_allowance() {
    let bomb = zeros("terraform-provider-bomb_v1.0.0", 1024);
    assert!(bomb.len() < 1_100_000, "{} bytes", bomb.len());
    let limits = UnpackLimits::default();
    for size in [64 << 10, bomb.len()] {
        let (written, result) = metered(&bomb, size, limits);
        let err = result.expect_err("a bomb");
        assert_eq!(err.kind(), "too-expanded", "{err}");
        let UnpackError::TooExpanded {
            entry,
            read,
            ratio,
            allowance,
            limit,
        } = &err
        else {
            panic!("{err:?}");
        };
        assert_eq!(entry, "terraform-provider-bomb_v1.0.0");
        assert_eq!((*ratio, *allowance, *limit), (32, 64 * MIB, 4 << 30));
        assert!(*read <= bomb.len() as u64 && 32 * read < 64 * MIB);
        // Refused at the bound, not before: the last piece it would have
        // given (64 KiB at most) is what is missing.
        assert!(written <= 64 * MIB, "{written} bytes written");
        assert!(written > 63 * MIB, "{written} bytes written");
        assert_eq!(
            err.to_string(),
            format!(
                "provider package archive: entry \"terraform-provider-bomb_v1.0.0\" expands to \
                 more than 32 times the {read} bytes of the archive read so far (an archive not \
                 yet verified may expand to 32 times its size beyond its first 64 MiB, and to \
                 4 GiB in all)"
            )
        );
    }
}

/// Bytes from four values, as a Go binary deflates: about 4×.
fn binary_like(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            [0x00, 0x48, 0x8b, 0xff][(x >> 60) as usize & 3]
        })
        .collect()
}

/// The ratio: a package that unpacks to just under `max_ratio` times its
/// archive passes, read whole or as it streams; just over, it is refused;
/// an archive read in small chunks is held to what was read so far, not to
/// its final size (UNPACK-10).
#[test]
fn the_ratio_bounds_an_unverified_archive() {
    let package = zip(vec![
        deflated("terraform-provider-four_v1.0.0", &binary_like(1 << 20)),
        deflated("LICENSE", &b"Licensed to you.\n".repeat(64)),
    ]);
    let size = package.len() as u64;
    let total = (1 << 20) + 17 * 64;
    let ratio = total / size;
    assert!((3..5).contains(&ratio), "{total} bytes from {size}");
    let just_under = UnpackLimits {
        max_ratio: ratio + 1,
        ratio_allowance: 0,
        ..UnpackLimits::default()
    };
    for chunk in [4096, 64 << 10, package.len()] {
        let (written, result) = metered(&package, chunk, just_under);
        let unpacked = result.unwrap_or_else(|e| panic!("chunks of {chunk}: {e}"));
        assert_eq!((written, unpacked.bytes), (total, total));
    }
    let (_, result) = unpack_limited(&package, just_under);
    result.expect("whatever the chunks");
    // A ratio under the package's: refused, once what was written passes
    // that ratio of the archive read.
    let just_over = UnpackLimits {
        max_ratio: ratio,
        ..just_under
    };
    let (written, result) = metered(&package, package.len(), just_over);
    let err = result.expect_err("over the ratio");
    assert!(
        matches!(&err, UnpackError::TooExpanded { entry, read, ratio: r, allowance: 0, .. }
            if entry == "terraform-provider-four_v1.0.0" && *read == size && *r == ratio),
        "{err:?}"
    );
    assert!(written <= ratio * size);
    assert_eq!(
        err.to_string(),
        format!(
            "provider package archive: entry \"terraform-provider-four_v1.0.0\" expands to more \
             than {ratio} times the {size} bytes of the archive read so far (an archive not yet \
             verified may expand to {ratio} times its size beyond its first 0 bytes, and to \
             4 GiB in all)"
        )
    );
    // A bomb read 1 KiB at a time is stopped near 32 times what was read,
    // far before the bound its whole archive would give.
    let bomb = zeros("bomb", 64);
    let limits = UnpackLimits {
        ratio_allowance: 0,
        ..UnpackLimits::default()
    };
    let (written, result) = metered(&bomb, 1024, limits);
    assert_eq!(result.expect_err("a bomb").kind(), "too-expanded");
    assert!(written < 64 * MIB / 8, "{written} bytes written");
}

/// The allowance: a small package of compressible files passes whatever
/// its ratio, up to `ratio_allowance` (the default's 64 MiB with zeros
/// that deflate 1000×); one byte more of allowance is needed for each one
/// more written (UNPACK-10).
#[test]
fn the_allowance_lets_small_compressible_packages_through() {
    let docs = zeros("docs/schema.json", 4);
    let fits = UnpackLimits {
        ratio_allowance: 4 * MIB,
        ..UnpackLimits::default()
    };
    let (_, result) = unpack_limited(&docs, fits);
    assert_eq!(result.expect("within the allowance").bytes, 4 * MIB);
    let (written, result) = metered(
        &docs,
        docs.len(),
        UnpackLimits {
            ratio_allowance: 4 * MIB - 1,
            ..fits
        },
    );
    assert_eq!(result.expect_err("one byte over").kind(), "too-expanded");
    assert!(written < 4 * MIB);
    // The defaults: 64 MiB of zeros pass, 65 MiB do not.
    let (written, result) = metered(&zeros("a", 64), 64 << 10, UnpackLimits::default());
    assert_eq!(result.expect("the allowance").bytes, 64 * MIB);
    assert_eq!(written, 64 * MIB);
    let (written, result) = metered(&zeros("a", 65), 64 << 10, UnpackLimits::default());
    assert_eq!(result.expect_err("past it").kind(), "too-expanded");
    assert!(written <= 64 * MIB);
}

/// The cap holds whatever the ratio allows: `TooLarge`, naming it, when it
/// is what stops the archive (UNPACK-9, UNPACK-10).
#[test]
fn the_cap_holds_with_any_ratio() {
    let bomb = zeros("bomb", 8);
    for max_ratio in [1 << 20, u64::MAX] {
        let limits = UnpackLimits {
            max_bytes: 2 * MIB,
            max_ratio,
            ratio_allowance: 0,
            ..UnpackLimits::default()
        };
        let (written, result) = metered(&bomb, bomb.len(), limits);
        let err = result.expect_err("past the cap");
        assert!(
            matches!(&err, UnpackError::TooLarge { limit, .. } if *limit == 2 * MIB),
            "{err:?}"
        );
        assert!(written <= 2 * MIB, "{written}");
    }
    let (_, result) = metered(
        &bomb,
        bomb.len(),
        UnpackLimits {
            max_bytes: 8 * MIB,
            max_ratio: u64::MAX,
            ..UnpackLimits::default()
        },
    );
    assert_eq!(result.expect("at the cap").bytes, 8 * MIB);
}

/// An archive cut short is refused at `finish`, whatever was written; an
/// error is final (UNPACK-1).
#[test]
fn a_truncated_archive_and_final_errors() {
    let archive = zip(vec![deflated("a/b", b"bytes"), stored("c", b"c")]);
    for cut in 0..archive.len() {
        let (_, result) = unpack_with(&archive[..cut], 3, UnpackLimits::default());
        let err = result.expect_err("cut short");
        assert!(
            matches!(
                &err,
                UnpackError::Archive(PackageHashError::Truncated { .. })
            ),
            "{cut}: {err}"
        );
    }
    let mut unpacker = Unpacker::new();
    let hostile = zip(vec![stored("../x", b"x"), stored("y", b"y")]);
    let first = unpacker.update(&hostile, |_| Ok(())).expect_err("refused");
    let again = unpacker.update(b"more", |_| Ok(())).expect_err("final");
    assert_eq!(first.to_string(), again.to_string());
    assert_eq!(
        unpacker.finish().expect_err("final").to_string(),
        first.to_string()
    );
}

/// An error of the writer stops the unpacking, as `Output` (UNPACK-1).
#[test]
fn the_writers_error_stops_it() {
    let archive = zip(vec![stored("a", b"a"), stored("b", b"b")]);
    let mut unpacker = Unpacker::new();
    let mut seen = Vec::new();
    let err = unpacker
        .update(&archive, |op| {
            seen.push(format!("{op:?}"));
            if op == UnpackOp::File("b") {
                return Err(io::Error::other("the disk is full"));
            }
            Ok(())
        })
        .expect_err("stopped");
    assert!(matches!(&err, UnpackError::Output(e) if e.to_string() == "the disk is full"));
    assert_eq!(err.kind(), "output");
    assert_eq!(
        err.to_string(),
        "writing the unpacked package: the disk is full"
    );
    assert_eq!(seen.last().map(String::as_str), Some("File(\"b\")"));
    let again = unpacker.finish().expect_err("final");
    assert!(matches!(&again, UnpackError::Output(e) if e.to_string() == "the disk is full"));
}

/// Every Go-written fixture that unpacks gives Go's `HashDir` of the
/// package go-getter unpacks, and the hasher's `h1:` (UNPACK-8); the ones
/// refused are the hasher's refusals and the unpacker's own.
#[test]
fn go_written_archives_unpack_as_terraform_does() {
    let table = String::from_utf8(fixture("expected.tsv")).expect("UTF-8");
    let mut unpacked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (name, ours, go_unpacked) = (fields[0], fields[1], fields[4]);
        let (_, result) = unpack(&fixture(name));
        match result {
            Ok(u) => {
                assert_eq!(u.h1, ours, "{name}");
                assert_eq!(u.h1, go_unpacked, "{name}");
                unpacked += 1;
            }
            // The hasher's refusals, two of them named more closely, and
            // the unpacker's own.
            Err(e) => match (name, e.kind(), ours.strip_prefix("error:")) {
                ("dotdot.zip", "parent-element", Some("unsafe-name"))
                | ("absolute.zip", "absolute-name", Some("unsafe-name"))
                | ("symlink.zip", "symlink", None)
                | ("latin1.zip", "not-utf8", None) => {}
                (_, kind, hasher) => assert_eq!(Some(kind), hasher, "{name}: {e}"),
            },
        }
    }
    assert!(unpacked >= 15, "{unpacked} unpacked");
}

/// Every layout the hasher reads unpacks to the same operations (UNPACK-1).
#[test]
fn every_entry_layout_unpacks_alike() {
    let big: Vec<u8> = (0..300_000u32)
        .flat_map(|i| (i % 251).to_le_bytes())
        .collect();
    let files: Vec<(&str, &[u8])> = vec![
        ("terraform-provider-x_v1.0.0", &big[..]),
        ("docs/a.md", b"# A\n"),
        ("empty", b""),
        ("lookalike", b"x PK\x07\x08 \0\0\0\0 PK\x03\x04 y"),
    ];
    let mut expected = None;
    for (method, descriptor, zip64) in [
        (Method::Stored, Descriptor::None, false),
        (Method::Stored, Descriptor::Signed32, false),
        (Method::Stored, Descriptor::Signed64, true),
        (Method::Deflated, Descriptor::None, false),
        (Method::Deflated, Descriptor::Unsigned32, false),
        (Method::Deflated, Descriptor::Signed64, true),
    ] {
        let archive = Zip {
            entries: files
                .iter()
                .map(|(n, d)| {
                    let mut e = Entry::new(n, d, method, descriptor);
                    e.zip64 = zip64;
                    e
                })
                .collect(),
            zip64_end: zip64,
            comment: b"comment".to_vec(),
        }
        .write();
        let (disk, result) = unpack(&archive);
        let unpacked = result.unwrap_or_else(|e| panic!("{method:?} {descriptor:?}: {e}"));
        let seen = (disk.ops, unpacked.h1, unpacked.modes);
        match &expected {
            None => expected = Some(seen),
            Some(first) => assert_eq!(&seen, first, "{method:?} {descriptor:?} {zip64}"),
        }
    }
}

/// The signed registry's packages (Go-written, as release tools write them;
/// beta 0.10.0 with a folder entry) unpack to the `h1:` hashes `terraform
/// providers lock` recorded in the golden lock file (UNPACK-8).
#[test]
fn signed_registry_packages_give_the_golden_h1() {
    let testkit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures");
    let golden = std::fs::read_to_string(testkit.join("lock-goldens/fresh/terraform.lock.hcl"))
        .expect("the golden lock file");
    let mut checked = 0;
    for (name, version) in [("alpha", "1.1.0"), ("beta", "0.10.0")] {
        let block = golden
            .split("provider ")
            .find(|b| b.contains(&format!("/ns/{name}\"")))
            .expect("a block");
        assert!(block.contains(&format!("version     = \"{version}\"")));
        let recorded: BTreeSet<&str> = block
            .lines()
            .filter_map(|l| l.trim().strip_prefix('"')?.strip_suffix("\","))
            .filter(|h| h.starts_with("h1:"))
            .collect();
        let mut got = BTreeSet::new();
        for platform in ["linux_amd64", "darwin_arm64", "windows_amd64"] {
            let path = testkit.join(format!(
                "signed-registry/ns/{name}/{version}/terraform-provider-{name}_{version}_{platform}.zip"
            ));
            let archive = std::fs::read(&path).expect("a package");
            let (disk, result) = unpack(&archive);
            let unpacked = result.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let binary = format!(
                "terraform-provider-{name}_v{version}{}",
                if platform == "windows_amd64" {
                    ".exe"
                } else {
                    ""
                }
            );
            assert!(modes(&unpacked).contains(&(binary.as_str(), 0o755)));
            if name == "beta" {
                assert_eq!(disk.ops[0], folder("docs"), "the folder entry");
                assert_ne!(unpacked.h1, unpacked.archive.h1_zip());
            }
            got.insert(unpacked.h1);
            checked += 1;
        }
        assert_eq!(
            got.iter().map(String::as_str).collect::<BTreeSet<_>>(),
            recorded,
            "{name} {version}"
        );
    }
    assert_eq!(checked, 6);
}

/// Every package of the signed registry unpacks.
#[test]
fn every_signed_registry_package_unpacks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures/signed-registry/ns");
    let mut count = 0;
    for provider in std::fs::read_dir(&root).expect("ns") {
        for version in std::fs::read_dir(provider.expect("a provider").path()).expect("versions") {
            for file in std::fs::read_dir(version.expect("a version").path()).expect("files") {
                let path = file.expect("a file").path();
                if path.extension().is_some_and(|e| e == "zip") {
                    let archive = std::fs::read(&path).expect("a package");
                    let (_, result) = unpack_with(&archive, 4096, UnpackLimits::default());
                    let unpacked = result.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    assert_eq!(unpacked.h1, hash_package(&archive).expect("hashes").h1());
                    count += 1;
                }
            }
        }
    }
    assert_eq!(count, 21);
}
