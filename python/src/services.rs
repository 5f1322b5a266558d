//! `tfdisco.Services` (a read-only mapping) and `tfdisco.OAuthClient` (a
//! record).

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyFrozenSet, PyList, PyString, PyTuple};
use tfdisco_core::serde_json::value::RawValue;
use tfdisco_core::url::Url;
use tfdisco_core::{OAuthClient, Resolved, Services};

use crate::errors::IntoPyResult;
use crate::hostname::PyHostname;
use crate::json;
use crate::record::{record_class, record_methods};

/// The services one host offers: its discovery document, as a read-only
/// mapping of service id (`"modules.v1"`) to the value the document gives
/// (a URL string, or a dict for `login.v1`-style clients), in document
/// order. `tfdisco.Services` is a `collections.abc.Mapping`.
///
/// Values are built from the document's text on each access, so changing
/// one changes nothing here. `service_url` and `oauth_client` read entries
/// under Terraform's rules.
#[pyclass(frozen, mapping, module = "tfdisco", name = "Services")]
pub(crate) struct PyServices(pub(crate) Services);

/// Calls `collections.abc.<view>(mapping)`.
fn view<'py>(mapping: &Bound<'py, PyServices>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static ABC: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let py = mapping.py();
    let abc = ABC.get_or_try_init(py, || py.import("collections.abc").map(Bound::unbind))?;
    abc.bind(py).getattr(name)?.call1((mapping,))
}

record_methods! {
    PyServices {
        /// The host these services belong to (for an alias, its target).
        hostname => |s| PyHostname(s.host().clone()),
        /// The URL the document came from, after redirects: the base of
        /// relative service URLs.
        discovery_url => |s| s.discovery_url().to_string(),
        /// The dialect whose rules read service ids: "opentofu" or "terraform".
        dialect => |s| s.dialect().name(),
        /// True for services given by a `host` block of the CLI configuration
        /// rather than discovered.
        is_forced => |s| s.is_forced(),
        /// True when the host had a document (an object, even `{}`); False after
        /// a 404 or a `null` document.
        has_document => |s| s.has_document(),
    }

    /// The services as one JSON document, the one `tfdisco discover HOST
    /// --json` prints and the Node package's `JSON.stringify` gives (a
    /// `str`): hostname, display, discovery_url, services (document order)
    /// and resolved (every id).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }

    /// The base URL of service `id` (svchost `ServiceURL`): relative URLs
    /// resolved against `discovery_url`. Raises `ServiceNotProvided`,
    /// `VersionNotSupported`, `InvalidServiceId` or `InvalidServiceUrl`.
    fn service_url(&self, py: Python<'_>, id: PyBackedStr) -> PyResult<String> {
        self.0.service_url(&id).or_raise(py).map(String::from)
    }

    /// The OAuth client a `login.v1`-style entry describes, with every
    /// default and check of Terraform. Raises `ServiceNotProvided`,
    /// `VersionNotSupported`, `InvalidServiceId` or `InvalidOAuthClient`.
    fn oauth_client(&self, py: Python<'_>, id: PyBackedStr) -> PyResult<PyOAuthClient> {
        self.0.oauth_client(&id).or_raise(py).map(PyOAuthClient)
    }

    /// What entry `id` is for a client: an `OAuthClient` for a client
    /// definition (an object, as `login.v1` has), else its base URL.
    fn resolve<'py>(&self, py: Python<'py>, id: PyBackedStr) -> PyResult<Bound<'py, PyAny>> {
        match self.0.resolve(&id).or_raise(py)? {
            Resolved::Url(url) => Ok(PyString::new(py, url.as_str()).into_any()),
            Resolved::OAuthClient(client) => Ok(Bound::new(py, PyOAuthClient(*client))?.into_any()),
        }
    }

    /// The value of `id`, or `default` when the document does not list it.
    #[pyo3(signature = (id, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.entry(id) {
            Some(raw) => json::to_python(py, raw.get()),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.entry(id) {
            Some(raw) => json::to_python(py, raw.get()),
            None => Err(PyKeyError::new_err(id.clone().unbind())),
        }
    }

    fn __contains__(&self, id: &Bound<'_, PyAny>) -> bool {
        self.entry(id).is_some()
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.ids(py)?.into_any().try_iter().map(Bound::into_any)
    }

    /// The service ids, in document order (a `KeysView`).
    fn keys<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "KeysView")
    }

    /// The values, in document order (a `ValuesView`).
    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "ValuesView")
    }

    /// The `(id, value)` pairs, in document order (an `ItemsView`).
    fn items<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "ItemsView")
    }

    /// Equal to any mapping with the same items, as every `Mapping` is.
    fn __eq__<'py>(
        slf: &Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        static MAPPING: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let mapping = MAPPING.import(py, "collections.abc", "Mapping")?;
        if !other.is_instance(mapping)? {
            return Ok(py.NotImplemented().into_bound(py));
        }
        let mine = py
            .get_type::<pyo3::types::PyDict>()
            .call1((view(slf, "ItemsView")?,))?;
        let theirs = py
            .get_type::<pyo3::types::PyDict>()
            .call1((other.call_method0("items")?,))?;
        Ok(mine.eq(theirs)?.into_pyobject(py)?.to_owned().into_any())
    }

    /// Mappings are not hashable.
    #[classattr]
    #[allow(non_upper_case_globals)]
    const __hash__: Option<Py<PyAny>> = None;

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<tfdisco.Services of {} from {}: {}>",
            self.0.host().display(),
            self.0.discovery_url(),
            self.ids(py)?.repr()?,
        ))
    }
}

impl PyServices {
    /// The document's entry for the key `id`: none for a key that is no
    /// `str`, as for a `str` the document does not list.
    fn entry(&self, id: &Bound<'_, PyAny>) -> Option<&RawValue> {
        let id = id.extract::<PyBackedStr>().ok()?;
        self.0.get(&id)
    }

    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.0.iter().map(|(id, _)| id))
    }
}

record_class! {
    /// An OAuth client as a `login.v1` service describes it: a public client
    /// using the authorization-code flow with PKCE and a loopback redirect, as
    /// `terraform login` / `tofu login` use it. Relative endpoints are already
    /// resolved against the discovery URL.
    PyOAuthClient(OAuthClient) as "OAuthClient", eq {
        /// The client id (`client`).
        client_id => |c| c.client_id(),
        /// The authorization endpoint (`authz`), required by `authz_code`.
        authorization_url => |c| c.authorization_url().map(Url::as_str),
        /// The token endpoint (`token`), required by `authz_code` and `password`.
        token_url => |c| c.token_url().map(Url::as_str),
        /// The lowest local port for the redirect listener (default 1024).
        min_port => |c| c.min_port(),
        /// The highest local port for the redirect listener (default 65535).
        max_port => |c| c.max_port(),
        /// The grant types (`authz_code` when the document names none);
        /// unknown names are kept.
        grant_types => |c, py| PyFrozenSet::new(py, c.grant_types())?,
        /// The scopes to request; empty when none are given.
        scopes => |c, py| PyTuple::new(py, c.scopes())?,
    }

    /// True when the client supports `grant_type`.
    fn supports_grant_type(&self, grant_type: PyBackedStr) -> bool {
        self.0.supports_grant_type(&grant_type)
    }
}
