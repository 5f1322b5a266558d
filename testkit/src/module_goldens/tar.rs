//! Just enough tar for the module packages: a ustar writer (folders,
//! files and symlinks, with the modes given, owned by 0:0, dated
//! 2026-01-02 03:04:05 UTC) and its gzip, bzip2 and xz framings, byte for
//! byte the same at every run.

use std::io::Write;

/// One entry of a package: a folder, a file or a symlink, with its
/// permission bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    /// A folder (`name` without the trailing `/`).
    Dir(&'a str, u32),
    /// A file and its content.
    File(&'a str, u32, &'a [u8]),
    /// A symlink and its target.
    Link(&'a str, &'a str),
}

/// The entries' date: 2026-01-02 03:04:05 UTC.
const MTIME: u64 = 1_767_323_045;

/// A ustar archive of `entries`, in order. Names must fit in 100 bytes.
pub fn tar(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in entries {
        let (name, mode, flag, data, link): (String, u32, u8, &[u8], &str) = match *entry {
            Entry::Dir(name, mode) => (format!("{name}/"), mode, b'5', &[], ""),
            Entry::File(name, mode, data) => (name.to_owned(), mode, b'0', data, ""),
            Entry::Link(name, target) => (name.to_owned(), 0o777, b'2', &[], target),
        };
        out.extend_from_slice(&header(&name, mode, data.len() as u64, flag, link));
        out.extend_from_slice(data);
        let pad = (512 - data.len() % 512) % 512;
        out.extend(std::iter::repeat_n(0u8, pad));
    }
    out.extend(std::iter::repeat_n(0u8, 1024));
    out
}

/// `bytes` gzipped (no name, mtime 0, best compression).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// `bytes` bzip2ed (level 9).
pub fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    encoder.write_all(bytes).expect("bzip2 into memory");
    encoder.finish().expect("bzip2 into memory")
}

/// `bytes` xzed (preset 6, CRC-64).
pub fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = liblzma::write::XzEncoder::new(Vec::new(), 6);
    encoder.write_all(bytes).expect("xz into memory");
    encoder.finish().expect("xz into memory")
}

/// A `.tar.gz` of `entries`.
pub fn tar_gz(entries: &[Entry<'_>]) -> Vec<u8> {
    gzip(&tar(entries))
}

fn put(block: &mut [u8], at: usize, field: &[u8]) {
    block[at..at + field.len()].copy_from_slice(field);
}

fn octal(value: u64, width: usize) -> Vec<u8> {
    let mut text = format!("{value:0w$o}", w = width - 1).into_bytes();
    text.push(0);
    text
}

fn header(name: &str, mode: u32, size: u64, flag: u8, link: &str) -> [u8; 512] {
    assert!(name.len() <= 100, "{name}: a tar name of 100 bytes at most");
    assert!(
        link.len() <= 100,
        "{link}: a link target of 100 bytes at most"
    );
    let mut block = [0u8; 512];
    put(&mut block, 0, name.as_bytes());
    put(&mut block, 100, &octal(u64::from(mode), 8));
    put(&mut block, 108, &octal(0, 8));
    put(&mut block, 116, &octal(0, 8));
    put(&mut block, 124, &octal(size, 12));
    put(&mut block, 136, &octal(MTIME, 12));
    put(&mut block, 148, b"        ");
    block[156] = flag;
    put(&mut block, 157, link.as_bytes());
    put(&mut block, 257, b"ustar\0");
    put(&mut block, 263, b"00");
    put(&mut block, 265, b"root");
    put(&mut block, 297, b"root");
    let sum: u32 = block.iter().map(|&b| u32::from(b)).sum();
    let mut chksum = format!("{sum:06o}").into_bytes();
    chksum.extend_from_slice(b"\0 ");
    put(&mut block, 148, &chksum);
    block
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tar_reads_back_and_is_the_same_every_time() {
        let entries = [
            Entry::Dir("d", 0o700),
            Entry::File("d/f", 0o755, b"hello\n"),
            Entry::Link("l", "d/f"),
        ];
        let bytes = tar(&entries);
        assert_eq!(bytes.len(), 512 * 3 + 512 + 1024);
        assert_eq!(&bytes[0..2], b"d/");
        assert_eq!(&bytes[257..263], b"ustar\0");
        assert_eq!(&bytes[512 + 100..512 + 107], b"0000755");
        assert_eq!(&bytes[1024..1030], b"hello\n");
        assert_eq!(bytes[1536 + 156], b'2');
        // The checksum: the header's bytes with the field as spaces.
        let mut first = bytes[..512].to_vec();
        first[148..156].copy_from_slice(b"        ");
        let sum: u32 = first.iter().map(|&b| u32::from(b)).sum();
        assert_eq!(&bytes[148..154], format!("{sum:06o}").as_bytes());
        assert_eq!(tar_gz(&entries), tar_gz(&entries));
        let mut out = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&tar_gz(&entries)[..]),
            &mut out,
        )
        .expect("gunzip");
        assert_eq!(out, bytes);
    }
}
