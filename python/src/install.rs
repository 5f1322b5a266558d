//! Provider installation (issue 26): what `Client.install` /
//! `AsyncClient.install` take (providers, `upgrade`, `lockfile`,
//! `plugin_cache`, `jobs` → `tfdisco_transport::InstallOptions`, on top of
//! what the client's CLI configuration says, as the CLI takes them) and
//! give (`InstallReport` of `InstalledProvider`s, or `tfdisco.LockError`
//! as `lock` raises it).

use std::path::PathBuf;

use pyo3::prelude::*;
use tfdisco_core::Dialect;
use tfdisco_transport::{
    InstallOptions, InstallReport, InstalledProvider, LockError, install_word,
};

use crate::errors;
use crate::lock::{jobs_arg, lock_error};
use crate::options::items;
use crate::record::{quote, record_methods};
use crate::sources::{self, PyPlatform, PyProviderSource};

/// The one value `lockfile` takes besides None: Terraform's
/// `-lockfile=readonly` (and `tfdisco install --lockfile readonly`).
const READONLY: &str = "readonly";

/// The options of an install call, checked: each provider a
/// `ProviderSource` or a str parsed in `dialect` and fully qualified;
/// `lockfile` None or `"readonly"`; `jobs` at least 1. Raises
/// `InvalidSource`, `InvalidOption` (a `ValueError`) or `TypeError` before
/// anything is read or asked. The run adds what the client's CLI
/// configuration says (`InstallOptions::with_setup`), as `tfdisco install`
/// does.
pub(crate) fn options(
    providers: Option<&Bound<'_, PyAny>>,
    upgrade: bool,
    lockfile: Option<&str>,
    plugin_cache: Option<PathBuf>,
    jobs: u64,
    dialect: Dialect,
) -> PyResult<InstallOptions> {
    let readonly = match lockfile {
        None => false,
        Some(READONLY) => true,
        Some(other) => {
            return Err(Python::attach(|py| {
                let given = match quote(py, other) {
                    Ok(given) => given,
                    Err(e) => return e,
                };
                errors::invalid_option(
                    py,
                    format!("lockfile must be None or '{READONLY}', not {given}"),
                )
            }));
        }
    };
    let mut options = InstallOptions::new()
        .upgrade(upgrade)
        .readonly(readonly)
        .jobs(jobs_arg(jobs)?);
    if let Some(cache) = plugin_cache {
        options = options.plugin_cache_dir(cache);
    }
    if let Some(given) = providers {
        for source in items(given, "providers", "provider source addresses")? {
            options = options.provider(sources::provider_source_arg(&source, dialect)?);
        }
    }
    Ok(options)
}

/// What an install run did (`Client.install`): the lock file, whether it
/// changed, the platform installed for, each provider and the warnings.
#[pyo3::pyclass(frozen, module = "tfdisco", name = "InstallReport")]
pub(crate) struct PyInstallReport(pub(crate) InstallReport);

record_methods! {
    PyInstallReport as "InstallReport" {
        /// The lock file (`.terraform.lock.hcl` in the directory), a
        /// `pathlib.Path`.
        path => |r| r.path.as_path(),
        /// True when its bytes changed (and it was written); False when it
        /// already held everything, and was left alone.
        changed => |r| r.changed,
        /// The platform installed for (a `Platform`): the one this program
        /// runs on.
        platform => |r| PyPlatform(r.platform.clone()),
        /// Each provider installed (`InstalledProvider`s), in address order.
        providers => |r| r.providers.iter().cloned().map(PyInstalledProvider).collect::<Vec<_>>(),
        /// What the run warns about (strs): providers left to a
        /// development override, what the implied mirrors' scans said.
        warnings => |r| r.warnings.clone(),
    }

    /// The report as one JSON document, the one `tfdisco install --json`
    /// prints and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

/// One provider of an `InstallReport`: the version installed, how and from
/// where.
#[pyo3::pyclass(frozen, module = "tfdisco", name = "InstalledProvider")]
pub(crate) struct PyInstalledProvider(pub(crate) InstalledProvider);

record_methods! {
    PyInstalledProvider as "InstalledProvider" {
        /// The provider (a `ProviderSource`).
        source => |p| PyProviderSource(p.source.clone()),
        /// The version installed (`1.1.0`).
        version => |p| p.version.to_string(),
        /// How its package was got: "reused" (already in
        /// `.terraform/providers` and matching the lock file: no request),
        /// "cached" (linked from the plugin cache) or "downloaded".
        installed => |p| install_word(p.installed),
        /// The installation method it comes from (the JSON's `from`):
        /// "registry", a network mirror's URL or a filesystem mirror's
        /// folder.
        from_ => |p| p.from.as_str(),
        /// Bytes downloaded (0 when nothing was).
        bytes => |p| p.bytes,
        /// The hashes (`h1:…`, `zh:…`) the lock file did not hold before,
        /// sorted; empty when it held them all.
        hashes_added => |p| p.hashes_added.clone(),
        /// How the package is trusted, in the CLI's words: "self-signed",
        /// "signed by HashiCorp", … (a registry's), "verified checksum",
        /// "unauthenticated" (a mirror's).
        trust => |p| p.trust.label(),
        /// The id of the key that signed its checksums (16 hex digits);
        /// None when none did.
        key_id => |p| p.key_id.as_deref(),
    }
}

/// The result of an install run as Python sees it: the report, or the
/// `LockError` `lock` raises (kind `readonly` for a lock file that
/// `lockfile="readonly"` kept from changing).
pub(crate) fn report(
    py: Python<'_>,
    result: Result<InstallReport, LockError>,
) -> PyResult<PyInstallReport> {
    result.map(PyInstallReport).map_err(|e| lock_error(py, e))
}
