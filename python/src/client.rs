//! `tfdisco.Client`: the tokio client of `tfdisco-tokio`, set up as the
//! `tfdisco` CLI sets up its own (`tfdisco_runs::ClientOptions` →
//! `ClientSetup` → the client builder), with blocking methods (the GIL
//! released) and the awaitables `tfdisco.AsyncClient` awaits.
//!
//! Each call is defined once, in the `pairs` of [`client_methods!`]: its
//! docs, its Python signature, and a body that checks the arguments
//! (raising at once, before anything goes out: sources parsed in the
//! client's dialect, versions, platforms, options) and gives a
//! [`Call`], the future of the call or, for a discovery answered from
//! the cache, its answer. The macro makes two `#[pymethods]` of that one
//! definition: `name`, which waits for the `Call` with the GIL released
//! ([`Call::wait`]), and `_name_async`, which hands it to asyncio
//! ([`Call::later`]: an asyncio future on the module's runtime, or an
//! awaitable already done). Both take the same arguments, parsed by the
//! same code; `AsyncClient.name` (the Python wrapper) awaits
//! `_name_async`, with `Client.name`'s signature. Adding a call takes one
//! entry in `pairs`, and nothing in the Python wrapper but its line in
//! `AsyncClient` (and the stub of `Client.name`).
//!
//! The discovery calls (`discover`, `service_url`, `oauth_client`) are a
//! discovery and a pure function of its `Services`: a host in
//! the cache is answered at once, without the runtime. The arguments of
//! `lock`, `mirror` and `mirror_to_oci` and their reports are read and made
//! in [`crate::lock`], `install`'s in [`crate::install`] (which also takes
//! the client's [`ClientSetup`], its CLI configuration's
//! `provider_installation` and plugin cache, kept for it),
//! `get`'s in [`crate::modules`], `push_provider`'s in
//! [`crate::oci_push`], `module_download`'s in [`crate::oci_module`].

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyMapping;
use tfdisco_config::DialectChoice;
use tfdisco_core::{Dialect, Error, Hostname, Platform, ProviderSource, Services, check_version};
use tfdisco_runs::{ClientOptions, ClientSetup, CredentialsLookup, Runs, oci_module_source};

use crate::answers::{PyModuleLocation, PyModuleVersions, PyProviderPackage, PyProviderVersions};
use crate::dialect::{self, PyDialectChoice};
use crate::errors::{self, IntoPyResult};
use crate::hostname::HostArg;
use crate::install::{self, PyInstallReport};
use crate::lock::{self, PyLockReport, PyMirrorReport, PyOciMirrorReport};
use crate::modules::{self, PyGetReport};
use crate::oci_module::{
    self, ModuleDownloadAnswer, ModuleDownloadArgs, PyDownloadedModule, PyResolvedModule,
};
use crate::oci_push::{self, PyPushedRelease};
use crate::options::{CredentialsArg, parse_env, parse_resolve, parse_timeout};
use crate::runtime::{self, Call};
use crate::services::{PyOAuthClient, PyServices};
use crate::sources;

/// The transport's client: cache, coalescing and connections.
type Inner = tfdisco_tokio::Client;

/// One client, shared by every Python thread and coroutine using it.
struct Shared {
    client: Inner,
    lookup: CredentialsLookup,
    /// The environment and CLI configuration read when the client was
    /// made: `install` takes its installation methods and plugin cache.
    setup: Arc<ClientSetup>,
    /// The dialect sources given as `str` are parsed in.
    dialect: Dialect,
    /// It, and what chose it: given to the runs, for their reports.
    choice: DialectChoice,
    repr: String,
}

/// A discovery client: finds the services of Terraform/OpenTofu hosts, as
/// `terraform init` / `tofu init` would, and caches them per host.
///
/// All options are keyword-only:
///
/// - `dialect`: "opentofu" (also "tofu") or "terraform", in any case:
///   service-id rules, default User-Agent, which CLI configuration is
///   read, the rules of `lock`, `install` and `mirror`. None (the
///   default): the dialect the current working directory and the client's
///   environment (`env`, else the process's) mean, as the `tfdisco` CLI
///   chooses it without `--dialect`: `TFDISCO_DIALECT`; else the CLI the
///   folder's `.terraform.lock.hcl` names in its first line, or the
///   registry all its providers are from; else OpenTofu when the folder
///   holds `.tofu` or `.tofu.json` files; else the one of `terraform` and
///   `tofu` on the `PATH`, when only one is; else OpenTofu. It is chosen
///   once, here: `dialect_choice` says which and why.
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
///   `tfdisco.ConfigWarning` warnings (`file:line: problem`, pointing at
///   the line that made the client), never as errors.
/// - `user_agent`: replaces the User-Agent header.
/// - `max_redirects`: redirects a discovery follows (default 3; registry
///   requests follow 9, as both CLIs).
/// - `body_limit`: the largest document accepted, in bytes (default 1 MiB).
/// - `registry_retries`: how often a failed registry request is retried,
///   1 s, 2 s, 4 s … apart (default: `TF_REGISTRY_DISCOVERY_RETRY` when over
///   0, else 1, as both CLIs).
/// - `registry_timeout`: seconds each attempt of a registry request may
///   take, its body included (default: `TF_REGISTRY_CLIENT_TIMEOUT` when
///   over 0, or OpenTofu's `registry_protocols` block, else 10).
/// - `cli_version`: the CLI version requests announce in `User-Agent` and
///   `X-Terraform-Version` (default: the dialect's current release, 1.15.9
///   for Terraform, 1.12.6 for OpenTofu).
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
/// and sending the host's token; `module_resolve` and
/// `module_download(source, into=DIR)` resolve and download OpenTofu's
/// `oci://` module sources, with the OCI credentials of the CLI
/// configuration; `lock` does what
/// `terraform providers lock` does to a configuration's lock file,
/// `mirror` what `terraform providers mirror` does, `get` what `terraform
/// get` does (the modules, into `.terraform/modules`), and `install` what
/// `terraform init` does to install the modules and providers;
/// `mirror_to_oci` copies a configuration's providers into OCI
/// repositories, and `push_provider` publishes a release's zips to one, in
/// the layout OpenTofu's `oci_mirror` reads.
///
/// The environment and the CLI configuration are read once, here, exactly
/// as the `tfdisco` CLI reads its own.
/// Blocking methods release the GIL; one client may be used from any
/// number of threads at once, and concurrent discoveries of one host share
/// one request. Raises `InvalidOption` (a `ValueError`) for an unusable
/// option (a CA file that cannot be read, a dialect that is none, a
/// `TFDISCO_DIALECT` that names none, say).
#[pyclass(frozen, module = "tfdisco", name = "Client")]
pub(crate) struct PyClient {
    shared: Arc<Shared>,
}

