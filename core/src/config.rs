//! The settings every transfer starts with: one set for discovery and one for
//! registry requests, as each CLI has one client for each
//! (docs/behaviour.md, DISCO-12, API-2, RETRY-1, RETRY-8).

mod user_agent;

use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;
use http::header::InvalidHeaderValue;

use crate::registry_api::check_version;
use crate::{Dialect, Error, Hostname, RetryPolicy};

use user_agent::Agents;

/// Which kind of request a transfer makes. Each kind has its own limits, retry
/// policy, `User-Agent` and checks, as `terraform` and `tofu` have one HTTP
/// client for discovery and another for their registry clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestKind {
    /// `GET /.well-known/terraform.json`: the discovery library's rules.
    Discovery,
    /// The registry API requests (provider and module versions, a module's
    /// download location, a provider package): the CLIs' registry clients'
    /// rules.
    Registry,
    /// Files a registry points to: a provider's `SHA256SUMS`, its signature
    /// and its archive, streamed (DL-1).
    Download,
    /// A provider network mirror's `index.json` and `<version>.json`: the
    /// registry requests' headers, limit and timeout, the CLIs' mirror
    /// client's 5 redirects, retries (Terraform: the registry requests';
    /// OpenTofu: none) and `Content-Type` check (MIRROR-4).
    Mirror,
    /// An OCI registry's API (OpenTofu's `oci_mirror` and `oci://`
    /// modules): tags, manifests and token requests, as OpenTofu's ORAS
    /// client makes them: Go's 10 requests per redirect chain, no retries,
    /// a 4 MiB limit (ORAS's for manifests), no `X-Terraform-Version`, no
    /// `Content-Type` check, the registry requests' 10 s (OCI-7). Blobs are
    /// [`RequestKind::Download`]s.
    Oci,
    /// `terraform login`'s requests: the token request to a `login.v1`
    /// client's token endpoint, and `tfe.v2`'s `ping` and `account/details`
    /// (LOGIN-7): the registry requests' `User-Agent` (Terraform's
    /// `httpclient.New`; the `tfe.v2` ones send go-tfe's), no
    /// `X-Terraform-Version`, Go's 9 redirects, no
    /// retries (an authorization code is used once), a 1 MiB limit
    /// (oauth2's), `DEFAULT_LOGIN_TIMEOUT` (30 s) for the whole exchange, no
    /// `Content-Type` check (the goals read it themselves).
    Login,
}

/// How requests behave. The defaults are those of the CLIs:
///
/// - discovery: at most 3 redirects, a 1 MiB document, 11 seconds for the
///   whole exchange, and the dialect's retries (Terraform: 4 attempts;
///   OpenTofu: 1);
/// - registry requests: at most 9 redirects (Go's default), 2 attempts of at
///   most 10 s each, 1 s apart ([`RetryPolicy::registry`]), and, unlike the
///   CLIs, which read any size, a 16 MiB limit (D10);
/// - login requests ([`RequestKind::Login`]): no retries, a 1 MiB answer,
///   `DEFAULT_LOGIN_TIMEOUT` (30 s) for the whole exchange (D41);
/// - the `User-Agent` and `X-Terraform-Version` the dialect's CLI sends, for
///   version [`Dialect::default_cli_version`].
///
/// ```
/// use std::time::Duration;
/// use tfdisco_core::{Config, Dialect, Hostname, RequestKind};
///
/// let config = Config::new(Dialect::Terraform)
///     .with_timeout(Duration::from_secs(5))
///     .with_cli_version("1.11.4")?
///     .with_plain_http_host(Hostname::parse("localhost:8080")?);
/// assert_eq!(config.max_redirects(), 3);
/// assert_eq!(
///     config.user_agent(),
///     "HashiCorp Terraform/1.11.4 (+https://www.terraform.io)"
/// );
/// assert_eq!(config.user_agent_for(RequestKind::Registry), "Terraform/1.11.4");
/// assert_eq!(config.registry_retry_policy().attempts(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    dialect: Dialect,
    max_redirects: u32,
    body_limit: u64,
    timeout: Duration,
    retry_policy: RetryPolicy,
    registry_max_redirects: u32,
    registry_body_limit: u64,
    registry_retry_policy: RetryPolicy,
    download_body_limit: u64,
    download_timeout: Duration,
    download_retry_policy: RetryPolicy,
    login_timeout: Duration,
    /// The registry retry policy as the dialect's mirror client applies it.
    mirror_retry_policy: RetryPolicy,
    plain_http_hosts: Arc<[Hostname]>,
    cli_version: HeaderValue,
    /// The caller's `User-Agent`, for every kind of request.
    custom_agent: Option<HeaderValue>,
    /// `TF_APPEND_USER_AGENT`'s text, trimmed.
    appended_agent: Option<Arc<str>>,
    agents: Agents,
}

