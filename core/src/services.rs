//! The services a host offers, as its discovery document lists them
//! (docs/behaviour.md, DISCO-9, URL-1 to URL-8, OAUTH-1).

mod bases;
mod document;
mod oauth;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;
use url::Url;

use crate::service_id::ParsedId;
use bases::Bases;
use document::Shallow;

use crate::{Dialect, Error, Hostname};
pub use document::JsonType;

pub use oauth::OAuthClient;

/// What a service id resolves to ([`Services::resolve`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The base URL of the service.
    Url(Url),
    /// The OAuth client a client definition (`login.v1`) describes.
    OAuthClient(Box<OAuthClient>),
}

/// The result of discovery: the services of one host.
///
/// It keeps the final discovery URL (after redirects), which relative service
/// URLs resolve against, and the entries in document order. A host that has
/// no document (404, or a `null` body) has no services. Cloning is cheap.
///
/// ```
/// use tfdisco_core::{Dialect, Hostname, Services};
///
/// let host = Hostname::parse("example.com")?;
/// let url = "https://example.com/.well-known/terraform.json".parse()?;
/// let body = br#"{"modules.v1": "/api/modules/", "providers.v1": "https://cdn.example.net/p/"}"#;
/// let services = Services::from_json(host, url, Dialect::OpenTofu, body)?;
///
/// assert_eq!(services.service_url("modules.v1")?.as_str(), "https://example.com/api/modules/");
/// let err = services.service_url("modules.v2").unwrap_err();
/// assert_eq!(err.to_string(), "host example.com does not support modules version 2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Services(Arc<Inner>);

struct Inner {
    host: Hostname,
    bases: Bases,
    dialect: Dialect,
    forced: bool,
    entries: Option<document::Entries>,
}

impl Services {
    /// Parses a discovery document body fetched from `discovery_url` (the final
    /// URL, after redirects) for `host`.
    ///
    /// The body must be a JSON object, or `null` for "no services". Invalid
    /// UTF-8 inside strings becomes U+FFFD and duplicate keys keep the last
    /// value, as in Go.
    pub fn from_json(
        host: Hostname,
        discovery_url: Url,
        dialect: Dialect,
        body: &[u8],
    ) -> Result<Services, Error> {
        Services::from_body(host, discovery_url, dialect, body.to_vec())
    }

    /// [`Services::from_json`] of a body the services may keep: its bytes
    /// become the document's text without a copy.
    pub(crate) fn from_body(
        host: Hostname,
        discovery_url: Url,
        dialect: Dialect,
        body: Vec<u8>,
    ) -> Result<Services, Error> {
        match document::parse(body) {
            Ok(entries) => Ok(Services::new(host, discovery_url, dialect, false, entries)),
            Err(message) => Err(Error::InvalidJson {
                url: discovery_url.into(),
                message,
            }),
        }
    }

    /// Services given by the caller instead of discovered (a `host` block in
    /// the CLI configuration), in the given order. Relative URLs resolve
    /// against `https://<host>/.well-known/terraform.json`.
    pub fn forced(
        host: Hostname,
        dialect: Dialect,
        services: impl IntoIterator<Item = (String, Value)>,
    ) -> Result<Services, Error> {
        let url = crate::discovery::discovery_url(&host, "https")?;
        let entries = document::Entries::from_pairs(services)
            .map_err(|message| Error::InvalidArgument { message })?;
        Ok(Services::new(host, url, dialect, true, Some(entries)))
    }

    /// A host that has no discovery document (it answered 404).
    pub fn none(host: Hostname, discovery_url: Url, dialect: Dialect) -> Services {
        Services::new(host, discovery_url, dialect, false, None)
    }

    fn new(
        host: Hostname,
        discovery_url: Url,
        dialect: Dialect,
        forced: bool,
        entries: Option<document::Entries>,
    ) -> Services {
        Services(Arc::new(Inner {
            host,
            bases: Bases::new(discovery_url),
            dialect,
            forced,
            entries,
        }))
    }

    /// The same services read under the rules of another dialect (service id
    /// syntax), to see what a Terraform or an OpenTofu client would make of
    /// one document.
    pub fn with_dialect(&self, dialect: Dialect) -> Services {
        Services(Arc::new(Inner {
            host: self.0.host.clone(),
            bases: self.0.bases.clone(),
            dialect,
            forced: self.0.forced,
            entries: self.0.entries.clone(),
        }))
    }

