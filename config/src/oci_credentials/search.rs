//! Where OpenTofu looks for Docker-style credentials files when no
//! `docker_style_config_files` are given (docs/behaviour.md, OCICRED-6).

use std::path::{Path, PathBuf};

use super::decode::clean;
use crate::Env;

/// The operating system whose search rules apply (OpenTofu's `GOOS`
/// distinctions for the Docker-style file search): `XDG_RUNTIME_DIR` is
/// read on Linux only, `~/.config/containers/auth.json` comes first on
/// macOS and Windows, and the home directory is found differently on
/// Windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OciHostOs {
    /// Linux.
    Linux,
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
    /// Any other system (the BSDs, illumos, …): Linux's rules without
    /// `XDG_RUNTIME_DIR`.
    Other,
}

impl OciHostOs {
    /// The system this program runs on.
    pub fn current() -> OciHostOs {
        if cfg!(target_os = "linux") {
            OciHostOs::Linux
        } else if cfg!(target_os = "macos") {
            OciHostOs::MacOs
        } else if cfg!(windows) {
            OciHostOs::Windows
        } else {
            OciHostOs::Other
        }
    }
}

/// The home directory as OpenTofu's OCI credentials discovery finds it:
/// on Windows `USERPROFILE`, else the fallback, else `nul:`; elsewhere
/// `HOME`, else the fallback (the user database, with
/// [`Env::from_process`]), else `/`.
pub(crate) fn home(os: OciHostOs, env: &Env) -> PathBuf {
    match os {
        OciHostOs::Windows => env
            .non_empty("USERPROFILE")
            .map(PathBuf::from)
            .or_else(|| env.home())
            .unwrap_or_else(|| PathBuf::from("nul:")),
        _ => env.home().unwrap_or_else(|| PathBuf::from("/")),
    }
}

/// The Docker-style files OpenTofu looks for, in order, worked out from
/// `env` alone (nothing is read; OCICRED-6):
///
/// 1. Linux: `$XDG_RUNTIME_DIR/containers/auth.json` when the variable is
///    set; macOS and Windows: `HOME/.config/containers/auth.json`;
/// 2. `${XDG_CONFIG_HOME:-HOME/.config}/containers/auth.json`;
/// 3. `HOME/.docker/config.json`;
/// 4. `HOME/.dockercfg`.
///
/// A path may appear twice in a row (macOS and Windows without
/// `XDG_CONFIG_HOME`); the discovery reads it once. `DOCKER_CONFIG` and
/// `REGISTRY_AUTH_FILE` are not read, as in OpenTofu.
///
/// ```
/// use std::path::PathBuf;
/// use tfdisco_config::{Env, OciHostOs, docker_style_search_locations};
///
/// let env = Env::empty().with_var("HOME", "/home/me").with_var("XDG_RUNTIME_DIR", "/run/user/7");
/// assert_eq!(
///     docker_style_search_locations(OciHostOs::Linux, &env),
///     [
///         "/run/user/7/containers/auth.json",
///         "/home/me/.config/containers/auth.json",
///         "/home/me/.docker/config.json",
///         "/home/me/.dockercfg",
///     ]
///     .map(PathBuf::from)
/// );
/// ```
pub fn docker_style_search_locations(os: OciHostOs, env: &Env) -> Vec<PathBuf> {
    let home = home(os, env);
    let join = |base: &Path, rest: &[&str]| {
        let mut path = base.to_owned();
        path.extend(rest);
        clean(&path)
    };
    let auth_json = ["containers", "auth.json"];
    let mut paths = Vec::new();
    match os {
        OciHostOs::Linux => {
            if let Some(run) = env.non_empty("XDG_RUNTIME_DIR") {
                paths.push(join(Path::new(run), &auth_json));
            }
        }
        OciHostOs::MacOs | OciHostOs::Windows => {
            paths.push(join(&home, &[".config", "containers", "auth.json"]));
        }
        OciHostOs::Other => {}
    }
    let config_home = env
        .non_empty("XDG_CONFIG_HOME")
        .map_or_else(|| home.join(".config"), PathBuf::from);
    paths.push(join(&config_home, &auth_json));
    paths.push(join(&home, &[".docker", "config.json"]));
    paths.push(join(&home, &[".dockercfg"]));
    paths
}
