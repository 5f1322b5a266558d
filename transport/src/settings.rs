//! The client builder every transport shares, and what it resolves to.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tfdisco_core::http::Uri;
use tfdisco_core::{
    Config, CredentialsSource, Dialect, Env, Hostname, NoCredentials, RetryPolicy, Services,
    TransportError, TransportErrorKind,
};

use crate::proxy::{Proxies, ProxyOptions};
use crate::roots::CaSource;
use crate::{Proxy, SharedCache, TrustAnchors};
use tfdisco_oci::OciCredentialsSource;

mod environment;

/// A transport's client, built from resolved [`Settings`].
///
/// Each transport implements it for its `Client`, so that
/// `Client::builder()` is a [`ClientBuilder`] with the same options
/// everywhere.
pub trait FromSettings: Sized {
    /// Builds the client; transport-specific failures are
    /// [`BuildError::Transport`].
    fn from_settings(settings: Settings) -> Result<Self, BuildError>;
}

/// Builds a discovery client `C`: discovery policy, trust roots, proxies,
/// address overrides, credentials.
///
/// Options that can fail (a User-Agent with control characters, a proxy URL
/// that does not parse, a CA file that cannot be read) report at
/// [`ClientBuilder::build`], as reqwest does. Nothing is read from the
/// environment before `build`.
#[must_use]
pub struct ClientBuilder<C> {
    config: Config,
    error: Option<BuildError>,
    /// `None`: the CLI configuration's source if one is applied, else none.
    credentials: Option<Arc<dyn CredentialsSource>>,
    /// The credentials OCI registries are asked with (none: anonymous).
    oci_credentials: Option<Arc<dyn OciCredentialsSource>>,
    #[cfg(feature = "cli-config")]
    cli: Option<tfdisco_config::CliConfig>,
    extra_roots: Vec<CaSource>,
    system_roots: bool,
    proxies: ProxyOptions,
    overrides: HashMap<(String, u16), Vec<SocketAddr>>,
    pool: Pool,
    /// `None`: the CLI configuration's environment, else the process's, read
    /// at `build` (`environment.rs`).
    environment: Option<Env>,
    /// Registry settings the caller gave, which the CLI configuration's
    /// (CFG-11) do not replace.
    registry_set: RegistrySet,
    client: PhantomData<fn() -> C>,
}

/// Which registry settings the caller gave the builder.
#[derive(Clone, Copy, Debug, Default)]
struct RegistrySet {
    retries: bool,
    timeout: bool,
}

/// How connections are kept for reuse.
#[derive(Clone, Copy, Debug)]
struct Pool {
    reuse: bool,
    idle_timeout: Duration,
    max_idle_per_origin: usize,
}

/// How long an idle connection is kept (Go's and hyper-util's default).
pub const DEFAULT_POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(90);
/// Idle connections kept per origin.
pub const DEFAULT_POOL_MAX_IDLE_PER_ORIGIN: usize = 4;

impl<C> Default for ClientBuilder<C> {
    fn default() -> Self {
        ClientBuilder {
            config: Config::default(),
            error: None,
            credentials: None,
            oci_credentials: None,
            #[cfg(feature = "cli-config")]
            cli: None,
            extra_roots: Vec::new(),
            system_roots: true,
            proxies: ProxyOptions {
                from_env: true,
                ..ProxyOptions::default()
            },
            overrides: HashMap::new(),
            pool: Pool {
                reuse: true,
                idle_timeout: DEFAULT_POOL_IDLE_TIMEOUT,
                max_idle_per_origin: DEFAULT_POOL_MAX_IDLE_PER_ORIGIN,
            },
            environment: None,
            registry_set: RegistrySet::default(),
            client: PhantomData,
        }
    }
}

impl<C> fmt::Debug for ClientBuilder<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("config", &self.config)
            .field("extra_roots", &self.extra_roots.len())
            .field("system_roots", &self.system_roots)
            .field("overrides", &self.overrides)
            .field("pool", &self.pool)
            .field("environment", &self.environment)
            .finish_non_exhaustive()
    }
}

