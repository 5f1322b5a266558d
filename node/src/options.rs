//! The client's options as `lib/options.js` hands them over (types already
//! checked, names already camelCase → snake_case), read into
//! `tfdisco_runs::ClientOptions`, shared with the CLI and Python: only
//! the JavaScript syntax is read here (credentials, `resolve`, `env`,
//! seconds), the meaning is the shared set-up's. No `dialect` is the one
//! the current working directory and the environment mean
//! (`tfdisco_config::DialectChoice::detect`, as the CLI chooses it).

use std::collections::HashMap;
use std::path::PathBuf;

use tfdisco_config::{DIALECT_VAR, DialectChoice};
use tfdisco_core::{Credentials, Dialect, Env, Hostname, StaticCredentials};
use tfdisco_runs::{ClientOptions, CredentialsChoice, address_override, timeout_from_secs};

use crate::errors::Failure;

/// The options object `lib/options.js` makes of `new Client(options)`.
#[napi_derive::napi(object)]
pub struct NativeClientOptions {
    /// `opentofu` (also `tofu`) or `terraform`, in any case; none: the one
    /// the current working directory and the environment mean.
    pub dialect: Option<String>,
    /// Seconds for one whole discovery.
    pub timeout: Option<f64>,
    /// Retries of a failed discovery attempt.
    pub retries: Option<u32>,
    /// Redirects a discovery follows.
    pub max_redirects: Option<u32>,
    /// The largest document accepted, in bytes (a whole number).
    pub body_limit: Option<f64>,
    /// Retries of a failed registry request.
    pub registry_retries: Option<u32>,
    /// Seconds each attempt of a registry request may take.
    pub registry_timeout: Option<f64>,
    /// The CLI version announced.
    pub cli_version: Option<String>,
    /// PEM files of CA certificates to trust too.
    pub ca_files: Vec<String>,
    /// Whether to trust the system roots.
    pub system_roots: bool,
    /// `cli`, `none` or `static` (with `tokens`).
    pub credentials: String,
    /// The fixed tokens of `credentials: { host: token }`.
    pub tokens: Option<HashMap<String, String>>,
    /// Whether to read and apply the dialect's CLI configuration.
    pub cli_config: bool,
    /// Replaces the User-Agent header.
    pub user_agent: Option<String>,
    /// Development hosts that may be reached over plain http.
    pub insecure_http_hosts: Vec<String>,
    /// Address overrides: `[hostPort, address]` pairs.
    pub resolve: Vec<Vec<String>>,
    /// The environment to read instead of the process's.
    pub env: Option<HashMap<String, String>>,
}

/// The options as `tfdisco_runs::ClientOptions`, and the dialect's
/// choice; or the error an unusable one gives: `InvalidOptionError` (also
/// for a `TFDISCO_DIALECT` that names no dialect), or
/// `InvalidHostnameError` for a host that does not parse.
pub(crate) fn client_options(
    given: NativeClientOptions,
) -> Result<(ClientOptions, DialectChoice), Failure> {
    let env = given.env.map(Env::new);
    let choice = choose_dialect(given.dialect.as_deref(), env.as_ref())?;
    let mut options = ClientOptions::new(choice.dialect());
    let seconds = |what: &str, secs: f64| {
        timeout_from_secs(secs).map_err(|e| Failure::invalid_option(format!("{what}: {e}")))
    };
    options.timeout = given.timeout.map(|s| seconds("timeout", s)).transpose()?;
    options.registry_timeout = given
        .registry_timeout
        .map(|s| seconds("registryTimeout", s))
        .transpose()?;
    options.retries = given.retries;
    options.max_redirects = given.max_redirects;
    options.body_limit = given
        .body_limit
        .map(|bytes| {
            // A whole number of bytes that a u64 holds exactly.
            if bytes.fract() == 0.0 && (1.0..=9_007_199_254_740_991.0).contains(&bytes) {
                Ok(bytes as u64)
            } else {
                Err(Failure::invalid_option(
                    "bodyLimit must be a positive whole number of bytes",
                ))
            }
        })
        .transpose()?;
    options.registry_retries = given.registry_retries;
    options.cli_version = given.cli_version;
    options.ca_files = given.ca_files.into_iter().map(PathBuf::from).collect();
    options.system_roots = given.system_roots;
    options.cli_config = given.cli_config;
    options.user_agent = given.user_agent;
    options.credentials = match given.credentials.as_str() {
        "cli" => CredentialsChoice::Cli,
        "none" => CredentialsChoice::Nothing,
        _ => CredentialsChoice::Static(static_credentials(given.tokens.unwrap_or_default())?),
    };
    options.plain_http_hosts = given
        .insecure_http_hosts
        .iter()
        .map(|h| Hostname::parse(h))
        .collect::<Result<_, _>>()?;
    for pair in &given.resolve {
        let [key, addr] = pair.as_slice() else {
            return Err(Failure::invalid_option(
                "resolve: a pair of strings expected",
            ));
        };
        options
            .resolve
            .push(address_override(key, addr).map_err(Failure::invalid_option)?);
    }
    options.env = env;
    Ok((options, choice))
}

/// The dialect `given`, else the one work in the current working
/// directory means in `env` (the process's when none), in the CLI's order:
/// `TFDISCO_DIALECT`, the lock file, `.tofu` files, the one of `terraform`
/// and `tofu` on the `PATH`, else OpenTofu.
fn choose_dialect(given: Option<&str>, env: Option<&Env>) -> Result<DialectChoice, Failure> {
    if let Some(name) = given {
        let dialect: Dialect = name
            .parse()
            .map_err(|e| Failure::invalid_option(format!("dialect: {e}")))?;
        return Ok(DialectChoice::given(dialect));
    }
    let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let detected = match env {
        Some(env) => DialectChoice::detect(&dir, env),
        None => DialectChoice::detect(&dir, &Env::from_process()),
    };
    detected.map_err(|e| Failure::invalid_option(format!("{DIALECT_VAR}: {e}")))
}

/// `{ host: token }` as a credentials source; a token that cannot be sent
/// is an `InvalidOptionError` naming the host, never the token.
fn static_credentials(tokens: HashMap<String, String>) -> Result<StaticCredentials, Failure> {
    let mut source = StaticCredentials::new();
    let mut tokens: Vec<_> = tokens.into_iter().collect();
    tokens.sort();
    for (host, token) in tokens {
        let host = Hostname::parse(&host)?;
        let credentials = Credentials::token(&token).map_err(|e| {
            Failure::invalid_option(format!(
                "credentials: the token for {}: {e}",
                host.display()
            ))
        })?;
        source = source.with(host, credentials);
    }
    Ok(source)
}
