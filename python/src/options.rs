//! Python's syntax for the client's options: the `credentials` argument
//! (`"cli"`, None or a mapping of host to token), the `resolve` mapping,
//! the `env` mapping and the `timeout` in seconds; and the calls' list
//! arguments (`items`). Everything else about
//! the options is `tfdisco_runs::ClientOptions`, shared with the CLI.

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyMapping;
use tfdisco_core::{Credentials, Env, StaticCredentials};
use tfdisco_runs::{CredentialsChoice, address_override, timeout_from_secs};

use crate::errors;
use crate::hostname::HostArg;
use crate::record::quote;

/// The `credentials` argument: where tokens come from, and how `repr(client)`
/// shows it (fixed tokens as `'***'`).
pub(crate) struct CredentialsArg {
    pub(crate) choice: CredentialsChoice,
    pub(crate) repr: String,
}

impl CredentialsArg {
    /// `"cli"`, the default: the CLI's sources.
    pub(crate) fn cli() -> CredentialsArg {
        CredentialsArg {
            choice: CredentialsChoice::Cli,
            repr: "'cli'".to_owned(),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for CredentialsArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        if obj.is_none() {
            return Ok(CredentialsArg {
                choice: CredentialsChoice::Nothing,
                repr: "None".to_owned(),
            });
        }
        if let Ok(text) = obj.extract::<PyBackedStr>() {
            return match &*text {
                "cli" => Ok(CredentialsArg::cli()),
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
        let mut source = StaticCredentials::new();
        let mut shown = Vec::new();
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
            shown.push(format!("{}: '***'", quote(py, &host.display())?));
            source = source.with(host, credentials);
        }
        Ok(CredentialsArg {
            choice: CredentialsChoice::Static(source),
            repr: format!("{{{}}}", shown.join(", ")),
        })
    }
}

/// The `timeout` argument: a positive, finite number of seconds (the rule
/// the CLI's `--timeout` follows). Raises `ValueError`.
pub(crate) fn parse_timeout(seconds: f64) -> PyResult<Duration> {
    timeout_from_secs(seconds).map_err(PyValueError::new_err)
}

/// The `resolve` mapping: `{"host:port": "ip"}`, the addresses as
/// `tfdisco_runs::address_override` reads them (shared with Node).
pub(crate) fn parse_resolve(map: &Bound<'_, PyMapping>) -> PyResult<Vec<(String, SocketAddr)>> {
    let mut out = Vec::new();
    for item in map.items()?.iter() {
        let (key, value): (PyBackedStr, Bound<'_, PyAny>) = item.extract()?;
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
            out.push(address_override(&key, &v).map_err(PyValueError::new_err)?);
        }
    }
    Ok(out)
}

/// An environment given as a mapping of str to str.
pub(crate) fn parse_env(vars: &Bound<'_, PyMapping>) -> PyResult<Env> {
    let mut pairs = Vec::new();
    for item in vars.items()?.iter() {
        let (name, value): (String, String) = item
            .extract()
            .map_err(|_| PyTypeError::new_err("env must map str to str"))?;
        pairs.push((name, value));
    }
    Ok(Env::new(pairs))
}

/// The items of a list argument (`platforms`, `providers`, `zips`): any
/// iterable but a `str` (whose characters would be taken one by one).
pub(crate) fn items<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    like: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.extract::<PyBackedStr>().is_ok() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list of {like}, not a str (write [{}])",
            obj.repr()?
        )));
    }
    let Ok(iter) = obj.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list of {like}, not {}",
            obj.get_type().name()?
        )));
    };
    iter.collect()
}

/// The `jobs` argument, read by the rule every front end shares
/// (`tfdisco_runs::jobs`): 0 raises `InvalidOption`, a `ValueError`.
pub(crate) fn jobs_arg(jobs: u64) -> PyResult<NonZeroUsize> {
    tfdisco_runs::jobs(jobs).map_err(|e| Python::attach(|py| errors::invalid_option(py, e)))
}
