//! The options a tool's user gives and the one way to turn them into a
//! client, as `terraform` and `tofu` set themselves up: what the `tfdisco`
//! CLI, the Python package and the Node package all call, so that each
//! language only reads its own syntax for them.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tfdisco_config::{CliConfig, CliCredentials, Diagnostic};
use tfdisco_core::{
    CredentialsError, CredentialsSource, Dialect, Env, Hostname, NoCredentials, StaticCredentials,
};

use crate::{BuildError, ClientBuilder};

tfdisco_core::message_error! {
    /// An option a front end was given that it cannot use: a CA file that
    /// cannot be read, `jobs` of 0, CLI credentials without the CLI
    /// configuration, … Every front end reports it as
    /// [`kinds::INVALID_OPTION`](crate::kinds::INVALID_OPTION) (the CLI exits 2).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct OptionError {
        /// What is wrong.
        message: String,
    }
    /// An unusable option, and why.
    pub fn new;
}

impl From<BuildError> for OptionError {
    fn from(e: BuildError) -> OptionError {
        OptionError::new(e.to_string())
    }
}

/// Where a client's tokens come from.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum CredentialsChoice {
    /// The CLI's sources, as `terraform` / `tofu` look them up: `TF_TOKEN_*`,
    /// `credentials` blocks, `credentials.tfrc.json`, the credentials helper.
    /// Needs [`ClientOptions::cli_config`].
    #[default]
    Cli,
    /// No token at all.
    Nothing,
    /// These tokens, and no others.
    Static(StaticCredentials),
}

/// What a user of a tfdisco tool can set, in one place, with the
/// defaults of `tfdisco`, `tfdisco.Client` and the Node client: the dialect,
/// limits, trust roots, credentials, the CLI configuration, address
/// overrides and the environment to read.
///
/// [`ClientOptions::load`] reads the environment and the CLI configuration;
/// [`ClientSetup::builder`] then makes the client builder, in the order
/// the CLIs apply things: the configuration first, then the options.
///
/// ```
/// use tfdisco_core::{Dialect, Env};
/// use tfdisco_runs::ClientOptions;
/// use tfdisco_transport::Settings;
///
/// let mut options = ClientOptions::new(Dialect::Terraform);
/// options.env = Some(Env::empty().with_var("TF_APPEND_USER_AGENT", "my-tool/1.0"));
/// options.retries = Some(1);
/// let setup = options.load()?;
/// for diagnostic in setup.diagnostics() {
///     eprintln!("warning: {}", diagnostic.located());
/// }
/// let settings: Settings = setup.builder().build()?;
/// assert_eq!(
///     settings.config().user_agent(),
///     "HashiCorp Terraform/1.15.9 (+https://www.terraform.io) my-tool/1.0"
/// );
/// assert_eq!(settings.config().retry_policy().attempts(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ClientOptions {
    /// Terraform's or OpenTofu's rules, and which CLI configuration is read.
    pub dialect: Dialect,
    /// The time allowed for one whole request, redirects and body included
    /// (`None`: 11 s).
    pub timeout: Option<Duration>,
    /// How often a failed attempt is retried (`None`: the dialect's policy).
    pub retries: Option<u32>,
    /// How many redirects are followed (`None`: 3).
    pub max_redirects: Option<u32>,
    /// The largest discovery document accepted (`None`: 1 MiB).
    pub body_limit: Option<u64>,
    /// How often a failed registry request is retried (`None`:
    /// `TF_REGISTRY_DISCOVERY_RETRY` with the CLI configuration, else 1).
    pub registry_retries: Option<u32>,
    /// How long each attempt of a registry request may take (`None`:
    /// `TF_REGISTRY_CLIENT_TIMEOUT` with the CLI configuration, else 10 s).
    pub registry_timeout: Option<Duration>,
    /// The CLI version requests announce (`None`: the dialect's current
    /// release).
    pub cli_version: Option<String>,
    /// Also trust the CA certificates in these PEM files.
    pub ca_files: Vec<PathBuf>,
    /// Whether to trust the system roots (`SSL_CERT_FILE` / `SSL_CERT_DIR`
    /// when set). Default true.
    pub system_roots: bool,
    /// Where tokens come from (default: the CLI's sources).
    pub credentials: CredentialsChoice,
    /// Whether to read and apply the dialect's CLI configuration: `host`
    /// blocks, `TF_APPEND_USER_AGENT`, and its credentials with
    /// [`CredentialsChoice::Cli`]. Default true.
    pub cli_config: bool,
    /// Replaces the User-Agent header.
    pub user_agent: Option<String>,
    /// Development hosts that may be reached over plain http.
    pub plain_http_hosts: Vec<Hostname>,
    /// `curl --resolve`-style address overrides: `(host, address)`.
    pub resolve: Vec<(String, SocketAddr)>,
    /// The environment to read (`None`: a snapshot of the process's, taken
    /// by [`ClientOptions::load`]).
    pub env: Option<Env>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions::new(Dialect::default())
    }
}

