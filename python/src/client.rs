//! `tfdisco.Client`: the tokio client of `tfdisco-tokio`, built the way the
//! `tfdisco` CLI builds its own, with blocking methods (the GIL released)
//! and the asyncio methods `tfdisco.AsyncClient` awaits.
//!
//! Adding a call takes one `async fn` in [`ops`] and two short methods on
//! [`PyClient`]: `name` (blocking) and `_name_async` (an asyncio future),
//! plus the Python wrapper's coroutine. The registry calls check their
//! arguments (sources parsed in the client's dialect, versions, platforms)
//! before anything goes out, so bad ones raise at once.

use std::ffi::CString;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyMapping;
use tfdisco_config::{CliConfig, CliCredentials, Severity};
use tfdisco_core::{
    Credentials, Dialect, Env, Hostname, NoCredentials, Platform, ProviderSource,
    StaticCredentials, check_version,
};

use crate::errors::{self, IntoPyResult};
use crate::hostname::HostArg;
use crate::{registry, runtime};

/// The transport's client: cache, coalescing and connections.
type Inner = tfdisco_tokio::Client;

/// The calls, as futures over a clone of the client (cheap: clones share
/// everything). Each gives a Rust value that becomes a Python object.
mod ops {
    use tfdisco_core::{Error, Hostname, ModuleSource, Platform, ProviderSource};

    use super::Inner;
    use crate::registry::{
        PyModuleLocation, PyModuleVersions, PyProviderPackage, PyProviderVersions,
    };
    use crate::services::{PyOAuthClient, PyServices};

    pub(super) async fn discover(client: Inner, host: Hostname) -> Result<PyServices, Error> {
        client.discover(&host).await.map(PyServices)
    }

    pub(super) async fn service_url(
        client: Inner,
        host: Hostname,
        id: String,
    ) -> Result<String, Error> {
        client.service_url(&host, &id).await.map(String::from)
    }

    pub(super) async fn oauth_client(
        client: Inner,
        host: Hostname,
        id: String,
    ) -> Result<PyOAuthClient, Error> {
        client
            .discover(&host)
            .await?
            .oauth_client(&id)
            .map(PyOAuthClient)
    }

    pub(super) async fn provider_versions(
        client: Inner,
        source: ProviderSource,
    ) -> Result<PyProviderVersions, Error> {
        client
            .provider_versions(&source)
            .await
            .map(PyProviderVersions)
    }

    pub(super) async fn provider_package(
        client: Inner,
        source: ProviderSource,
        version: String,
        platform: Platform,
    ) -> Result<PyProviderPackage, Error> {
        client
            .provider_package(&source, &version, &platform)
            .await
            .map(PyProviderPackage)
    }

    pub(super) async fn module_versions(
        client: Inner,
        source: ModuleSource,
    ) -> Result<PyModuleVersions, Error> {
        client.module_versions(&source).await.map(PyModuleVersions)
    }

    pub(super) async fn module_download(
        client: Inner,
        source: ModuleSource,
        version: String,
    ) -> Result<PyModuleLocation, Error> {
        client
            .module_download(&source, &version)
            .await
            .map(PyModuleLocation)
    }
}

