#![doc = include_str!("../README.md")]
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
mod go_indent;
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
mod module_lock;
mod module_manifest;
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
    Configuration, ConfigurationError, MAX_MODULES, ModuleCall, ModuleConstraints, ModuleInfo,
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
pub use module_lock::{MODULE_LOCK_FILE, ModuleLock, ModuleLockEntry};
pub use module_manifest::{MANIFEST as MODULE_MANIFEST, MODULES_DIR, ModuleManifest, ModuleRecord};
pub use oci_credentials::{
    CliOciCredentials, HelperProblem, OciBlockCredentials, OciCredentialsBlock,
    OciCredentialsError, OciCredentialsLocation, OciCredentialsPolicy, OciDefaultCredentialsBlock,
    OciHostOs, OciSpecificity, docker_style_search_locations, oci_auths_key_specificity,
};
pub use oci_template::{oci_repository, oci_repository_address};
pub use plugin_cache::{
    MODULE_CACHE_DIR_VAR, PLUGIN_CACHE_DIR_VAR, PLUGIN_CACHE_MAY_BREAK_VAR, PluginCache,
};
pub use provider_installation::{
    InstallationBlock, MethodBlock, PROVIDER_DOWNLOAD_RETRY_VAR, download_retries,
};
pub use providers_folder::{CacheLock, Destination, ProvidersFolder, Staged, StagedPackage};
pub use registry_settings::{REGISTRY_RETRY_VAR, REGISTRY_TIMEOUT_VAR, RegistrySettings};
pub use source::{CliCredentials, CredentialsLocation, CredentialsStore, Found, Origin};
pub use tfdisco_core::Env;
pub use tokens::{EnvCredentials, TOKEN_VAR_PREFIX, token_var_host};
pub use user_agent::{APPEND_USER_AGENT_VAR, appended_user_agent};
