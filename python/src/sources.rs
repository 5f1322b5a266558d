//! What the registry calls take: `tfdisco.ProviderSource`,
//! `tfdisco.ModuleSource` and `tfdisco.Platform`, and the functions that
//! read those arguments (a class instance, or a `str` parsed in the
//! client's dialect).

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyTuple;
use tfdisco_core::{Dialect, Error, ModuleSource, Platform, ProviderSource, SourceError};

use crate::dialect::parse_dialect;
use crate::errors::{self, IntoPyResult};
use crate::hostname::PyHostname;
use crate::record::{quote, record_methods};

/// The `InvalidSource` exception for `input`.
fn invalid_source(py: Python<'_>, input: &str, error: SourceError) -> PyErr {
    errors::from_core(
        py,
        &Error::InvalidSource {
            input: input.to_owned(),
            error,
        },
    )
}

// --- Provider sources ---------------------------------------------------------

/// A provider source address, such as `hashicorp/aws` or
/// `registry.example.com/acme/widgets`, parsed as Terraform and OpenTofu
/// parse the `source` of a `required_providers` entry
/// (terraform-registry-address's `ParseProviderSource`).
///
/// `ProviderSource(source, *, dialect="opentofu")`: without a hostname the
/// dialect's default registry applies (`registry.opentofu.org`, or
/// `registry.terraform.io` for "terraform"); namespace and type are
/// normalized (lower case, Unicode). A bare type (`aws`) parses, with the
/// unknown namespace `?`, but a registry request needs a namespace
/// (`validate()`). `dialect` is "opentofu" (or "tofu") or "terraform", in
/// any case (`ValueError` otherwise). Raises `tfdisco.InvalidSource` for
/// what does not parse.
///
/// `str(source)` is the full address (Go's `String()`:
/// `registry.opentofu.org/hashicorp/aws`), `for_display()` the short one.
/// Sources are immutable, hashable, ordered, picklable, and equal when they
/// name the same provider (whatever dialect parsed them).
#[pyclass(
    frozen,
    eq,
    ord,
    hash,
    str,
    module = "tfdisco",
    name = "ProviderSource"
)]
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PyProviderSource(pub(crate) ProviderSource);

impl fmt::Display for PyProviderSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

record_methods! {
    PyProviderSource {
        /// The registry host (a `Hostname`).
        host => |s| PyHostname(s.host().clone()),
        /// The namespace, normalized (`hashicorp`); `?` when none was given,
        /// `-` for a legacy address.
        namespace => |s| s.namespace(),
        /// The provider type, normalized (`aws`).
        r#type => |s| s.type_name(),
        /// The dialect that parsed it: "opentofu" or "terraform" (its default
        /// registry is the one `for_display()` leaves out).
        dialect => |s| s.dialect().name(),
        /// True when a namespace was given (not the unknown namespace `?` of a
        /// bare type).
        has_known_namespace => |s| s.has_known_namespace(),
        /// True for a legacy address (namespace `-` on the default registry).
        is_legacy => |s| s.is_legacy(),
        /// True for a provider built into the CLI (`terraform.io/builtin/…`;
        /// for OpenTofu also `opentofu.org/builtin/…`).
        is_builtin => |s| s.is_builtin(),
    }

    #[new]
    #[pyo3(signature = (source, *, dialect = "opentofu"))]
    fn new(py: Python<'_>, source: &str, dialect: &str) -> PyResult<Self> {
        let dialect = parse_dialect(dialect)?;
        ProviderSource::parse(source, dialect)
            .map(PyProviderSource)
            .map_err(|error| invalid_source(py, source, error))
    }

    /// Rebuilds a pickled source from its parts (comparison-form host).
    #[staticmethod]
    fn _from_parts(
        py: Python<'_>,
        host: &str,
        namespace: &str,
        type_name: &str,
        dialect: &str,
    ) -> PyResult<Self> {
        let dialect = parse_dialect(dialect)?;
        ProviderSource::from_parts(host, namespace, type_name, dialect)
            .map(PyProviderSource)
            .map_err(|error| invalid_source(py, &format!("{host}/{namespace}/{type_name}"), error))
    }

    /// The short form for people: `namespace/type` on the dialect's default
    /// registry, else the full address (Go's `ForDisplay`).
    fn for_display(&self) -> String {
        self.0.for_display()
    }

    /// Raises `InvalidSource` unless a registry request can use the source:
    /// it needs a namespace (not a bare type, nor the legacy `-`).
    fn validate(&self, py: Python<'_>) -> PyResult<()> {
        self.0.require_qualified().or_raise(py)
    }

    /// `ProviderSource('registry.opentofu.org/hashicorp/aws', dialect='opentofu')`.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ProviderSource({}, dialect='{}')",
            quote(py, &self.0.to_string())?,
            self.0.dialect().name()
        ))
    }

    /// Pickles as its parts, so that even a bare type comes back.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let source = &slf.get().0;
        let rebuild = slf.get_type().getattr("_from_parts")?;
        let args = PyTuple::new(
            py,
            [
                source.host().as_str(),
                source.namespace(),
                source.type_name(),
                source.dialect().name(),
            ],
        )?;
        PyTuple::new(py, [rebuild, args.into_any()])
    }
}