/// Where tokens come from, as the caller chose.
enum CredentialsChoice {
    /// The CLI's sources: `TF_TOKEN_*`, config files, the helper.
    Cli,
    /// None at all.
    Nothing,
    /// A fixed map; the hosts' display forms are kept for `repr`.
    Static(Vec<(Hostname, Credentials)>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for CredentialsChoice {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        if obj.is_none() {
            return Ok(CredentialsChoice::Nothing);
        }
        if let Ok(text) = obj.extract::<PyBackedStr>() {
            return match &*text {
                "cli" => Ok(CredentialsChoice::Cli),
                _ => Err(PyValueError::new_err(
                    "credentials must be \"cli\", None or a mapping of host to token",
                )),
            };
        }
        let Ok(mapping) = obj.cast::<PyMapping>() else {
            return Err(PyTypeError::new_err(format!(
                "credentials must be \"cli\", None or a mapping of host to token, not {}",
                obj.get_type().name()?
            )));
        };
        let mut entries = Vec::new();
        for item in mapping.items()?.iter() {
            let (key, token): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            let HostArg(host) = key.extract()?;
            let Ok(token) = token.extract::<PyBackedStr>() else {
                // Never show the value: it may be a token of another type.
                return Err(PyTypeError::new_err(format!(
                    "the token for {} must be a str",
                    host.display()
                )));
            };
            let credentials = Credentials::token(&token).map_err(|e| {
                errors::invalid_option(py, format!("the token for {}: {e}", host.display()))
            })?;
            entries.push((host, credentials));
        }
        Ok(CredentialsChoice::Static(entries))
    }
}

/// What `credentials_source` consults.
enum CredentialsLookup {
    Cli(Arc<CliCredentials>),
    Static(StaticCredentials),
    Nothing,
}

/// One client, shared by every Python thread and coroutine using it.
struct Shared {
    client: Inner,
    lookup: CredentialsLookup,
    /// The dialect sources given as `str` are parsed in.
    dialect: Dialect,
    repr: String,
}

/// A discovery client: finds the services of Terraform/OpenTofu hosts, as
/// `terraform init` / `tofu init` would, and caches them per host.
///
/// All options are keyword-only:
///
/// - `dialect`: "opentofu" (default) or "terraform": service-id rules,
///   default User-Agent, and which CLI configuration is read.
/// - `timeout`: seconds allowed for one whole discovery, redirects and body
///   included (default 11).
/// - `retries`: how often a failed attempt (connection error, 429, 5xx other
///   than 501) is retried within `timeout` (default: the dialect's, 3 for
///   Terraform, 0 for OpenTofu).
/// - `ca_files`: PEM files of CA certificates to trust on top of the
///   system roots.
/// - `credentials`: "cli" (default) reads tokens as the CLI does
///   (`TF_TOKEN_*`, the dialect's CLI config files, the credentials helper);
///   None sends no token; a mapping `{host: token}` gives fixed tokens.
/// - `cli_config`: whether to apply the dialect's CLI configuration (default
///   True): `host` blocks, `TF_APPEND_USER_AGENT`, and with
///   `credentials="cli"` its credentials. Problems in it are reported as
///   `tfdisco.ConfigWarning` warnings, never as errors.
/// - `user_agent`: replaces the User-Agent header.
/// - `max_redirects`: redirects followed (default 3).
/// - `body_limit`: the largest document accepted, in bytes (default 1 MiB).
/// - `insecure_http_hosts`: development hosts that may be reached over
///   plain http (tokens never go over http).
/// - `resolve`: `{"host:port": "ip"}` (or `"ip:port"`, or a list of them)
///   connects to those addresses instead of asking DNS, like
///   `curl --resolve`.
/// - `system_roots`: whether to trust the system's CA certificates
///   (`SSL_CERT_FILE` / `SSL_CERT_DIR` when set; default True).
/// - `env`: the environment variables to read (`TF_TOKEN_*`, `HOME`,
///   `TF_CLI_CONFIG_FILE`, proxies, …) instead of the process environment.
///
/// Besides discovery, the client asks registries what `init` asks them:
/// `provider_versions`, `provider_package`, `module_versions` and
/// `module_download`, each discovering the source's host first (cached)
/// and sending the host's token.
///
/// The environment and the CLI configuration are read once, here.
/// Blocking methods release the GIL; one client may be used from any
/// number of threads at once, and concurrent discoveries of one host share
/// one request. Raises `InvalidOption` for an unusable option (a CA file
/// that cannot be read, say).
#[pyclass(frozen, module = "tfdisco", name = "Client")]
pub(crate) struct PyClient {
    shared: Arc<Shared>,
}

pub(crate) fn parse_dialect(name: &str) -> PyResult<Dialect> {
    name.parse::<Dialect>()
        .map_err(|e| PyValueError::new_err(format!("dialect: {e}")))
}

fn parse_timeout(seconds: f64) -> PyResult<Duration> {
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(PyValueError::new_err(
            "timeout must be a positive number of seconds",
        ));
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| PyValueError::new_err(format!("timeout: {e}")))
}

