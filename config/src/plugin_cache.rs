//! The plugin cache `init` shares between working directories
//! (docs/behaviour.md, INSTALL-11): where it is, and whether a package in it
//! may be used without a hash the lock file already records.

use std::path::{Path, PathBuf};

use tfdisco_core::Env;

use crate::CliConfig;
use crate::provider_installation::go_expand;

/// The variable that names the plugin cache, over the CLI configuration's
/// `plugin_cache_dir`.
pub const PLUGIN_CACHE_DIR_VAR: &str = "TF_PLUGIN_CACHE_DIR";

/// The variable that, set to anything, allows a cached package the lock
/// file has no hash for (as `plugin_cache_may_break_dependency_lock_file =
/// true` does).
pub const PLUGIN_CACHE_MAY_BREAK_VAR: &str = "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE";

/// The variable naming tfdisco's shared module cache folder (MOD-13),
/// which wins over the CLI configuration's `module_cache_dir`.
pub const MODULE_CACHE_DIR_VAR: &str = "TF_MODULE_CACHE_DIR";

/// Where the plugin cache is, and how it may be used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginCache {
    dir: Option<PathBuf>,
    may_break: bool,
}

impl PluginCache {
    /// A cache in `dir` (none without one); `may_break`: a cached package
    /// may be used when the lock file records no hash for it, its `h1:`
    /// then added (Terraform 1.4 and later ask for this explicitly).
    pub fn new(dir: Option<PathBuf>, may_break: bool) -> PluginCache {
        PluginCache { dir, may_break }
    }

    /// The same settings with the cache in `dir` (`tfdisco install
    /// --plugin-cache DIR`).
    pub fn with_dir(self, dir: impl Into<PathBuf>) -> PluginCache {
        PluginCache {
            dir: Some(dir.into()),
            ..self
        }
    }

    /// The cache folder, as given (it may be relative: to the working
    /// folder).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Whether a cached package may be used when the lock file records no
    /// hash it matches (`plugin_cache_may_break_dependency_lock_file`).
    pub fn may_break_dependency_lock_file(&self) -> bool {
        self.may_break
    }
}

impl CliConfig {
    /// The plugin cache as `init` finds it (INSTALL-11): [`PLUGIN_CACHE_DIR_VAR`]
    /// in `env` when it is set and not empty, else the last file's
    /// `plugin_cache_dir` with its `$VAR`s expanded in `env` (Go's
    /// `os.ExpandEnv`: an unset variable is empty); may break the lock file
    /// when any file sets `plugin_cache_may_break_dependency_lock_file =
    /// true` or [`PLUGIN_CACHE_MAY_BREAK_VAR`] is set and not empty.
    pub fn plugin_cache(&self, env: &Env) -> PluginCache {
        let dir = cache_dir(env, PLUGIN_CACHE_DIR_VAR, self.plugin_cache_dir.as_deref());
        let may_break =
            self.plugin_cache_may_break || env.non_empty(PLUGIN_CACHE_MAY_BREAK_VAR).is_some();
        PluginCache::new(dir, may_break)
    }

    /// tfdisco's shared module cache folder (MOD-13): [`MODULE_CACHE_DIR_VAR`]
    /// when set and not empty, else the last file's `module_cache_dir`
    /// with its `$VAR`s expanded, as the plugin cache's folder is found.
    pub fn module_cache_dir(&self, env: &Env) -> Option<PathBuf> {
        cache_dir(env, MODULE_CACHE_DIR_VAR, self.module_cache_dir.as_deref())
    }
}

/// The variable `var` when set and not empty, else `configured` with its
/// `$VAR`s expanded (Go's `os.ExpandEnv`); `None` when that is empty too.
fn cache_dir(env: &Env, var: &str, configured: Option<&str>) -> Option<PathBuf> {
    match env.non_empty(var) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => configured
            .map(|dir| {
                go_expand(dir, |name| {
                    env.var(name)
                        .map(|v| v.to_string_lossy().into_owned())
                        .unwrap_or_default()
                })
            })
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(files: &[&str]) -> CliConfig {
        CliConfig::from_sources(
            files
                .iter()
                .enumerate()
                .map(|(i, text)| (format!("/cfg/{i}.tfrc"), *text)),
        )
    }

    #[test]
    fn the_cache_from_files_and_the_environment() {
        let env = Env::new([("HOME", "/home/me")]);
        assert_eq!(config(&[]).plugin_cache(&env), PluginCache::default());
        let set = config(&[
            "plugin_cache_dir = \"/first\"\n",
            "plugin_cache_dir = \"$HOME/.terraform.d/plugin-cache\"\nplugin_cache_may_break_dependency_lock_file = true\n",
            "plugin_cache_dir = \"\"\nplugin_cache_may_break_dependency_lock_file = false\n",
        ]);
        assert!(set.diagnostics().is_empty(), "{:?}", set.diagnostics());
        let cache = set.plugin_cache(&env);
        assert_eq!(
            cache.dir(),
            Some(Path::new("/home/me/.terraform.d/plugin-cache")),
            "the last non-empty, expanded"
        );
        assert!(cache.may_break_dependency_lock_file(), "any file's true");
        let overridden = set.plugin_cache(&Env::new([
            (PLUGIN_CACHE_DIR_VAR, "relative/cache"),
            (PLUGIN_CACHE_MAY_BREAK_VAR, ""),
        ]));
        assert_eq!(overridden.dir(), Some(Path::new("relative/cache")));
        let json = config(&["{\"plugin_cache_dir\": \"${UNSET}/c\"}"]).plugin_cache(&Env::empty());
        assert_eq!(
            json.dir(),
            Some(Path::new("/c")),
            "an unset variable is empty"
        );
        assert!(!json.may_break_dependency_lock_file());
        let flag = config(&[]).plugin_cache(&Env::new([(PLUGIN_CACHE_MAY_BREAK_VAR, "1")]));
        assert!(flag.may_break_dependency_lock_file());
        assert_eq!(
            PluginCache::default().with_dir("/x").dir(),
            Some(Path::new("/x"))
        );
    }

    #[test]
    fn wrong_types_are_reported() {
        let bad = config(&[
            "plugin_cache_dir = 3\nplugin_cache_may_break_dependency_lock_file = \"yes\"\n",
        ]);
        let messages: Vec<String> = bad
            .diagnostics()
            .iter()
            .map(|d| d.message().to_owned())
            .collect();
        assert_eq!(
            messages,
            [
                "Error parsing /cfg/0.tfrc: plugin_cache_dir must be a string, not a number",
                "Error parsing /cfg/0.tfrc: plugin_cache_may_break_dependency_lock_file must be a boolean, not a string",
            ]
        );
        assert_eq!(bad.plugin_cache(&Env::empty()), PluginCache::default());
    }
}
