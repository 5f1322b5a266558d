//! OpenSSL's subject name hash (`X509_NAME_hash_ex`, `openssl x509 -hash`):
//! the name a hashed certificate directory files a certificate under. Used
//! to know which roots OpenSSL will find there; any doubt (a name this code
//! cannot read) only means the root is handed over in the bundle instead.

/// The hash of the subject of a DER certificate, as OpenSSL computes it for
/// `<hash>.<n>` entries; `None` when the certificate cannot be read here.
/// `certificate` may be cut short anywhere after the subject: only the start
/// of a certificate is needed (see [`subject_hash_of_pem`]).
pub(crate) fn subject_hash(certificate: &[u8]) -> Option<u32> {
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
    let canonical = canonical_name(subject)?;
    let digest = sha1_smol::Sha1::from(&canonical).digest().bytes();
    Some(u32::from_le_bytes([
        digest[0], digest[1], digest[2], digest[3],
    ]))
}

const INTEGER: u8 = 0x02;
const OID: u8 = 0x06;
const UTF8_STRING: u8 = 0x0C;
const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;

/// The subject hash of the certificate in the base64 text of a PEM block,
/// decoding only as much of it as the subject needs (about a fifth).
pub(crate) fn subject_hash_of_pem(text: &[u8]) -> Option<u32> {
    let mut hash = None;
    let der = super::decode_base64_lines_until(text, |der| {
        if der.len() >= 256 {
            hash = subject_hash(der);
        }
        hash.is_some()
    })?;
    hash.or_else(|| subject_hash(&der))
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

/// OpenSSL's canonical encoding of a Name (`x509_name_canon`): each RDN as
/// a DER `SET OF` its attributes (sorted by encoding), the string values
/// made UTF8String, trimmed, inner white space runs collapsed to one space
/// and ASCII lower-cased; the RDNs concatenated without an outer SEQUENCE.
fn canonical_name(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut rdns = name;
    while !rdns.is_empty() {
        let (rdn, rest) = tlv(rdns, SET)?;
        rdns = rest;
        let mut attributes = Vec::new();
        let mut avas = rdn;
        while !avas.is_empty() {
            let (ava, rest) = tlv(avas, SEQUENCE)?;
            avas = rest;
            let (oid, after_oid) = element(ava)?;
            if oid.tag != OID {
                return None;
            }
            let (value, _) = element(after_oid)?;
            let mut contents = oid.encoding.to_vec();
            match canonical_string(&value) {
                Some(text) => push_element(&mut contents, UTF8_STRING, text.as_bytes()),
                None => contents.extend_from_slice(value.encoding),
            }
            let mut attribute = Vec::new();
            push_element(&mut attribute, SEQUENCE, &contents);
            attributes.push(attribute);
        }
        attributes.sort();
        push_element(&mut out, SET, &attributes.concat());
    }
    Some(out)
}

/// The canonical text of a string value, or `None` to keep the value as is
/// (types outside OpenSSL's `ASN1_MASK_CANON`).
fn canonical_string(value: &Element<'_>) -> Option<String> {
    let text: String = match value.tag {
        // UTF8String
        0x0C => String::from_utf8(value.contents.to_vec()).ok()?,
        // PrintableString, T61String, IA5String, VisibleString: one byte a
        // character, as OpenSSL reads them.
        0x13 | 0x14 | 0x16 | 0x1A => value.contents.iter().map(|&b| char::from(b)).collect(),
        // BMPString
        0x1E => {
            let units: Vec<u16> = value
                .contents
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16(&units).ok()?
        }
        // UniversalString
        0x1C => value
            .contents
            .chunks_exact(4)
            .map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
            .collect::<Option<String>>()?,
        _ => return None,
    };
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{B}' | '\u{C}' | '\r');
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.trim_matches(is_space).chars() {
        if is_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c.to_ascii_lowercase());
            in_space = false;
        }
    }
    Some(out)
}

/// Appends a DER element of `tag` holding `contents`.
fn push_element(out: &mut Vec<u8>, tag: u8, contents: &[u8]) {
    out.push(tag);
    let n = contents.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(contents);
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
        assert_eq!(subject_hash_of_pem(text.as_bytes()), Some(0xee40_26c4));
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
            if !super::super::is_hash_name(&name) {
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
            let text = super::super::pem_blocks(&pem).next().expect("a block");
            assert_eq!(
                subject_hash_of_pem(text),
                subject_hash(cert.as_ref()),
                "{name}"
            );
            checked += 1;
        }
        eprintln!("{checked} hash links checked");
    }

    #[test]
    fn canonical_strings() {
        let printable = Element {
            tag: 0x13,
            contents: b"  Example   CA \t Root ",
            encoding: b"",
        };
        assert_eq!(
            canonical_string(&printable).as_deref(),
            Some("example ca root")
        );
        let bmp = Element {
            tag: 0x1E,
            contents: &[0, b'A', 0, b' ', 0, b' ', 0x00, 0xDC],
            encoding: b"",
        };
        assert_eq!(canonical_string(&bmp).as_deref(), Some("a Ü"));
        let octets = Element {
            tag: 0x04,
            contents: b"x",
            encoding: b"",
        };
        assert_eq!(canonical_string(&octets), None);
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
