//! What an install run is asked to do (`tfdisco install`'s flags, and the
//! Python and Node packages' options): which providers, whether to
//! re-select versions, whether the lock file may change, the installation
//! methods and the plugin cache (read from the CLI configuration by
//! [`InstallOptions::with_setup`]), how many jobs at once.

use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tfdisco_config::{DialectChoice, PluginCache};
use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_provider::ProviderInstallation;

use serde::{Serialize, Serializer};

use crate::report_text::{path_text, text};
use crate::{ClientSetup, DEFAULT_JOBS};

/// A duration as its seconds, for `#[serde(serialize_with)]`.
fn seconds<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64())
}

/// What an install run is doing, as it does it (for a progress line). As
/// JSON (the CLI's `--json` lines, the language packages' event objects):
/// `{"event": "downloading", "source", "version"}`, `{"event":
/// "downloaded", "source", "version", "bytes"}`, `{"event":
/// "waiting_for_cache", "source", "version", "platform", "lock_file",
/// "waited_seconds"}`.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum InstallEvent<'a> {
    /// A package's download starts.
    Downloading {
        /// The provider.
        #[serde(serialize_with = "text")]
        source: &'a ProviderSource,
        /// Its version.
        #[serde(serialize_with = "text")]
        version: &'a Version,
    },
    /// A package was downloaded (and unpacked into its staging folder): it
    /// is placed once every package is verified.
    Downloaded {
        /// The provider.
        #[serde(serialize_with = "text")]
        source: &'a ProviderSource,
        /// Its version.
        #[serde(serialize_with = "text")]
        version: &'a Version,
        /// Bytes downloaded.
        bytes: u64,
    },
    /// Another run (another process, or another run of this one) has held
    /// the plugin cache entry's lock for a while: this run waits for it,
    /// told once per entry (INSTALL-12). Cancel the run
    /// ([`InstallOptions::cancel_on`]) to stop waiting.
    WaitingForCache {
        /// The provider.
        #[serde(serialize_with = "text")]
        source: &'a ProviderSource,
        /// Its version.
        #[serde(serialize_with = "text")]
        version: &'a Version,
        /// The platform of the entry.
        #[serde(serialize_with = "text")]
        platform: &'a Platform,
        /// The entry's lock file (`…/VERSION/OS_ARCH.lock`).
        #[serde(serialize_with = "path_text")]
        lock_file: &'a Path,
        /// How long this run has waited.
        #[serde(rename = "waited_seconds", serialize_with = "seconds")]
        waited: Duration,
    },
}

