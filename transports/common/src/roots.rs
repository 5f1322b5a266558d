//! The certificates a client trusts: the system roots (or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR`, as Go honours them on Unix) plus extra CA certificates.

use std::path::{Path, PathBuf};

use base64::Engine;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use tracing::{debug, warn};

use tfdisco_core::Env;

use crate::BuildError;

/// Where an extra CA certificate comes from.
#[derive(Clone, Debug)]
pub(crate) enum CaSource {
    File(PathBuf),
    Pem(Vec<u8>),
}

/// The trust anchors of a client, as DER certificates.
///
/// `system` holds what the platform (or the `SSL_CERT_*` variables) gave, and
/// may contain certificates a TLS library cannot use; `extra` holds the
/// caller's own CA certificates, which must all be usable.
#[derive(Clone, Debug, Default)]
pub struct TrustAnchors {
    system: Vec<CertificateDer<'static>>,
    extra: Vec<CertificateDer<'static>>,
}

impl TrustAnchors {
    pub(crate) fn load(
        system_roots: bool,
        extra: &[CaSource],
        env: &Env,
    ) -> Result<TrustAnchors, BuildError> {
        let system = if system_roots {
            system_roots_from(env)
        } else {
            Vec::new()
        };
        let mut anchors = TrustAnchors {
            system,
            extra: Vec::new(),
        };
        for source in extra {
            let (origin, pem) = match source {
                CaSource::File(path) => {
                    let pem = std::fs::read(path).map_err(|source| BuildError::CaFile {
                        path: path.clone(),
                        source,
                    })?;
                    (path.display().to_string(), pem)
                }
                CaSource::Pem(pem) => ("PEM bytes".to_owned(), pem.clone()),
            };
            anchors.extra.extend(parse_pem(&pem, &origin)?);
        }
        debug!(
            target: "tfdisco",
            system = anchors.system.len(),
            extra = anchors.extra.len(),
            "trust anchors loaded"
        );
        Ok(anchors)
    }

    /// The system (or `SSL_CERT_*`) roots; some may be unusable.
    pub fn system(&self) -> &[CertificateDer<'static>] {
        &self.system
    }

    /// The caller's extra CA certificates.
    pub fn extra(&self) -> &[CertificateDer<'static>] {
        &self.extra
    }

    /// Every anchor as one PEM bundle (system roots first), for TLS
    /// libraries that take PEM, such as libcurl's `CURLOPT_CAINFO_BLOB`.
    pub fn to_pem(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for cert in self.system.iter().chain(&self.extra) {
            let b64 = base64::engine::general_purpose::STANDARD.encode(cert.as_ref());
            out.extend_from_slice(b"-----BEGIN CERTIFICATE-----\n");
            for line in b64.as_bytes().chunks(64) {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            out.extend_from_slice(b"-----END CERTIFICATE-----\n");
        }
        out
    }
}

/// Parses every certificate in `pem`; fails if there is none or one is broken.
fn parse_pem(pem: &[u8], origin: &str) -> Result<Vec<CertificateDer<'static>>, BuildError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BuildError::CaPem {
            origin: origin.to_owned(),
            problem: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(BuildError::CaPem {
            origin: origin.to_owned(),
            problem: "no PEM certificate found".to_owned(),
        });
    }
    Ok(certs)
}

/// `SSL_CERT_FILE` and `SSL_CERT_DIR` (colon-separated) when either is set,
/// as Go does on Unix; the platform's store otherwise. Unreadable entries are
/// logged and skipped, as Go skips them.
fn system_roots_from(env: &Env) -> Vec<CertificateDer<'static>> {
    let file = env.non_empty_str("SSL_CERT_FILE");
    let dirs = env.non_empty_str("SSL_CERT_DIR");
    let mut results = Vec::new();
    if file.is_some() || dirs.is_some() {
        if let Some(file) = &file {
            results.push(rustls_native_certs::load_certs_from_paths(
                Some(Path::new(file)),
                None,
            ));
        }
        for dir in dirs
            .iter()
            .flat_map(|d| d.split(':'))
            .filter(|d| !d.is_empty())
        {
            results.push(rustls_native_certs::load_certs_from_paths(
                None,
                Some(Path::new(dir)),
            ));
        }
    } else {
        results.push(rustls_native_certs::load_native_certs());
    }
    let mut certs = Vec::new();
    for result in results {
        for error in &result.errors {
            warn!(target: "tfdisco", %error, "could not load some system root certificates");
        }
        certs.extend(result.certs);
    }
    certs.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
    certs.dedup();
    certs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_round_trip_and_errors() {
        let der = CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x07]);
        let anchors = TrustAnchors {
            system: vec![der.clone()],
            extra: vec![],
        };
        let pem = anchors.to_pem();
        assert_eq!(parse_pem(&pem, "test").expect("one cert"), vec![der]);
        let e = parse_pem(b"not a certificate", "ca.pem").expect_err("nothing in it");
        assert_eq!(
            e.to_string(),
            "cannot use CA certificates from ca.pem: no PEM certificate found"
        );
    }

    #[test]
    fn missing_ca_file_is_a_build_error() {
        let e = TrustAnchors::load(
            false,
            &[CaSource::File("/nonexistent/tfdisco-ca.pem".into())],
            &Env::empty(),
        )
        .expect_err("missing file");
        assert!(e.to_string().contains("/nonexistent/tfdisco-ca.pem"), "{e}");
    }

    #[test]
    fn ssl_cert_variables_replace_the_platform_store() {
        let env = Env::new([("SSL_CERT_FILE", "/nonexistent/bundle.pem")]);
        let anchors = TrustAnchors::load(true, &[], &env).expect("missing files are skipped");
        assert!(anchors.system().is_empty());
    }
}
