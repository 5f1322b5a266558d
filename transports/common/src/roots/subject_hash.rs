//! OpenSSL's subject name hash (`X509_NAME_hash_ex`, `openssl x509 -hash`):
//! the name a hashed certificate directory files a certificate under. Used
//! to know which roots OpenSSL will find there; any doubt (a name this code
//! cannot read) only means the root is handed over in the bundle instead.
//!
//! This runs for every root of a hashed directory at every start, so it
//! allocates little: the buffers of a [`Scratch`] serve every certificate,
//! and the canonical name is written into one of them an attribute at a
//! time.

/// Buffers used again for each certificate hashed.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Base64 lines joined.
    batch: Vec<u8>,
    /// What they decode to.
    der: Vec<u8>,
    /// The canonical name.
    canonical: Vec<u8>,
    /// An attribute's canonical text, and its encoding.
    text: Vec<u8>,
    attribute: Vec<u8>,
}

/// The hash of the subject of a DER certificate, as OpenSSL computes it for
/// `<hash>.<n>` entries; `None` when the certificate cannot be read here.
/// `certificate` may be cut short anywhere after the subject: only the start
/// of a certificate is needed (see [`subject_hash_of_pem`]).
#[cfg(test)]
pub(crate) fn subject_hash(certificate: &[u8]) -> Option<u32> {
    subject_hash_with(certificate, &mut Scratch::default())
}

/// `subject_hash`, with `scratch`'s buffers.
fn subject_hash_with(certificate: &[u8], scratch: &mut Scratch) -> Option<u32> {
    let subject = subject(certificate)?;
    let Scratch {
        canonical,
        text,
        attribute,
        ..
    } = scratch;
    canonical.clear();
    canonical_name(subject, canonical, text, attribute)?;
    let digest = sha1_smol::Sha1::from(&canonical).digest().bytes();
    Some(u32::from_le_bytes([
        digest[0], digest[1], digest[2], digest[3],
    ]))
}

/// The contents of the subject Name of a DER certificate, if `certificate`
/// goes that far.
fn subject(certificate: &[u8]) -> Option<&[u8]> {
    // The two outer SEQUENCEs may be incomplete: only their headers count.
    let cert = header(certificate, SEQUENCE)?;
    let tbs = header(cert, SEQUENCE)?;
    let mut rest = tbs;
    // version [0] EXPLICIT, optional
    if rest.first() == Some(&0xA0) {
        rest = tlv(rest, 0xA0)?.1;
    }
    let (_serial, rest) = tlv(rest, INTEGER)?;
    let (_signature, rest) = tlv(rest, SEQUENCE)?;
    let (_issuer, rest) = tlv(rest, SEQUENCE)?;
    let (_validity, rest) = tlv(rest, SEQUENCE)?;
    let (subject, _) = tlv(rest, SEQUENCE)?;
    Some(subject)
}

const INTEGER: u8 = 0x02;
const OID: u8 = 0x06;
const UTF8_STRING: u8 = 0x0C;
const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;

/// The subject hash of the certificate in the base64 text of a PEM block,
/// decoding only as much of it as the subject needs (about a fifth).
///
/// What [`subject_hash_with`] gives for the bytes that
/// `decode_base64_lines_until(text, |der| der.len() >= 256 && subject(der).is_some())`
/// decodes, but with fewer calls into the decoder: whole lines are joined
/// and decoded a few at a time, and the subject looked for after each batch
/// (the hash depends only on the bytes up to the end of the subject, and
/// once there they stay there). Anything unusual is left to that function.
pub(crate) fn subject_hash_of_pem(text: &[u8], scratch: &mut Scratch) -> Option<u32> {
    let mut lines = super::lines(text).map(<[u8]>::trim_ascii).peekable();
    let mut batch = std::mem::take(&mut scratch.batch);
    let mut der = std::mem::take(&mut scratch.der);
    der.clear();
    let hash = subject_hash_of_lines(text, &mut lines, &mut batch, &mut der, scratch);
    scratch.batch = batch;
    scratch.der = der;
    hash
}

