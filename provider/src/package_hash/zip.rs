//! A zip archive read front to back in one pass, as it downloads
//! (docs/behaviour.md, HASH-3 to HASH-6).
//!
//! Each entry is read from its local header: stored data for the size the
//! header gives, deflated data until the deflate stream ends (so entries
//! written with a data descriptor, whose sizes come after the data, need no
//! look-ahead), and stored data whose size only its data descriptor gives
//! until a descriptor whose CRC-32 and sizes are those of the bytes read so
//! far. The central directory that follows the entries is then checked
//! against what was read: every entry at the offset it names, with the same
//! name, method, flags, CRC-32 and sizes, and the end record's counts and
//! offsets those of the directory. Go's `archive/zip` reads entries from the
//! central directory; an archive that passes these checks gives it the same
//! entries with the same bytes.
//!
//! Memory: the header being read (at most 30 + 2 × 65,535 bytes for a local
//! header, 46 + 3 × 65,535 for a directory header), a 64 KiB output buffer
//! for inflating, the inflater's state, and one [`Record`] per entry.
//!
//! An [`Observer`] sees the archive as it is read: each entry's start, its
//! content as it is inflated, its end once checked, and each central
//! directory header once checked against its entry (the unpacker,
//! `crate::unpack`, writes the package from them). The hasher observes
//! nothing ([`Unobserved`]).

use flate2::{Decompress, FlushDecompress, Status};
use sha2::{Digest, Sha256};

use super::error::{PackageHashError, shown};

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const DESCRIPTOR: u32 = 0x0807_4b50;
const ZIP64_END: u32 = 0x0606_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const END: u32 = 0x0605_4b50;
const DESCRIPTOR_SIGNATURE: &[u8; 4] = b"PK\x07\x08";

const LOCAL_LEN: usize = 30;
const CENTRAL_LEN: usize = 46;
const END_LEN: usize = 22;
const ZIP64_LOCATOR_LEN: usize = 20;
/// A zip64 end record's fixed part, up to and including its size field.
const ZIP64_END_PREFIX: usize = 12;
/// The largest zip64 end record read (its extensible data is never used).
const ZIP64_END_MAX: u64 = 64 * 1024;
/// The most bytes a data descriptor and the next record's signature take:
/// signature, CRC-32, two 64-bit sizes, signature.
const DESCRIPTOR_WINDOW: usize = 28;
/// Inflated bytes are hashed in batches of this size.
const OUT_LEN: usize = 64 * 1024;

const STORED: u16 = 0;
const DEFLATED: u16 = 8;
const FLAG_ENCRYPTED: u16 = 1;
const FLAG_DESCRIPTOR: u16 = 1 << 3;
const FLAG_MASKED: u16 = 1 << 13;
const SATURATED: u32 = u32::MAX;

/// What the caller of [`ZipReader::update`] sees of the archive as it is
/// read, in the archive's order; any call may stop the reading with an
/// error, which `update` returns.
pub(crate) trait Observer {
    /// What stops the reading: the reader's own errors, or the observer's.
    type Error: From<PackageHashError>;

    /// Entry `index` (from 0, in the archive's order) starts: its local
    /// header was read and its name, flags and method accepted.
    fn start(&mut self, index: usize, name: &[u8]) -> Result<(), Self::Error>;

    /// The next bytes of the entry's content, never empty, inflated and
    /// final (content is never taken back), though not yet checked against
    /// its CRC-32 and sizes.
    fn content(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;

    /// The entry's data ended and matched its CRC-32 and sizes.
    fn end(&mut self) -> Result<(), Self::Error>;

    /// The central directory's header of entry `index` matched the entry.
    fn listed(&mut self, index: usize, entry: Listed<'_>) -> Result<(), Self::Error>;
}

/// A central directory header, as [`Observer::listed`] sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listed<'a> {
    /// The entry's name (the same as its local header's).
    pub(crate) name: &'a [u8],
    /// A folder, by its name or its mode (HASH-8).
    pub(crate) folder: bool,
    /// "Version made by": the creator system in the upper byte.
    pub(crate) made_by: u16,
    /// The external file attributes.
    pub(crate) external: u32,
}

/// The observer that sees nothing: the reading the hasher does.
pub(super) struct Unobserved;

impl Observer for Unobserved {
    type Error = PackageHashError;

    fn start(&mut self, _: usize, _: &[u8]) -> Result<(), PackageHashError> {
        Ok(())
    }

    fn content(&mut self, _: &[u8]) -> Result<(), PackageHashError> {
        Ok(())
    }

    fn end(&mut self) -> Result<(), PackageHashError> {
        Ok(())
    }