impl ClientOptions {
    /// The defaults, for `dialect`.
    pub fn new(dialect: Dialect) -> ClientOptions {
        ClientOptions {
            dialect,
            timeout: None,
            retries: None,
            max_redirects: None,
            body_limit: None,
            registry_retries: None,
            registry_timeout: None,
            cli_version: None,
            ca_files: Vec::new(),
            system_roots: true,
            credentials: CredentialsChoice::Cli,
            cli_config: true,
            user_agent: None,
            plain_http_hosts: Vec::new(),
            resolve: Vec::new(),
            env: None,
        }
    }

    /// Reads what the options ask for: the environment, and the dialect's
    /// CLI configuration files when [`ClientOptions::cli_config`] is set.
    /// Problems in the files are [`ClientSetup::diagnostics`], never
    /// failures, as in the CLIs. Options that contradict each other are an
    /// [`OptionError`]: [`CredentialsChoice::Cli`] needs the CLI
    /// configuration.
    pub fn load(&self) -> Result<ClientSetup, OptionError> {
        if matches!(self.credentials, CredentialsChoice::Cli) && !self.cli_config {
            return Err(OptionError::new(
                "credentials from the CLI configuration need the CLI configuration: with it \
                 turned off, give no credentials or fixed tokens",
            ));
        }
        let env = self.env.clone().unwrap_or_else(Env::from_process);
        let config = self.cli_config.then(|| CliConfig::load(self.dialect, &env));
        let cli_credentials = match (&config, &self.credentials) {
            (Some(config), CredentialsChoice::Cli) => {
                Some(Arc::new(config.credentials_source(&env)))
            }
            _ => None,
        };
        Ok(ClientSetup {
            options: self.clone(),
            env,
            config,
            cli_credentials,
        })
    }
}

/// What [`ClientOptions::load`] read: the environment, the CLI
/// configuration, and the CLI's credentials lookup the client will use.
#[derive(Debug)]
pub struct ClientSetup {
    options: ClientOptions,
    env: Env,
    config: Option<CliConfig>,
    cli_credentials: Option<Arc<CliCredentials>>,
}

impl ClientSetup {
    /// Problems found in the CLI configuration files: print them as
    /// warnings (`Diagnostic::located` says where).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.config.as_ref().map_or(&[], CliConfig::diagnostics)
    }

    /// The environment read.
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// The CLI configuration read, unless the options turned it off.
    pub fn cli_config(&self) -> Option<&CliConfig> {
        self.config.as_ref()
    }

    /// The CLI's credentials lookup the client uses (with
    /// [`CredentialsChoice::Cli`]): the same instance, so what it caches
    /// (a helper's answers) is shared. For `tfdisco credentials HOST` and
    /// its equivalents.
    pub fn cli_credentials(&self) -> Option<&Arc<CliCredentials>> {
        self.cli_credentials.as_ref()
    }

    /// Where the client's tokens come from, to say so for a host
    /// ([`CredentialsLookup::origin`]): the packages' `credentials_source`.
    pub fn credentials_lookup(&self) -> CredentialsLookup {
        match (&self.options.credentials, &self.cli_credentials) {
            // The lookup the client itself uses: one cache of helper answers.
            (_, Some(cli)) => CredentialsLookup::Cli(Arc::clone(cli)),
            (CredentialsChoice::Static(source), None) => CredentialsLookup::Static(source.clone()),
            _ => CredentialsLookup::Nothing,
        }
    }

    /// The client builder: the CLI configuration applied first (credentials,
    /// `host` blocks, `TF_APPEND_USER_AGENT`, read from the same
    /// environment), then every option. Options that can fail report at
    /// `build`.
    pub fn builder<C>(&self) -> ClientBuilder<C> {
        let options = &self.options;
        let mut builder = ClientBuilder::default();
        match &self.config {
            Some(config) => builder = builder.cli_config(config),
            None => builder = builder.environment(self.env.clone()),
        }
        builder = match (&options.credentials, &self.cli_credentials) {
            (CredentialsChoice::Cli, Some(source)) => builder.credentials(Arc::clone(source)),
            (CredentialsChoice::Static(source), _) => builder.credentials(source.clone()),
            // `Cli` without a configuration sends nothing, as `Nothing` does.
            _ => builder.credentials(NoCredentials),
        };
        builder = builder
            .dialect(options.dialect)
            .system_roots(options.system_roots)
            .given(options.timeout, ClientBuilder::timeout)
            .given(options.retries, ClientBuilder::retries)
            .given(options.max_redirects, ClientBuilder::max_redirects)
            .given(options.body_limit, ClientBuilder::body_limit)
            .given(options.registry_retries, ClientBuilder::registry_retries)
            .given(options.registry_timeout, ClientBuilder::registry_timeout)
            .given(options.cli_version.as_deref(), ClientBuilder::cli_version);
        for file in &options.ca_files {
            builder = builder.add_root_certificate_file(file);
        }
        for host in &options.plain_http_hosts {
            builder = builder.plain_http_host(host.clone());
        }
        for (host, addr) in &options.resolve {
            builder = builder.resolve(host, *addr);
        }
        builder.given(options.user_agent.as_deref(), ClientBuilder::user_agent)
    }
}

