//! The provider registry: versions and packages (docs/behaviour.md, API-8
//! to API-12).

use std::time::Instant;

use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use url::Url;

use super::{RegistryCall, check_version, endpoint, is_version, read_ok};
use crate::discovery::placeholder_url;
use crate::fetch::{Fetch, Goal, Next};
use crate::{Config, Credentials, Dialect, Error, Hostname, ProviderSource, Services};

const SERVICE: &str = "providers.v1";

/// An operating system and architecture, as `linux_amd64` names them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
pub struct Platform {
    /// `linux`, `darwin`, `windows`, ….
    pub os: String,
    /// `amd64`, `arm64`, `386`, ….
    pub arch: String,
}

impl Platform {
    /// Parses `OS_ARCH`, such as `linux_amd64`: two words of lower-case
    /// ASCII letters and digits.
    pub fn parse(given: &str) -> Result<Platform, Error> {
        let (os, arch) = given.split_once('_').unwrap_or((given, ""));
        let platform = Platform {
            os: os.to_owned(),
            arch: arch.to_owned(),
        };
        platform.check().map(|()| platform)
    }

    /// Checks that both words are lower-case ASCII letters and digits, so
    /// they can go into a URL path.
    pub fn check(&self) -> Result<(), Error> {
        let word = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        };
        if word(&self.os) && word(&self.arch) {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            message: format!(
                "invalid platform \"{self}\": must be two words of lower-case letters and \
                 digits separated by an underscore, such as linux_amd64"
            ),
        })
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}

/// One version of a provider, as the registry lists it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ProviderVersion {
    /// The version, such as `5.31.0`.
    pub version: String,
    /// The plugin protocol versions it speaks, such as `["5.0"]`.
    #[serde(default, deserialize_with = "super::nullable")]
    pub protocols: Vec<String>,
    /// The platforms it has packages for.
    #[serde(default, deserialize_with = "super::nullable")]
    pub platforms: Vec<Platform>,
}

/// The versions of a provider, in the registry's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderVersions {
    /// The provider asked about.
    pub source: ProviderSource,
    /// The URL the versions were read from (after redirects).
    pub url: Url,
    /// The versions.
    pub versions: Vec<ProviderVersion>,
    /// Warnings the registry gives about this provider, for people.
    pub warnings: Vec<String>,
}

/// One GPG key that may have signed a provider's checksums.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct SigningKey {
    /// The key id.
    #[serde(default, deserialize_with = "super::nullable")]
    pub key_id: String,
    /// The public key, ASCII-armored.
    pub ascii_armor: String,
    /// A signature by a trusted key over this key (partner providers).
    #[serde(default, deserialize_with = "super::nullable")]
    pub trust_signature: String,
    /// Who the key belongs to.
    #[serde(default, deserialize_with = "super::nullable")]
    pub source: String,
    /// Where to read more about it.
    #[serde(default, deserialize_with = "super::nullable")]
    pub source_url: Option<String>,
}

/// Where to download one version of a provider for one platform, and how to
/// check it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderPackage {
    /// The provider asked about.
    pub source: ProviderSource,
    /// The version asked about.
    pub version: String,
    /// The platform asked about (the registry's answer must name it).
    pub platform: Platform,
    /// The package's file name.
    pub filename: String,
    /// The package, resolved against the response's URL.
    pub download_url: Url,
    /// The `SHA256SUMS` file.
    pub shasums_url: Url,
    /// The detached signature of `SHA256SUMS`.
    pub shasums_signature_url: Url,
    /// The package's SHA-256, 64 lower-case hex digits.
    pub shasum: String,
    /// The plugin protocol versions it speaks.
    pub protocols: Vec<String>,
    /// The keys that may have signed `SHA256SUMS`.
    pub signing_keys: Vec<SigningKey>,
}

/// The goal of a provider versions request
/// (`GET <providers.v1>/<namespace>/<type>/versions`).
#[derive(Clone, Debug)]
pub struct ProviderVersionsRequest {
    source: ProviderSource,
    dialect: Dialect,
}

impl Fetch<ProviderVersionsRequest> {
    /// Starts asking `source`'s registry, whose discovered services are
    /// `services`, for the provider's versions, sending `credentials` (the
    /// source host's) only over https. `source` must be fully qualified
    /// ([`ProviderSource::validate`]).
    pub fn provider_versions(
        services: &Services,
        source: &ProviderSource,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Fetch<ProviderVersionsRequest> {
        let goal = ProviderVersionsRequest {
            source: source.clone(),
            dialect: config.dialect(),
        };
        let url = source.require_qualified().and_then(|()| {
            endpoint(
                services,
                SERVICE,
                false,
                &[source.namespace(), source.type_name(), "versions"],
            )
        });
        match url {
            Ok(url) => Fetch::get(goal, url, config, credentials, now),
            Err(e) => Fetch::failed(goal, placeholder_url(), config, e),
        }
    }
}

impl Goal for ProviderVersionsRequest {
    type Output = ProviderVersions;
    const NAME: &'static str = "provider versions";

    fn host(&self) -> &Hostname {
        self.source.host()
    }

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<ProviderVersions> {
        read_ok(url, status, || {
            format!(
                "provider registry {} does not have a provider named {}",
                self.source.host().display(),
                self.source
            )
        })
    }

