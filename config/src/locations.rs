//! Where a dialect's CLI looks for its configuration files and helper
//! plugins (docs/behaviour.md, CFG-1 to CFG-3, CFG-8): worked out from the
//! environment and from which files exist; nothing here reads a file.

use std::fs;
use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, Platform};

use crate::Env;
use crate::credentials_file::CREDENTIALS_FILE_NAME;

/// The variables that replace the main CLI config file, in order.
pub const OVERRIDE_VARS: [&str; 2] = ["TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG"];

/// Where a dialect's CLI looks for its configuration, worked out from the
/// environment and from which files exist.
///
/// | | Terraform | OpenTofu |
/// |---|---|---|
/// | main file | `~/.terraformrc` | `~/.tofurc`; `~/.terraformrc` if only it exists; `$XDG_CONFIG_HOME/opentofu/tofurc` if neither exists and `XDG_CONFIG_HOME` is set |
/// | config dir | `~/.terraform.d` | `~/.terraform.d`, or `$XDG_CONFIG_HOME/opentofu` if that does not exist and `XDG_CONFIG_HOME` is set |
/// | plugin dirs | `<config dir>/plugins[/<os>_<arch>]` | same under `~/.terraform.d`, or `$XDG_DATA_HOME/opentofu` |
///
/// `TF_CLI_CONFIG_FILE` (or else `TERRAFORM_CONFIG`) replaces the main file
/// and turns the config-dir scan off. On Windows the files live in
/// `%APPDATA%` (`terraform.rc`, `tofu.rc`, `terraform.d`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locations {
    dialect: Dialect,
    main_file: Option<PathBuf>,
    override_var: Option<&'static str>,
    config_dir: Option<PathBuf>,
    plugin_dirs: Vec<PathBuf>,
}

impl Locations {
    /// Works the locations out for `dialect` (this looks at which files
    /// exist, nothing more).
    pub fn resolve(dialect: Dialect, env: &Env) -> Locations {
        let base = if cfg!(windows) {
            env.non_empty("APPDATA").map(PathBuf::from)
        } else {
            env.home()
        };
        let xdg = |name: &str| {
            if cfg!(windows) {
                None
            } else {
                env.non_empty(name).map(PathBuf::from)
            }
        };
        let (rc_name, dir_name) = if cfg!(windows) {
            ("terraform.rc", "terraform.d")
        } else {
            (".terraformrc", ".terraform.d")
        };
        let default_dir = base.as_ref().map(|b| b.join(dir_name));
        let (main_file, config_dir, data_dir) = match (dialect, &base) {
            (_, None) => (None, None, None),
            (Dialect::Terraform, Some(base)) => {
                (Some(base.join(rc_name)), default_dir.clone(), default_dir)
            }
            (Dialect::OpenTofu, Some(base)) => {
                let new = base.join(if cfg!(windows) { "tofu.rc" } else { ".tofurc" });
                let legacy = base.join(rc_name);
                let main = match xdg("XDG_CONFIG_HOME") {
                    Some(x) if !exists(&new) && !exists(&legacy) => {
                        x.join("opentofu").join("tofurc")
                    }
                    _ if !exists(&new) && exists(&legacy) => legacy,
                    _ => new,
                };
                let dir_exists = default_dir.as_deref().is_some_and(exists);
                let beside = |var: &str| match xdg(var) {
                    Some(x) if !dir_exists => Some(x.join("opentofu")),
                    _ => default_dir.clone(),
                };
                (
                    Some(main),
                    beside("XDG_CONFIG_HOME"),
                    beside("XDG_DATA_HOME"),
                )
            }
        };
        let override_var = OVERRIDE_VARS
            .into_iter()
            .find(|var| env.non_empty(var).is_some());
        let main_file = match override_var.and_then(|var| env.non_empty(var)) {
            Some(path) => Some(PathBuf::from(path)),
            None => main_file,
        };
        let plugin_dirs = match data_dir {
            Some(dir) => {
                let plugins = dir.join("plugins");
                vec![
                    plugins.clone(),
                    plugins.join(Platform::current().to_string()),
                ]
            }
            None => Vec::new(),
        };
        Locations {
            dialect,
            main_file,
            override_var,
            config_dir,
            plugin_dirs,
        }
    }

    /// The dialect these are the locations of.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The main CLI config file (it need not exist), or `None` without a
    /// home directory.
    pub fn main_file(&self) -> Option<&Path> {
        self.main_file.as_deref()
    }

    /// The variable that replaced the main file, if one did.
    pub fn override_var(&self) -> Option<&'static str> {
        self.override_var
    }

    /// The config directory (it need not exist).
    pub fn config_dir(&self) -> Option<&Path> {
        self.config_dir.as_deref()
    }

    /// Whether the config directory's `*.tfrc[.json]` files are read: not
    /// when an override variable is set.
    pub fn scans_config_dir(&self) -> bool {
        self.override_var.is_none()
    }

    /// `credentials.tfrc.json` in the config directory: where `store` and
    /// `forget` write when no helper takes them.
    pub fn credentials_file(&self) -> Option<PathBuf> {
        self.config_dir
            .as_ref()
            .map(|d| d.join(CREDENTIALS_FILE_NAME))
    }

    /// Where credentials helper plugins are looked for, in order.
    pub fn plugin_dirs(&self) -> &[PathBuf] {
        &self.plugin_dirs
    }
}

fn exists(path: &Path) -> bool {
    fs::metadata(path).is_ok()
}
