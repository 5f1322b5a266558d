//! The native part of the `tfdisco` Python package (`tfdisco._tfdisco`):
//! PyO3 bindings of the tfdisco crates. The package's `__init__.py` adds
//! the exceptions (`tfdisco._errors`) and the asyncio client.

mod answers;
mod client;
mod credentials_store;
mod dialect;
mod errors;
mod hostname;
mod install;
mod installation;
mod json;
mod lock;
mod modules;
mod oci_module;
mod oci_push;
mod options;
mod package_hash;
mod record;
mod runtime;
mod services;
mod sources;

use pyo3::prelude::*;

/// Terraform/OpenTofu remote service discovery, from the tfdisco Rust crates.
#[pymodule]
mod _tfdisco {
    #[pymodule_export]
    use crate::answers::{
        PyModuleLocation, PyModuleVersions, PyProviderPackage, PyProviderVersion,
        PyProviderVersions, PySigningKey,
    };
    #[pymodule_export]
    use crate::client::PyClient;
    #[pymodule_export]
    use crate::credentials_store::{forget_credentials, store_credentials};
    #[pymodule_export]
    use crate::dialect::PyDialectChoice;
    #[pymodule_export]
    use crate::hostname::{PyHostname, for_display, is_valid, normalize};
    #[pymodule_export]
    use crate::install::{PyInstallReport, PyInstalledProvider};
    #[pymodule_export]
    use crate::installation::{PyInstallationMethod, installation_methods};
    #[pymodule_export]
    use crate::lock::{
        PyLockFailure, PyLockReport, PyLockedProvider, PyMirrorReport, PyMirroredProvider,
        PyOciMirrorReport, PyOciMirroredProvider,
    };
    #[pymodule_export]
    use crate::modules::{PyGetReport, PyInstalledModule, PyModuleFailure};
    #[pymodule_export]
    use crate::oci_module::{PyDownloadedModule, PyOciDescriptor, PyResolvedModule};
    #[pymodule_export]
    use crate::oci_push::PyPushedRelease;
    #[pymodule_export]
    use crate::package_hash::hash_package;
    #[pymodule_export]
    use crate::services::{PyOAuthClient, PyServices};
    #[pymodule_export]
    use crate::sources::{PyModuleSource, PyPlatform, PyProviderSource};

    #[pymodule_init]
    fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        use pyo3::types::PyModuleMethods;
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
