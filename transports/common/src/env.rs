//! Where settings read environment variables from, so tests and embedders
//! can give their own instead of the process environment.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// The environment variables a client reads at build time: `HTTPS_PROXY`,
/// `HTTP_PROXY`, `NO_PROXY` (and their lower-case forms), `SSL_CERT_FILE`
/// and `SSL_CERT_DIR`.
///
/// The default is the process environment. Tests give a fixed map instead of
/// changing the process environment (which is unsound while other threads
/// run):
///
/// ```
/// use tfdisco_transport::Environment;
///
/// let env = Environment::from_vars([("HTTPS_PROXY", "http://proxy.internal:3128"), ("NO_PROXY", "")]);
/// assert_eq!(env.var("HTTPS_PROXY").as_deref(), Some("http://proxy.internal:3128"));
/// assert_eq!(env.var("NO_PROXY"), None, "empty values count as unset");
/// assert_eq!(Environment::empty().var("HOME"), None);
/// ```
#[derive(Clone, Default)]
pub struct Environment(Source);

#[derive(Clone, Default)]
enum Source {
    #[default]
    Process,
    Fixed(Arc<HashMap<String, String>>),
}

impl Environment {
    /// The process environment, read when the client is built.
    pub fn process() -> Environment {
        Environment(Source::Process)
    }

    /// No variables at all.
    pub fn empty() -> Environment {
        Environment::from_vars::<_, String, String>([])
    }

    /// Exactly these variables.
    pub fn from_vars<I, K, V>(vars: I) -> Environment
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let map = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Environment(Source::Fixed(Arc::new(map)))
    }

    /// The value of `name`; unset, empty and non-UTF-8 values are `None`.
    pub fn var(&self, name: &str) -> Option<String> {
        let value = match &self.0 {
            Source::Process => std::env::var(name).ok(),
            Source::Fixed(map) => map.get(name).cloned(),
        };
        value.filter(|v| !v.is_empty())
    }

    /// The first of `names` that is set (Go's `getEnvAny`).
    pub fn first(&self, names: &[&str]) -> Option<String> {
        names.iter().find_map(|name| self.var(name))
    }
}

impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::Process => f.write_str("Environment::process()"),
            Source::Fixed(map) => {
                let mut names: Vec<&str> = map.keys().map(String::as_str).collect();
                names.sort_unstable();
                f.debug_tuple("Environment::from_vars")
                    .field(&names)
                    .finish()
            }
        }
    }
}