/// The options of [`ClientOptions`] that apply only when given.
trait Given: Sized {
    /// `self` with the option `set` sets, when a value was given; as it
    /// was otherwise (the builder's default then stands).
    fn given<V>(self, value: Option<V>, set: impl FnOnce(Self, V) -> Self) -> Self {
        match value {
            Some(value) => set(self, value),
            None => self,
        }
    }
}

impl<C> Given for ClientBuilder<C> {}

/// Where a client's tokens come from ([`ClientSetup::credentials_lookup`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum CredentialsLookup {
    /// The CLI's sources, the client's own instance.
    Cli(Arc<CliCredentials>),
    /// The tokens given.
    Static(StaticCredentials),
    /// No token at all.
    Nothing,
}

impl CredentialsLookup {
    /// Where the token the client would send to `host` comes from, in
    /// words (`environment variable TF_TOKEN_example_com`, `credentials
    /// block in /home/me/.tofurc`, `credentials given to the Client`);
    /// `None` when no token would be sent. Never the token itself. May run
    /// the credentials helper (blocking; its answers are cached).
    pub fn origin(&self, host: &Hostname) -> Result<Option<String>, CredentialsLookupError> {
        let failed = |error| CredentialsLookupError {
            host: host.clone(),
            error,
        };
        match self {
            CredentialsLookup::Nothing => Ok(None),
            CredentialsLookup::Static(source) => Ok(source
                .credentials(host)
                .map_err(failed)?
                .map(|_| "credentials given to the Client".to_owned())),
            CredentialsLookup::Cli(source) => Ok(source
                .find(host)
                .map_err(failed)?
                .filter(|found| found.credentials().is_some())
                .map(|found| found.origin().to_string())),
        }
    }
}

/// A credentials source that failed for a host (a helper that exited with
/// an error, say): [`kinds::CREDENTIALS`](crate::kinds::CREDENTIALS). The message names the host,
/// never a token.
#[derive(Debug)]
pub struct CredentialsLookupError {
    /// The host asked about.
    pub host: Hostname,
    /// What the source said.
    pub error: CredentialsError,
}

impl fmt::Display for CredentialsLookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "credentials for {}: {}", self.host.display(), self.error)
    }
}

impl std::error::Error for CredentialsLookupError {}

/// A timeout given in seconds, as the CLI's `--timeout` and the Python and
/// Node `timeout` options take it: a positive, finite number.
pub fn timeout_from_secs(secs: f64) -> Result<Duration, String> {
    if !(secs > 0.0 && secs.is_finite()) {
        return Err("the timeout must be a positive number of seconds".into());
    }
    Duration::try_from_secs_f64(secs).map_err(|e| format!("the timeout: {e}"))
}