impl<C: FromSettings> ClientBuilder<C> {
    /// The defaults: OpenTofu dialect, 3 redirects, 1 MiB, 11 s, system roots,
    /// proxies from the environment, no credentials, connection reuse.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the client: reads the environment (proxies, `SSL_CERT_*`, and
    /// with a CLI configuration `TF_TOKEN_*` and `TF_APPEND_USER_AGENT`),
    /// loads the trust roots, and reports the first invalid option. Which
    /// environment that is: see [`ClientBuilder::environment`].
    pub fn build(mut self) -> Result<C, BuildError> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let env = self.take_environment()?;
        let trust_anchors = TrustAnchors::load(self.system_roots, &self.extra_roots, &env)?;
        let proxies = Proxies::resolve(&self.proxies, &env)?;
        let mut forced = Vec::new();
        #[cfg(feature = "cli-config")]
        if let Some(cli) = self.cli.take() {
            self.apply_cli_config(&cli, &env, &mut forced)?;
        }
        C::from_settings(Settings {
            config: self.config,
            credentials: self.credentials.unwrap_or_else(|| Arc::new(NoCredentials)),
            oci_credentials: self.oci_credentials,
            forced: forced.into(),
            trust_anchors,
            proxies,
            overrides: self.overrides,
            pool: self.pool,
        })
    }

    /// What [`ClientBuilder::cli_config`] defers to `build`, when the
    /// environment is known.
    #[cfg(feature = "cli-config")]
    fn apply_cli_config(
        &mut self,
        cli: &tfdisco_config::CliConfig,
        env: &Env,
        forced: &mut Vec<Services>,
    ) -> Result<(), BuildError> {
        if let Some(extra) = tfdisco_config::appended_user_agent(env) {
            self.config = self
                .config
                .clone()
                .with_appended_user_agent(extra)
                .map_err(|_| BuildError::UserAgent(extra.to_owned()))?;
        }
        // TF_REGISTRY_* and OpenTofu's registry_protocols, unless the caller
        // set these (CFG-11).
        let registry = cli.registry_settings(env);
        if let Some(retries) = registry.retries.filter(|_| !self.registry_set.retries) {
            self.config = self.config.clone().with_registry_retries(retries);
        }
        if let Some(timeout) = registry
            .attempt_timeout
            .filter(|_| !self.registry_set.timeout)
        {
            self.config = self.config.clone().with_registry_attempt_timeout(timeout);
        }
        if self.credentials.is_none() {
            self.credentials = Some(Arc::new(cli.credentials_source(env)));
        }
        // OpenTofu's OCI credentials (OCICRED), unless the caller gave a
        // source: the policy is built when a registry first needs it.
        if self.oci_credentials.is_none() {
            self.oci_credentials = Some(Arc::new(cli.oci_credentials_source(env)));
        }
        for block in cli.host_blocks() {
            let services = block.services().iter().cloned();
            match Services::forced(block.host().clone(), self.config.dialect(), services) {
                Ok(services) => forced.push(services),
                // `CliConfig` reports such a host block as a diagnostic.
                Err(error) => {
                    tracing::warn!(target: "tfdisco", host = block.name(), %error, "host block skipped");
                }
            }
        }
        Ok(())
    }
}

impl<C> ClientBuilder<C> {
    fn config_with(mut self, f: impl FnOnce(Config) -> Config) -> Self {
        self.config = f(self.config);
        self
    }

    fn fail(mut self, error: BuildError) -> Self {
        self.error.get_or_insert(error);
        self
    }

    /// Replaces the whole discovery configuration (the options below change
    /// parts of it).
    pub fn config(self, config: Config) -> Self {
        self.config_with(|_| config)
    }

    /// The time allowed for one whole discovery, redirects and body included
    /// (default 11 s).
    pub fn timeout(self, timeout: Duration) -> Self {
        self.config_with(|c| c.with_timeout(timeout))
    }

    /// Retries failed discovery attempts at most `retries` times, with the
    /// current policy's waits (default: the dialect's policy, Terraform's 3
    /// retries or OpenTofu's none).
    pub fn retries(self, retries: u32) -> Self {
        self.config_with(|c| c.with_retries(retries))
    }

    /// How failed discovery attempts are retried (see [`RetryPolicy`]).
    pub fn retry_policy(self, policy: RetryPolicy) -> Self {
        self.config_with(|c| c.with_retry_policy(policy))
    }

    /// How many redirects a discovery follows (default 3).
    pub fn max_redirects(self, max: u32) -> Self {
        self.config_with(|c| c.with_max_redirects(max))
    }

    /// Retries failed registry requests at most `retries` times (default 1,
    /// as both CLIs; `TF_REGISTRY_DISCOVERY_RETRY` with
    /// [`ClientBuilder::cli_config`]).
    pub fn registry_retries(mut self, retries: u32) -> Self {
        self.registry_set.retries = true;
        self.config_with(|c| c.with_registry_retries(retries))
    }

