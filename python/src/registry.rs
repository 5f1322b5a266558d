//! The registry side: `tfdisco.ProviderSource`, `tfdisco.ModuleSource`,
//! `tfdisco.Platform`, and the answers of the four registry calls
//! (`ProviderVersions`, `ProviderVersion`, `ProviderPackage`, `SigningKey`,
//! `ModuleVersions`, `ModuleLocation`), each a frozen wrapper of the core's
//! type with read-only attributes.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyString, PyTuple};
use tfdisco_core::{
    Dialect, Error, ModuleLocation, ModuleSource, ModuleVersions, Platform, ProviderPackage,
    ProviderSource, ProviderVersion, ProviderVersions, SigningKey, SourceError,
};

use crate::errors::{self, IntoPyResult};
use crate::hostname::PyHostname;

/// `repr(text)` as Python writes it.
fn quote(py: Python<'_>, text: &str) -> PyResult<String> {
    Ok(PyString::new(py, text).repr()?.to_string())
}

/// `Name(field=repr(value), …)`, as a dataclass shows itself.
fn fields_repr(name: &str, fields: &[(&str, Bound<'_, PyAny>)]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for (field, value) in fields {
        parts.push(format!("{field}={}", value.repr()?));
    }
    Ok(format!("{name}({})", parts.join(", ")))
}

/// A value as a Python object, for [`fields_repr`].
fn object<'py, T>(py: Python<'py>, value: T) -> PyResult<Bound<'py, PyAny>>
where
    T: IntoPyObject<'py>,
{
    value.into_bound_py_any(py)
}

fn parse_dialect(name: &str) -> PyResult<Dialect> {
    crate::client::parse_dialect(name)
}

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
/// (`validate()`). Raises `tfdisco.InvalidSource` for what does not parse.
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

#[pymethods]
impl PyProviderSource {
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

    /// The registry host (a `Hostname`).
    #[getter]
    fn host(&self) -> PyHostname {
        PyHostname(self.0.host().clone())
    }

    /// The namespace, normalized (`hashicorp`); `?` when none was given,
    /// `-` for a legacy address.
    #[getter]
    fn namespace(&self) -> &str {
        self.0.namespace()
    }

    /// The provider type, normalized (`aws`).
    #[getter]
    #[pyo3(name = "type")]
    fn type_name(&self) -> &str {
        self.0.type_name()
    }

