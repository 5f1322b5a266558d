//! Provider package hashes (docs/behaviour.md, HASH-1 to HASH-9): archives
//! written by Go's `archive/zip`, checked against Go's `dirhash`, every zip
//! layout the hasher reads, chunked any way, and damaged archives.

mod zipwriter;

use std::path::PathBuf;

use tfdisco_provider::{
    EMPTY_H1, PackageHashError, PackageHasher, PackageReadError, hash_package, hash_package_reader,
};
use zipwriter::{Descriptor, Entry, Method, Zip, hash1};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages");
    std::fs::read(path.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The hashes, fed in chunks of `size` bytes.
fn chunked(archive: &[u8], size: usize) -> Result<(String, String), PackageHashError> {
    let mut hasher = PackageHasher::new();
    for chunk in archive.chunks(size.max(1)) {
        hasher.update(chunk)?;
    }
    hasher.finish().map(|h| (h.h1(), h.zh()))
}

/// The hashes, the same whatever the chunks.
fn hashes(archive: &[u8]) -> Result<(String, String), PackageHashError> {
    let whole = chunked(archive, archive.len());
    for size in [1, 2, 3, 5, 16, 27, 28, 29, 100, 4096] {
        assert_eq!(chunked(archive, size), whole, "chunks of {size}");
    }
    whole
}

struct Row {
    file: String,
    ours: String,
    zh: String,
    go_zip: String,
    go_unpacked: String,
}

fn rows() -> Vec<Row> {
    let table = String::from_utf8(fixture("expected.tsv")).expect("UTF-8");
    table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Row {
                file: f[0].into(),
                ours: f[1].into(),
                zh: f[2].into(),
                go_zip: f[3].into(),
                go_unpacked: f[4].into(),
            }
        })
        .collect()
}

/// Where Go's `HashZip` and the unpacked package agree, tfdisco gives that
/// hash: only a name with a backslash is refused (HASH-7: Terraform unpacks
/// it as a folder on Windows and as one file elsewhere).
#[test]
fn go_written_archives_hash_as_go_and_terraform_do() {
    let rows = rows();
    assert!(rows.len() >= 28, "{} rows", rows.len());
    for row in rows {
        let archive = fixture(&row.file);
        let got = hashes(&archive);
        match &got {
            Ok((h1, zh)) => {
                assert_eq!(*h1, row.ours, "{}", row.file);
                assert_eq!(*zh, row.zh, "{}", row.file);
            }
            Err(e) => assert_eq!(format!("error:{}", e.kind()), row.ours, "{}: {e}", row.file),
        }
        if row.go_zip == row.go_unpacked && row.go_zip.starts_with("h1:") {
            if row.file == "backslash.zip" {
                assert!(matches!(got, Err(PackageHashError::UnsafeName { .. })));
            } else {
                assert_eq!(got.as_ref().map(|h| &h.0), Ok(&row.go_zip), "{}", row.file);
            }
        }
        // Where Go's unpacked package has a hash, it is the one recorded
        // (HASH-8): folder entries are no lines.
        if let Ok((h1, _)) = &got {
            assert_eq!(*h1, row.go_unpacked, "{}", row.file);
        }
    }
}

#[test]
fn renovate_fixtures_give_renovates_hashes() {
    let h = hash_package(&fixture("renovate-test.zip")).expect("hashes");
    assert_eq!(h.h1(), "h1:I2F2atKZqKEOYk1tTLe15Llf9rVqxz48ZL1eZB9g8zM=");
    assert_eq!(h.files(), 2);
    // A folder entry is no line of the summary (HASH-8), as in Terraform's
    // lock files; Go's HashZip would give h1:Fse346dV….
    let h = hash_package(&fixture("renovate-test_with_folder.zip")).expect("hashes");
    assert_eq!(h.h1(), "h1:g92f/mR2hlVmeWBlplxxJyP2H3fdyPwYccr7uJhcRz8=");
    assert_eq!(h.files(), 2);
}

