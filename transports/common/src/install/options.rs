//! What an install run is asked to do (`tfdisco install`'s flags, and the
//! Python and Node packages' options): which providers, whether to
//! re-select versions, whether the lock file may change, the installation
//! methods and the plugin cache (read from the CLI configuration by
//! [`InstallOptions::from_setup`]), how many jobs at once.

use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tfdisco_config::PluginCache;
use tfdisco_core::{ProviderSource, Version};
use tfdisco_provider::ProviderInstallation;

use crate::{ClientSetup, DEFAULT_JOBS};

/// What an install run is doing, as it does it (for a progress line).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum InstallEvent<'a> {
    /// A package's download starts.
    Downloading {
        /// The provider.
        source: &'a ProviderSource,
        /// Its version.
        version: &'a Version,
    },
    /// A package was downloaded (and unpacked into its staging folder): it
    /// is placed once every package is verified.
    Downloaded {
        /// The provider.
        source: &'a ProviderSource,
        /// Its version.
        version: &'a Version,
        /// Bytes downloaded.
        bytes: u64,
    },
}

/// A function told of each [`InstallEvent`], from whichever thread or task
/// runs the job.
pub type InstallEvents = Arc<dyn Fn(InstallEvent<'_>) + Send + Sync>;

/// What to install, from where.
///
/// ```
/// use tfdisco_transport::{InstallOptions, jobs};
///
/// let options = InstallOptions::new().upgrade(true).jobs(jobs(4)?);
/// assert!(options.plugin_cache().dir().is_none());
/// # Ok::<(), tfdisco_transport::OptionError>(())
/// ```
#[derive(Clone)]
pub struct InstallOptions {
    pub(crate) providers: Vec<ProviderSource>,
    pub(crate) upgrade: bool,
    pub(crate) readonly: bool,
    pub(crate) installation: ProviderInstallation,
    pub(crate) plugin_cache: PluginCache,
    pub(crate) jobs: NonZeroUsize,
    /// What reading the installation methods said (the implied mirrors'
    /// scans), for the report.
    pub(crate) warnings: Vec<String>,
    pub(crate) events: Option<InstallEvents>,
}

impl fmt::Debug for InstallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InstallOptions")
            .field("providers", &self.providers)
            .field("upgrade", &self.upgrade)
            .field("readonly", &self.readonly)
            .field("installation", &self.installation)
            .field("plugin_cache", &self.plugin_cache)
            .field("jobs", &self.jobs)
            .finish_non_exhaustive()
    }
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions::new()
    }
}

impl InstallOptions {
    /// Every provider the configuration requires, from its registry
    /// (`direct`), no plugin cache, [`DEFAULT_JOBS`] jobs at once.
    pub fn new() -> InstallOptions {
        InstallOptions {
            providers: Vec::new(),
            upgrade: false,
            readonly: false,
            installation: ProviderInstallation::implied(Vec::new()),
            plugin_cache: PluginCache::default(),
            jobs: DEFAULT_JOBS,
            warnings: Vec::new(),
            events: None,
        }
    }

    /// Tells `events` what the run does as it does it (`tfdisco install`'s
    /// progress lines).
    pub fn on_event(mut self, events: InstallEvents) -> InstallOptions {
        self.events = Some(events);
        self
    }

    /// As the CLIs take them from their configuration (INSTALL-11,
    /// INSTALL-13): the `provider_installation` block, or the implied
    /// configuration found from `working_dir`; the plugin cache of the CLI
    /// configuration and the environment. Without a CLI configuration,
    /// [`InstallOptions::new`].
    pub fn from_setup(setup: &ClientSetup, working_dir: &Path) -> InstallOptions {
        let mut options = InstallOptions::new();
        if let Some(config) = setup.cli_config() {
            let choice = config.provider_installation(working_dir);
            options.installation = choice.installation;
            options.warnings = choice.warnings.iter().map(|d| d.located()).collect();
            options.plugin_cache = config.plugin_cache(setup.env());
        }
        options
    }

    /// Installs only this provider (and others named so); it must be one
    /// the configuration requires.
    pub fn provider(mut self, source: ProviderSource) -> InstallOptions {
        self.providers.push(source);
        self
    }

    /// Re-selects every version within the constraints, ignoring the
    /// locked ones (`-upgrade`).
    pub fn upgrade(mut self, upgrade: bool) -> InstallOptions {
        self.upgrade = upgrade;
        self
    }

    /// Refuses to change the lock file (`-lockfile=readonly`): a run that
    /// would change it installs nothing and fails.
    pub fn readonly(mut self, readonly: bool) -> InstallOptions {
        self.readonly = readonly;
        self
    }

    /// The installation methods.
    pub fn installation(mut self, installation: ProviderInstallation) -> InstallOptions {
        self.installation = installation;
        self
    }

    /// The plugin cache.
    pub fn plugin_cache(&self) -> &PluginCache {
        &self.plugin_cache
    }

    /// Uses this plugin cache.
    pub fn with_plugin_cache(mut self, cache: PluginCache) -> InstallOptions {
        self.plugin_cache = cache;
        self
    }

    /// Uses the plugin cache at `dir` (`--plugin-cache DIR`), keeping
    /// whether it may break the lock file.
    pub fn plugin_cache_dir(mut self, dir: impl Into<PathBuf>) -> InstallOptions {
        self.plugin_cache = self.plugin_cache.with_dir(dir);
        self
    }

    /// At most `jobs` requests at once ([`jobs`](crate::jobs) reads it
    /// from a number).
    pub fn jobs(mut self, jobs: NonZeroUsize) -> InstallOptions {
        self.jobs = jobs;
        self
    }
}
