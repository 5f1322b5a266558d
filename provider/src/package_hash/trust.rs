//! How a signing key is trusted, as Terraform reports it (docs/behaviour.md,
//! HASH-15, HASH-16), with the two HashiCorp keys Terraform ships
//! (`keys/`).

use std::fmt;
use std::io::{BufReader, Read};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use pgp::armor::Dearmor;
use pgp::composed::SignedPublicKey;

use super::signature::{Check, check_detached, read_keyring};

/// HashiCorp's release signing key (`HashicorpPublicKey`), ASCII-armored.
const HASHICORP_KEY: &str = include_str!("keys/hashicorp.asc");
/// The key HashiCorp signs its partners' keys with (`HashicorpPartnersKey`).
const HASHICORP_PARTNERS_KEY: &str = include_str!("keys/hashicorp-partners.asc");

/// The key id of HashiCorp's release signing key (fingerprint
/// `C874 011F 0AB4 0511 0D02 1055 3436 5D94 72D7 468F`).
pub const HASHICORP_KEY_ID: &str = "34365D9472D7468F";
/// The key id of HashiCorp's partner signing key (fingerprint
/// `5189 0657 C5AC DB4B 8230 8656 7D72 D426 8E46 60FC`).
pub const HASHICORP_PARTNERS_KEY_ID: &str = "7D72D4268E4660FC";

/// How a package's signature was trusted.
///
/// Terraform tells three levels apart; OpenTofu has no partner program and
/// says only whether the signature was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Trust {
    /// Terraform: `SHA256SUMS` is signed by HashiCorp's own key.
    Official,
    /// Terraform: signed by a key whose `trust_signature` HashiCorp's
    /// partner key made.
    Partner,
    /// Terraform: signed by one of the registry's keys, neither of the above.
    Community,
    /// OpenTofu: signed by one of the registry's keys.
    Signed,
    /// OpenTofu: the registry gave no keys for a provider of its default
    /// registry, and the signature was not checked.
    SigningSkipped,
    /// Both CLIs: a package from a network mirror matched one of the hashes
    /// the mirror lists for it (no signature is involved; HASH-22).
    Checksum,
    /// Both CLIs: a package from a filesystem mirror, or from a network
    /// mirror that lists no hashes for it: nothing vouches for it.
    Unauthenticated,
    /// Install runs: an installed package (the working folder's, or the
    /// plugin cache's) whose `h1:` the lock file records.
    LockFile,
}

impl Trust {
    /// The words the CLI prints after `- Installed <provider> v<version>`:
    /// `signed by HashiCorp`, `signed by a HashiCorp partner`, `self-signed`
    /// (Terraform); `signed`, `signing skipped` (OpenTofu); `verified
    /// checksum`, `unauthenticated` (both, for mirrors).
    pub fn label(self) -> &'static str {
        match self {
            Trust::Official => "signed by HashiCorp",
            Trust::Partner => "signed by a HashiCorp partner",
            Trust::Community => "self-signed",
            Trust::Signed => "signed",
            Trust::SigningSkipped => "signing skipped",
            Trust::Checksum => "verified checksum",
            Trust::Unauthenticated => "unauthenticated",
            Trust::LockFile => "matches the lock file",
        }
    }

    /// Whether Terraform shows the key id with it (`ThirdPartySigned`:
    /// partner and community keys).
    pub fn shows_key_id(self) -> bool {
        matches!(self, Trust::Partner | Trust::Community | Trust::Signed)
    }
}

impl fmt::Display for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The two keys Terraform's trust levels rest on: HashiCorp's release key
/// and its partner key, ASCII-armored. [`TrustRoots::hashicorp`] are the
/// ones Terraform ships; tests and private forks may use others. Each
/// keyring is read (and its bindings verified) once, when first needed, and
/// shared by clones: a lock run checks every package with one.
#[derive(Clone)]
pub struct TrustRoots {
    official: Keyring,
    partners: Keyring,
}

/// An armored keyring, read once.
#[derive(Clone)]
struct Keyring {
    armored: Arc<str>,
    read: Arc<OnceLock<Result<Vec<SignedPublicKey>, String>>>,
}

impl Keyring {
    fn new(armored: String) -> Keyring {
        Keyring {
            armored: armored.into(),
            read: Arc::default(),
        }
    }

    fn keys(&self) -> Result<&[SignedPublicKey], &str> {
        match self.read.get_or_init(|| read_keyring(&self.armored)) {
            Ok(keys) => Ok(keys),
            Err(e) => Err(e),
        }
    }
}

