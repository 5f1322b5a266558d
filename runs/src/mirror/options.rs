//! What a mirror run is asked to do: for which platforms, whether the lock
//! file decides the versions, how many jobs at once.

use std::num::NonZeroUsize;

use tfdisco_config::DialectChoice;
use tfdisco_core::Platform;

use crate::DEFAULT_JOBS;

/// What to mirror, for which platforms.
///
/// ```
/// use tfdisco_core::Platform;
/// use tfdisco_runs::{MirrorOptions, jobs};
///
/// let options = MirrorOptions::new()
///     .platform(Platform::parse("linux_amd64")?)
///     .jobs(jobs(2)?)
///     .lock_file(false);
/// assert!(!options.uses_lock_file());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct MirrorOptions {
    pub(crate) platforms: Vec<Platform>,
    pub(crate) jobs: NonZeroUsize,
    pub(crate) lock_file: bool,
    pub(crate) dialect_choice: Option<DialectChoice>,
}

impl Default for MirrorOptions {
    fn default() -> Self {
        MirrorOptions::new()
    }
}

impl MirrorOptions {
    /// Every provider the configuration requires, at its locked version,
    /// for the platform this program runs on, [`DEFAULT_JOBS`] jobs at once.
    pub fn new() -> MirrorOptions {
        MirrorOptions {
            platforms: Vec::new(),
            jobs: DEFAULT_JOBS,
            lock_file: true,
            dialect_choice: None,
        }
    }

    /// What chose the client's dialect, for the report (CFG-14; by
    /// default it was given).
    pub fn dialect_choice(mut self, choice: DialectChoice) -> MirrorOptions {
        self.dialect_choice = Some(choice);
        self
    }

    /// Adds a platform (`-platform=OS_ARCH`); with none, the current one.
    pub fn platform(mut self, platform: Platform) -> MirrorOptions {
        self.platforms.push(platform);
        self
    }

    /// Adds platforms.
    pub fn platforms_from(
        mut self,
        platforms: impl IntoIterator<Item = Platform>,
    ) -> MirrorOptions {
        self.platforms.extend(platforms);
        self
    }

    /// At most `jobs` requests at once ([`jobs`](crate::jobs) reads it
    /// from a number).
    pub fn jobs(mut self, jobs: NonZeroUsize) -> MirrorOptions {
        self.jobs = jobs;
        self
    }

    /// Whether the lock file decides the versions (`-lock-file=false`
    /// ignores it; the default reads it, as both CLIs do). OpenTofu has no
    /// such flag: it always reads it.
    pub fn lock_file(mut self, read: bool) -> MirrorOptions {
        self.lock_file = read;
        self
    }

    /// The platforms given.
    pub fn platforms(&self) -> &[Platform] {
        &self.platforms
    }

    /// Whether the lock file is read.
    pub fn uses_lock_file(&self) -> bool {
        self.lock_file
    }
}
