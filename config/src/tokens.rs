//! `TF_TOKEN_<host>` variables (docs/behaviour.md, CRED-5). Pure: the variables come in
//! as an [`Env`] value.

use std::collections::HashMap;
use std::fmt;

use tfdisco_core::hostname::for_display;
use tfdisco_core::{Credentials, CredentialsError, CredentialsSource, Hostname};

use crate::{Env, Error, Origin};

/// The prefix of token variables. It is case-sensitive: `tf_token_…` is not one.
pub const TOKEN_VAR_PREFIX: &str = "TF_TOKEN_";

/// The host a `TF_TOKEN_*` variable name gives a token for, or `None` when
/// the name is not a token variable or names no valid host (such variables
/// are ignored, as in Terraform and OpenTofu).
///
/// After the prefix, `__` becomes `-` (left to right), then `_` becomes `.`;
/// the result goes through the liberal display form and then the comparison
/// form, so punycode, raw UTF-8 and upper case all work. A port can only be
/// written with a literal `:`.
///
/// ```
/// use tfdisco_config::token_var_host;
///
/// let host = token_var_host("TF_TOKEN_xn____caf__dma_fr").expect("valid");
/// assert_eq!(host.as_str(), "xn--caf-dma.fr");
/// assert_eq!(token_var_host("TF_TOKEN_localhost:8080").expect("valid").as_str(), "localhost:8080");
/// assert_eq!(token_var_host("TF_TOKEN_a___b"), None); // a-.b
/// assert_eq!(token_var_host("tf_token_example_com"), None);
/// ```
pub fn token_var_host(name: &str) -> Option<Hostname> {
    let rest = name.strip_prefix(TOKEN_VAR_PREFIX)?;
    let raw = rest.replace("__", "-").replace('_', ".");
    Hostname::parse(&for_display(&raw)).ok()
}

/// The credentials given by `TF_TOKEN_*` variables: the first source
/// Terraform and OpenTofu consult.
///
/// Built from a snapshot of the environment. (Go re-reads the environment on
/// every lookup; a Rust program cannot safely change its own environment
/// once threads run, so a snapshot gives the same answers.) When several
/// variables name the same host, the one later in the environment wins. An
/// empty value is an empty token, as in Go.
///
/// ```
/// use tfdisco_config::{Env, EnvCredentials};
/// use tfdisco_core::{CredentialsSource, Hostname};
///
/// let env = Env::empty().with_var("TF_TOKEN_registry_example_com", "s3cret");
/// let source = EnvCredentials::new(&env);
/// let host = Hostname::parse("Registry.Example.COM")?;
/// let creds = source.credentials(&host)?.expect("a token");
/// assert_eq!(creds.expose_token(), "s3cret");
/// assert_eq!(source.variable(&host), Some("TF_TOKEN_registry_example_com"));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Clone, Default)]
pub struct EnvCredentials {
    tokens: HashMap<Hostname, EnvToken>,
}

#[derive(Clone)]
struct EnvToken {
    variable: String,
    /// `None` when the value is not UTF-8.
    value: Option<String>,
}

impl EnvCredentials {
    /// The token variables of `env`.
    pub fn new(env: &Env) -> EnvCredentials {
        let mut tokens = HashMap::new();
        for (name, value) in env.iter() {
            let Some(name) = name.to_str() else { continue };
            let Some(host) = token_var_host(name) else {
                continue;
            };
            let token = EnvToken {
                variable: name.to_owned(),
                value: value.to_str().map(str::to_owned),
            };
            tokens.insert(host, token);
        }
        EnvCredentials { tokens }
    }

    /// The name of the variable that gives `host` its token, if any.
    pub fn variable(&self, host: &Hostname) -> Option<&str> {
        self.tokens.get(host).map(|t| t.variable.as_str())
    }

    /// The hosts that have a token variable, in no particular order.
    pub fn hosts(&self) -> impl Iterator<Item = &Hostname> {
        self.tokens.keys()
    }

    /// The variable and the credentials for `host`, if it has a variable.
    pub(crate) fn find(&self, host: &Hostname) -> Option<(Origin, Result<Credentials, Error>)> {
        let entry = self.tokens.get(host)?;
        let origin = Origin::EnvVar {
            name: entry.variable.clone(),
        };
        let credentials = entry
            .value
            .as_deref()
            .and_then(|v| Credentials::token(v).ok())
            .ok_or_else(|| Error::InvalidToken {
                origin: origin.clone(),
            });
        Some((origin, credentials))
    }
}

impl CredentialsSource for EnvCredentials {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        match self.find(host) {
            None => Ok(None),
            Some((_, Ok(credentials))) => Ok(Some(credentials)),
            Some((_, Err(e))) => Err(Box::new(e)),
        }
    }
}

impl fmt::Debug for EnvCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (host, token) in &self.tokens {
            map.entry(&host.as_str(), &token.variable);
        }
        map.finish()
    }
}
