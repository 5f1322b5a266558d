//! A loopback OAuth server for `terraform login` and `tfdisco login`, on a
//! [`TestServer`] (so trusted by [`pki`](crate::pki)`().ca_pem()`):
//!
//! - `/authz`: checks `response_type=code`, `client_id`, `redirect_uri`
//!   (`http://localhost:PORT/login`), `code_challenge_method=S256`, a
//!   `code_challenge`, `state`, `scope` when scopes are configured and the
//!   configured authz URL's own query; records the request
//!   ([`AuthzRequest`]) and redirects to `redirect_uri` with a fresh
//!   `code` and the `state` (or what [`AuthzAnswer`] says);
//! - `/token`: records the form and the `Authorization` header exactly as
//!   sent ([`TokenRequest`]); checks the client (the `Basic` user or
//!   `client_id`), and for `authorization_code` that the code was issued,
//!   `S256(code_verifier)` is the code's challenge and `redirect_uri` is
//!   the code's; for `password` the user name and password; answers a
//!   token (or what [`TokenAnswer`] says), a 400 `invalid_grant` naming
//!   what was wrong otherwise;
//! - `tfe.v2`: `/api/v2/ping` (204) and `/api/v2/account/details`
//!   (JSON:API, 401 for a token that is not [`OAuthSettings::tfe_token`]);
//! - `providers.v1`: `GET /v1/providers/NS/NAME/versions` (no versions),
//!   recording the `Authorization` header ([`ServiceRequest`]);
//! - `/.well-known/terraform.json`: the [services](OAuthServer::services).
//!
//! Terraform can log in to the server as `localhost:PORT` (discovery
//! there), or to a name with no port through a CLI configuration's
//! [`host` block](OAuthServer::host_block) (no discovery request; what the
//! goldens of [`login_goldens`](crate::login_goldens) do).
//!
//! The endpoints read the request from the test server's record (its
//! route functions see the path alone): the latest request for the path.
//! Requests to one endpoint are expected one at a time, as a login makes
//! them. Drop the server once its clients are done (an endpoint holds the
//! test server while it answers).
//!
//! ```no_run
//! use tfdisco_testkit::oauth_server::{OAuthServer, OAuthSettings};
//!
//! let server = OAuthServer::start(OAuthSettings::default());
//! let config = server.host_block("login.example.com");
//! // … `terraform login login.example.com` with `config` in TF_CLI_CONFIG_FILE …
//! for request in server.token_requests() {
//!     println!("{:?} {:?}", request.authorization.is_some(), request.problems);
//! }
//! ```

mod endpoints;
mod records;
mod settings;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use crate::{Reply, Seen, TestServer};

pub use endpoints::s256_challenge;
pub use records::{AuthzRequest, ServiceRequest, TokenRequest};
pub use settings::{AuthzAnswer, HTTP_SERVER, OAuthSettings, SERVER, TokenAnswer};

use endpoints::Book;

/// The authorization endpoint's path.
pub const AUTHZ_PATH: &str = "/authz";

/// The token endpoint's path.
pub const TOKEN_PATH: &str = "/token";

/// The `tfe.v2` base path.
pub const TFE_PATH: &str = "/api/v2/";

/// The `providers.v1` base path.
pub const PROVIDERS_PATH: &str = "/v1/providers/";

/// A loopback OAuth server (see the [module](self)). It stops when
/// dropped.
pub struct OAuthServer {
    server: Arc<TestServer>,
    book: Arc<Mutex<Book>>,
    settings: Arc<OAuthSettings>,
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The latest request the server saw for `path`.
fn latest(server: &Weak<TestServer>, path: &str) -> Option<Seen> {
    server
        .upgrade()?
        .requests()
        .into_iter()
        .rev()
        .find(|seen| seen.path == path)
}

impl OAuthServer {
    /// Starts a server answering as `settings` say.
    pub fn start(settings: OAuthSettings) -> OAuthServer {
        let server = Arc::new(TestServer::start());
        let book = Arc::new(Mutex::new(Book::default()));
        let settings = Arc::new(settings);
        let oauth = OAuthServer {
            server: server.clone(),
            book,
            settings,
        };
        oauth.serve(&Arc::downgrade(&server));
        oauth.server.route(
            "/.well-known/terraform.json",
            Reply::json(&oauth.services().to_string()),
        );
        oauth
    }

