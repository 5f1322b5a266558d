//! The provider registry: versions and packages (docs/behaviour.md, API-8
//! to API-12).

use std::borrow::Cow;
use std::time::Instant;

use http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};
use url::Url;

use super::{check_version, endpoint, read_ok};
use crate::transfer::{Goal, Next, Transfer};
use crate::{Config, Credentials, Dialect, Error, ProviderSource, Services, StartError, Version};

const SERVICE: &str = "providers.v1";

/// An operating system and architecture, as `linux_amd64` names them.
///
/// The words Terraform and OpenTofu build providers for are shared
/// `&'static str`s, so the thousands of platforms of a versions document
/// (API-9) take no allocation each; other words are owned. Its JSON
/// document is `{"os", "arch"}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Platform {
    /// `linux`, `darwin`, `windows`, ….
    pub os: Cow<'static, str>,
    /// `amd64`, `arm64`, `386`, ….
    pub arch: Cow<'static, str>,
}

/// The operating systems and architectures providers are built for.
const KNOWN_OS: [&str; 9] = [
    "linux", "darwin", "windows", "freebsd", "openbsd", "netbsd", "solaris", "illumos", "android",
];
const KNOWN_ARCH: [&str; 11] = [
    "amd64", "arm64", "386", "arm", "ppc64le", "s390x", "riscv64", "mips", "mipsle", "mips64",
    "mips64le",
];

/// `word` as one of `known`, or owned.
fn shared(word: Cow<'_, str>, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| **k == word) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(word.into_owned()),
    }
}

impl Platform {
    /// A platform of these two words (not checked: see [`Platform::check`]).
    pub fn new(os: &str, arch: &str) -> Platform {
        Platform {
            os: shared(Cow::Borrowed(os), &KNOWN_OS),
            arch: shared(Cow::Borrowed(arch), &KNOWN_ARCH),
        }
    }

    /// The platform this program runs on, in Go's words (`linux_amd64`,
    /// `darwin_arm64`, `windows_386`): what `providers lock` locks when it
    /// is given no platform.
    pub fn current() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "powerpc64" => "ppc64",
            "mips" if cfg!(target_endian = "little") => "mipsle",
            "mips64" if cfg!(target_endian = "little") => "mips64le",
            "loongarch64" => "loong64",
            other => other,
        };
        Platform::new(os, arch)
    }

    /// Parses `OS_ARCH`, such as `linux_amd64`: two words of lower-case
    /// ASCII letters and digits.
    pub fn parse(given: &str) -> Result<Platform, Error> {
        let (os, arch) = given.split_once('_').unwrap_or((given, ""));
        let platform = Platform::new(os, arch);
        if platform.is_valid() {
            Ok(platform)
        } else {
            Err(invalid_platform(given))
        }
    }

    /// Checks that both words are lower-case ASCII letters and digits, so
    /// they can go into a URL path.
    pub fn check(&self) -> Result<(), Error> {
        if self.is_valid() {
            Ok(())
        } else {
            Err(invalid_platform(&self.to_string()))
        }
    }

    fn is_valid(&self) -> bool {
        let word = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        };
        word(&self.os) && word(&self.arch)
    }
}

/// The error for a platform, quoted as the caller wrote it.
fn invalid_platform(shown: &str) -> Error {
    Error::InvalidArgument {
        message: format!(
            "invalid platform {shown:?}: must be two words of lower-case letters and \
             digits separated by an underscore, such as linux_amd64"
        ),
    }
}

/// The JSON shape of a platform, with the words borrowed from the document
/// where they have no escapes (named `Platform` for serde's messages).
mod json {
    use std::borrow::Cow;

    #[derive(serde::Deserialize)]
    pub(super) struct Platform<'a> {
        #[serde(borrow)]
        pub(super) os: Cow<'a, str>,
        #[serde(borrow)]
        pub(super) arch: Cow<'a, str>,
    }
}

impl<'de> Deserialize<'de> for Platform {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Platform, D::Error> {
        let json::Platform { os, arch } = json::Platform::deserialize(d)?;
        Ok(Platform {
            os: shared(os, &KNOWN_OS),
            arch: shared(arch, &KNOWN_ARCH),
        })
    }
}

