//! The checks both CLIs make of a downloaded provider package, in their
//! order (docs/behaviour.md, HASH-17 to HASH-20, which say how they compare
//! with the CLIs' own code), and a network mirror's hashes (HASH-22).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::PackageHashes;
use super::signature::{SignatureError, Signer, verify_signature};
use super::sums::{Sha256Sums, SumsError, decode_sha256, hex};
use super::trust::{Trust, TrustRoots, trust};
use tfdisco_core::{Dialect, ProviderPackage, ProviderSource};

/// OpenTofu's default registry: providers from it may come without
/// signing keys (the signature is then not checked).
const OPENTOFU_REGISTRY: &str = "registry.opentofu.org";

/// What a package is checked with: the registry's answer, the two files it
/// points at, and the hashes of the downloaded archive.
#[derive(Clone, Copy, Debug)]
pub struct PackageCheck<'a> {
    /// The registry's package answer (`filename`, `shasum`, `signing_keys`,
    /// OpenTofu's `packages`).
    pub package: &'a ProviderPackage,
    /// The `SHA256SUMS` document, as downloaded from `shasums_url`.
    pub sha256sums: &'a [u8],
    /// Its detached signature, as downloaded from `shasums_signature_url`
    /// (binary OpenPGP, as both CLIs read it).
    pub signature: &'a [u8],
    /// The archive's hashes ([`super::PackageHasher`]).
    pub archive: &'a PackageHashes,
}

/// How the checks are made: which CLI's rules, the time signatures are
/// judged at (the caller's clock: the core reads none), and the settings of
/// each CLI.
#[derive(Clone, Debug)]
pub struct SignatureCheck {
    /// Terraform's checks or OpenTofu's.
    pub dialect: Dialect,
    /// The time an expired signature is judged at.
    pub now: SystemTime,
    /// Terraform: the keys behind its trust levels (HashiCorp's).
    pub trust_roots: TrustRoots,
    /// OpenTofu: check the signature even of a provider of its default
    /// registry that comes without keys (`OPENTOFU_ENFORCE_GPG_VALIDATION=true`).
    pub require_signature: bool,
    /// OpenTofu: refuse an expired signature
    /// (`OPENTOFU_ENFORCE_GPG_EXPIRATION=true`); Terraform always does.
    pub refuse_expired: bool,
    /// Signatures already checked, shared by clones (see [`Signatures`]).
    pub signatures: Signatures,
}

/// The outcomes of the signature checks made with one [`SignatureCheck`],
/// by what was checked: the `SHA256SUMS` document, its signature and the
/// registry's keys. The platforms of a version share all three, so a lock
/// run verifies each version's signature once, however many platforms it
/// locks; the outcome is the same as checking again (same inputs, same
/// time, same rules). Clones share the record.
#[derive(Clone, Debug, Default)]
pub struct Signatures(Arc<Mutex<HashMap<[u8; 32], SignatureOutcome>>>);

/// What a signature check concluded: the trust and the signer, or why not.
type SignatureOutcome = Result<(Trust, Signer), AuthenticationError>;

impl Signatures {
    fn get_or_check(
        &self,
        check: &PackageCheck<'_>,
        how: &SignatureCheck,
        verify: impl FnOnce() -> Result<(Trust, Signer), AuthenticationError>,
    ) -> Result<(Trust, Signer), AuthenticationError> {
        let key = inputs_digest(check, how);
        let known = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(outcome) = known {
            return outcome;
        }
        let outcome = verify();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, outcome.clone());
        outcome
    }
}

/// A digest of everything a signature check reads: the document, the
/// signature, each key's fields, and the settings (dialect, time, expiry
/// rule, trust roots), each length-prefixed.
fn inputs_digest(check: &PackageCheck<'_>, how: &SignatureCheck) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(check.sha256sums);
    field(check.signature);
    for key in &check.package.signing_keys {
        field(key.key_id.as_bytes());
        field(key.ascii_armor.as_bytes());
        field(key.trust_signature.as_bytes());
    }
    let now = how
        .now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    field(&now.to_le_bytes());
    field(&[how.dialect as u8, u8::from(how.refuse_expired)]);
    for armored in how.trust_roots.armored() {
        field(armored.as_bytes());
    }
    hasher.finalize().into()
}

impl SignatureCheck {
    /// The checks of `dialect` at `now`, with each CLI's defaults.
    pub fn new(dialect: Dialect, now: SystemTime) -> SignatureCheck {
        SignatureCheck {
            dialect,
            now,
            trust_roots: TrustRoots::hashicorp(),
            require_signature: false,
            refuse_expired: false,
            signatures: Signatures::default(),
        }
    }
}