/// Stops an install run from another thread or task: a Ctrl-C handler, a
/// timeout, a client that gave up. The run then makes no new request,
/// stops its downloads and its waits for a plugin cache entry, places
/// nothing and fails with `RunError::Cancelled`, the lock file as it
/// was; the staging folders it made are removed. (Dropping an async
/// install's future cancels it too.)
///
/// ```
/// use tfdisco_runs::{Cancel, InstallOptions};
///
/// let cancel = Cancel::new();
/// let options = InstallOptions::new().cancel_on(cancel.clone());
/// // From a signal handler or another thread:
/// cancel.cancel();
/// assert!(cancel.is_cancelled());
/// # drop(options);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A handle not cancelled yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Cancels every run given this handle (or a clone of it).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A function told of each [`InstallEvent`], from whichever thread or task
/// runs the job.
pub type InstallEvents = Arc<dyn Fn(InstallEvent<'_>) + Send + Sync>;

/// What to install, from where.
///
/// ```
/// use std::path::Path;
/// use tfdisco_runs::{InstallOptions, jobs};
///
/// let options = InstallOptions::new()
///     .upgrade(true)
///     .plugin_cache_dir("/var/cache/terraform-plugins")
///     .jobs(jobs(4)?);
/// assert_eq!(
///     options.plugin_cache().dir(),
///     Some(Path::new("/var/cache/terraform-plugins"))
/// );
/// // Then, for a run: `options.with_setup(&setup, dir)` adds what the CLI
/// // configuration says (the folder given above still wins).
/// # Ok::<(), tfdisco_runs::OptionError>(())
/// ```
#[derive(Clone)]
pub struct InstallOptions {
    pub(crate) providers: Vec<ProviderSource>,
    pub(crate) upgrade: bool,
    pub(crate) readonly: bool,
    pub(crate) installation: ProviderInstallation,
    /// The CLI configuration's plugin cache (or one given whole).
    plugin_cache: PluginCache,
    /// A folder given for it (`--plugin-cache`), which wins over the
    /// configuration's.
    plugin_cache_dir: Option<PathBuf>,
    pub(crate) module_cache: Option<PathBuf>,
    pub(crate) jobs: NonZeroUsize,
    /// What reading the installation methods said (the implied mirrors'
    /// scans), for the report.
    pub(crate) warnings: Vec<String>,
    pub(crate) events: Option<InstallEvents>,
    pub(crate) cancel: Cancel,
    pub(crate) dialect_choice: Option<DialectChoice>,
}

impl fmt::Debug for InstallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InstallOptions")
            .field("providers", &self.providers)
            .field("upgrade", &self.upgrade)
            .field("readonly", &self.readonly)
            .field("installation", &self.installation)
            .field("plugin_cache", &self.plugin_cache())
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
            plugin_cache_dir: None,
            module_cache: None,
            jobs: DEFAULT_JOBS,
            warnings: Vec::new(),
            events: None,
            cancel: Cancel::new(),
            dialect_choice: None,
        }
    }

    /// What chose the client's dialect, for the report (CFG-14; by
    /// default it was given).
    pub fn dialect_choice(mut self, choice: DialectChoice) -> InstallOptions {
        self.dialect_choice = Some(choice);
        self
    }

    /// Lets `cancel` (a `Cancel`) stop the run.
    pub fn cancel_on(mut self, cancel: Cancel) -> InstallOptions {
        self.cancel = cancel;
        self
    }

    /// Tells `events` what the run does as it does it (`tfdisco install`'s
    /// progress lines).
    pub fn on_event(mut self, events: InstallEvents) -> InstallOptions {
        self.events = Some(events);
        self
    }

    /// What the CLIs take from their configuration (INSTALL-11,
    /// INSTALL-13), in place of the installation methods and the plugin
    /// cache these options held: the `provider_installation` block, or the
    /// implied configuration found from `working_dir`; the plugin cache of
    /// the CLI configuration and the environment, its folder the one given
    /// by [`InstallOptions::plugin_cache_dir`] if any. The other options
    /// stay. Without a CLI configuration, nothing changes.
    pub fn with_setup(mut self, setup: &ClientSetup, working_dir: &Path) -> InstallOptions {
        if let Some(config) = setup.cli_config() {
            let choice = config.provider_installation(working_dir);
            self.installation = choice.installation;
            self.warnings = choice.warnings.iter().map(|d| d.located()).collect();
            self.plugin_cache = config.plugin_cache(setup.env());
        }
        self.module_cache = crate::GetOptions::new().with_setup(setup).module_cache;
        self
    }

    /// The shared module cache the modules are got through (MOD-13), over
    /// the one the set-up names.
    pub fn module_cache_dir(mut self, dir: impl Into<PathBuf>) -> InstallOptions {
        self.module_cache = Some(dir.into());
        self
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

    /// The plugin cache a run uses.
    pub fn plugin_cache(&self) -> PluginCache {
        match &self.plugin_cache_dir {
            Some(dir) => self.plugin_cache.clone().with_dir(dir),
            None => self.plugin_cache.clone(),
        }
    }

    /// Uses this plugin cache (its folder, unless
    /// [`InstallOptions::plugin_cache_dir`] gives one).
    pub fn with_plugin_cache(mut self, cache: PluginCache) -> InstallOptions {
        self.plugin_cache = cache;
        self
    }

    /// Uses the plugin cache at `dir` (`--plugin-cache DIR`), whatever the
    /// CLI configuration says, keeping whether it may break the lock file.
    pub fn plugin_cache_dir(mut self, dir: impl Into<PathBuf>) -> InstallOptions {
        self.plugin_cache_dir = Some(dir.into());
        self
    }

    /// At most `jobs` requests at once ([`jobs`](crate::jobs) reads it
    /// from a number).
    pub fn jobs(mut self, jobs: NonZeroUsize) -> InstallOptions {
        self.jobs = jobs;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClientOptions;
    use tfdisco_core::{Dialect, Env};

    /// A setup whose CLI configuration names a plugin cache, and whose
    /// environment lets it break the lock file.
    fn setup(scratch: &Path) -> ClientSetup {
        let config = scratch.join("cli.tfrc");
        std::fs::write(&config, "plugin_cache_dir = \"/from/config\"\n").expect("written");
        let mut options = ClientOptions::new(Dialect::Terraform);
        options.env = Some(Env::new([
            ("TF_CLI_CONFIG_FILE", config.as_os_str()),
            ("HOME", scratch.as_os_str()),
            (
                "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE",
                std::ffi::OsStr::new("1"),
            ),
        ]));
        options.system_roots = false;
        options.load().expect("the setup loads")
    }

    #[test]
    fn a_plugin_cache_folder_given_wins_over_the_configuration() {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let (setup, dir) = (setup(scratch.path()), scratch.path());
        let configured = InstallOptions::new().with_setup(&setup, dir).plugin_cache();
        assert_eq!(configured.dir(), Some(Path::new("/from/config")));
        assert!(configured.may_break_dependency_lock_file());
        // Given before or after the configuration is read: the same.
        for options in [
            InstallOptions::new()
                .plugin_cache_dir("/given")
                .with_setup(&setup, dir),
            InstallOptions::new()
                .with_setup(&setup, dir)
                .plugin_cache_dir("/given"),
        ] {
            let cache = options.plugin_cache();
            assert_eq!(cache.dir(), Some(Path::new("/given")));
            assert!(
                cache.may_break_dependency_lock_file(),
                "kept from the environment"
            );
        }
    }
}
