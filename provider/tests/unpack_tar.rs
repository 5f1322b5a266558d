//! The `.tar.gz` unpacker on real tarballs made by the system's GNU tar and
//! gzip, and on hostile ones made by hand (docs/behaviour.md, TAR-1 to
//! TAR-9). No sockets: the tarballs are made in a scratch folder.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

use tfdisco_provider::{
    ArchiveFormat, TarUnpacked, TarUnpacker, UnpackError, UnpackLimits, UnpackOp, hash1_of_files,
};

/// What a writer got: the operations in order, and each file's bytes.
#[derive(Debug, Default)]
struct Written {
    ops: Vec<String>,
    files: BTreeMap<String, Vec<u8>>,
}

fn unpack_with(
    archive: &[u8],
    limits: UnpackLimits,
) -> (Written, Result<TarUnpacked, UnpackError>) {
    let mut written = Written::default();
    let mut unpacker = TarUnpacker::with_limits(limits);
    let mut current = None::<String>;
    for chunk in archive.chunks(777) {
        let result = unpacker.update(chunk, |op| {
            match op {
                UnpackOp::Folder(p) => written.ops.push(format!("folder {p}")),
                UnpackOp::File(p) => {
                    written.ops.push(format!("file {p}"));
                    assert!(written.files.insert(p.to_owned(), Vec::new()).is_none());
                    current = Some(p.to_owned());
                }
                UnpackOp::Data(bytes) => {
                    assert!(!bytes.is_empty());
                    let path = current.as_ref().expect("in a file");
                    written
                        .files
                        .get_mut(path)
                        .expect("made")
                        .extend_from_slice(bytes);
                }
                UnpackOp::FileEnd => {
                    current = None;
                    written.ops.push("end".to_owned());
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            return (written, Err(e));
        }
    }
    let result = unpacker.finish();
    (written, result)
}

fn unpack(archive: &[u8]) -> (Written, Result<TarUnpacked, UnpackError>) {
    unpack_with(archive, UnpackLimits::default())
}

fn write_file(root: &Path, path: &str, data: &[u8], mode: u32) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    fs::write(&path, data).expect("written");
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("mode");
}

/// `tar --format=FORMAT -czf` of `members` of `root`, sorted by name,
/// owned by root, dated 0.
fn tar_gz(root: &Path, format: &str, members: &[&str]) -> Vec<u8> {
    let out = root.with_extension("tgz");
    let status = Command::new("tar")
        .arg(format!("--format={format}"))
        .args([
            "--sort=name",
            "--owner=0",
            "--group=0",
            "--numeric-owner",
            "--mtime=@0",
        ])
        .arg("-C")
        .arg(root)
        .arg("-czf")
        .arg(&out)
        .args(members)
        .status()
        .expect("GNU tar runs");
    assert!(status.success());
    fs::read(out).expect("the tarball")
}

/// A module's tree: files of modes 0644, 0755, 0600, 0444, a folder of
/// mode 0700, a symbolic link, a hard link and a name past 100 bytes.
fn module_tree(root: &Path) -> String {
    fs::create_dir(root).expect("root");
    fs::set_permissions(root, fs::Permissions::from_mode(0o750)).expect("mode");
    write_file(root, "main.tf", b"module {}\n", 0o644);
    write_file(root, "bin/run.sh", b"#!/bin/sh\n", 0o755);
    write_file(root, "secret.tfvars", b"x = 1\n", 0o600);
    write_file(root, "readonly.md", b"ro\n", 0o444);
    write_file(root, "private/key", b"k\n", 0o640);
    fs::set_permissions(root.join("private"), fs::Permissions::from_mode(0o700)).expect("mode");
    std::os::unix::fs::symlink("main.tf", root.join("link.tf")).expect("a symlink");
    fs::hard_link(root.join("main.tf"), root.join("hard.tf")).expect("a hard link");
    let long = format!("deep/{}/{}.tf", "d".repeat(60), "f".repeat(60));
    write_file(root, &long, b"long\n", 0o644);
    long
}

/// GNU tar's own format of `./`: every entry under `./`, the root folder
/// an entry, the long name a GNU `L` entry. Folders come before their
/// files, a symbolic link is an empty file of mode 0777, the second name of
/// a hard link an empty file with the link's mode, modes as recorded, the
/// root's and `private`'s folder modes recorded (TAR-2 to TAR-7).
#[test]
fn a_gnu_tarball_of_a_module() {
    let scratch = tempfile::tempdir().expect("scratch");
    let root = scratch.path().join("module");
    let long = module_tree(&root);
    let archive = tar_gz(&root, "gnu", &["."]);
    let (written, unpacked) = unpack(&archive);
    let unpacked = unpacked.expect("unpacked");
    let deep = format!("deep/{}", "d".repeat(60));
    assert_eq!(
        written.ops,
        [
            "folder bin".to_owned(),
            "file bin/run.sh".into(),
            "end".into(),
            "folder deep".into(),
            format!("folder {deep}"),
            format!("file {long}"),
            "end".into(),
            // `--sort=name`: `hard.tf` first holds the bytes, `main.tf` is
            // the link to it, an empty file as go-getter writes it.
            "file hard.tf".into(),
            "end".into(),
            "file link.tf".into(),
            "end".into(),
            "file main.tf".into(),
            "end".into(),
            "folder private".into(),
            "file private/key".into(),
            "end".into(),
            "file readonly.md".into(),
            "end".into(),
            "file secret.tfvars".into(),
            "end".into(),
        ]
    );
    assert_eq!(written.files["hard.tf"], b"module {}\n");
    assert_eq!(written.files["main.tf"], b"");
    assert_eq!(written.files["link.tf"], b"");
    assert_eq!(written.files[&long], b"long\n");
    let modes: BTreeMap<_, _> = unpacked.modes.iter().cloned().collect();
    let expected: BTreeMap<String, u32> = [
        ("bin/run.sh", 0o755),
        (long.as_str(), 0o644),
        ("hard.tf", 0o644),
        ("link.tf", 0o777),
        ("main.tf", 0o644),
        ("private/key", 0o640),
        ("readonly.md", 0o444),
        ("secret.tfvars", 0o600),
    ]
    .into_iter()
    .map(|(p, m)| (p.to_owned(), m))
    .collect();
    assert_eq!(modes, expected);
    assert_eq!(
        unpacked.folder_modes,
        [
            ("".to_owned(), 0o750),
            ("bin".to_owned(), 0o755),
            ("deep".to_owned(), 0o755),
            (deep.clone(), 0o755),
            ("private".to_owned(), 0o700),
        ]
    );
    assert_eq!(
        (unpacked.files, unpacked.bytes),
        (8, 10 + 10 + 6 + 3 + 2 + 5)
    );
    assert_eq!(unpacked.size, archive.len() as u64);
    assert_eq!(unpacked.h1, h1_of(&written));
}

/// The `h1:` of what the writer got, from the files' bytes.
fn h1_of(written: &Written) -> String {
    use sha2::Digest as _;
    let files: Vec<(String, [u8; 32])> = written
        .files
        .iter()
        .map(|(p, b)| (p.clone(), sha2::Sha256::digest(b).into()))
        .collect();
    hash1_of_files(&files).expect("an h1")
}

/// PAX (`--format=pax`, as git-archive writes too): a name past 100 bytes
/// is a PAX `path` record, which applies to the next entry; USTAR splits a
/// long name into its prefix and name. Both unpack the same files
/// (TAR-3).
#[test]
fn pax_and_ustar_long_names() {
    for format in ["pax", "ustar", "gnu"] {
        let scratch = tempfile::tempdir().expect("scratch");
        let root = scratch.path().join("module");
        fs::create_dir(&root).expect("root");
        let long = format!("{}/{}.tf", "p".repeat(90), "q".repeat(90));
        write_file(&root, &long, b"pax\n", 0o644);
        let name_200 = format!("{}.tf", "n".repeat(197));
        if format != "ustar" {
            write_file(&root, &name_200, b"n\n", 0o600);
        }
        let archive = tar_gz(&root, format, &["."]);
        let (written, unpacked) = unpack(&archive);
        let unpacked = unpacked.unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(written.files[&long], b"pax\n", "{format}");
        if format != "ustar" {
            assert_eq!(written.files[&name_200], b"n\n", "{format}");
            assert!(unpacked.modes.contains(&(name_200.clone(), 0o600)));
        }
    }
}

/// Members named without `./`, and the sum of two gzip members: one
/// stream, as Go's `gzip.Reader` reads it (TAR-1).
#[test]
fn gzip_members_follow_one_another() {
    let scratch = tempfile::tempdir().expect("scratch");
    let root = scratch.path().join("module");
    fs::create_dir(&root).expect("root");
    write_file(&root, "a.tf", &vec![b'a'; 5000], 0o644);
    write_file(&root, "b/c.tf", b"c\n", 0o644);
    let out = scratch.path().join("plain.tar");
    let status = Command::new("tar")
        .args(["--format=gnu", "--sort=name", "-C"])
        .arg(&root)
        .arg("-cf")
        .arg(&out)
        .args(["a.tf", "b"])
        .status()
        .expect("tar");
    assert!(status.success());
    let tar = fs::read(&out).expect("tar");
    let (first, second) = tar.split_at(1000);
    let archive = [gzip(first), gzip(second)].concat();
    let (written, unpacked) = unpack(&archive);
    unpacked.expect("one stream");
    assert_eq!(
        written.ops,
        ["file a.tf", "end", "folder b", "file b/c.tf", "end"]
    );
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).expect("gzip");
    gz.finish().expect("gzip")
}

/// No entry, or only folders: go-getter's "empty archive" (TAR-8).
#[test]
fn an_empty_archive_is_an_error() {
    let scratch = tempfile::tempdir().expect("scratch");
    let root = scratch.path().join("module");
    fs::create_dir_all(root.join("only/folders")).expect("folders");
    for members in [&[][..], &["only"]] {
        let status = Command::new("tar")
            .arg("-C")
            .arg(&root)
            .arg("-czf")
            .arg(scratch.path().join("e.tgz"))
            .args(["--files-from=/dev/null"])
            .args(members)
            .status()
            .expect("tar");
        assert!(status.success());
        let archive = fs::read(scratch.path().join("e.tgz")).expect("made");
        let (_, result) = unpack(&archive);
        let err = result.expect_err("empty");
        assert!(matches!(err, UnpackError::EmptyArchive), "{err}");
        assert_eq!(err.kind(), "empty-archive");
        assert_eq!(
            err.to_string(),
            "empty archive: the tar archive has no file"
        );
    }
}

// A tiny tar writer for the hostile archives.

/// A USTAR header of `name`, `typeflag`, `mode` and `size`.
fn header(name: &[u8], typeflag: u8, mode: u32, size: u64) -> [u8; 512] {
    let mut block = [0u8; 512];
    block[..name.len()].copy_from_slice(name);
    block[100..108].copy_from_slice(format!("{mode:07o}\0").as_bytes());
    block[108..116].copy_from_slice(b"0000000\0");
    block[116..124].copy_from_slice(b"0000000\0");
    block[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    block[136..148].copy_from_slice(b"00000000000\0");
    block[156] = typeflag;
    block[257..263].copy_from_slice(b"ustar\0");
    block[263..265].copy_from_slice(b"00");
    block[148..156].copy_from_slice(b"        ");
    let sum: u32 = block.iter().map(|&b| u32::from(b)).sum();
    block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    block
}

/// An entry: its header and content, padded.
fn entry(name: &str, typeflag: u8, mode: u32, data: &[u8]) -> Vec<u8> {
    let mut out = header(name.as_bytes(), typeflag, mode, data.len() as u64).to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// The entries, the end-of-archive blocks, gzipped.
fn tarball(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut tar = entries.concat();
    tar.extend_from_slice(&[0; 1024]);
    gzip(&tar)
}

fn error_of(archive: &[u8]) -> UnpackError {
    unpack(archive).1.expect_err("refused")
}

/// A `..` element: go-getter's error; an absolute name lands inside; `./`
/// and empty elements go (TAR-6).
#[test]
fn names_as_go_getter_takes_them() {
    for name in ["../x", "a/../../x", "a\\..\\x"] {
        let err = error_of(&tarball(&[entry(name, b'0', 0o644, b"x")]));
        assert_eq!(err.to_string(), format!("entry contains '..': {name}"));
        assert_eq!(err.kind(), "parent-element");
    }
    let archive = tarball(&[
        entry("/etc/passwd", b'0', 0o644, b"root\n"),
        entry("./a//b", b'0', 0o644, b""),
        entry("dir/", 0, 0o700, b""),
    ]);
    let (written, unpacked) = unpack(&archive);
    let unpacked = unpacked.expect("inside");
    assert_eq!(
        written.ops,
        [
            "folder etc",
            "file etc/passwd",
            "end",
            "folder a",
            "file a/b",
            "end",
            "folder dir"
        ]
    );
    assert_eq!(unpacked.folder_modes, [("dir".to_owned(), 0o700)]);
}

/// The mode's setuid, setgid and sticky bits are kept, as Go's `os.Chmod`
/// sets them from the `FileMode` `archive/tar` gives; a device or FIFO is
/// an empty file; a PAX global header is skipped (TAR-4, TAR-7).
#[test]
fn modes_and_types() {
    let archive = tarball(&[
        entry(
            "pax_global_header",
            b'g',
            0o666,
            b"52 comment=0123456789012345678901234567890123456789\n",
        ),
        entry("suid", b'0', 0o4755, b"s"),
        entry("sticky/", b'5', 0o1777, b""),
        entry("fifo", b'6', 0o600, b""),
        entry("char", b'3', 0o644, b""),
        entry("unknown", b'Z', 0o640, b"zz"),
    ]);
    let (written, unpacked) = unpack(&archive);
    let unpacked = unpacked.expect("unpacked");
    assert_eq!(
        unpacked.modes,
        [
            ("suid".to_owned(), 0o4755),
            ("fifo".to_owned(), 0o600),
            ("char".to_owned(), 0o644),
            ("unknown".to_owned(), 0o640),
        ]
    );
    assert_eq!(unpacked.folder_modes, [("sticky".to_owned(), 0o1777)]);
    assert_eq!(written.files["unknown"], b"zz");
}

/// A PAX header's `size` and `path` apply to the next entry; a GNU long
/// name (`L`) wins over a PAX path, as in Go (TAR-3).
#[test]
fn pax_and_gnu_records_apply_to_the_next_entry() {
    let mut sized = header(b"short", b'0', 0o644, 1).to_vec();
    sized.extend_from_slice(&[b'x'; 512]);
    sized.extend_from_slice(&[b'y'; 512]);
    let archive = tarball(&[
        entry(
            "PaxHeaders/x",
            b'x',
            0o644,
            b"16 path=renamed\n13 size=1024\n",
        ),
        sized,
        entry("PaxHeaders/y", b'x', 0o644, b"13 path=lost\n"),
        entry("././@LongLink", b'L', 0o644, b"from-gnu\0"),
        entry("short2", b'0', 0o644, b"g"),
    ]);
    let (written, unpacked) = unpack(&archive);
    unpacked.expect("unpacked");
    assert_eq!(written.files["renamed"].len(), 1024);
    assert_eq!(written.files["from-gnu"], b"g");
    assert_eq!(written.files.len(), 2);
}

/// Cut short, a bad checksum, a bad PAX record, a sparse file: errors,
/// never a panic (TAR-9).
#[test]
fn damaged_archives_are_errors() {
    let good = tarball(&[entry("a", b'0', 0o644, &[b'a'; 3000])]);
    for cut in [1, 10, good.len() / 2, good.len() - 1] {
        let err = error_of(&good[..cut]);
        assert_eq!(err.kind(), "gzip", "{cut}: {err}");
    }
    let whole = entry("a", b'0', 0o644, &[b'a'; 3000]);
    let err = error_of(&gzip(&whole[..2000]));
    assert_eq!(err.to_string(), "tar archive: the tar archive ends early");
    let err = error_of(&gzip(&whole[..100]));
    assert_eq!(err.kind(), "tar");
    let mut bad = header(b"a", b'0', 0o644, 0);
    bad[0] = b'b';
    let err = error_of(&tarball(&[bad.to_vec()]));
    assert_eq!(
        err.to_string(),
        "tar archive: header checksum does not match"
    );
    let err = error_of(&tarball(&[entry("p", b'x', 0o644, b"5 x\n")]));
    assert_eq!(err.to_string(), "tar archive: bad PAX record");
    let err = error_of(&tarball(&[entry("s", b'S', 0o644, b"")]));
    assert_eq!(
        err.to_string(),
        "tar archive: entry \"s\": sparse files are not unpacked"
    );
    let err = error_of(b"PK\x03\x04 not gzip at all");
    assert_eq!(err.to_string(), "tar.gz archive: gzip: invalid gzip header");
    // The end: a zero block then a header is refused; after two, nothing
    // is read.
    let mut tar = entry("a", b'0', 0o644, b"a");
    tar.extend_from_slice(&[0; 512]);
    tar.extend_from_slice(&entry("b", b'0', 0o644, b"b"));
    assert_eq!(error_of(&gzip(&tar)).kind(), "tar");
    let mut tar = entry("a", b'0', 0o644, b"a");
    tar.extend_from_slice(&[0; 1024]);
    tar.extend_from_slice(b"anything at all");
    let (written, unpacked) = unpack(&gzip(&tar));
    unpacked.expect("ended at two zero blocks");
    assert_eq!(written.files.len(), 1);
}

/// Two files of one path: refused (go-getter keeps the later, but the
/// writer creates exclusively); a folder entry twice is fine; a file
/// where a folder is, or under a file, is a conflict (TAR-7).
#[test]
fn the_same_path_twice() {
    let err = error_of(&tarball(&[
        entry("a", b'0', 0o644, b"1"),
        entry("./a", b'0', 0o644, b"2"),
    ]));
    assert!(matches!(err, UnpackError::DuplicateName { .. }), "{err}");
    let (_, unpacked) = unpack(&tarball(&[
        entry("d/", b'5', 0o700, b""),
        entry("d/f", b'0', 0o644, b""),
        entry("d", b'5', 0o750, b""),
    ]));
    assert_eq!(
        unpacked.expect("fine").folder_modes,
        [("d".to_owned(), 0o700), ("d".to_owned(), 0o750)]
    );
    let err = error_of(&tarball(&[
        entry("d/", b'5', 0o700, b""),
        entry("d", b'0', 0o644, b""),
    ]));
    assert!(matches!(err, UnpackError::NameConflict { .. }), "{err}");
    let err = error_of(&tarball(&[
        entry("f", b'0', 0o644, b""),
        entry("f/g", b'0', 0o644, b""),
    ]));
    assert!(matches!(err, UnpackError::NameConflict { .. }), "{err}");
}

/// The limits apply as to a zip: entries, bytes in all, bytes to a
/// multiple of the archive read so far (a gzip bomb); nothing past them
/// is given to the writer (TAR-9).
#[test]
fn limits_and_bombs() {
    let limits = UnpackLimits {
        max_entries: 2,
        ..UnpackLimits::default()
    };
    let three: Vec<Vec<u8>> = ["a", "b", "c"]
        .iter()
        .map(|n| entry(n, b'0', 0o644, b""))
        .collect();
    let (_, result) = unpack_with(&tarball(&three), limits);
    assert!(matches!(
        result,
        Err(UnpackError::TooManyEntries { limit: 2, .. })
    ));

    let limits = UnpackLimits {
        max_bytes: 100,
        ..UnpackLimits::default()
    };
    let (written, result) = unpack_with(&tarball(&[entry("big", b'0', 0o644, &[0; 101])]), limits);
    assert!(matches!(
        result,
        Err(UnpackError::TooLarge { limit: 100, .. })
    ));
    assert!(written.files["big"].is_empty());

    // 16 MiB of zeros gzip to some 16 KiB: past 32 times that, beyond a
    // 1 MiB allowance.
    let limits = UnpackLimits {
        ratio_allowance: 1 << 20,
        ..UnpackLimits::default()
    };
    let bomb = tarball(&[entry("bomb", b'0', 0o644, &vec![0; 16 << 20])]);
    assert!(bomb.len() < 64 << 10, "{}", bomb.len());
    let (written, result) = unpack_with(&bomb, limits);
    let err = result.expect_err("a bomb");
    assert_eq!(err.kind(), "too-expanded", "{err}");
    let bound = limits.bound(bomb.len() as u64) as usize;
    assert!(written.files["bomb"].len() <= bound);
    // Past the end, or as a folder's content: nothing is written, and the
    // decoding still stops at the bound.
    let mut tar = entry("a", b'0', 0o644, b"a");
    tar.extend_from_slice(&vec![0; 16 << 20]);
    let (_, result) = unpack_with(&gzip(&tar), limits);
    let err = result.expect_err("a bomb past the end");
    assert_eq!(err.kind(), "tar", "{err}");
    assert!(
        err.to_string().contains("that are no file's content"),
        "{err}"
    );
    let mut tar = header(b"d", b'0', 0o40755, 16 << 20).to_vec();
    tar.extend_from_slice(&vec![0; 16 << 20]);
    let (_, result) = unpack_with(&gzip(&tar), limits);
    assert_eq!(result.expect_err("a folder's bomb").kind(), "tar");
}

/// The format by `archive=` or the path's longest known suffix (TAR-1).
#[test]
fn archive_formats() {
    for (path, format) in [
        ("/m.zip", Some(ArchiveFormat::Zip)),
        ("/m.tar.gz", Some(ArchiveFormat::TarGz)),
        ("/m.tgz", Some(ArchiveFormat::TarGz)),
        ("/m.tar.tbz2", Some(ArchiveFormat::TarBz2)),
        ("/m.tbz2", Some(ArchiveFormat::TarBz2)),
        ("/m.tar.xz", Some(ArchiveFormat::TarXz)),
        ("/m.txz", Some(ArchiveFormat::TarXz)),
        ("/m.gz", Some(ArchiveFormat::Gz)),
        ("/m.bz2", Some(ArchiveFormat::Bz2)),
        ("/m.xz", Some(ArchiveFormat::Xz)),
        ("/m.tar", None),
        ("/mtgz", None),
        ("/m.tar.zst", None),
    ] {
        assert_eq!(ArchiveFormat::from_path(path), format, "{path}");
    }
    assert_eq!(
        ArchiveFormat::from_archive_value("tgz"),
        Some(ArchiveFormat::TarGz)
    );
    assert_eq!(ArchiveFormat::from_archive_value(".zip"), None);
    for format in [
        ArchiveFormat::Zip,
        ArchiveFormat::TarGz,
        ArchiveFormat::TarBz2,
        ArchiveFormat::TarXz,
    ] {
        assert!(format.check_supported().is_ok(), "{format}");
    }
    // One compressed file is no folder: go-getter's words.
    for (format, words) in [
        (ArchiveFormat::Bz2, "bzip2"),
        (ArchiveFormat::Gz, "gzip"),
        (ArchiveFormat::Xz, "xz"),
    ] {
        let err = format.check_supported().expect_err("one file");
        assert_eq!(
            err.to_string(),
            format!("{words}-compressed files can only unarchive to a single file")
        );
        assert!(TarUnpacker::with_format(format, UnpackLimits::default()).is_err());
    }
}

/// Every byte of a tarball with PAX, GNU and folder entries changed in
/// turn: never a panic, and the same answer in chunks as whole (TAR-9; the
/// `tar_unpack` fuzz target explores further).
#[test]
fn mutated_tarballs_never_panic() {
    let tar = [
        entry("PaxHeaders/x", b'x', 0o644, b"16 path=renamed\n"),
        entry("f", b'0', 0o644, b"0123456789"),
        entry("././@LongLink", b'L', 0o644, b"d/long\0"),
        entry("d/", b'5', 0o700, b""),
        entry("l", b'2', 0o777, b""),
    ]
    .concat();
    let whole = |archive: &[u8]| {
        let mut unpacker = TarUnpacker::new();
        let mut ops = 0;
        unpacker
            .update(archive, |_| {
                ops += 1;
                Ok(())
            })
            .and_then(|()| unpacker.finish())
            .map(|u| (u, ops))
    };
    // The fields Go reads: name, mode, size, checksum, type, magic and
    // version, and the start of each block (data, PAX records, long names).
    let read = |at: usize| at % 512 < 160 || (257..265).contains(&(at % 512));
    for at in (0..tar.len()).filter(|&at| read(at)) {
        for change in [0x01, 0xff] {
            let mut mutated = tar.clone();
            mutated[at] ^= change;
            let archive = gzip(&mutated);
            let (written, chunked) = unpack(&archive);
            match (whole(&archive), chunked) {
                (Ok((a, ops)), Ok(b)) => {
                    assert_eq!(a, b, "at {at}");
                    assert!(written.ops.len() <= ops, "at {at}");
                }
                (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "at {at}"),
                (a, b) => panic!("at {at}: {a:?} against {b:?}"),
            }
        }
    }
}
