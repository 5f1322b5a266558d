//! `installationMethods`: which installation methods of the CLI
//! configuration would install a provider, in priority order, and why,
//! with the configuration's diagnostics: the library's report
//! (`tfdisco_config::InstallationReport`, what `tfdisco provider source
//! --json` prints), which `index.js` turns into the methods and warnings.

use std::collections::HashMap;
use std::path::PathBuf;

use napi::Env;
use napi_derive::napi;
use tfdisco_config::CliConfig;
use tfdisco_core::{Dialect, ProviderSource};

use crate::errors::{Failure, OrThrow};
use crate::report;

/// The options object `index.js` makes of `installationMethods(source,
/// options)`.
#[napi(object)]
pub struct NativeInstallationOptions {
    /// `terraform` or `opentofu` (also `tofu`), in any case.
    pub dialect: String,
    /// The working directory; none: the current one.
    pub cwd: Option<String>,
    /// The environment to read; none: the process's.
    pub env: Option<HashMap<String, String>>,
}

/// What `_installationReport` gives `index.js`.
#[napi(object)]
pub struct InstallationAnswer {
    /// The report's JSON document (`tfdisco provider source --json`).
    pub report: String,
    /// Its diagnostics, `file:line: problem`, to emit as warnings.
    pub warnings: Vec<String>,
}

/// The installation report of `source`: the first `provider_installation`
/// block, or the implied configuration. Reads files (and local mirror
/// folders) on the calling thread.
#[napi(js_name = "_installationReport")]
pub fn installation_report(
    env: Env,
    source: String,
    options: NativeInstallationOptions,
) -> napi::Result<InstallationAnswer> {
    let answer = || -> Result<InstallationAnswer, Failure> {
        let dialect: Dialect = options
            .dialect
            .parse()
            .map_err(|e: tfdisco_core::UnknownDialect| Failure::invalid_option(e.to_string()))?;
        let source = ProviderSource::parse_argument(&source, dialect)?;
        let vars = match options.env {
            Some(vars) => tfdisco_core::Env::new(vars),
            None => tfdisco_core::Env::from_process(),
        };
        let cwd = match options.cwd {
            Some(dir) => PathBuf::from(dir),
            None => std::env::current_dir()
                .map_err(|e| Failure::invalid_option(format!("no working directory: {e}")))?,
        };
        let report = CliConfig::load(dialect, &vars).installation_report(&source, &cwd);
        Ok(InstallationAnswer {
            report: report::json(&report)?,
            warnings: report.diagnostics.iter().map(|d| d.located()).collect(),
        })
    };
    answer().or_throw(&env)
}
