#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod cache;
mod config;
mod credentials;
mod dialect;
mod discovery;
mod download;
mod env;
mod error;
mod go_clean;
mod go_json;
mod go_quote;
pub mod hostname;
mod login;
mod message_error;
mod network_mirror;
mod package_page;
mod registry_api;
mod report;
mod service_id;
mod services;
mod shell_word;
mod source;
mod transfer;
mod url_rules;
mod version;

pub use bytes;
pub use http;
pub use serde_json;
pub use url;

pub use cache::{DiscoveryCache, Lookup, Ticket};
pub use config::{
    Config, DEFAULT_BODY_LIMIT, DEFAULT_DOWNLOAD_LIMIT, DEFAULT_DOWNLOAD_TIMEOUT,
    DEFAULT_LOGIN_TIMEOUT, DEFAULT_MAX_REDIRECTS, DEFAULT_REGISTRY_BODY_LIMIT,
    DEFAULT_REGISTRY_MAX_REDIRECTS, DEFAULT_TIMEOUT, LOGIN_BODY_LIMIT, MIRROR_MAX_REDIRECTS,
    OCI_BODY_LIMIT, RequestKind,
};
pub use credentials::{
    Credentials, CredentialsError, CredentialsSource, InvalidToken, NoCredentials,
    StaticCredentials, credentials_for,
};
pub use dialect::{Dialect, UnknownDialect};
pub use discovery::{DISCOVERY_PATH, Discovery, DiscoveryRequest};
pub use download::{Contents, DownloadRequest, Sink};
pub use env::Env;
pub use error::{Error, ErrorKind, GiveUpReason, StartError, TransportError, TransportErrorKind};
pub use go_clean::go_clean;
pub use go_json::go_json_string;
pub use go_quote::go_quote;
pub use hostname::{Hostname, HostnameError, HostnameErrorKind};
pub use login::{
    AuthorizationCode, AuthorizationRequest, Callback, Endpoint as OAuthEndpoint,
    HCP_TERRAFORM_HOST, LoginError, LoginGrantType, LoginSeed, TfeAccount, TfeAccountRequest,
    TfePing, TokenGrant, TokenRequest, callback_ports, login_grant_type, tfe_account_message,
    tfe_tokens_page,
};
pub use network_mirror::{
    NetworkMirror, NetworkMirrorArchive, NetworkMirrorArchives, NetworkMirrorArchivesRequest,
    NetworkMirrorUrlError, NetworkMirrorVersions, NetworkMirrorVersionsRequest,
};
pub use package_page::{PAGE_LIMIT, PackagePageRequest, package_page_url, terraform_get_meta};
pub use registry_api::PlatformPackage;
pub use registry_api::{
    ModuleDownloadRequest, ModuleLocation, ModuleVersions, ModuleVersionsRequest, Platform,
    ProviderPackage, ProviderPackageRequest, ProviderVersion, ProviderVersions,
    ProviderVersionsRequest, RegistryCall, SigningKey, check_version,
};
pub use report::ServicesReport;
pub use service_id::{ServiceId, ServiceIdError};
pub use services::{JsonType, OAuthClient, Resolved, Services};
pub use shell_word::shell_word;
pub use source::{
    Getter, ModuleAddress, ModulePackage, ModuleSource, PackageDetector, ProviderSource,
    SourceError, without_ssh_key,
};
pub use transfer::gzip::{Gunzip, GzipError};
pub use transfer::{
    Action, Body, DEFAULT_REGISTRY_ATTEMPT_TIMEOUT, Goal, Next, Retry, RetryPolicy, Transfer,
};
pub use version::{
    Constraint, Operator, SelectionError, Version, VersionConstraints, VersionError, newest, select,
};
