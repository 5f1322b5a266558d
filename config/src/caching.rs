//! A cache in front of a slow credentials source (docs/behaviour.md, CRED-10).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use tfdisco_core::{Credentials, CredentialsError, CredentialsSource, Hostname};

use crate::CredentialsStore;

/// Remembers what a source answered for each host, hits and misses alike,
/// for as long as it lives. Errors are not remembered: the next lookup asks
/// again. Storing or forgetting credentials through it first drops the
/// host's entry.
///
/// The CLI chain ([`CliCredentials`](crate::CliCredentials)) puts one in
/// front of the helper program, as Terraform and OpenTofu do.
///
/// ```
/// use tfdisco_config::CachingCredentials;
/// use tfdisco_core::{Credentials, CredentialsSource, Hostname, StaticCredentials};
///
/// let host = Hostname::parse("example.com")?;
/// let source = CachingCredentials::new(
///     StaticCredentials::new().with(host.clone(), Credentials::token("abc")?),
/// );
/// assert!(source.credentials(&host)?.is_some());
/// assert_eq!(source.cached(&host), Some(true));
/// source.invalidate(&host);
/// assert_eq!(source.cached(&host), None);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub struct CachingCredentials<S> {
    inner: S,
    cache: Mutex<HashMap<Hostname, Option<Credentials>>>,
}

impl<S> CachingCredentials<S> {
    /// An empty cache in front of `inner`.
    pub fn new(inner: S) -> CachingCredentials<S> {
        CachingCredentials {
            inner,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The source behind the cache.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Whether an answer for `host` is cached: `Some(true)` for credentials,
    /// `Some(false)` for a remembered "none", `None` when not cached.
    pub fn cached(&self, host: &Hostname) -> Option<bool> {
        self.lock().get(host).map(Option::is_some)
    }

    /// Forgets the cached answer for `host`.
    pub fn invalidate(&self, host: &Hostname) {
        self.lock().remove(host);
    }

    /// Forgets every cached answer.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Hostname, Option<Credentials>>> {
        // A panic elsewhere cannot leave the map half-updated: recover it.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<S: CredentialsSource> CredentialsSource for CachingCredentials<S> {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        if let Some(answer) = self.lock().get(host) {
            return Ok(answer.clone());
        }
        // Not holding the lock while the (possibly slow) source answers.
        let answer = self.inner.credentials(host)?;
        self.lock().insert(host.clone(), answer.clone());
        Ok(answer)
    }
}

impl<S: CredentialsStore> CredentialsStore for CachingCredentials<S> {
    fn store(&self, host: &Hostname, credentials: &Credentials) -> Result<(), CredentialsError> {
        self.invalidate(host);
        self.inner.store(host, credentials)
    }

    fn forget(&self, host: &Hostname) -> Result<(), CredentialsError> {
        self.invalidate(host);
        self.inner.forget(host)
    }
}

impl<S: fmt::Debug> fmt::Debug for CachingCredentials<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachingCredentials")
            .field("inner", &self.inner)
            .field("cached_hosts", &self.lock().len())
            .finish()
    }
}
