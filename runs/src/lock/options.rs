//! What a lock run is asked to do: which providers, for which platforms,
//! from where, with how many jobs at once, whether through the plugin
//! cache; the one reading of the CLIs' flags (`-platform`, `-net-mirror`,
//! `-fs-mirror`, `-oci-mirror`, `-enable-plugin-cache`) that the `tfdisco`
//! CLI and the Python and Node packages share.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use tfdisco_config::{DialectChoice, PluginCache};
use tfdisco_core::{Error, NetworkMirror, Platform, ProviderSource};
use tfdisco_provider::oci_mirror::OciMirrorTemplate;

use crate::{ClientSetup, OptionError};

/// How many jobs a lock or mirror run has under way at once by default.
pub const DEFAULT_JOBS: NonZeroUsize = NonZeroUsize::new(8).expect("8 is not zero");

/// How many jobs a run may have under way at once, as the front ends take
/// it (`--jobs`, `jobs=`, `{ jobs }`): at least 1. The one rule: 0 is an
/// [`OptionError`], not quietly 1.
///
/// ```
/// use tfdisco_runs::jobs;
///
/// assert_eq!(jobs(4)?.get(), 4);
/// assert_eq!(jobs(0).unwrap_err().to_string(), "jobs must be at least 1");
/// # Ok::<(), tfdisco_runs::OptionError>(())
/// ```
pub fn jobs(given: u64) -> Result<NonZeroUsize, OptionError> {
    usize::try_from(given)
        .ok()
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| OptionError::new("jobs must be at least 1"))
}

/// Where a lock run takes the providers from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProvidersFrom {
    /// Each provider's own registry: discovery, `providers.v1`, signed
    /// checksums.
    #[default]
    Registry,
    /// A network mirror (`-net-mirror=URL`), for every provider: its
    /// versions, its archives checked against the hashes it lists
    /// (LOCKRUN-7).
    NetworkMirror(NetworkMirror),
    /// A filesystem mirror (`-fs-mirror=DIR`), for every provider: the
    /// packages found there in either layout, unauthenticated, the folder
    /// read when the run starts (LOCKRUN-8).
    FilesystemMirror(PathBuf),
    /// An OCI registry mirror (`tofu providers lock -oci-mirror=TEMPLATE`):
    /// each provider from the repository the template names (`{hostname}`,
    /// `{namespace}`, `{type}`), its archives checked against their
    /// layers' digests (OCIMIRROR-1 to OCIMIRROR-6).
    OciMirror(OciMirrorTemplate),
}

/// What to lock, and for which platforms.
///
/// ```
/// use tfdisco_runs::{LockOptions, ProvidersFrom, jobs};
/// use tfdisco_core::Platform;
///
/// let options = LockOptions::new()
///     .platform(Platform::parse("linux_amd64")?)
///     .platform(Platform::parse("darwin_arm64")?)
///     .mirrors(Some("https://mirror.example.com/providers/"), None, None)?
///     .jobs(jobs(4)?);
/// assert_eq!(options.platforms().len(), 2);
/// assert!(matches!(options.providers_from(), ProvidersFrom::NetworkMirror(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct LockOptions {
    pub(crate) platforms: Vec<Platform>,
    pub(crate) providers: Vec<ProviderSource>,
    pub(crate) jobs: NonZeroUsize,
    pub(crate) from: ProvidersFrom,
    pub(crate) dialect_choice: Option<DialectChoice>,
    /// The plugin cache (`-enable-plugin-cache`); `None`: not used.
    plugin_cache: Option<PluginCache>,
    /// A folder given for it (`--plugin-cache`), which wins over the
    /// configuration's.
    plugin_cache_dir: Option<PathBuf>,
}

impl Default for LockOptions {
    fn default() -> Self {
        LockOptions::new()
    }
}

