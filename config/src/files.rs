//! Everything that touches the file system: where the CLI config files are
//! for each dialect (docs/behaviour.md, CFG-1 to CFG-3), reading them,
//! finding the helper plugin (CFG-8), and replacing `credentials.tfrc.json`
//! atomically (CRED-7).

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use tfdisco_core::{Credentials, Dialect, Hostname, go_quote};

use crate::cli_config::{self, CliConfig, ParsedFile};
use crate::credentials_file::{self, CREDENTIALS_FILE_NAME};
use crate::{Diagnostic, Env, Error, plugins};

/// Config files larger than this are not read (they are a mistake).
const MAX_FILE_SIZE: u64 = 16 << 20;

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
                vec![plugins.clone(), plugins.join(machine_dir())]
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

/// Go's `<GOOS>_<GOARCH>` for this machine.
fn machine_dir() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64",
        "loongarch64" => "loong64",
        other => other,
    };
    format!("{os}_{arch}")
}

fn exists(path: &Path) -> bool {
    fs::metadata(path).is_ok()
}

impl CliConfig {
    /// Reads the CLI configuration of `dialect` the way its CLI does: the
    /// main file, then (unless an override variable is set) the config
    /// directory's `*.tfrc` and `*.tfrc.json` files in alphabetical order,
    /// merged; then looks for the `credentials_helper` program in the plugin
    /// directories.
    ///
    /// It never fails: unreadable or malformed files, invalid hostnames and
    /// a missing override file are [`diagnostics`](CliConfig::diagnostics).
    pub fn load(dialect: Dialect, env: &Env) -> CliConfig {
        let locations = Locations::resolve(dialect, env);
        let mut diags = Vec::new();
        let mut files = Vec::new();
        if let Some(main) = locations.main_file() {
            match fs::metadata(main) {
                Ok(_) => files.push(read_config_file(main, &mut diags)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if locations.override_var.is_some() {
                        diags.push(
                            Diagnostic::warning(
                                "Unable to open CLI configuration file",
                                Some(format!(
                                    "The CLI configuration file at {} does not exist.",
                                    go_quote(&main.to_string_lossy())
                                )),
                            )
                            .at(main, None),
                        );
                    }
                }
                Err(e) => diags.push(
                    Diagnostic::error(format!("Error reading {}: {e}", main.display()))
                        .at(main, None),
                ),
            }
        }
        if let Some(dir) = locations
            .config_dir()
            .filter(|_| locations.scans_config_dir())
        {
            if fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
                match config_dir_files(dir) {
                    Ok(paths) => {
                        for path in paths {
                            files.push(read_config_file(&path, &mut diags));
                        }
                    }
                    Err(e) => diags.push(
                        Diagnostic::error(format!("Error reading {}: {e}", dir.display()))
                            .at(dir, None),
                    ),
                }
            }
        }
        let mut config = cli_config::merge(files, diags);
        if let Some(helper) = &mut config.helper {
            helper.executable = find_helper(helper.kind(), locations.plugin_dirs());
            if helper.executable.is_none() {
                let diag = Diagnostic::warning(
                    format!(
                        "Unable to find credentials helper {}; ignoring",
                        go_quote(helper.kind())
                    ),
                    Some(format!(
                        "no terraform-credentials-{} program in {}",
                        helper.kind(),
                        list(locations.plugin_dirs())
                    )),
                )
                .at(helper.file(), helper.line());
                config.diagnostics.push(diag);
            }
        }
        config.locations = Some(locations);
        config
    }
}

fn list(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "no plugin directory (no home directory)".into();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `*.tfrc` and `*.tfrc.json` entries of `dir`, sorted by name.
fn config_dir_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        let text = name.to_string_lossy();
        if text.ends_with(".tfrc") || text.ends_with(".tfrc.json") {
            names.push(name);
        }
    }
    names.sort();
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// Reads and parses one file; a file that cannot be read contributes nothing.
fn read_config_file(path: &Path, diags: &mut Vec<Diagnostic>) -> ParsedFile {
    match read_limited(path) {
        Ok(text) => cli_config::parse_file(path.to_owned(), &text, diags),
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("Error reading {}: {e}", path.display())).at(path, None),
            );
            ParsedFile::empty(path.to_owned())
        }
    }
}

/// A text file of at most [`MAX_FILE_SIZE`] bytes.
fn read_limited(path: &Path) -> io::Result<String> {
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(io::Error::other("file is larger than 16 MiB"));
    }
    String::from_utf8(bytes).map_err(|_| io::Error::other("file is not valid UTF-8"))
}

/// The newest `terraform-credentials-<kind>` program in `dirs`, made
/// absolute. Missing directories are skipped; for equal versions the
/// earlier directory wins.
pub(crate) fn find_helper(kind: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    let mut seen = HashSet::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        let mut names: Vec<_> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        names.sort();
        for name in names {
            let Some((name_kind, version)) = name.to_str().and_then(plugins::helper_name_version)
            else {
                continue;
            };
            let path = dir.join(&name);
            if name_kind != kind || !fs::metadata(&path).is_ok_and(|m| !m.is_dir()) {
                continue;
            }
            if seen.insert(version.clone()) {
                candidates.push((version, path));
            }
        }
    }
    let path = plugins::newest(candidates)?;
    std::path::absolute(&path).ok()
}

/// The hosts `credentials.tfrc.json` has entries for; none when it cannot
/// be read.
pub(crate) fn credentials_file_hosts(path: &Path) -> HashSet<Hostname> {
    read_limited(path)
        .map(|text| credentials_file::hosts(&text))
        .unwrap_or_default()
}

/// Stores (or, with `None`, forgets) the credentials of `host` in
/// `credentials.tfrc.json`: read, edit, write a temporary file beside it,
/// rename it over the old one, mode 0600. Creates the directory (mode 0700)
/// when it is missing.
pub(crate) fn update_credentials_file(
    path: &Path,
    host: &Hostname,
    new: Option<&Credentials>,
) -> Result<(), Error> {
    let fail =
        |message: String, source: Option<io::Error>| Error::CredentialsFile { message, source };
    let old = match read_limited(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(fail(
                format!("cannot read {}: {e}", path.display()),
                Some(e),
            ));
        }
    };
    let text = credentials_file::update(path, &old, host, new).map_err(|m| fail(m, None))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    create_private_dir(dir).map_err(|e| {
        fail(
            format!("cannot create directory {}: {e}", dir.display()),
            Some(e),
        )
    })?;
    let file_name = path
        .file_name()
        .map_or_else(|| CREDENTIALS_FILE_NAME.into(), |n| n.to_owned());
    let mut temp = tempfile::Builder::new()
        .prefix(&file_name)
        .tempfile_in(dir)
        .map_err(|e| {
            fail(
                format!("cannot create temporary file to update credentials: {e}"),
                Some(e),
            )
        })?;
    let temp_path = temp.path().to_owned();
    temp.write_all(text.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| {
            fail(
                format!(
                    "cannot write to temporary file {}: {e}",
                    temp_path.display()
                ),
                Some(e),
            )
        })?;
    temp.persist(path).map_err(|e| {
        fail(
            format!(
                "failed to replace {} with temporary file {}: {}",
                path.display(),
                temp_path.display(),
                e.error
            ),
            Some(e.error),
        )
    })?;
    set_private(path).map_err(|e| {
        fail(
            format!(
                "cannot set mode for credentials file {}: {e}",
                path.display()
            ),
            Some(e),
        )
    })
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn set_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn set_private(_: &Path) -> io::Result<()> {
    Ok(())
}
