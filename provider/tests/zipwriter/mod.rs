//! A small zip writer for the package hash tests: every layout the hasher
//! reads (sizes in the local header or in a data descriptor, with or without
//! its signature, 32- or 64-bit; zip64 extra fields and end records),
//! written on purpose, independently of the hasher.
#![allow(dead_code, unreachable_pub)]

use std::io::Write;

use flate2::Compression;
use flate2::write::DeflateEncoder;
use sha2::{Digest, Sha256};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Stored,
    Deflated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Descriptor {
    /// Sizes and CRC in the local header.
    None,
    /// A data descriptor with its signature and 32-bit sizes (Go's writer).
    Signed32,
    /// With its signature and 64-bit sizes (Go's writer past 4 GiB).
    Signed64,
    /// Without its signature, 32-bit sizes (deflated entries only).
    Unsigned32,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub name: Vec<u8>,
    pub data: Vec<u8>,
    pub method: Method,
    pub descriptor: Descriptor,
    /// zip64 extra fields with every size, in the local and central headers.
    pub zip64: bool,
    pub made_by: u16,
    pub external: u32,
    pub flags: u16,
    pub method_id: Option<u16>,
}

impl Entry {
    pub fn new(name: &str, data: &[u8], method: Method, descriptor: Descriptor) -> Entry {
        Entry {
            name: name.as_bytes().to_vec(),
            data: data.to_vec(),
            method,
            descriptor,
            zip64: false,
            made_by: 3 << 8 | 20,
            external: 0o100644 << 16,
            flags: 0,
            method_id: None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Zip {
    pub entries: Vec<Entry>,
    pub zip64_end: bool,
    pub comment: Vec<u8>,
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::new(6));
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory")
}

impl Zip {
    pub fn write(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for e in &self.entries {
            let offset = out.len() as u64;
            let packed = match e.method {
                Method::Stored => e.data.clone(),
                Method::Deflated => deflate(&e.data),
            };
            let crc = crc32fast::hash(&e.data);
            let (csize, usize_) = (packed.len() as u64, e.data.len() as u64);
            let method = e.method_id.unwrap_or(match e.method {
                Method::Stored => 0,
                Method::Deflated => 8,
            });
            let descriptor = e.descriptor != Descriptor::None;
            let flags = e.flags | if descriptor { 8 } else { 0 };
            let mut extra = Vec::new();
            if e.zip64 {
                extra.extend_from_slice(&1u16.to_le_bytes());
                extra.extend_from_slice(&16u16.to_le_bytes());
                extra.extend_from_slice(&(if descriptor { 0 } else { usize_ }).to_le_bytes());
                extra.extend_from_slice(&(if descriptor { 0 } else { csize }).to_le_bytes());
            }
            let small = |v: u64| if e.zip64 { u32::MAX } else { v as u32 };
            out.extend_from_slice(b"PK\x03\x04");
            out.extend_from_slice(&45u16.to_le_bytes());
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&method.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
            if descriptor {
                out.extend_from_slice(&0u32.to_le_bytes());
                let z = if e.zip64 { u32::MAX } else { 0 };
                out.extend_from_slice(&z.to_le_bytes());
                out.extend_from_slice(&z.to_le_bytes());
            } else {
                out.extend_from_slice(&crc.to_le_bytes());
                out.extend_from_slice(&small(csize).to_le_bytes());
                out.extend_from_slice(&small(usize_).to_le_bytes());
            }
            out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            out.extend_from_slice(&e.name);
            out.extend_from_slice(&extra);
            out.extend_from_slice(&packed);
            match e.descriptor {
                Descriptor::None => {}
                Descriptor::Signed32 | Descriptor::Unsigned32 => {
                    if e.descriptor == Descriptor::Signed32 {
                        out.extend_from_slice(b"PK\x07\x08");
                    }
                    out.extend_from_slice(&crc.to_le_bytes());
                    out.extend_from_slice(&(csize as u32).to_le_bytes());
                    out.extend_from_slice(&(usize_ as u32).to_le_bytes());
                }
                Descriptor::Signed64 => {
                    out.extend_from_slice(b"PK\x07\x08");
                    out.extend_from_slice(&crc.to_le_bytes());
                    out.extend_from_slice(&csize.to_le_bytes());
                    out.extend_from_slice(&usize_.to_le_bytes());
                }
            }
            let mut cextra = Vec::new();
            if e.zip64 {
                cextra.extend_from_slice(&1u16.to_le_bytes());
                cextra.extend_from_slice(&24u16.to_le_bytes());
                cextra.extend_from_slice(&usize_.to_le_bytes());
                cextra.extend_from_slice(&csize.to_le_bytes());
                cextra.extend_from_slice(&offset.to_le_bytes());
            }
            central.extend_from_slice(b"PK\x01\x02");
            central.extend_from_slice(&e.made_by.to_le_bytes());
            central.extend_from_slice(&45u16.to_le_bytes());
            central.extend_from_slice(&flags.to_le_bytes());
            central.extend_from_slice(&method.to_le_bytes());
            central.extend_from_slice(&[0; 4]);
            central.extend_from_slice(&crc.to_le_bytes());
            central.extend_from_slice(&small(csize).to_le_bytes());
            central.extend_from_slice(&small(usize_).to_le_bytes());
            central.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            central.extend_from_slice(&(cextra.len() as u16).to_le_bytes());
            central.extend_from_slice(&0u16.to_le_bytes());
            central.extend_from_slice(&0u16.to_le_bytes());
            central.extend_from_slice(&0u16.to_le_bytes());
            central.extend_from_slice(&e.external.to_le_bytes());
            central.extend_from_slice(&small(offset).to_le_bytes());
            central.extend_from_slice(&e.name);
            central.extend_from_slice(&cextra);
        }
        let start = out.len() as u64;
        out.extend_from_slice(&central);
        let count = self.entries.len() as u64;
        if self.zip64_end {
            let end64 = out.len() as u64;
            out.extend_from_slice(b"PK\x06\x06");
            out.extend_from_slice(&44u64.to_le_bytes());
            out.extend_from_slice(&45u16.to_le_bytes());
            out.extend_from_slice(&45u16.to_le_bytes());
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&count.to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
            out.extend_from_slice(&(central.len() as u64).to_le_bytes());
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(b"PK\x06\x07");
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&end64.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
        }
        out.extend_from_slice(b"PK\x05\x06");
        out.extend_from_slice(&[0; 4]);
        let (n, size, at) = if self.zip64_end {
            (0xffff, u32::MAX, u32::MAX)
        } else {
            (count as u16, central.len() as u32, start as u32)
        };
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&(self.comment.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.comment);
        out
    }
}

/// Go's `dirhash.Hash1` of these files, computed directly.
pub fn hash1(files: &[(&[u8], &[u8])]) -> String {
    use base64::Engine as _;
    let mut files = files.to_vec();
    files.sort();
    let mut summary = Sha256::new();
    for (name, data) in files {
        let hex: String = Sha256::digest(data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        summary.update(hex.as_bytes());
        summary.update(b"  ");
        summary.update(name);
        summary.update(b"\n");
    }
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary.finalize())
    )
}

/// A zip of one deflated entry `name` holding `mib` MiB of zeros (a deflate
/// bomb), made without holding them: the deflate stream of the first MiB,
/// then that of one MiB more, which only refers back to zeros and so can
/// follow itself any number of times, then the stream's end. About 1 KiB
/// of archive per MiB.
pub fn zeros(name: &str, mib: u32) -> Vec<u8> {
    use flate2::{Compress, FlushCompress};

    /// `input` deflated by `c` and flushed to a byte boundary.
    fn piece(c: &mut Compress, input: &[u8], flush: FlushCompress) -> Vec<u8> {
        let start = c.total_in();
        let mut out = Vec::with_capacity(4096);
        loop {
            let done = (c.total_in() - start) as usize;
            c.compress_vec(&input[done..], &mut out, flush)
                .expect("in memory");
            // Flushed once the input is taken and room is left.
            if (c.total_in() - start) as usize == input.len() && out.len() < out.capacity() {
                return out;
            }
            out.reserve(4096);
        }
    }

    assert!((1..4096).contains(&mib), "1 MiB to 4 GiB without zip64");
    let block = vec![0; 1 << 20];
    let mut c = Compress::new(Compression::new(6), false);
    let first = piece(&mut c, &block, FlushCompress::Sync);
    let again = piece(&mut c, &block, FlushCompress::Sync);
    let end = piece(&mut c, &[], FlushCompress::Finish);
    let mut crc = crc32fast::Hasher::new();
    let one = {
        let mut h = crc32fast::Hasher::new();
        h.update(&block);
        h
    };
    for _ in 0..mib {
        crc.combine(&one);
    }
    let crc = crc.finalize();
    let csize = (first.len() + again.len() * (mib as usize - 1) + end.len()) as u32;
    let usize_ = mib << 20;
    let header = |central: bool| {
        let mut h = Vec::new();
        h.extend_from_slice(if central {
            b"PK\x01\x02"
        } else {
            b"PK\x03\x04"
        });
        if central {
            h.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes());
        }
        h.extend_from_slice(&20u16.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&8u16.to_le_bytes());
        h.extend_from_slice(&[0; 4]);
        h.extend_from_slice(&crc.to_le_bytes());
        h.extend_from_slice(&csize.to_le_bytes());
        h.extend_from_slice(&usize_.to_le_bytes());
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        if central {
            h.extend_from_slice(&[0; 6]);
            h.extend_from_slice(&(0o100755u32 << 16).to_le_bytes());
            h.extend_from_slice(&0u32.to_le_bytes());
        }
        h.extend_from_slice(name.as_bytes());
        h
    };
    let mut out = header(false);
    out.reserve(csize as usize + 256);
    out.extend_from_slice(&first);
    for _ in 1..mib {
        out.extend_from_slice(&again);
    }
    out.extend_from_slice(&end);
    let start = out.len() as u32;
    let central = header(true);
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\0\x01\0");
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}
