//! The native client under `lib/client.js`'s `Client`: the tokio client of
//! `tfdisco-tokio`, set up as the `tfdisco` CLI and the Python package set
//! up theirs (`tfdisco_runs::ClientOptions` → `ClientOptions::load` →
//! `ClientSetup::builder`), every network call a promise of a future run on
//! napi's one tokio runtime.
//!
//! The discovery calls (`discover`, `serviceUrl`, `oauthClient`) are a
//! discovery and a pure function of its `Services`: a host in
//! the cache (or in a `host` block) is answered with a promise already
//! settled, without the runtime. Arguments are checked before anything
//! goes out: a bad one rejects the promise at once.

use std::path::PathBuf;
use std::sync::Arc;

use napi::Env;
use napi::bindgen_prelude::{spawn_blocking, within_runtime_if_available};
use napi_derive::napi;
use tfdisco_config::DialectChoice;
use tfdisco_core::{
    Dialect, Error, ModuleSource, Platform, ProviderSource, Services, check_version,
};
use tfdisco_runs::{ClientSetup, CredentialsLookup, RunError, Runs, oci_module_source};
use tfdisco_transport::reexports::tfdisco_oci::OciModuleSource;

use crate::errors::{Failure, OrThrow};
use crate::hostname::{HostArg, host_arg};
use crate::install::{self, NativeInstallOptions};
use crate::lock::{
    NativeLockOptions, NativeMirrorOptions, lock_options, mirror_options, oci_template,
};
use crate::modules::{self, NativeGetOptions};
use crate::oci_push;
use crate::options::{NativeClientOptions, client_options};
use crate::promise::{self, Answer};
use crate::report;
use crate::services::{OAuthClientObject, Services as JsServices};

/// The transport's client: cache, coalescing and connections.
type Inner = tfdisco_tokio::Client;

/// One client, shared by every call and future using it.
struct Shared {
    client: Inner,
    lookup: CredentialsLookup,
    /// The environment and CLI configuration read when the client was
    /// made: `install` takes its installation methods and plugin cache,
    /// `lock` its plugin cache.
    setup: Arc<ClientSetup>,
    /// The dialect sources are parsed in.
    dialect: Dialect,
    /// It, and what chose it: given to the runs, for their reports.
    choice: DialectChoice,
    /// Problems found in the CLI configuration files, `file:line: problem`.
    diagnostics: Vec<String>,
}

/// The native client (`lib/client.js` wraps it as `Client`).
#[napi(js_name = "NativeClient")]
pub struct Client {
    shared: Arc<Shared>,
}

#[napi]
impl Client {
    /// Reads the environment and the dialect's CLI configuration once, as
    /// the `tfdisco` CLI does, and builds the client.
    #[napi(constructor)]
    pub fn new(env: Env, options: NativeClientOptions) -> napi::Result<Self> {
        Client::build(options).or_throw(&env)
    }

    /// The CLI configuration's problems, `file:line: problem` (the CLIs
    /// print them as warnings and go on; `lib/client.js` emits them).
    #[napi(getter, js_name = "_diagnostics")]
    pub fn diagnostics(&self) -> Vec<String> {
        self.shared.diagnostics.clone()
    }