    /// How long each attempt of a registry request may take, body included
    /// (default 10 s, as both CLIs; `TF_REGISTRY_CLIENT_TIMEOUT` with
    /// [`ClientBuilder::cli_config`]).
    pub fn registry_timeout(mut self, timeout: Duration) -> Self {
        self.registry_set.timeout = true;
        self.config_with(|c| c.with_registry_attempt_timeout(Some(timeout)))
    }

    /// How failed registry requests are retried, and how long each attempt
    /// may take (see [`RetryPolicy::registry`]).
    pub fn registry_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.registry_set = RegistrySet {
            retries: true,
            timeout: true,
        };
        self.config_with(|c| c.with_registry_retry_policy(policy))
    }

    /// The CLI version requests announce, in the dialect's `User-Agent` and
    /// in registry requests' `X-Terraform-Version` (default: the current
    /// release, [`Dialect::default_cli_version`]); a version such as
    /// `1.11.4`.
    pub fn cli_version(self, version: &str) -> Self {
        match self.config.clone().with_cli_version(version) {
            Ok(config) => self.config(config),
            Err(_) => self.fail(BuildError::CliVersion(version.to_owned())),
        }
    }

    /// The largest discovery document accepted (default 1 MiB).
    pub fn body_limit(self, bytes: u64) -> Self {
        self.config_with(|c| c.with_body_limit(bytes))
    }

    /// The largest registry API response accepted (default 16 MiB).
    pub fn registry_body_limit(self, bytes: u64) -> Self {
        self.config_with(|c| c.with_registry_body_limit(bytes))
    }

    /// Terraform or OpenTofu rules: service ids, the CLI's `User-Agent` and
    /// version.
    pub fn dialect(self, dialect: Dialect) -> Self {
        self.config_with(|c| c.with_dialect(dialect))
    }

    /// Replaces the User-Agent header of every request.
    pub fn user_agent(self, value: &str) -> Self {
        match self.config.clone().with_user_agent(value) {
            Ok(config) => self.config(config),
            Err(_) => self.fail(BuildError::UserAgent(value.to_owned())),
        }
    }

    /// Appends text to the User-Agent as Terraform does with
    /// `TF_APPEND_USER_AGENT` (trimmed; ignored when empty).
    pub fn append_user_agent(self, extra: &str) -> Self {
        match self.config.clone().with_appended_user_agent(extra) {
            Ok(config) => self.config(config),
            Err(_) => self.fail(BuildError::UserAgent(extra.to_owned())),
        }
    }

    /// Allows plain `http://` for a development host (D5); credentials are
    /// still never sent over http.
    pub fn plain_http_host(self, host: Hostname) -> Self {
        self.config_with(|c| c.with_plain_http_host(host))
    }

    /// Where tokens come from (default: none, or with
    /// [`ClientBuilder::cli_config`] the CLI's sources). A failing source
    /// means the request goes without credentials, as in Terraform, and
    /// observers hear of it.
    pub fn credentials(mut self, source: impl CredentialsSource + 'static) -> Self {
        self.credentials = Some(Arc::new(source));
        self
    }

    /// Where OCI registries' credentials come from (OpenTofu's
    /// `oci_mirror` and `oci://` modules): a
    /// [`RegistryCredentials`](tfdisco_oci::RegistryCredentials) table, or
    /// any [`OciCredentialsSource`](tfdisco_oci::OciCredentialsSource). Without one, OCI requests go
    /// anonymously.
    pub fn oci_credentials(mut self, source: impl OciCredentialsSource + 'static) -> Self {
        self.oci_credentials = Some(Arc::new(source));
        self
    }

    /// Applies a Terraform or OpenTofu CLI configuration read by
    /// `tfdisco-config`, as `terraform` / `tofu` apply theirs:
    ///
    /// - the configuration's dialect (that of [`CliConfig::load`](tfdisco_config::CliConfig::load));
    /// - its credentials: `TF_TOKEN_*` variables, `credentials` blocks,
    ///   `credentials.tfrc.json` and the credentials helper (unless
    ///   [`ClientBuilder::credentials`] gives another source);
    /// - OpenTofu's OCI credentials: `oci_credentials` and
    ///   `oci_default_credentials` blocks, Docker-style files and credential
    ///   helpers (unless [`ClientBuilder::oci_credentials`] gives another
    ///   source);
    /// - its `host` blocks: those hosts are never discovered;
    /// - `TF_APPEND_USER_AGENT`, appended to the User-Agent.
    ///
    /// The client reads its variables (these, and proxies and `SSL_CERT_*`)
    /// when it is built, from the environment the configuration was loaded
    /// with ([`CliConfig::env`](tfdisco_config::CliConfig::env)), so
    /// `CliConfig::load(dialect, &env)` and `.cli_config(&cli)` are all it
    /// takes. A configuration made with
    /// [`CliConfig::from_sources`](tfdisco_config::CliConfig::from_sources)
    /// has no environment: then [`ClientBuilder::environment`] (default: the
    /// process) is read, as for any client. An explicit `environment`, given
    /// before or after this call, must agree with the configuration's on
    /// what the configuration reads, or `build` fails (see
    /// [`ClientBuilder::environment`]).
    ///
    /// ```
    /// use tfdisco_config::{CliConfig, Dialect};
    /// use tfdisco_core::{CredentialsSource, Env, Hostname};
    /// use tfdisco_transport::{ClientBuilder, Settings};
    ///
    /// let home = tempfile::tempdir()?;
    /// std::fs::write(
    ///     home.path().join(".tofurc"),
    ///     r#"host "example.com" { services = { "modules.v1" = "https://modules.example.net/" } }"#,
    /// )?;
    /// let env = Env::empty() // Env::from_process() in a program
    ///     .with_var("HOME", home.path())
    ///     .with_var("TF_TOKEN_registry_example_com", "s3cret")
    ///     .with_var("TF_APPEND_USER_AGENT", "my-tool/1.0");
    /// let cli = CliConfig::load(Dialect::OpenTofu, &env);
    ///
    /// let settings: Settings = ClientBuilder::new().cli_config(&cli).build()?;
    /// assert_eq!(settings.config().user_agent(), "OpenTofu/1.12.6 my-tool/1.0");
    /// let token = settings.credentials().credentials(&Hostname::parse("registry.example.com")?)?;
    /// assert_eq!(token.expect("from TF_TOKEN_*").expose_token(), "s3cret");
    /// let host = Hostname::parse("example.com")?;
    /// assert!(settings.new_cache().cached(&host).is_some_and(|s| s.is_forced()));
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    #[cfg(feature = "cli-config")]
    pub fn cli_config(mut self, cli: &tfdisco_config::CliConfig) -> Self {
        if let Some(dialect) = cli.locations().map(|l| l.dialect()) {
            self = self.dialect(dialect);
        }
        self.cli = Some(cli.clone());
        self
    }

    /// Also trusts the CA certificates in this PEM file.
    pub fn add_root_certificate_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.extra_roots.push(CaSource::File(path.into()));
        self
    }

    /// Also trusts the CA certificates in these PEM bytes.
    pub fn add_root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.extra_roots.push(CaSource::Pem(pem.into()));
        self
    }

    /// Whether to trust the system roots (default true): the platform store,
    /// or `SSL_CERT_FILE` / `SSL_CERT_DIR` when either is set.
    pub fn system_roots(mut self, enabled: bool) -> Self {
        self.system_roots = enabled;
        self
    }

    /// Sends every request through this HTTP proxy (`http://[user:pass@]host:port`),
    /// except loopback and what `NO_PROXY` / [`ClientBuilder::no_proxy`] exclude.
    pub fn proxy(self, url: &str) -> Self {
        self.https_proxy(url).http_proxy(url)
    }

    /// The proxy for https requests, instead of `HTTPS_PROXY`.
    pub fn https_proxy(mut self, url: &str) -> Self {
        self.proxies.https = Some(url.to_owned());
        self
    }

    /// The proxy for plain-http development hosts, instead of `HTTP_PROXY`.
    pub fn http_proxy(mut self, url: &str) -> Self {
        self.proxies.http = Some(url.to_owned());
        self
    }

    /// Hosts reached directly, in `NO_PROXY` syntax (`example.com,.internal,10.0.0.0/8,*`),
    /// instead of the `NO_PROXY` variable.
    pub fn no_proxy(mut self, list: &str) -> Self {
        self.proxies.no_proxy = Some(list.to_owned());
        self
    }

    /// Whether `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read (default
    /// true); explicit settings win either way.
    pub fn env_proxies(mut self, enabled: bool) -> Self {
        self.proxies.from_env = enabled;
        self
    }

    /// Connects to `addr` for requests to `host` on port `addr.port()`,
    /// without DNS, like `curl --resolve host:port:addr`. Repeat to give more
    /// addresses; they are tried in order.
    pub fn resolve(mut self, host: &str, addr: SocketAddr) -> Self {
        let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
        self.overrides
            .entry((host, addr.port()))
            .or_default()
            .push(addr);
        self
    }

    /// Whether connections are kept open and reused (default true). With
    /// `false` every request opens a new connection.
    pub fn reuse_connections(mut self, enabled: bool) -> Self {
        self.pool.reuse = enabled;
        self
    }

    /// How long an idle connection is kept for reuse (default 90 s).
    pub fn pool_idle_timeout(mut self, timeout: Duration) -> Self {
        self.pool.idle_timeout = timeout;
        self
    }

    /// How many idle connections are kept per origin (default 4; libcurl
    /// keeps this many idle handles in all).
    pub fn pool_max_idle_per_origin(mut self, max: usize) -> Self {
        self.pool.max_idle_per_origin = max;
        self
    }

    /// Where `build` reads environment variables: proxies, `SSL_CERT_*`,
    /// and with a CLI configuration `TF_TOKEN_*` and `TF_APPEND_USER_AGENT`
    /// (docs/behaviour.md, CFG-10).
    ///
    /// Without this call: the environment the CLI configuration given to
    /// [`ClientBuilder::cli_config`] was loaded with, or else a snapshot of
    /// the process environment, taken by `build`.
    ///
    /// With a CLI configuration that has an environment of its own (one
    /// from [`CliConfig::load`](tfdisco_config::CliConfig::load)), this one
    /// is read instead, in whichever order the two calls come, but it must
    /// give the client the same `TF_APPEND_USER_AGENT` text and (unless
    /// [`ClientBuilder::credentials`] gives another source) the same
    /// `TF_TOKEN_*` credentials for every host; other variables may differ.
    /// Otherwise `build` fails with [`BuildError::EnvironmentMismatch`],
    /// naming the variables, rather than send other credentials than one of
    /// the two environments says. Give both the same `Env`, or leave this
    /// call out.
    pub fn environment(mut self, env: Env) -> Self {
        self.environment = Some(env);
        self
    }
}