    /// The dialect that parsed it: "opentofu" or "terraform" (its default
    /// registry is the one `for_display()` leaves out).
    #[getter]
    fn dialect(&self) -> &'static str {
        self.0.dialect().name()
    }

    /// The short form for people: `namespace/type` on the dialect's default
    /// registry, else the full address (Go's `ForDisplay`).
    fn for_display(&self) -> String {
        self.0.for_display()
    }

    /// True when a namespace was given (not the unknown namespace `?` of a
    /// bare type).
    #[getter]
    fn has_known_namespace(&self) -> bool {
        self.0.has_known_namespace()
    }

    /// True for a legacy address (namespace `-` on the default registry).
    #[getter]
    fn is_legacy(&self) -> bool {
        self.0.is_legacy()
    }

    /// True for a provider built into the CLI (`terraform.io/builtin/…`;
    /// for OpenTofu also `opentofu.org/builtin/…`).
    #[getter]
    fn is_builtin(&self) -> bool {
        self.0.is_builtin()
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
    ProviderSource::parse(&text, dialect)
        .and_then(|source| source.validate().map(|()| source))
        .map_err(|error| invalid_source(py, &text, error))
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
/// is normalized. Raises `tfdisco.InvalidSource` for what does not parse.
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

#[pymethods]
impl PyModuleSource {
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

    /// The registry host (a `Hostname`).
    #[getter]
    fn host(&self) -> PyHostname {
        PyHostname(self.0.host().clone())
    }

    /// The namespace, as written (`hashicorp`).
    #[getter]
    fn namespace(&self) -> &str {
        self.0.namespace()
    }

    /// The module name, as written (`consul`).
    #[getter]
    fn name(&self) -> &str {
        self.0.name()
    }

    /// The target system (`aws`, `azurerm`, …).
    #[getter]
    fn target_system(&self) -> &str {
        self.0.target_system()
    }

    /// The subdirectory inside the package (after `//`), cleaned like a
    /// path; empty when there is none.
    #[getter]
    fn subdir(&self) -> &str {
        self.0.subdir()
    }

    /// `namespace/name/system`, the part of registry API paths that names
    /// the package (Go's `ForRegistryProtocol`).
    #[getter]
    fn package_path(&self) -> String {
        self.0.package_path()
    }

    /// The dialect that parsed it: "opentofu" or "terraform" (its default
    /// registry is the one `for_display()` leaves out).
    #[getter]
    fn dialect(&self) -> &'static str {
        self.0.dialect().name()
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

#[pymethods]
impl PyPlatform {
    #[new]
    fn new(py: Python<'_>, platform: PyBackedStr) -> PyResult<Self> {
        Platform::parse(&platform).or_raise(py).map(PyPlatform)
    }

    /// The operating system (`linux`, `darwin`, `windows`, …).
    #[getter]
    fn os(&self) -> &str {
        &self.0.os
    }

    /// The architecture (`amd64`, `arm64`, `386`, …).
    #[getter]
    fn arch(&self) -> &str {
        &self.0.arch
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

// --- Provider answers -----------------------------------------------------------

/// The versions of a provider, as its registry lists them
/// (`Client.provider_versions`).
#[pyclass(frozen, eq, module = "tfdisco", name = "ProviderVersions")]
#[derive(PartialEq)]
pub(crate) struct PyProviderVersions(pub(crate) ProviderVersions);

#[pymethods]
impl PyProviderVersions {
    /// The provider asked about (a `ProviderSource`).
    #[getter]
    fn source(&self) -> PyProviderSource {
        PyProviderSource(self.0.source.clone())
    }

    /// The URL the versions were read from, after redirects.
    #[getter]
    fn url(&self) -> &str {
        self.0.url.as_str()
    }

    /// The versions (`ProviderVersion`s), in the registry's order (a new
    /// list on each access). Terraform leaves out versions that are not
    /// semantic versions; OpenTofu refuses the answer (`InvalidResponse`).
    #[getter]
    fn versions(&self) -> Vec<PyProviderVersion> {
        self.0
            .versions
            .iter()
            .cloned()
            .map(PyProviderVersion)
            .collect()
    }

    /// Warnings the registry gives about this provider, for people.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.0.warnings.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        fields_repr(
            "ProviderVersions",
            &[
                ("source", object(py, self.source())?),
                ("url", object(py, self.url())?),
                ("versions", object(py, self.versions())?),
                ("warnings", object(py, self.warnings())?),
            ],
        )
    }
}

/// One version of a provider, as its registry lists it.
#[pyclass(frozen, eq, module = "tfdisco", name = "ProviderVersion")]
#[derive(PartialEq)]
pub(crate) struct PyProviderVersion(pub(crate) ProviderVersion);

#[pymethods]
impl PyProviderVersion {
    /// The version (`3.6.0`).
    #[getter]
    fn version(&self) -> &str {
        &self.0.version
    }

    /// The plugin protocol versions it speaks (`["5.0"]`).
    #[getter]
    fn protocols(&self) -> Vec<String> {
        self.0.protocols.clone()
    }

    /// The platforms it has packages for (`Platform`s).
    #[getter]
    fn platforms(&self) -> Vec<PyPlatform> {
        self.0.platforms.iter().cloned().map(PyPlatform).collect()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        fields_repr(
            "ProviderVersion",
            &[
                ("version", object(py, self.version())?),
                ("protocols", object(py, self.protocols())?),
                ("platforms", object(py, self.platforms())?),
            ],
        )
    }
}

/// Where to download one version of a provider for one platform, and how to
/// check it (`Client.provider_package`). URLs are absolute: relative ones
/// are resolved against the response's URL.
#[pyclass(frozen, eq, module = "tfdisco", name = "ProviderPackage")]
#[derive(PartialEq)]
pub(crate) struct PyProviderPackage(pub(crate) ProviderPackage);

#[pymethods]
impl PyProviderPackage {
    /// The provider asked about (a `ProviderSource`).
    #[getter]
    fn source(&self) -> PyProviderSource {
        PyProviderSource(self.0.source.clone())
    }

    /// The version asked about.
    #[getter]
    fn version(&self) -> &str {
        &self.0.version
    }

    /// The platform asked about (the registry's answer must name it).
    #[getter]
    fn platform(&self) -> PyPlatform {
        PyPlatform(self.0.platform.clone())
    }

    /// The package's file name.
    #[getter]
    fn filename(&self) -> &str {
        &self.0.filename
    }

    /// The package (a zip file).
    #[getter]
    fn download_url(&self) -> &str {
        self.0.download_url.as_str()
    }

    /// The `SHA256SUMS` file.
    #[getter]
    fn shasums_url(&self) -> &str {
        self.0.shasums_url.as_str()
    }

    /// The detached signature of `SHA256SUMS`.
    #[getter]
    fn shasums_signature_url(&self) -> &str {
        self.0.shasums_signature_url.as_str()
    }

    /// The package's SHA-256: 64 lower-case hex digits.
    #[getter]
    fn shasum(&self) -> &str {
        &self.0.shasum
    }

    /// The plugin protocol versions it speaks (`["5.0"]`).
    #[getter]
    fn protocols(&self) -> Vec<String> {
        self.0.protocols.clone()
    }

    /// The GPG keys that may have signed `SHA256SUMS` (`SigningKey`s).
    #[getter]
    fn signing_keys(&self) -> Vec<PySigningKey> {
        self.0
            .signing_keys
            .iter()
            .cloned()
            .map(PySigningKey)
            .collect()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        fields_repr(
            "ProviderPackage",
            &[
                ("source", object(py, self.source())?),
                ("version", object(py, self.version())?),
                ("platform", object(py, self.platform())?),
                ("filename", object(py, self.filename())?),
                ("download_url", object(py, self.download_url())?),
                ("shasums_url", object(py, self.shasums_url())?),
                (
                    "shasums_signature_url",
                    object(py, self.shasums_signature_url())?,
                ),
                ("shasum", object(py, self.shasum())?),
                ("protocols", object(py, self.protocols())?),
                ("signing_keys", object(py, self.signing_keys())?),
            ],
        )
    }
}

/// One GPG key that may have signed a provider's `SHA256SUMS`.
#[pyclass(frozen, eq, module = "tfdisco", name = "SigningKey")]
#[derive(PartialEq)]
pub(crate) struct PySigningKey(pub(crate) SigningKey);

#[pymethods]
impl PySigningKey {
    /// The key id (`34365D9472D7468F`); empty when the registry gives none.
    #[getter]
    fn key_id(&self) -> &str {
        &self.0.key_id
    }

    /// The public key, ASCII-armored.
    #[getter]
    fn ascii_armor(&self) -> &str {
        &self.0.ascii_armor
    }

    /// A signature by a trusted key over this key (partner providers);
    /// empty when there is none.
    #[getter]
    fn trust_signature(&self) -> &str {
        &self.0.trust_signature
    }

    /// Who the key belongs to (`HashiCorp`); may be empty.
    #[getter]
    fn source(&self) -> &str {
        &self.0.source
    }

    /// Where to read more about the key, or None.
    #[getter]
    fn source_url(&self) -> Option<&str> {
        self.0.source_url.as_deref()
    }

    /// The fields but the key itself, which is long: `ascii_armor` shows as
    /// its length.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "SigningKey(key_id={}, ascii_armor=<{} characters>, trust_signature={}, source={}, source_url={})",
            quote(py, self.key_id())?,
            self.0.ascii_armor.chars().count(),
            quote(py, self.trust_signature())?,
            quote(py, self.source())?,
            object(py, self.source_url())?.repr()?,
        ))
    }
}