    fn listed(&mut self, _: usize, _: Listed<'_>) -> Result<(), PackageHashError> {
        Ok(())
    }
}

/// One entry as it was read, and as the central directory describes it.
#[derive(Debug)]
pub(super) struct Record {
    /// The name's bytes, as the archive holds them.
    pub(super) name: Box<[u8]>,
    /// Where its local header starts.
    offset: u64,
    method: u16,
    flags: u16,
    /// CRC-32 of the data, computed.
    crc: u32,
    /// Bytes of (compressed) data read.
    compressed: u64,
    /// Bytes of content.
    uncompressed: u64,
    /// SHA-256 of the content.
    pub(super) sha256: [u8; 32],
    /// A folder, by its name or the mode the central directory gives it.
    pub(super) folder: bool,
    /// Seen in the central directory.
    listed: bool,
}

/// Where in the archive the reader is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Entries,
    Central,
    Zip64End,
    Zip64Locator,
    End,
}

/// What the bytes being read are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The next record's signature, gathered in `buf`.
    Signature,
    /// A local header, gathered in `buf` up to `need` bytes.
    Local,
    /// An entry's data.
    Data,
    /// A data descriptor and the signature after it, gathered in `buf`.
    Descriptor,
    /// A central directory header, gathered in `buf`.
    Central,
    /// A zip64 end of central directory record, gathered in `buf`.
    Zip64End,
    /// A zip64 end of central directory locator, gathered in `buf`.
    Zip64Locator,
    /// The end of central directory record and its comment, in `buf`.
    End,
    /// Everything was read: no byte may follow.
    Done,
}

/// How an entry's data ends.
#[derive(Debug)]
enum Mode {
    /// Stored, this many bytes still to read.
    Stored { remaining: u64 },
    /// Stored, size only in the data descriptor: until one that matches.
    StoredUntilDescriptor,
    /// Deflated: until the stream ends, within `remaining` bytes when the
    /// header gives the size.
    Deflated { remaining: Option<u64> },
    /// Deflated data ended before the size the header gives: the rest is
    /// read and ignored, as Go ignores it.
    Skip { remaining: u64 },
    /// All data read.
    Ended,
}

/// The entry being read.
struct Entry {
    name: Box<[u8]>,
    offset: u64,
    method: u16,
    flags: u16,
    local_crc: u32,
    local_compressed: u64,
    local_uncompressed: u64,
    mode: Mode,
    sha: Sha256,
    crc: crc32fast::Hasher,
    compressed: u64,
    uncompressed: u64,
}

impl Entry {
    /// Content of the entry, hashed and shown to the observer.
    fn content<O: Observer>(&mut self, bytes: &[u8], observer: &mut O) -> Result<(), O::Error> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.sha.update(bytes);
        self.crc.update(bytes);
        self.uncompressed += bytes.len() as u64;
        observer.content(bytes)
    }

    /// Stored data: content whose compressed bytes are the same.
    fn stored<O: Observer>(&mut self, bytes: &[u8], observer: &mut O) -> Result<(), O::Error> {
        self.compressed += bytes.len() as u64;
        self.content(bytes, observer)
    }

    fn corrupt(&self, problem: impl Into<String>) -> PackageHashError {
        PackageHashError::Corrupt {
            entry: shown(&self.name),
            problem: problem.into(),
        }
    }
}

/// Values of the zip64 end record.
#[derive(Clone, Copy, Debug)]
struct Zip64End {
    offset: u64,
    entries: u64,
    size: u64,
    start: u64,
}

/// The streaming reader.
pub(super) struct ZipReader {
    /// Bytes consumed so far.
    pos: u64,
    stage: Stage,
    section: Section,
    /// The header being gathered.
    buf: Vec<u8>,
    /// How many bytes `buf` must hold for the current stage.
    need: usize,
    /// Stored data held back while a data descriptor may start in it.
    hold: Vec<u8>,
    entry: Option<Entry>,
    records: Vec<Record>,
    inflater: Option<Decompress>,
    out: Vec<u8>,
    central_start: Option<u64>,
    central_entries: u64,
    zip64_end: Option<Zip64End>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0; 8];
    v.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(v)
}

/// The extra field with this id, if any.
fn extra_field(mut extra: &[u8], id: u16) -> Option<&[u8]> {
    while extra.len() >= 4 {
        let (this, len) = (u16_at(extra, 0), usize::from(u16_at(extra, 2)));
        let body = extra.get(4..4 + len)?;
        if this == id {
            return Some(body);
        }
        extra = &extra[4 + len..];
    }
    None
}

/// Whether these four bytes start a record that may follow an entry.
fn follows_entry(b: &[u8]) -> bool {
    matches!(u32_at(b, 0), LOCAL | CENTRAL | ZIP64_END | END)
}