/// What a [`ClientBuilder`] resolved to: the input of
/// [`FromSettings::from_settings`].
#[derive(Clone)]
pub struct Settings {
    config: Config,
    credentials: Arc<dyn CredentialsSource>,
    oci_credentials: Option<Arc<dyn OciCredentialsSource>>,
    /// The services of `host` blocks, forced into every new cache.
    forced: Arc<[Services]>,
    trust_anchors: TrustAnchors,
    proxies: Proxies,
    overrides: HashMap<(String, u16), Vec<SocketAddr>>,
    pool: Pool,
}

/// The settings themselves: `ClientBuilder::<Settings>::new()…build()`
/// resolves the options once, for a transport chosen afterwards.
impl FromSettings for Settings {
    fn from_settings(settings: Settings) -> Result<Settings, BuildError> {
        Ok(settings)
    }
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("config", &self.config)
            .field("proxies", &self.proxies)
            .field("overrides", &self.overrides)
            .field("pool", &self.pool)
            .finish_non_exhaustive()
    }
}

/// Where one request goes: the origin, and the proxy in between if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// True for `https` (TLS to the origin, through a tunnel when proxied).
    pub https: bool,
    /// The origin's host (IPv6 without brackets).
    pub host: String,
    /// The origin's port.
    pub port: u16,
    /// The proxy to go through.
    pub proxy: Option<Proxy>,
}

