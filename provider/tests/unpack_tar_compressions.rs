//! `.tar.bz2` and `.tar.xz` module packages (docs/behaviour.md, TAR-1,
//! TAR-9): tarballs of the system's GNU tar compressed by the system's
//! `bzip2`, `xz` and `gzip` unpack to the same operations and `h1:`; streams
//! one after another are one archive; damage, a cut, trailing bytes and
//! bombs are errors of the compression's kind. No sockets.

use std::fs;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use tfdisco_provider::{
    ArchiveFormat, TarUnpacked, TarUnpacker, UnpackError, UnpackLimits, UnpackOp,
};

/// `program ARGS` with `data` on its standard input: its output.
fn run_filter(program: &str, args: &[&str], data: &[u8]) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    let mut stdin = child.stdin.take().expect("piped");
    let data = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_end(&mut out)
        .expect("output");
    writer.join().expect("writer").expect("input written");
    assert!(child.wait().expect("waited").success(), "{program}");
    out
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    run_filter("bzip2", &["-c", "-9"], data)
}

fn xz(data: &[u8]) -> Vec<u8> {
    run_filter("xz", &["-c", "-6"], data)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    run_filter("gzip", &["-c", "-n"], data)
}

/// The ops a writer got (a file's data as one, whatever the pieces) and
/// the result, fed in chunks of `chunk` bytes.
fn unpack_in(
    archive: &[u8],
    format: ArchiveFormat,
    limits: UnpackLimits,
    chunk: usize,
) -> (Vec<Op>, Result<TarUnpacked, UnpackError>) {
    let mut ops = Vec::new();
    let mut unpacker = TarUnpacker::with_format(format, limits).expect("a tar format");
    for piece in archive.chunks(chunk.max(1)) {
        if let Err(e) = unpacker.update(piece, |op| {
            match (op, ops.last_mut()) {
                (UnpackOp::Data(bytes), Some(Op::Data(data))) => data.extend_from_slice(bytes),
                (UnpackOp::Data(bytes), _) => ops.push(Op::Data(bytes.to_vec())),
                (other, _) => ops.push(Op::Other(format!("{other:?}"))),
            }
            Ok(())
        }) {
            return (ops, Err(e));
        }
    }
    (ops, unpacker.finish())
}

/// What a writer was told: a file's data whole, or another operation.
#[derive(Debug, PartialEq, Eq)]
enum Op {
    Data(Vec<u8>),
    Other(String),
}

fn unpack(archive: &[u8], format: ArchiveFormat) -> (Vec<Op>, Result<TarUnpacked, UnpackError>) {
    unpack_in(archive, format, UnpackLimits::default(), 777)
}

/// A plain tarball (GNU tar, sorted, owned by root, dated 0) of a small
/// module with modes, a folder, a symlink and a file of 100 KiB.
fn module_tar(scratch: &Path) -> Vec<u8> {
    let root = scratch.join("module");
    let write = |path: &str, data: &[u8], mode: u32| {
        let path = root.join(path);
        fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        fs::write(&path, data).expect("written");
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("mode");
    };
    write("main.tf", b"module \"x\" {}\n", 0o644);
    write("bin/run.sh", b"#!/bin/sh\n", 0o755);
    write("private/key", b"k\n", 0o600);
    let big: Vec<u8> = (0..100 << 10).map(|i: u32| (i * 7 % 251) as u8).collect();
    write("data/big.bin", &big, 0o644);
    std::os::unix::fs::symlink("main.tf", root.join("link.tf")).expect("a symlink");
    let out = scratch.join("module.tar");
    let status = Command::new("tar")
        .args(["--format=gnu", "--sort=name", "--owner=0", "--group=0"])
        .args(["--numeric-owner", "--mtime=@0", "-C"])
        .arg(&root)
        .arg("-cf")
        .arg(&out)
        .arg(".")
        .status()
        .expect("GNU tar runs");
    assert!(status.success());
    fs::read(out).expect("the tarball")
}

