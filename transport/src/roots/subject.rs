//! Certificate subjects compared as OpenSSL compares them
//! (`X509_NAME_cmp`): by their canonical encoding (`x509_name_canon`), which
//! is also what OpenSSL hashes for the `<hash>.<n>` names of a hashed
//! certificate directory (`X509_NAME_hash_ex`, `openssl x509 -hash`). Used to
//! find every trust anchor of a subject (`TrustAnchors::with_subject`); a
//! name this code cannot read only means the anchor is offered to the TLS
//! library to compare itself.

/// The canonical encoding of the subject of a DER certificate, `None` when
/// this code cannot read it.
pub(super) fn canonical_subject(certificate: &[u8]) -> Option<Vec<u8>> {
    canonical_contents(subject(certificate)?)
}

/// The canonical encoding of a DER Name (a `SEQUENCE` of RDNs, as
/// `i2d_X509_NAME` writes it), `None` when this code cannot read it.
pub(super) fn canonical_name(name: &[u8]) -> Option<Vec<u8>> {
    let (contents, rest) = tlv(name, SEQUENCE)?;
    if !rest.is_empty() {
        return None;
    }
    canonical_contents(contents)
}

/// The canonical encoding of the contents of a Name.
fn canonical_contents(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    write_canonical_name(name, &mut out, &mut Vec::new(), &mut Vec::new())?;
    Some(out)
}

/// OpenSSL's subject hash of a DER certificate (the first four bytes of the
/// SHA-1 of its canonical subject, little-endian): what the tests compare
/// with OpenSSL's own.
#[cfg(test)]
fn subject_hash(certificate: &[u8]) -> Option<u32> {
    let canonical = canonical_subject(certificate)?;
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

/// Writes OpenSSL's canonical encoding of the contents of a Name
/// (`x509_name_canon`) to `out`: each RDN as a DER `SET OF` its attributes (sorted by encoding),
/// the string values made UTF8String, trimmed, inner white space runs
/// collapsed to one space and ASCII lower-cased; the RDNs concatenated
/// without an outer SEQUENCE.
fn write_canonical_name(
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

    /// A self-signed certificate (a fresh key) whose subject has `names`.
    fn self_signed(names: &[(rcgen::DnType, &str)]) -> CertificateDer<'static> {
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params = rcgen::CertificateParams::new(Vec::new()).expect("params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        for (kind, value) in names {
            params.distinguished_name.push(kind.clone(), *value);
        }
        let pem = params.self_signed(&key).expect("a certificate").pem();
        CertificateDer::from_pem_slice(pem.as_bytes()).expect("PEM")
    }

    /// What `openssl x509 -hash` (OpenSSL 3.0) printed for a certificate
    /// with this subject: the key does not matter, only the name is hashed,
    /// and its white space and case are canonicalized first.
    #[test]
    fn matches_openssl_on_a_known_subject() {
        let der = self_signed(&[
            (rcgen::DnType::CommonName, "  Tfdisco   Test CA "),
            (rcgen::DnType::OrganizationName, "Example Org"),
        ]);
        assert_eq!(subject_hash(der.as_ref()), Some(0xee40_26c4));
    }

    /// A Name on its own (as `i2d_X509_NAME` writes an issuer) has the
    /// canonical form of the same name as a certificate's subject: here a
    /// self-signed certificate's issuer, written differently.
    #[test]
    fn a_name_and_a_subject_compare_equal() {
        let der = self_signed(&[(rcgen::DnType::CommonName, "Tfdisco Test CA")]);
        let subject = canonical_subject(der.as_ref()).expect("readable");
        // The same name as a PrintableString, with other case and spaces.
        let cn = b"  TFDISCO  test ca";
        let mut ava = vec![0x06, 0x03, 0x55, 0x04, 0x03, 0x13, cn.len() as u8];
        ava.extend_from_slice(cn);
        let mut name = Vec::new();
        push_header(
            &mut name,
            SEQUENCE,
            header_len(header_len(ava.len()) + ava.len()) + header_len(ava.len()) + ava.len(),
        );
        push_header(&mut name, SET, header_len(ava.len()) + ava.len());
        push_header(&mut name, SEQUENCE, ava.len());
        name.extend_from_slice(&ava);
        assert_eq!(canonical_name(&name), Some(subject));
        assert_eq!(canonical_name(&name[..name.len() - 1]), None, "cut short");
        assert_eq!(canonical_name(b""), None);
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
            checked += 1;
        }
        eprintln!("{checked} hash links checked");
    }

    /// `canonical_string` of a value with `tag` and `contents` as text,
    /// `None` for a value kept as it is.
    fn canonical(tag: u8, contents: &[u8]) -> Option<String> {
        let value = Element {
            tag,
            contents,
            encoding: b"",
        };
        let mut out = Vec::new();
        canonical_string(&value, &mut out).then(|| String::from_utf8(out).expect("UTF-8"))
    }

    #[test]
    fn canonical_strings() {
        let printable = canonical(0x13, b"  Example   CA \t Root ");
        assert_eq!(printable.as_deref(), Some("example ca root"));
        let bmp = canonical(0x1E, &[0, b'A', 0, b' ', 0, b' ', 0x00, 0xDC]);
        assert_eq!(bmp.as_deref(), Some("a Ü"));
        // T61String bytes are Latin-1 characters; only ASCII is lower-cased.
        let latin1 = canonical(0x14, &[b' ', b'T', 0xC9, b'L', b'\n', b'\r', b'X', b' ']);
        assert_eq!(latin1.as_deref(), Some("tÉl x"));
        assert_eq!(canonical(0x0C, b" \t ").as_deref(), Some(""));
        assert_eq!(canonical(0x04, b"x"), None);
        assert_eq!(canonical(0x0C, &[0xFF]), None, "not UTF-8: kept as it is");
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
