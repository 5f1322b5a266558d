//! A real OCI registry on loopback, for the tests of OpenTofu's OCI
//! features: provider mirrors (`oci_mirror`), `oci://` module sources, OCI
//! credentials and publishing.
//!
//! [`OciRegistry::start`] runs Debian's `docker-registry` (CNCF
//! distribution 2.8) as a child process on a free port of 127.0.0.1, over
//! HTTPS with the trusted test leaf (clients trust [`crate::pki`]'s
//! [`ca_file`](crate::Pki::ca_file)), storing into a temporary folder,
//! without credentials, with Basic credentials (an `htpasswd` file), or
//! with bearer tokens from a token service the fixture runs itself
//! ([`OciAuth`]). It pushes what a test needs with a client of its own,
//! independent of the library under test ([`OciRegistry::push_provider`],
//! [`OciRegistry::push_module`], [`OciRegistry::push_blob`],
//! [`OciRegistry::push_manifest`]), reads back what the library pushed
//! ([`OciRegistry::manifest`], [`OciRegistry::blob`], [`OciRegistry::tags`]),
//! and stops the registry when dropped. Without `docker-registry` and
//! `htpasswd` it panics, saying what to install: the tests that use it fail
//! rather than skip.
//!
//! ```no_run
//! use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry};
//!
//! let registry = OciRegistry::start(OciAuth::token("alice", "secret"));
//! let zip = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
//! let pushed = registry.push_provider("providers/ns/alpha", "1.0.0", &[("linux", "amd64", &zip)]);
//! // … `oci_mirror { repository_template = "<registry.host()>/providers/${namespace}/${type}" }` …
//! registry.take_token_requests(); // the pushes' own token requests
//! # let _ = pushed;
//! ```

use std::path::Path;

mod access;
mod client;
mod jwt;
pub mod layout;
mod process;
mod push;
mod read;
mod token_service;

pub use layout::{
    EMPTY_CONFIG, EMPTY_MEDIA_TYPE, INDEX_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, MODULE_ARTIFACT_TYPE,
    PROVIDER_ARTIFACT_TYPE, PROVIDER_TARGET_ARTIFACT_TYPE, ZIP_MEDIA_TYPE, sha256_digest,
    version_tag,
};
pub use push::{PushedArtifact, PushedProvider, PushedTarget};
pub use token_service::TokenRequest;

use access::Access;
use client::Client;
use process::Process;
use token_service::{Accounts, TokenService};

/// The realm of the registry's Basic challenge.
pub const BASIC_REALM: &str = "tfdisco-test-registry";
/// The service the registry names in its Bearer challenge (the tokens'
/// audience).
pub const TOKEN_SERVICE: &str = "tfdisco-test-registry";
/// The issuer of the tokens (`iss`), the one the registry trusts.
pub const TOKEN_ISSUER: &str = "tfdisco-test-token-service";
/// How long a token lasts (`expires_in`, seconds).
pub const TOKEN_LIFETIME_SECS: u64 = 300;

/// How the registry asks for credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OciAuth {
    /// No credentials: anyone may pull and push.
    Anonymous,
    /// HTTP Basic (`auth: htpasswd`): one user, whose password is kept
    /// bcrypt-hashed by `htpasswd -Bbn`.
    Basic {
        /// The user.
        username: String,
        /// The password.
        password: String,
    },
    /// Bearer tokens (`auth: token`) from the fixture's token service at
    /// [`OciRegistry::token_realm`]: this user gets every action asked;
    /// wrong credentials get a 401.
    Token {
        /// The user.
        username: String,
        /// The password.
        password: String,
        /// Whether a caller without credentials gets a token for `pull`
        /// (on any repository); without it such a caller gets a 401.
        anonymous_pull: bool,
    },
}

impl OciAuth {
    /// [`OciAuth::Basic`] for this user.
    pub fn basic(username: &str, password: &str) -> OciAuth {
        OciAuth::Basic {
            username: username.to_owned(),
            password: password.to_owned(),
        }
    }

