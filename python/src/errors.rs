//! Rust errors as the Python exceptions of `tfdisco._errors`: one class per
//! error kind, each carrying the Rust message and the kind's name; and the
//! CLI configuration's problems as `tfdisco.ConfigWarning` warnings.

use pyo3::call::PyCallArgs;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tfdisco_config::Diagnostic;
use tfdisco_runs::kinds;

/// The exception for an error of `kind` (a Rust `ErrorKind` name or one of
/// `tfdisco_runs::kinds`), with `message` and, when known, the URL and
/// status at fault.
pub(crate) fn new_error(
    py: Python<'_>,
    kind: &str,
    message: String,
    url: Option<String>,
    status: Option<u16>,
) -> PyErr {
    static MAKE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    made_by(py, &MAKE, "_make", (kind, message, url, status))
}

/// The exception `tfdisco._errors.<maker>(*args)` makes (the function
/// imported once, into `maker_cell`), or what calling it raised.
pub(crate) fn made_by<'py>(
    py: Python<'py>,
    maker_cell: &'static PyOnceLock<Py<PyAny>>,
    maker: &str,
    args: impl PyCallArgs<'py>,
) -> PyErr {
    let made = maker_cell
        .import(py, "tfdisco._errors", maker)
        .and_then(|make| make.call1(args));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}

/// The exception for a core error: its kind, its message (which never
/// contains credentials), its URL and status.
pub(crate) fn from_core(py: Python<'_>, error: &tfdisco_core::Error) -> PyErr {
    new_error(
        py,
        error.kind().as_str(),
        error.to_string(),
        error.url().map(|u| u.to_string()),
        error.status().map(|s| s.as_u16()),
    )
}

/// An `InvalidOption` exception (also a `ValueError`).
pub(crate) fn invalid_option(py: Python<'_>, message: impl ToString) -> PyErr {
    new_error(py, kinds::INVALID_OPTION, message.to_string(), None, None)
}

/// A `CredentialsError` exception: a credentials source failed for a host.
pub(crate) fn credentials(py: Python<'_>, error: &tfdisco_runs::CredentialsLookupError) -> PyErr {
    new_error(py, kinds::CREDENTIALS, error.to_string(), None, None)
}

/// Reports problems found in the CLI configuration files as
/// `tfdisco.ConfigWarning` warnings (the CLIs print them as warnings and go
/// on), each `file:line: message` ([`Diagnostic::located`]), attributed to
/// the line that made the client (`tfdisco._errors._warn_config`).
pub(crate) fn config_warnings(py: Python<'_>, diagnostics: &[Diagnostic]) -> PyResult<()> {
    if diagnostics.is_empty() {
        return Ok(());
    }
    static WARN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let messages: Vec<String> = diagnostics.iter().map(Diagnostic::located).collect();
    WARN.import(py, "tfdisco._errors", "_warn_config")?
        .call1((messages,))?;
    Ok(())
}

/// Converts results of core operations, for `?` in binding code.
pub(crate) trait IntoPyResult<T> {
    /// The value, or the error as its Python exception.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, tfdisco_core::Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| from_core(py, &e))
    }
}

impl<T> IntoPyResult<T> for Result<T, tfdisco_core::HostnameError> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| from_core(py, &e.into()))
    }
}
