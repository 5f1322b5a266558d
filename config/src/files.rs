//! Reading and writing files: loading the CLI config files from their
//! locations (docs/behaviour.md, CFG-1 to CFG-4), finding the helper plugin
//! (CFG-8), and replacing `credentials.tfrc.json` atomically (CRED-7).

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tfdisco_core::{Credentials, Dialect, Hostname, go_quote};

use crate::cli_config::{self, CliConfig, ParsedFile, Reading};
use crate::credentials_file::{self, CREDENTIALS_FILE_NAME};
use crate::hcl_text::read_limited;
use crate::locations::Locations;
use crate::registry_settings::{self, RegistrySettings};
use crate::{Diagnostic, Env, Error, plugins};

impl CliConfig {
    /// Reads the CLI configuration of `dialect` the way its CLI does: the
    /// main file, then (unless an override variable is set) the config
    /// directory's `*.tfrc` and `*.tfrc.json` files in alphabetical order,
    /// merged; then looks for the `credentials_helper` program in the plugin
    /// directories.
    ///
    /// It never fails: unreadable or malformed files, invalid hostnames and
    /// a missing override file are [`diagnostics`](CliConfig::diagnostics).
    ///
    /// The configuration keeps a copy of `env` ([`CliConfig::env`]): a
    /// client given this configuration reads `TF_TOKEN_*`,
    /// `TF_APPEND_USER_AGENT` and its other variables there
    /// (docs/behaviour.md, CFG-10).
    pub fn load(dialect: Dialect, env: &Env) -> CliConfig {
        let locations = Locations::resolve(dialect, env);
        let read = Reading { dialect, env };
        let mut diags = Vec::new();
        let mut files = Vec::new();
        let mut main_blocks = Vec::new();
        if let Some(main) = locations.main_file() {
            match fs::metadata(main) {
                Ok(_) => {
                    let mut parsed = read_config_file(main, &read, &mut diags);
                    // Only the main file's counts (CFG-11): OpenTofu merges
                    // the directory's under its built-in settings.
                    main_blocks = std::mem::take(&mut parsed.registry_protocols);
                    files.push(parsed);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if locations.override_var().is_some() {
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
            && fs::metadata(dir).is_ok_and(|m| m.is_dir())
        {
            match config_dir_files(dir) {
                Ok(paths) => {
                    for path in paths {
                        files.push(read_config_file(&path, &read, &mut diags));
                    }
                }
                Err(e) => diags.push(
                    Diagnostic::error(format!("Error reading {}: {e}", dir.display()))
                        .at(dir, None),
                ),
            }
        }
        let mut config = cli_config::merge(files, diags, dialect);
        if dialect == Dialect::OpenTofu
            && let Some(main) = locations.main_file()
        {
            config.registry_protocols =
                registry_protocols(main, &main_blocks, &mut config.diagnostics);
        }
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
        config.env = Some(env.clone());
        config
    }
}

/// The first `registry_protocols` block of the main file; another one in
/// the same file is an error (OpenTofu: "Duplicate registry_protocols
/// block").
fn registry_protocols(
    main: &Path,
    blocks: &[registry_settings::Block],
    diags: &mut Vec<Diagnostic>,
) -> RegistrySettings {
    let Some(first) = blocks.first() else {
        return RegistrySettings::default();
    };
    for again in &blocks[1..] {
        diags.push(
            Diagnostic::error(format!(
                "Duplicate registry_protocols block: the registry protocol settings were \
                 already defined in {}{}",
                main.display(),
                first
                    .line
                    .map(|l| format!(" at line {l}"))
                    .unwrap_or_default()
            ))
            .at(main, again.line),
        );
    }
    registry_settings::read_block(main, first, diags)
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
fn read_config_file(path: &Path, read: &Reading<'_>, diags: &mut Vec<Diagnostic>) -> ParsedFile {
    match read_limited(path) {
        Ok(text) => cli_config::parse_file(path.to_owned(), &text, read, diags),
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("Error reading {}: {e}", path.display())).at(path, None),
            );
            ParsedFile::empty(path.to_owned())
        }
    }
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