impl LockOptions {
    /// Every provider the configuration requires, from its registry, for
    /// the platform this program runs on ([`Platform::current`](tfdisco_core::Platform::current)),
    /// [`DEFAULT_JOBS`] jobs at once.
    pub fn new() -> LockOptions {
        LockOptions {
            platforms: Vec::new(),
            providers: Vec::new(),
            jobs: DEFAULT_JOBS,
            from: ProvidersFrom::Registry,
            dialect_choice: None,
            plugin_cache: None,
            plugin_cache_dir: None,
        }
    }

    /// Uses the plugin cache as `providers lock -enable-plugin-cache` does
    /// (LOCKRUN-10): the CLI configuration's and the environment's
    /// (`TF_PLUGIN_CACHE_DIR`, `plugin_cache_dir`,
    /// `plugin_cache_may_break_dependency_lock_file`, INSTALL-11), its
    /// folder the one given by [`LockOptions::plugin_cache_dir`] if any.
    /// With no cache configured (no CLI configuration, no folder, or one
    /// that does not exist) the run is as without it.
    pub fn enable_plugin_cache(mut self, setup: &ClientSetup) -> LockOptions {
        let cache = match setup.cli_config() {
            Some(config) => config.plugin_cache(setup.env()),
            None => PluginCache::default(),
        };
        self.plugin_cache = Some(cache);
        self
    }

    /// Uses this plugin cache (its folder, unless
    /// [`LockOptions::plugin_cache_dir`] gives one): each platform's entry
    /// linked when the lock file vouches for it, every package fetched
    /// placed into it (LOCKRUN-10).
    pub fn with_plugin_cache(mut self, cache: PluginCache) -> LockOptions {
        self.plugin_cache = Some(cache);
        self
    }

    /// Uses the plugin cache at `dir`, whatever the CLI configuration says,
    /// keeping whether it may break the lock file.
    pub fn plugin_cache_dir(mut self, dir: impl Into<PathBuf>) -> LockOptions {
        self.plugin_cache_dir = Some(dir.into());
        self
    }

    /// The plugin cache a run uses, if any.
    ///
    /// ```
    /// use std::path::Path;
    /// use tfdisco_config::PluginCache;
    /// use tfdisco_runs::LockOptions;
    ///
    /// assert!(LockOptions::new().plugin_cache().is_none());
    /// let options = LockOptions::new()
    ///     .with_plugin_cache(PluginCache::new(Some("/from/config".into()), true))
    ///     .plugin_cache_dir("/var/cache/terraform-plugins");
    /// let cache = options.plugin_cache().expect("a cache");
    /// assert_eq!(cache.dir(), Some(Path::new("/var/cache/terraform-plugins")));
    /// assert!(cache.may_break_dependency_lock_file());
    /// ```
    pub fn plugin_cache(&self) -> Option<PluginCache> {
        match (&self.plugin_cache, &self.plugin_cache_dir) {
            (cache, Some(dir)) => Some(cache.clone().unwrap_or_default().with_dir(dir)),
            (cache, None) => cache.clone(),
        }
    }

    /// What chose the client's dialect, for the report (CFG-14; by
    /// default it was given).
    pub fn dialect_choice(mut self, choice: DialectChoice) -> LockOptions {
        self.dialect_choice = Some(choice);
        self
    }

    /// Takes every provider from a network mirror (`-net-mirror=URL`)
    /// instead of its registry (LOCKRUN-7).
    pub fn net_mirror(mut self, mirror: NetworkMirror) -> LockOptions {
        self.from = ProvidersFrom::NetworkMirror(mirror);
        self
    }

    /// Takes every provider from the filesystem mirror at `dir`
    /// (`-fs-mirror=DIR`) instead of its registry (LOCKRUN-8).
    pub fn fs_mirror(mut self, dir: impl Into<PathBuf>) -> LockOptions {
        self.from = ProvidersFrom::FilesystemMirror(dir.into());
        self
    }

    /// Takes every provider from the OCI registry mirror `template` names
    /// (`-oci-mirror=TEMPLATE`) instead of its registry (OCIMIRROR-6).
    pub fn oci_mirror(mut self, template: OciMirrorTemplate) -> LockOptions {
        self.from = ProvidersFrom::OciMirror(template);
        self
    }

