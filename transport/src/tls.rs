//! A rustls client configuration (ring provider, HTTP/1.1 ALPN) from a
//! client's trust anchors.

use std::sync::Arc;

use rustls::{ClientConfig, RootCertStore};
use tracing::debug;

use tfdisco_core::TransportErrorKind;

use crate::{BuildError, TrustAnchors};

/// A rustls `ClientConfig` trusting `anchors`: system roots that rustls
/// cannot use are skipped, the caller's extra CA certificates must all be
/// usable. Uses the ring provider explicitly, so it never depends on a
/// process-wide default provider.
pub fn client_config(anchors: &TrustAnchors) -> Result<Arc<ClientConfig>, BuildError> {
    let mut roots = RootCertStore::empty();
    let (added, ignored) = roots.add_parsable_certificates(anchors.system().iter().cloned());
    if ignored > 0 {
        debug!(target: "tfdisco", added, ignored, "some system root certificates are unusable");
    }
    for cert in anchors.extra() {
        roots.add(cert.clone()).map_err(|e| BuildError::CaPem {
            origin: "an extra CA certificate".to_owned(),
            problem: e.to_string(),
        })?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| BuildError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The class of a failed TLS handshake (NET-7): a certificate rustls
/// refused (untrusted, expired, for another name) is
/// [`TransportErrorKind::Certificate`], never retried; anything else
/// (no common protocol, a server that does not speak TLS) is
/// [`TransportErrorKind::Tls`], which registry requests retry (RETRY-8).
pub fn handshake_error_kind(error: &std::io::Error) -> TransportErrorKind {
    let refused = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .is_some_and(|e| {
            matches!(
                e,
                rustls::Error::InvalidCertificate(_) | rustls::Error::InvalidCertRevocationList(_)
            )
        });
    if refused {
        TransportErrorKind::Certificate
    } else {
        TransportErrorKind::Tls
    }
}