    /// [`OciAuth::Token`] for this user, without anonymous pulls.
    pub fn token(username: &str, password: &str) -> OciAuth {
        OciAuth::Token {
            username: username.to_owned(),
            password: password.to_owned(),
            anonymous_pull: false,
        }
    }
}

/// A running `docker-registry` on 127.0.0.1 (HTTPS, the trusted test
/// leaf), with its token service in [`OciAuth::Token`] mode. Dropping it
/// kills the child and waits for it, and removes its storage.
pub struct OciRegistry {
    process: Process,
    access: Access,
    token_service: Option<TokenService>,
    dir: tempfile::TempDir,
}

impl OciRegistry {
    /// Starts a registry asking for `auth`, and waits (10 s at most) until
    /// it answers `GET /v2/`. Panics, with what to do or the registry's
    /// log, when it cannot: `docker-registry` (or `htpasswd`) missing, the
    /// registry failing.
    pub fn start(auth: OciAuth) -> OciRegistry {
        OciRegistry::try_start(auth)
            .unwrap_or_else(|e| panic!("the OCI registry fixture could not start: {e}"))
    }

    /// [`OciRegistry::start`], telling why it could not start rather than
    /// panicking (`tfdisco-dev serve --oci-registry` reports it).
    pub fn try_start(auth: OciAuth) -> Result<OciRegistry, String> {
        let dir = tempfile::Builder::new()
            .prefix("tfdisco-oci-registry-")
            .tempdir()
            .map_err(|e| format!("a temporary folder: {e}"))?;
        let client = Client::new()?;
        let mut token_service = None;
        let auth_section = match &auth {
            OciAuth::Anonymous => String::new(),
            OciAuth::Basic { username, password } => {
                let file = dir.path().join("htpasswd");
                std::fs::write(&file, process::htpasswd(username, password)?)
                    .map_err(|e| format!("writing {}: {e}", file.display()))?;
                format!(
                    "auth:\n  htpasswd:\n    realm: {}\n    path: {}\n",
                    process::yaml(BASIC_REALM),
                    process::yaml_path(&file)
                )
            }
            OciAuth::Token {
                username,
                password,
                anonymous_pull,
            } => {
                let service = TokenService::start(Accounts {
                    username: username.clone(),
                    password: password.clone(),
                    anonymous_pull: *anonymous_pull,
                })?;
                let bundle = dir.path().join("token-signer.pem");
                std::fs::write(&bundle, service.cert_pem())
                    .map_err(|e| format!("writing {}: {e}", bundle.display()))?;
                let section = format!(
                    "auth:\n  token:\n    realm: {}\n    service: {}\n    issuer: {}\n    rootcertbundle: {}\n",
                    process::yaml(&realm(service.port())),
                    process::yaml(TOKEN_SERVICE),
                    process::yaml(TOKEN_ISSUER),
                    process::yaml_path(&bundle)
                );
                token_service = Some(service);
                section
            }
        };
        let process = process::launch(dir.path(), &auth_section, &client)?;
        let access = Access {
            port: process.port,
            client,
            auth,
            token_port: token_service.as_ref().map(TokenService::port),
        };
        Ok(OciRegistry {
            process,
            access,
            token_service,
            dir,
        })
    }

