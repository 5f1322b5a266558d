//! Every CA made has a name of its own, and what a client then says when
//! shown another CA's leaf.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, RootCertStore};

use super::{dev_pki, pki};

fn certs(pem: &str) -> Vec<CertificateDer<'static>> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<_, _>>()
        .expect("PEM certificates")
}

/// One DER element: its tag, its contents and what follows it.
fn element(der: &[u8]) -> (u8, &[u8], &[u8]) {
    let (&tag, rest) = der.split_first().expect("a tag");
    let (&first, rest) = rest.split_first().expect("a length");
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let (bytes, rest) = rest.split_at(usize::from(first & 0x7f));
        (
            bytes.iter().fold(0, |n, b| (n << 8) | usize::from(*b)),
            rest,
        )
    };
    let (contents, rest) = rest.split_at(len);
    (tag, contents, rest)
}

/// A certificate's serial number, issuer and subject, DER (RFC 5280, 4.1:
/// the TBSCertificate's version, serialNumber, signature, issuer, validity,
/// subject).
fn fields(cert: &[u8]) -> [Vec<u8>; 3] {
    let (_, certificate, _) = element(cert);
    let (_, tbs, _) = element(certificate);
    let (version, _, rest) = element(tbs);
    assert_eq!(version, 0xa0, "a v3 certificate");
    let (tag, serial, rest) = element(rest);
    assert_eq!(tag, 0x02, "the serial number is an INTEGER");
    let (_, _, rest) = element(rest); // signature
    let (tag, issuer, rest) = element(rest);
    assert_eq!(tag, 0x30, "the issuer is a SEQUENCE");
    let (_, _, rest) = element(rest); // validity
    let (tag, subject, _) = element(rest);
    assert_eq!(tag, 0x30, "the subject is a SEQUENCE");
    [serial.to_vec(), issuer.to_vec(), subject.to_vec()]
}

fn serial_and_subject(cert: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let [serial, _, subject] = fields(cert);
    (serial, subject)
}

fn issuer(cert: &[u8]) -> Vec<u8> {
    let [_, issuer, _] = fields(cert);
    issuer
}

/// The 16 hex digits after `name ` in a subject.
fn id_after(subject: &[u8], name: &str) -> Option<String> {
    let name = format!("{name} ");
    let at = subject
        .windows(name.len())
        .position(|w| w == name.as_bytes())?;
    let id = subject.get(at + name.len()..at + name.len() + 16)?;
    id.iter()
        .all(u8::is_ascii_hexdigit)
        .then(|| String::from_utf8_lossy(id).into_owned())
}

#[test]
fn every_development_ca_has_a_subject_and_serial_of_its_own() {
    let a = dev_pki(&["localhost"]).expect("a PKI");
    let b = dev_pki(&["localhost"]).expect("a PKI");
    let (serial_a, subject_a) = serial_and_subject(&certs(&a.ca_pem)[0]);
    let (serial_b, subject_b) = serial_and_subject(&certs(&b.ca_pem)[0]);
    assert_ne!(subject_a, subject_b);
    assert_ne!(serial_a, serial_b);
    let id_a = id_after(&subject_a, "tfdisco development CA");
    assert!(id_a.is_some(), "{}", String::from_utf8_lossy(&subject_a));
    assert_ne!(id_a, id_after(&subject_b, "tfdisco development CA"));
    // The server presents the leaf alone, issued by the CA.
    let leaf = certs(&a.cert_pem);
    assert_eq!(leaf.len(), 1);
    assert_eq!(issuer(&leaf[0]), subject_a);
}

#[test]
fn the_test_cas_subject_has_an_id() {
    let (_, subject) = serial_and_subject(&certs(pki().ca_pem())[0]);
    assert!(
        id_after(&subject, "tfdisco test CA").is_some(),
        "{}",
        String::from_utf8_lossy(&subject)
    );
}

#[test]
fn another_development_cas_leaf_has_an_unknown_issuer() {
    let trusted = dev_pki(&["localhost"]).expect("a PKI");
    let other = dev_pki(&["localhost"]).expect("a PKI");
    let mut roots = RootCertStore::empty();
    roots.add(certs(&trusted.ca_pem).remove(0)).expect("a root");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .expect("a verifier");
    let leaf = certs(&other.cert_pem);
    let name = ServerName::try_from("localhost").expect("a name");
    let verdict = verifier.verify_server_cert(&leaf[0], &[], &name, &[], UnixTime::now());
    assert!(
        matches!(
            verdict,
            Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer
            ))
        ),
        "{verdict:?}"
    );
    // The CA's own leaf passes.
    let leaf = certs(&trusted.cert_pem);
    verifier
        .verify_server_cert(&leaf[0], &[], &name, &[], UnixTime::now())
        .expect("the trusted CA's leaf");
}