/// `"host:port"` → `(host, port)`; IPv6 hosts in brackets.
fn parse_resolve_key(key: &str) -> PyResult<(String, u16)> {
    let bad = || {
        PyValueError::new_err(format!(
            "resolve: {key:?} is not \"host:port\" (e.g. \"registry.example.com:443\")"
        ))
    };
    let (host, port) = key.rsplit_once(':').ok_or_else(bad)?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port: u16 = port.parse().map_err(|_| bad())?;
    if host.is_empty() || port == 0 {
        return Err(bad());
    }
    Ok((host.to_owned(), port))
}

/// `"ip"` or `"ip:port"` (`"[v6]:port"`) for a key with port `port`.
fn parse_resolve_addr(key: &str, port: u16, value: &str) -> PyResult<SocketAddr> {
    if let Ok(addr) = value.parse::<SocketAddr>() {
        if addr.port() != port {
            return Err(PyValueError::new_err(format!(
                "resolve: {key:?} maps to {value:?}, another port (give the address alone)"
            )));
        }
        return Ok(addr);
    }
    let ip: IpAddr = value
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .map_err(|_| {
            PyValueError::new_err(format!(
                "resolve: {value:?} (for {key:?}) is not an IP address"
            ))
        })?;
    Ok(SocketAddr::new(ip, port))
}

fn parse_resolve(map: &Bound<'_, PyMapping>) -> PyResult<Vec<(String, SocketAddr)>> {
    let mut out = Vec::new();
    for item in map.items()?.iter() {
        let (key, value): (PyBackedStr, Bound<'_, PyAny>) = item.extract()?;
        let (host, port) = parse_resolve_key(&key)?;
        let values: Vec<PyBackedStr> = match value.extract::<PyBackedStr>() {
            Ok(one) => vec![one],
            Err(_) => value.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "resolve: the addresses for {:?} must be a str or a list of str",
                    &*key
                ))
            })?,
        };
        for v in values {
            out.push((host.clone(), parse_resolve_addr(&key, port, &v)?));
        }
    }
    Ok(out)
}

/// An environment given as a mapping of str to str.
fn parse_env(vars: &Bound<'_, PyMapping>) -> PyResult<Env> {
    let mut pairs = Vec::new();
    for item in vars.items()?.iter() {
        let (name, value): (String, String) = item
            .extract()
            .map_err(|_| PyTypeError::new_err("env must map str to str"))?;
        pairs.push((name, value));
    }
    Ok(Env::new(pairs))
}

/// Reports the CLI configuration's diagnostics as `ConfigWarning`s, as the
/// CLI prints them as warnings.
fn warn_diagnostics(py: Python<'_>, config: &CliConfig) -> PyResult<()> {
    if config.diagnostics().is_empty() {
        return Ok(());
    }
    static CATEGORY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let category = CATEGORY.import(py, "tfdisco._errors", "ConfigWarning")?;
    for d in config.diagnostics() {
        let level = match d.severity() {
            Severity::Error => "error",
            _ => "warning",
        };
        let message = match (d.file(), d.line()) {
            (Some(file), Some(line)) => format!("{level}: {}:{line}: {d}", file.display()),
            (Some(file), None) => format!("{level}: {}: {d}", file.display()),
            _ => format!("{level}: {d}"),
        };
        let message = CString::new(message.replace('\0', "\\0"))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyErr::warn(py, category, &message, 2)?;
    }
    Ok(())
}

fn python_quote(py: Python<'_>, s: &str) -> PyResult<String> {
    Ok(pyo3::types::PyString::new(py, s).repr()?.to_string())
}

