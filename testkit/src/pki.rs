//! Test certificates: a CA the clients are told to trust, a leaf for every
//! name the scenarios use, a leaf for the wrong name, and a leaf from a CA
//! nobody trusts.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The names in the trusted leaf: loopback, plus the fictional hosts the
/// scenarios reach through address overrides (`.test` is reserved, RFC 2606).
pub const LEAF_NAMES: &[&str] = &[
    "localhost",
    "127.0.0.1",
    "::1",
    "example.test",
    "registry.example.test",
    "other.test",
];

/// The only name in the wrong-name leaf.
pub const WRONG_NAME: &str = "wrong.test";

/// Which certificate a test server presents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cert {
    /// Signed by the trusted test CA, for [`LEAF_NAMES`].
    Trusted,
    /// Signed by the trusted test CA, for [`WRONG_NAME`] only.
    WrongName,
    /// For [`LEAF_NAMES`], signed by a CA no client trusts.
    Untrusted,
}

/// The test PKI, made once per process.
pub struct Pki {
    ca_pem: String,
    ca_file: PathBuf,
    trusted: Arc<ServerConfig>,
    trusted_cert_pem: String,
    trusted_key_pem: String,
    wrong_name: Arc<ServerConfig>,
    untrusted: Arc<ServerConfig>,
}

impl Pki {
    /// The trusted CA certificate, PEM.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// A file holding [`Pki::ca_pem`] (for `SSL_CERT_FILE` and CA-file options).
    pub fn ca_file(&self) -> &PathBuf {
        &self.ca_file
    }

    /// The trusted leaf's certificate, PEM (for a server that loads its
    /// certificate from a file, such as the OCI registry fixture).
    pub fn trusted_cert_pem(&self) -> &str {
        &self.trusted_cert_pem
    }

    /// The trusted leaf's private key, PKCS #8 PEM.
    pub fn trusted_key_pem(&self) -> &str {
        &self.trusted_key_pem
    }

    /// The rustls server configuration presenting `cert`.
    pub fn server_config(&self, cert: Cert) -> Arc<ServerConfig> {
        match cert {
            Cert::Trusted => self.trusted.clone(),
            Cert::WrongName => self.wrong_name.clone(),
            Cert::Untrusted => self.untrusted.clone(),
        }
    }
}

/// A fresh CA and a leaf it signed, for a development server (`tfdisco-dev serve`).
pub struct DevPki {
    /// The CA certificate, PEM: what clients must trust. Its subject names
    /// this CA alone (`tfdisco development CA <id>`).
    pub ca_pem: String,
    /// The leaf certificate, PEM (what the server presents).
    pub cert_pem: String,
    /// The leaf's private key, PKCS #8 PEM.
    pub key_pem: String,
    /// The rustls configuration presenting the leaf.
    pub server_config: Arc<ServerConfig>,
}

/// Makes a new CA and a leaf for `names` (DNS names or IP addresses).
pub fn dev_pki(names: &[&str]) -> Result<DevPki, Box<dyn std::error::Error + Send + Sync>> {
    let issuer = ca("tfdisco development CA").map_err(|e| e.to_string())?;
    let leaf = Leaf::new(&issuer, names).map_err(|e| e.to_string())?;
    Ok(DevPki {
        ca_pem: issuer.pem(),
        cert_pem: leaf.cert.pem(),
        key_pem: leaf.key.serialize_pem(),
        server_config: leaf.server_config().map_err(|e| e.to_string())?,
    })
}

/// A rustls configuration presenting the certificate chain and private key
/// of two PEM texts (a certificate file and its key file).
pub fn server_config_from_pem(
    certs_pem: &[u8],
    key_pem: &[u8],
) -> Result<Arc<ServerConfig>, Box<dyn std::error::Error + Send + Sync>> {
    use rustls::pki_types::pem::PemObject;
    let chain = CertificateDer::pem_slice_iter(certs_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("reading the certificates: {e}"))?;
    if chain.is_empty() {
        return Err("the certificate file holds no certificate".into());
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| format!("reading the private key: {e}"))?;
    server_config(chain, key).map_err(|e| e.to_string().into())
}

fn server_config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<Arc<ServerConfig>, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The process-wide test PKI.
pub fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| make().expect("test certificates can be made"))
}

type Issuer = CertifiedIssuer<'static, KeyPair>;

/// A new CA named `name` and an id of its own: two CAs never share a
/// subject, so a client that trusts one of them and is shown a leaf of the
/// other finds no issuer for it (rustls: `UnknownIssuer`) instead of an
/// issuer whose key does not match (`BadSignature`). Their serial numbers
/// differ too: rcgen derives them from the key.
fn ca(name: &str) -> Result<Issuer, rcgen::Error> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::default();
    params
        .distinguished_name
        .push(DnType::CommonName, format!("{name} {}", key_id(&key)));
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    CertifiedIssuer::self_signed(params, key)
}