/// [`subject_hash_of_pem`] on the `lines` of `text`, decoding into `der`.
fn subject_hash_of_lines<'a>(
    text: &[u8],
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a [u8]>>,
    batch: &mut Vec<u8>,
    der: &mut Vec<u8>,
    scratch: &mut Scratch,
) -> Option<u32> {
    use base64::Engine;
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut batch_size = 512;
    while lines.peek().is_some() {
        batch.clear();
        while let Some(line) = lines.next_if(|line| line.len() % 4 == 0) {
            batch.extend_from_slice(line);
            if batch.len() >= batch_size {
                break;
            }
        }
        batch_size = 256;
        if engine.decode_vec(&*batch, der).is_err() {
            // Padding before the end of the text, or a character that is
            // not base64: as one line at a time does it.
            let start = super::decode_base64_lines_until(text, |der| {
                der.len() >= 256 && subject(der).is_some()
            })?;
            return subject_hash_with(&start, scratch);
        }
        if der.len() >= 256 && subject(der).is_some() {
            return subject_hash_with(der, scratch);
        }
        if lines.peek().is_some_and(|line| line.len() % 4 != 0) {
            return subject_hash_with(&super::decode_base64_joined(text)?, scratch);
        }
    }
    subject_hash_with(der, scratch)
}

/// The contents of the element of tag `tag` at the start of `input`, as far
/// as `input` goes (it may end before the element does).
fn header(input: &[u8], tag: u8) -> Option<&[u8]> {
    let (&first, rest) = input.split_first()?;
    if first != tag {
        return None;
    }
    let (&len, rest) = rest.split_first()?;
    let skip = match len {
        0..=0x7F => 0,
        0x81..=0x84 => usize::from(len & 0x7F),
        _ => return None,
    };
    rest.get(skip..)
}

/// Splits one DER element of tag `tag` off `input`: its contents and the rest.
fn tlv(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (element, rest) = element(input)?;
    (element.tag == tag).then_some((element.contents, rest))
}

struct Element<'a> {
    tag: u8,
    contents: &'a [u8],
    /// The whole encoding, tag and length included.
    encoding: &'a [u8],
}

fn element(input: &[u8]) -> Option<(Element<'_>, &[u8])> {
    let (&tag, after_tag) = input.split_first()?;
    if tag & 0x1F == 0x1F {
        return None; // high tag numbers never occur in names
    }
    let (&first, after_first) = after_tag.split_first()?;
    let (length, after_length) = match first {
        n @ 0..=0x7F => (usize::from(n), after_first),
        0x81..=0x84 => {
            let n = usize::from(first & 0x7F);
            if after_first.len() < n {
                return None;
            }
            let length = after_first[..n]
                .iter()
                .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
            (length, &after_first[n..])
        }
        _ => return None,
    };
    if after_length.len() < length {
        return None;
    }
    let header = input.len() - after_length.len();
    let element = Element {
        tag,
        contents: &after_length[..length],
        encoding: &input[..header + length],
    };
    Some((element, &after_length[length..]))
}

/// Writes OpenSSL's canonical encoding of a Name (`x509_name_canon`) to
/// `out`: each RDN as a DER `SET OF` its attributes (sorted by encoding),
/// the string values made UTF8String, trimmed, inner white space runs
/// collapsed to one space and ASCII lower-cased; the RDNs concatenated
/// without an outer SEQUENCE.
fn canonical_name(
    name: &[u8],
    out: &mut Vec<u8>,
    text: &mut Vec<u8>,
    attribute: &mut Vec<u8>,
) -> Option<()> {
    let mut rdns = name;
    while !rdns.is_empty() {
        let (rdn, rest) = tlv(rdns, SET)?;
        rdns = rest;
        let (ava, others) = match element(rdn) {
            Some((ava, others)) if ava.tag == SEQUENCE => (ava.contents, others),
            _ if rdn.is_empty() => {
                push_header(out, SET, 0);
                continue;
            }
            _ => return None,
        };
        attribute.clear();
        push_attribute(ava, text, attribute)?;
        if others.is_empty() {
            // One attribute, as in nearly every name: nothing to sort.
            push_header(out, SET, attribute.len());
            out.extend_from_slice(attribute);
            continue;
        }
        let mut attributes = vec![attribute.clone()];
        let mut avas = others;
        while !avas.is_empty() {
            let (ava, rest) = tlv(avas, SEQUENCE)?;
            avas = rest;
            let mut encoded = Vec::new();
            push_attribute(ava, text, &mut encoded)?;
            attributes.push(encoded);
        }
        attributes.sort();
        push_header(out, SET, attributes.iter().map(Vec::len).sum());
        for encoded in &attributes {
            out.extend_from_slice(encoded);
        }
    }
    Some(())
}

