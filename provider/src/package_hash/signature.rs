//! The detached OpenPGP signature of `SHA256SUMS` (docs/behaviour.md,
//! HASH-12 to HASH-15): Terraform's and OpenTofu's `findSigningKey` and
//! go-crypto's `CheckDetachedSignature`, on rpgp (`pgp`, pure Rust).

use std::fmt;
use std::io::BufReader;
use std::time::{SystemTime, UNIX_EPOCH};

use pgp::composed::{Deserializable, SignedPublicKey};
use pgp::packet::{Packet, PacketParser, Signature, SignatureType};
use pgp::types::{KeyDetails, KeyId};

use tfdisco_core::SigningKey;

/// Which of the registry's signing keys signed `SHA256SUMS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signer {
    /// Its place in the package's `signing_keys`.
    pub key_index: usize,
    /// The key id of the signing key's primary key, 16 upper-case hex
    /// digits, as Terraform shows it (`KeyIdString`); a signing subkey's
    /// signature is reported under its primary key.
    pub key_id: String,
    /// The signature had expired (accepted only where OpenTofu accepts it,
    /// HASH-14).
    pub expired: bool,
}

/// Why the signature of `SHA256SUMS` does not verify (HASH-12 to HASH-14),
/// in Terraform's words. No message quotes key material.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignatureError {
    /// One of the registry's keys is not an ASCII-armored OpenPGP public key
    /// (or its self-signatures do not verify); both CLIs stop there.
    Key {
        /// Its place in `signing_keys`.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A key the signature names did not verify it, or the signature file is
    /// not a binary OpenPGP signature.
    Invalid {
        /// What is wrong.
        reason: String,
    },
    /// The key that signed has been revoked.
    Revoked {
        /// The key id of its primary key.
        key_id: String,
    },
    /// The signature had expired at the time given.
    Expired {
        /// The key id of the signing key's primary key.
        key_id: String,
    },
    /// None of the registry's keys made the signature.
    UnknownIssuer,
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::Key { index, reason } => {
                write!(
                    f,
                    "error decoding signing key: signing key {index}: {reason}"
                )
            }
            SignatureError::Invalid { reason } => write!(f, "error checking signature: {reason}"),
            SignatureError::Revoked { key_id } => write!(
                f,
                "error checking signature: openpgp: key revoked (key ID {key_id})"
            ),
            SignatureError::Expired { key_id } => write!(
                f,
                "error checking signature: openpgp: signature expired (key ID {key_id})"
            ),
            SignatureError::UnknownIssuer => {
                f.write_str("authentication signature from unknown issuer")
            }
        }
    }
}

impl std::error::Error for SignatureError {}

/// What checking a detached signature against one keyring gave.
#[derive(Debug)]
pub(super) enum Check {
    /// Verified; the primary key id of the key that made it.
    Verified(String),
    /// Verified, but the signature had expired.
    Expired(String),
    /// The key that made it is revoked.
    Revoked(String),
    /// No key of the keyring made it.
    UnknownIssuer,
    /// Not a signature, or it does not verify.
    Invalid(String),
}

/// Upper-case hex of a key id, as Go's `KeyIdString`.
pub(super) fn key_id_string(id: &KeyId) -> String {
    id.as_ref().iter().map(|b| format!("{b:02X}")).collect()
}

/// The public keys of an ASCII-armored block (`ReadArmoredKeyRing`), their
/// self-signatures and bindings verified.
pub(super) fn read_keyring(armored: &str) -> Result<Vec<SignedPublicKey>, String> {
    let (keys, _) = SignedPublicKey::from_armor_many(armored.as_bytes())
        .map_err(|e| format!("openpgp: invalid argument: {e}"))?;
    let keys = keys
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("openpgp: invalid data: {e}"))?;
    if keys.is_empty() {
        return Err("openpgp: invalid argument: no armored data found".to_owned());
    }
    for key in &keys {
        key.verify_bindings()
            .map_err(|e| format!("openpgp: invalid data: {e}"))?;
    }
    Ok(keys)
}

/// The key ids the signature names as its issuer: issuer subpackets, and
/// the last 8 bytes of a v4 issuer fingerprint.
fn issuers(sig: &Signature) -> Vec<KeyId> {
    let mut ids: Vec<KeyId> = sig.issuer_key_id().into_iter().copied().collect();
    for fp in sig.issuer_fingerprint() {
        let bytes = fp.as_bytes();
        if bytes.len() == 20 {
            let mut id = [0; 8];
            id.copy_from_slice(&bytes[12..]);
            ids.push(KeyId::from(id));
        }
    }
    ids
}