/// The length of the data descriptor at the start of `b` whose CRC-32 and
/// sizes are these and which is followed by a record's signature: with or
/// without its signature, with 32- or 64-bit sizes, in that order of
/// preference. `None` when none matches or `b` is too short to tell.
fn descriptor_len(b: &[u8], crc: u32, compressed: u64, uncompressed: u64) -> Option<usize> {
    let signed = b.len() >= 4 && u32_at(b, 0) == DESCRIPTOR;
    let starts: &[usize] = if signed { &[4, 0] } else { &[0] };
    for &start in starts {
        for wide in [false, true] {
            let size = if wide { 8 } else { 4 };
            let len = start + 4 + 2 * size;
            let Some(next) = b.get(len..len + 4) else {
                continue;
            };
            let read = |at: usize| {
                if wide {
                    u64_at(b, at)
                } else {
                    u64::from(u32_at(b, at))
                }
            };
            if u32_at(b, start) == crc
                && read(start + 4) == compressed
                && read(start + 4 + size) == uncompressed
                && follows_entry(next)
            {
                return Some(len);
            }
        }
    }
    None
}

/// Whether Go's `FileHeader.Mode` makes a directory of these attributes.
fn mode_is_folder(made_by: u16, external: u32) -> bool {
    match made_by >> 8 {
        // Unix, macOS: S_IFDIR in the upper half.
        3 | 19 => (external >> 16) & 0o170_000 == 0o040_000,
        // FAT, NTFS, VFAT: the MS-DOS directory attribute.
        0 | 11 | 14 => external & 0x10 != 0,
        _ => false,
    }
}

impl ZipReader {
    pub(super) fn new() -> ZipReader {
        ZipReader {
            pos: 0,
            stage: Stage::Signature,
            section: Section::Entries,
            buf: Vec::with_capacity(64),
            need: 4,
            hold: Vec::new(),
            entry: None,
            records: Vec::new(),
            inflater: None,
            out: Vec::new(),
            central_start: None,
            central_entries: 0,
            zip64_end: None,
        }
    }

    /// Bytes read so far.
    pub(super) fn position(&self) -> u64 {
        self.pos
    }

    /// Moves bytes of `input` into `buf` until it holds `need`; true when it
    /// does.
    fn gather(&mut self, input: &mut &[u8]) -> bool {
        if self.buf.len() < self.need {
            let take = (self.need - self.buf.len()).min(input.len());
            self.buf.extend_from_slice(&input[..take]);
            *input = &input[take..];
            self.pos += take as u64;
        }
        self.buf.len() >= self.need
    }

    /// Where the record gathered in `buf` starts.
    fn record_start(&self) -> u64 {
        self.pos - self.buf.len() as u64
    }

    /// Reads `input`, all of it unless an error (the reader's or the
    /// observer's) stops it.
    pub(super) fn update<O: Observer>(
        &mut self,
        mut input: &[u8],
        observer: &mut O,
    ) -> Result<(), O::Error> {
        loop {
            // An entry ends when its record is kept.
            let ended = self.records.len();
            if self.stage == Stage::Data {
                self.data(&mut input, observer)?;
                if self.records.len() > ended {
                    observer.end()?;
                }
                if self.stage == Stage::Data {
                    // Everything was read: the entry wants more.
                    debug_assert!(input.is_empty());
                    return Ok(());
                }
                continue;
            }
            if self.stage == Stage::Done {
                if input.is_empty() {
                    return Ok(());
                }
                return Err(PackageHashError::TrailingData { offset: self.pos }.into());
            }
            if !self.gather(&mut input) {
                return Ok(());
            }
            match self.stage {
                Stage::Signature => self.signature()?,
                Stage::Local => {
                    self.local()?;
                    if let (Stage::Data, Some(entry)) = (self.stage, &self.entry) {
                        observer.start(self.records.len(), &entry.name)?;
                    }
                }
                Stage::Descriptor => {
                    self.descriptor()?;
                    if self.records.len() > ended {
                        observer.end()?;
                    }
                }
                Stage::Central => {
                    if let Some((index, made_by, external)) = self.central()? {
                        let record = &self.records[index];
                        observer.listed(
                            index,
                            Listed {
                                name: &record.name,
                                folder: record.folder,
                                made_by,
                                external,
                            },
                        )?;
                    }
                }
                Stage::Zip64End => self.zip64_end()?,
                Stage::Zip64Locator => self.zip64_locator()?,
                Stage::End => self.end()?,
                Stage::Data | Stage::Done => {}
            }
        }
    }