    /// The client's dialect: `opentofu` or `terraform`.
    #[napi(getter)]
    pub fn dialect(&self) -> &'static str {
        self.shared.dialect.name()
    }

    /// The client's dialect and what chose it, the library's document
    /// `{"name", "chosen_by", "why"}` (a report's `dialect` member;
    /// `lib/client.js` makes `dialectChoice` of it).
    #[napi(getter, js_name = "_dialectChoice")]
    pub fn dialect_choice(&self, env: Env) -> napi::Result<String> {
        report::json(&self.shared.choice).or_throw(&env)
    }

    /// The services `host` offers (a promise of `Services`).
    #[napi]
    pub fn discover<'env>(
        &self,
        env: &'env Env,
        host: HostArg<'_>,
    ) -> napi::Result<Answer<'env, JsServices>> {
        self.discovered(env, &host, |services| Ok(JsServices(services)))
    }

    /// The base URL of service `id` on `host`.
    #[napi]
    pub fn service_url<'env>(
        &self,
        env: &'env Env,
        host: HostArg<'_>,
        id: String,
    ) -> napi::Result<Answer<'env, String>> {
        self.discovered(env, &host, move |services| {
            services.service_url(&id).map(String::from)
        })
    }

    /// The OAuth client service `id` (`login.v1`) of `host` describes.
    #[napi]
    pub fn oauth_client<'env>(
        &self,
        env: &'env Env,
        host: HostArg<'_>,
        id: String,
    ) -> napi::Result<Answer<'env, OAuthClientObject>> {
        self.discovered(env, &host, move |services| {
            services
                .oauth_client(&id)
                .map(|c| OAuthClientObject::from(&c))
        })
    }

    /// A provider's versions, from its registry's `providers.v1` API (the
    /// report's JSON document).
    #[napi]
    pub fn provider_versions<'env>(
        &self,
        env: &'env Env,
        source: String,
    ) -> napi::Result<Answer<'env, String>> {
        let source = ProviderSource::parse_argument(&source, self.shared.dialect);
        let client = self.inner();
        promise::checked(env, source.map_err(Failure::from), |source| async move {
            report::json(&client.provider_versions(&source).await?)
        })
    }

    /// Where to download `version` of a provider for `platform`
    /// (`linux_amd64`), and how to check it.
    #[napi]
    pub fn provider_package<'env>(
        &self,
        env: &'env Env,
        source: String,
        version: String,
        platform: String,
    ) -> napi::Result<Answer<'env, String>> {
        // Checked in the order the CLI checks them: source, version, platform.
        let checked = ProviderSource::parse_argument(&source, self.shared.dialect)
            .and_then(|source| {
                check_version(&version)?;
                Ok((source, Platform::parse(&platform)?))
            })
            .map_err(Failure::from);
        let client = self.inner();
        promise::checked(env, checked, |(source, platform)| async move {
            report::json(
                &client
                    .provider_package(&source, &version, &platform)
                    .await?,
            )
        })
    }

    /// A module's versions, from its registry's `modules.v1` API.
    #[napi]
    pub fn module_versions<'env>(
        &self,
        env: &'env Env,
        source: String,
    ) -> napi::Result<Answer<'env, String>> {
        let client = self.inner();
        promise::checked(env, self.module_source(&source), |source| async move {
            report::json(&client.module_versions(&source).await?)
        })
    }

    /// Where to download `version` of a registry module from; or an
    /// `oci://` source's package downloaded, verified and unpacked into the
    /// folder `into` (the library's `ModuleLocation` or `DownloadedModule`
    /// document). A registry source needs `version` and takes no `into`;
    /// an `oci://` source takes no `version` and needs `into`: an
    /// `InvalidArgumentError` otherwise, as the CLI's usage errors.
    #[napi]
    pub fn module_download<'env>(
        &self,
        env: &'env Env,
        source: String,
        version: Option<String>,
        into: Option<String>,
    ) -> napi::Result<Answer<'env, String>> {
        let usage = |message: String| {
            Failure::from(Error::InvalidArgument {
                message: format!("moduleDownload({source}): {message}"),
            })
        };
        if OciModuleSource::is_oci(&source) {
            let checked = match (version, into) {
                (Some(version), _) => Err(usage(format!(
                    "an oci:// source takes no version ({version}): its ?tag= or ?digest= \
                     selects the package"
                ))),
                (None, None) => Err(usage(
                    "an oci:// source is downloaded into a folder: give { into: DIR }".to_owned(),
                )),
                (None, Some(into)) => self.oci_source(&source).map(|s| (s, PathBuf::from(into))),
            };
            let client = self.inner();
            return promise::checked(env, checked, |(source, into)| async move {
                report::json(&client.oci_module_download(&source, &into).await?)
            });
        }
        let checked = match (version, into) {
            (_, Some(_)) => Err(usage(
                "into is for oci:// sources; a registry source's download says where its \
                 package is"
                    .to_owned(),
            )),
            (None, None) => Err(usage(
                "a registry source needs a version ('1.2.0')".to_owned(),
            )),
            (Some(version), None) => self
                .module_source(&source)
                .and_then(|source| Ok(check_version(&version).map(|()| (source, version))?)),
        };
        let client = self.inner();
        promise::checked(env, checked, |(source, version)| async move {
            report::json(&client.module_download(&source, &version).await?)
        })
    }

    /// What an `oci://` module source's tag (`latest` by default) or
    /// digest selects: the manifest, checked as OpenTofu checks it, and the
    /// source pinned to its digest (the library's `ResolvedModule`
    /// document).
    #[napi]
    pub fn module_resolve<'env>(
        &self,
        env: &'env Env,
        source: String,
    ) -> napi::Result<Answer<'env, String>> {
        let client = self.inner();
        promise::checked(env, self.oci_source(&source), |source| async move {
            report::json(&client.oci_module_resolve(&source).await?)
        })
    }

    /// `terraform providers lock` in `dir`.
    #[napi]
    pub fn lock<'env>(
        &self,
        env: &'env Env,
        dir: String,
        options: NativeLockOptions,
    ) -> napi::Result<Answer<'env, String>> {
        let options = lock_options(options, &self.shared.choice, &self.shared.setup);
        let client = self.inner();
        let dir = PathBuf::from(dir);
        promise::checked(env, options, |options| async move {
            report::run_json(client.lock(&dir, &options).await)
        })
    }

    /// `terraform providers mirror folder` for the configuration in `dir`.
    #[napi]
    pub fn mirror<'env>(
        &self,
        env: &'env Env,
        dir: String,
        folder: String,
        options: NativeMirrorOptions,
    ) -> napi::Result<Answer<'env, String>> {
        let options = mirror_options(options, &self.shared.choice);
        let client = self.inner();
        let (dir, folder) = (PathBuf::from(dir), PathBuf::from(folder));
        promise::checked(env, options, |options| async move {
            report::run_json(client.mirror(&dir, &folder, &options).await)
        })
    }

    /// `terraform providers mirror` into the OCI repositories `template`
    /// names, for the configuration in `dir`, as `tfdisco mirror --to-oci
    /// TEMPLATE` does it (the library's `OciMirrorReport` document).
    #[napi]
    pub fn mirror_to_oci<'env>(
        &self,
        env: &'env Env,
        dir: String,
        template: String,
        options: NativeMirrorOptions,
    ) -> napi::Result<Answer<'env, String>> {
        let checked = mirror_options(options, &self.shared.choice)
            .and_then(|options| Ok((options, oci_template(&template)?)));
        let client = self.inner();
        let dir = PathBuf::from(dir);
        promise::checked(env, checked, |(options, template)| async move {
            report::run_json(client.mirror_to_oci(&dir, &template, &options).await)
        })
    }

    /// A provider release's zips published to the OCI repository
    /// `repository`, tagged `version`, as `tfdisco oci push-provider` does
    /// it (the library's `PushedRelease` document).
    #[napi]
    pub fn push_provider<'env>(
        &self,
        env: &'env Env,
        repository: String,
        version: String,
        zips: Vec<String>,
        mount_from: Option<String>,
    ) -> napi::Result<Answer<'env, String>> {
        let args = oci_push::push_args(&repository, &version, zips, mount_from.as_deref());
        promise::checked(env, args, |args| oci_push::push(self.inner(), args))
    }

    /// `terraform init`'s provider installation in `dir`, as `tfdisco
    /// install` does it, with the client's CLI configuration. `events` is
    /// told each event's JSON line, then `null` (always, once per call,
    /// even a refused one); `cancel` stops the run, and one already
    /// cancelled refuses it before anything is read.
    #[napi]
    pub fn install<'env>(
        &self,
        env: &'env Env,
        dir: String,
        options: NativeInstallOptions,
        events: Option<install::EventsFn>,
        cancel: Option<&install::NativeCancel>,
    ) -> napi::Result<Answer<'env, String>> {
        let told = install::Told::new(events);
        let options = match install::options(options, &self.shared.choice) {
            Ok(options) => options,
            Err(failure) => return promise::ready(env, Err(failure)),
        };
        let options = match cancel {
            Some(handle) if handle.cancel.is_cancelled() => {
                return promise::ready(env, Err(Failure::lock(RunError::Cancelled)));
            }
            Some(handle) => options.cancel_on(handle.cancel.clone()),
            None => options,
        };
        let options = told.install_on(options);
        let client = self.inner();
        let setup = Arc::clone(&self.shared.setup);
        let dir = PathBuf::from(dir);
        promise::later(env, async move {
            let options = options.with_setup(&setup, &dir);
            let result = client.install(&dir, &options).await;
            // Every event is queued before the `null` that says so.
            drop(told);
            report::run_json(result)
        })
    }

    /// `terraform get` in `dir`, as `tfdisco get` does it: every module
    /// the configuration calls into `.terraform/modules`, with
    /// `modules.json` (the library's `GetReport` document).
    #[napi]
    pub fn get<'env>(
        &self,
        env: &'env Env,
        dir: String,
        options: NativeGetOptions,
    ) -> napi::Result<Answer<'env, String>> {
        let client = self.inner();
        let dir = PathBuf::from(dir);
        promise::checked(env, modules::options(options), |options| async move {
            report::run_json(client.get(&dir, &options).await)
        })
    }

    /// Where the token this client would send to `host` comes from, or
    /// null; never the token. May run the credentials helper, on a thread
    /// of the runtime's blocking pool.
    #[napi]
    pub fn credentials_source<'env>(
        &self,
        env: &'env Env,
        host: HostArg<'_>,
    ) -> napi::Result<Answer<'env, Option<String>>> {
        let lookup = self.shared.lookup.clone();
        promise::checked(env, host_arg(&host), |host| async move {
            // A helper program may run: on the runtime's blocking pool.
            match spawn_blocking(move || lookup.origin(&host)).await {
                Ok(found) => found.map_err(Failure::from),
                Err(e) => Err(Failure::new("internal", format!("lookup stopped: {e}"))),
            }
        })
    }

    /// Drops what the cache holds for `host`.
    #[napi]
    pub fn forget(&self, env: Env, host: HostArg<'_>) -> napi::Result<()> {
        let host = host_arg(&host).or_throw(&env)?;
        self.shared.client.cache().forget(&host);
        Ok(())
    }

    /// Drops the whole cache (`host` blocks stay).
    #[napi]
    pub fn forget_all(&self) {
        self.shared.client.cache().forget_all();
    }
}