    /// Takes the providers from the mirror the CLIs' flags name, if any:
    /// `net_mirror`, an `https:` URL (`-net-mirror`, checked by
    /// `NetworkMirror::parse`), `fs_mirror`, a folder (`-fs-mirror`), or
    /// `oci_mirror`, a repository template (OpenTofu's `-oci-mirror`,
    /// checked by `OciMirrorTemplate::parse`); at most one of them
    /// (LOCKRUN-7, LOCKRUN-8, OCIMIRROR-6). Each refusal is
    /// [`Error::InvalidArgument`](tfdisco_core::Error::InvalidArgument).
    ///
    /// ```
    /// use tfdisco_runs::{LockOptions, ProvidersFrom};
    ///
    /// assert!(LockOptions::new().mirrors(Some("http://mirror.example.com/"), None, None).is_err());
    /// assert!(LockOptions::new().mirrors(Some("https://m.example/"), Some("/srv/m".into()), None).is_err());
    /// assert!(LockOptions::new().mirrors(None, Some("/srv/m".into()), Some("ghcr.io/m/{type}")).is_err());
    /// assert!(LockOptions::new().mirrors(None, None, Some("ghcr.io/{+type}")).is_err());
    /// let options = LockOptions::new().mirrors(None, None, Some("ghcr.io/m/{namespace}/{type}"))?;
    /// assert!(matches!(options.providers_from(), ProvidersFrom::OciMirror(_)));
    /// # Ok::<(), tfdisco_core::Error>(())
    /// ```
    pub fn mirrors(
        self,
        net_mirror: Option<&str>,
        fs_mirror: Option<PathBuf>,
        oci_mirror: Option<&str>,
    ) -> Result<LockOptions, Error> {
        let given: Vec<&str> = [
            net_mirror.map(|_| "a network mirror"),
            fs_mirror.as_ref().map(|_| "a filesystem mirror"),
            oci_mirror.map(|_| "an OCI mirror"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if let [first @ .., last] = given.as_slice()
            && !first.is_empty()
        {
            return Err(Error::InvalidArgument {
                message: format!("{} and {last} are mutually exclusive", first.join(", ")),
            });
        }
        if let Some(url) = net_mirror {
            return Ok(self.net_mirror(NetworkMirror::parse(url)?));
        }
        if let Some(dir) = fs_mirror {
            return Ok(self.fs_mirror(dir));
        }
        if let Some(template) = oci_mirror {
            let template = OciMirrorTemplate::parse(template)
                .map_err(|message| Error::InvalidArgument { message })?;
            return Ok(self.oci_mirror(template));
        }
        Ok(self)
    }

    /// Adds a platform (`-platform=OS_ARCH`); with none, the current one.
    pub fn platform(mut self, platform: Platform) -> LockOptions {
        self.platforms.push(platform);
        self
    }

    /// Adds platforms.
    pub fn platforms_from(mut self, platforms: impl IntoIterator<Item = Platform>) -> LockOptions {
        self.platforms.extend(platforms);
        self
    }

    /// Locks only this provider (and others named so); it must be one the
    /// configuration requires.
    pub fn provider(mut self, source: ProviderSource) -> LockOptions {
        self.providers.push(source);
        self
    }

    /// At most `jobs` requests at once ([`jobs`](crate::jobs) reads it
    /// from a number).
    pub fn jobs(mut self, jobs: NonZeroUsize) -> LockOptions {
        self.jobs = jobs;
        self
    }

    /// Where the providers come from.
    pub fn providers_from(&self) -> &ProvidersFrom {
        &self.from
    }

    /// The platforms given.
    pub fn platforms(&self) -> &[Platform] {
        &self.platforms
    }

    /// The providers named.
    pub fn providers(&self) -> &[ProviderSource] {
        &self.providers
    }
}
