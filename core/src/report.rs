//! The answers as JSON documents: one `serde` serialization of each, which
//! the `tfdisco` CLI prints with `--json` and the Python and Node packages
//! return (`to_json()`, `JSON.stringify`), so the three front ends give the
//! same document for the same call.
//!
//! - [`Services`]: `{"hostname", "display", "discovery_url", "services",
//!   "resolved"}` ([`Services::report`] for some ids only).
//! - [`ProviderVersions`], [`ProviderPackage`], [`ModuleVersions`],
//!   [`ModuleLocation`]: the registry calls' answers.
//! - [`Error`]: `{"kind", "message"}`.
//!
//! [`Platform`] (`{"os", "arch"}`) and [`SigningKey`](crate::SigningKey)
//! derive theirs where they are defined: their documents are their fields.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, SerializeStruct, Serializer};

use crate::{
    Error, ModuleLocation, ModulePackage, ModuleVersions, OAuthClient, Platform, ProviderPackage,
    ProviderVersions, Resolved, Services,
};

/// A discovery's services, restricted to some ids: what `tfdisco discover
/// HOST ID…` reports ([`Services::report`]).
#[derive(Clone, Copy, Debug)]
pub struct ServicesReport<'a> {
    services: &'a Services,
    ids: Option<&'a [String]>,
}

impl Services {
    /// The report of the services `ids` (every id, in document order, when
    /// `ids` is empty): `{"hostname", "display", "discovery_url",
    /// "services", "resolved"}`, where `services` holds the document's
    /// values in document order (`null` without a document) and `resolved`
    /// maps each id to its URL, to `{"oauth_client": {…}}` or to `{"error":
    /// {"kind", "message"}}`. A `Services` serializes as its report of every
    /// id.
    ///
    /// ```
    /// use tfdisco_core::serde_json;
    /// use tfdisco_core::{Dialect, Hostname, Services};
    ///
    /// let services = Services::from_json(
    ///     Hostname::parse("example.com")?,
    ///     "https://example.com/.well-known/terraform.json".parse()?,
    ///     Dialect::OpenTofu,
    ///     br#"{"modules.v1": "/m/"}"#,
    /// )?;
    /// let json = serde_json::to_value(services.report(&[]))?;
    /// assert_eq!(json["resolved"]["modules.v1"], "https://example.com/m/");
    /// assert_eq!(json, serde_json::to_value(&services)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn report<'a>(&'a self, ids: &'a [String]) -> ServicesReport<'a> {
        ServicesReport {
            services: self,
            ids: Some(ids).filter(|ids| !ids.is_empty()),
        }
    }
}

impl<'a> ServicesReport<'a> {
    /// The services reported on.
    pub fn services(&self) -> &'a Services {
        self.services
    }

    /// The ids reported: those asked for, else every id in document order.
    pub fn ids(&self) -> Vec<&'a str> {
        match self.ids {
            Some(ids) => ids.iter().map(String::as_str).collect(),
            None => self.services.ids().collect(),
        }
    }

    /// Whether some ids were asked for (rather than every one).
    pub fn is_restricted(&self) -> bool {
        self.ids.is_some()
    }
}

impl Serialize for Services {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.report(&[]).serialize(serializer)
    }
}

impl Serialize for ServicesReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.services;
        let mut map = serializer.serialize_struct("Services", 5)?;
        map.serialize_field("hostname", s.host().as_str())?;
        map.serialize_field("display", &s.host().display())?;
        map.serialize_field("discovery_url", s.discovery_url().as_str())?;
        map.serialize_field("services", &InOrder(s))?;
        map.serialize_field("resolved", &ResolvedMap(self))?;
        map.end()
    }
}

/// The document's entries in document order (`null` when it had none).
struct InOrder<'a>(&'a Services);

impl Serialize for InOrder<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.has_document() {
            return serializer.serialize_none();
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (id, value) in self.0.iter() {
            map.serialize_entry(id, value)?;
        }
        map.end()
    }
}

struct ResolvedMap<'a, 'b>(&'a ServicesReport<'b>);

