//! Terraform/OpenTofu-compatible credentials and CLI configuration for
//! tfdisco: the answers `terraform` and `tofu` give about which token to
//! send to a host and which hosts not to discover (docs/behaviour.md,
//! CRED-1 to CRED-10, CFG-1 to CFG-12), and how they install providers
//! (INST-1 to INST-12, FSM-1 to FSM-6).
//!
//! Rule ids such as CRED-5 or CFG-3, here and in the items' documentation,
//! refer to tfdisco's behaviour reference,
//! [`docs/behaviour.md`](https://github.com/tfdisco/tfdisco/blob/main/docs/behaviour.md)
//! in the repository, which also says how each rule compares with the Go
//! code and which test pins it.
//!
//! - [`EnvCredentials`]: `TF_TOKEN_<host>` variables, decoded exactly as the
//!   CLIs do ([`token_var_host`]).
//! - [`CliConfig`]: the CLI config files of either [`Dialect`]
//!   (`~/.terraformrc`, `~/.terraform.d/*.tfrc[.json]`, `~/.tofurc`,
//!   `XDG_CONFIG_HOME`, `TF_CLI_CONFIG_FILE`), in HCL or JSON syntax, merged;
//!   `credentials`, `host` and `credentials_helper` blocks. Problems are
//!   [`Diagnostic`]s, never failures.
//! - [`HelperProgram`]: the credentials helper protocol (`get` / `store` /
//!   `forget`), with a timeout.
//! - [`CliCredentials`]: the CLI's source chain (variables, then
//!   `credentials` blocks, then the helper), which also says which source
//!   answered ([`CliCredentials::find`]) and stores and forgets credentials
//!   the way `terraform login` / `logout` do ([`CredentialsStore`]).
//! - [`CachingCredentials`]: a cache of hits and misses in front of any
//!   source.
//! - OCI registry credentials as OpenTofu reads them
//!   ([`CliConfig::oci_credentials_policy`], [`OciCredentialsPolicy`]):
//!   `oci_credentials` and `oci_default_credentials` blocks, Docker-style
//!   files and credential helpers (OCICRED-1 to OCICRED-11).
//! - [`hcl_syntax`]: HCL native syntax as Terraform 1.11.4 reads it, in
//!   linear time, for configurations ([`Configuration`]) and lock files
//!   ([`LockFile`]).
//! - The `provider_installation` block ([`CliConfig::provider_installation`],
//!   [`InstallationBlock`]) and the configuration implied without one
//!   ([`implied_provider_installation`]); filesystem mirrors
//!   ([`FilesystemMirror`], [`hash_local_package`]).
//!
//! The environment comes in as an [`Env`] value ([`Env::from_process`] reads
//! the real one), so nothing here depends on global state; a configuration
//! from [`CliConfig::load`] keeps the `Env` it was read with
//! ([`CliConfig::env`]), and tfdisco's client builder
//! (`tfdisco_transport::ClientBuilder::cli_config`) reads `TF_TOKEN_*` and
//! `TF_APPEND_USER_AGENT` there. Parsing is pure: [`CliConfig::from_sources`],
//! [`token_var_host`] and [`EnvCredentials`] work on texts and values given
//! to them. The file system is read by [`CliConfig::load`] and
//! [`Locations::resolve`] only, and written by the [`CredentialsStore`]
//! methods of [`CliCredentials`] (`credentials.tfrc.json`); Docker-style
//! credentials files are read by [`CliConfig::oci_credentials_policy`];
//! programs are run by [`HelperProgram`] and, for Docker-style credential
//! helpers, by [`OciCredentialsPolicy`] only. HCL text that the HCL parser would take far too
//! long to read is refused before parsing, as a [`Diagnostic`] (CFG-9).
//! Nothing here opens a network connection. Tokens never appear in errors,
//! diagnostics or `Debug` output.
//!
//! # Example
//!
//! What `tofu` would do at start-up, with a home directory of our own:
//!
//! ```
//! use tfdisco_config::{CliConfig, Env};
//! use tfdisco_core::{Config, CredentialsSource, Dialect, Hostname, DiscoveryCache, Lookup};
//!
//! let home = tempfile::tempdir()?;
//! std::fs::write(
//!     home.path().join(".tofurc"),
//!     r#"
//!     credentials "registry.example.com" {
//!       token = "s3cret"
//!     }
//!     host "modules.example.com" {
//!       services = {
//!         "modules.v1" = "https://modules.example.com/api/v1/"
//!       }
//!     }
//!     "#,
//! )?;
//! let env = Env::empty().with_var("HOME", home.path());
//!
//! let config = CliConfig::load(Dialect::OpenTofu, &env);
//! for diagnostic in config.diagnostics() {
//!     eprintln!("warning: {diagnostic}");
//! }
//!
//! // `host` blocks: these hosts are never discovered.
//! let mut cache = DiscoveryCache::new(Config::default());
//! assert!(config.force_hosts(&mut cache).is_empty());
//! let host = Hostname::parse("modules.example.com")?;
//! assert!(matches!(cache.lookup(&host), Lookup::Cached(_)));
//!
//! // Credentials, as a source the transports use.
//! let credentials = config.credentials_source(&env);
//! let token = credentials.credentials(&Hostname::parse("Registry.Example.COM")?)?;
//! assert_eq!(token.expect("configured").authorization().to_str()?, "Bearer s3cret");
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod atomic;
mod caching;
mod cli_config;
mod configuration;
mod credentials_file;
mod diagnostic;
mod dialect_choice;
mod error;
mod files;
mod fs_mirror;
mod hcl1;
pub mod hcl_syntax;
mod hcl_text;
mod hcl_value;
mod helper;
mod implied;
mod installation_report;
mod literal;
mod locations;
mod lock_file;
mod mirror_folder;
mod nesting;
mod oci_credentials;
mod oci_template;
mod plugin_cache;
mod plugins;
mod provider_installation;
mod providers_folder;
mod registry_settings;
mod source;
mod tokens;
mod user_agent;