#[test]
fn the_empty_package_and_the_hash_formats() {
    let h = hash_package(&fixture("empty.zip")).expect("hashes");
    assert_eq!(h.h1(), EMPTY_H1);
    assert_eq!(h.h1(), "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
    assert_eq!(h.files(), 0);
    assert_eq!(h.size(), 22);
    assert_eq!(
        h.zh(),
        "zh:8739c76e681f900923b900c9df0ef75cf421d39cabb54650c4b9ad19b6a76d85"
    );
    assert_eq!(h.zh(), format!("zh:{}", h.sha256_hex()));
    assert_eq!(h.sha256_hex().len(), 64);
    // The reader gives the same.
    let read = hash_package_reader(&fixture("deflated.zip")[..]).expect("hashes");
    assert_eq!(
        read,
        hash_package(&fixture("deflated.zip")).expect("hashes")
    );
    // What went wrong is a type: the reader's failure, or the package's.
    let not_a_zip = hash_package_reader(&b"not a zip"[..]).expect_err("no package");
    let PackageReadError::Package(refused) = not_a_zip else {
        panic!("{not_a_zip:?}")
    };
    assert_eq!(refused.kind(), "not-a-zip");
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the disk is gone"))
        }
    }
    let failed = hash_package_reader(Broken).expect_err("unreadable");
    assert!(
        matches!(&failed, PackageReadError::Read(e) if e.to_string() == "the disk is gone"),
        "{failed:?}"
    );
}

/// Every layout of an entry gives the hash of its files (HASH-3, HASH-4).
#[test]
fn every_entry_layout_gives_the_files_hash() {
    let big: Vec<u8> = (0..300_000u32)
        .flat_map(|i| (i % 251).to_le_bytes())
        .collect();
    let files: Vec<(&str, &[u8])> = vec![
        ("terraform-provider-x_v1.0.0", &big[..]),
        ("LICENSE", b"MPL-2.0\n"),
        ("empty", b""),
        ("docs/a.md", b"# A\n"),
        (
            "descriptor-lookalike",
            b"x PK\x07\x08 \0\0\0\0 PK\x03\x04 y",
        ),
    ];
    let expected = hash1(
        &files
            .iter()
            .map(|(n, d)| (n.as_bytes(), *d))
            .collect::<Vec<_>>(),
    );
    let layouts = [
        (Method::Stored, Descriptor::None, false),
        (Method::Stored, Descriptor::Signed32, false),
        (Method::Stored, Descriptor::Signed64, true),
        (Method::Stored, Descriptor::None, true),
        (Method::Deflated, Descriptor::None, false),
        (Method::Deflated, Descriptor::Signed32, false),
        (Method::Deflated, Descriptor::Signed64, false),
        (Method::Deflated, Descriptor::Unsigned32, false),
        (Method::Deflated, Descriptor::Signed64, true),
        (Method::Deflated, Descriptor::None, true),
    ];
    for (method, descriptor, zip64) in layouts {
        for zip64_end in [false, true] {
            let zip = Zip {
                entries: files
                    .iter()
                    .map(|(n, d)| {
                        let mut e = Entry::new(n, d, method, descriptor);
                        e.zip64 = zip64;
                        e
                    })
                    .collect(),
                zip64_end,
                comment: b"a comment".to_vec(),
            };
            let archive = zip.write();
            let what = format!("{method:?} {descriptor:?} zip64 {zip64} end {zip64_end}");
            let (h1, _) = hashes(&archive).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(h1, expected, "{what}");
        }
    }
}

/// A stored entry whose bytes hold a whole stored archive, descriptors and
/// all, is read to its own descriptor (HASH-4).
#[test]
fn a_stored_archive_inside_a_stored_entry() {
    let inner = Zip {
        entries: vec![Entry::new(
            "x",
            b"inner",
            Method::Stored,
            Descriptor::Signed32,
        )],
        ..Zip::default()
    }
    .write();
    let outer = Zip {
        entries: vec![
            Entry::new("inner.zip", &inner, Method::Stored, Descriptor::Signed32),
            Entry::new("after", b"after", Method::Stored, Descriptor::Signed32),
        ],
        ..Zip::default()
    }
    .write();
    let (h1, _) = hashes(&outer).expect("hashes");
    assert_eq!(h1, hash1(&[(b"inner.zip", &inner), (b"after", b"after")]));
}

/// Every prefix of an archive is an error, never a hash (HASH-5).
#[test]
fn every_truncation_is_an_error() {
    for file in [
        "deflated.zip",
        "raw.zip",
        "folders.zip",
        "mixed.zip",
        "stored.zip",
    ] {
        let archive = fixture(file);
        let step = if archive.len() > 10_000 { 7 } else { 1 };
        for len in (0..archive.len()).step_by(step) {
            let mut hasher = PackageHasher::new();
            let result = hasher
                .update(&archive[..len])
                .and_then(|()| hasher.finish().map(|_| ()));
            match result {
                Err(PackageHashError::Truncated { offset, .. }) => {
                    assert_eq!(offset, len as u64, "{file} cut at {len}")
                }
                other => panic!("{file} cut at {len}: {other:?}"),
            }
        }
    }
}

