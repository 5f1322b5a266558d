//! The credentials a client presents to one OCI registry (OCI-6): a
//! username and password, or tokens, as OpenTofu's `oci_credentials`
//! blocks, Docker-style files and credential helpers give them. Where they
//! come from is the config crate's; what is sent is decided here.

use std::collections::HashMap;
use std::fmt;

use base64::Engine as _;
use tfdisco_core::{Credentials, CredentialsError};

/// What a client may present to one registry. `Debug` shows which parts
/// are set, never their values.
///
/// ```
/// use tfdisco_oci::OciCredentials;
/// let c = OciCredentials::basic("ci", "s3cret");
/// assert_eq!(format!("{c:?}"), r#"OciCredentials { username: "ci", password: "***" }"#);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OciCredentials {
    username: Option<String>,
    password: Option<String>,
    access_token: Option<String>,
    refresh_token: Option<String>,
}

impl OciCredentials {
    /// A username and password: sent as `Basic` to a registry that asks
    /// for it, or to its token service (OCI-6).
    pub fn basic(username: &str, password: &str) -> OciCredentials {
        OciCredentials {
            username: Some(username.to_owned()),
            password: Some(password.to_owned()),
            access_token: None,
            refresh_token: None,
        }
    }

    /// A bearer token to send as it is, without asking a token service.
    pub fn access_token(token: &str) -> OciCredentials {
        OciCredentials {
            username: None,
            password: None,
            access_token: Some(token.to_owned()),
            refresh_token: None,
        }
    }

    /// An OAuth refresh token (a Docker `identitytoken`), traded at the
    /// token service for access tokens.
    pub fn refresh_token(token: &str) -> OciCredentials {
        OciCredentials {
            username: None,
            password: None,
            access_token: None,
            refresh_token: Some(token.to_owned()),
        }
    }

    /// The username, if any (never secret).
    pub fn username(&self) -> Option<&str> {
        self.username.as_deref()
    }

    /// True when there is a refresh token.
    pub fn has_refresh_token(&self) -> bool {
        self.refresh_token.is_some()
    }

    /// The refresh token, for the token service's form.
    pub fn expose_refresh_token(&self) -> Option<&str> {
        self.refresh_token.as_deref()
    }

    /// `Basic base64(username:password)`, when both are set.
    pub(crate) fn basic_authorization(&self) -> Option<Credentials> {
        let (user, password) = (self.username.as_ref()?, self.password.as_ref()?);
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        Credentials::authorization_value(&format!("Basic {encoded}")).ok()
    }

    /// `Bearer ACCESS_TOKEN`, when an access token is set.
    pub(crate) fn bearer_authorization(&self) -> Option<Credentials> {
        Credentials::token(self.access_token.as_ref()?).ok()
    }
}

impl fmt::Debug for OciCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("OciCredentials");
        if let Some(username) = &self.username {
            d.field("username", username);
        }
        for (name, set) in [
            ("password", self.password.is_some()),
            ("access_token", self.access_token.is_some()),
            ("refresh_token", self.refresh_token.is_some()),
        ] {
            if set {
                d.field(name, &"***");
            }
        }
        d.finish()
    }
}

/// Something that knows the credentials for OCI repositories: OpenTofu's
/// policy (`oci_credentials` blocks, Docker-style files, credential
/// helpers: `tfdisco_config`'s), or a fixed table.
///
/// `Ok(None)` means "none configured": the requests go anonymously, as
/// OpenTofu's do. An error fails the request that needed them.
pub trait OciCredentialsSource: Send + Sync {
    /// The credentials for `repository` on `registry`.
    fn oci_credentials(
        &self,
        registry: &str,
        repository: &str,
    ) -> Result<Option<OciCredentials>, CredentialsError>;
}

/// Credentials per registry, for every repository on it: the simplest
/// [`OciCredentialsSource`].
///
/// ```
/// use tfdisco_oci::{OciCredentials, OciCredentialsSource, RegistryCredentials};
/// let table = RegistryCredentials::new()
///     .with("ghcr.io", OciCredentials::basic("ci", "s3cret"));
/// assert!(table.oci_credentials("ghcr.io", "a/b")?.is_some());
/// assert!(table.oci_credentials("registry.example", "a/b")?.is_none());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct RegistryCredentials {
    by_registry: HashMap<String, OciCredentials>,
}

impl RegistryCredentials {
    /// An empty table.
    pub fn new() -> RegistryCredentials {
        RegistryCredentials::default()
    }

    /// The table with `credentials` for every repository of `registry`
    /// (`host[:port]`, compared exactly).
    pub fn with(mut self, registry: &str, credentials: OciCredentials) -> RegistryCredentials {
        self.by_registry.insert(registry.to_owned(), credentials);
        self
    }
}

impl OciCredentialsSource for RegistryCredentials {
    fn oci_credentials(
        &self,
        registry: &str,
        _repository: &str,
    ) -> Result<Option<OciCredentials>, CredentialsError> {
        Ok(self.by_registry.get(registry).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let basic = OciCredentials::basic("aladdin", "opensesame")
            .basic_authorization()
            .expect("basic");
        assert_eq!(
            basic.authorization().to_str().expect("ascii"),
            "Basic YWxhZGRpbjpvcGVuc2VzYW1l"
        );
        assert!(basic.authorization().is_sensitive());
        assert_eq!(
            OciCredentials::access_token("t").basic_authorization(),
            None
        );
        let bearer = OciCredentials::access_token("t")
            .bearer_authorization()
            .expect("bearer");
        assert_eq!(bearer.authorization().to_str().expect("ascii"), "Bearer t");
    }

    #[test]
    fn debug_never_shows_a_secret() {
        for c in [
            OciCredentials::basic("u", "SECRET"),
            OciCredentials::access_token("SECRET"),
            OciCredentials::refresh_token("SECRET"),
        ] {
            let text = format!("{c:?}");
            assert!(!text.contains("SECRET"), "{text}");
            assert!(text.contains("***"), "{text}");
        }
    }
}
