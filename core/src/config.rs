//! Discovery settings shared by every discovery a registry or transport starts.

use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;
use http::header::InvalidHeaderValue;

use crate::{Dialect, Hostname, RetryPolicy};

/// How discovery behaves. The defaults are those of both Go implementations:
/// at most 3 redirects, a 1 MiB document, 11 seconds for the whole exchange,
/// and the dialect's retries (Terraform: 4 attempts; OpenTofu: 1).
///
/// ```
/// use std::time::Duration;
/// use tfdisco_core::{Config, Dialect, Hostname};
///
/// let config = Config::new(Dialect::Terraform)
///     .with_timeout(Duration::from_secs(5))
///     .with_user_agent("my-mirror/1.0")?
///     .with_plain_http_host(Hostname::parse("localhost:8080")?);
/// assert_eq!(config.max_redirects(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    dialect: Dialect,
    max_redirects: u32,
    body_limit: u64,
    timeout: Duration,
    user_agent: HeaderValue,
    retry_policy: RetryPolicy,
    plain_http_hosts: Arc<[Hostname]>,
    cli_version: HeaderValue,
    registry_body_limit: u64,
}

/// The redirect limit of both Go libraries' policy.
pub const DEFAULT_MAX_REDIRECTS: u32 = 3;
/// The largest discovery document accepted: 1 MiB.
pub const DEFAULT_BODY_LIMIT: u64 = 1024 * 1024;
/// The largest registry API document accepted: 16 MiB (the provider
/// versions of the largest public providers are a few hundred KiB).
pub const DEFAULT_REGISTRY_BODY_LIMIT: u64 = 16 * 1024 * 1024;
/// The time allowed for a whole discovery, redirects and body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(11);

impl Default for Config {
    fn default() -> Config {
        Config::new(Dialect::default())
    }
}

impl Config {
    /// The defaults for `dialect`, including its default User-Agent.
    pub fn new(dialect: Dialect) -> Config {
        Config {
            dialect,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            body_limit: DEFAULT_BODY_LIMIT,
            timeout: DEFAULT_TIMEOUT,
            user_agent: HeaderValue::from_static(dialect.default_user_agent()),
            retry_policy: RetryPolicy::for_dialect(dialect),
            plain_http_hosts: Arc::from([]),
            cli_version: HeaderValue::from_static(dialect.default_cli_version()),
            registry_body_limit: DEFAULT_REGISTRY_BODY_LIMIT,
        }
    }

    /// Sets the dialect; a User-Agent or retry policy that is still the old
    /// dialect's default follows the change.
    pub fn with_dialect(mut self, dialect: Dialect) -> Config {
        if self.user_agent == self.dialect.default_user_agent() {
            self.user_agent = HeaderValue::from_static(dialect.default_user_agent());
        }
        if self.cli_version == self.dialect.default_cli_version() {
            self.cli_version = HeaderValue::from_static(dialect.default_cli_version());
        }
        if self.retry_policy == RetryPolicy::for_dialect(self.dialect) {
            self.retry_policy = RetryPolicy::for_dialect(dialect);
        }
        self.dialect = dialect;
        self
    }

    /// Sets how many redirects are followed (requests = redirects + 1).
    pub fn with_max_redirects(mut self, max: u32) -> Config {
        self.max_redirects = max;
        self
    }

    /// Sets how failed attempts are retried.
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Config {
        self.retry_policy = policy;
        self
    }

    /// Sets how many times a failed attempt is retried (`retries + 1`
    /// attempts at most), with the current policy's waits.
    pub fn with_retries(self, retries: u32) -> Config {
        let policy = self.retry_policy.clone().with_retries(retries);
        self.with_retry_policy(policy)
    }

    /// Sets the largest document accepted, in bytes.
    pub fn with_body_limit(mut self, bytes: u64) -> Config {
        self.body_limit = bytes;
        self
    }

    /// Sets the largest registry API response accepted, in bytes (provider
    /// and module versions, download locations, packages).
    pub fn with_registry_body_limit(mut self, bytes: u64) -> Config {
        self.registry_body_limit = bytes;
        self
    }

    /// Sets the CLI version registry requests announce in
    /// `X-Terraform-Version` (default: [`Dialect::default_cli_version`]).
    /// Registries may use it to hide versions a CLI cannot install.
    pub fn with_cli_version(mut self, version: &str) -> Result<Config, InvalidHeaderValue> {
        self.cli_version = HeaderValue::from_str(version)?;
        Ok(self)
    }

    /// Sets the time allowed for a whole discovery.
    pub fn with_timeout(mut self, timeout: Duration) -> Config {
        self.timeout = timeout;
        self
    }

    /// Sets the User-Agent header. Fails if the text cannot be a header value
    /// (control characters, for example).
    pub fn with_user_agent(mut self, value: &str) -> Result<Config, InvalidHeaderValue> {
        self.user_agent = HeaderValue::from_str(value)?;
        Ok(self)
    }

    /// Appends Terraform's `TF_APPEND_USER_AGENT` text: trimmed, and ignored
    /// when empty (docs/behaviour.md, DISCO-3).
    pub fn with_appended_user_agent(self, extra: &str) -> Result<Config, InvalidHeaderValue> {
        let extra = extra.trim();
        if extra.is_empty() {
            return Ok(self);
        }
        let base = String::from_utf8_lossy(self.user_agent.as_bytes()).into_owned();
        self.with_user_agent(&format!("{base} {extra}"))
    }

    /// Allows plain `http://` for `host`, for development servers only: its
    /// discovery URL becomes `http://<host>/.well-known/terraform.json` and
    /// redirects to it over http are followed (D5). Credentials are still
    /// never sent over http (D4).
    pub fn with_plain_http_host(mut self, host: Hostname) -> Config {
        if !self.plain_http_hosts.contains(&host) {
            let mut hosts = self.plain_http_hosts.to_vec();
            hosts.push(host);
            self.plain_http_hosts = hosts.into();
        }
        self
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// How many redirects are followed.
    pub fn max_redirects(&self) -> u32 {
        self.max_redirects
    }

    /// The largest document accepted, in bytes.
    pub fn body_limit(&self) -> u64 {
        self.body_limit
    }

    /// The largest registry API response accepted, in bytes.
    pub fn registry_body_limit(&self) -> u64 {
        self.registry_body_limit
    }

    /// The `X-Terraform-Version` value of registry requests.
    pub fn cli_version(&self) -> &HeaderValue {
        &self.cli_version
    }

    /// The time allowed for a whole discovery.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How failed attempts are retried.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry_policy
    }

    /// The User-Agent header value.
    pub fn user_agent(&self) -> &HeaderValue {
        &self.user_agent
    }

    /// The hosts allowed plain http.
    pub fn plain_http_hosts(&self) -> &[Hostname] {
        &self.plain_http_hosts
    }

    /// True when `host` (with `port`, the URL's effective port) is a plain-http
    /// development host. A listed host without a port means port 80.
    pub(crate) fn allows_plain_http(&self, host: &str, port: Option<u16>) -> bool {
        self.plain_http_hosts
            .iter()
            .any(|h| h.host() == host && h.port().unwrap_or(80) == port.unwrap_or(80))
    }
}