/// A version's `platforms`, `null` read as none ([`super::nullable`]), with
/// room for 16 made at once: versions have 13 or 14, which would otherwise
/// take three allocations each.
fn platforms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Platform>, D::Error> {
    struct Platforms;

    impl<'de> serde::de::Visitor<'de> for Platforms {
        type Value = Vec<Platform>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut platforms = Vec::with_capacity(seq.size_hint().unwrap_or(16));
            while let Some(platform) = seq.next_element()? {
                platforms.push(platform);
            }
            Ok(platforms)
        }
    }

    struct Nullable;

    impl<'de> serde::de::Visitor<'de> for Nullable {
        type Value = Vec<Platform>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("option")
        }

        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(Platforms)
        }
    }

    d.deserialize_option(Nullable)
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
    #[serde(default, deserialize_with = "platforms")]
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

/// One GPG key that may have signed a provider's checksums; its JSON
/// document is `{"key_id", "ascii_armor", "trust_signature", "source",
/// "source_url"}`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
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

/// One platform's package as OpenTofu's registry describes it in the
/// package answer's `packages` member (OpenTofu RFC
/// `20251027-provider-registry-hashes`; docs/behaviour.md, API-13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatformPackage {
    /// The platform, from the member's key (`linux_amd64`).
    pub platform: Platform,
    /// Its lock file hashes, `zh:…` and `h1:…` (any `scheme:value`).
    pub hashes: Vec<String>,
    /// The archive's size in bytes (`package_size`; 0 when absent).
    pub package_size: i64,
}

/// OpenTofu's `map[string]struct{Hashes []string; PackageSize int64}`:
/// `null` reads as empty, a duplicate key as its last value.
#[derive(Deserialize)]
struct RawPlatformPackage {
    #[serde(default, deserialize_with = "super::nullable")]
    hashes: Vec<String>,
    #[serde(default, deserialize_with = "super::nullable")]
    package_size: i64,
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
    /// OpenTofu's `packages`: every platform's hashes and size, sorted by
    /// platform; `None` when the answer has none (or `null`), and always in
    /// the Terraform dialect, which does not read it (API-13).
    pub packages: Option<Vec<PlatformPackage>>,
}

/// The goal of a provider versions request
/// (`GET <providers.v1>/<namespace>/<type>/versions`).
#[derive(Clone, Debug)]
pub struct ProviderVersionsRequest {
    source: ProviderSource,
    dialect: Dialect,
}

impl Transfer<ProviderVersionsRequest> {
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
    ) -> Result<Transfer<ProviderVersionsRequest>, StartError> {
        let url = source
            .require_qualified()
            .and_then(|()| {
                endpoint(
                    services,
                    SERVICE,
                    false,
                    &[source.namespace(), source.type_name(), "versions"],
                )
            })
            .map_err(StartError::new)?;
        let goal = ProviderVersionsRequest {
            source: source.clone(),
            dialect: config.dialect(),
        };
        Transfer::get(goal, url, config, credentials, now)
    }
}