impl Route {
    /// `host:port`, with brackets around IPv6 addresses: the `CONNECT`
    /// target and the `Host` header.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The host and port a transport opens a TCP connection to: the proxy's
    /// or the origin's.
    pub fn connect_to(&self) -> (&str, u16) {
        match &self.proxy {
            Some(proxy) => (proxy.host(), proxy.port()),
            None => (&self.host, self.port),
        }
    }
}

impl Settings {
    /// The discovery configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The credentials source.
    pub fn credentials(&self) -> &Arc<dyn CredentialsSource> {
        &self.credentials
    }

    /// The certificates to trust.
    pub fn trust_anchors(&self) -> &TrustAnchors {
        &self.trust_anchors
    }

    /// Whether connections may be kept and reused.
    pub fn reuse_connections(&self) -> bool {
        self.pool.reuse
    }

    /// How long an idle connection is kept.
    pub fn pool_idle_timeout(&self) -> Duration {
        self.pool.idle_timeout
    }

    /// How many idle connections are kept per origin: 0 when connections
    /// are not reused.
    pub fn pool_max_idle_per_origin(&self) -> usize {
        if self.pool.reuse {
            self.pool.max_idle_per_origin
        } else {
            0
        }
    }

    /// A new, empty discovery cache (aliases, forced services, coalescing) for this
    /// configuration and credentials. Each call makes another cache: a
    /// client makes one and its clones share it.
    pub fn new_cache(&self) -> SharedCache {
        let cache = SharedCache::with_oci_credentials(
            self.config.clone(),
            self.credentials.clone(),
            self.oci_credentials.clone(),
        );
        for services in self.forced.iter() {
            cache.force_services(services.clone());
        }
        cache
    }

