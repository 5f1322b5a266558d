//! `tfdisco.hash_package`: the lock file hashes of a provider package on
//! disk, read by the config crate's `hash_package_file`.

use std::io;
use std::path::PathBuf;

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tfdisco_config::{MirrorError, hash_package_file};

use crate::errors;

/// The lock file hashes of a provider package (a zip file) on disk: the
/// tuple `(h1, zh)`, as `.terraform.lock.hcl` records them.
///
/// `h1` is `h1:` and the base64 SHA-256 of the summary of the package's
/// files (Go's `dirhash.Hash1`, what Terraform records for a package it
/// installed); `zh` is `zh:` and the hex SHA-256 of the zip file itself (what
/// `SHA256SUMS` lists). The file is read once, in 64 KiB chunks, in constant
/// memory, with the GIL released.
///
/// Raises `FileNotFoundError` (or another `OSError`) when the file cannot
/// be read, and `tfdisco.InvalidPackage` (also a `ValueError`) when it is
/// no package that can be hashed: not a zip, truncated, damaged, encrypted,
/// with unsafe or duplicate names, … (its `problem` says which).
///
/// >>> h1, zh = tfdisco.hash_package("terraform-provider-x_1.0.0_linux_amd64.zip")  # doctest: +SKIP
/// >>> h1                                                        # doctest: +SKIP
/// 'h1:MBY98DodEYtiU/UM9ybvJdNHFBbbJBSyVP6EGQP+G4I='
#[pyfunction]
pub(crate) fn hash_package(py: Python<'_>, path: PathBuf) -> PyResult<(String, String)> {
    match py.detach(|| hash_package_file(&path)) {
        Ok(hashes) => Ok((hashes.h1(), hashes.zh())),
        Err(error) => Err(package_error(py, error)),
    }
}

/// The exception for a package that could not be hashed: `InvalidPackage`
/// for what the hasher refused, an `OSError` (its errno subclass, with the
/// file name) for what could not be read.
fn package_error(py: Python<'_>, error: MirrorError) -> PyErr {
    let shown = error.path().display().to_string();
    match error {
        MirrorError::Package { error: refused, .. } => {
            static MAKE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            let message = format!("{shown}: {refused}");
            errors::made_by(py, &MAKE, "_make_package", (message, refused.kind()))
        }
        MirrorError::Read { path, source } | MirrorError::Search { path, source } => {
            match source.raw_os_error() {
                // OSError(errno, strerror, filename) is the errno's subclass
                // (FileNotFoundError, PermissionError, IsADirectoryError, …).
                Some(errno) => {
                    let text = io::Error::from_raw_os_error(errno).to_string();
                    let strerror = text.split(" (os error").next().unwrap_or(&text).to_owned();
                    PyOSError::new_err((errno, strerror, path.into_os_string()))
                }
                None => PyOSError::new_err(format!("{shown}: {source}")),
            }
        }
        other => PyOSError::new_err(other.to_string()),
    }
}