/// The redirect limit of both Go discovery libraries' policy.
pub const DEFAULT_MAX_REDIRECTS: u32 = 3;
/// The redirect limit of both CLIs' registry clients (Go's `http.Client`
/// default: 10 requests).
pub const DEFAULT_REGISTRY_MAX_REDIRECTS: u32 = 9;
/// The redirect limit of both CLIs' network mirror clients (5 redirects,
/// the sixth refused).
pub const MIRROR_MAX_REDIRECTS: u32 = 5;
/// The largest OCI registry answer read whole (a manifest, an index, a tag
/// list, a token): 4 MiB, ORAS's manifest limit.
pub const OCI_BODY_LIMIT: u64 = 4 * 1024 * 1024;
/// OCI registry requests' retries: [`RetryPolicy::oci`].
const OCI_RETRY_POLICY: RetryPolicy = RetryPolicy::oci();
/// The largest answer a login request reads: 1 MiB, what Go's oauth2
/// reads of a token response.
pub const LOGIN_BODY_LIMIT: u64 = 1024 * 1024;
/// The time allowed for a whole login request (a token request, a `tfe.v2`
/// check), redirects and body included: 30 s (Go sets none; D41).
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(30);
/// Login requests are never retried ([`RequestKind::Login`]).
const LOGIN_RETRY_POLICY: RetryPolicy = RetryPolicy::none();
/// The largest discovery document accepted: 1 MiB.
pub const DEFAULT_BODY_LIMIT: u64 = 1024 * 1024;
/// The largest registry API document accepted: 16 MiB (D10; the provider
/// versions of the largest public providers are well under 1 MiB).
pub const DEFAULT_REGISTRY_BODY_LIMIT: u64 = 16 * 1024 * 1024;
/// The time allowed for a whole discovery, redirects and body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(11);
/// The largest file a download accepts: 1 GiB (D13; the largest provider
/// archives are a few hundred MiB).
pub const DEFAULT_DOWNLOAD_LIMIT: u64 = 1024 * 1024 * 1024;
/// The time allowed for a whole download, every attempt included: 10
/// minutes (D13).
pub const DEFAULT_DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);

impl Default for Config {
    fn default() -> Config {
        Config::new(Dialect::default())
    }
}

impl Config {
    /// The defaults for `dialect`: its CLI's `User-Agent` and version, its
    /// discovery retries.
    pub fn new(dialect: Dialect) -> Config {
        let cli_version = HeaderValue::from_static(dialect.default_cli_version());
        Config {
            dialect,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            body_limit: DEFAULT_BODY_LIMIT,
            timeout: DEFAULT_TIMEOUT,
            retry_policy: RetryPolicy::for_dialect(dialect),
            registry_max_redirects: DEFAULT_REGISTRY_MAX_REDIRECTS,
            registry_body_limit: DEFAULT_REGISTRY_BODY_LIMIT,
            registry_retry_policy: RetryPolicy::registry(),
            download_body_limit: DEFAULT_DOWNLOAD_LIMIT,
            download_timeout: DEFAULT_DOWNLOAD_TIMEOUT,
            download_retry_policy: RetryPolicy::registry().with_attempt_timeout(None),
            login_timeout: DEFAULT_LOGIN_TIMEOUT,
            mirror_retry_policy: mirror_policy(dialect, &RetryPolicy::registry()),
            plain_http_hosts: Arc::from([]),
            agents: Agents::new(dialect, dialect.default_cli_version(), None, None),
            cli_version,
            custom_agent: None,
            appended_agent: None,
        }
    }

    /// Works out the `User-Agent`s again after what they depend on changed.
    fn with_agents(mut self) -> Config {
        let version = String::from_utf8_lossy(self.cli_version.as_bytes()).into_owned();
        self.agents = Agents::new(
            self.dialect,
            &version,
            self.custom_agent.as_ref(),
            self.appended_agent.as_deref(),
        );
        self
    }