    /// Where a request to `uri` goes.
    pub fn route(&self, uri: &Uri) -> Result<Route, TransportError> {
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            other => {
                return Err(TransportError::new(
                    TransportErrorKind::Other,
                    format!("unsupported URL scheme {other:?}"),
                ));
            }
        };
        let host = uri
            .host()
            .ok_or_else(|| TransportError::new(TransportErrorKind::Other, "URL without a host"))?
            .trim_matches(['[', ']'])
            .to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let proxy = self.proxies.for_target(https, &host, port).cloned();
        Ok(Route {
            https,
            host,
            port,
            proxy,
        })
    }

    /// Every address override: `(host, port, addresses)`.
    pub fn overrides(&self) -> impl Iterator<Item = (&str, u16, &[SocketAddr])> {
        self.overrides
            .iter()
            .map(|((host, port), addrs)| (host.as_str(), *port, addrs.as_slice()))
    }

    /// The addresses configured with [`ClientBuilder::resolve`] for
    /// `host:port`, if any; transports resolve other names with DNS.
    pub fn resolve_override(&self, host: &str, port: u16) -> Option<&[SocketAddr]> {
        let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
        self.overrides.get(&(host, port)).map(Vec::as_slice)
    }
}

/// Why a client could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// The User-Agent text cannot be sent in a header.
    UserAgent(String),
    /// The CLI version is not a version (`MAJOR.MINOR.PATCH`, with an
    /// optional `-prerelease` and `+build`).
    CliVersion(String),
    /// A CA file could not be read.
    CaFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// CA certificates could not be used.
    CaPem {
        /// The file or "PEM bytes".
        origin: String,
        /// What is wrong.
        problem: String,
    },
    /// A proxy URL is not usable.
    Proxy {
        /// The URL, user info replaced by `***`.
        url: String,
        /// What is wrong.
        problem: String,
    },
    /// The TLS configuration could not be built.
    Tls(String),
    /// The transport itself could not be set up.
    Transport(Box<dyn std::error::Error + Send + Sync>),
    /// [`ClientBuilder::environment`] and the environment the CLI
    /// configuration was loaded with disagree on what the configuration
    /// reads (docs/behaviour.md, CFG-10).
    EnvironmentMismatch {
        /// The variables on which they disagree, sorted (names only, never
        /// values).
        variables: Vec<String>,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::UserAgent(value) => {
                write!(f, "invalid User-Agent {value:?}: not a valid header value")
            }
            BuildError::CliVersion(value) => write!(
                f,
                "invalid CLI version {value:?}: expected MAJOR.MINOR.PATCH, with an \
                 optional -prerelease and +build"
            ),
            BuildError::CaFile { path, source } => {
                write!(
                    f,
                    "cannot read CA certificates from {}: {source}",
                    path.display()
                )
            }
            BuildError::CaPem { origin, problem } => {
                write!(f, "cannot use CA certificates from {origin}: {problem}")
            }
            BuildError::Proxy { url, problem } => write!(f, "invalid proxy {url:?}: {problem}"),
            BuildError::Tls(problem) => write!(f, "cannot set up TLS: {problem}"),
            BuildError::Transport(e) => write!(f, "cannot set up the transport: {e}"),
            BuildError::EnvironmentMismatch { variables } => write!(
                f,
                "the builder's environment disagrees with the one the CLI configuration was \
                 loaded with on {}: give CliConfig::load and ClientBuilder::environment the \
                 same Env, or leave environment out",
                variables.join(", ")
            ),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::CaFile { source, .. } => Some(source),
            BuildError::Transport(e) => e.source(),
            _ => None,
        }
    }
}