    fn on_body(&mut self, url: &Url, body: &[u8]) -> Result<ProviderVersions, Error> {
        #[derive(Deserialize)]
        struct Document {
            versions: Vec<ProviderVersion>,
            #[serde(default, deserialize_with = "super::nullable")]
            warnings: Vec<String>,
        }
        let Document {
            mut versions,
            warnings,
        } = super::parse_json(url, body)?;
        match self.dialect {
            // Terraform skips what does not parse; OpenTofu refuses it.
            Dialect::Terraform => versions.retain(|v| is_version(&v.version)),
            Dialect::OpenTofu => {
                if let Some(bad) = versions.iter().find(|v| !is_version(&v.version)) {
                    return Err(Error::InvalidResponse {
                        url: url.clone().into(),
                        problem: format!("invalid provider version {:?}", bad.version),
                    });
                }
            }
        }
        Ok(ProviderVersions {
            source: self.source.clone(),
            url: url.clone(),
            versions,
            warnings,
        })
    }

    registry_goal!(RegistryCall::ProviderVersions);
}

/// The goal of a provider package request
/// (`GET <providers.v1>/<namespace>/<type>/<version>/download/<os>/<arch>`).
#[derive(Clone, Debug)]
pub struct ProviderPackageRequest {
    source: ProviderSource,
    version: String,
    platform: Platform,
}

impl Fetch<ProviderPackageRequest> {
    /// Starts asking `source`'s registry for the package of `version` for
    /// `platform`. `version` must be a semantic version.
    pub fn provider_package(
        services: &Services,
        source: &ProviderSource,
        version: &str,
        platform: &Platform,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Fetch<ProviderPackageRequest> {
        let goal = ProviderPackageRequest {
            source: source.clone(),
            version: version.to_owned(),
            platform: platform.clone(),
        };
        let url = source
            .require_qualified()
            .and_then(|()| check_version(version))
            .and_then(|()| platform.check())
            .and_then(|()| {
                endpoint(
                    services,
                    SERVICE,
                    false,
                    &[
                        source.namespace(),
                        source.type_name(),
                        version,
                        "download",
                        &platform.os,
                        &platform.arch,
                    ],
                )
            });
        match url {
            Ok(url) => Fetch::get(goal, url, config, credentials, now),
            Err(e) => Fetch::failed(goal, placeholder_url(), config, e),
        }
    }
}

impl Goal for ProviderPackageRequest {
    type Output = ProviderPackage;
    const NAME: &'static str = "provider package";

    fn host(&self) -> &Hostname {
        self.source.host()
    }

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<ProviderPackage> {
        read_ok(url, status, || {
            format!(
                "provider {} {} is not available for {}",
                self.source, self.version, self.platform
            )
        })
    }

    fn on_body(&mut self, url: &Url, body: &[u8]) -> Result<ProviderPackage, Error> {
        #[derive(Deserialize)]
        struct Document {
            #[serde(default, deserialize_with = "super::nullable")]
            protocols: Vec<String>,
            os: String,
            arch: String,
            filename: String,
            download_url: String,
            shasums_url: String,
            shasums_signature_url: String,
            shasum: String,
            #[serde(default, deserialize_with = "super::nullable")]
            signing_keys: SigningKeys,
        }
        #[derive(Deserialize, Default)]
        struct SigningKeys {
            #[serde(default, deserialize_with = "super::nullable")]
            gpg_public_keys: Vec<SigningKey>,
        }
        let doc: Document = super::parse_json(url, body)?;
        let invalid = |problem: String| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        };
        if doc.os != self.platform.os || doc.arch != self.platform.arch {
            return Err(invalid(format!(
                "the registry answered for {}_{} when asked for {}",
                doc.os, doc.arch, self.platform
            )));
        }
        if !supports_protocol(&doc.protocols) {
            return Err(invalid(format!(
                "provider {} {} speaks plugin protocols {:?}; Terraform and OpenTofu need \
                 protocol 5 or 6",
                self.source, self.version, doc.protocols
            )));
        }
        if doc.shasum.len() != 64 || !doc.shasum.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid(format!(
                "invalid SHA-256 checksum {:?}: expected 64 hex digits",
                doc.shasum
            )));
        }
        let resolve = |field: &str, value: &str| -> Result<Url, Error> {
            let resolved = url
                .join(value)
                .map_err(|e| invalid(format!("unusable {field} {value:?}: {e}")))?;
            if matches!(resolved.scheme(), "http" | "https") {
                Ok(resolved)
            } else {
                Err(invalid(format!(
                    "unusable {field} {value:?}: only http and https are allowed"
                )))
            }
        };
        Ok(ProviderPackage {
            source: self.source.clone(),
            version: self.version.clone(),
            platform: self.platform.clone(),
            download_url: resolve("download_url", &doc.download_url)?,
            shasums_url: resolve("shasums_url", &doc.shasums_url)?,
            shasums_signature_url: resolve("shasums_signature_url", &doc.shasums_signature_url)?,
            filename: doc.filename,
            shasum: doc.shasum.to_ascii_lowercase(),
            protocols: doc.protocols,
            signing_keys: doc.signing_keys.gpg_public_keys,
        })
    }

    registry_goal!(RegistryCall::ProviderPackage);
}

impl ProviderSource {
    /// [`ProviderSource::validate`] as a registry request reports it: a
    /// request needs a namespace, not a bare type nor the legacy `-`
    /// (API-8).
    pub fn require_qualified(&self) -> Result<(), Error> {
        self.validate().map_err(|error| Error::InvalidSource {
            input: self.to_string(),
            error,
        })
    }
}

/// Both CLIs install protocol 5 and 6 providers (`>= 5, < 7`); a protocol
/// is `MAJOR` or `MAJOR.MINOR`.
fn supports_protocol(protocols: &[String]) -> bool {
    protocols.iter().any(|p| {
        let major = p.split('.').next().unwrap_or_default();
        matches!(major, "5" | "6")
    })
}