/// A package that passed every check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authentication {
    /// How its signature was trusted.
    pub trust: Trust,
    /// The registry key that signed `SHA256SUMS` (none when OpenTofu skipped
    /// the signature).
    pub signer: Option<Signer>,
    /// The hashes a lock file records for this version, sorted and without
    /// duplicates: the archive's `h1:`, every `zh:` of `SHA256SUMS` (when it
    /// looks like a checksums list) and, with OpenTofu, every `h1:` and
    /// `zh:` of the registry's `packages` (HASH-20).
    pub hashes: Vec<String>,
}

impl Authentication {
    /// What the CLI prints after the version: `signed by HashiCorp`,
    /// `self-signed, key ID 0123456789ABCDEF`, `signed`, ….
    pub fn describe(&self) -> String {
        match (&self.signer, self.trust.shows_key_id()) {
            (Some(signer), true) => format!("{}, key ID {}", self.trust, signer.key_id),
            _ => self.trust.to_string(),
        }
    }
}

/// Which check failed, and why, in the CLI's words (HASH-17). No message
/// holds key material.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthenticationError {
    /// OpenTofu: the registry's `packages` do not vouch for this archive.
    Packages {
        /// What does not hold.
        problem: String,
    },
    /// `SHA256SUMS` does not list the registry's `shasum` for the package's
    /// file name.
    Checksum(SumsError),
    /// The archive's SHA-256 is not the registry's `shasum`.
    Archive {
        /// The archive's, `zh:…`.
        got: String,
        /// The registry's, `zh:…`.
        expected: String,
    },
    /// The signature of `SHA256SUMS` does not verify with the registry's
    /// keys.
    Signature {
        /// Why.
        error: SignatureError,
        /// OpenTofu words it as its own failure.
        dialect: Dialect,
    },
    /// Terraform: the signing key's `trust_signature` does not hold.
    TrustSignature {
        /// Why.
        problem: String,
    },
    /// A network mirror's archive matches none of the hashes the mirror
    /// lists for it, or the mirror lists none the CLI can check (HASH-22).
    Hashes {
        /// What does not hold, in the CLI's words.
        problem: String,
    },
}

impl AuthenticationError {
    /// The check that failed: `packages`, `checksum`, `archive`,
    /// `signature`, `trust-signature`, `hashes`.
    pub fn check(&self) -> &'static str {
        self.check_and_file().0
    }

    /// True when a signature failed: the signature of `SHA256SUMS`, or a
    /// signing key's trust signature; false when the files do not match
    /// (the checks `packages`, `checksum`, `archive`, `hashes`).
    pub fn is_signature(&self) -> bool {
        matches!(
            self,
            AuthenticationError::Signature { .. } | AuthenticationError::TrustSignature { .. }
        )
    }

    /// The file the failure is about: `the registry's answer`,
    /// `SHA256SUMS`, `the archive`, `SHA256SUMS's signature`, `the signing
    /// key`.
    pub fn file(&self) -> &'static str {
        self.check_and_file().1
    }

    /// The check that failed and the file it is about, in one table.
    fn check_and_file(&self) -> (&'static str, &'static str) {
        match self {
            AuthenticationError::Packages { .. } => ("packages", "the registry's answer"),
            AuthenticationError::Checksum(_) => ("checksum", "SHA256SUMS"),
            AuthenticationError::Archive { .. } => ("archive", "the archive"),
            AuthenticationError::Signature { .. } => ("signature", "SHA256SUMS's signature"),
            AuthenticationError::TrustSignature { .. } => ("trust-signature", "the signing key"),
            AuthenticationError::Hashes { .. } => ("hashes", "the mirror's hashes"),
        }
    }
}

impl fmt::Display for AuthenticationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthenticationError::Packages { problem } => f.write_str(problem),
            AuthenticationError::Checksum(error) => error.fmt(f),
            AuthenticationError::Archive { got, expected } => {
                write!(
                    f,
                    "archive has incorrect checksum {got} (expected {expected})"
                )
            }
            AuthenticationError::Signature {
                error,
                dialect: Dialect::OpenTofu,
            } => write!(
                f,
                "the provider is not signed with a valid signing key; please contact the \
                 provider author ({error})"
            ),
            AuthenticationError::Signature { error, .. } => error.fmt(f),
            AuthenticationError::TrustSignature { problem }
            | AuthenticationError::Hashes { problem } => f.write_str(problem),
        }
    }
}

