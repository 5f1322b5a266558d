//! The registry calls' answers as plain objects: the shapes of the CLI's
//! `tfdisco provider … --json` / `tfdisco module … --json` output
//! (cli/src/registry.rs), with camelCase keys.

use napi_derive::napi;
use tfdisco_core::{
    ModuleLocation, ModulePackage, ModuleVersions, ProviderPackage, ProviderVersions, SigningKey,
};

/// `{ os, arch }`.
#[napi(object)]
pub struct PlatformObject {
    /// The operating system (`linux`).
    pub os: String,
    /// The architecture (`amd64`).
    pub arch: String,
}

/// One version of `ProviderVersionsObject.versions`.
#[napi(object)]
pub struct ProviderVersionObject {
    /// The version (`5.31.0`).
    pub version: String,
    /// The plugin protocols it speaks (`["5.0"]`).
    pub protocols: Vec<String>,
    /// The platforms it is built for.
    pub platforms: Vec<PlatformObject>,
}

/// `client.providerVersions(source)`.
#[napi(object)]
pub struct ProviderVersionsObject {
    /// The provider's full address.
    pub source: String,
    /// The URL the versions were read from, after redirects.
    pub versions_url: String,
    /// The versions, in the registry's order.
    pub versions: Vec<ProviderVersionObject>,
    /// Warnings the registry gave with them (the CLI prints them on stderr).
    pub warnings: Vec<String>,
}

impl From<ProviderVersions> for ProviderVersionsObject {
    fn from(answer: ProviderVersions) -> Self {
        ProviderVersionsObject {
            source: answer.source.to_string(),
            versions_url: answer.url.to_string(),
            versions: answer
                .versions
                .into_iter()
                .map(|v| ProviderVersionObject {
                    version: v.version,
                    protocols: v.protocols,
                    platforms: v
                        .platforms
                        .into_iter()
                        .map(|p| PlatformObject {
                            os: p.os.into_owned(),
                            arch: p.arch.into_owned(),
                        })
                        .collect(),
                })
                .collect(),
            warnings: answer.warnings,
        }
    }
}

/// One key of `ProviderPackageObject.signingKeys`.
#[napi(object, use_nullable = true)]
pub struct SigningKeyObject {
    /// The key id; empty when the registry gives none.
    pub key_id: String,
    /// The public key, ASCII-armored.
    pub ascii_armor: String,
    /// A signature by a trusted key over this key; may be empty.
    pub trust_signature: String,
    /// Who the key belongs to; may be empty.
    pub source: String,
    /// Where to read more about the key, or null.
    pub source_url: Option<String>,
}

impl From<SigningKey> for SigningKeyObject {
    fn from(key: SigningKey) -> Self {
        SigningKeyObject {
            key_id: key.key_id,
            ascii_armor: key.ascii_armor,
            trust_signature: key.trust_signature,
            source: key.source,
            source_url: key.source_url,
        }
    }
}

/// `client.providerPackage(source, version, platform)`.
#[napi(object)]
pub struct ProviderPackageObject {
    /// The provider's full address.
    pub source: String,
    /// The version asked about.
    pub version: String,
    /// The operating system asked about.
    pub os: String,
    /// The architecture asked about.
    pub arch: String,
    /// The package's file name.
    pub filename: String,
    /// The package (a zip file).
    pub download_url: String,
    /// The `SHA256SUMS` file.
    pub shasums_url: String,
    /// The detached signature of `SHA256SUMS`.
    pub shasums_signature_url: String,
    /// The package's SHA-256: 64 lower-case hex digits.
    pub shasum: String,
    /// The plugin protocols it speaks.
    pub protocols: Vec<String>,
    /// The keys that may have signed `SHA256SUMS`.
    pub signing_keys: Vec<SigningKeyObject>,
}

impl From<ProviderPackage> for ProviderPackageObject {
    fn from(package: ProviderPackage) -> Self {
        ProviderPackageObject {
            source: package.source.to_string(),
            version: package.version,
            os: package.platform.os.into_owned(),
            arch: package.platform.arch.into_owned(),
            filename: package.filename,
            download_url: package.download_url.to_string(),
            shasums_url: package.shasums_url.to_string(),
            shasums_signature_url: package.shasums_signature_url.to_string(),
            shasum: package.shasum,
            protocols: package.protocols,
            signing_keys: package
                .signing_keys
                .into_iter()
                .map(SigningKeyObject::from)
                .collect(),
        }
    }
}

/// `client.moduleVersions(source)`.
#[napi(object)]
pub struct ModuleVersionsObject {
    /// The module's full address.
    pub source: String,
    /// The URL the versions were read from, after redirects.
    pub versions_url: String,
    /// The versions, in the registry's order.
    pub versions: Vec<String>,
}

impl From<ModuleVersions> for ModuleVersionsObject {
    fn from(answer: ModuleVersions) -> Self {
        ModuleVersionsObject {
            source: answer.source.to_string(),
            versions_url: answer.url.to_string(),
            versions: answer.versions,
        }
    }
}

/// The parts of a go-getter address `init` reads (`package` of
/// `ModuleDownloadObject`).
#[napi(object, use_nullable = true)]
pub struct ModulePackageObject {
    /// The getter (`git`, `http`, `s3`, …).
    pub getter: String,
    /// The package address, without subdirectory.
    pub address: String,
    /// The URL the getter fetches.
    pub url: String,
    /// The subdirectory of the address (`//sub`), or empty.
    pub subdir: String,
    /// The `ref` query argument, or null.
    #[napi(js_name = "ref")]
    pub revision: Option<String>,
    /// The `depth` query argument, or null.
    pub depth: Option<f64>,
    /// True when the address carries an `sshkey`.
    pub sshkey: bool,
    /// The `archive` query argument, or null.
    pub archive: Option<String>,
    /// The `checksum` query argument, or null.
    pub checksum: Option<String>,
}

impl From<&ModulePackage> for ModulePackageObject {
    fn from(package: &ModulePackage) -> Self {
        ModulePackageObject {
            getter: package.getter_name().to_owned(),
            address: package.address().to_owned(),
            url: package.url().to_owned(),
            subdir: package.subdir().to_owned(),
            revision: package.revision().map(str::to_owned),
            depth: package.depth().map(|d| d as f64),
            sshkey: package.has_ssh_key(),
            archive: package.archive().map(str::to_owned),
            checksum: package.checksum().map(str::to_owned),
        }
    }
}

/// `client.moduleDownload(source, version)`.
#[napi(object, use_nullable = true)]
pub struct ModuleDownloadObject {
    /// The module's full address.
    pub source: String,
    /// The version asked about.
    pub version: String,
    /// The location: a go-getter address, or OpenTofu's direct URL.
    pub location: String,
    /// The location as `init` parses it; null for OpenTofu's direct
    /// packages.
    pub package: Option<ModulePackageObject>,
    /// Where in the package the module is.
    pub module_subdir: String,
    /// OpenTofu's direct packages: whether the registry's credentials go
    /// with the download; null for a go-getter address.
    pub use_registry_credentials: Option<bool>,
}

impl From<ModuleLocation> for ModuleDownloadObject {
    fn from(location: ModuleLocation) -> Self {
        ModuleDownloadObject {
            source: location.source.to_string(),
            module_subdir: location.module_subdir(),
            package: location.package.as_ref().map(ModulePackageObject::from),
            version: location.version,
            location: location.location,
            use_registry_credentials: location.use_registry_credentials,
        }
    }
}