impl Goal for ProviderVersionsRequest {
    type Output = ProviderVersions;
    registry_goal!("provider versions", ProviderVersions, source);

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<ProviderVersions> {
        read_ok(url, status, || {
            format!(
                "provider registry {} does not have a provider named {}",
                self.source.host().display(),
                self.source
            )
        })
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<ProviderVersions, Error> {
        #[derive(Deserialize)]
        struct Document {
            versions: Vec<ProviderVersion>,
            #[serde(default, deserialize_with = "super::nullable")]
            warnings: Vec<String>,
        }
        let Document {
            mut versions,
            warnings,
        } = super::parse_json(url, &body, super::Extent::First)?;
        let parses = |v: &str| Version::parse(v, self.dialect).is_ok();
        match self.dialect {
            // Terraform skips what does not parse; OpenTofu refuses it.
            Dialect::Terraform => versions.retain(|v| parses(&v.version)),
            Dialect::OpenTofu => {
                if let Some(bad) = versions.iter().find(|v| !parses(&v.version)) {
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
}

/// The goal of a provider package request
/// (`GET <providers.v1>/<namespace>/<type>/<version>/download/<os>/<arch>`).
#[derive(Clone, Debug)]
pub struct ProviderPackageRequest {
    source: ProviderSource,
    version: String,
    platform: Platform,
    dialect: Dialect,
}

impl Transfer<ProviderPackageRequest> {
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
    ) -> Result<Transfer<ProviderPackageRequest>, StartError> {
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
            })
            .map_err(StartError::new)?;
        let goal = ProviderPackageRequest {
            source: source.clone(),
            version: version.to_owned(),
            platform: platform.clone(),
            dialect: config.dialect(),
        };
        Transfer::get(goal, url, config, credentials, now)
    }
}

impl Goal for ProviderPackageRequest {
    type Output = ProviderPackage;
    registry_goal!("provider package", ProviderPackage, source);

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<ProviderPackage> {
        read_ok(url, status, || {
            format!(
                "provider {} {} is not available for {}",
                self.source, self.version, self.platform
            )
        })
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<ProviderPackage, Error> {
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
            /// Read only by OpenTofu (API-13): Terraform ignores it whole.
            #[serde(default)]
            packages: Option<Box<serde_json::value::RawValue>>,
        }
        #[derive(Deserialize, Default)]
        struct SigningKeys {
            #[serde(default, deserialize_with = "super::nullable")]
            gpg_public_keys: Vec<SigningKey>,
        }
        let doc: Document = super::parse_json(url, &body, super::Extent::First)?;
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
        let packages = match (self.dialect, doc.packages) {
            (Dialect::OpenTofu, Some(raw)) => {
                let packages: Option<std::collections::BTreeMap<String, RawPlatformPackage>> =
                    serde_json::from_str(raw.get()).map_err(|e| Error::InvalidJson {
                        url: url.clone().into(),
                        message: format!("packages: {e}"),
                    })?;
                packages
                    .map(|p| opentofu_packages(p, invalid))
                    .transpose()?
            }
            _ => None,
        };
        Ok(ProviderPackage {
            packages,
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
}

/// OpenTofu's reading of `packages` (docs/behaviour.md, API-13): each key is
/// `OS_ARCH`, two words around one underscore, without white space; each
/// hash has a scheme of at least one character before a colon (API-13).
fn opentofu_packages(
    raw: std::collections::BTreeMap<String, RawPlatformPackage>,
    invalid: impl Fn(String) -> Error,
) -> Result<Vec<PlatformPackage>, Error> {
    let space = |word: &str| word.contains([' ', '\t', '\n', '\r']);
    let mut packages = Vec::with_capacity(raw.len());
    for (
        key,
        RawPlatformPackage {
            hashes,
            package_size,
        },
    ) in raw
    {
        let platform = match key.split('_').collect::<Vec<_>>()[..] {
            [os, _] if space(os) => Err("OS portion must not contain whitespace"),
            [_, arch] if space(arch) => Err("architecture portion must not contain whitespace"),
            [os, arch] => Ok(Platform::new(os, arch)),
            _ => Err("must be two words separated by an underscore"),
        }
        .map_err(|problem| {
            invalid(format!(
                "registry response includes invalid package platform {}: {problem}",
                crate::go_quote(&key)
            ))
        })?;
        if let Some(bad) = hashes.iter().find(|h| h.find(':').is_none_or(|at| at < 1)) {
            return Err(invalid(format!(
                "registry response includes invalid package hash {}: hash string must start \
                 with a scheme keyword followed by a colon",
                crate::go_quote(bad)
            )));
        }
        packages.push(PlatformPackage {
            platform,
            hashes,
            package_size,
        });
    }
    packages.sort_by_key(|p| p.platform.to_string());
    Ok(packages)
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

    /// A provider source given as an argument: `given` parsed in `dialect`
    /// ([`ProviderSource::parse`]) and with a namespace
    /// ([`ProviderSource::validate`]), as every command and language call
    /// that takes a provider reads it (API-8). A failure is
    /// [`Error::InvalidSource`] naming what was given.
    ///
    /// ```
    /// use tfdisco_core::{Dialect, ErrorKind, ProviderSource};
    ///
    /// let aws = ProviderSource::parse_argument("hashicorp/aws", Dialect::Terraform)?;
    /// assert_eq!(aws.to_string(), "registry.terraform.io/hashicorp/aws");
    /// let bare = ProviderSource::parse_argument("aws", Dialect::Terraform).unwrap_err();
    /// assert_eq!(bare.kind(), ErrorKind::InvalidSource);
    /// assert!(bare.to_string().starts_with(r#"invalid source address "aws""#));
    /// # Ok::<(), tfdisco_core::Error>(())
    /// ```
    pub fn parse_argument(given: &str, dialect: Dialect) -> Result<ProviderSource, Error> {
        ProviderSource::parse(given, dialect)
            .and_then(|source| source.validate().map(|()| source))
            .map_err(|error| Error::InvalidSource {
                input: given.to_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes as they were derived before platforms shared their words:
    /// the reading must not have changed (API-9).
    mod old {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        pub(super) struct Platform {
            pub(super) os: String,
            pub(super) arch: String,
        }

        #[derive(Debug, PartialEq, serde::Deserialize)]
        pub(super) struct ProviderVersion {
            pub(super) version: String,
            #[serde(default, deserialize_with = "crate::registry_api::nullable")]
            pub(super) platforms: Vec<Platform>,
        }
    }

    #[test]
    fn platforms_read_as_the_derived_shape_did() {
        for json in [
            r#"{"version": "1.0.0", "platforms": [{"os": "linux", "arch": "amd64"}]}"#,
            r#"{"version": "1.0.0", "platforms": [{"arch": "arm64", "os": "darwin", "x": [1]}]}"#,
            r#"{"version": "1.0.0", "platforms": [{"os": "plan9", "arch": "m\u0069ps"}]}"#,
            r#"{"version": "1.0.0", "platforms": [["linux", "386"]]}"#,
            r#"{"version": "1.0.0", "platforms": null}"#,
            r#"{"version": "1.0.0"}"#,
            r#"{"version": "1.0.0", "platforms": []}"#,
            r#"{"version": "1.0.0", "platforms": "linux_amd64"}"#,
            r#"{"version": "1.0.0", "platforms": {"os": "linux"}}"#,
            r#"{"version": "1.0.0", "platforms": [{"os": "linux"}]}"#,
            r#"{"version": "1.0.0", "platforms": [{"os": "linux", "arch": 1}]}"#,
            r#"{"version": "1.0.0", "platforms": [{"os": "a", "os": "b", "arch": "c"}]}"#,
            r#"{"version": "1.0.0", "platforms": [null]}"#,
        ] {
            let new = serde_json::from_str::<ProviderVersion>(json).map(|v| {
                let words = |p: &Platform| (p.os.to_string(), p.arch.to_string());
                (v.version, v.platforms.iter().map(words).collect::<Vec<_>>())
            });
            let old = serde_json::from_str::<old::ProviderVersion>(json).map(|v| {
                let words = |p: &old::Platform| (p.os.clone(), p.arch.clone());
                (v.version, v.platforms.iter().map(words).collect::<Vec<_>>())
            });
            match (new, old) {
                (Ok(new), Ok(old)) => assert_eq!(new, old, "{json}"),
                (Err(new), Err(old)) => assert_eq!(new.to_string(), old.to_string(), "{json}"),
                (new, old) => panic!("{json}: {new:?} against {old:?}"),
            }
        }
    }

    #[test]
    fn known_words_are_shared_and_others_owned() {
        let p = Platform::parse("linux_amd64").expect("valid");
        assert!(matches!(
            (&p.os, &p.arch),
            (Cow::Borrowed(_), Cow::Borrowed(_))
        ));
        assert_eq!(p, Platform::new("linux", "amd64"));
        let p = Platform::parse("plan9_amd64").expect("valid");
        assert!(matches!(p.os, Cow::Owned(_)));
        assert_eq!(p.to_string(), "plan9_amd64");
    }
}