impl PartialEq for TrustRoots {
    fn eq(&self, other: &TrustRoots) -> bool {
        self.official.armored == other.official.armored
            && self.partners.armored == other.partners.armored
    }
}

impl Eq for TrustRoots {}

impl fmt::Debug for TrustRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustRoots").finish_non_exhaustive()
    }
}

impl Default for TrustRoots {
    fn default() -> Self {
        TrustRoots::hashicorp()
    }
}

impl TrustRoots {
    /// HashiCorp's keys, as Terraform has them (read once per process).
    pub fn hashicorp() -> TrustRoots {
        static HASHICORP: OnceLock<TrustRoots> = OnceLock::new();
        HASHICORP
            .get_or_init(|| TrustRoots::new(HASHICORP_KEY, HASHICORP_PARTNERS_KEY))
            .clone()
    }

    /// The two keyrings as given, ASCII-armored.
    pub(super) fn armored(&self) -> [&str; 2] {
        [&self.official.armored, &self.partners.armored]
    }

    /// Other keys in their place, ASCII-armored.
    pub fn new(official: impl Into<String>, partners: impl Into<String>) -> TrustRoots {
        TrustRoots {
            official: Keyring::new(official.into()),
            partners: Keyring::new(partners.into()),
        }
    }
}

/// Why a partner key's trust signature does not hold (Terraform stops).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TrustError(pub(super) String);

/// The bytes of an ASCII-armored block.
fn dearmor(armored: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    Dearmor::new(BufReader::new(armored.as_bytes()))
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.is_empty() {
        return Err("no armored data found".to_owned());
    }
    Ok(out)
}

/// Terraform's trust decision, once a registry key verified the signature:
/// official when HashiCorp's key verifies it too; else partner when the key
/// has a `trust_signature`, which HashiCorp's partner key must have made
/// over the key's armored bytes (or it is an error); else community.
pub(super) fn trust(
    document: &[u8],
    signature: &[u8],
    signing_key: &tfdisco_core::SigningKey,
    roots: &TrustRoots,
    now: SystemTime,
) -> Result<Trust, TrustError> {
    let official = roots
        .official
        .keys()
        .map_err(|e| TrustError(format!("error creating HashiCorp keyring: {e}")))?;
    // An expired signature is not official: Terraform ignores only
    // go-crypto's expired *key* error.
    if let Check::Verified(_) = check_detached(official, document, signature, now) {
        return Ok(Trust::Official);
    }
    if signing_key.trust_signature.is_empty() {
        return Ok(Trust::Community);
    }
    let partners = roots
        .partners
        .keys()
        .map_err(|e| TrustError(format!("error creating HashiCorp Partners keyring: {e}")))?;
    let author = dearmor(&signing_key.ascii_armor)
        .map_err(|e| TrustError(format!("error decoding signing key: {e}")))?;
    let trust_signature = dearmor(&signing_key.trust_signature)
        .map_err(|e| TrustError(format!("error decoding trust signature: {e}")))?;
    match check_detached(partners, &author, &trust_signature, now) {
        Check::Verified(_) => Ok(Trust::Partner),
        Check::Expired(_) => Err(TrustError(
            "error verifying trust signature: openpgp: signature expired".to_owned(),
        )),
        Check::Revoked(_) => Err(TrustError(
            "error verifying trust signature: openpgp: key revoked".to_owned(),
        )),
        Check::UnknownIssuer => Err(TrustError(
            "error verifying trust signature: openpgp: signature made by unknown entity".to_owned(),
        )),
        Check::Invalid(reason) => Err(TrustError(format!(
            "error verifying trust signature: {reason}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package_hash::signature::key_id_string;
    use pgp::types::KeyDetails;

    /// The keys shipped are Terraform's, under the ids it reports.
    #[test]
    fn hashicorp_keys_read_with_their_ids() {
        for (armored, id) in [
            (HASHICORP_KEY, HASHICORP_KEY_ID),
            (HASHICORP_PARTNERS_KEY, HASHICORP_PARTNERS_KEY_ID),
        ] {
            let keys = read_keyring(armored).expect("reads");
            assert_eq!(keys.len(), 1);
            assert_eq!(key_id_string(&keys[0].primary_key.legacy_key_id()), id);
        }
    }

    #[test]
    fn labels_are_the_clis() {
        assert_eq!(Trust::Community.to_string(), "self-signed");
        assert_eq!(Trust::Official.label(), "signed by HashiCorp");
        assert!(!Trust::Official.shows_key_id());
        assert!(Trust::Partner.shows_key_id());
    }
}
