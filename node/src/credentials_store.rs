//! The credentials store `terraform login` and `logout` write:
//! `storeCredentials` and `forgetCredentials`, for tools that obtained a
//! token their own way (docs/behaviour.md, CRED-7, CRED-8). `index.js`
//! checks the arguments and emits the configuration's warnings.

use std::collections::HashMap;

use napi::Env;
use napi_derive::napi;
use tfdisco_config::{CliConfig, CliCredentials, CredentialsLocation, CredentialsStore, Origin};
use tfdisco_core::{Credentials, CredentialsError, Dialect, Hostname};

use crate::errors::{Failure, OrThrow};
use crate::hostname::{HostArg, host_arg};

/// The kind of the error for a host whose credentials are in a CLI
/// configuration file of the user's (`CredentialsUnwritableError`).
const UNWRITABLE: &str = "credentials_unwritable";

/// The options object `index.js` makes of the functions' options.
#[napi(object)]
pub struct NativeStoreOptions {
    /// `terraform` or `opentofu` (also `tofu`), in any case.
    pub dialect: String,
    /// The environment to read; none: the process's.
    pub env: Option<HashMap<String, String>>,
}

/// What a store or forget gives `index.js`.
#[napi(object)]
pub struct StoreAnswer {
    /// Where it went (`credentials file PATH`, `credentials helper "NAME"
    /// (PATH)`).
    pub location: String,
    /// The configuration's diagnostics, `file:line: problem`, to emit as
    /// warnings.
    pub warnings: Vec<String>,
}

/// The CLI's credentials source for the options, and the configuration's
/// warnings.
fn source(options: NativeStoreOptions) -> Result<(CliCredentials, Vec<String>), Failure> {
    let dialect: Dialect = options
        .dialect
        .parse()
        .map_err(|e: tfdisco_core::UnknownDialect| Failure::invalid_option(e.to_string()))?;
    let vars = match options.env {
        Some(vars) => tfdisco_core::Env::new(vars),
        None => tfdisco_core::Env::from_process(),
    };
    let config = CliConfig::load(dialect, &vars);
    let warnings = config.diagnostics().iter().map(|d| d.located()).collect();
    Ok((config.credentials_source(&vars), warnings))
}

/// Where a store or forget for `host` goes, in the words of
/// `credentialsSource`; empty when nowhere (the store then fails).
fn destination(source: &CliCredentials, host: &Hostname) -> String {
    let origin = match source.location(host) {
        CredentialsLocation::InOtherFile => None,
        CredentialsLocation::ViaHelper => source.helper().map(|(kind, program)| Origin::Helper {
            kind: kind.to_owned(),
            executable: program.executable().to_owned(),
        }),
        CredentialsLocation::InPrimaryFile | CredentialsLocation::NotAvailable => source
            .credentials_file()
            .map(|path| Origin::CredentialsFile {
                path: path.to_owned(),
            }),
    };
    origin.map(|o| o.to_string()).unwrap_or_default()
}

/// The error of a failed store or forget: `CredentialsUnwritableError` for
/// a host configured in another CLI configuration file, else
/// `CredentialsError`. The messages never hold the token.
fn failure(error: &CredentialsError) -> Failure {
    let kind = match error.downcast_ref::<tfdisco_config::Error>() {
        Some(tfdisco_config::Error::Unwritable { .. }) => UNWRITABLE,
        _ => tfdisco_runs::kinds::CREDENTIALS,
    };
    Failure::new(kind, error.to_string())
}

/// Saves `token` for `host` where `terraform login` would; blocks while
/// it writes the file or runs the helper.
#[napi(js_name = "_storeCredentials")]
pub fn store_credentials(
    env: Env,
    host: HostArg<'_>,
    token: String,
    options: NativeStoreOptions,
) -> napi::Result<StoreAnswer> {
    let answer = || -> Result<StoreAnswer, Failure> {
        let host = host_arg(&host)?;
        let credentials = Credentials::token(&token).map_err(|_| {
            Failure::new(
                "invalid_argument",
                "the token contains characters that cannot be sent in an HTTP header",
            )
        })?;
        let (source, warnings) = source(options)?;
        let location = destination(&source, &host);
        source.store(&host, &credentials).map_err(|e| failure(&e))?;
        Ok(StoreAnswer { location, warnings })
    };
    answer().or_throw(&env)
}

/// Removes what is saved for `host` where `terraform logout` would; blocks
/// while it writes the file or runs the helper.
#[napi(js_name = "_forgetCredentials")]
pub fn forget_credentials(
    env: Env,
    host: HostArg<'_>,
    options: NativeStoreOptions,
) -> napi::Result<StoreAnswer> {
    let answer = || -> Result<StoreAnswer, Failure> {
        let host = host_arg(&host)?;
        let (source, warnings) = source(options)?;
        let location = destination(&source, &host);
        source.forget(&host).map_err(|e| failure(&e))?;
        Ok(StoreAnswer { location, warnings })
    };
    answer().or_throw(&env)
}