/// A byte changed anywhere either changes nothing the hashes cover or is an
/// error: never another `h1` (HASH-5, HASH-6).
#[test]
fn one_corrupt_byte_never_gives_another_h1() {
    for file in ["deflated.zip", "raw.zip", "folders.zip", "mixed.zip"] {
        let archive = fixture(file);
        let (good, _) = hashes(&archive).expect("hashes");
        // A directory header's "made by" and external attributes say
        // whether an entry is a folder (HASH-8): changing them may.
        let mode_bytes: Vec<usize> = archive
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == b"PK\x01\x02")
            .flat_map(|(at, _)| (at + 4..at + 6).chain(at + 38..at + 42))
            .collect();
        for at in 0..archive.len() {
            for flip in [0x01, 0xff] {
                let mut bad = archive.clone();
                bad[at] ^= flip;
                if let Ok(h) = hash_package(&bad)
                    && !mode_bytes.contains(&at)
                {
                    assert_eq!(h.h1(), good, "{file}: byte {at} ^ {flip:#x}");
                }
            }
        }
    }
}

fn one(entry: Entry) -> Vec<u8> {
    Zip {
        entries: vec![entry],
        ..Zip::default()
    }
    .write()
}

#[test]
fn unsupported_methods_and_encryption_are_refused() {
    let mut e = Entry::new("bz", b"data", Method::Stored, Descriptor::None);
    e.method_id = Some(12);
    let err = hash_package(&one(e)).expect_err("bzip2");
    assert!(
        matches!(&err, PackageHashError::Unsupported { entry, what } if entry == "bz" && what.contains("method 12")),
        "{err}"
    );
    let mut e = Entry::new("secret", b"data", Method::Stored, Descriptor::None);
    e.flags = 1;
    let err = hash_package(&one(e)).expect_err("encrypted");
    assert_eq!(err.kind(), "unsupported");
    assert_eq!(err.entry(), Some("secret"));
    assert!(
        err.to_string().contains("encryption is not supported"),
        "{err}"
    );
}

/// The central directory must describe the entries read (HASH-6).
#[test]
fn a_central_directory_that_disagrees_is_refused() {
    let good = Zip {
        entries: vec![
            Entry::new("a", b"alpha", Method::Deflated, Descriptor::Signed32),
            Entry::new("b", b"beta", Method::Stored, Descriptor::None),
        ],
        ..Zip::default()
    }
    .write();
    hash_package(&good).expect("the unchanged archive hashes");
    let central = good
        .windows(4)
        .position(|w| w == b"PK\x01\x02")
        .expect("a directory");
    let end = good.len() - 22;
    type Change = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, Change)> = vec![
        ("name", Box::new(move |z| z[central + 46] = b'z')),
        ("CRC-32", Box::new(move |z| z[central + 16] ^= 1)),
        ("compressed size", Box::new(move |z| z[central + 20] ^= 1)),
        ("size", Box::new(move |z| z[central + 24] ^= 1)),
        ("method", Box::new(move |z| z[central + 10] = 0)),
        ("flags", Box::new(move |z| z[central + 8] = 0)),
        (
            "where no entry starts",
            Box::new(move |z| z[central + 42] = 1),
        ),
        ("counts", Box::new(move |z| z[end + 10] = 1)),
        ("bytes long", Box::new(move |z| z[end + 12] ^= 1)),
        ("starts at", Box::new(move |z| z[end + 16] ^= 1)),
    ];
    for (what, change) in cases {
        let mut bad = good.clone();
        change(&mut bad);
        let err = hash_package(&bad).expect_err(what);
        assert_eq!(err.kind(), "central-directory", "{what}: {err}");
        assert!(err.to_string().contains(what), "{what}: {err}");
    }
    // An entry the directory does not list.
    let listed_once = Zip {
        entries: vec![Entry::new("a", b"alpha", Method::Stored, Descriptor::None)],
        ..Zip::default()
    }
    .write();
    let mut two = one(Entry::new("x", b"x", Method::Stored, Descriptor::None));
    let cut = two.windows(4).position(|w| w == b"PK\x01\x02").expect("cd");
    two.truncate(cut);
    let mut unlisted = two.clone();
    let shift = unlisted.len();
    let mut rest = listed_once.clone();
    // Move the listed archive after the unlisted entry: its offsets shift.
    let cd = rest
        .windows(4)
        .position(|w| w == b"PK\x01\x02")
        .expect("cd");
    rest[cd + 42..cd + 46].copy_from_slice(&(shift as u32).to_le_bytes());
    let end = rest.len() - 22;
    let start = u32::from_le_bytes(rest[end + 16..end + 20].try_into().expect("4 bytes"));
    rest[end + 16..end + 20].copy_from_slice(&(start + shift as u32).to_le_bytes());
    unlisted.extend_from_slice(&rest);
    let err = hash_package(&unlisted).expect_err("unlisted");
    assert!(
        err.to_string().contains("\"x\" at byte 0 is not listed"),
        "{err}"
    );
}