/// Writes `PyClient`'s `#[pymethods]`: the `methods` as they are, and
/// each call of `pairs` as two methods made of one definition,
///
/// ```text
/// /// DOCS
/// #[pyo3(signature = (...))]
/// fn NAME, LATER(&self, py, ARGUMENTS) -> T { BODY }
/// ```
///
/// where `BODY` checks the `ARGUMENTS` (raising with `?`) and gives the
/// call's [`Call<T>`]: `NAME` (documented by `DOCS`) waits for it,
/// blocking with the GIL released, and gives the `T`; `LATER` (by
/// convention `_NAME_async`, what `AsyncClient.NAME` awaits) takes the
/// same arguments, checks them with the same `BODY`, and gives its
/// awaitable. The `#[pyo3]` options (the signature) are both methods'.
macro_rules! client_methods {
    (
        methods { $($methods:tt)* }
        pairs {
            $(
                $(#[doc = $doc:tt])*
                $(#[pyo3($($option:tt)*)])*
                fn $name:ident, $later:ident(&$self:ident, $py:ident $(, $($argument:tt)*)?)
                    -> $out:ident $body:block
            )*
        }
    ) => {
        #[pymethods]
        impl PyClient {
            $($methods)*

            $(
                $(#[doc = $doc])*
                $(#[pyo3($($option)*)])*
                #[allow(clippy::too_many_arguments)]
                fn $name(&$self, $py: Python<'_>, $($($argument)*)?) -> PyResult<$out> {
                    let call: Call<$out> = $body;
                    call.wait($py)
                }

                #[doc = concat!(
                    "`", stringify!($name), "` as an awaitable, what `AsyncClient.",
                    stringify!($name), "` awaits: the arguments are checked now, the call ",
                    "runs on the module's runtime."
                )]
                $(#[pyo3($($option)*)])*
                #[allow(clippy::too_many_arguments)]
                fn $later<'py>(
                    &$self,
                    $py: Python<'py>,
                    $($($argument)*)?
                ) -> PyResult<Bound<'py, PyAny>> {
                    let call: Call<$out> = $body;
                    call.later($py)
                }
            )*
        }
    };
}

client_methods! {
    methods {
        #[new]
        #[pyo3(signature = (
            *,
            dialect = None,
            timeout = 11.0,
            retries = None,
            ca_files = Vec::new(),
            credentials = CredentialsArg::cli(),
            cli_config = true,
            user_agent = None,
            max_redirects = None,
            body_limit = None,
            registry_retries = None,
            registry_timeout = None,
            cli_version = None,
            insecure_http_hosts = Vec::new(),
            resolve = None,
            system_roots = true,
            env = None,
            _dialect_dir = None,
        ))]
        #[pyo3(
            text_signature = "(*, dialect=None, timeout=11.0, retries=None, ca_files=(), credentials='cli', cli_config=True, user_agent=None, max_redirects=None, body_limit=None, registry_retries=None, registry_timeout=None, cli_version=None, insecure_http_hosts=(), resolve=None, system_roots=True, env=None)"
        )]
        #[allow(clippy::too_many_arguments)]
        fn new(
            py: Python<'_>,
            dialect: Option<&str>,
            timeout: f64,
            retries: Option<u32>,
            ca_files: Vec<PathBuf>,
            credentials: CredentialsArg,
            cli_config: bool,
            user_agent: Option<String>,
            max_redirects: Option<u32>,
            body_limit: Option<u64>,
            registry_retries: Option<u32>,
            registry_timeout: Option<f64>,
            cli_version: Option<String>,
            insecure_http_hosts: Vec<HostArg>,
            resolve: Option<Bound<'_, PyMapping>>,
            system_roots: bool,
            env: Option<Bound<'_, PyMapping>>,
            _dialect_dir: Option<PathBuf>,
        ) -> PyResult<Self> {
            let env = env.as_ref().map(parse_env).transpose()?;
            // `_dialect_dir`: the folder the module's `lock`, `install` and
            // `mirror` work in, where they look for the dialect (as the CLI
            // looks in its `--chdir` folder).
            let choice = dialect::choose(py, dialect, _dialect_dir, env.as_ref())?;
            let mut options = ClientOptions::new(choice.dialect());
            options.timeout = Some(parse_timeout(timeout)?);
            if let Some(map) = &resolve {
                options.resolve = parse_resolve(map)?;
            }
            options.env = env;
            options.retries = retries;
            options.max_redirects = max_redirects;
            options.body_limit = body_limit;
            options.registry_retries = registry_retries;
            options.registry_timeout = registry_timeout.map(parse_timeout).transpose()?;
            options.cli_version = cli_version;
            options.ca_files = ca_files;
            options.system_roots = system_roots;
            options.credentials = credentials.choice;
            options.cli_config = cli_config;
            options.user_agent = user_agent;
            options.plain_http_hosts = insecure_http_hosts.into_iter().map(|h| h.0).collect();

            // The CLI's set-up: the environment and the dialect's CLI
            // configuration read once, then the configuration applied and the
            // options after it.
            let setup = py
                .detach(|| options.load())
                .map_err(|e| errors::invalid_option(py, e))?;
            errors::config_warnings(py, setup.diagnostics())?;
            let lookup = setup.credentials_lookup();
            // Built inside the runtime, so that the transport runs on it rather
            // than on a runtime of its own.
            let client = py
                .detach(|| {
                    let _entered = runtime::runtime().enter();
                    setup.builder::<Inner>().build()
                })
                .map_err(|e| errors::invalid_option(py, e))?;

            let mut repr = format!(
                "Client(dialect='{}', timeout={timeout:?}, credentials={}",
                options.dialect.name(),
                credentials.repr,
            );
            if !cli_config {
                repr.push_str(", cli_config=False");
            }
            repr.push(')');
            Ok(PyClient {
                shared: Arc::new(Shared {
                    client,
                    lookup,
                    setup: Arc::new(setup),
                    dialect: options.dialect,
                    choice,
                    repr,
                }),
            })
        }

        /// The client's dialect: "opentofu" or "terraform" (`dialect_choice`
        /// says what chose it).
        #[getter]
        fn dialect(&self) -> &'static str {
            self.shared.dialect.name()
        }

        /// The client's dialect and what chose it, a `DialectChoice` (`name`,
        /// `chosen_by`, `why`): `chosen_by` is "given" when `dialect` was,
        /// else what the detection found ("variable", "lock_file",
        /// "tofu_file", "program" or "default"). The reports of `lock`,
        /// `install` and `mirror` carry it as their `dialect`.
        #[getter]
        fn dialect_choice(&self) -> PyDialectChoice {
            PyDialectChoice(self.shared.choice.clone())
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
            let lookup = &self.shared.lookup;
            py.detach(|| lookup.origin(&host.0))
                .map_err(|e| errors::credentials(py, &e))
        }

        fn __repr__(&self) -> String {
            self.shared.repr.clone()
        }
    }

    pairs {
        /// The services `host` (a str or a `Hostname`) offers: from the cache
        /// (or a `host` block), from a discovery another thread has under way
        /// (this call then waits for it), or discovered now. Blocks, with the
        /// GIL released.
        fn discover, _discover_async(&self, py, host: HostArg) -> PyServices {
            self.discovered(py, host.0, |services| Ok(PyServices(services)))
        }

        /// The base URL of service `id` (`"modules.v1"`, say) on `host`.
        fn service_url, _service_url_async(&self, py, host: HostArg, id: String) -> String {
            self.discovered(py, host.0, move |services| {
                services.service_url(&id).map(String::from)
            })
        }

        /// The OAuth client that service `id` (`"login.v1"`) of `host` describes.
        fn oauth_client, _oauth_client_async(&self, py, host: HostArg, id: String)
            -> PyOAuthClient
        {
            self.discovered(py, host.0, move |services| {
                services.oauth_client(&id).map(PyOAuthClient)
            })
        }

        /// The versions of a provider, from its registry's `providers.v1` API
        /// (`GET …/NAMESPACE/TYPE/versions`): a `ProviderVersions`. `source` is
        /// a `ProviderSource`, or a str parsed in the client's dialect
        /// (`"hashicorp/aws"` is on the dialect's default registry); it needs a
        /// namespace. Discovers the source's host first (cached) and sends its
        /// token, over https only. Raises `InvalidSource`, `NotFound` (the
        /// registry answered 404), `InvalidResponse`, or any discovery error.
        fn provider_versions, _provider_versions_async(&self, py, source: &Bound<'_, PyAny>)
            -> PyProviderVersions
        {
            let source = sources::provider_source_arg(source, self.shared.dialect)?;
            self.core(move |client| async move {
                client.provider_versions(&source).await.map(PyProviderVersions)
            })
        }

        /// Where to download `version` of a provider for `platform` (a
        /// `Platform` or a str such as `"linux_amd64"`), and how to check it: a
        /// `ProviderPackage`. Raises `InvalidSource`, `InvalidArgument` (a
        /// version that is not `MAJOR.MINOR.PATCH[-pre][+build]`, a platform
        /// that is not `OS_ARCH`) before any request, `NotFound`,
        /// `InvalidResponse`, or any discovery error.
        fn provider_package, _provider_package_async(
            &self,
            py,
            source: &Bound<'_, PyAny>,
            version: String,
            platform: &Bound<'_, PyAny>,
        ) -> PyProviderPackage {
            let (source, platform) = self.package_args(py, source, &version, platform)?;
            self.core(move |client| async move {
                client.provider_package(&source, &version, &platform).await.map(PyProviderPackage)
            })
        }

        /// The versions of a module package, from its registry's `modules.v1`
        /// API (`GET …/NAMESPACE/NAME/SYSTEM/versions`): a `ModuleVersions`.
        /// `source` is a `ModuleSource`, or a str parsed in the client's dialect
        /// (`"hashicorp/consul/aws"`; a hostname must contain a dot). Raises
        /// `InvalidSource`, `NotFound`, `InvalidResponse`, or any discovery
        /// error.
        fn module_versions, _module_versions_async(&self, py, source: &Bound<'_, PyAny>)
            -> PyModuleVersions
        {
            let source = sources::module_source_arg(source, self.shared.dialect)?;
            self.core(move |client| async move {
                client.module_versions(&source).await.map(PyModuleVersions)
            })
        }

        /// Where to download `version` of a module package from: a
        /// `ModuleLocation` (the registry's `X-Terraform-Get`, or OpenTofu's JSON
        /// answer). Raises `InvalidSource`, `InvalidArgument` (a version that is
        /// not `MAJOR.MINOR.PATCH[-pre][+build]`), `NotFound`,
        /// `InvalidResponse`, or any discovery error.
        ///
        /// For an `oci://` source (OpenTofu's module packages in OCI
        /// registries, a str), `module_download(source, into=DIR)` downloads
        /// the package its tag (`latest` by default) or digest selects, as
        /// `tfdisco module download SOURCE --into DIR` does: the manifest
        /// resolved (`module_resolve`), the zip layer streamed through its
        /// size and digest check into the unpacker, written to a staging folder
        /// beside `into` (a str or an `os.PathLike`: new, or an empty folder;
        /// its missing parents are made) that takes `into`'s name only once
        /// whole. Returns a `DownloadedModule`. The registry's OCI credentials
        /// are the client's CLI configuration's (`oci_credentials` blocks,
        /// Docker-style credential files and helpers). Raises `NotFound` (no
        /// such repository, tag or digest), `InvalidResponse` (a manifest
        /// OpenTofu refuses, a blob that is not what its descriptor says, a zip
        /// the unpacker refuses), `StatusError` (credentials refused: 401),
        /// `LocalFileError` (`into` not empty, not writable), and leaves
        /// nothing behind.
        ///
        /// A registry source needs `version` and takes no `into`; an `oci://`
        /// source takes no `version` (its `?tag=` or `?digest=` selects) and
        /// needs `into`: `InvalidArgument` otherwise, before anything is asked.
        ///
        /// >>> m = client.module_download("oci://ghcr.io/acme/vpc?tag=1.2.0", into="modules/vpc")  # doctest: +SKIP
        /// >>> m.pinned, m.files                                                      # doctest: +SKIP
        /// ('oci://ghcr.io/acme/vpc?digest=sha256:…', 12)
        #[pyo3(signature = (source, version = None, *, into = None))]
        fn module_download, _module_download_async(
            &self,
            py,
            source: &Bound<'_, PyAny>,
            version: Option<String>,
            into: Option<PathBuf>,
        ) -> ModuleDownloadAnswer {
            let args =
                oci_module::module_download_args(py, source, version, into, self.shared.dialect)?;
            self.core(move |client| async move {
                Ok(match args {
                    ModuleDownloadArgs::Registry(source, version) => {
                        let location = client.module_download(&source, &version).await?;
                        ModuleDownloadAnswer::Location(PyModuleLocation(location))
                    }
                    ModuleDownloadArgs::Oci(source, into) => {
                        let module = client.oci_module_download(&source, &into).await?;
                        ModuleDownloadAnswer::Package(PyDownloadedModule(module))
                    }
                })
            })
        }

        /// What an `oci://` module source (a str,
        /// `oci://REGISTRY[:PORT]/REPOSITORY[//SUBDIR][?tag=TAG|?digest=DIGEST]`)
        /// selects, as `tfdisco module resolve SOURCE` resolves it: the
        /// manifest its tag (`latest` by default) or digest names, with the
        /// registry's OCI credentials from the client's CLI configuration if it
        /// asks, checked as OpenTofu checks it (an image manifest of artifact
        /// type `application/vnd.opentofu.modulepkg` with one `archive/zip`
        /// layer). Returns a `ResolvedModule`, whose `pinned` is the source
        /// pinned to the manifest's digest. Nothing is written.
        ///
        /// `oci://` sources are OpenTofu's: with `dialect="terraform"`, or a
        /// source that does not parse, raises `InvalidArgument` before anything
        /// is asked. Raises `NotFound` (no such repository, tag or digest),
        /// `InvalidResponse` (a manifest OpenTofu refuses), `StatusError`
        /// (credentials refused: 401), `NetworkError`, `TlsError`, ….
        ///
        /// >>> client.module_resolve("oci://ghcr.io/acme/vpc?tag=1.2.0").pinned  # doctest: +SKIP
        /// 'oci://ghcr.io/acme/vpc?digest=sha256:…'
        fn module_resolve, _module_resolve_async(&self, py, source: &str) -> PyResolvedModule {
            let source = oci_module_source(source, self.shared.dialect).or_raise(py)?;
            self.core(move |client| async move {
                client.oci_module_resolve(&source).await.map(PyResolvedModule)
            })
        }

        /// `terraform providers lock` in `dir` (a str or an `os.PathLike`):
        /// reads the configuration's required providers and its
        /// `.terraform.lock.hcl`, selects each provider's version as `init` does
        /// (the locked one kept while the constraints allow it), downloads and
        /// verifies every platform's package (the signed `SHA256SUMS`, the
        /// archive's checksum) and records their hashes, then replaces the lock
        /// file atomically, only when its bytes change. Returns a `LockReport`.
        ///
        /// `platforms`: `Platform`s or strs such as `"linux_amd64"` (default:
        /// the platform this program runs on). `providers`: lock only these
        /// (`ProviderSource`s or strs parsed in the client's dialect), each one
        /// the configuration requires (default: all of them). `jobs`: how many
        /// requests at once (default 8). The client's dialect decides the
        /// rules: Terraform's or OpenTofu's signature checks, and the lock
        /// file's default registry.
        ///
        /// At most one mirror, instead of each provider's registry:
        /// `net_mirror`, an `https:` URL (`-net-mirror`); `fs_mirror`, a
        /// folder (`-fs-mirror`); `oci_mirror`, a repository template naming
        /// each provider's repository in an OCI registry with `{hostname}`,
        /// `{namespace}` and `{type}` (OpenTofu's `-oci-mirror`,
        /// `"ghcr.io/acme/{namespace}/{type}"`: each archive checked against
        /// its layer's digest, with the OCI credentials of the client's CLI
        /// configuration). Two of them, or a template that does not parse,
        /// raise `InvalidArgument`.
        ///
        /// `enable_plugin_cache=True`: use the plugin cache, as `providers lock
        /// -enable-plugin-cache` does: for each platform, a cache entry the
        /// lock file vouches for (or any, with
        /// `plugin_cache_may_break_dependency_lock_file`) is used without a
        /// download; every other package is downloaded, verified and unpacked
        /// into the cache. The cache is the client's CLI configuration's
        /// (`plugin_cache_dir`, `TF_PLUGIN_CACHE_DIR` of the client's `env`,
        /// `plugin_cache_may_break_dependency_lock_file`), as for `install`;
        /// `plugin_cache`: this folder instead (only with
        /// `enable_plugin_cache=True`, else `InvalidOption`, as the CLI refuses
        /// `--plugin-cache` without `--enable-plugin-cache`). With no cache
        /// configured, or a folder that does not exist, the run is as without
        /// it.
        ///
        /// Bad arguments raise `InvalidArgument`, `InvalidSource`,
        /// `InvalidOption`, `TypeError` or `ValueError` before anything is
        /// read. Any other failure raises
        /// `LockError` (with `exit_code` and `failures`, every provider that
        /// failed) and leaves the lock file as it was. Blocks with the GIL
        /// released; Ctrl-C cancels the run (nothing is written).
        ///
        /// >>> client = tfdisco.Client(dialect="terraform")          # doctest: +SKIP
        /// >>> report = client.lock("infra", ["linux_amd64", "darwin_arm64"])  # doctest: +SKIP
        /// >>> [(str(p.source), p.version, p.trust) for p in report.providers]  # doctest: +SKIP
        /// [('registry.terraform.io/hashicorp/aws', '5.31.0', 'signed by HashiCorp')]
        #[pyo3(signature = (dir, platforms = None, providers = None, *, jobs = 8, net_mirror = None, fs_mirror = None, oci_mirror = None, enable_plugin_cache = false, plugin_cache = None))]
        fn lock, _lock_async(
            &self,
            py,
            dir: PathBuf,
            platforms: Option<Bound<'_, PyAny>>,
            providers: Option<Bound<'_, PyAny>>,
            jobs: u64,
            net_mirror: Option<String>,
            fs_mirror: Option<PathBuf>,
            oci_mirror: Option<String>,
            enable_plugin_cache: bool,
            plugin_cache: Option<PathBuf>,
        ) -> PyLockReport {
            let mirrors = lock::Mirrors {
                net: net_mirror,
                fs: fs_mirror,
                oci: oci_mirror,
            };
            let cache = lock::PluginCacheArgs {
                enable: enable_plugin_cache,
                dir: plugin_cache,
            };
            let options = lock::options(
                platforms.as_ref(),
                providers.as_ref(),
                jobs,
                &self.shared.choice,
                mirrors,
                cache,
                &self.shared.setup,
            )?;
            let client = self.inner();
            Call::run(async move {
                let result = client.lock(&dir, &options).await;
                Python::attach(|py| lock::run_report(py, result, PyLockReport))
            })
        }

        /// `terraform providers mirror FOLDER` for the configuration in `dir`
        /// (each a str or an `os.PathLike`): each provider it requires, at the
        /// version its lock file holds (`lock_file=False` ignores it; OpenTofu
        /// always reads it) or the newest its constraints allow, for every
        /// platform, downloaded from its registry and verified as `lock`
        /// verifies, written into `folder` as
        /// `HOST/NS/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip` with each
        /// provider's `index.json` and `<version>.json`, byte for byte as the
        /// dialect's CLI writes them. Returns a `MirrorReport`.
        ///
        /// Nothing gets its final name until every package passed: a failure
        /// raises `LockError` and leaves the folder as it was. Blocks with the
        /// GIL released; Ctrl-C cancels the run.
        ///
        /// >>> report = client.mirror("infra", "/srv/mirror", ["linux_amd64"])  # doctest: +SKIP
        /// >>> [(str(p.source), p.version) for p in report.providers]        # doctest: +SKIP
        /// [('registry.terraform.io/hashicorp/aws', '5.31.0')]
        #[pyo3(signature = (dir, folder, platforms = None, *, jobs = 8, lock_file = true))]
        fn mirror, _mirror_async(
            &self,
            py,
            dir: PathBuf,
            folder: PathBuf,
            platforms: Option<Bound<'_, PyAny>>,
            jobs: u64,
            lock_file: bool,
        ) -> PyMirrorReport {
            let options = lock::mirror_options(platforms.as_ref(), jobs, lock_file)?
                .dialect_choice(self.shared.choice.clone());
            let client = self.inner();
            Call::run(async move {
                let result = client.mirror(&dir, &folder, &options).await;
                Python::attach(|py| lock::run_report(py, result, PyMirrorReport))
            })
        }

        /// `terraform providers mirror` into OCI repositories, as `tfdisco
        /// mirror --to-oci TEMPLATE` does it, for the configuration in `dir` (a
        /// str or an `os.PathLike`): each provider it requires, at the version
        /// its lock file holds (`lock_file=False` ignores it; OpenTofu always
        /// reads it) or the newest its constraints allow, for every platform,
        /// downloaded from its registry and verified as `mirror` verifies
        /// (the signed `SHA256SUMS`, each archive's checksum), into a private
        /// temporary folder; then, once every package passed, each provider's
        /// release pushed to the repository `template` names for it, in the
        /// layout OpenTofu's `oci_mirror` reads (each zip the layer of its
        /// platform's manifest, the index tagged with the version, last), so
        /// that `lock(dir, oci_mirror=template)` locks what the registries
        /// would lock. Blobs a repository has are not sent again; a provider's
        /// blobs that the repository pushed before it (on the same registry)
        /// holds are mounted from there. Returns an `OciMirrorReport`.
        ///
        /// `template` names each provider's repository with `{hostname}`,
        /// `{namespace}` and `{type}` (OpenTofu's `-oci-mirror` template,
        /// `"ghcr.io/acme/{namespace}/{type}"`); the registries' OCI
        /// credentials are the client's CLI configuration's (`oci_credentials`
        /// blocks, Docker-style credential files and helpers). `platforms`:
        /// `Platform`s or strs such as `"linux_amd64"` (default: the platform
        /// this program runs on). `jobs`: how many downloads at once (default
        /// 8).
        ///
        /// A template that does not parse raises `InvalidArgument`; bad
        /// `platforms` or `jobs` raise `InvalidArgument`, `InvalidOption` (a
        /// `ValueError`) or `TypeError`; all before anything is read. Any other
        /// failure raises `LockError` as `mirror` raises it (`kind`,
        /// `exit_code`, `failures`): a package that fails its checks pushes
        /// nothing at all; a push that fails (credentials refused, say) is a
        /// failure of kind "request", exit code 1. The temporary folder is
        /// removed whatever happens. Blocks with the GIL released; Ctrl-C
        /// cancels the run.
        ///
        /// >>> report = client.mirror_to_oci("infra", "ghcr.io/acme/{namespace}/{type}", ["linux_amd64"])  # doctest: +SKIP
        /// >>> [(str(p.source), p.release.repository, p.release.tag) for p in report.providers]  # doctest: +SKIP
        /// [('registry.terraform.io/hashicorp/aws', 'ghcr.io/acme/hashicorp/aws', '5.31.0')]
        #[pyo3(signature = (dir, template, platforms = None, *, jobs = 8, lock_file = true))]
        fn mirror_to_oci, _mirror_to_oci_async(
            &self,
            py,
            dir: PathBuf,
            template: &str,
            platforms: Option<Bound<'_, PyAny>>,
            jobs: u64,
            lock_file: bool,
        ) -> PyOciMirrorReport {
            let options = lock::mirror_options(platforms.as_ref(), jobs, lock_file)?;
            let template = lock::oci_template(py, template)?;
            let client = self.inner();
            Call::run(async move {
                let result = client.mirror_to_oci(&dir, &template, &options).await;
                Python::attach(|py| lock::run_report(py, result, PyOciMirrorReport))
            })
        }

        /// Publishes a provider release to an OCI repository in the layout
        /// OpenTofu's `oci_mirror` reads, as `tfdisco oci push-provider
        /// REPOSITORY VERSION ZIP…` does: each zip (a str or an `os.PathLike`,
        /// named `terraform-provider-TYPE_VERSION_OS_ARCH.zip` as registries
        /// name them; its platform comes from its name) the layer of its
        /// platform's image manifest, with the empty config; then the index
        /// of those manifests, tagged with `version` (its `+` as `_`), last,
        /// so that a reader never sees half a release. Blobs the repository
        /// has are not sent again (`HEAD` first); the others are sent a chunk
        /// at a time, read from the file as they go. Returns a
        /// `PushedRelease`.
        ///
        /// `repository`: `REGISTRY/NAME` (`"ghcr.io/acme/providers/aws"`).
        /// `mount_from`: another repository of the same registry that may hold
        /// these zips (a release promoted from staging, say): the registry is
        /// asked to mount each blob from it before any is sent. The registry's
        /// OCI credentials are the client's CLI configuration's
        /// (`oci_credentials` blocks, Docker-style credential files and
        /// helpers).
        ///
        /// A repository or `mount_from` that does not parse, a version that is
        /// not one, a zip whose name does not say a platform of that version,
        /// or no zip at all raises `InvalidArgument` (with the CLI's message)
        /// before anything is read or sent; `zips` given as a str raises
        /// `TypeError`. A zip that cannot be read raises `LocalFileError`;
        /// credentials refused (or none where the registry asks) `StatusError`
        /// with `status` 401; `mount_from` on another registry
        /// `InvalidArgument`; then `NetworkError`, `TlsError`, … as
        /// `module_resolve` raises them. No message holds a password or token.
        /// Blocks with the GIL released; Ctrl-C cancels the push (the tag is
        /// written last: a cancelled push tags nothing).
        ///
        /// >>> zips = ["terraform-provider-aws_5.31.0_linux_amd64.zip", "terraform-provider-aws_5.31.0_darwin_arm64.zip"]  # doctest: +SKIP
        /// >>> pushed = client.push_provider("ghcr.io/acme/providers/aws", "5.31.0", zips)  # doctest: +SKIP
        /// >>> pushed.tag, pushed.blobs_sent                                               # doctest: +SKIP
        /// ('5.31.0', 3)
        #[pyo3(signature = (repository, version, zips, *, mount_from = None))]
        fn push_provider, _push_provider_async(
            &self,
            py,
            repository: &str,
            version: &str,
            zips: &Bound<'_, PyAny>,
            mount_from: Option<&str>,
        ) -> PyPushedRelease {
            let args = oci_push::push_args(py, repository, version, zips, mount_from)?;
            self.core(|client| oci_push::push(client, args))
        }

        /// `terraform init`'s provider installation in `dir` (a str or an
        /// `os.PathLike`), as `tfdisco install` does it: reads the
        /// configuration's required providers and its `.terraform.lock.hcl`,
        /// selects each provider's version as `init` does (the locked one kept
        /// while the constraints allow it), keeps what is already installed and
        /// matches the lock file (no request), fetches and verifies the rest
        /// for the platform this program runs on (the signed `SHA256SUMS`, the
        /// archive's checksum, the unpacked `h1:`) and unpacks it into
        /// `.terraform/providers/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH` (or into
        /// the plugin cache, linked from there) once every package passed; then
        /// replaces the lock file atomically when its bytes change. Returns an
        /// `InstallReport`. Before the providers, as `init` does, the modules
        /// the configuration calls are installed as `get` installs them (with
        /// `upgrade`, every one again), and listed in the report's `modules`
        /// (none, and no manifest written, when the root module calls no
        /// module); a module that cannot be installed raises `LockError` of
        /// kind "modules" as `get` raises it, and no provider is installed.
        ///
        /// The installation methods and the plugin cache are the client's CLI
        /// configuration's (`provider_installation`, or the implied one with
        /// `dir`'s `terraform.d/plugins`; `plugin_cache_dir`,
        /// `TF_PLUGIN_CACHE_DIR` and `plugin_cache_may_break_dependency_lock_file`,
        /// read from the client's `env`), as for the CLI; with
        /// `cli_config=False`, every provider from its registry and no cache
        /// but `plugin_cache`.
        ///
        /// `providers`: install only these (`ProviderSource`s or strs parsed in
        /// the client's dialect), each one the configuration requires (default:
        /// all of them). `upgrade`: re-select every version within the
        /// constraints, ignoring the locked ones (`-upgrade`).
        /// `lockfile="readonly"`: the lock file must not change
        /// (`-lockfile=readonly`); a run that would change it installs nothing
        /// and raises `LockError` (kind "readonly", exit code 3).
        /// `plugin_cache`: this plugin cache folder instead of the
        /// configuration's (a folder that does not exist is not used).
        /// `jobs`: how many requests at once (default 8).
        /// `on_event`: a callable told what the run does as it does it, given
        /// a dict per event with the keys of `tfdisco install --json`'s event
        /// lines: `{"event": "downloading", "source", "version"}` as a
        /// package's download starts, `{"event": "downloaded", "source",
        /// "version", "bytes"}` once it is downloaded and unpacked (it is
        /// placed once every package passed), and `{"event":
        /// "waiting_for_cache", "source", "version", "platform", "lock_file",
        /// "waited_seconds"}` once per plugin cache entry whose lock another
        /// run (another process) has held for 5 seconds: this run waits for it
        /// (cancel the run to stop waiting). Each value is a str, but `bytes`
        /// (an int) and `waited_seconds` (a float); an event of a later
        /// version may come with other keys. It is called with the GIL taken,
        /// from the thread that runs the job (the one blocked here), before
        /// `install` returns; the run waits for it. When it raises, the run is
        /// cancelled (no new request, the downloads and waits stopped, nothing
        /// placed, the lock file as it was), it is not called again, and
        /// `install` raises that same exception.
        ///
        /// Bad arguments raise `InvalidSource`, `InvalidOption` (a
        /// `ValueError`) or `TypeError` before anything is read. Any other
        /// failure raises `LockError` (`kind`, `exit_code`, `failures`, as
        /// `lock` raises it) and leaves the lock file and
        /// `.terraform/providers` as they were. Blocks with the GIL released;
        /// Ctrl-C cancels the run (`KeyboardInterrupt` is raised, nothing is
        /// placed).
        ///
        /// >>> report = client.install("infra")                         # doctest: +SKIP
        /// >>> [(str(p.source), p.version, p.installed) for p in report.providers]  # doctest: +SKIP
        /// [('registry.terraform.io/hashicorp/aws', '5.31.0', 'downloaded')]
        #[pyo3(signature = (dir, providers = None, *, upgrade = false, lockfile = None, plugin_cache = None, jobs = 8, on_event = None, _stopped = None))]
        #[pyo3(text_signature = "($self, dir, providers=None, *, upgrade=False, lockfile=None, plugin_cache=None, jobs=8, on_event=None)")]
        fn install, _install_async(
            &self,
            py,
            dir: PathBuf,
            providers: Option<Bound<'_, PyAny>>,
            upgrade: bool,
            lockfile: Option<&str>,
            plugin_cache: Option<PathBuf>,
            jobs: u64,
            on_event: Option<Bound<'_, PyAny>>,
            _stopped: Option<Bound<'_, PyAny>>,
        ) -> PyInstallReport {
            let (options, events) = install::options(
                providers.as_ref(),
                upgrade,
                lockfile,
                plugin_cache,
                jobs,
                on_event,
                &self.shared.choice,
            )?;
            let client = self.inner();
            let setup = Arc::clone(&self.shared.setup);
            let run = async move {
                let options = options.with_setup(&setup, &dir);
                let result = client.install(&dir, &options).await;
                Python::attach(|py| install::report(py, result, events.as_ref()))
            };
            // `_stopped` (hidden from the text signature) is for
            // `AsyncClient.install`: called, from a runtime thread, once the
            // run's future is gone: ended, or dropped when the asyncio future
            // was cancelled.
            Call::run(install::until_stopped(run, _stopped))
        }

        /// `terraform get` in `dir` (a str or an `os.PathLike`), as `tfdisco
        /// get` does it: every module the configuration calls, recursively
        /// (local paths, registry modules, `git::` and https archives,
        /// OpenTofu's `oci://`), installed into `.terraform/modules` with
        /// the module manifest, `.terraform/modules/modules.json`, byte for
        /// byte as the dialect's CLI writes it. A module the manifest lists
        /// with the same source, a version its constraint still allows and
        /// its folder still there is kept, without a request. Returns a
        /// `GetReport`.
        ///
        /// `upgrade`: install every module again, the registry modules at
        /// the newest version their constraints allow (`get -update`, `init
        /// -upgrade`). `jobs`: how many requests, downloads and clones at
        /// once (default 8). Git sources are cloned with the system `git`.
        ///
        /// A `jobs` of 0 raises `InvalidOption` (a `ValueError`) before
        /// anything is read. A module that cannot be installed raises
        /// `LockError` of kind "modules": `failures` lists every module that
        /// failed (`ModuleFailure`s: `key`, `kind`, `exit_code`, `message`),
        /// and `exit_code` is `tfdisco get`'s (2 for the configuration, 1 for
        /// the registry and downloads, 3 only when every failure is a
        /// version that does not fit). Nothing is then placed: the module
        /// folders and the manifest are as they were. Blocks with the GIL
        /// released; Ctrl-C cancels the run (`KeyboardInterrupt` is raised).
        ///
        /// >>> report = client.get("infra")                              # doctest: +SKIP
        /// >>> [(m.key, m.version, m.installed) for m in report.modules]    # doctest: +SKIP
        /// [('vpc', '5.8.1', 'fetched')]
        #[pyo3(signature = (dir, *, upgrade = false, jobs = 8))]
        fn get, _get_async(
            &self,
            py,
            dir: PathBuf,
            upgrade: bool,
            jobs: u64,
        ) -> PyGetReport {
            let options = modules::options(upgrade, jobs)?;
            let client = self.inner();
            Call::run(async move {
                let result = client.get(&dir, &options).await;
                Python::attach(|py| lock::run_report(py, result, PyGetReport))
            })
        }
    }
}

impl PyClient {
    fn inner(&self) -> Inner {
        self.shared.client.clone()
    }

    /// The call of `run` on the transport's client (a clone): a future of
    /// the core ([`Call::core`]), its error Python's exception.
    fn core<T, F, R>(&self, run: F) -> Call<T>
    where
        F: FnOnce(Inner) -> R,
        R: Future<Output = Result<T, Error>> + Send + 'static,
        T: for<'a> IntoPyObject<'a> + Send + 'static,
    {
        Call::core(run(self.inner()))
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
        let source = sources::provider_source_arg(source, self.shared.dialect)?;
        check_version(version).or_raise(py)?;
        let platform = sources::platform_arg(platform)?;
        Ok((source, platform))
    }

    /// A discovery call: answered from the cache (or a `host` block) at
    /// once, without the runtime; else the discovery, on the runtime.
    fn discovered<T, L>(&self, py: Python<'_>, host: Hostname, lookup: L) -> Call<T>
    where
        L: FnOnce(Services) -> Result<T, Error> + Send + 'static,
        T: for<'a> IntoPyObject<'a> + Send + 'static,
    {
        if let Some(services) = self.shared.client.cache().cached(&host) {
            return Call::Done(lookup(services).or_raise(py));
        }
        self.core(move |client| async move { lookup(client.discover(&host).await?) })
    }
}