impl std::error::Error for AuthenticationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AuthenticationError::Checksum(error) => Some(error),
            AuthenticationError::Signature { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// OpenTofu's `registryPackageAuthentication` (HASH-19): with `packages`,
/// the target platform's entry must be there, with a size above zero equal
/// to the archive's, and at least one `zh:`, every one of them the
/// registry's `shasum`.
fn check_packages(package: &ProviderPackage, archive: &PackageHashes) -> Result<(), String> {
    let Some(packages) = package.packages.as_deref().filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let platform = packages
        .iter()
        .find(|p| p.platform == package.platform)
        .ok_or_else(|| {
            format!(
                "registry response missing package with platform {}",
                tfdisco_core::go_quote(&package.platform.to_string())
            )
        })?;
    if platform.package_size <= 0 {
        return Err(format!(
            "registry response has invalid package size {}",
            platform.package_size
        ));
    }
    if u64::try_from(platform.package_size).ok() != Some(archive.size()) {
        return Err(format!(
            "registry response indicates a package of size {}, but received a package of size {}",
            platform.package_size,
            archive.size()
        ));
    }
    let mut found = false;
    for value in platform.hashes.iter().filter_map(|h| h.strip_prefix("zh:")) {
        if value != package.shasum {
            return Err(format!(
                "registry response expected sha256sum is {}, which does not match the \
                 platform's value of {}",
                tfdisco_core::go_quote(&package.shasum),
                tfdisco_core::go_quote(value)
            ));
        }
        found = true;
    }
    if !found {
        return Err(
            "registry response does not contain matching sha256sum package entry and is invalid"
                .to_owned(),
        );
    }
    Ok(())
}

/// Checks a downloaded package as the dialect's CLI does, in its order
/// (HASH-17): (OpenTofu) the registry's `packages`, then `SHA256SUMS` lists
/// the registry's `shasum` for the package's `filename`, the archive's
/// SHA-256 is that `shasum`, and the detached signature of `SHA256SUMS`
/// verifies with one of the registry's `signing_keys` (Terraform then
/// decides the key's [`Trust`]). The first failure is returned.
pub fn authenticate_package(
    check: &PackageCheck<'_>,
    how: &SignatureCheck,
) -> Result<Authentication, AuthenticationError> {
    let package = check.package;
    let opentofu = how.dialect == Dialect::OpenTofu;
    if opentofu {
        check_packages(package, check.archive)
            .map_err(|problem| AuthenticationError::Packages { problem })?;
    }
    let sums = Sha256Sums::new(check.sha256sums);
    let shasum = decode_sha256(package.shasum.as_bytes()).map_err(|reason| {
        AuthenticationError::Checksum(SumsError::InvalidHash {
            hash: package.shasum.clone(),
            reason,
        })
    })?;
    sums.check(&package.filename, &shasum)
        .map_err(AuthenticationError::Checksum)?;
    if check.archive.sha256() != shasum {
        return Err(AuthenticationError::Archive {
            got: check.archive.zh(),
            expected: format!("zh:{}", hex(&shasum)),
        });
    }
    let skip = package.signing_keys.is_empty() && !signature_required(&package.source, how);
    let (trust_level, signer) = if skip {
        (Trust::SigningSkipped, None)
    } else {
        let (level, signer) = how
            .signatures
            .get_or_check(check, how, || signed(check, how))?;
        (level, Some(signer))
    };
    let mut hashes = vec![check.archive.h1()];
    hashes.extend(sums.zip_hashes().unwrap_or_default());
    if opentofu {
        for platform in package.packages.iter().flatten() {
            hashes.extend(
                platform
                    .hashes
                    .iter()
                    .filter(|h| h.starts_with("h1:") || h.starts_with("zh:"))
                    .cloned(),
            );
        }
    }
    hashes.sort();
    hashes.dedup();
    Ok(Authentication {
        trust: trust_level,
        signer,
        hashes,
    })
}

/// Whether the dialect records for `source` only hashes a signature vouches
/// for: Terraform always; OpenTofu for every provider but those of its
/// default registry, and for those too with
/// `OPENTOFU_ENFORCE_GPG_VALIDATION=true` ([`SignatureCheck::require_signature`];
/// Go's `ShouldEnforceGPGValidationForProvider`). When it does not, a
/// registry without keys is not asked for a signature (HASH-19), and the
/// hashes a trusted mirror reports are recorded (MIRROR-14).
pub fn signature_required(source: &ProviderSource, how: &SignatureCheck) -> bool {
    how.dialect == Dialect::Terraform
        || how.require_signature
        || source.host().as_str() != OPENTOFU_REGISTRY
}

/// The hashes OpenTofu records for a package from a network mirror with
/// `trust_all_hashes = true`, besides its own `h1:` and the listed hashes
/// the archive matched (MIRROR-14): every hash it can check (`h1:`, `zh:`)
/// that the mirror lists, for every platform (the caller's `listed`),
/// each reported by a trusted mirror; none when only signed hashes are
/// recorded for `source` ([`signature_required`]), and none with
/// Terraform, which has no such setting. Call it once the archive matched
/// one of them ([`authenticate_mirror_archive`]).
///
/// ```
/// use std::time::SystemTime;
/// use tfdisco_core::{Dialect, ProviderSource};
/// use tfdisco_provider::{SignatureCheck, trusted_mirror_hashes};
///
/// let how = SignatureCheck::new(Dialect::OpenTofu, SystemTime::now());
/// let listed = ["h1:a".to_owned(), "zh:b".to_owned(), "h0:c".to_owned()];
/// let default = ProviderSource::parse("hashicorp/null", Dialect::OpenTofu)?;
/// assert_eq!(trusted_mirror_hashes(&listed, &default, &how), ["h1:a", "zh:b"]);
/// let elsewhere = ProviderSource::parse("example.com/ns/null", Dialect::OpenTofu)?;
/// assert!(trusted_mirror_hashes(&listed, &elsewhere, &how).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn trusted_mirror_hashes(
    listed: &[String],
    source: &ProviderSource,
    how: &SignatureCheck,
) -> Vec<String> {
    if signature_required(source, how) {
        return Vec::new();
    }
    listed.iter().filter(|h| checkable(h)).cloned().collect()
}

