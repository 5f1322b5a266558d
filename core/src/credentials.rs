//! Token credentials and where they come from.
//!
//! The core only needs to know the token for a host; the Terraform-compatible
//! sources (environment, CLI config files, helper programs) live outside it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use http::HeaderValue;

use crate::Hostname;

/// A bearer token for one host, sent as `Authorization: Bearer <token>`.
///
/// `Debug` never shows the token, and the header value is marked sensitive so
/// HTTP libraries keep it out of their logs too.
///
/// ```
/// let creds = tfdisco_core::Credentials::token("s3cret")?;
/// assert_eq!(format!("{creds:?}"), "Credentials { token: \"***\" }");
/// assert_eq!(creds.authorization().to_str()?, "Bearer s3cret");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    token: Arc<str>,
    authorization: HeaderValue,
}

impl Credentials {
    /// Token credentials. Fails when the token cannot be sent in a header
    /// (control characters or line breaks); the error does not repeat it.
    pub fn token(token: &str) -> Result<Credentials, InvalidToken> {
        let mut authorization =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| InvalidToken(()))?;
        authorization.set_sensitive(true);
        Ok(Credentials {
            token: token.into(),
            authorization,
        })
    }

    /// Credentials that are a whole `Authorization` value (an OCI
    /// registry's `Basic …`, or its token service's `Bearer …`), marked
    /// sensitive. [`Credentials::expose_token`] gives the value back.
    pub fn authorization_value(value: &str) -> Result<Credentials, InvalidToken> {
        let mut authorization = HeaderValue::from_str(value).map_err(|_| InvalidToken(()))?;
        authorization.set_sensitive(true);
        Ok(Credentials {
            token: value.into(),
            authorization,
        })
    }

    /// The token itself, for storing it or showing it on explicit request.
    pub fn expose_token(&self) -> &str {
        &self.token
    }

    /// The `Authorization` header value, `Bearer <token>`, marked sensitive.
    pub fn authorization(&self) -> &HeaderValue {
        &self.authorization
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("token", &"***")
            .finish()
    }
}

/// A token that cannot be sent in an HTTP header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidToken(());

impl fmt::Display for InvalidToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("token contains characters that cannot be sent in an HTTP header")
    }
}

impl std::error::Error for InvalidToken {}

/// The error a credentials source reports (a helper program that failed, say).
pub type CredentialsError = Box<dyn std::error::Error + Send + Sync>;

/// Something that knows the credentials for hosts.
///
/// `Ok(None)` means "no credentials for this host". As in Terraform, a
/// discovery whose credentials lookup fails goes ahead without credentials.
pub trait CredentialsSource: Send + Sync {
    /// The credentials for `host`, if any.
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError>;
}

impl<S: CredentialsSource + ?Sized> CredentialsSource for Arc<S> {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        (**self).credentials(host)
    }
}

impl<S: CredentialsSource + ?Sized> CredentialsSource for Box<S> {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        (**self).credentials(host)
    }
}

/// The credentials `source` has for `host`, by Terraform's rule: a lookup
/// that fails means no credentials, and the request goes ahead without. The
/// failure comes back too, for the caller to report (it never contains the
/// token).
///
/// ```
/// use tfdisco_core::{Credentials, CredentialsError, CredentialsSource, Hostname, credentials_for};
///
/// struct Broken;
/// impl CredentialsSource for Broken {
///     fn credentials(&self, _: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
///         Err("the helper crashed".into())
///     }
/// }
/// let (credentials, failure) = credentials_for(&Broken, &Hostname::parse("example.com")?);
/// assert!(credentials.is_none());
/// assert_eq!(failure.expect("reported").to_string(), "the helper crashed");
/// # Ok::<(), tfdisco_core::HostnameError>(())
/// ```
pub fn credentials_for(
    source: &dyn CredentialsSource,
    host: &Hostname,
) -> (Option<Credentials>, Option<CredentialsError>) {
    match source.credentials(host) {
        Ok(credentials) => (credentials, None),
        Err(error) => {
            tracing::warn!(target: "tfdisco", host = %host, %error, "credentials lookup failed; going ahead without credentials");
            (None, Some(error))
        }
    }
}

/// No credentials for any host.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCredentials;

impl CredentialsSource for NoCredentials {
    fn credentials(&self, _: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        Ok(None)
    }
}

/// A fixed map from host to credentials.
///
/// ```
/// use tfdisco_core::{Credentials, CredentialsSource, Hostname, StaticCredentials};
///
/// let host = Hostname::parse("example.com")?;
/// let source = StaticCredentials::new().with(host.clone(), Credentials::token("abc123")?);
/// assert!(source.credentials(&host)?.is_some());
/// assert!(source.credentials(&Hostname::parse("example.net")?)?.is_none());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct StaticCredentials {
    map: HashMap<Hostname, Credentials>,
}

impl StaticCredentials {
    /// An empty map.
    pub fn new() -> StaticCredentials {
        StaticCredentials::default()
    }

    /// Adds credentials for `host`, replacing any it had.
    pub fn with(mut self, host: Hostname, credentials: Credentials) -> StaticCredentials {
        self.map.insert(host, credentials);
        self
    }

    /// Adds credentials for `host`, replacing any it had.
    pub fn insert(&mut self, host: Hostname, credentials: Credentials) {
        self.map.insert(host, credentials);
    }
}

impl CredentialsSource for StaticCredentials {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        Ok(self.map.get(host).cloned())
    }
}

impl FromIterator<(Hostname, Credentials)> for StaticCredentials {
    fn from_iter<I: IntoIterator<Item = (Hostname, Credentials)>>(iter: I) -> StaticCredentials {
        StaticCredentials {
            map: iter.into_iter().collect(),
        }
    }
}
