//! The answers as the library's JSON documents (what the `tfdisco` CLI
//! prints with `--json`): the native calls give the document's text, and
//! `lib/report.js` makes the JavaScript object of it (camelCase keys, and
//! `toJSON()` giving the document itself).

use serde::Serialize;
use tfdisco_core::serde_json;
use tfdisco_runs::RunError;

use crate::errors::Failure;

/// The JSON document of `answer`.
pub(crate) fn json(answer: &impl Serialize) -> Result<String, Failure> {
    serde_json::to_string(answer).map_err(|e| Failure::new("internal", e.to_string()))
}

/// The JSON document of a lock, mirror or install run's report, or the
/// `LockError` of its failure.
pub(crate) fn run_json(result: Result<impl Serialize, RunError>) -> Result<String, Failure> {
    json(&result.map_err(Failure::lock)?)
}