pub use tfdisco_core::Dialect;

pub use atomic::write_atomically;
pub use caching::CachingCredentials;
pub use cli_config::{CliConfig, CredentialsBlock, HelperBlock, HostBlock};
pub use configuration::{
    Configuration, ConfigurationError, MAX_MODULES, MODULE_MANIFEST, ModuleConstraints, ModuleInfo,
    OriginKind, ProviderOrigin, RequiredProvider,
};
pub use credentials_file::{CREDENTIALS_FILE_NAME, to_store};
pub use diagnostic::{Diagnostic, Severity};
pub use dialect_choice::{DIALECT_VAR, DialectChoice, DialectClue};
pub use error::Error;
pub use fs_mirror::{
    FilesystemMirror, LocalHashes, MirrorError, hash_folder, hash_local_package, hash_package_file,
};
pub use helper::{DEFAULT_HELPER_TIMEOUT, HelperProgram};
pub use implied::{
    HostOs, ImpliedDir, ImpliedMirror, ImpliedOrigin, app_data_dirs, implied_mirror_diagnostics,
    implied_mirror_dirs, implied_mirror_dirs_for, implied_provider_installation,
};
pub use installation_report::{InstallationChoice, InstallationReport, MethodReport};
pub use locations::{Locations, OVERRIDE_VARS};
pub use lock_file::{LOCK_FILE_NAME, LockFile, LockFileError, LockedProvider};
pub use mirror_folder::{Indexes, MirrorFolder, StagedArchive};
pub use oci_credentials::{
    CliOciCredentials, HelperProblem, OciBlockCredentials, OciCredentialsBlock,
    OciCredentialsError, OciCredentialsLocation, OciCredentialsPolicy, OciDefaultCredentialsBlock,
    OciHostOs, OciSpecificity, docker_style_search_locations, oci_auths_key_specificity,
};
pub use oci_template::{oci_repository, oci_repository_address};
pub use plugin_cache::{PLUGIN_CACHE_DIR_VAR, PLUGIN_CACHE_MAY_BREAK_VAR, PluginCache};
pub use provider_installation::{
    InstallationBlock, MethodBlock, PROVIDER_DOWNLOAD_RETRY_VAR, download_retries,
};
pub use providers_folder::{CacheLock, Destination, ProvidersFolder, Staged, StagedPackage};
pub use registry_settings::{REGISTRY_RETRY_VAR, REGISTRY_TIMEOUT_VAR, RegistrySettings};
pub use source::{CliCredentials, CredentialsLocation, CredentialsStore, Found, Origin};
pub use tfdisco_core::Env;
pub use tokens::{EnvCredentials, TOKEN_VAR_PREFIX, token_var_host};
pub use user_agent::{APPEND_USER_AGENT_VAR, appended_user_agent};