/// Whether the signature expired before `now`.
fn expired(sig: &Signature, now: SystemTime) -> bool {
    let (Some(created), Some(valid)) = (sig.created(), sig.signature_expiration_time()) else {
        return false;
    };
    let valid = valid.as_secs();
    if valid == 0 {
        return false;
    }
    let now = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    u64::from(created.as_secs()) + u64::from(valid) <= now
}

/// go-crypto's `CheckDetachedSignature`: the first signature packet whose
/// issuer is a signing key of `keyring` is the one checked, with every such
/// key; a packet that is not a signature, or one without an issuer, is an
/// error; no signature by the keyring is `UnknownIssuer`.
pub(super) fn check_detached(
    keyring: &[SignedPublicKey],
    signed: &[u8],
    signature: &[u8],
    now: SystemTime,
) -> Check {
    for packet in PacketParser::new(BufReader::new(signature)) {
        let sig = match packet {
            Ok(Packet::Signature(sig)) => sig,
            Ok(_) => {
                return Check::Invalid("openpgp: invalid data: non signature packet found".into());
            }
            Err(e) => return Check::Invalid(format!("openpgp: invalid data: {e}")),
        };
        let ids = issuers(&sig);
        if ids.is_empty() {
            return Check::Invalid(
                "openpgp: invalid data: signature doesn't have an issuer".to_owned(),
            );
        }
        let mut candidates = Vec::new();
        for key in keyring {
            let primary_id = key.primary_key.legacy_key_id();
            let primary_signs = key
                .details
                .users
                .iter()
                .flat_map(|u| &u.signatures)
                .chain(&key.details.direct_signatures)
                .any(|s| s.key_flags().sign());
            if primary_signs && ids.contains(&primary_id) {
                let revoked = !key.details.revocation_signatures.is_empty();
                candidates.push((key, None, revoked));
            }
            for sub in &key.public_subkeys {
                let signs = sub
                    .signatures
                    .iter()
                    .any(|s| s.typ() == Some(SignatureType::SubkeyBinding) && s.key_flags().sign());
                if signs && ids.contains(&sub.key.legacy_key_id()) {
                    let revoked = !key.details.revocation_signatures.is_empty()
                        || sub
                            .signatures
                            .iter()
                            .any(|s| s.typ() == Some(SignatureType::SubkeyRevocation));
                    candidates.push((key, Some(sub), revoked));
                }
            }
        }
        if candidates.is_empty() {
            continue;
        }
        let mut last = String::new();
        for (key, sub, revoked) in candidates {
            let verified = match sub {
                Some(sub) => sig.verify(&sub.key, signed),
                None => sig.verify(&key.primary_key, signed),
            };
            match verified {
                Ok(()) => {
                    let id = key_id_string(&key.primary_key.legacy_key_id());
                    return if revoked {
                        Check::Revoked(id)
                    } else if expired(&sig, now) {
                        Check::Expired(id)
                    } else {
                        Check::Verified(id)
                    };
                }
                Err(e) => last = format!("openpgp: invalid signature: {e}"),
            }
        }
        return Check::Invalid(last);
    }
    Check::UnknownIssuer
}

/// Terraform's and OpenTofu's `findSigningKey`: the first of `keys` whose
/// keyring made the detached `signature` of `document` (HASH-12). A key
/// that does not parse stops the search; a keyring that did not make it is
/// skipped; one that made it but whose signature does not verify, or is
/// revoked, stops it. An expired signature stops it too, unless
/// `allow_expired` (OpenTofu): then the first expired one is returned if no
/// key verifies it unexpired (HASH-14).
pub fn verify_signature(
    document: &[u8],
    signature: &[u8],
    keys: &[SigningKey],
    now: SystemTime,
    allow_expired: bool,
) -> Result<Signer, SignatureError> {
    let mut expired_signer = None;
    for (index, key) in keys.iter().enumerate() {
        let keyring = read_keyring(&key.ascii_armor)
            .map_err(|reason| SignatureError::Key { index, reason })?;
        match check_detached(&keyring, document, signature, now) {
            Check::Verified(key_id) => {
                return Ok(Signer {
                    key_index: index,
                    key_id,
                    expired: false,
                });
            }
            Check::UnknownIssuer => continue,
            Check::Invalid(reason) => return Err(SignatureError::Invalid { reason }),
            Check::Revoked(key_id) => return Err(SignatureError::Revoked { key_id }),
            Check::Expired(key_id) if allow_expired => {
                expired_signer.get_or_insert(Signer {
                    key_index: index,
                    key_id,
                    expired: true,
                });
            }
            Check::Expired(key_id) => return Err(SignatureError::Expired { key_id }),
        }
    }
    expired_signer.ok_or(SignatureError::UnknownIssuer)
}