    /// The records of all entries, once the whole archive has been read.
    pub(super) fn finish(self) -> Result<Vec<Record>, PackageHashError> {
        if self.stage == Stage::Done {
            return Ok(self.records);
        }
        let within = match (&self.stage, &self.entry) {
            (Stage::Descriptor, Some(entry)) => {
                format!("the data descriptor of entry {:?}", shown(&entry.name))
            }
            (Stage::Data, Some(entry)) => {
                let how = match entry.mode {
                    Mode::StoredUntilDescriptor => {
                        " (stored, its size in a data descriptor: none that matches was found)"
                    }
                    _ => "",
                };
                format!("the data of entry {:?}{how}", shown(&entry.name))
            }
            (Stage::Signature, _) if self.pos == 0 => "the first record (no bytes)".to_owned(),
            (Stage::Signature, _) => "the signature of the next record".to_owned(),
            (Stage::Local, _) => "a local file header".to_owned(),
            (Stage::Central, _) => "a central directory header".to_owned(),
            (Stage::Zip64End, _) => "the zip64 end of central directory record".to_owned(),
            (Stage::Zip64Locator, _) => "the zip64 end of central directory locator".to_owned(),
            _ => "the end of central directory record".to_owned(),
        };
        Err(PackageHashError::Truncated {
            offset: self.pos,
            within,
        })
    }

    fn expect(&mut self, stage: Stage, need: usize) {
        self.stage = stage;
        self.need = need;
    }

    fn not_a_zip(&self, expected: &'static str) -> PackageHashError {
        PackageHashError::NotAZip {
            offset: self.record_start(),
            expected,
        }
    }