/// The same tarball, gzipped, bzip2ed and xzed by the system's tools,
/// unpacks to the same operations, modes and `h1:`, in any chunks.
#[test]
fn bzip2_and_xz_tarballs_unpack_as_the_tar_gz_does() {
    let scratch = tempfile::tempdir().expect("scratch");
    let tar = module_tar(scratch.path());
    let (gz_ops, gz) = unpack(&gzip(&tar), ArchiveFormat::TarGz);
    let gz = gz.expect("the tar.gz");
    assert!(
        gz_ops.contains(&Op::Other(r#"File("data/big.bin")"#.to_owned())),
        "{gz_ops:?}"
    );
    for (format, archive) in [
        (ArchiveFormat::TarBz2, bzip2(&tar)),
        (ArchiveFormat::TarXz, xz(&tar)),
    ] {
        for chunk in [1, 777, archive.len()] {
            let (ops, unpacked) = unpack_in(&archive, format, UnpackLimits::default(), chunk);
            let unpacked = unpacked.unwrap_or_else(|e| panic!("{format} in {chunk}: {e}"));
            assert_eq!(ops, gz_ops, "{format} in chunks of {chunk}");
            assert_eq!(unpacked.h1, gz.h1, "{format}");
            assert_eq!(unpacked.modes, gz.modes, "{format}");
            assert_eq!(unpacked.folder_modes, gz.folder_modes, "{format}");
            assert_eq!((unpacked.files, unpacked.bytes), (gz.files, gz.bytes));
            assert_eq!(unpacked.size, archive.len() as u64);
        }
    }
}

/// A tarball cut in two, each half compressed on its own and the two put
/// one after the other, is one archive, as Go's readers take them; xz's
/// stream padding (zero bytes, four at a time) between them too.
#[test]
fn streams_follow_one_another() {
    let scratch = tempfile::tempdir().expect("scratch");
    let tar = module_tar(scratch.path());
    let (first, second) = tar.split_at(tar.len() / 3);
    let (whole, _) = unpack(&gzip(&tar), ArchiveFormat::TarGz);
    let padded_xz = [xz(first), vec![0; 8], xz(second)].concat();
    for (format, archive) in [
        (
            ArchiveFormat::TarBz2,
            [bzip2(first), bzip2(second)].concat(),
        ),
        (ArchiveFormat::TarXz, [xz(first), xz(second)].concat()),
        (ArchiveFormat::TarXz, padded_xz),
    ] {
        let (ops, unpacked) = unpack(&archive, format);
        unpacked.unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(ops, whole, "{format}");
    }
}

fn error_of(archive: &[u8], format: ArchiveFormat) -> UnpackError {
    unpack(archive, format).1.expect_err("an error")
}

/// Damage, a cut, bytes that are no stream after the last, no bytes at
/// all, and another compression: errors of the compression's kind, with
/// what was wrong.
#[test]
fn damaged_streams_are_errors() {
    let scratch = tempfile::tempdir().expect("scratch");
    let tar = module_tar(scratch.path());
    for (format, kind, archive) in [
        (ArchiveFormat::TarBz2, "bzip2", bzip2(&tar)),
        (ArchiveFormat::TarXz, "xz", xz(&tar)),
    ] {
        let cut = error_of(&archive[..archive.len() - 10], format);
        assert_eq!(cut.kind(), kind, "{format} cut: {cut}");
        assert!(cut.to_string().contains("ends early"), "{cut}");

        let trailing = error_of(&[&archive[..], b"trailing bytes"].concat(), format);
        assert_eq!(trailing.kind(), kind, "{format} trailing: {trailing}");

        // Damage in the data: what it decodes to may reach the tar reader
        // before the block's check fails (a stream is read as it comes).
        let mut damaged = archive.clone();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x55;
        let damaged = error_of(&damaged, format);
        assert!(
            [kind, "tar"].contains(&damaged.kind()),
            "{format} damaged: {damaged}"
        );
        // Damage in the stream's own check (bzip2's CRC, xz's index): the
        // decoder's error.
        let mut damaged = archive.clone();
        let near_end = damaged.len() - 6;
        damaged[near_end] ^= 0x55;
        let damaged = error_of(&damaged, format);
        assert_eq!(damaged.kind(), kind, "{format} damaged: {damaged}");
        assert!(damaged.to_string().contains("damaged"), "{damaged}");

        let empty = error_of(b"", format);
        assert_eq!(
            empty.to_string(),
            format!("{format} archive: {kind}: the body is empty")
        );

        let other = error_of(&gzip(&tar), format);
        assert_eq!(other.kind(), kind, "{format} of gzip: {other}");
        assert!(
            other.to_string().contains(&format!(
                "not a{} {kind} stream",
                if kind == "xz" { "n" } else { "" }
            )),
            "{other}"
        );
    }
    let continuation = error_of(
        &[bzip2(&tar), b"not a stream".to_vec()].concat(),
        ArchiveFormat::TarBz2,
    );
    assert!(
        continuation.to_string().contains("continuation"),
        "{continuation}"
    );
}

/// 16 MiB of zeros compress to a few KiB: the unpacking stops once the
/// decoded bytes pass the ratio bound (TAR-9), whatever the compression.
#[test]
fn bombs_stop_at_the_bound() {
    let mut header = [0u8; 512];
    header[..4].copy_from_slice(b"bomb");
    header[100..108].copy_from_slice(b"0000644\0");
    header[124..136].copy_from_slice(format!("{:011o}\0", 16u64 << 20).as_bytes());
    header[156] = b'0';
    header[148..156].copy_from_slice(b"        ");
    let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
    header[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let tar = [&header[..], &vec![0; 16 << 20], &[0; 1024]].concat();
    let limits = UnpackLimits {
        ratio_allowance: 1 << 20,
        ..UnpackLimits::default()
    };
    for (format, archive) in [
        (ArchiveFormat::TarBz2, bzip2(&tar)),
        (ArchiveFormat::TarXz, xz(&tar)),
    ] {
        assert!(archive.len() < 64 << 10, "{format}: {}", archive.len());
        let (_, result) = unpack_in(&archive, format, limits, 777);
        let err = result.expect_err("a bomb");
        assert_eq!(err.kind(), "too-expanded", "{format}: {err}");
    }
}

/// An xz stream whose dictionary needs more than the decoder's 128 MiB is
/// refused before anything is decoded: a small stream's LZMA2 dictionary
/// byte set to 1.5 GiB (its block header's CRC-32 made again).
#[test]
fn an_xz_dictionary_past_the_memory_limit_is_refused() {
    let scratch = tempfile::tempdir().expect("scratch");
    let mut archive = xz(&module_tar(scratch.path()));
    // The block header follows the 12-byte stream header: its size byte,
    // flags, the LZMA2 filter (id 0x21, one property byte: the dictionary
    // size), padding, CRC-32.
    let size = (usize::from(archive[12]) + 1) * 4;
    let header = &mut archive[12..12 + size];
    assert_eq!(&header[2..4], [0x21, 0x01], "an LZMA2 filter");
    header[4] = 40;
    let crc = crc32fast::hash(&header[..size - 4]);
    header[size - 4..].copy_from_slice(&crc.to_le_bytes());
    let err = error_of(&archive, ArchiveFormat::TarXz);
    assert_eq!(err.kind(), "xz", "{err}");
    assert!(err.to_string().contains("more than 128 MiB"), "{err}");
}