    /// The registry's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.process.port
    }

    /// `127.0.0.1:<port>`: the registry part of a repository address.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port())
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port())
    }

    /// How the registry asks for credentials.
    pub fn auth(&self) -> &OciAuth {
        &self.access.auth
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.process.child.id()
    }

    /// The folder of the configuration, the log and the storage.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What the registry has logged so far (its access log included).
    pub fn log(&self) -> String {
        std::fs::read_to_string(process::log_path(self.dir.path())).unwrap_or_default()
    }

    /// The token service's URL, `https://127.0.0.1:<port>/token` (the
    /// Bearer challenge's realm), in [`OciAuth::Token`] mode.
    pub fn token_realm(&self) -> Option<String> {
        self.token_service.as_ref().map(|s| realm(s.port()))
    }

    /// Every request the token service received so far, oldest first
    /// (empty without one). The fixture's own pushes and reads ask it once
    /// per call.
    pub fn token_requests(&self) -> Vec<TokenRequest> {
        self.token_service
            .as_ref()
            .map(TokenService::requests)
            .unwrap_or_default()
    }

    /// [`OciRegistry::token_requests`], forgetting them: call it after the
    /// pushes to count a client's own requests.
    pub fn take_token_requests(&self) -> Vec<TokenRequest> {
        self.token_service
            .as_ref()
            .map(TokenService::take_requests)
            .unwrap_or_default()
    }

    /// Sends a request to the registry as it is (no credentials but the
    /// headers given), for the tests.
    #[cfg(test)]
    pub(crate) fn request(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> client::Answer {
        let answer = client::block_on(self.access.send(None, method, target, headers, body));
        answer.unwrap_or_else(|e| self.fail(&format!("{method} {target}"), e))
    }

    /// Sends a request to the token service, for the tests.
    #[cfg(test)]
    pub(crate) fn token_service_request(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> client::Answer {
        let port = self
            .access
            .token_port
            .unwrap_or_else(|| panic!("no token service in {:?} mode", self.access.auth));
        let answer = client::block_on(self.access.client.send(port, method, target, headers, body));
        answer.unwrap_or_else(|e| panic!("{method} {target} (token service): {e}"))
    }

    /// Panics saying what failed, with the end of the registry's log.
    fn fail(&self, what: &str, error: String) -> ! {
        panic!(
            "OCI registry fixture: {what}: {error}\n--- docker-registry log (last lines) ---\n{}",
            process::tail(&self.log())
        )
    }
}

/// The repository prefix [`OciRegistry::mirror_signed_registry`] copies
/// the signed registry's providers under: `mirror/ns/TYPE`.
pub const SIGNED_MIRROR_PREFIX: &str = "mirror";

impl OciRegistry {
    /// Copies the signed registry's providers
    /// ([`crate::signed_registry`]: every version, every platform, the
    /// zips byte for byte) into this registry under
    /// `mirror/ns/TYPE`, laid out as OpenTofu's provider mirrors are:
    /// what [`OciRegistry::signed_mirror_template`] names for an
    /// `oci_mirror` or `-oci-mirror`.
    pub fn mirror_signed_registry(&self) {
        use crate::signed_registry::{self, NAMESPACE, PLATFORMS, PROVIDERS};
        for (name, versions) in PROVIDERS {
            for version in versions {
                let zips: Vec<(&str, &str, &[u8])> = PLATFORMS
                    .iter()
                    .map(|platform| {
                        let (os, arch) = platform.split_once('_').expect("OS_ARCH");
                        let file = signed_registry::package_file(name, version, platform);
                        (os, arch, signed_registry::file(name, version, &file))
                    })
                    .collect();
                self.push_provider(
                    &format!("{SIGNED_MIRROR_PREFIX}/{NAMESPACE}/{name}"),
                    version,
                    &zips,
                );
            }
        }
    }

    /// The repository template of the mirror
    /// [`OciRegistry::mirror_signed_registry`] makes, in `-oci-mirror`'s
    /// syntax: `127.0.0.1:PORT/mirror/{namespace}/{type}`.
    pub fn signed_mirror_template(&self) -> String {
        format!(
            "{}/{SIGNED_MIRROR_PREFIX}/{{namespace}}/{{type}}",
            self.host()
        )
    }
}

impl Drop for OciRegistry {
    fn drop(&mut self) {
        let _ = self.process.child.kill();
        let _ = self.process.child.wait();
    }
}

/// The token service's URL on `port`.
fn realm(port: u16) -> String {
    format!("https://127.0.0.1:{port}/token")
}

#[cfg(test)]
mod tests;