    /// What may come next, for messages.
    fn expected(&self) -> &'static str {
        match self.section {
            Section::Entries => "a local file header or the central directory",
            Section::Central => "a central directory header or the end record",
            Section::Zip64End => "the zip64 end of central directory locator",
            Section::Zip64Locator | Section::End => "the end of central directory record",
        }
    }

    fn signature(&mut self) -> Result<(), PackageHashError> {
        let found = u32_at(&self.buf, 0);
        let section = match found {
            LOCAL => Section::Entries,
            CENTRAL => Section::Central,
            ZIP64_END => Section::Zip64End,
            ZIP64_LOCATOR => Section::Zip64Locator,
            END => Section::End,
            _ => return Err(self.not_a_zip(self.expected())),
        };
        // Records come in this order: entries, directory headers, the zip64
        // end record and its locator, the end record.
        let in_order = match section {
            Section::Entries | Section::Central => self.section <= section,
            Section::Zip64End => self.section <= Section::Central,
            Section::Zip64Locator => self.section == Section::Zip64End,
            Section::End => {
                self.section <= Section::Central || self.section == Section::Zip64Locator
            }
        };
        if !in_order {
            return Err(self.not_a_zip(self.expected()));
        }
        if section != Section::Entries && self.central_start.is_none() {
            self.central_start = Some(self.record_start());
        }
        self.section = section;
        match section {
            Section::Entries => self.expect(Stage::Local, LOCAL_LEN),
            Section::Central => self.expect(Stage::Central, CENTRAL_LEN),
            Section::Zip64End => self.expect(Stage::Zip64End, ZIP64_END_PREFIX),
            Section::Zip64Locator => self.expect(Stage::Zip64Locator, ZIP64_LOCATOR_LEN),
            Section::End => self.expect(Stage::End, END_LEN),
        }
        Ok(())
    }

    fn local(&mut self) -> Result<(), PackageHashError> {
        let b = &self.buf;
        let (name_len, extra_len) = (usize::from(u16_at(b, 26)), usize::from(u16_at(b, 28)));
        let whole = LOCAL_LEN + name_len + extra_len;
        if b.len() < whole {
            self.need = whole;
            return Ok(());
        }
        let offset = self.record_start();
        let flags = u16_at(b, 6);
        let method = u16_at(b, 8);
        let local_crc = u32_at(b, 14);
        let mut compressed = u64::from(u32_at(b, 18));
        let mut uncompressed = u64::from(u32_at(b, 22));
        let name: Box<[u8]> = b[LOCAL_LEN..LOCAL_LEN + name_len].into();
        let extra = &b[LOCAL_LEN + name_len..whole];
        let saturated = compressed == u64::from(SATURATED) || uncompressed == u64::from(SATURATED);
        if let Some(zip64) = extra_field(extra, 1).filter(|_| saturated) {
            // Original size, then compressed size (APPNOTE 4.5.3): both in a
            // local header, though some writers put only the saturated ones.
            let both = zip64.len() >= 16;
            let mut at = 0;
            for field in [&mut uncompressed, &mut compressed] {
                if *field != u64::from(SATURATED) && !both {
                    continue;
                }
                if let Some(bytes) = zip64.get(at..at + 8) {
                    *field = u64_at(bytes, 0);
                    at += 8;
                }
            }
        }
        let unsupported = |what: String| PackageHashError::Unsupported {
            entry: shown(&name),
            what,
        };
        if flags & FLAG_ENCRYPTED != 0 {
            return Err(unsupported("encryption".to_owned()));
        }
        if flags & FLAG_MASKED != 0 {
            return Err(unsupported("a masked local header".to_owned()));
        }
        let descriptor = flags & FLAG_DESCRIPTOR != 0;
        let known = |size: u64| size != u64::from(SATURATED) && !(descriptor && size == 0);
        let mode = match method {
            STORED if known(compressed) => Mode::Stored {
                remaining: compressed,
            },
            STORED if descriptor => Mode::StoredUntilDescriptor,
            STORED => {
                return Err(PackageHashError::Corrupt {
                    entry: shown(&name),
                    problem: "its local header gives no size (and no zip64 size)".to_owned(),
                });
            }
            DEFLATED => {
                let inflater = self.inflater.get_or_insert_with(|| Decompress::new(false));
                inflater.reset(false);
                Mode::Deflated {
                    remaining: (!descriptor && known(compressed)).then_some(compressed),
                }
            }
            other => {
                return Err(unsupported(format!(
                    "compression method {other} (only 0, stored, and 8, deflated, are)"
                )));
            }
        };
        self.entry = Some(Entry {
            name,
            offset,
            method,
            flags,
            local_crc,
            local_compressed: compressed,
            local_uncompressed: uncompressed,
            mode,
            sha: Sha256::new(),
            crc: crc32fast::Hasher::new(),
            compressed: 0,
            uncompressed: 0,
        });
        self.buf.clear();
        self.stage = Stage::Data;
        Ok(())
    }

    /// Reads the current entry's data from `input`; moves on when it ends.
    fn data<O: Observer>(&mut self, input: &mut &[u8], observer: &mut O) -> Result<(), O::Error> {
        let Some(entry) = self.entry.as_mut() else {
            self.expect(Stage::Signature, 4);
            return Ok(());
        };
        loop {
            match entry.mode {
                Mode::Stored { remaining } | Mode::Skip { remaining } => {
                    let take = usize::try_from(remaining)
                        .unwrap_or(usize::MAX)
                        .min(input.len());
                    let (now, rest) = input.split_at(take);
                    let skipped = matches!(entry.mode, Mode::Skip { .. });
                    if skipped {
                        entry.compressed += take as u64;
                    } else {
                        entry.stored(now, observer)?;
                    }
                    self.pos += take as u64;
                    *input = rest;
                    entry.mode = match remaining - take as u64 {
                        0 => Mode::Ended,
                        left if skipped => Mode::Skip { remaining: left },
                        left => Mode::Stored { remaining: left },
                    };
                    if !matches!(entry.mode, Mode::Ended) {
                        return Ok(());
                    }
                }
                Mode::Deflated { remaining } => {
                    let inflater = self.inflater.get_or_insert_with(|| Decompress::new(false));
                    if self.out.len() < OUT_LEN {
                        self.out.resize(OUT_LEN, 0);
                    }
                    let limit = match remaining {
                        Some(r) => usize::try_from(r).unwrap_or(usize::MAX).min(input.len()),
                        None => input.len(),
                    };
                    let mut avail = &input[..limit];
                    let mut ended = false;
                    loop {
                        let (before_in, before_out) = (inflater.total_in(), inflater.total_out());
                        let status = inflater
                            .decompress(avail, &mut self.out, FlushDecompress::None)
                            .map_err(|e| entry.corrupt(format!("invalid deflate data: {e}")))?;
                        let used = (inflater.total_in() - before_in) as usize;
                        let made = (inflater.total_out() - before_out) as usize;
                        entry.content(&self.out[..made], observer)?;
                        avail = &avail[used..];
                        if status == Status::StreamEnd {
                            ended = true;
                            break;
                        }
                        if used == 0 && made == 0 {
                            // Nothing more can be done with these bytes:
                            // the inflater wants more (or has none left).
                            break;
                        }
                        if avail.is_empty() && made < self.out.len() {
                            break;
                        }
                    }
                    let used = limit - avail.len();
                    entry.compressed += used as u64;
                    self.pos += used as u64;
                    *input = &input[used..];
                    let left = remaining.map(|r| r - used as u64);
                    if ended {
                        entry.mode = match left {
                            Some(0) | None => Mode::Ended,
                            Some(remaining) => Mode::Skip { remaining },
                        };
                        continue;
                    }
                    if left == Some(0) {
                        return Err(entry
                            .corrupt("its deflate data ends before the end of the deflate stream")
                            .into());
                    }
                    if !avail.is_empty() {
                        return Err(entry.corrupt("the inflater made no progress").into());
                    }
                    entry.mode = Mode::Deflated { remaining: left };
                    return Ok(());
                }
                Mode::StoredUntilDescriptor => {
                    let found = scan(entry, &mut self.hold, input, &mut self.pos, observer)?;
                    match found {
                        Scan::More => return Ok(()),
                        Scan::Descriptor { leftover } => {
                            // The bytes of the next record already read go
                            // on in `buf`.
                            self.buf.clear();
                            self.buf.extend_from_slice(&leftover[..]);
                            self.finish_entry()?;
                            return Ok(());
                        }
                    }
                }
                Mode::Ended => {
                    if entry.flags & FLAG_DESCRIPTOR != 0 {
                        self.buf.clear();
                        self.expect(Stage::Descriptor, DESCRIPTOR_WINDOW);
                        return Ok(());
                    }
                    let crc = entry.crc.clone().finalize();
                    if crc != entry.local_crc {
                        return Err(entry
                            .corrupt(format!(
                                "its CRC-32 is {crc:08x}, its local header says {:08x}",
                                entry.local_crc
                            ))
                            .into());
                    }
                    if entry.compressed != entry.local_compressed
                        || entry.uncompressed != entry.local_uncompressed
                    {
                        return Err(entry
                            .corrupt(format!(
                                "{} bytes giving {} bytes were read, its local header says {} \
                                 giving {}",
                                entry.compressed,
                                entry.uncompressed,
                                entry.local_compressed,
                                entry.local_uncompressed
                            ))
                            .into());
                    }
                    self.buf.clear();
                    self.finish_entry()?;
                    return Ok(());
                }
            }
        }
    }

    /// Records the entry read and expects the next record.
    fn finish_entry(&mut self) -> Result<(), PackageHashError> {
        if let Some(entry) = self.entry.take() {
            self.records.push(Record {
                name: entry.name,
                offset: entry.offset,
                method: entry.method,
                flags: entry.flags,
                crc: entry.crc.finalize(),
                compressed: entry.compressed,
                uncompressed: entry.uncompressed,
                sha256: entry.sha.finalize().into(),
                folder: false,
                listed: false,
            });
        }
        self.expect(Stage::Signature, 4);
        Ok(())
    }

    /// The data descriptor after an entry's data, and the next signature.
    fn descriptor(&mut self) -> Result<(), PackageHashError> {
        let Some(entry) = self.entry.as_ref() else {
            return Err(self.not_a_zip("a data descriptor"));
        };
        let crc = entry.crc.clone().finalize();
        match descriptor_len(&self.buf, crc, entry.compressed, entry.uncompressed) {
            Some(len) => {
                self.buf.drain(..len);
                self.finish_entry()
            }
            None => Err(entry.corrupt(format!(
                "no data descriptor with its CRC-32 ({crc:08x}) and sizes ({} and {}) \
                 follows its data",
                entry.compressed, entry.uncompressed
            ))),
        }
    }

    /// A central directory header; once it is whole and matches its entry,
    /// the entry's index, "version made by" and external attributes.
    fn central(&mut self) -> Result<Option<(usize, u16, u32)>, PackageHashError> {
        let b = &self.buf;
        let (name_len, extra_len, comment_len) = (
            usize::from(u16_at(b, 28)),
            usize::from(u16_at(b, 30)),
            usize::from(u16_at(b, 32)),
        );
        let whole = CENTRAL_LEN + name_len + extra_len + comment_len;
        if b.len() < whole {
            self.need = whole;
            return Ok(None);
        }
        let made_by = u16_at(b, 4);
        let flags = u16_at(b, 8);
        let method = u16_at(b, 10);
        let crc = u32_at(b, 16);
        let mut compressed = u64::from(u32_at(b, 20));
        let mut uncompressed = u64::from(u32_at(b, 24));
        let external = u32_at(b, 38);
        let mut offset = u64::from(u32_at(b, 42));
        let name = &b[CENTRAL_LEN..CENTRAL_LEN + name_len];
        let extra = &b[CENTRAL_LEN + name_len..CENTRAL_LEN + name_len + extra_len];
        // Go's reader: the zip64 field holds the saturated values, in this
        // order; a compressed size or offset left saturated is an error, an
        // uncompressed size of 2³²−1 may be real.
        let mut need = [
            uncompressed == u64::from(SATURATED),
            compressed == u64::from(SATURATED),
            offset == u64::from(SATURATED),
        ];
        if let Some(zip64) = extra_field(extra, 1) {
            let mut at = 0;
            for (i, field) in [&mut uncompressed, &mut compressed, &mut offset]
                .into_iter()
                .enumerate()
            {
                if !need[i] {
                    continue;
                }
                if let Some(bytes) = zip64.get(at..at + 8) {
                    *field = u64_at(bytes, 0);
                    at += 8;
                    need[i] = false;
                }
            }
        }
        let problem = |what: String| PackageHashError::CentralDirectory { problem: what };
        if need[1] || need[2] {
            return Err(problem(format!(
                "the header of {:?} lacks its zip64 sizes",
                shown(name)
            )));
        }
        let index = self
            .records
            .binary_search_by_key(&offset, |r| r.offset)
            .map_err(|_| {
                problem(format!(
                    "it lists {:?} at byte {offset}, where no entry starts",
                    shown(name)
                ))
            })?;
        let record = &mut self.records[index];
        let differs = |field: &str, read: String, listed: String| {
            problem(format!(
                "entry {:?}: {field} {read} as read, {listed} in the central directory",
                shown(&record.name)
            ))
        };
        if record.listed {
            return Err(problem(format!(
                "it lists the entry at byte {offset} twice"
            )));
        }
        if *record.name != *name {
            return Err(differs(
                "name",
                format!("{:?}", shown(&record.name)),
                format!("{:?}", shown(name)),
            ));
        }
        if record.method != method {
            return Err(differs(
                "method",
                record.method.to_string(),
                method.to_string(),
            ));
        }
        let flag_bits = FLAG_ENCRYPTED | FLAG_DESCRIPTOR;
        if record.flags & flag_bits != flags & flag_bits {
            return Err(differs(
                "flags",
                format!("{:#06x}", record.flags),
                format!("{flags:#06x}"),
            ));
        }
        if record.crc != crc {
            return Err(differs(
                "CRC-32",
                format!("{:08x}", record.crc),
                format!("{crc:08x}"),
            ));
        }
        if record.compressed != compressed {
            return Err(differs(
                "compressed size",
                record.compressed.to_string(),
                compressed.to_string(),
            ));
        }
        if record.uncompressed != uncompressed {
            return Err(differs(
                "size",
                record.uncompressed.to_string(),
                uncompressed.to_string(),
            ));
        }
        record.listed = true;
        record.folder = name.last() == Some(&b'/') || mode_is_folder(made_by, external);
        self.central_entries += 1;
        self.buf.clear();
        self.expect(Stage::Signature, 4);
        Ok(Some((index, made_by, external)))
    }

    fn zip64_end(&mut self) -> Result<(), PackageHashError> {
        let size = u64_at(&self.buf, 4);
        if !(44..=ZIP64_END_MAX).contains(&size) {
            return Err(PackageHashError::CentralDirectory {
                problem: format!("a zip64 end record of {size} bytes"),
            });
        }
        let whole = ZIP64_END_PREFIX + size as usize;
        if self.buf.len() < whole {
            self.need = whole;
            return Ok(());
        }
        let b = &self.buf;
        self.zip64_end = Some(Zip64End {
            offset: self.pos - b.len() as u64,
            entries: u64_at(b, 32),
            size: u64_at(b, 40),
            start: u64_at(b, 48),
        });
        self.buf.clear();
        self.expect(Stage::Signature, 4);
        Ok(())
    }

    fn zip64_locator(&mut self) -> Result<(), PackageHashError> {
        let at = u64_at(&self.buf, 8);
        if self.zip64_end.map(|end| end.offset) != Some(at) {
            return Err(PackageHashError::CentralDirectory {
                problem: format!(
                    "the zip64 locator points at byte {at}, not at the zip64 end record"
                ),
            });
        }
        self.buf.clear();
        self.expect(Stage::Signature, 4);
        Ok(())
    }

    fn end(&mut self) -> Result<(), PackageHashError> {
        let b = &self.buf;
        let whole = END_LEN + usize::from(u16_at(b, 20));
        if b.len() < whole {
            self.need = whole;
            return Ok(());
        }
        let record_start = self.pos - b.len() as u64;
        let mut entries = u64::from(u16_at(b, 10));
        let mut size = u64::from(u32_at(b, 12));
        let mut start = u64::from(u32_at(b, 16));
        let problem = |what: String| PackageHashError::CentralDirectory { problem: what };
        let saturated =
            entries == 0xffff || size == u64::from(SATURATED) || start == u64::from(SATURATED);
        let directory_end = match self.zip64_end {
            Some(zip64) => {
                (entries, size, start) = (zip64.entries, zip64.size, zip64.start);
                zip64.offset
            }
            None if saturated => {
                return Err(problem(
                    "the end record's values are saturated and there is no zip64 end record"
                        .to_owned(),
                ));
            }
            None => record_start,
        };
        let central_start = self.central_start.unwrap_or(record_start);
        if start != central_start {
            return Err(problem(format!(
                "the end record says it starts at byte {start}, it starts at byte {central_start}"
            )));
        }
        let real_size = directory_end.saturating_sub(central_start);
        if size != real_size {
            return Err(problem(format!(
                "the end record says it is {size} bytes long, it is {real_size}"
            )));
        }
        if entries != self.central_entries {
            return Err(problem(format!(
                "the end record counts {entries} entries, it lists {}",
                self.central_entries
            )));
        }
        if let Some(missing) = self.records.iter().find(|r| !r.listed) {
            return Err(problem(format!(
                "entry {:?} at byte {} is not listed",
                shown(&missing.name),
                missing.offset
            )));
        }
        self.buf.clear();
        self.stage = Stage::Done;
        Ok(())
    }
}

