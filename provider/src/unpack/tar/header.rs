//! One 512-byte tar header block read as Go's `archive/tar` reads it
//! (docs/behaviour.md, TAR-3): its checksum, its numeric fields (octal or
//! base-256), its name (with the USTAR prefix), and PAX records.

/// The size of a tar block.
pub(super) const BLOCK: usize = 512;

/// The most bytes a PAX header or a GNU long name may hold (Go's
/// `maxSpecialFileSize`).
pub(super) const MAX_SPECIAL: u64 = 1 << 20;

/// A header block, parsed.
#[derive(Debug)]
pub(super) struct Header {
    /// The name: the USTAR prefix, `/` and the name, up to their NULs.
    pub(super) name: Vec<u8>,
    /// The mode field.
    pub(super) mode: i64,
    /// The size field.
    pub(super) size: i64,
    /// The type flag.
    pub(super) typeflag: u8,
}

/// Why a header is refused: Go's `archive/tar: invalid tar header`.
pub(super) type Invalid = &'static str;

/// Whether every byte of the block is zero (an end-of-archive block).
pub(super) fn is_zero(block: &[u8; BLOCK]) -> bool {
    block.iter().all(|&b| b == 0)
}

/// The header in `block`, or why it is invalid.
pub(super) fn parse(block: &[u8; BLOCK]) -> Result<Header, Invalid> {
    let checksum = octal(&block[148..156]).map_err(|_| "bad header checksum field")?;
    let (mut unsigned, mut signed) = (0i64, 0i64);
    for (at, &b) in block.iter().enumerate() {
        let b = if (148..156).contains(&at) { b' ' } else { b };
        unsigned += i64::from(b);
        signed += i64::from(b as i8);
    }
    if checksum != unsigned && checksum != signed {
        return Err("header checksum does not match");
    }
    let magic = &block[257..263];
    let version = &block[263..265];
    let ustar = magic == b"ustar\0" && version == b"00";
    let gnu = magic == b"ustar " && version == b" \0";
    let mode = numeric(&block[100..108])?;
    numeric(&block[108..116])?;
    numeric(&block[116..124])?;
    let size = numeric(&block[124..136])?;
    numeric(&block[136..148])?;
    if ustar || gnu {
        numeric(&block[329..337])?;
        numeric(&block[337..345])?;
    }
    let mut name = Vec::new();
    if ustar {
        // A star archive's prefix is shorter: its last 24 bytes hold times.
        let prefix = if &block[508..512] == b"tar\0" {
            &block[345..476]
        } else {
            &block[345..500]
        };
        let prefix = string(prefix);
        if !prefix.is_empty() {
            name.extend_from_slice(prefix);
            name.push(b'/');
        }
    }
    name.extend_from_slice(string(&block[..100]));
    Ok(Header {
        name,
        mode,
        size,
        typeflag: block[156],
    })
}

/// A field's bytes up to its first NUL.
pub(super) fn string(field: &[u8]) -> &[u8] {
    field.split(|&b| b == 0).next().unwrap_or(field)
}

/// A numeric field: base-256 when its first bit is set, else octal.
fn numeric(field: &[u8]) -> Result<i64, Invalid> {
    let Some(&first) = field.first() else {
        return Ok(0);
    };
    if first & 0x80 == 0 {
        return octal(field);
    }
    let invert = if first & 0x40 != 0 { 0xff } else { 0 };
    let mut x: u64 = 0;
    for (at, &b) in field.iter().enumerate() {
        let mut b = b ^ invert;
        if at == 0 {
            b &= 0x7f;
        }
        if x >> 56 > 0 {
            return Err("a numeric field overflows");
        }
        x = x << 8 | u64::from(b);
    }
    if x >> 63 > 0 {
        return Err("a numeric field overflows");
    }
    let x = x as i64;
    Ok(if invert == 0xff { !x } else { x })
}

