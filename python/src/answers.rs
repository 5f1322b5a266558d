//! The answers of the four registry calls: `ProviderVersions` (of
//! `ProviderVersion`s), `ProviderPackage` (with `SigningKey`s),
//! `ModuleVersions` and `ModuleLocation`, each a frozen record of the
//! core's type ([`record_class!`]).

use tfdisco_core::{
    ModuleLocation, ModuleVersions, ProviderPackage, ProviderVersion, ProviderVersions, SigningKey,
};

use crate::record::record_class;
use crate::sources::{PyModuleSource, PyPlatform, PyProviderSource};

// --- Provider answers -----------------------------------------------------------

record_class! {
    /// The versions of a provider, as its registry lists them
    /// (`Client.provider_versions`).
    PyProviderVersions(ProviderVersions) as "ProviderVersions", eq {
        /// The provider asked about (a `ProviderSource`).
        source => |v| PyProviderSource(v.source.clone()),
        /// The URL the versions were read from, after redirects.
        url => |v| v.url.as_str(),
        /// The versions (`ProviderVersion`s), in the registry's order (a new
        /// list on each access). Terraform leaves out versions that are not
        /// semantic versions; OpenTofu refuses the answer (`InvalidResponse`).
        versions => |v| v.versions.iter().cloned().map(PyProviderVersion).collect::<Vec<_>>(),
        /// Warnings the registry gives about this provider, for people.
        warnings => |v| v.warnings.clone(),
    }

    /// The answer as one JSON document, the one the `tfdisco` CLI prints
    /// with `--json` and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> pyo3::PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

record_class! {
    /// One version of a provider, as its registry lists it.
    PyProviderVersion(ProviderVersion) as "ProviderVersion", eq {
        /// The version (`3.6.0`).
        version => |v| v.version.as_str(),
        /// The plugin protocol versions it speaks (`["5.0"]`).
        protocols => |v| v.protocols.clone(),
        /// The platforms it has packages for (`Platform`s).
        platforms => |v| v.platforms.iter().cloned().map(PyPlatform).collect::<Vec<_>>(),
    }
}

record_class! {
    /// Where to download one version of a provider for one platform, and how to
    /// check it (`Client.provider_package`). URLs are absolute: relative ones
    /// are resolved against the response's URL.
    PyProviderPackage(ProviderPackage) as "ProviderPackage", eq {
        /// The provider asked about (a `ProviderSource`).
        source => |p| PyProviderSource(p.source.clone()),
        /// The version asked about.
        version => |p| p.version.as_str(),
        /// The platform asked about (the registry's answer must name it).
        platform => |p| PyPlatform(p.platform.clone()),
        /// The package's file name.
        filename => |p| p.filename.as_str(),
        /// The package (a zip file).
        download_url => |p| p.download_url.as_str(),
        /// The `SHA256SUMS` file.
        shasums_url => |p| p.shasums_url.as_str(),
        /// The detached signature of `SHA256SUMS`.
        shasums_signature_url => |p| p.shasums_signature_url.as_str(),
        /// The package's SHA-256: 64 lower-case hex digits.
        shasum => |p| p.shasum.as_str(),
        /// The plugin protocol versions it speaks (`["5.0"]`).
        protocols => |p| p.protocols.clone(),
        /// The GPG keys that may have signed `SHA256SUMS` (`SigningKey`s).
        signing_keys => |p| p.signing_keys.iter().cloned().map(PySigningKey).collect::<Vec<_>>(),
    }

    /// The answer as one JSON document, the one the `tfdisco` CLI prints
    /// with `--json` and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> pyo3::PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

// `repr` leaves the key itself out, which is long: it shows its length.
record_class! {
    /// One GPG key that may have signed a provider's `SHA256SUMS`.
    PySigningKey(SigningKey) as "SigningKey", eq {
        /// The key id (`34365D9472D7468F`); empty when the registry gives none.
        key_id => |k| k.key_id.as_str(),
        /// The public key, ASCII-armored.
        ascii_armor => |k| k.ascii_armor.as_str();
            shown |k| format!("<{} characters>", k.ascii_armor.chars().count()),
        /// A signature by a trusted key over this key (partner providers);
        /// empty when there is none.
        trust_signature => |k| k.trust_signature.as_str(),
        /// Who the key belongs to (`HashiCorp`); may be empty.
        source => |k| k.source.as_str(),
        /// Where to read more about the key, or None.
        source_url => |k| k.source_url.as_deref(),
    }
}

// --- Module answers -------------------------------------------------------------

record_class! {
    /// The versions of a module package, as its registry lists them
    /// (`Client.module_versions`).
    PyModuleVersions(ModuleVersions) as "ModuleVersions", eq {
        /// The module asked about (a `ModuleSource`).
        source => |v| PyModuleSource(v.source.clone()),
        /// The URL the versions were read from, after redirects.
        url => |v| v.url.as_str(),
        /// The versions (str), in the registry's order (a new list on each
        /// access).
        versions => |v| v.versions.clone(),
    }

    /// The answer as one JSON document, the one the `tfdisco` CLI prints
    /// with `--json` and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> pyo3::PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

record_class! {
    /// Where to download one version of a module package from
    /// (`Client.module_download`).
    PyModuleLocation(ModuleLocation) as "ModuleLocation", eq {
        /// The module asked about (a `ModuleSource`; its subdirectory, if any,
        /// applies inside the package).
        source => |l| PyModuleSource(l.source.clone()),
        /// The version asked about.
        version => |l| l.version.as_str(),
        /// The location: a go-getter address (`git::https://…?ref=v1.2.0`,
        /// `https://….zip`, `s3::…`) or, when `use_registry_credentials` is not
        /// None, a plain http(s) URL. A location the registry gave relative to
        /// itself (`/`, `./`, `../`) is already resolved.
        location => |l| l.location.as_str(),
        /// OpenTofu's direct packages: whether the registry's credentials go
        /// with the package download. None for a go-getter address.
        use_registry_credentials => |l| l.use_registry_credentials,
    }

    /// The answer as one JSON document, the one the `tfdisco` CLI prints
    /// with `--json` and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> pyo3::PyResult<String> {
        crate::json::to_json(&self.0)
    }
}
