//! Provider installation methods: `tfdisco.installation_methods`,
//! which method of the CLI configuration's `provider_installation` block (or
//! the implied configuration) would install a provider, in priority order,
//! and why — what `tfdisco provider source` prints.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyMapping};
use tfdisco_config::{CliConfig, MethodReport};
use tfdisco_core::Env;

use crate::dialect::parse_dialect;
use crate::errors;
use crate::options::parse_env;
use crate::record::record_class;
use crate::sources;

record_class! {
    /// One installation method and what it says of the provider asked about.
    PyInstallationMethod(MethodReport) as "InstallationMethod" {
        /// `"direct"`, `"network_mirror"`, `"filesystem_mirror"`,
        /// `"oci_mirror"` or `"dev_overrides"`.
        method => |m| m.summary.method,
        /// Where it looks: the registry host (`direct`), the URL, the
        /// directory, the repository template, or the override's directory.
        location => |m| m.summary.location.as_str(),
        /// Its place among the methods, from 1; None for a development
        /// override, which comes before them all.
        priority => |m| m.summary.priority,
        /// Whether it may install the provider (its patterns allow it).
        may_install => |m| m.summary.may_install,
        /// Why, in words: the pattern that matched or excluded it, "no
        /// include patterns", "found in the local mirror …", ….
        reason => |m| m.summary.reason.as_str(),
        /// Whether tfdisco installs with the method: True for every method
        /// since `oci_mirror` is installed from (it was False for it
        /// before).
        supported => |m| m.summary.supported,
        /// For an `oci_mirror`: `{"registry": …, "repository": …}`, where
        /// its template puts the provider, or `{"error": …}`; else None.
        oci => |m, py| match &m.oci {
            Some(Ok((registry, repository))) => Some(
                [("registry", registry.as_str()), ("repository", repository.as_str())]
                    .into_py_dict(py)?,
            ),
            Some(Err(error)) => Some([("error", error.as_str())].into_py_dict(py)?),
            None => None,
        },
    }
}

/// Which installation methods of the dialect's CLI configuration would
/// install `source` (a `ProviderSource` or a str), in priority order, and
/// why: the first `provider_installation` block of the CLI configuration
/// files, or without one the implied configuration (the local mirror
/// directories that exist, `terraform.d/plugins` under `cwd` among them,
/// then `direct` for providers not found there). A development override,
/// when there is one, comes first with `priority` None. Versions come from
/// every method that may install the provider; a version's package from
/// the first of them that has it.
///
/// `env`: the environment to read (`HOME`, `TF_CLI_CONFIG_FILE`,
/// `XDG_*`, …; default the process's); `cwd`: the working directory
/// (default the current one). The CLI configuration's problems and what the
/// implied mirrors' scans found (paths that are no package) are
/// `tfdisco.ConfigWarning` warnings, as `tfdisco provider source` prints
/// them.
///
/// >>> [(m.priority, m.method, m.may_install) for m in tfdisco.installation_methods("hashicorp/aws")]  # doctest: +SKIP
/// [(1, 'filesystem_mirror', False), (2, 'direct', True)]
#[pyfunction]
#[pyo3(signature = (source, *, dialect = "opentofu", cwd = None, env = None))]
pub(crate) fn installation_methods(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    dialect: &str,
    cwd: Option<PathBuf>,
    env: Option<&Bound<'_, PyMapping>>,
) -> PyResult<Vec<PyInstallationMethod>> {
    let dialect = parse_dialect(dialect)?;
    let source = sources::provider_source_arg(source, dialect)?;
    let env = match env {
        Some(vars) => parse_env(vars)?,
        None => Env::from_process(),
    };
    let cwd = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir()?,
    };
    let report = py.detach(|| CliConfig::load(dialect, &env).installation_report(&source, &cwd));
    errors::config_warnings(py, &report.diagnostics)?;
    Ok(report
        .methods
        .into_iter()
        .map(PyInstallationMethod)
        .collect())
}