impl Client {
    /// The one set-up: the options read into `ClientOptions`, the
    /// environment and the CLI configuration loaded, then the builder.
    fn build(given: NativeClientOptions) -> Result<Client, Failure> {
        let (options, choice) = client_options(given)?;
        let setup = options.load()?;
        let diagnostics = setup.diagnostics().iter().map(|d| d.located()).collect();
        let lookup = setup.credentials_lookup();
        // Built inside the runtime, so that the transport runs on it.
        let client = within_runtime_if_available(|| setup.builder::<Inner>().build())
            .map_err(|e| Failure::invalid_option(e.to_string()))?;
        Ok(Client {
            shared: Arc::new(Shared {
                client,
                lookup,
                setup: Arc::new(setup),
                dialect: options.dialect,
                choice,
                diagnostics,
            }),
        })
    }

    fn inner(&self) -> Inner {
        self.shared.client.clone()
    }

    /// An `oci://` module source, read in the client's dialect (OpenTofu's
    /// only): an `InvalidArgumentError` otherwise, as for the CLI.
    fn oci_source(&self, given: &str) -> Result<OciModuleSource, Failure> {
        Ok(oci_module_source(given, self.shared.dialect)?)
    }

    fn module_source(&self, given: &str) -> Result<ModuleSource, Failure> {
        ModuleSource::parse(given, self.shared.dialect).map_err(|error| {
            Failure::from(Error::InvalidSource {
                input: given.to_owned(),
                error,
            })
        })
    }

    /// A discovery call: a settled promise on a cache hit, else the
    /// promise of the discovery run on the runtime.
    fn discovered<'env, T, L>(
        &self,
        env: &'env Env,
        host: &HostArg<'_>,
        lookup: L,
    ) -> napi::Result<Answer<'env, T>>
    where
        T: napi::bindgen_prelude::ToNapiValue + Send + 'static,
        L: FnOnce(Services) -> Result<T, Error> + Send + 'static,
    {
        let host = match host_arg(host) {
            Ok(host) => host,
            Err(failure) => return promise::ready(env, Err(failure)),
        };
        if let Some(services) = self.shared.client.cache().cached(&host) {
            return promise::ready(env, lookup(services).map_err(Failure::from));
        }
        let client = self.inner();
        promise::later(
            env,
            async move { Ok(lookup(client.discover(&host).await?)?) },
        )
    }
}
