//! Provider installation: what `client.install` takes (providers,
//! `upgrade`, `lockfile`, `pluginCache`, `jobs` →
//! `tfdisco_transport::InstallOptions`, on top of what the client's CLI
//! configuration says, as the CLI takes them). What it gives is the
//! library's report (`crate::report`), or a `LockError` as `lock` gives it.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use napi_derive::napi;
use tfdisco_core::{Dialect, ProviderSource};
use tfdisco_transport::{ClientSetup, DEFAULT_JOBS, InstallOptions};

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

/// The arguments of an install call, checked: what the run adds to the
/// options the client's CLI configuration gives ([`InstallArgs::options`]).
pub(crate) struct InstallArgs {
    providers: Vec<ProviderSource>,
    upgrade: bool,
    readonly: bool,
    plugin_cache: Option<PathBuf>,
    jobs: NonZeroUsize,
}

impl InstallArgs {
    /// The sources parsed in `dialect`; `InvalidSourceError` or
    /// `InvalidOptionError` (`jobs: 0`, a `lockfile` other than
    /// `readonly`) before anything is read or asked.
    pub(crate) fn new(given: NativeInstallOptions, dialect: Dialect) -> Result<Self, Failure> {
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
        let providers = given
            .providers
            .iter()
            .map(|source| ProviderSource::parse_argument(source, dialect))
            .collect::<Result<_, _>>()?;
        Ok(InstallArgs {
            providers,
            upgrade: given.upgrade,
            readonly,
            plugin_cache: given.plugin_cache.map(PathBuf::from),
            jobs,
        })
    }

    /// The run's options, as `tfdisco install` makes them: the client's
    /// CLI configuration (its `provider_installation` or the implied
    /// methods found from `dir`, its plugin cache and
    /// `TF_PLUGIN_CACHE_DIR`), then the arguments. Reads the implied
    /// mirrors' folders: call it off the JavaScript thread.
    pub(crate) fn options(&self, setup: &ClientSetup, dir: &Path) -> InstallOptions {
        let mut options = InstallOptions::from_setup(setup, dir)
            .upgrade(self.upgrade)
            .readonly(self.readonly)
            .jobs(self.jobs);
        if let Some(cache) = &self.plugin_cache {
            options = options.plugin_cache_dir(cache);
        }
        for source in &self.providers {
            options = options.provider(source.clone());
        }
        options
    }
}
