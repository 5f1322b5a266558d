//! Module installation: what `client.get` takes (`upgrade`, `jobs` →
//! `tfdisco_runs::GetOptions`, as `tfdisco get` takes them). What it gives
//! is the library's `GetReport` document (`crate::report`), or a
//! `LockError` of kind `modules` whose `failures` are the modules that
//! failed (`crate::errors::ModuleFailureObject`).

use napi_derive::napi;
use tfdisco_runs::GetOptions;

use crate::errors::Failure;

/// The options object `lib/client.js` makes of `get(dir, options)`.
#[napi(object)]
pub struct NativeGetOptions {
    /// Install every module again (`get -update`, `init -upgrade`).
    pub upgrade: bool,
    /// Requests, downloads and clones at once (none: the default, 8).
    pub jobs: Option<u32>,
}

/// The options of a get call: `jobs: 0` is an `InvalidOptionError`, before
/// anything is read.
pub(crate) fn options(given: NativeGetOptions) -> Result<GetOptions, Failure> {
    let mut options = GetOptions::new().upgrade(given.upgrade);
    if let Some(jobs) = given.jobs {
        options = options.jobs(tfdisco_runs::jobs(u64::from(jobs))?);
    }
    Ok(options)
}