#[pymethods]
impl PyClient {
    #[new]
    #[pyo3(signature = (
        *,
        dialect = "opentofu",
        timeout = 11.0,
        retries = None,
        ca_files = Vec::new(),
        credentials = CredentialsChoice::Cli,
        cli_config = true,
        user_agent = None,
        max_redirects = None,
        body_limit = None,
        insecure_http_hosts = Vec::new(),
        resolve = None,
        system_roots = true,
        env = None,
    ))]
    #[pyo3(
        text_signature = "(*, dialect='opentofu', timeout=11.0, retries=None, ca_files=(), credentials='cli', cli_config=True, user_agent=None, max_redirects=None, body_limit=None, insecure_http_hosts=(), resolve=None, system_roots=True, env=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dialect: &str,
        timeout: f64,
        retries: Option<u32>,
        ca_files: Vec<PathBuf>,
        credentials: CredentialsChoice,
        cli_config: bool,
        user_agent: Option<String>,
        max_redirects: Option<u32>,
        body_limit: Option<u64>,
        insecure_http_hosts: Vec<HostArg>,
        resolve: Option<Bound<'_, PyMapping>>,
        system_roots: bool,
        env: Option<Bound<'_, PyMapping>>,
    ) -> PyResult<Self> {
        let dialect = parse_dialect(dialect)?;
        let timeout_duration = parse_timeout(timeout)?;
        let resolve = match &resolve {
            Some(map) => parse_resolve(map)?,
            None => Vec::new(),
        };
        if matches!(credentials, CredentialsChoice::Cli) && !cli_config {
            return Err(PyValueError::new_err(
                "credentials=\"cli\" reads the CLI configuration: give credentials=None \
                 or a mapping with cli_config=False",
            ));
        }
        let env = match &env {
            Some(vars) => parse_env(vars)?,
            None => Env::from_process(),
        };

        // The CLI's sequence (cli/src/setup.rs, net.rs): load the dialect's
        // configuration from the environment, apply it, read variables from
        // that same environment, then the dialect and the options.
        let mut builder = Inner::builder();
        let mut lookup = CredentialsLookup::Nothing;
        if cli_config {
            let config = CliConfig::load(dialect, &env);
            warn_diagnostics(py, &config)?;
            builder = builder.cli_config(&config);
            if matches!(credentials, CredentialsChoice::Cli) {
                // What `cli_config` would use, kept to answer
                // `credentials_source`.
                let source = Arc::new(config.credentials_source(&env));
                lookup = CredentialsLookup::Cli(Arc::clone(&source));
                builder = builder.credentials(source);
            }
        }
        builder = builder.environment(env).dialect(dialect);
        builder = builder.timeout(timeout_duration);
        if let Some(n) = max_redirects {
            builder = builder.max_redirects(n);
        }
        if let Some(n) = retries {
            builder = builder.retries(n);
        }
        if let Some(n) = body_limit {
            builder = builder.body_limit(n);
        }
        for file in &ca_files {
            builder = builder.add_root_certificate_file(file);
        }
        builder = builder.system_roots(system_roots);
        for HostArg(host) in insecure_http_hosts {
            builder = builder.plain_http_host(host);
        }
        for (host, addr) in &resolve {
            builder = builder.resolve(host, *addr);
        }
        if let Some(agent) = &user_agent {
            builder = builder.user_agent(agent);
        }
        let credentials_repr = match credentials {
            CredentialsChoice::Cli => "'cli'".to_owned(),
            CredentialsChoice::Nothing => {
                builder = builder.credentials(NoCredentials);
                "None".to_owned()
            }
            CredentialsChoice::Static(entries) => {
                let mut shown = Vec::new();
                for (host, _) in &entries {
                    shown.push(format!("{}: '***'", python_quote(py, &host.display())?));
                }
                let source: StaticCredentials = entries.into_iter().collect();
                lookup = CredentialsLookup::Static(source.clone());
                builder = builder.credentials(source);
                format!("{{{}}}", shown.join(", "))
            }
        };

        // Built inside the runtime, so that the transport runs on it rather
        // than on a runtime of its own.
        let client = py
            .detach(|| {
                let _entered = runtime::runtime().enter();
                builder.build()
            })
            .map_err(|e| errors::invalid_option(py, e.to_string()))?;

        let mut repr = format!(
            "Client(dialect='{}', timeout={timeout:?}, credentials={credentials_repr}",
            dialect.name()
        );
        if !cli_config {
            repr.push_str(", cli_config=False");
        }
        repr.push(')');
        Ok(PyClient {
            shared: Arc::new(Shared {
                client,
                lookup,
                dialect,
                repr,
            }),
        })
    }

    /// The services `host` (a str or a `Hostname`) offers: from the cache
    /// (or a `host` block), from a discovery another thread has under way
    /// (this call then waits for it), or discovered now. Blocks, with the
    /// GIL released.
    fn discover(&self, py: Python<'_>, host: HostArg) -> PyResult<crate::services::PyServices> {
        self.blocking(py, ops::discover(self.inner(), host.0))
    }

    /// The base URL of service `id` (`"modules.v1"`, say) on `host`.
    fn service_url(&self, py: Python<'_>, host: HostArg, id: String) -> PyResult<String> {
        self.blocking(py, ops::service_url(self.inner(), host.0, id))
    }

    /// The OAuth client that service `id` (`"login.v1"`) of `host` describes.
    fn oauth_client(
        &self,
        py: Python<'_>,
        host: HostArg,
        id: String,
    ) -> PyResult<crate::services::PyOAuthClient> {
        self.blocking(py, ops::oauth_client(self.inner(), host.0, id))
    }

    /// The versions of a provider, from its registry's `providers.v1` API
    /// (`GET …/NAMESPACE/TYPE/versions`): a `ProviderVersions`. `source` is
    /// a `ProviderSource`, or a str parsed in the client's dialect
    /// (`"hashicorp/aws"` is on the dialect's default registry); it needs a
    /// namespace. Discovers the source's host first (cached) and sends its
    /// token, over https only. Raises `InvalidSource`, `NotFound` (the
    /// registry answered 404), `InvalidResponse`, or any discovery error.
    fn provider_versions(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
    ) -> PyResult<crate::registry::PyProviderVersions> {
        let source = registry::provider_source_arg(source, self.shared.dialect)?;
        self.blocking(py, ops::provider_versions(self.inner(), source))
    }

    /// Where to download `version` of a provider for `platform` (a
    /// `Platform` or a str such as `"linux_amd64"`), and how to check it: a
    /// `ProviderPackage`. Raises `InvalidSource`, `InvalidArgument` (a
    /// version that is not `MAJOR.MINOR.PATCH[-pre][+build]`, a platform
    /// that is not `OS_ARCH`) before any request, `NotFound`,
    /// `InvalidResponse`, or any discovery error.
    fn provider_package(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        version: String,
        platform: &Bound<'_, PyAny>,
    ) -> PyResult<crate::registry::PyProviderPackage> {
        let (source, platform) = self.package_args(py, source, &version, platform)?;
        self.blocking(
            py,
            ops::provider_package(self.inner(), source, version, platform),
        )
    }

    /// The versions of a module package, from its registry's `modules.v1`
    /// API (`GET …/NAMESPACE/NAME/SYSTEM/versions`): a `ModuleVersions`.
    /// `source` is a `ModuleSource`, or a str parsed in the client's dialect
    /// (`"hashicorp/consul/aws"`; a hostname must contain a dot). Raises
    /// `InvalidSource`, `NotFound`, `InvalidResponse`, or any discovery
    /// error.
    fn module_versions(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
    ) -> PyResult<crate::registry::PyModuleVersions> {
        let source = registry::module_source_arg(source, self.shared.dialect)?;
        self.blocking(py, ops::module_versions(self.inner(), source))
    }

    /// Where to download `version` of a module package from: a
    /// `ModuleLocation` (the registry's `X-Terraform-Get`, or OpenTofu's JSON
    /// answer). Raises `InvalidSource`, `InvalidArgument` (a version that is
    /// not `MAJOR.MINOR.PATCH[-pre][+build]`), `NotFound`,
    /// `InvalidResponse`, or any discovery error.
    fn module_download(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        version: String,
    ) -> PyResult<crate::registry::PyModuleLocation> {
        let source = registry::module_source_arg(source, self.shared.dialect)?;
        check_version(&version).or_raise(py)?;
        self.blocking(py, ops::module_download(self.inner(), source, version))
    }

    /// `discover` as an asyncio future (what `AsyncClient.discover` awaits).
    fn _discover_async<'py>(&self, py: Python<'py>, host: HostArg) -> PyResult<Bound<'py, PyAny>> {
        self.later(py, ops::discover(self.inner(), host.0))
    }

    /// `service_url` as an asyncio future.
    fn _service_url_async<'py>(
        &self,
        py: Python<'py>,
        host: HostArg,
        id: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.later(py, ops::service_url(self.inner(), host.0, id))
    }

    /// `oauth_client` as an asyncio future.
    fn _oauth_client_async<'py>(
        &self,
        py: Python<'py>,
        host: HostArg,
        id: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.later(py, ops::oauth_client(self.inner(), host.0, id))
    }

    /// `provider_versions` as an asyncio future.
    fn _provider_versions_async<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = registry::provider_source_arg(source, self.shared.dialect)?;
        self.later(py, ops::provider_versions(self.inner(), source))
    }

    /// `provider_package` as an asyncio future.
    fn _provider_package_async<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        version: String,
        platform: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (source, platform) = self.package_args(py, source, &version, platform)?;
        self.later(
            py,
            ops::provider_package(self.inner(), source, version, platform),
        )
    }

    /// `module_versions` as an asyncio future.
    fn _module_versions_async<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = registry::module_source_arg(source, self.shared.dialect)?;
        self.later(py, ops::module_versions(self.inner(), source))
    }

    /// `module_download` as an asyncio future.
    fn _module_download_async<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        version: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = registry::module_source_arg(source, self.shared.dialect)?;
        check_version(&version).or_raise(py)?;
        self.later(py, ops::module_download(self.inner(), source, version))
    }

    /// Drops what the cache holds for `host`: the next call discovers it
    /// again. A discovery under way is not stopped, but its result is not
    /// cached.
    fn forget(&self, host: HostArg) {
        self.shared.client.cache().forget(&host.0);
    }

    /// Drops the whole cache (`host` blocks stay).
    fn forget_all(&self) {
        self.shared.client.cache().forget_all();
    }

    /// Where the token this client would send to `host` comes from, e.g.
    /// "environment variable TF_TOKEN_example_com" or "credentials block in
    /// /home/me/.tofurc"; None when no token would be sent. Never the token
    /// itself. May run the credentials helper (its answers are cached).
    /// Raises `CredentialsError` when a source fails (discovery then goes
    /// without a token, as in Terraform).
    fn credentials_source(&self, py: Python<'_>, host: HostArg) -> PyResult<Option<String>> {
        let host = host.0;
        match &self.shared.lookup {
            CredentialsLookup::Nothing => Ok(None),
            CredentialsLookup::Static(source) => {
                let found = tfdisco_core::CredentialsSource::credentials(source, &host)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                Ok(found.map(|_| "credentials given to the Client".to_owned()))
            }
            CredentialsLookup::Cli(source) => {
                let source = Arc::clone(source);
                let found = py.detach(|| source.find(&host)).map_err(|e| {
                    errors::new_error(
                        py,
                        errors::CREDENTIALS,
                        format!("credentials for {}: {e}", host.display()),
                        None,
                        None,
                    )
                })?;
                Ok(found
                    .filter(|f| f.credentials().is_some())
                    .map(|f| f.origin().to_string()))
            }
        }
    }

    fn __repr__(&self) -> String {
        self.shared.repr.clone()
    }
}

