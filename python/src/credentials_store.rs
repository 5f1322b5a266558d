//! The credentials store `terraform login` and `logout` write:
//! `tfdisco.store_credentials` and `tfdisco.forget_credentials`, for tools
//! that obtained a token their own way (docs/behaviour.md, CRED-7, CRED-8).

use pyo3::prelude::*;
use pyo3::types::PyMapping;
use tfdisco_config::{CliConfig, CliCredentials, CredentialsLocation, CredentialsStore, Origin};
use tfdisco_core::{Credentials, CredentialsError, Env, Hostname};

use crate::dialect::parse_dialect;
use crate::errors;
use crate::hostname::HostArg;
use crate::options::parse_env;

/// The kind of the error for a host whose credentials are in a CLI
/// configuration file of the user's (`tfdisco.CredentialsUnwritable`).
const UNWRITABLE: &str = "credentials_unwritable";

/// The CLI's credentials source for `dialect` and `env` (the process's
/// environment without one), the configuration's problems as warnings.
fn source(
    py: Python<'_>,
    dialect: &str,
    env: Option<&Bound<'_, PyMapping>>,
) -> PyResult<CliCredentials> {
    let dialect = parse_dialect(dialect)?;
    let env = match env {
        Some(vars) => parse_env(vars)?,
        None => Env::from_process(),
    };
    let config = py.detach(|| CliConfig::load(dialect, &env));
    errors::config_warnings(py, config.diagnostics())?;
    Ok(config.credentials_source(&env))
}

/// Where a store or forget for `host` goes, as the CLI says where
/// credentials come from (`credentials file PATH`, `credentials helper
/// "NAME" (PATH)`); None when nowhere.
fn destination(source: &CliCredentials, host: &Hostname) -> Option<String> {
    let origin = match source.location(host) {
        CredentialsLocation::InOtherFile => return None,
        CredentialsLocation::ViaHelper => {
            let (kind, program) = source.helper()?;
            Origin::Helper {
                kind: kind.to_owned(),
                executable: program.executable().to_owned(),
            }
        }
        CredentialsLocation::InPrimaryFile | CredentialsLocation::NotAvailable => {
            Origin::CredentialsFile {
                path: source.credentials_file()?.to_owned(),
            }
        }
    };
    Some(origin.to_string())
}

/// The exception of a failed store or forget: `CredentialsUnwritable` for
/// a host configured in another CLI configuration file, else
/// `CredentialsError`. The messages never hold the token.
fn raise(py: Python<'_>, error: &CredentialsError) -> PyErr {
    let kind = match error.downcast_ref::<tfdisco_config::Error>() {
        Some(tfdisco_config::Error::Unwritable { .. }) => UNWRITABLE,
        _ => tfdisco_runs::kinds::CREDENTIALS,
    };
    errors::new_error(py, kind, error.to_string(), None, None)
}

/// Saves `token` for `host` where `terraform login` (`tofu login`) would:
/// in `credentials.tfrc.json` of the CLI configuration directory (sorted
/// keys, two-space indent, mode 0600, written to a temporary file and
/// renamed) when the host is already there or no `credentials_helper` is
/// configured, else through the helper (`store HOST`). Returns where it
/// went (`"credentials file /home/me/.terraform.d/credentials.tfrc.json"`).
///
/// `env`: the environment to read (`HOME`, `TF_CLI_CONFIG_FILE`, …;
/// default the process's). Raises `CredentialsUnwritable` for a host with a
/// `credentials` block in another CLI configuration file (as Terraform,
/// nothing is changed), `CredentialsError` when the store fails (no home
/// directory, a file that does not parse, a failing helper) and
/// `InvalidArgument` for a token that cannot be sent in a header. The token
/// is in no message.
#[pyfunction]
#[pyo3(signature = (host, token, *, dialect = "opentofu", env = None))]
pub(crate) fn store_credentials(
    py: Python<'_>,
    host: HostArg,
    token: &str,
    dialect: &str,
    env: Option<&Bound<'_, PyMapping>>,
) -> PyResult<String> {
    let credentials = Credentials::token(token).map_err(|_| {
        errors::new_error(
            py,
            "invalid_argument",
            "the token contains characters that cannot be sent in an HTTP header".to_owned(),
            None,
            None,
        )
    })?;
    let source = source(py, dialect, env)?;
    let host = host.0;
    let place = destination(&source, &host);
    py.detach(|| source.store(&host, &credentials))
        .map_err(|e| raise(py, &e))?;
    Ok(place.unwrap_or_default())
}

/// Removes what is saved for `host` where `terraform logout` (`tofu
/// logout`) would: its entries of `credentials.tfrc.json` (every spelling
/// of the host; the rest of the file kept) or the helper's (`forget
/// HOST`). Returns where, as `store_credentials` does; forgetting a host
/// that has nothing saved is no error. Raises as `store_credentials`.
#[pyfunction]
#[pyo3(signature = (host, *, dialect = "opentofu", env = None))]
pub(crate) fn forget_credentials(
    py: Python<'_>,
    host: HostArg,
    dialect: &str,
    env: Option<&Bound<'_, PyMapping>>,
) -> PyResult<String> {
    let source = source(py, dialect, env)?;
    let host = host.0;
    let place = destination(&source, &host);
    py.detach(|| source.forget(&host))
        .map_err(|e| raise(py, &e))?;
    Ok(place.unwrap_or_default())
}
