#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod client_runs;
pub mod exit;
mod inputs;
mod install;
pub mod kinds;
mod lock;
mod login;
mod mirror;
mod modules;
mod oci_module;
mod oci_release;
mod off_thread;
mod on;
mod options;
mod plan_jobs;
mod report_text;

pub use client_runs::{BlockingRuns, Runs};
pub use install::{
    Cancel, InstallEvent, InstallEvents, InstallOptions, InstallReport, InstalledProvider,
    install_word,
};
pub use lock::{
    DEFAULT_JOBS, LockOptions, LockReport, ProviderReport, ProvidersFrom, RunError,
    failure_exit_code, jobs,
};
pub use login::{
    CredentialsStorage, DEFAULT_LOGIN_HOST, DEFAULT_LOGIN_TIMEOUT, LoginFailure, LoginMethod,
    LoginOptions, LoginQuestion, LoginReport, LoginStep, LoginUi, LogoutReport, login, logout,
};
pub use mirror::{
    MirrorOptions, MirrorReport, MirroredProvider, OciMirrorReport, OciMirroredProvider,
};
pub use modules::{
    FailureKind, GIT_TIMEOUT, GetOptions, GetReport, InstalledModule, ModuleFailure,
};
pub use oci_module::{DownloadedModule, ResolvedModule, oci_module_source};
pub use oci_release::{PushedRelease, ReleaseFiles};
pub use options::{
    ClientOptions, ClientSetup, CredentialsChoice, CredentialsLookup, CredentialsLookupError,
    OptionError, address_override, timeout_from_secs,
};
pub use tfdisco_provider::{self, Trust};

use on::On;
use tfdisco_transport::{
    AsyncClient, BlobSource, BlockingClient, BuildError, ClientBuilder, PushedBlob, Transport,
};
