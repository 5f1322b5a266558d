//! The `dialect` argument of `Client`, `AsyncClient`, `ProviderSource` and
//! `ModuleSource`: `"opentofu"` (also `"tofu"`) or `"terraform"`, in any
//! case, as the `tfdisco` CLI's `--dialect` takes it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tfdisco_core::Dialect;

/// Parses a `dialect` argument; raises `ValueError` naming the spellings
/// accepted.
pub(crate) fn parse_dialect(name: &str) -> PyResult<Dialect> {
    name.parse::<Dialect>()
        .map_err(|e| PyValueError::new_err(format!("dialect: {e}")))
}