/// A provider source argument, ready for a registry request: a
/// `ProviderSource`, or a `str` parsed in `dialect`; either must be fully
/// qualified. Raises `InvalidSource`, or `TypeError` for another type.
pub(crate) fn provider_source_arg(
    obj: &Bound<'_, PyAny>,
    dialect: Dialect,
) -> PyResult<ProviderSource> {
    let py = obj.py();
    if let Ok(source) = obj.cast::<PyProviderSource>() {
        let source = source.get().0.clone();
        source.require_qualified().or_raise(py)?;
        return Ok(source);
    }
    let Ok(text) = obj.extract::<PyBackedStr>() else {
        return Err(PyTypeError::new_err(format!(
            "a provider source must be a str or a tfdisco.ProviderSource, not {}",
            obj.get_type().name()?
        )));
    };
    ProviderSource::parse_argument(&text, dialect).or_raise(py)
}

// --- Module sources -------------------------------------------------------------

/// A module registry source address, such as `hashicorp/consul/aws` or
/// `app.terraform.io/acme/vpc/aws//modules/subnet`, parsed as Terraform and
/// OpenTofu parse a module's `source` (`ParseModuleSource`).
///
/// `ModuleSource(source, *, dialect="opentofu")`: three parts mean the
/// dialect's default registry; four start with a hostname, which must
/// contain a dot and may not be `github.com` or `bitbucket.org` (those are
/// installed from version control, not from a registry). Only the hostname
/// is normalized. `dialect` is "opentofu" (or "tofu") or "terraform", in
/// any case (`ValueError` otherwise). Raises `tfdisco.InvalidSource` for
/// what does not parse.
///
/// `str(source)` is the full address (Go's `String()`), `for_display()` the
/// short one. Sources are immutable, hashable, ordered, picklable, and equal
/// when they name the same package and subdirectory (whatever dialect parsed
/// them).
#[pyclass(frozen, eq, ord, hash, str, module = "tfdisco", name = "ModuleSource")]
#[derive(Clone)]
pub(crate) struct PyModuleSource(pub(crate) ModuleSource);

impl PyModuleSource {
    /// What equality, order and hash go by: the address, not the dialect.
    fn key(&self) -> (&str, &str, &str, &str, &str) {
        let s = &self.0;
        (
            s.host().as_str(),
            s.namespace(),
            s.name(),
            s.target_system(),
            s.subdir(),
        )
    }
}

