//! A zip of one file, mode 0755, made by Unix with zip 2.0: how the
//! registries of the testkit write their packages (a stored entry with a
//! fixed date in the registry that answers for any provider; a deflated
//! one of zeros in the signed registry's [`zeros_package`]).
//!
//! [`zeros_package`]: crate::signed_registry::zeros_package

/// The one entry.
pub(crate) struct Entry<'a> {
    /// Its name.
    pub(crate) name: &'a str,
    /// The compression method: 0 stored, 8 deflated.
    pub(crate) method: u16,
    /// Its MS-DOS time and date.
    pub(crate) time: u16,
    /// See `time`.
    pub(crate) date: u16,
    /// The CRC-32 of its content.
    pub(crate) crc: u32,
    /// How many bytes it takes in the archive.
    pub(crate) packed: u32,
    /// Its content's size.
    pub(crate) size: u32,
}

/// The archive: `entry`'s local header, its bytes as stored (`data`, in
/// pieces), the central directory and the end record.
pub(crate) fn write<'d>(entry: &Entry<'_>, data: impl IntoIterator<Item = &'d [u8]>) -> Vec<u8> {
    let name_len = u16::try_from(entry.name.len()).expect("a short name");
    let header = |central: bool| {
        let mut h = Vec::new();
        if central {
            h.extend_from_slice(b"PK\x01\x02");
            // Made by Unix (3), zip 2.0.
            h.extend_from_slice(&((3u16 << 8) | 20).to_le_bytes());
        } else {
            h.extend_from_slice(b"PK\x03\x04");
        }
        // Needed version, flags, method, time, date.
        for field in [20u16, 0, entry.method, entry.time, entry.date] {
            h.extend_from_slice(&field.to_le_bytes());
        }
        for field in [entry.crc, entry.packed, entry.size] {
            h.extend_from_slice(&field.to_le_bytes());
        }
        h.extend_from_slice(&name_len.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        if central {
            // Comment length, disk, internal attributes (6 bytes), the
            // external ones (the Unix mode in the high half), the local
            // header's offset.
            h.extend_from_slice(&[0; 6]);
            h.extend_from_slice(&(0o100_755u32 << 16).to_le_bytes());
            h.extend_from_slice(&0u32.to_le_bytes());
        }
        h.extend_from_slice(entry.name.as_bytes());
        h
    };
    let mut out = header(false);
    for piece in data {
        out.extend_from_slice(piece);
    }
    let start = u32::try_from(out.len()).expect("under 4 GiB");
    let central = header(true);
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\0\x01\0");
    out.extend_from_slice(&u32::try_from(central.len()).expect("small").to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}