    /// Sets the dialect; a CLI version or discovery retry policy that is
    /// still the old dialect's default follows the change, and so does the
    /// `User-Agent` unless the caller set one.
    pub fn with_dialect(mut self, dialect: Dialect) -> Config {
        if self.cli_version == self.dialect.default_cli_version() {
            self.cli_version = HeaderValue::from_static(dialect.default_cli_version());
        }
        if self.retry_policy == RetryPolicy::for_dialect(self.dialect) {
            self.retry_policy = RetryPolicy::for_dialect(dialect);
        }
        self.dialect = dialect;
        self.mirror_retry_policy = mirror_policy(dialect, &self.registry_retry_policy);
        self.with_agents()
    }

    /// Sets how many redirects a discovery follows (requests = redirects + 1).
    pub fn with_max_redirects(mut self, max: u32) -> Config {
        self.max_redirects = max;
        self
    }

    /// Sets how failed discovery attempts are retried.
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Config {
        self.retry_policy = policy;
        self
    }

    /// Sets how many times a failed discovery attempt is retried
    /// (`retries + 1` attempts at most), with the current policy's waits.
    pub fn with_retries(self, retries: u32) -> Config {
        let policy = self.retry_policy.clone().with_retries(retries);
        self.with_retry_policy(policy)
    }

    /// Sets the largest discovery document accepted, in bytes.
    pub fn with_body_limit(mut self, bytes: u64) -> Config {
        self.body_limit = bytes;
        self
    }

    /// Sets the time allowed for a whole discovery.
    pub fn with_timeout(mut self, timeout: Duration) -> Config {
        self.timeout = timeout;
        self
    }

    /// Sets how many redirects a registry request follows.
    pub fn with_registry_max_redirects(mut self, max: u32) -> Config {
        self.registry_max_redirects = max;
        self
    }

    /// Sets the largest registry API response accepted, in bytes (provider
    /// and module versions, download locations, packages).
    pub fn with_registry_body_limit(mut self, bytes: u64) -> Config {
        self.registry_body_limit = bytes;
        self
    }

    /// Sets the largest file a download accepts, in bytes (default 1 GiB).
    pub fn with_download_limit(mut self, bytes: u64) -> Config {
        self.download_body_limit = bytes;
        self
    }

    /// Sets the time allowed for a whole download, every attempt included
    /// (default 10 minutes).
    pub fn with_download_timeout(mut self, timeout: Duration) -> Config {
        self.download_timeout = timeout;
        self
    }

    /// Sets how failed downloads are retried (default: the registry
    /// requests' 2 attempts 1 s apart, with no timeout per attempt).
    pub fn with_download_retry_policy(mut self, policy: RetryPolicy) -> Config {
        self.download_retry_policy = policy;
        self
    }

    /// Sets the time allowed for a whole login request
    /// ([`RequestKind::Login`], default `DEFAULT_LOGIN_TIMEOUT` (30 s)).
    pub fn with_login_timeout(mut self, timeout: Duration) -> Config {
        self.login_timeout = timeout;
        self
    }

    /// Sets how failed registry requests are retried, and how long each
    /// attempt may take.
    pub fn with_registry_retry_policy(mut self, policy: RetryPolicy) -> Config {
        self.mirror_retry_policy = mirror_policy(self.dialect, &policy);
        self.registry_retry_policy = policy;
        self
    }

    /// Sets how many times a failed registry request is retried
    /// (`TF_REGISTRY_DISCOVERY_RETRY`), with the current policy's waits.
    pub fn with_registry_retries(self, retries: u32) -> Config {
        let policy = self.registry_retry_policy.clone().with_retries(retries);
        self.with_registry_retry_policy(policy)
    }

    /// Sets how long each attempt of a registry request may take, body
    /// included (`TF_REGISTRY_CLIENT_TIMEOUT`; `None`: only the deadline of
    /// [`Config::timeout_for`] bounds it).
    pub fn with_registry_attempt_timeout(self, timeout: Option<Duration>) -> Config {
        let policy = self
            .registry_retry_policy
            .clone()
            .with_attempt_timeout(timeout);
        self.with_registry_retry_policy(policy)
    }

