//! `tfdisco.Hostname` and the module-level hostname functions.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyString, PyTuple, PyType};
use tfdisco_core::Hostname;
use tfdisco_core::hostname::{for_display as core_for_display, is_valid as core_is_valid};

use crate::errors::IntoPyResult;
use crate::record::record_methods;

/// A Terraform/OpenTofu service hostname in comparison form.
///
/// `Hostname(name)` parses `name` as a user types it (svchost's
/// `ForComparison`): UTS #46 lookup for international names, lower case,
/// punycode, and `:443` dropped. Punycode input is refused, as in Terraform
/// and OpenTofu. Raises `tfdisco.InvalidHostname` for anything else.
///
/// `str(h)` is the comparison form (`xn--mnchen-3ya.de:8443`); `h.display`
/// the form for people (`münchen.de:8443`). Hostnames are immutable,
/// hashable, ordered, and equal exactly when they name the same host.
#[pyclass(frozen, eq, ord, hash, str, module = "tfdisco", name = "Hostname")]
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PyHostname(pub(crate) Hostname);

impl std::fmt::Display for PyHostname {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

record_methods! {
    PyHostname {
        /// The form to show people: punycode labels decoded, the port kept
        /// (`münchen.de:8443`).
        display => |h| h.display().into_owned(),
        /// The host part of the comparison form, without the port.
        host => |h| h.host(),
        /// The port, or None when it is the default (443).
        port => |h| h.port(),
    }

    #[new]
    fn new(py: Python<'_>, name: PyBackedStr) -> PyResult<Self> {
        parse(py, &name).map(PyHostname)
    }

    /// A hostname already in comparison form, such as one read back from
    /// storage: unlike `Hostname(...)` it accepts punycode, and it refuses
    /// anything parsing would have changed (upper case, `:443`, Unicode).
    #[classmethod]
    fn from_comparison(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        value: PyBackedStr,
    ) -> PyResult<Self> {
        Hostname::from_comparison(&value)
            .map(PyHostname)
            .or_raise(py)
    }

    /// `Hostname('münchen.de:8443')`: the display form, which parses back
    /// to an equal hostname.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let display = PyString::new(py, &self.0.display());
        Ok(format!("Hostname({})", display.repr()?))
    }

    /// Pickles as the comparison form.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let rebuild = slf.get_type().getattr("from_comparison")?;
        let args = PyTuple::new(py, [PyString::new(py, slf.get().0.as_str())])?;
        PyTuple::new(py, [rebuild, args.into_any()])
    }
}

/// Parses a hostname a user gave, raising `InvalidHostname` (whose message
/// names the input).
pub(crate) fn parse(py: Python<'_>, input: &str) -> PyResult<Hostname> {
    Hostname::parse(input).or_raise(py)
}

/// A hostname argument: a `Hostname`, or a `str` parsed as one.
pub(crate) struct HostArg(pub(crate) Hostname);

impl<'a, 'py> FromPyObject<'a, 'py> for HostArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(host) = obj.cast::<PyHostname>() {
            return Ok(HostArg(host.get().0.clone()));
        }
        match obj.extract::<PyBackedStr>() {
            Ok(text) => parse(obj.py(), &text).map(HostArg),
            Err(_) => Err(PyTypeError::new_err(format!(
                "a hostname must be a str or a tfdisco.Hostname, not {}",
                obj.get_type().name()?
            ))),
        }
    }
}

/// The comparison form of `name` (svchost `ForComparison`): what
/// `str(Hostname(name))` gives, faster. Raises `InvalidHostname`.
#[pyfunction]
pub(crate) fn normalize<'py>(py: Python<'py>, name: PyBackedStr) -> PyResult<Bound<'py, PyString>> {
    let host = parse(py, &name)?;
    Ok(PyString::new(py, host.as_str()))
}

/// The liberal display form of any string (svchost's package-level
/// `ForDisplay`): never fails, returns what it cannot convert as given, and
/// accepts punycode.
#[pyfunction]
pub(crate) fn for_display(name: PyBackedStr) -> String {
    core_for_display(&name)
}

/// True when `Hostname(name)` would succeed (svchost `IsValid`).
#[pyfunction]
pub(crate) fn is_valid(name: PyBackedStr) -> bool {
    core_is_valid(&name)
}