impl Serialize for ResolvedMap<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ids = self.0.ids();
        let mut map = serializer.serialize_map(Some(ids.len()))?;
        for id in ids {
            match self.0.services.resolve(id) {
                Ok(Resolved::Url(url)) => map.serialize_entry(id, url.as_str())?,
                Ok(Resolved::OAuthClient(client)) => {
                    map.serialize_entry(id, &Tagged("oauth_client", &client))?
                }
                Err(e) => map.serialize_entry(id, &Tagged("error", &e))?,
            }
        }
        map.end()
    }
}

/// `{"<tag>": value}`.
struct Tagged<'a, T>(&'static str, &'a T);

impl<T: Serialize> Serialize for Tagged<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, self.1)?;
        map.end()
    }
}

/// `{"client", "authz", "token", "ports": [min, max], "grant_types",
/// "scopes"}`.
impl Serialize for OAuthClient {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("OAuthClient", 6)?;
        map.serialize_field("client", self.client_id())?;
        map.serialize_field("authz", &self.authorization_url().map(|u| u.as_str()))?;
        map.serialize_field("token", &self.token_url().map(|u| u.as_str()))?;
        map.serialize_field("ports", &[self.min_port(), self.max_port()])?;
        map.serialize_field("grant_types", self.grant_types())?;
        map.serialize_field("scopes", self.scopes())?;
        map.end()
    }
}

/// `{"kind", "message"}`: [`Error::kind`] and the message.
impl Serialize for Error {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("Error", 2)?;
        map.serialize_field("kind", self.kind().as_str())?;
        map.serialize_field("message", &self.to_string())?;
        map.end()
    }
}

/// `{"source", "versions_url", "versions": [{"version", "protocols",
/// "platforms": [{"os", "arch"}]}], "warnings"}`.
impl Serialize for ProviderVersions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Versions<'a>(&'a ProviderVersions);
        impl Serialize for Versions<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.versions.len()))?;
                for v in &self.0.versions {
                    seq.serialize_element(&VersionEntry {
                        version: &v.version,
                        protocols: &v.protocols,
                        platforms: &v.platforms,
                    })?;
                }
                seq.end()
            }
        }
        #[derive(Serialize)]
        struct VersionEntry<'a> {
            version: &'a str,
            protocols: &'a [String],
            platforms: &'a [Platform],
        }
        let mut map = serializer.serialize_struct("ProviderVersions", 4)?;
        map.serialize_field("source", &self.source.to_string())?;
        map.serialize_field("versions_url", self.url.as_str())?;
        map.serialize_field("versions", &Versions(self))?;
        map.serialize_field("warnings", &self.warnings)?;
        map.end()
    }
}

/// `{"source", "version", "os", "arch", "filename", "download_url",
/// "shasums_url", "shasums_signature_url", "shasum", "protocols",
/// "signing_keys"}`.
impl Serialize for ProviderPackage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ProviderPackage", 11)?;
        map.serialize_field("source", &self.source.to_string())?;
        map.serialize_field("version", &self.version)?;
        map.serialize_field("os", &self.platform.os)?;
        map.serialize_field("arch", &self.platform.arch)?;
        map.serialize_field("filename", &self.filename)?;
        map.serialize_field("download_url", self.download_url.as_str())?;
        map.serialize_field("shasums_url", self.shasums_url.as_str())?;
        map.serialize_field("shasums_signature_url", self.shasums_signature_url.as_str())?;
        map.serialize_field("shasum", &self.shasum)?;
        map.serialize_field("protocols", &self.protocols)?;
        map.serialize_field("signing_keys", &self.signing_keys)?;
        map.end()
    }
}

/// `{"source", "versions_url", "versions"}`.
impl Serialize for ModuleVersions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ModuleVersions", 3)?;
        map.serialize_field("source", &self.source.to_string())?;
        map.serialize_field("versions_url", self.url.as_str())?;
        map.serialize_field("versions", &self.versions)?;
        map.end()
    }
}

