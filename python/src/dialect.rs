//! The `dialect` argument of `Client`, `AsyncClient`, `ProviderSource` and
//! `ModuleSource`: `"opentofu"` (also `"tofu"`) or `"terraform"`, in any
//! case, as the `tfdisco` CLI's `--dialect` takes it; and, for the clients,
//! None: the dialect a folder and the environment mean
//! (`tfdisco_config::DialectChoice::detect`, docs/behaviour.md CFG-14),
//! kept with what chose it (`DialectChoice`).

use std::path::PathBuf;

use pyo3::prelude::*;
use tfdisco_config::{DIALECT_VAR, DialectChoice};
use tfdisco_core::{Dialect, Env};

use crate::errors;
use crate::record::record_class;

/// Parses a `dialect` argument; raises `InvalidOption` (a `ValueError`)
/// naming the spellings accepted.
pub(crate) fn parse_dialect(name: &str) -> PyResult<Dialect> {
    name.parse::<Dialect>()
        .map_err(|e| Python::attach(|py| errors::invalid_option(py, format!("dialect: {e}"))))
}

/// A client's dialect: `given` (a `dialect` argument) parsed, else the one
/// work in `dir` (the current working directory when None) means in `env`
/// (the process's when None), in the order of the CLI: `TFDISCO_DIALECT`,
/// the lock file, `.tofu` files, the one of `terraform` and `tofu` on the
/// `PATH`, else OpenTofu. The folder is only looked at, with the GIL
/// released. A bad `dialect`, or a `TFDISCO_DIALECT` that names no
/// dialect, raises `InvalidOption`.
pub(crate) fn choose(
    py: Python<'_>,
    given: Option<&str>,
    dir: Option<PathBuf>,
    env: Option<&Env>,
) -> PyResult<DialectChoice> {
    if let Some(name) = given {
        return Ok(DialectChoice::given(parse_dialect(name)?));
    }
    let dir = dir.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| ".".into()));
    let detected = py.detach(|| match env {
        Some(env) => DialectChoice::detect(&dir, env),
        None => DialectChoice::detect(&dir, &Env::from_process()),
    });
    detected.map_err(|e| errors::invalid_option(py, format!("{DIALECT_VAR}: {e}")))
}

record_class! {
    /// The dialect a client follows and what chose it (`Client.dialect_choice`,
    /// and the `dialect` of `LockReport`, `InstallReport` and `MirrorReport`):
    /// its `name`, `chosen_by` (in a word) and `why` (in words).
    PyDialectChoice(DialectChoice) as "DialectChoice", eq {
        /// The dialect: "opentofu" or "terraform".
        name => |c| c.dialect().name(),
        /// What chose it, in a word: "given" (a `dialect` argument),
        /// "variable" (`TFDISCO_DIALECT`), "lock_file" (the CLI the lock
        /// file's first line names, else the registry all its providers are
        /// from), "tofu_file" (a `.tofu` or `.tofu.json` file in the
        /// folder), "program" (only one of `terraform` and `tofu` on the
        /// `PATH`) or "default" (nothing told: OpenTofu).
        chosen_by => |c| c.chosen_by(),
        /// Why, in words: "the lock file /src/infra/.terraform.lock.hcl was
        /// written by terraform init".
        why => |c| c.why(),
    }

    /// The choice as one JSON document, `{"name", "chosen_by", "why"}`:
    /// the `"dialect"` member of a report's `to_json()` (a `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}