    fn serve(&self, weak: &Weak<TestServer>) {
        type Endpoint = fn(&mut Book, &Seen, &OAuthSettings) -> Option<Reply>;
        let endpoints: [(&str, bool, Endpoint); 4] = [
            (AUTHZ_PATH, true, |b, s, o| Some(b.authorize(s, o))),
            (TOKEN_PATH, true, |b, s, o| Some(b.token(s, o))),
            (TFE_PATH, false, |b, s, o| b.tfe(s, o)),
            (PROVIDERS_PATH, false, |b, s, _| b.registry(s)),
        ];
        for (prefix, exact, endpoint) in endpoints {
            let (weak, book, settings) = (weak.clone(), self.book.clone(), self.settings.clone());
            self.server.route_with(prefix, move |path| {
                if exact && path != prefix {
                    return None;
                }
                let seen = latest(&weak, path)?;
                endpoint(&mut lock(&book), &seen, &settings)
            });
        }
    }

    /// The test server underneath (its ports, every request it saw).
    pub fn server(&self) -> &TestServer {
        &self.server
    }

    /// The settings it answers by.
    pub fn settings(&self) -> &OAuthSettings {
        &self.settings
    }

    /// The main HTTPS port.
    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// `localhost:PORT`.
    pub fn authority(&self) -> String {
        format!("localhost:{}", self.server.port())
    }

    /// `https://localhost:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    fn fill(&self, template: &str) -> String {
        template.replace(SERVER, &self.authority()).replace(
            HTTP_SERVER,
            &format!("localhost:{}", self.server.http_port()),
        )
    }

    /// The services it offers, as `/.well-known/terraform.json` has them:
    /// `login.v1` (`client`, `grant_types`, `authz`, `token`, `ports`,
    /// `scopes` as configured), `tfe.v2`, `providers.v1`, each when
    /// configured; URLs absolute (`https://localhost:PORT/…`).
    pub fn services(&self) -> serde_json::Value {
        let s = &self.settings;
        let mut services = serde_json::Map::new();
        if s.login {
            let mut login = serde_json::Map::new();
            login.insert("client".into(), s.client_id.clone().into());
            if let Some(grants) = &s.grant_types {
                login.insert("grant_types".into(), grants.clone().into());
            }
            login.insert("authz".into(), self.fill(&s.authz).into());
            login.insert("token".into(), self.fill(&s.token).into());
            if let Some((low, high)) = s.ports {
                login.insert("ports".into(), vec![low, high].into());
            }
            if !s.scopes.is_empty() {
                login.insert("scopes".into(), s.scopes.clone().into());
            }
            services.insert("login.v1".into(), login.into());
        }
        if s.tfe {
            services.insert("tfe.v2".into(), self.url(TFE_PATH).into());
        }
        if s.providers {
            services.insert("providers.v1".into(), self.url(PROVIDERS_PATH).into());
        }
        services.into()
    }

    /// A CLI configuration `host "NAME" { services = { … } }` block giving
    /// `name` [`OAuthServer::services`] (Terraform then asks no discovery
    /// document), ending in a newline.
    pub fn host_block(&self, name: &str) -> String {
        let mut text = format!("host {} {{\n  services = ", quoted(name));
        hcl_value(&self.services(), 2, &mut text);
        text.push_str("\n}\n");
        text
    }

    /// Every request to `/authz`, oldest first.
    pub fn authz_requests(&self) -> Vec<AuthzRequest> {
        lock(&self.book).authz.clone()
    }

    /// Every request to `/token`, oldest first.
    pub fn token_requests(&self) -> Vec<TokenRequest> {
        lock(&self.book).token.clone()
    }

    /// Every request to `tfe.v2` and `providers.v1`, oldest first.
    pub fn service_requests(&self) -> Vec<ServiceRequest> {
        lock(&self.book).services.clone()
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// `value` in HCL (the CLI configuration's syntax): objects with quoted
/// keys and `=`, lists, strings, numbers.
fn hcl_value(value: &serde_json::Value, indent: usize, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => {
            out.push_str("{\n");
            for (key, value) in map {
                out.push_str(&" ".repeat(indent + 2));
                out.push_str(&quoted(key));
                out.push_str(" = ");
                hcl_value(value, indent + 2, out);
                out.push('\n');
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                hcl_value(item, indent, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