#[test]
fn bytes_before_after_or_between_records_are_refused() {
    let good = fixture("deflated.zip");
    let mut prefixed = b"MZ".to_vec();
    prefixed.extend_from_slice(&good);
    let err = hash_package(&prefixed).expect_err("a prefix");
    assert!(
        matches!(err, PackageHashError::NotAZip { offset: 0, .. }),
        "{err}"
    );
    let mut trailing = good.clone();
    trailing.push(0);
    let err = hash_package(&trailing).expect_err("a suffix");
    assert_eq!(
        err,
        PackageHashError::TrailingData {
            offset: good.len() as u64
        }
    );
    assert_eq!(hash_package(b"").expect_err("empty").kind(), "truncated");
    assert_eq!(
        hash_package(b"not a zip at all").expect_err("text").kind(),
        "not-a-zip"
    );
}

#[test]
fn an_error_is_final() {
    let mut hasher = PackageHasher::new();
    let err = hasher.update(b"XXXX").expect_err("not a zip");
    assert_eq!(hasher.update(&fixture("empty.zip")), Err(err.clone()));
    assert_eq!(hasher.finish().expect_err("still"), err);
}

#[test]
fn deflate_data_that_is_not_deflate_is_corrupt() {
    let mut e = Entry::new("bad", b"x", Method::Stored, Descriptor::None);
    e.method_id = Some(8);
    e.data = vec![0xff; 16];
    let err = hash_package(&one(e)).expect_err("not deflate");
    assert_eq!(err.kind(), "corrupt", "{err}");
    assert!(err.to_string().contains("invalid deflate data"), "{err}");
}

/// Names the two hashes of a package would not agree on (HASH-7 to HASH-9).
#[test]
fn names_are_checked() {
    let named = |names: &[&str]| {
        Zip {
            entries: names
                .iter()
                .map(|n| Entry::new(n, b"x", Method::Stored, Descriptor::None))
                .collect(),
            ..Zip::default()
        }
        .write()
    };
    for (names, kind) in [
        (&["a\nb"][..], "newline-in-name"),
        (&["/abs"], "unsafe-name"),
        (&["a\\b"], "unsafe-name"),
        (&["a/../b"], "unsafe-name"),
        (&["a/./b"], "unsafe-name"),
        (&["a//b"], "unsafe-name"),
        (&[""], "unsafe-name"),
        (&["nul\0"], "unsafe-name"),
        (&["a", "a"], "duplicate-name"),
        (&["a", "a/b"], "name-conflict"),
        (&["a/b", "a"], "name-conflict"),
        (&["a/b/c", "a/b"], "name-conflict"),
    ] {
        let err = hash_package(&named(names)).expect_err(&format!("{names:?}"));
        assert_eq!(err.kind(), kind, "{names:?}: {err}");
    }
    // Names that sort between a file and its would-be folder are fine.
    let h = hash_package(&named(&["a", "a-b/c", "a.b", "a0"])).expect("fine");
    assert_eq!(h.files(), 4);
    // A folder entry, by its trailing slash or its mode, is no line.
    let mut folder = Entry::new("d", b"", Method::Stored, Descriptor::None);
    folder.external = 0o040755 << 16;
    let mut dos = Entry::new("e", b"", Method::Stored, Descriptor::None);
    dos.made_by = 20;
    dos.external = 0x10;
    let zip = Zip {
        entries: vec![
            folder,
            dos,
            Entry::new("f/", b"", Method::Stored, Descriptor::None),
            Entry::new("f/g", b"g", Method::Stored, Descriptor::None),
        ],
        ..Zip::default()
    };
    let h = hash_package(&zip.write()).expect("fine");
    assert_eq!(h.h1(), hash1(&[(b"f/g", b"g")]));
}
