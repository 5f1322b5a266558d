//! Provider installation: what `client.install` takes (providers,
//! `upgrade`, `lockfile`, `pluginCache`, `jobs` →
//! `tfdisco_transport::InstallOptions`, on top of what the client's CLI
//! configuration says, as the CLI takes them). What it gives is the
//! library's report (`crate::report`), or a `LockError` as `lock` gives it.

use napi_derive::napi;
use tfdisco_core::{Dialect, ProviderSource};
use tfdisco_transport::{DEFAULT_JOBS, InstallOptions};

use crate::errors::Failure;

/// The one value `lockfile` takes: Terraform's `-lockfile=readonly` (and
/// `tfdisco install --lockfile readonly`).
const READONLY: &str = "readonly";

/// The options object `lib/client.js` makes of `install(dir, options)`.
#[napi(object)]
pub struct NativeInstallOptions {
    /// Install only these providers (source addresses).
    pub providers: Vec<String>,
    /// Re-select every version within the constraints (`-upgrade`).
    pub upgrade: bool,
    /// `readonly`, or none.
    pub lockfile: Option<String>,
    /// This plugin cache folder instead of the CLI configuration's.
    pub plugin_cache: Option<String>,
    /// Requests at once (none: the default, 8).
    pub jobs: Option<u32>,
}

/// The options of an install call, checked: the sources parsed in
/// `dialect`; `InvalidSourceError` or `InvalidOptionError` (`jobs: 0`, a
/// `lockfile` other than `readonly`) before anything is read or asked. The
/// run adds what the client's CLI configuration says
/// (`InstallOptions::with_setup`), as `tfdisco install` does.
pub(crate) fn options(
    given: NativeInstallOptions,
    dialect: Dialect,
) -> Result<InstallOptions, Failure> {
    let readonly = match given.lockfile.as_deref() {
        None => false,
        Some(READONLY) => true,
        Some(other) => {
            return Err(Failure::invalid_option(format!(
                "options.lockfile must be '{READONLY}' or null, not {other:?}"
            )));
        }
    };
    let jobs = match given.jobs {
        Some(jobs) => tfdisco_transport::jobs(u64::from(jobs))?,
        None => DEFAULT_JOBS,
    };
    let mut options = InstallOptions::new()
        .upgrade(given.upgrade)
        .readonly(readonly)
        .jobs(jobs);
    if let Some(cache) = given.plugin_cache {
        options = options.plugin_cache_dir(cache);
    }
    for source in &given.providers {
        options = options.provider(ProviderSource::parse_argument(source, dialect)?);
    }
    Ok(options)
}