/// A hash both CLIs can check an archive with (Go's `PreferredHashes`).
fn checkable(hash: &str) -> bool {
    hash.starts_with("h1:") || hash.starts_with("zh:")
}

/// The signature of `SHA256SUMS` checked with the registry's keys, and the
/// signing key's trust (HASH-12 to HASH-16).
fn signed(
    check: &PackageCheck<'_>,
    how: &SignatureCheck,
) -> Result<(Trust, Signer), AuthenticationError> {
    let package = check.package;
    let opentofu = how.dialect == Dialect::OpenTofu;
    let signer = verify_signature(
        check.sha256sums,
        check.signature,
        &package.signing_keys,
        how.now,
        opentofu && !how.refuse_expired,
    )
    .map_err(|error| AuthenticationError::Signature {
        error,
        dialect: how.dialect,
    })?;
    let level = if opentofu {
        Trust::Signed
    } else {
        match package.signing_keys.get(signer.key_index) {
            Some(key) => trust(
                check.sha256sums,
                check.signature,
                key,
                &how.trust_roots,
                how.now,
            )
            .map_err(|e| AuthenticationError::TrustSignature { problem: e.0 })?,
            None => Trust::Community,
        }
    };
    Ok((level, signer))
}

/// How a package from a network mirror was vouched for (HASH-22).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MirrorAuthentication {
    /// [`Trust::Checksum`] when the archive matched a listed hash,
    /// [`Trust::Unauthenticated`] when the mirror listed none.
    pub trust: Trust,
    /// The listed hashes the archive matched, in the mirror's order.
    pub matched: Vec<String>,
}

/// Checks an archive from a network mirror against the hashes the mirror
/// lists for its platform, as both CLIs' `PackageHashAuthentication` does
/// (HASH-22): with none listed the package is unauthenticated; otherwise
/// the `h1:` and `zh:` ones count (an `h1:` is checked against the
/// archive's [`PackageHashes::h1_zip`], a `zh:` against its SHA-256), at
/// least one must be listed and the archive must match one of them. The
/// messages are the CLIs' (Terraform's "the any" included).
pub fn authenticate_mirror_archive(
    listed: &[String],
    archive: &PackageHashes,
    dialect: Dialect,
) -> Result<MirrorAuthentication, AuthenticationError> {
    if listed.is_empty() {
        return Ok(MirrorAuthentication {
            trust: Trust::Unauthenticated,
            matched: Vec::new(),
        });
    }
    let usable: Vec<&String> = listed.iter().filter(|h| checkable(h)).collect();
    let problem = match usable.as_slice() {
        [] => format!(
            "this version of {} does not support any of the checksum formats given for this \
             provider",
            match dialect {
                Dialect::Terraform => "Terraform",
                Dialect::OpenTofu => "OpenTofu",
            }
        ),
        _ if usable.iter().any(|h| archive.matches(h)) => {
            return Ok(MirrorAuthentication {
                trust: Trust::Checksum,
                matched: usable
                    .into_iter()
                    .filter(|h| archive.matches(h))
                    .cloned()
                    .collect(),
            });
        }
        [one] => format!(
            "provider package doesn't match the expected checksum {}",
            tfdisco_core::go_quote(one)
        ),
        _ => "provider package doesn't match the any of the expected checksums".to_owned(),
    };
    Err(AuthenticationError::Hashes { problem })
}