/// One address override as the language packages take it (the Python
/// `resolve={"host:port": "ip"}` mapping, the Node `resolve` object): a
/// `"host:port"` key (an IPv6 host in brackets) and an address, `"ip"` or
/// `"ip:port"` with the key's port (`"[v6]:port"`). The CLI's
/// `--resolve HOST:PORT:ADDR` is curl's syntax instead.
pub fn address_override(key: &str, addr: &str) -> Result<(String, SocketAddr), String> {
    let bad_key =
        || format!("resolve: {key:?} is not \"host:port\" (e.g. \"registry.example.com:443\")");
    let (host, port) = key.rsplit_once(':').ok_or_else(bad_key)?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port: u16 = port.parse().map_err(|_| bad_key())?;
    if host.is_empty() || port == 0 {
        return Err(bad_key());
    }
    if let Ok(given) = addr.parse::<SocketAddr>() {
        if given.port() != port {
            return Err(format!(
                "resolve: {key:?} maps to {addr:?}, another port (give the address alone)"
            ));
        }
        return Ok((host.to_owned(), given));
    }
    let ip: std::net::IpAddr = addr
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .map_err(|_| format!("resolve: {addr:?} (for {key:?}) is not an IP address"))?;
    Ok((host.to_owned(), SocketAddr::new(ip, port)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfdisco_core::{Credentials, CredentialsSource};
    use tfdisco_transport::Settings;

    fn home_with(rc: &str) -> (tempfile::TempDir, Env) {
        let home = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(home.path().join(".tofurc"), rc).expect("written");
        let dir = home.path().join(".terraform.d");
        std::fs::create_dir(&dir).expect("created");
        std::fs::write(dir.join("broken.tfrc"), "oops").expect("written");
        let env = Env::empty()
            .with_var("HOME", home.path())
            .with_var("TF_TOKEN_env_example_com", "from-env");
        (home, env)
    }

    /// The transport settings `options` build.
    fn settings_of(options: &ClientOptions) -> Settings {
        options
            .load()
            .expect("loads")
            .builder()
            .build()
            .expect("builds")
    }

    fn token(settings: &Settings, host: &str) -> Option<String> {
        let host = Hostname::parse(host).expect("valid");
        settings
            .credentials()
            .credentials(&host)
            .expect("no failure")
            .map(|c| c.expose_token().to_owned())
    }

    #[test]
    fn the_cli_configuration_then_the_options() {
        let (_home, env) = home_with(
            r#"credentials "file.example.com" { token = "from-file" }
               host "forced.example.com" { services = { "modules.v1" = "/m/" } }"#,
        );
        let mut options = ClientOptions::new(Dialect::OpenTofu);
        options.env = Some(env);
        options.timeout = Some(Duration::from_secs(3));
        let setup = options.load().expect("loads");
        assert_eq!(setup.diagnostics().len(), 1, "{:?}", setup.diagnostics());
        let settings: Settings = setup.builder().build().expect("builds");
        assert_eq!(
            token(&settings, "env.example.com").as_deref(),
            Some("from-env")
        );
        assert_eq!(
            token(&settings, "file.example.com").as_deref(),
            Some("from-file")
        );
        assert_eq!(settings.config().timeout(), Duration::from_secs(3));
        let forced = Hostname::parse("forced.example.com").expect("valid");
        assert!(settings.new_cache().cached(&forced).is_some());
        // The client's lookup is the setup's: one cache of helper answers.
        let source = setup.cli_credentials().expect("the CLI's lookup");
        let host = Hostname::parse("env.example.com").expect("valid");
        let found = source.find(&host).expect("no failure").expect("found");
        assert_eq!(
            found.origin().to_string(),
            "environment variable TF_TOKEN_env_example_com"
        );
    }

    #[test]
    fn credentials_other_than_the_cli_ones() {
        let (_home, env) = home_with(r#"credentials "file.example.com" { token = "from-file" }"#);
        let mut options = ClientOptions::new(Dialect::OpenTofu);
        options.env = Some(env.clone());
        options.credentials = CredentialsChoice::Nothing;
        let settings = settings_of(&options);
        assert_eq!(token(&settings, "env.example.com"), None);
        assert_eq!(token(&settings, "file.example.com"), None);

        let host = Hostname::parse("given.example.com").expect("valid");
        let given = Credentials::token("given").expect("valid");
        options.credentials = CredentialsChoice::Static(StaticCredentials::new().with(host, given));
        let settings = settings_of(&options);
        assert_eq!(
            token(&settings, "given.example.com").as_deref(),
            Some("given")
        );
        assert_eq!(token(&settings, "env.example.com"), None);

        // The CLI's credentials without the CLI configuration: refused, in
        // every front end alike.
        options.cli_config = false;
        options.credentials = CredentialsChoice::Cli;
        let refused = options.load().expect_err("contradictory");
        assert!(
            refused.message().contains("need the CLI configuration"),
            "{refused}"
        );

        // Without the CLI configuration nothing is read from the files or
        // the TF_TOKEN_* variables.
        options.credentials = CredentialsChoice::Nothing;
        let setup = options.load().expect("loads");
        assert!(setup.cli_config().is_none() && setup.cli_credentials().is_none());
        assert!(matches!(
            setup.credentials_lookup(),
            CredentialsLookup::Nothing
        ));
        let settings: Settings = setup.builder().build().expect("builds");
        assert_eq!(token(&settings, "env.example.com"), None);
    }

    #[test]
    fn where_the_tokens_come_from() {
        let (_home, env) = home_with(r#"credentials "file.example.com" { token = "from-file" }"#);
        let mut options = ClientOptions::new(Dialect::OpenTofu);
        options.env = Some(env);
        let lookup = options.load().expect("loads").credentials_lookup();
        let origin = |lookup: &CredentialsLookup, host: &str| {
            lookup
                .origin(&Hostname::parse(host).expect("valid"))
                .expect("no failure")
        };
        assert_eq!(
            origin(&lookup, "env.example.com").as_deref(),
            Some("environment variable TF_TOKEN_env_example_com")
        );
        assert!(
            origin(&lookup, "file.example.com")
                .is_some_and(|o| o.starts_with("credentials block in ")),
            "{:?}",
            origin(&lookup, "file.example.com")
        );
        assert_eq!(origin(&lookup, "other.example.com"), None);

        let host = Hostname::parse("given.example.com").expect("valid");
        let given = Credentials::token("given").expect("valid");
        options.credentials = CredentialsChoice::Static(StaticCredentials::new().with(host, given));
        let lookup = options.load().expect("loads").credentials_lookup();
        assert_eq!(
            origin(&lookup, "given.example.com").as_deref(),
            Some("credentials given to the Client")
        );
        assert_eq!(origin(&lookup, "env.example.com"), None);
    }

    #[test]
    fn registry_settings_from_the_environment_and_the_options() {
        let (_home, env) = home_with("");
        let env = env
            .with_var("TF_REGISTRY_DISCOVERY_RETRY", "3")
            .with_var("TF_REGISTRY_CLIENT_TIMEOUT", "5");
        let mut options = ClientOptions::new(Dialect::Terraform);
        options.env = Some(env);
        let settings = settings_of(&options);
        let policy = settings.config().registry_retry_policy();
        assert_eq!(policy.attempts(), 4);
        assert_eq!(policy.attempt_timeout(), Some(Duration::from_secs(5)));
        // The options win over the environment.
        options.registry_retries = Some(0);
        options.registry_timeout = Some(Duration::from_secs(2));
        options.cli_version = Some("1.11.4".into());
        let settings = settings_of(&options);
        let policy = settings.config().registry_retry_policy();
        assert_eq!(policy.attempts(), 1);
        assert_eq!(policy.attempt_timeout(), Some(Duration::from_secs(2)));
        assert_eq!(settings.config().cli_version(), "1.11.4");
        options.cli_version = Some("eleven".into());
        let error = options
            .load()
            .expect("loads")
            .builder::<Settings>()
            .build()
            .expect_err("not a version");
        assert!(
            error.to_string().contains("invalid CLI version \"eleven\""),
            "{error}"
        );
    }

    #[test]
    fn address_overrides() {
        let v4 = SocketAddr::from(([127, 0, 0, 1], 8443));
        assert_eq!(
            address_override("h.test:8443", "127.0.0.1"),
            Ok(("h.test".to_owned(), v4))
        );
        assert_eq!(
            address_override("h.test:8443", "127.0.0.1:8443"),
            Ok(("h.test".to_owned(), v4))
        );
        let v6 = address_override("[::1]:443", "[::1]").expect("valid");
        assert_eq!((v6.0.as_str(), v6.1.port()), ("::1", 443));
        for (key, addr) in [
            ("h.test", "127.0.0.1"),
            ("h.test:0", "127.0.0.1"),
            (":443", "127.0.0.1"),
            ("h.test:x", "127.0.0.1"),
            ("h.test:443", "localhost"),
            ("h.test:443", "127.0.0.1:444"),
        ] {
            assert!(address_override(key, addr).is_err(), "{key} {addr}");
        }
    }

    #[test]
    fn timeouts_in_seconds() {
        assert_eq!(timeout_from_secs(1.5), Ok(Duration::from_millis(1500)));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(timeout_from_secs(bad).is_err(), "{bad}");
        }
    }
}