// --- Module answers -------------------------------------------------------------

/// The versions of a module package, as its registry lists them
/// (`Client.module_versions`).
#[pyclass(frozen, eq, module = "tfdisco", name = "ModuleVersions")]
#[derive(PartialEq)]
pub(crate) struct PyModuleVersions(pub(crate) ModuleVersions);

#[pymethods]
impl PyModuleVersions {
    /// The module asked about (a `ModuleSource`).
    #[getter]
    fn source(&self) -> PyModuleSource {
        PyModuleSource(self.0.source.clone())
    }

    /// The URL the versions were read from, after redirects.
    #[getter]
    fn url(&self) -> &str {
        self.0.url.as_str()
    }

    /// The versions (str), in the registry's order (a new list on each
    /// access).
    #[getter]
    fn versions(&self) -> Vec<String> {
        self.0.versions.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        fields_repr(
            "ModuleVersions",
            &[
                ("source", object(py, self.source())?),
                ("url", object(py, self.url())?),
                ("versions", object(py, self.versions())?),
            ],
        )
    }
}

/// Where to download one version of a module package from
/// (`Client.module_download`).
#[pyclass(frozen, eq, module = "tfdisco", name = "ModuleLocation")]
#[derive(PartialEq)]
pub(crate) struct PyModuleLocation(pub(crate) ModuleLocation);

#[pymethods]
impl PyModuleLocation {
    /// The module asked about (a `ModuleSource`; its subdirectory, if any,
    /// applies inside the package).
    #[getter]
    fn source(&self) -> PyModuleSource {
        PyModuleSource(self.0.source.clone())
    }

    /// The version asked about.
    #[getter]
    fn version(&self) -> &str {
        &self.0.version
    }

    /// The location: a go-getter address (`git::https://…?ref=v1.2.0`,
    /// `https://….zip`, `s3::…`) or, when `use_registry_credentials` is not
    /// None, a plain http(s) URL. A location the registry gave relative to
    /// itself (`/`, `./`, `../`) is already resolved.
    #[getter]
    fn location(&self) -> &str {
        &self.0.location
    }

    /// OpenTofu's direct packages: whether the registry's credentials go
    /// with the package download. None for a go-getter address.
    #[getter]
    fn use_registry_credentials(&self) -> Option<bool> {
        self.0.use_registry_credentials
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        fields_repr(
            "ModuleLocation",
            &[
                ("source", object(py, self.source())?),
                ("version", object(py, self.version())?),
                ("location", object(py, self.location())?),
                (
                    "use_registry_credentials",
                    object(py, self.use_registry_credentials())?,
                ),
            ],
        )
    }
}