/// An octal field: spaces and NULs around it trimmed, empty as 0.
fn octal(field: &[u8]) -> Result<i64, Invalid> {
    let trimmed = trim(field);
    let digits = string(trimmed);
    if digits.is_empty() {
        return if trimmed.is_empty() {
            Ok(0)
        } else {
            Err("bad numeric field")
        };
    }
    let mut x: u64 = 0;
    for &d in digits {
        if !(b'0'..=b'7').contains(&d) {
            return Err("bad numeric field");
        }
        x = x
            .checked_mul(8)
            .and_then(|x| x.checked_add(u64::from(d - b'0')))
            .ok_or("a numeric field overflows")?;
    }
    Ok(x as i64)
}

fn trim(field: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == 0;
    let start = field.iter().position(|b| !blank(b)).unwrap_or(field.len());
    let end = field
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    &field[start..end]
}

/// What a PAX extended header says of the next entry.
#[derive(Debug, Default)]
pub(super) struct Pax {
    /// `path`: the entry's name.
    pub(super) path: Option<Vec<u8>>,
    /// `size`: the entry's size.
    pub(super) size: Option<i64>,
    /// Any `GNU.sparse.` record: a sparse file.
    pub(super) sparse: bool,
}

/// The records of a PAX header (`<length> <key>=<value>\n` each), as Go's
/// `parsePAX` reads them: a malformed record, a key with `=` or a NUL, a
/// `path` or `linkpath` with a NUL, a `size` that is no decimal number are
/// invalid.
pub(super) fn parse_pax(mut data: &[u8]) -> Result<Pax, Invalid> {
    const BAD: Invalid = "bad PAX record";
    let mut pax = Pax::default();
    while !data.is_empty() {
        let space = data.iter().position(|&b| b == b' ').ok_or(BAD)?;
        let length = std::str::from_utf8(&data[..space])
            .ok()
            .filter(|s| !s.starts_with('+') && !s.starts_with('-'))
            .and_then(|s| s.parse::<usize>().ok())
            .ok_or(BAD)?;
        if length <= space + 1 || length > data.len() || data[length - 1] != b'\n' {
            return Err(BAD);
        }
        let record = &data[space + 1..length - 1];
        data = &data[length..];
        let equals = record.iter().position(|&b| b == b'=').ok_or(BAD)?;
        let (key, value) = (&record[..equals], &record[equals + 1..]);
        if key.is_empty() || key.contains(&0) {
            return Err(BAD);
        }
        match key {
            b"path" | b"linkpath" | b"uname" | b"gname" if value.contains(&0) => return Err(BAD),
            b"path" => pax.path = Some(value.to_vec()),
            b"size" => {
                let size = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or(BAD)?;
                pax.size = Some(size);
            }
            key if key.starts_with(b"GNU.sparse.") => pax.sparse = true,
            _ => {}
        }
    }
    Ok(pax)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_octal_and_base_256() {
        assert_eq!(numeric(b"0000644\0"), Ok(0o644));
        assert_eq!(numeric(b"  755 \0\0"), Ok(0o755));
        assert_eq!(numeric(b"\0\0\0\0"), Ok(0));
        assert_eq!(numeric(&[0x80, 0, 0, 1, 0]), Ok(256));
        assert_eq!(numeric(&[0xff, 0xff]), Ok(-1));
        assert!(numeric(b"0009\0").is_err());
        assert!(numeric(b"12 34").is_err());
    }

    #[test]
    fn pax_records() {
        let pax = parse_pax(b"12 path=a/b\n12 size=100\n").expect("valid");
        assert_eq!(pax.path.as_deref(), Some(&b"a/b"[..]));
        assert_eq!(pax.size, Some(100));
        for bad in [
            &b"13 path=a/b"[..],
            b"99 path=a\n",
            b"x path=a\n",
            b"9 patha\n",
            b"10 size=x\n",
            b"11 path=\0a\n",
        ] {
            assert!(parse_pax(bad).is_err(), "{bad:?}");
        }
    }
}