impl PartialEq for PyModuleSource {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for PyModuleSource {}

impl PartialOrd for PyModuleSource {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PyModuleSource {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl Hash for PyModuleSource {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl fmt::Display for PyModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

record_methods! {
    PyModuleSource {
        /// The registry host (a `Hostname`).
        host => |s| PyHostname(s.host().clone()),
        /// The namespace, as written (`hashicorp`).
        namespace => |s| s.namespace(),
        /// The module name, as written (`consul`).
        name => |s| s.name(),
        /// The target system (`aws`, `azurerm`, …).
        target_system => |s| s.target_system(),
        /// The subdirectory inside the package (after `//`), cleaned like a
        /// path; empty when there is none.
        subdir => |s| s.subdir(),
        /// `namespace/name/system`, the part of registry API paths that names
        /// the package (Go's `ForRegistryProtocol`).
        package_path => |s| s.package_path(),
        /// The dialect that parsed it: "opentofu" or "terraform" (its default
        /// registry is the one `for_display()` leaves out).
        dialect => |s| s.dialect().name(),
    }

    #[new]
    #[pyo3(signature = (source, *, dialect = "opentofu"))]
    fn new(py: Python<'_>, source: &str, dialect: &str) -> PyResult<Self> {
        let dialect = parse_dialect(dialect)?;
        ModuleSource::parse(source, dialect)
            .map(PyModuleSource)
            .map_err(|error| invalid_source(py, source, error))
    }

    /// Rebuilds a pickled source from its full address.
    #[staticmethod]
    fn _unpickle(py: Python<'_>, source: &str, dialect: &str) -> PyResult<Self> {
        PyModuleSource::new(py, source, dialect)
    }

    /// The short form for people: the hostname left out on the dialect's
    /// default registry (Go's `ForDisplay`).
    fn for_display(&self) -> String {
        self.0.for_display()
    }

    /// `ModuleSource('registry.opentofu.org/hashicorp/consul/aws', dialect='opentofu')`.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ModuleSource({}, dialect='{}')",
            quote(py, &self.0.to_string())?,
            self.0.dialect().name()
        ))
    }

    /// Pickles as its full address and dialect.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let source = &slf.get().0;
        let rebuild = slf.get_type().getattr("_unpickle")?;
        let args = PyTuple::new(py, [source.to_string().as_str(), source.dialect().name()])?;
        PyTuple::new(py, [rebuild, args.into_any()])
    }
}

/// A module source argument: a `ModuleSource`, or a `str` parsed in
/// `dialect`. Raises `InvalidSource`, or `TypeError` for another type.
pub(crate) fn module_source_arg(
    obj: &Bound<'_, PyAny>,
    dialect: Dialect,
) -> PyResult<ModuleSource> {
    if let Ok(source) = obj.cast::<PyModuleSource>() {
        return Ok(source.get().0.clone());
    }
    let Ok(text) = obj.extract::<PyBackedStr>() else {
        return Err(PyTypeError::new_err(format!(
            "a module source must be a str or a tfdisco.ModuleSource, not {}",
            obj.get_type().name()?
        )));
    };
    ModuleSource::parse(&text, dialect).map_err(|error| invalid_source(obj.py(), &text, error))
}

// --- Platforms -----------------------------------------------------------------

/// An operating system and architecture, as `linux_amd64` names them.
///
/// `Platform("linux_amd64")` parses `OS_ARCH`: two words of lower-case ASCII
/// letters and digits. Raises `tfdisco.InvalidArgument` for anything else.
/// `str(platform)` is `OS_ARCH` again. Immutable, hashable, comparable.
#[pyclass(frozen, eq, hash, str, module = "tfdisco", name = "Platform")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyPlatform(pub(crate) Platform);

impl fmt::Display for PyPlatform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

record_methods! {
    PyPlatform {
        /// The operating system (`linux`, `darwin`, `windows`, …).
        os => |p| p.os.as_ref(),
        /// The architecture (`amd64`, `arm64`, `386`, …).
        arch => |p| p.arch.as_ref(),
    }

    #[new]
    fn new(py: Python<'_>, platform: PyBackedStr) -> PyResult<Self> {
        Platform::parse(&platform).or_raise(py).map(PyPlatform)
    }

    /// `Platform('linux_amd64')`.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Platform({})", quote(py, &self.0.to_string())?))
    }

    /// Pickles as `OS_ARCH`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let args = PyTuple::new(py, [slf.get().0.to_string()])?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

/// A platform argument: a `Platform`, or a `str` such as `"linux_amd64"`.
/// Raises `InvalidArgument`, or `TypeError` for another type.
pub(crate) fn platform_arg(obj: &Bound<'_, PyAny>) -> PyResult<Platform> {
    if let Ok(platform) = obj.cast::<PyPlatform>() {
        let platform = platform.get().0.clone();
        platform.check().or_raise(obj.py())?;
        return Ok(platform);
    }
    match obj.extract::<PyBackedStr>() {
        Ok(text) => Platform::parse(&text).or_raise(obj.py()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "a platform must be a str such as \"linux_amd64\" or a tfdisco.Platform, not {}",
            obj.get_type().name()?
        ))),
    }
}