/// `{"source", "version", "location", "package", "module_subdir",
/// "use_registry_credentials"}`: `package` is the location as `init`
/// parses it ([`ModulePackage`]), `null` for OpenTofu's direct packages.
impl Serialize for ModuleLocation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ModuleLocation", 6)?;
        map.serialize_field("source", &self.source.to_string())?;
        map.serialize_field("version", &self.version)?;
        map.serialize_field("location", &self.location)?;
        map.serialize_field("package", &self.package)?;
        map.serialize_field("module_subdir", &self.module_subdir())?;
        map.serialize_field("use_registry_credentials", &self.use_registry_credentials)?;
        map.end()
    }
}

/// `{"getter", "address", "url", "subdir", "ref", "depth", "sshkey",
/// "archive", "checksum"}`: the parts of a go-getter address `init` reads
/// (PKG-7, PKG-8). An `sshkey` value is shown as `redacted`
/// ([`crate::without_ssh_key`], D47).
impl Serialize for ModulePackage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ModulePackage", 9)?;
        map.serialize_field("getter", self.getter_name())?;
        map.serialize_field("address", &crate::without_ssh_key(self.address()))?;
        map.serialize_field("url", &crate::without_ssh_key(self.url()))?;
        map.serialize_field("subdir", self.subdir())?;
        map.serialize_field("ref", &self.revision())?;
        map.serialize_field("depth", &self.depth())?;
        map.serialize_field("sshkey", &self.has_ssh_key())?;
        map.serialize_field("archive", &self.archive())?;
        map.serialize_field("checksum", &self.checksum())?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::{Dialect, Hostname};

    use super::*;

    #[test]
    fn a_package_report_shows_no_ssh_key() {
        let package = crate::ModulePackage::parse(
            "git::ssh://git@h/r.git?ref=v1&sshkey=c2VjcmV0",
            Dialect::Terraform,
        )
        .expect("a package");
        let json = serde_json::to_value(&package).expect("JSON");
        assert_eq!(
            json["address"],
            "git::ssh://git@h/r.git?ref=v1&sshkey=redacted"
        );
        assert_eq!(json["url"], "ssh://git@h/r.git?ref=v1&sshkey=redacted");
        assert_eq!(json["sshkey"], true);
        assert!(!json.to_string().contains("c2VjcmV0"));
    }

    fn services() -> Services {
        let body = br#"{"z.v1": "/z/", "login.v1": {"client": "c", "authz": "/a", "token": "/t"}, "bad.v1": "ftp://x/"}"#;
        Services::from_json(
            Hostname::parse("Испытание.com").expect("valid"),
            "https://xn--80akhbyknj4f.com/.well-known/terraform.json"
                .parse()
                .expect("valid"),
            Dialect::OpenTofu,
            body,
        )
        .expect("valid")
    }

    #[test]
    fn services_keep_document_order_and_resolve_each_kind_of_value() {
        let s = services();
        let text = serde_json::to_string(&s).expect("serializes");
        let z = text.find("\"z.v1\"").expect("z");
        let login = text.find("\"login.v1\"").expect("login");
        assert!(z < login, "document order kept: {text}");
        let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(v["hostname"], "xn--80akhbyknj4f.com");
        assert_eq!(v["display"], "испытание.com");
        assert_eq!(v["resolved"]["z.v1"], "https://xn--80akhbyknj4f.com/z/");
        assert_eq!(
            v["resolved"]["login.v1"]["oauth_client"]["authz"],
            "https://xn--80akhbyknj4f.com/a"
        );
        assert_eq!(
            v["resolved"]["bad.v1"]["error"]["kind"],
            "invalid_service_url"
        );
        assert_eq!(v["services"]["login.v1"]["client"], "c");
    }

    #[test]
    fn a_report_of_some_ids_resolves_only_them() {
        let s = services();
        let ids = ["z.v1".to_owned(), "modules.v1".to_owned()];
        let v = serde_json::to_value(s.report(&ids)).expect("serializes");
        let resolved = v["resolved"].as_object().expect("a map");
        assert_eq!(resolved.len(), 2);
        assert_eq!(
            resolved["modules.v1"]["error"]["kind"],
            "service_not_provided"
        );
        // Every entry of the document stays under `services`.
        assert_eq!(v["services"].as_object().map(|m| m.len()), Some(3));
    }
}