    /// The host these services belong to (for an alias, the alias's target).
    pub fn host(&self) -> &Hostname {
        &self.0.host
    }

    /// The URL the document came from, after redirects: the base of relative
    /// service URLs.
    pub fn discovery_url(&self) -> &Url {
        self.0.bases.discovery_url()
    }

    /// The dialect used to read service ids.
    pub fn dialect(&self) -> Dialect {
        self.0.dialect
    }

    /// True for services given by the caller rather than discovered.
    pub fn is_forced(&self) -> bool {
        self.0.forced
    }

    /// True when the host had a document (an object, even `{}`); false after
    /// a 404 or a `null` document.
    pub fn has_document(&self) -> bool {
        self.0.entries.is_some()
    }

    /// The number of services listed.
    pub fn len(&self) -> usize {
        self.0.entries.as_ref().map_or(0, document::Entries::len)
    }

    /// True when no service is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of a service id, whatever its type, as the JSON text of the
    /// document: deserialize it into the type you expect.
    ///
    /// ```
    /// use tfdisco_core::{Dialect, Hostname, Services};
    ///
    /// let host = Hostname::parse("example.com")?;
    /// let url = "https://example.com/.well-known/terraform.json".parse()?;
    /// let body = br#"{"motd.v1": "/motd/", "custom.v1": {"flags": [1, 2]}}"#;
    /// let services = Services::from_json(host, url, Dialect::OpenTofu, body)?;
    /// let custom = services.get("custom.v1").expect("listed");
    /// assert_eq!(custom.get(), r#"{"flags": [1, 2]}"#);
    /// let value: serde_json::Value = serde_json::from_str(custom.get())?;
    /// assert_eq!(value["flags"][1], 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Values are kept as text, never as trees, so a document nested as deep
    /// as Go accepts is read, cloned and dropped without deep recursion.
    pub fn get(&self, id: &str) -> Option<&RawValue> {
        self.0.entries.as_ref()?.get(id)
    }