/// Appends the canonical encoding of one attribute (the contents of its
/// `SEQUENCE { type, value }`) to `out`; `text` is scratch space.
fn push_attribute(ava: &[u8], text: &mut Vec<u8>, out: &mut Vec<u8>) -> Option<()> {
    let (oid, after_oid) = element(ava)?;
    if oid.tag != OID {
        return None;
    }
    let (value, _) = element(after_oid)?;
    text.clear();
    if canonical_string(&value, text) {
        push_header(
            out,
            SEQUENCE,
            oid.encoding.len() + header_len(text.len()) + text.len(),
        );
        out.extend_from_slice(oid.encoding);
        push_header(out, UTF8_STRING, text.len());
        out.extend_from_slice(text);
    } else {
        push_header(out, SEQUENCE, oid.encoding.len() + value.encoding.len());
        out.extend_from_slice(oid.encoding);
        out.extend_from_slice(value.encoding);
    }
    Some(())
}

/// Writes the canonical text of a string value to `out` (as UTF-8), or
/// returns false to keep the value as it is: types outside OpenSSL's
/// `ASN1_MASK_CANON`, and strings that are not valid in their type.
fn canonical_string(value: &Element<'_>, out: &mut Vec<u8>) -> bool {
    let contents = value.contents;
    match value.tag {
        // UTF8String
        0x0C if std::str::from_utf8(contents).is_ok() => canonicalize(contents, out),
        // PrintableString, T61String, IA5String, VisibleString: one byte a
        // character, as OpenSSL reads them.
        0x13 | 0x14 | 0x16 | 0x1A if contents.is_ascii() => canonicalize(contents, out),
        0x13 | 0x14 | 0x16 | 0x1A => {
            let text: String = contents.iter().map(|&b| char::from(b)).collect();
            canonicalize(text.as_bytes(), out);
        }
        // BMPString
        0x1E => {
            let units: Vec<u16> = contents
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            match String::from_utf16(&units) {
                Ok(text) => canonicalize(text.as_bytes(), out),
                Err(_) => return false,
            }
        }
        // UniversalString
        0x1C => {
            let text = contents
                .chunks_exact(4)
                .map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
                .collect::<Option<String>>();
            match text {
                Some(text) => canonicalize(text.as_bytes(), out),
                None => return false,
            }
        }
        _ => return false,
    }
    true
}

/// OpenSSL's `asn1_string_canon` on UTF-8 text: trimmed, each run of white
/// space made one space, ASCII lower-cased (other characters as they are).
fn canonicalize(text: &[u8], out: &mut Vec<u8>) {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    let start = text.iter().position(|b| !is_space(b)).unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    out.reserve(end - start);
    let mut in_space = false;
    for b in &text[start..end] {
        if is_space(b) {
            if !in_space {
                out.push(b' ');
            }
            in_space = true;
        } else {
            out.push(b.to_ascii_lowercase());
            in_space = false;
        }
    }
}

/// The size of the tag and length of a DER element of `len` bytes.
fn header_len(len: usize) -> usize {
    if len < 0x80 {
        2
    } else {
        2 + (usize::BITS - len.leading_zeros()).div_ceil(8) as usize
    }
}