    /// Sets the CLI version the requests announce: in `X-Terraform-Version`
    /// of registry requests (registries may use it to hide versions a CLI
    /// cannot install) and in the dialect's `User-Agent` (default:
    /// [`Dialect::default_cli_version`]). It must be a version,
    /// `MAJOR.MINOR.PATCH` with an optional `-prerelease` and `+build`.
    pub fn with_cli_version(mut self, version: &str) -> Result<Config, Error> {
        check_version(version)?;
        self.cli_version = HeaderValue::from_str(version).map_err(|_| Error::InvalidArgument {
            message: format!("invalid CLI version {version:?}"),
        })?;
        Ok(self.with_agents())
    }

    /// Sets the `User-Agent` of every request, in place of the CLI's (but
    /// for the `tfe.v2` token check, which sends go-tfe's as Terraform
    /// does, LOGIN-10). Fails if the text cannot be a header value (control
    /// characters, for example).
    pub fn with_user_agent(mut self, value: &str) -> Result<Config, InvalidHeaderValue> {
        self.custom_agent = Some(HeaderValue::from_str(value)?);
        Ok(self.with_agents())
    }

    /// Appends Terraform's `TF_APPEND_USER_AGENT` text to every request's
    /// `User-Agent`: trimmed, and ignored when empty (docs/behaviour.md,
    /// DISCO-3).
    pub fn with_appended_user_agent(mut self, extra: &str) -> Result<Config, InvalidHeaderValue> {
        let extra = extra.trim();
        if extra.is_empty() {
            return Ok(self);
        }
        HeaderValue::from_str(extra)?;
        self.appended_agent = Some(match self.appended_agent.take() {
            Some(before) => format!("{before} {extra}").into(),
            None => extra.into(),
        });
        Ok(self.with_agents())
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

    /// How many redirects a discovery follows.
    pub fn max_redirects(&self) -> u32 {
        self.max_redirects
    }

    /// How many redirects a request of `kind` follows.
    pub fn max_redirects_for(&self, kind: RequestKind) -> u32 {
        match kind {
            RequestKind::Discovery => self.max_redirects,
            RequestKind::Registry | RequestKind::Download => self.registry_max_redirects,
            RequestKind::Mirror => MIRROR_MAX_REDIRECTS,
            RequestKind::Oci | RequestKind::Login => DEFAULT_REGISTRY_MAX_REDIRECTS,
        }
    }

    /// The largest discovery document accepted, in bytes.
    pub fn body_limit(&self) -> u64 {
        self.body_limit
    }

    /// The largest registry API response accepted, in bytes.
    pub fn registry_body_limit(&self) -> u64 {
        self.registry_body_limit
    }

    /// The largest response body a request of `kind` accepts, in bytes.
    pub fn body_limit_for(&self, kind: RequestKind) -> u64 {
        match kind {
            RequestKind::Discovery => self.body_limit,
            RequestKind::Registry | RequestKind::Mirror => self.registry_body_limit,
            RequestKind::Oci => OCI_BODY_LIMIT,
            RequestKind::Login => LOGIN_BODY_LIMIT,
            RequestKind::Download => self.download_body_limit,
        }
    }

    /// The CLI version requests announce (`X-Terraform-Version`).
    pub fn cli_version(&self) -> &HeaderValue {
        &self.cli_version
    }

    /// The time allowed for a whole discovery.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The time allowed for a whole transfer of `kind`, every attempt and wait
    /// included: a discovery's [`Config::timeout`]; for a registry request,
    /// every attempt at its timeout and every computed wait (21 s by
    /// default), or the discovery timeout per attempt when attempts have no
    /// timeout of their own. A `Retry-After` that would end past it is not
    /// waited for (D12).
    pub fn timeout_for(&self, kind: RequestKind) -> Duration {
        match kind {
            RequestKind::Discovery => self.timeout,
            RequestKind::Download => self.download_timeout,
            RequestKind::Login => self.login_timeout,
            RequestKind::Registry | RequestKind::Mirror | RequestKind::Oci => {
                let policy = self.retry_policy_for(kind);
                policy.longest().unwrap_or_else(|| {
                    policy
                        .clone()
                        .with_attempt_timeout(Some(self.timeout))
                        .longest()
                        .unwrap_or(Duration::MAX)
                })
            }
        }
    }

    /// How failed discovery attempts are retried.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry_policy
    }