/// What scanning stored data for its data descriptor found.
enum Scan {
    /// All input was read; the entry goes on.
    More,
    /// The descriptor; these bytes after it start the next record.
    Descriptor { leftover: Vec<u8> },
}

/// Reads stored data whose size only the data descriptor gives: bytes are
/// content until a descriptor signature followed by the CRC-32 and sizes of
/// the content so far, and a record's signature. Bytes that may start such
/// a descriptor are held back in `hold` (at most [`DESCRIPTOR_WINDOW`] − 1
/// plus as many) until there are enough to tell.
fn scan<O: Observer>(
    entry: &mut Entry,
    hold: &mut Vec<u8>,
    input: &mut &[u8],
    pos: &mut u64,
    observer: &mut O,
) -> Result<Scan, O::Error> {
    // First the held bytes, with enough of the input after them to decide.
    if !hold.is_empty() {
        let held = hold.len();
        let peek = input.len().min(DESCRIPTOR_WINDOW);
        let mut window = [0u8; 2 * DESCRIPTOR_WINDOW];
        window[..held].copy_from_slice(hold);
        window[held..held + peek].copy_from_slice(&input[..peek]);
        let window = &window[..held + peek];
        let mut committed = 0;
        let mut i = 0;
        while i < held {
            if !DESCRIPTOR_SIGNATURE.starts_with(&window[i..(i + 4).min(window.len())]) {
                i += 1;
                continue;
            }
            if window.len() - i < DESCRIPTOR_WINDOW {
                // Not enough bytes to tell: keep them all (the input is
                // shorter than the window, so it all goes in).
                entry.stored(&window[committed..i], observer)?;
                hold.drain(..i);
                hold.extend_from_slice(input);
                *pos += input.len() as u64;
                *input = &[];
                return Ok(Scan::More);
            }
            if let Some(len) = descriptor_at(entry, window, &mut committed, i, observer)? {
                let end = i + len;
                let leftover = window[end.min(held)..held].to_vec();
                let from_input = end.saturating_sub(held);
                *pos += from_input as u64;
                *input = &input[from_input..];
                hold.clear();
                entry.mode = Mode::Ended;
                return Ok(Scan::Descriptor { leftover });
            }
            i += 1;
        }
        entry.stored(&window[committed..held], observer)?;
        hold.clear();
    }
    // Then the input itself.
    let finder = memchr::memmem::Finder::new(DESCRIPTOR_SIGNATURE);
    let mut committed = 0;
    let mut from = 0;
    // Where the bytes held back begin.
    let held_from = loop {
        let Some(found) = finder.find(&input[from..]).map(|at| from + at) else {
            // No signature: keep back a tail that may begin one.
            let keep = (1..4)
                .rev()
                .find(|&k| {
                    input.len() >= committed + k
                        && DESCRIPTOR_SIGNATURE.starts_with(&input[input.len() - k..])
                })
                .unwrap_or(0);
            break input.len() - keep;
        };
        if input.len() - found < DESCRIPTOR_WINDOW {
            break found;
        }
        if let Some(len) = descriptor_at(entry, input, &mut committed, found, observer)? {
            let end = found + len;
            *pos += end as u64;
            *input = &input[end..];
            entry.mode = Mode::Ended;
            return Ok(Scan::Descriptor {
                leftover: Vec::new(),
            });
        }
        from = found + 1;
    };
    entry.stored(&input[committed..held_from], observer)?;
    hold.extend_from_slice(&input[held_from..]);
    *pos += input.len() as u64;
    *input = &[];
    Ok(Scan::More)
}

/// Stores the content in `data` from `committed` up to `at`, where a
/// descriptor signature stands, and tells how long the descriptor there is
/// when it is one for the content so far.
fn descriptor_at<O: Observer>(
    entry: &mut Entry,
    data: &[u8],
    committed: &mut usize,
    at: usize,
    observer: &mut O,
) -> Result<Option<usize>, O::Error> {
    entry.stored(&data[*committed..at], observer)?;
    *committed = at;
    let crc = entry.crc.clone().finalize();
    Ok(descriptor_len(
        &data[at..],
        crc,
        entry.compressed,
        entry.uncompressed,
    ))
}