/// Appends the tag and length of a DER element of `tag` and `len` bytes.
fn push_header(out: &mut Vec<u8>, tag: u8, len: usize) {
    out.push(tag);
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;

    /// What `openssl x509 -hash` (OpenSSL 3.0) printed for a certificate
    /// with this subject: the key does not matter, only the name is hashed,
    /// and its white space and case are canonicalized first.
    #[test]
    fn matches_openssl_on_a_known_subject() {
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params = rcgen::CertificateParams::new(Vec::new()).expect("params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "  Tfdisco   Test CA ");
        params
            .distinguished_name
            .push(rcgen::DnType::OrganizationName, "Example Org");
        let pem = params.self_signed(&key).expect("a certificate").pem();
        let der = CertificateDer::from_pem_slice(pem.as_bytes()).expect("PEM");
        assert_eq!(subject_hash(der.as_ref()), Some(0xee40_26c4));
        // From the PEM text, decoding only its start.
        let text = pem
            .trim()
            .trim_start_matches("-----BEGIN CERTIFICATE-----")
            .trim_end_matches("-----END CERTIFICATE-----");
        assert_eq!(
            subject_hash_of_pem(text.as_bytes(), &mut Scratch::default()),
            Some(0xee40_26c4)
        );
    }

    /// Where a Debian-style directory is present, every hash link names its
    /// target's subject hash as OpenSSL computed it.
    #[test]
    fn matches_openssl_on_the_system_directory() {
        // Every hash link of a Debian-style directory names its target's
        // subject hash, as OpenSSL computed it when the link was made.
        let dir = std::path::Path::new("/etc/ssl/certs");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut checked = 0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some((hash, _)) = name.split_once('.') else {
                continue;
            };
            if !super::super::dir::is_hash_name(&name) {
                continue;
            }
            let Ok(pem) = std::fs::read(entry.path()) else {
                continue;
            };
            let Some(Ok(cert)) = CertificateDer::pem_slice_iter(&pem).next() else {
                continue;
            };
            let ours = subject_hash(cert.as_ref()).map(|h| format!("{h:08x}"));
            assert_eq!(ours.as_deref(), Some(hash), "{name}");
            let block = super::super::pem_blocks(&pem).next().expect("a block");
            let text = &pem[block];
            assert_eq!(
                subject_hash_of_pem(text, &mut Scratch::default()),
                subject_hash(cert.as_ref()),
                "{name}"
            );
            checked += 1;
        }
        eprintln!("{checked} hash links checked");
    }

    /// `canonical_string` as text, `None` for a value kept as it is.
    fn canonical(value: &Element<'_>) -> Option<String> {
        let mut out = Vec::new();
        canonical_string(value, &mut out).then(|| String::from_utf8(out).expect("UTF-8"))
    }

    #[test]
    fn canonical_strings() {
        let printable = Element {
            tag: 0x13,
            contents: b"  Example   CA \t Root ",
            encoding: b"",
        };
        assert_eq!(canonical(&printable).as_deref(), Some("example ca root"));
        let bmp = Element {
            tag: 0x1E,
            contents: &[0, b'A', 0, b' ', 0, b' ', 0x00, 0xDC],
            encoding: b"",
        };
        assert_eq!(canonical(&bmp).as_deref(), Some("a Ü"));
        // T61String bytes are Latin-1 characters; only ASCII is lower-cased.
        let latin1 = Element {
            tag: 0x14,
            contents: &[b' ', b'T', 0xC9, b'L', b'\n', b'\r', b'X', b' '],
            encoding: b"",
        };
        assert_eq!(canonical(&latin1).as_deref(), Some("tÉl x"));
        let blank = Element {
            tag: 0x0C,
            contents: b" \t ",
            encoding: b"",
        };
        assert_eq!(canonical(&blank).as_deref(), Some(""));
        let octets = Element {
            tag: 0x04,
            contents: b"x",
            encoding: b"",
        };
        assert_eq!(canonical(&octets), None);
        let not_utf8 = Element {
            tag: 0x0C,
            contents: &[0xFF],
            encoding: b"",
        };
        assert_eq!(canonical(&not_utf8), None, "kept as it is");
    }

    #[test]
    fn der_lengths() {
        for len in [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x1_0000] {
            let mut out = Vec::new();
            push_header(&mut out, SET, len);
            assert_eq!(out.len(), header_len(len), "{len}");
        }
    }

    #[test]
    fn unreadable_certificates_have_no_hash() {
        assert_eq!(subject_hash(b""), None);
        assert_eq!(subject_hash(&[0x30, 0x03, 0x02, 0x01, 0x07]), None);
        let pem = rcgen::KeyPair::generate()
            .and_then(|key| {
                rcgen::CertificateParams::new(vec!["x.test".to_owned()])?.self_signed(&key)
            })
            .expect("a certificate")
            .pem();
        let der = CertificateDer::from_pem_slice(pem.as_bytes()).expect("PEM");
        assert!(subject_hash(der.as_ref()).is_some());
    }
}
