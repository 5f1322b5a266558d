//! The provider installation implied when the CLI configuration has no
//! `provider_installation` block (docs/behaviour.md, INST-9): which local
//! directories are filesystem mirrors, per operating system and dialect,
//! and the configuration they make.

use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, Env};
use tfdisco_provider::ProviderInstallation;

use crate::Diagnostic;
use crate::fs_mirror::{FilesystemMirror, MirrorError};

/// The operating systems whose directories differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostOs {
    /// Linux and the other systems of the XDG base directories (the BSDs,
    /// AIX, Solaris, illumos).
    Unix,
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
}

impl HostOs {
    /// The system this program runs on.
    pub fn current() -> HostOs {
        if cfg!(windows) {
            HostOs::Windows
        } else if cfg!(target_os = "macos") {
            HostOs::MacOs
        } else {
            HostOs::Unix
        }
    }
}

/// Why a directory is a candidate implied mirror.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImpliedOrigin {
    /// `terraform.d/plugins` in the working directory.
    WorkingDirectory,
    /// The CLI's own directory: `~/.terraform.d/plugins` (Windows:
    /// `%APPDATA%\terraform.d\plugins`); for OpenTofu also
    /// `$XDG_DATA_HOME/opentofu/plugins`.
    CliDirectory,
    /// The system's data directories for the application "Terraform"
    /// (XDG, macOS's Application Support, Windows' roaming AppData), in
    /// both dialects.
    UserData,
}

/// A candidate directory of the implied configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpliedDir {
    /// The directory.
    pub path: PathBuf,
    /// Why it is a candidate.
    pub origin: ImpliedOrigin,
}

/// The candidate directories of the implied configuration on this system,
/// in order ([`implied_mirror_dirs_for`]).
pub fn implied_mirror_dirs(dialect: Dialect, env: &Env, cwd: &Path) -> Vec<ImpliedDir> {
    implied_mirror_dirs_for(HostOs::current(), dialect, env, cwd)
}

/// The candidate directories of the implied configuration (INST-9), in
/// order, worked out from `env` and `cwd` alone (nothing is looked at):
///
/// 1. `<cwd>/terraform.d/plugins`;
/// 2. Terraform: `$HOME/.terraform.d/plugins` (Windows:
///    `%APPDATA%\terraform.d\plugins`); OpenTofu: the same, then
///    `$XDG_DATA_HOME/opentofu/plugins` when the variable is set (as
///    written, even relative), not on Windows;
/// 3. both: the data directories of go-userdirs' application
///    "Terraform" + `plugins`: on Unix `$XDG_DATA_HOME` (when absolute,
///    else `$HOME/.local/share`), then each absolute entry of
///    `$XDG_DATA_DIRS` (unset: `/usr/local/share`, `/usr/share`), each +
///    `terraform/plugins`; on macOS `~/Library/Application
///    Support/io.terraform/plugins` and `/Library/Application
///    Support/io.terraform/plugins`; on Windows
///    `%APPDATA%\HashiCorp\Terraform\plugins`.
///
/// Windows' folders are read from `APPDATA` (then `LOCALAPPDATA`, then
/// `c:\`), where the CLIs ask the system's known folders.
pub fn implied_mirror_dirs_for(
    os: HostOs,
    dialect: Dialect,
    env: &Env,
    cwd: &Path,
) -> Vec<ImpliedDir> {
    let mut dirs = vec![ImpliedDir {
        path: join(os, cwd, &["terraform.d", "plugins"]),
        origin: ImpliedOrigin::WorkingDirectory,
    }];
    let cli = |path: PathBuf| ImpliedDir {
        path,
        origin: ImpliedOrigin::CliDirectory,
    };
    match os {
        HostOs::Windows => {
            if let Some(appdata) = env.non_empty("APPDATA") {
                dirs.push(cli(join(
                    os,
                    Path::new(appdata),
                    &["terraform.d", "plugins"],
                )));
            }
        }
        _ => {
            if let Some(home) = env.home() {
                dirs.push(cli(join(os, &home, &[".terraform.d", "plugins"])));
            }
            if dialect == Dialect::OpenTofu
                && let Some(data) = env.non_empty("XDG_DATA_HOME")
            {
                dirs.push(cli(join(os, Path::new(data), &["opentofu", "plugins"])));
            }
        }
    }
    for dir in app_data_dirs(os, env, "Terraform", "HashiCorp", "io.terraform") {
        dirs.push(ImpliedDir {
            path: join(os, &dir, &["plugins"]),
            origin: ImpliedOrigin::UserData,
        });
    }
    dirs
}