impl PyClient {
    fn inner(&self) -> Inner {
        self.shared.client.clone()
    }

    /// The arguments of `provider_package`, checked in the order the Rust
    /// client checks them: source, version, platform.
    fn package_args(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        version: &str,
        platform: &Bound<'_, PyAny>,
    ) -> PyResult<(ProviderSource, Platform)> {
        let source = registry::provider_source_arg(source, self.shared.dialect)?;
        check_version(version).or_raise(py)?;
        let platform = registry::platform_arg(platform)?;
        Ok((source, platform))
    }

    /// Runs a call to completion, the GIL released.
    fn blocking<T, F>(&self, py: Python<'_>, call: F) -> PyResult<T>
    where
        F: Future<Output = Result<T, tfdisco_core::Error>> + Send,
        T: Send,
    {
        runtime::block_on(py, call)?.or_raise(py)
    }

    /// An asyncio future of a call.
    fn later<'py, T, F>(&self, py: Python<'py>, call: F) -> PyResult<Bound<'py, PyAny>>
    where
        F: Future<Output = Result<T, tfdisco_core::Error>> + Send + 'static,
        T: for<'a> IntoPyObject<'a> + Send + 'static,
    {
        runtime::to_asyncio(py, async move {
            match call.await {
                Ok(value) => Ok(value),
                Err(e) => Python::attach(|py| Err(errors::from_core(py, &e))),
            }
        })
    }
}