/// 16 hex digits of the public key: random, as the key is. (The first
/// byte of an uncompressed elliptic-curve point, rcgen's default key, is
/// always 4: skipped.)
fn key_id(key: &KeyPair) -> String {
    key.public_key_raw()
        .iter()
        .skip(1)
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A leaf certificate and its key.
struct Leaf {
    cert: rcgen::Certificate,
    key: KeyPair,
}

impl Leaf {
    fn new(issuer: &Issuer, names: &[&str]) -> Result<Leaf, rcgen::Error> {
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())?;
        if let Some(first) = names.first() {
            params.distinguished_name.push(DnType::CommonName, *first);
        }
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, issuer)?;
        Ok(Leaf { cert, key })
    }

    /// A rustls configuration presenting the leaf alone: the CA is what
    /// clients must already trust, and a client that does not trust it then
    /// says its issuer is unknown (libcurl: "unable to get local issuer
    /// certificate", not "self-signed certificate in certificate chain").
    fn server_config(&self) -> Result<Arc<ServerConfig>, rustls::Error> {
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.serialize_der()));
        server_config(vec![self.cert.der().clone()], key)
    }
}

fn leaf(issuer: &Issuer, names: &[&str]) -> Result<Arc<ServerConfig>, Box<dyn std::error::Error>> {
    Ok(Leaf::new(issuer, names)?.server_config()?)
}

fn make() -> Result<Pki, Box<dyn std::error::Error>> {
    let trusted_ca = ca("tfdisco test CA")?;
    let untrusted_ca = ca("tfdisco untrusted CA")?;
    let ca_pem = trusted_ca.pem();
    let ca_file =
        std::env::temp_dir().join(format!("tfdisco-testkit-{}-ca.pem", std::process::id()));
    std::fs::write(&ca_file, &ca_pem)?;
    let trusted = Leaf::new(&trusted_ca, LEAF_NAMES)?;
    Ok(Pki {
        trusted: trusted.server_config()?,
        trusted_cert_pem: trusted.cert.pem(),
        trusted_key_pem: trusted.key.serialize_pem(),
        wrong_name: leaf(&trusted_ca, &[WRONG_NAME])?,
        untrusted: leaf(&untrusted_ca, LEAF_NAMES)?,
        ca_pem,
        ca_file,
    })
}

/// The shape of a public registry's certificates: a leaf signed by an
/// intermediate signed by a root, the server presenting the leaf and the
/// intermediate, the root found only among the client's trust anchors; and
/// a second root of the same subject with a key of its own ("re-keyed"),
/// which signed nothing. Every certificate names its issuer's key
/// (authority key identifiers), as public ones do.
pub struct Chain {
    /// The root, PEM.
    pub root_pem: String,
    /// The root's subject again, with another key, PEM.
    pub rekeyed_pem: String,
    /// A root of another subject that signed nothing, PEM.
    pub unrelated_pem: String,
    /// Presents the leaf (for [`LEAF_NAMES`] and [`CHAIN_NAMES`]) and the
    /// intermediate.
    pub server_config: Arc<ServerConfig>,
}

/// Names of the chain's leaf beyond [`LEAF_NAMES`], for scenarios that
/// need many hosts of one server (reached through address overrides).
pub const CHAIN_NAMES: &[&str] = &[
    "h1.test", "h2.test", "h3.test", "h4.test", "h5.test", "h6.test", "h7.test", "h8.test",
];

/// The process-wide [`Chain`].
pub fn chain() -> &'static Chain {
    static CHAIN: OnceLock<Chain> = OnceLock::new();
    CHAIN.get_or_init(|| make_chain().expect("test certificates can be made"))
}

fn make_chain() -> Result<Chain, Box<dyn std::error::Error>> {
    let root_key = KeyPair::generate()?;
    let id = key_id(&root_key);
    let name = format!("tfdisco chain root {id}");
    let root_params = |name: &str| {
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        params
    };
    let root = CertifiedIssuer::self_signed(root_params(&name), root_key)?;
    let rekeyed = CertifiedIssuer::self_signed(root_params(&name), KeyPair::generate()?)?;
    let unrelated = ca("tfdisco unrelated root")?;
    let mut intermediate_params = CertificateParams::default();
    intermediate_params.distinguished_name.push(
        DnType::CommonName,
        format!("tfdisco chain intermediate {id}"),
    );
    intermediate_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    intermediate_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    intermediate_params.use_authority_key_identifier_extension = true;
    let intermediate =
        CertifiedIssuer::signed_by(intermediate_params, KeyPair::generate()?, &root)?;
    let names: Vec<String> = LEAF_NAMES
        .iter()
        .chain(CHAIN_NAMES)
        .map(|n| (*n).to_owned())
        .collect();
    let mut leaf_params = CertificateParams::new(names)?;
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf_params.use_authority_key_identifier_extension = true;
    let leaf_key = KeyPair::generate()?;
    let leaf = leaf_params.signed_by(&leaf_key, &intermediate)?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    Ok(Chain {
        root_pem: root.pem(),
        rekeyed_pem: rekeyed.pem(),
        unrelated_pem: unrelated.pem(),
        server_config: server_config(vec![leaf.der().clone(), intermediate.der().clone()], key)?,
    })
}

#[cfg(test)]
mod tests;