/// go-userdirs' `ForApp(name, vendor, bundle_id).DataDirs`: where an
/// application's data is looked for, most specific first.
pub fn app_data_dirs(
    os: HostOs,
    env: &Env,
    name: &str,
    vendor: &str,
    bundle_id: &str,
) -> Vec<PathBuf> {
    match os {
        HostOs::Unix => {
            let app = name.replace(' ', "-").to_lowercase();
            let home = unix_home(env);
            let absolute = |p: &&str| p.starts_with('/');
            let data_home = env
                .non_empty_str("XDG_DATA_HOME")
                .filter(|p| absolute(p))
                .map_or_else(|| home.join(".local/share"), PathBuf::from);
            let mut dirs = vec![data_home.join(&app)];
            let more: Vec<PathBuf> = match env.non_empty_str("XDG_DATA_DIRS") {
                Some(list) => list
                    .split(':')
                    .filter(absolute)
                    .map(PathBuf::from)
                    .collect(),
                None => vec![
                    PathBuf::from("/usr/local/share"),
                    PathBuf::from("/usr/share"),
                ],
            };
            dirs.extend(more.into_iter().map(|d| d.join(&app)));
            dirs
        }
        HostOs::MacOs => {
            let home = unix_home(env);
            vec![
                home.join("Library/Application Support").join(bundle_id),
                PathBuf::from("/Library/Application Support").join(bundle_id),
            ]
        }
        HostOs::Windows => {
            let roaming = env
                .non_empty("APPDATA")
                .or_else(|| env.non_empty("LOCALAPPDATA"))
                .map_or_else(|| PathBuf::from("c:\\"), PathBuf::from);
            vec![join(os, &roaming, &[vendor, name])]
        }
    }
}

/// go-userdirs' home: an absolute `HOME`, else `/`.
fn unix_home(env: &Env) -> PathBuf {
    env.home()
        .filter(|h| h.is_absolute())
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// `base` and `parts` joined with the system's separator (Windows paths
/// are built as text, so they come out the same on any host).
fn join(os: HostOs, base: &Path, parts: &[&str]) -> PathBuf {
    if os == HostOs::Windows && !cfg!(windows) {
        let mut text = base.to_string_lossy().trim_end_matches('\\').to_owned();
        for part in parts {
            text.push('\\');
            text.push_str(part);
        }
        return PathBuf::from(text);
    }
    let mut path = base.to_path_buf();
    path.extend(parts);
    path
}

/// A directory of the implied configuration that exists, and what its scan
/// found.
#[derive(Debug)]
pub struct ImpliedMirror {
    /// The directory and why it is a candidate.
    pub dir: ImpliedDir,
    /// Its scan; a failed one counts as no providers, as in Go.
    pub mirror: Result<FilesystemMirror, MirrorError>,
}

/// The implied configuration (INST-9): each candidate directory
/// ([`implied_mirror_dirs`]) that is a directory becomes a filesystem
/// mirror without patterns, in order; `direct` comes last and excludes
/// exactly the providers found in them. Returns the configuration and the
/// mirrors, with their scans (warnings, failures).
pub fn implied_provider_installation(
    dialect: Dialect,
    env: &Env,
    cwd: &Path,
) -> (ProviderInstallation, Vec<ImpliedMirror>) {
    implied_from(implied_mirror_dirs(dialect, env, cwd), dialect)
}

fn implied_from(
    candidates: Vec<ImpliedDir>,
    dialect: Dialect,
) -> (ProviderInstallation, Vec<ImpliedMirror>) {
    let mut found = Vec::new();
    let mut mirrors = Vec::new();
    for dir in candidates {
        if !std::fs::metadata(&dir.path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let mirror = FilesystemMirror::scan(&dir.path, dialect);
        let providers = mirror
            .as_ref()
            .map(|m| m.packages().providers())
            .unwrap_or_default();
        found.push((dir.path.clone(), providers));
        mirrors.push(ImpliedMirror { dir, mirror });
    }
    (ProviderInstallation::implied(found), mirrors)
}

/// The warnings of an implied mirror's scan as diagnostics, for a front
/// end that shows them.
pub fn implied_mirror_diagnostics(mirrors: &[ImpliedMirror]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for m in mirrors {
        match &m.mirror {
            Ok(mirror) => diags.extend(
                mirror
                    .warnings()
                    .iter()
                    .map(|w| Diagnostic::warning(w.clone(), None).at(&m.dir.path, None)),
            ),
            Err(e) => diags.push(Diagnostic::warning(e.to_string(), None).at(&m.dir.path, None)),
        }
    }
    diags
}
