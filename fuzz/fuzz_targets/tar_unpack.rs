//! Module package tarballs from arbitrary bytes, unpacked in arbitrary
//! chunks (docs/behaviour.md, TAR-1 to TAR-9): the input is a tar stream,
//! gzipped here so that the fuzzer works on the tar's structure (or, for
//! selectors with the low bit set, taken as the compressed archive itself:
//! a `.tar.gz`, `.tar.bz2` or `.tar.xz` by the selector).
//! `TarUnpacker` never panics or hangs; every path it gives is relative,
//! normalized and inside the package's folder, created once, after its
//! folder; `Data` comes only between `File` and `FileEnd`; whether it
//! accepts, and what, is the same whatever the chunks (but for the bounds
//! of the archive read so far); nothing is written past the limits; the
//! `h1:` is that of the files written.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};
use tfdisco_provider::{
    ArchiveFormat, TarUnpacked, TarUnpacker, UnpackError, UnpackLimits, UnpackOp, hash1_of_files,
};

/// A writer in memory that holds the unpacker to its contract.
#[derive(Default)]
struct Disk {
    folders: BTreeSet<String>,
    files: BTreeMap<String, Vec<u8>>,
    open: Option<String>,
    /// The operations, consecutive `Data` as one.
    ops: Vec<(u8, String, Vec<u8>)>,
}

fn assert_inside(path: &str) {
    assert!(
        !path.is_empty()
            && path
                .split('/')
                .all(|e| !matches!(e, "" | "." | "..") && !e.contains(['\\', '\n', '\0'])),
        "not a normalized relative path: {path:?}"
    );
}

impl Disk {
    fn apply(&mut self, op: UnpackOp<'_>) {
        match op {
            UnpackOp::Folder(path) | UnpackOp::File(path) => {
                assert!(self.open.is_none(), "{op:?} while a file is open");
                assert_inside(path);
                if let Some((parent, _)) = path.rsplit_once('/') {
                    assert!(self.folders.contains(parent), "{op:?} before its folder");
                }
                assert!(
                    !self.folders.contains(path) && !self.files.contains_key(path),
                    "{op:?} again"
                );
                if let UnpackOp::Folder(path) = op {
                    self.folders.insert(path.to_owned());
                    self.ops.push((b'd', path.to_owned(), Vec::new()));
                } else {
                    self.files.insert(path.to_owned(), Vec::new());
                    self.open = Some(path.to_owned());
                    self.ops.push((b'f', path.to_owned(), Vec::new()));
                }
            }
            UnpackOp::Data(bytes) => {
                assert!(!bytes.is_empty(), "empty Data");
                let open = self.open.as_ref().expect("Data outside a file");
                self.files
                    .get_mut(open)
                    .expect("the open file")
                    .extend_from_slice(bytes);
                match self.ops.last_mut() {
                    Some((b'b', _, before)) => before.extend_from_slice(bytes),
                    _ => self.ops.push((b'b', String::new(), bytes.to_vec())),
                }
            }
            UnpackOp::FileEnd => {
                assert!(self.open.take().is_some(), "FileEnd outside a file");
                self.ops.push((b'e', String::new(), Vec::new()));
            }
        }
    }
}

fn unpack(
    archive: &[u8],
    format: ArchiveFormat,
    selector: u8,
    whole: bool,
    limits: UnpackLimits,
) -> (Disk, Result<TarUnpacked, UnpackError>) {
    let mut unpacker = TarUnpacker::with_format(format, limits).expect("a tar format");
    let mut disk = Disk::default();
    let mut rest = archive;
    let mut size = if whole {
        archive.len().max(1)
    } else {
        1 + usize::from(selector % 31)
    };
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        if let Err(e) = unpacker.update(chunk, |op| {
            disk.apply(op);
            Ok(())
        }) {
            return (disk, Err(e));
        }
        rest = tail;
        if !whole {
            size = (size * 7 + usize::from(selector)) % 97 + 1;
        }
    }
    (disk, unpacker.finish())
}

/// Whether `e` is one of the bounds of the archive read so far, which a
/// whole archive given at once meets more easily than one in chunks.
fn read_bound(e: &UnpackError) -> bool {
    e.kind() == "too-expanded" || e.to_string().contains("no file's content")
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let mut format = ArchiveFormat::TarGz;
    let archive = if selector & 1 == 1 {
        format = [
            ArchiveFormat::TarGz,
            ArchiveFormat::TarBz2,
            ArchiveFormat::TarXz,
        ][usize::from(selector >> 1) % 3];
        input.to_vec()
    } else {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(input).expect("gzip in memory");
        gz.finish().expect("gzip in memory")
    };
    let limits = if selector >= 0xc0 {
        UnpackLimits {
            max_entries: usize::from(selector & 7),
            max_bytes: u64::from(selector & 0x38) * 16,
            max_ratio: u64::from(selector >> 4 & 3) + 1,
            ratio_allowance: u64::from(selector & 0x38) * 4,
        }
    } else {
        UnpackLimits::default()
    };
    let (disk, whole) = unpack(&archive, format, selector, true, limits);
    let (chunked_disk, chunked) = unpack(&archive, format, selector, false, limits);
    for written in [&disk, &chunked_disk] {
        let total: u64 = written.files.values().map(|f| f.len() as u64).sum();
        assert!(
            total <= limits.bound(archive.len() as u64),
            "{total} bytes written from {} under {limits:?}",
            archive.len()
        );
    }
    match (&whole, &chunked) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "chunking changed the result");
            assert!(
                disk.ops == chunked_disk.ops,
                "chunking changed the operations"
            );
        }
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) if read_bound(e) => {}
        _ => panic!("chunking changed acceptance: {whole:?} against {chunked:?}"),
    }
    let Ok(unpacked) = whole else {
        return;
    };
    assert!(disk.open.is_none(), "a file left open");
    assert!(unpacked.files > 0, "an empty archive accepted");
    let written: Vec<(&str, [u8; 32])> = disk
        .files
        .iter()
        .map(|(name, bytes)| (name.as_str(), Sha256::digest(bytes).into()))
        .collect();
    assert_eq!(
        hash1_of_files(&written).expect("written names hash"),
        unpacked.h1,
        "the h1 of what was written"
    );
    assert_eq!(unpacked.files, disk.files.len());
    assert_eq!(unpacked.sha256, <[u8; 32]>::from(Sha256::digest(&archive)));
    let total: u64 = disk.files.values().map(|f| f.len() as u64).sum();
    assert_eq!(unpacked.bytes, total);
    assert_eq!(unpacked.modes.len(), disk.files.len());
    for (path, mode) in &unpacked.modes {
        assert!(
            disk.files.contains_key(path),
            "a mode for {path:?}, not written"
        );
        assert!(*mode <= 0o7777, "{path:?}: mode {mode:o}");
    }
    for (path, mode) in &unpacked.folder_modes {
        assert!(
            path.is_empty() || disk.folders.contains(path),
            "a folder mode for {path:?}, not made"
        );
        assert!(*mode <= 0o7777, "{path:?}: mode {mode:o}");
    }
});
