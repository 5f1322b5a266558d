//! The token service's signing key: a fresh P-256 key, a self-signed
//! certificate for it (the registry's `rootcertbundle`), and JSON Web
//! Tokens signed with it (ES256, the certificate in the header's `x5c`,
//! which distribution checks against the bundle).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rcgen::{CertificateParams, DnType, KeyPair};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};

/// Signs the tokens of one token service.
pub(crate) struct Signer {
    key: EcdsaKeyPair,
    rng: SystemRandom,
    cert_der: Vec<u8>,
    cert_pem: String,
}

impl Signer {
    /// A new key and its self-signed certificate.
    pub(crate) fn new() -> Result<Signer, String> {
        let key = KeyPair::generate().map_err(|e| format!("a token signing key: {e}"))?;
        let mut params = CertificateParams::default();
        params
            .distinguished_name
            .push(DnType::CommonName, "tfdisco test token signer");
        let cert = params
            .self_signed(&key)
            .map_err(|e| format!("the token signing certificate: {e}"))?;
        let rng = SystemRandom::new();
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &key.serialize_der(), &rng)
                .map_err(|e| format!("loading the token signing key: {e}"))?;
        Ok(Signer {
            key,
            rng,
            cert_der: cert.der().to_vec(),
            cert_pem: cert.pem(),
        })
    }

    /// The certificate, PEM: what the registry trusts tokens from.
    pub(crate) fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// A compact JWS of `claims` (a JSON object): header, claims and the
    /// ES256 signature (r and s, 32 bytes each), base64url without padding.
    pub(crate) fn sign(&self, claims: &str) -> Result<String, String> {
        let header = format!(
            r#"{{"typ":"JWT","alg":"ES256","x5c":["{}"]}}"#,
            STANDARD.encode(&self.cert_der)
        );
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header),
            URL_SAFE_NO_PAD.encode(claims)
        );
        let signature = self
            .key
            .sign(&self.rng, input.as_bytes())
            .map_err(|e| format!("signing a token: {e}"))?;
        Ok(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}