    /// How failed registry requests are retried.
    pub fn registry_retry_policy(&self) -> &RetryPolicy {
        &self.registry_retry_policy
    }

    /// How failed attempts of a request of `kind` are retried.
    pub fn retry_policy_for(&self, kind: RequestKind) -> &RetryPolicy {
        match kind {
            RequestKind::Discovery => &self.retry_policy,
            RequestKind::Registry => &self.registry_retry_policy,
            RequestKind::Download => &self.download_retry_policy,
            RequestKind::Mirror => &self.mirror_retry_policy,
            RequestKind::Oci => &OCI_RETRY_POLICY,
            RequestKind::Login => &LOGIN_RETRY_POLICY,
        }
    }

    /// The `User-Agent` of discovery requests.
    pub fn user_agent(&self) -> &HeaderValue {
        self.agents.get(RequestKind::Discovery)
    }

    /// The `User-Agent` of requests of `kind`.
    pub fn user_agent_for(&self, kind: RequestKind) -> &HeaderValue {
        self.agents.get(kind)
    }

    /// The hosts allowed plain http.
    pub fn plain_http_hosts(&self) -> &[Hostname] {
        &self.plain_http_hosts
    }

    /// True when `host` (with `port`, the URL's effective port) is a plain-http
    /// development host (D5).
    pub(crate) fn allows_plain_http(&self, host: &str, port: Option<u16>) -> bool {
        plain_http_allowed(&self.plain_http_hosts, host, port)
    }
}

/// True when `host` with `port` is one of `hosts`, the plain-http
/// development hosts a [`Config`] names (D5): a listed host without a port
/// means port 80. The one check, for requests and for the archives a
/// network mirror lists (D20).
pub(crate) fn plain_http_allowed(hosts: &[Hostname], host: &str, port: Option<u16>) -> bool {
    hosts
        .iter()
        .any(|h| h.host() == host && h.port().unwrap_or(80) == port.unwrap_or(80))
}

/// The registry retry policy as each CLI's network mirror client applies
/// it: Terraform's retries as its registry client (`TF_REGISTRY_DISCOVERY_RETRY`
/// included); OpenTofu's never retries, with the same timeout per attempt
/// (MIRROR-4).
fn mirror_policy(dialect: Dialect, registry: &RetryPolicy) -> RetryPolicy {
    match dialect {
        Dialect::Terraform => registry.clone(),
        Dialect::OpenTofu => registry.clone().with_attempts(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialect_moves_what_is_still_its_default() {
        let config = Config::new(Dialect::Terraform).with_dialect(Dialect::OpenTofu);
        assert_eq!(config.user_agent(), "OpenTofu/1.12.6");
        assert_eq!(config.cli_version(), "1.12.6");
        assert_eq!(config.retry_policy().attempts(), 1);
        let custom = Config::new(Dialect::OpenTofu)
            .with_cli_version("1.9.0")
            .expect("a version")
            .with_user_agent("mine/1")
            .expect("a header")
            .with_dialect(Dialect::Terraform);
        assert_eq!(custom.cli_version(), "1.9.0", "the caller's is kept");
        assert_eq!(custom.user_agent(), "mine/1");
    }

    #[test]
    fn appended_text_goes_after_every_agent() {
        let config = Config::new(Dialect::Terraform)
            .with_appended_user_agent("  ci/1 ")
            .expect("a header")
            .with_cli_version("1.11.4")
            .expect("a version");
        assert_eq!(
            config.user_agent(),
            "HashiCorp Terraform/1.11.4 (+https://www.terraform.io) ci/1"
        );
        assert_eq!(
            config.user_agent_for(RequestKind::Registry),
            "Terraform/1.11.4 ci/1"
        );
        assert!(Config::default().with_cli_version("1.11").is_err());
        assert!(Config::default().with_cli_version("v1.11.4").is_err());
    }

    #[test]
    fn a_registry_transfer_may_take_every_attempt_and_wait() {
        let config = Config::default();
        assert_eq!(
            config.timeout_for(RequestKind::Registry),
            Duration::from_secs(21)
        );
        let no_attempt_timeout = config.with_registry_attempt_timeout(None);
        assert_eq!(
            no_attempt_timeout.timeout_for(RequestKind::Registry),
            Duration::from_secs(23),
            "11 s per attempt then"
        );
    }
}