    /// Every `(id, value)` pair in document order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.0.entries.iter().flat_map(document::Entries::iter)
    }

    /// Every service id in document order: [`Services::iter`] without the
    /// values.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.texts().map(|(id, _)| id)
    }

    /// The value of `id` as the document's JSON text.
    fn text(&self, id: &str) -> Option<&str> {
        self.0.entries.as_ref()?.text(id)
    }

    /// Every id and its value's JSON text, in document order.
    fn texts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.entries.iter().flat_map(document::Entries::texts)
    }

    /// The base URL of a service (svchost `ServiceURL`).
    ///
    /// Relative URLs resolve against [`Services::discovery_url`]; only http
    /// and https are accepted, userinfo is refused and a fragment dropped.
    /// A host that lists the service only in other versions gives
    /// [`Error::VersionNotSupported`]; one that does not list it at all,
    /// [`Error::ServiceNotProvided`].
    pub fn service_url(&self, id: &str) -> Result<Url, Error> {
        self.url_of(id, self.text(id))
    }

    /// [`Services::service_url`] of `id`, whose value is `text`.
    fn url_of(&self, id: &str, text: Option<&str>) -> Result<Url, Error> {
        let parsed = ParsedId::parse(id, self.0.dialect)?;
        match text.and_then(document::string) {
            Some(raw) => self
                .0
                .bases
                .resolve(&raw)
                .map_err(|problem| Error::InvalidServiceUrl {
                    host: self.display_host(),
                    id: id.to_owned(),
                    problem,
                }),
            None => Err(self.not_provided(&parsed)),
        }
    }

    /// What service `id` is: an OAuth client for a client definition (an
    /// object, as `login.v1` has), a base URL for anything else. This is the
    /// one place that decides which of [`Services::oauth_client`] and
    /// [`Services::service_url`] applies to an entry.
    ///
    /// ```
    /// use tfdisco_core::{Dialect, Hostname, Resolved, Services};
    ///
    /// let host = Hostname::parse("example.com")?;
    /// let url = "https://example.com/.well-known/terraform.json".parse()?;
    /// let body = br#"{"modules.v1": "/m/", "login.v1": {"client": "cli", "authz": "/a", "token": "/t"}}"#;
    /// let services = Services::from_json(host, url, Dialect::OpenTofu, body)?;
    /// assert!(matches!(services.resolve("modules.v1")?, Resolved::Url(_)));
    /// assert!(matches!(services.resolve("login.v1")?, Resolved::OAuthClient(_)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolve(&self, id: &str) -> Result<Resolved, Error> {
        self.resolve_text(id, self.text(id))
    }

    /// Every service resolved as [`Services::resolve`] resolves it, in
    /// document order: one pass over the entries, without looking each id
    /// up again.
    ///
    /// ```
    /// use tfdisco_core::{Dialect, Hostname, Resolved, Services};
    ///
    /// let host = Hostname::parse("example.com")?;
    /// let url = "https://example.com/.well-known/terraform.json".parse()?;
    /// let body = br#"{"modules.v1": "/m/", "bad.v1": "ftp://example.com/"}"#;
    /// let services = Services::from_json(host, url, Dialect::OpenTofu, body)?;
    /// for (id, resolved) in services.resolved() {
    ///     match resolved {
    ///         Ok(Resolved::Url(url)) => println!("{id}: {url}"),
    ///         Ok(Resolved::OAuthClient(client)) => println!("{id}: {}", client.client_id()),
    ///         Err(e) => println!("{id}: {e}"),
    ///     }
    /// }
    /// assert_eq!(services.resolved().filter(|(_, r)| r.is_ok()).count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolved(&self) -> impl Iterator<Item = (&str, Result<Resolved, Error>)> {
        self.texts()
            .map(|(id, text)| (id, self.resolve_text(id, Some(text))))
    }

    /// [`Services::resolve`] of `id`, whose value is `text`.
    fn resolve_text(&self, id: &str, text: Option<&str>) -> Result<Resolved, Error> {
        let client_definition = match text.map(|t| (t, JsonType::of_text(t))) {
            Some((_, JsonType::Object)) => true,
            // The legacy HCL shape of a `host` block: a list of objects.
            Some((value, JsonType::Array)) if self.0.forced => match Shallow::read(value) {
                Shallow::Array(items) => items
                    .first()
                    .is_some_and(|first| JsonType::of(first) == JsonType::Object),
                _ => false,
            },
            _ => false,
        };
        if client_definition {
            self.oauth_client_of(id, text)
                .map(|c| Resolved::OAuthClient(Box::new(c)))
        } else {
            self.url_of(id, text).map(Resolved::Url)
        }
    }

    /// The OAuth client a `login.v1`-style service describes (svchost
    /// `ServiceOAuthClient`), with every default and check of the Go version.
    pub fn oauth_client(&self, id: &str) -> Result<OAuthClient, Error> {
        self.oauth_client_of(id, self.text(id))
    }

    /// [`Services::oauth_client`] of `id`, whose value is `text`.
    fn oauth_client_of(&self, id: &str, text: Option<&str>) -> Result<OAuthClient, Error> {
        let parsed = ParsedId::parse(id, self.0.dialect)?;
        let value = text.ok_or_else(|| self.not_provided(&parsed))?;
        oauth::read_text(id, value, &self.0.bases, self.0.forced).map_err(|problem| {
            Error::InvalidOAuthClient {
                host: self.display_host(),
                id: id.to_owned(),
                problem,
            }
        })
    }

    /// The error for an id without a usable string entry: another version of
    /// the same service listed means the version is not supported.
    fn not_provided(&self, id: &ParsedId<'_>) -> Error {
        let host = self.display_host();
        let other_version = self.ids().any(|key| {
            key.len() > id.name.len()
                && key.starts_with(id.name)
                && key.as_bytes()[id.name.len()] == b'.'
        });
        if other_version {
            Error::VersionNotSupported {
                host,
                service: id.name.to_owned(),
                version: id.version.to_string(),
            }
        } else {
            Error::ServiceNotProvided {
                host,
                service: id.name.to_owned(),
            }
        }
    }

    fn display_host(&self) -> String {
        self.0.host.display().into_owned()
    }
}

impl fmt::Debug for Services {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Services")
            .field("host", &self.0.host)
            .field("discovery_url", &self.discovery_url().as_str())
            .field("services", &DebugEntries(self))
            .finish()
    }
}

struct DebugEntries<'a>(&'a Services);

impl fmt::Debug for DebugEntries<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.has_document() {
            return f.write_str("None");
        }
        f.debug_map().entries(self.0.iter()).finish()
    }
}
