//! `Services` (the services one host offers) and the OAuth client object of
//! a `login.v1`-style entry.

use napi::Env;
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use tfdisco_core::{OAuthClient, Resolved};

use crate::errors::OrThrow;
use crate::hostname::Hostname;

/// The services one host offers: its discovery document, read under
/// Terraform's rules. Made by `Client.discover`; `lib/services.js` adds
/// `get`, `entries` and the JavaScript protocols.
#[napi]
pub struct Services(pub(crate) tfdisco_core::Services);

#[napi]
impl Services {
    /// The host these services belong to (for an alias, its target).
    #[napi(getter)]
    pub fn hostname(&self) -> Hostname {
        Hostname(self.0.host().clone())
    }

    /// The URL the document came from, after redirects: the base of
    /// relative service URLs.
    #[napi(getter)]
    pub fn discovery_url(&self) -> String {
        self.0.discovery_url().to_string()
    }

    /// The dialect whose rules read service ids: `opentofu` or `terraform`.
    #[napi(getter)]
    pub fn dialect(&self) -> &'static str {
        self.0.dialect().name()
    }

    /// True for services given by a `host` block of the CLI configuration.
    #[napi(getter)]
    pub fn is_forced(&self) -> bool {
        self.0.is_forced()
    }

    /// True when the host had a document (an object, even `{}`); false
    /// after a 404 or a `null` document.
    #[napi(getter)]
    pub fn has_document(&self) -> bool {
        self.0.has_document()
    }

    /// How many entries the document has.
    #[napi(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX)
    }

    /// The service ids, in document order.
    #[napi]
    pub fn ids(&self) -> Vec<&str> {
        self.0.ids().collect()
    }

    /// True when the document lists `id`.
    #[napi]
    pub fn has(&self, id: String) -> bool {
        self.0.get(&id).is_some()
    }

    /// The services as the library's JSON document (what `tfdisco discover
    /// HOST --json` prints): `toJSON` (`lib/classes.js`) parses it.
    #[napi(js_name = "_json")]
    pub fn json(&self) -> napi::Result<String> {
        tfdisco_core::serde_json::to_string(&self.0)
            .map_err(|e| napi::Error::from_reason(e.to_string()))
    }

    /// The JSON text of entry `id`, or undefined (`get` parses it).
    #[napi(js_name = "_raw")]
    pub fn raw(&self, id: String) -> Option<&str> {
        self.0.get(&id).map(|raw| raw.get())
    }

    /// The base URL of service `id` (svchost `ServiceURL`), relative URLs
    /// resolved against `discoveryUrl`.
    #[napi]
    pub fn service_url(&self, env: Env, id: String) -> napi::Result<String> {
        self.0
            .service_url(&id)
            .map(|url| url.to_string())
            .or_throw(&env)
    }

    /// The OAuth client a `login.v1`-style entry describes.
    #[napi]
    pub fn oauth_client(&self, env: Env, id: String) -> napi::Result<OAuthClientObject> {
        self.0
            .oauth_client(&id)
            .map(|c| OAuthClientObject::from(&c))
            .or_throw(&env)
    }

    /// What entry `id` is for a client: an OAuth client for a client
    /// definition, else its base URL.
    #[napi]
    pub fn resolve(&self, env: Env, id: String) -> napi::Result<Either<String, OAuthClientObject>> {
        match self.0.resolve(&id).or_throw(&env)? {
            Resolved::Url(url) => Ok(Either::A(url.to_string())),
            Resolved::OAuthClient(client) => Ok(Either::B(OAuthClientObject::from(&*client))),
        }
    }
}

/// An OAuth client as a `login.v1` service describes it, its endpoints
/// resolved against the discovery URL.
#[napi(object, use_nullable = true)]
pub struct OAuthClientObject {
    /// The client id (`client`).
    pub client_id: String,
    /// The authorization endpoint (`authz`), or null.
    pub authorization_url: Option<String>,
    /// The token endpoint (`token`), or null.
    pub token_url: Option<String>,
    /// The lowest local port for the redirect listener.
    pub min_port: u32,
    /// The highest local port for the redirect listener.
    pub max_port: u32,
    /// The grant types (`authz_code` when the document names none), sorted.
    pub grant_types: Vec<String>,
    /// The scopes to request.
    pub scopes: Vec<String>,
}

impl From<&OAuthClient> for OAuthClientObject {
    fn from(client: &OAuthClient) -> Self {
        OAuthClientObject {
            client_id: client.client_id().to_owned(),
            authorization_url: client.authorization_url().map(ToString::to_string),
            token_url: client.token_url().map(ToString::to_string),
            min_port: u32::from(client.min_port()),
            max_port: u32::from(client.max_port()),
            grant_types: client.grant_types().iter().cloned().collect(),
            scopes: client.scopes().to_vec(),
        }
    }
}
