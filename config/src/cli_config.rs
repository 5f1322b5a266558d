//! CLI config file contents (docs/behaviour.md, CFG-4 to CFG-7, CRED-6): parsing one
//! file's text, merging files, validating the blocks. Pure: the texts come in
//! as strings; `locations.rs` says where the files are and `files.rs` reads
//! them.

use std::collections::{HashMap, hash_map};
use std::fmt;
use std::hash::Hash;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tfdisco_core::{Credentials, Dialect, DiscoveryCache, Hostname, InvalidToken, go_quote};
use tfdisco_provider::ProviderInstallation;

use crate::literal::{self, Lit};
use crate::locations::Locations;
use crate::oci_credentials::{OciBlocks, decode as oci_decode};
use crate::provider_installation::{self, InstallationBlock};
use crate::registry_settings::{self, RegistrySettings};
use crate::{Diagnostic, Env, hcl1, nesting};

/// The CLI configuration: every `credentials`, `host` and
/// `credentials_helper` block of the files read, merged as Terraform and
/// OpenTofu merge them.
///
/// Files are merged in the order given (for [`CliConfig::load`]: the main
/// file, then the config directory's `*.tfrc` / `*.tfrc.json` files in
/// alphabetical order). A later block replaces an earlier one of the same
/// name whole; a `credentials` block is never merged with another. Blocks
/// whose names are not valid hostnames are reported in
/// [`diagnostics`](CliConfig::diagnostics) and skipped; nothing here is
/// fatal.
///
/// ```
/// use tfdisco_config::CliConfig;
/// use tfdisco_core::Hostname;
///
/// let config = CliConfig::from_sources([(
///     "/home/me/.tofurc",
///     r#"
///     credentials "app.example.com" { token = "s3cret" }
///     credentials "bad host" { token = "x" }
///     host "example.com" {
///       services = { "modules.v1" = "https://modules.example.net/v1/" }
///     }
///     "#,
/// )]);
/// assert_eq!(config.credentials_blocks().len(), 1);
/// assert_eq!(
///     config.diagnostics()[0].to_string(),
///     r#"The credentials "bad host" block has an invalid hostname: idna: disallowed rune U+0020"#
/// );
/// let host = &config.host_blocks()[0];
/// assert_eq!(host.host(), &Hostname::parse("example.com")?);
/// assert_eq!(host.services()[0].0, "modules.v1");
/// # Ok::<(), tfdisco_core::HostnameError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CliConfig {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) credentials: Vec<CredentialsBlock>,
    pub(crate) hosts: Vec<HostBlock>,
    pub(crate) helper: Option<HelperBlock>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) locations: Option<Locations>,
    pub(crate) env: Option<Env>,
    /// OpenTofu's `registry_protocols` block of the main file (CFG-11).
    pub(crate) registry_protocols: RegistrySettings,
    /// Whose rules the files were read with.
    pub(crate) dialect: Dialect,
    /// Every `provider_installation` block, files in order (INST-1).
    pub(crate) installation_blocks: Vec<InstallationBlock>,
    /// The first block, checked (INST-1).
    pub(crate) installation: Option<ProviderInstallation>,
    /// `plugin_cache_dir` as written (the last file's that sets it), its
    /// `$VAR`s not yet expanded (INSTALL-11).
    pub(crate) plugin_cache_dir: Option<String>,
    /// `module_cache_dir` (tfdisco's own, MOD-13) as written, the last
    /// file's that sets it, its `$VAR`s not yet expanded.
    pub(crate) module_cache_dir: Option<String>,
    /// `plugin_cache_may_break_dependency_lock_file` set true in any file.
    pub(crate) plugin_cache_may_break: bool,
    /// OpenTofu's `oci_credentials` and `oci_default_credentials` blocks,
    /// files in order (OCICRED-1 to OCICRED-4).
    pub(crate) oci: OciBlocks,
}

/// The `file` and `line` accessors of a block (in the fields of those
/// names).
macro_rules! file_and_line_accessors {
    () => {
        /// The file the block is in.
        pub fn file(&self) -> &Path {
            &self.file
        }

        /// The line the block starts on, when known (HCL syntax only).
        pub fn line(&self) -> Option<usize> {
            self.line
        }
    };
}

/// A `credentials "<host>" { token = "…" }` block. `Debug` does not show
/// the token.
#[derive(Clone, Debug)]
pub struct CredentialsBlock {
    host: Hostname,
    name: String,
    file: PathBuf,
    line: Option<usize>,
    token: Option<Token>,
}

impl CredentialsBlock {
    /// The host, in comparison form.
    pub fn host(&self) -> &Hostname {
        &self.host
    }

    /// The block's label as written.
    pub fn name(&self) -> &str {
        &self.name
    }

    file_and_line_accessors!();

    /// The credentials, or `None` when the block has no string `token`
    /// attribute (Go ignores other attributes). Such a block still hides
    /// the helper program for its host, as in Go.
    pub fn credentials(&self) -> Option<Result<Credentials, InvalidToken>> {
        self.token.as_ref().map(|t| Credentials::token(&t.0))
    }

    pub(crate) fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }
}

/// A `host "<name>" { services = { … } }` block: services used instead of
/// discovering the host (docs/behaviour.md, CFG-6).
#[derive(Clone, Debug)]
pub struct HostBlock {
    host: Hostname,
    name: String,
    file: PathBuf,
    line: Option<usize>,
    services: Vec<(String, Value)>,
}

impl HostBlock {
    /// The host, in comparison form.
    pub fn host(&self) -> &Hostname {
        &self.host
    }

    /// The block's label as written.
    pub fn name(&self) -> &str {
        &self.name
    }

    file_and_line_accessors!();

    /// The services, in the order written, ready for
    /// [`DiscoveryCache::force`](tfdisco_core::DiscoveryCache::force).
    pub fn services(&self) -> &[(String, Value)] {
        &self.services
    }
}

/// The `credentials_helper "<type>" { args = […] }` block.
#[derive(Clone, Debug)]
pub struct HelperBlock {
    kind: String,
    args: Vec<String>,
    file: PathBuf,
    line: Option<usize>,
    pub(crate) executable: Option<PathBuf>,
}

impl HelperBlock {
    /// The helper type: the program is `terraform-credentials-<type>`.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The arguments given before the verb and the hostname.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    file_and_line_accessors!();

    /// The program found for it in the plugin directories (newest version),
    /// when [`CliConfig::load`] found one.
    pub fn executable(&self) -> Option<&Path> {
        self.executable.as_deref()
    }
}

/// A token from a config file; `Debug` does not show it.
#[derive(Clone)]
pub(crate) struct Token(pub(crate) String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"***\"")
    }
}

impl CliConfig {
    /// Parses and merges configuration texts, in order: `(path, text)`, the
    /// path only naming the file in diagnostics. Text whose first non-space
    /// character is `{` is JSON, anything else HCL, as in HCL 1. The
    /// `provider_installation` blocks are read with OpenTofu's rules and no
    /// environment ([`CliConfig::from_sources_in`] chooses).
    pub fn from_sources<I, P, S>(sources: I) -> CliConfig
    where
        I: IntoIterator<Item = (P, S)>,
        P: Into<PathBuf>,
        S: AsRef<str>,
    {
        CliConfig::from_sources_in(Dialect::default(), &Env::empty(), sources)
    }

    /// [`CliConfig::from_sources`] with `dialect`'s rules for what differs:
    /// the `provider_installation` block's default registry, methods and
    /// messages, and Terraform's `$VAR` in `dev_overrides`, read in `env`
    /// (INST-8). The configuration does not keep `env`
    /// ([`CliConfig::env`] is `None`).
    pub fn from_sources_in<I, P, S>(dialect: Dialect, env: &Env, sources: I) -> CliConfig
    where
        I: IntoIterator<Item = (P, S)>,
        P: Into<PathBuf>,
        S: AsRef<str>,
    {
        let mut diagnostics = Vec::new();
        let read = Reading { dialect, env };
        let files = sources
            .into_iter()
            .map(|(path, text)| parse_file(path.into(), text.as_ref(), &read, &mut diagnostics))
            .collect();
        merge(files, diagnostics, dialect)
    }

    /// The dialect whose rules the files were read with.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Every `provider_installation` block of the files, in order, as
    /// written (INST-1): the CLIs use the first one only, and report a
    /// second one.
    pub fn provider_installation_blocks(&self) -> &[InstallationBlock] {
        &self.installation_blocks
    }

    /// The first `provider_installation` block as the CLIs use it, its
    /// methods checked (a method with an invalid URL or pattern is left
    /// out, and reported); `None` when there is no block, and the
    /// configuration is the implied one
    /// ([`CliConfig::provider_installation`]).
    pub fn explicit_provider_installation(&self) -> Option<&ProviderInstallation> {
        self.installation.as_ref()
    }

    /// The files read, in the order they were merged.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The valid `credentials` blocks, one per host.
    pub fn credentials_blocks(&self) -> &[CredentialsBlock] {
        &self.credentials
    }

    /// The `credentials` block for `host`, if there is one.
    pub fn credentials_block(&self, host: &Hostname) -> Option<&CredentialsBlock> {
        self.credentials.iter().find(|b| &b.host == host)
    }

    /// The valid `host` blocks, one per host.
    pub fn host_blocks(&self) -> &[HostBlock] {
        &self.hosts
    }

    /// The `credentials_helper` block, if any (the first one when there are
    /// several, which is also reported as a diagnostic).
    pub fn credentials_helper(&self) -> Option<&HelperBlock> {
        self.helper.as_ref()
    }

    /// Everything that was wrong, in the order found. None of it is fatal.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Where the files were looked for, when the configuration came from
    /// [`CliConfig::load`].
    pub fn locations(&self) -> Option<&Locations> {
        self.locations.as_ref()
    }

    /// The environment the configuration was loaded with, when it came from
    /// [`CliConfig::load`] (`None` for [`CliConfig::from_sources`]): the
    /// `TF_TOKEN_*` variables and `TF_APPEND_USER_AGENT` that go with these
    /// files. A client built with this configuration reads its variables
    /// there (docs/behaviour.md, CFG-10).
    ///
    /// ```
    /// use tfdisco_config::{CliConfig, Dialect, Env};
    ///
    /// let env = Env::empty().with_var("TF_TOKEN_example_com", "s3cret");
    /// let config = CliConfig::load(Dialect::OpenTofu, &env);
    /// let kept = config.env().expect("loaded");
    /// assert_eq!(kept.var("TF_TOKEN_example_com"), Some("s3cret".as_ref()));
    /// assert!(CliConfig::from_sources([("/home/me/.tofurc", "")]).env().is_none());
    /// ```
    pub fn env(&self) -> Option<&Env> {
        self.env.as_ref()
    }

    /// What the user's settings say about registry requests (CFG-11):
    /// `TF_REGISTRY_DISCOVERY_RETRY` and `TF_REGISTRY_CLIENT_TIMEOUT` in
    /// `env`, then, for OpenTofu, the main file's `registry_protocols`
    /// block.
    pub fn registry_settings(&self, env: &Env) -> RegistrySettings {
        RegistrySettings::from_env(env).or(self.registry_protocols)
    }

    /// Forces the services of every `host` block into `cache`, as the CLIs
    /// do at start-up. Returns the blocks whose services the core refused
    /// (an invalid service id, say); the others are forced.
    pub fn force_hosts(&self, cache: &mut DiscoveryCache) -> Vec<(Hostname, tfdisco_core::Error)> {
        let mut refused = Vec::new();
        for block in &self.hosts {
            if let Err(e) = cache.force(block.host.clone(), block.services.clone()) {
                refused.push((block.host.clone(), e));
            }
        }
        refused
    }
}

/// One file's blocks, before merging.
pub(crate) struct ParsedFile {
    pub(crate) path: PathBuf,
    credentials: Vec<Entry<Option<Token>>>,
    hosts: Vec<Entry<Vec<(String, Value)>>>,
    helpers: Vec<Entry<Vec<String>>>,
    /// `registry_protocols` blocks, read only from OpenTofu's main file.
    pub(crate) registry_protocols: Vec<registry_settings::Block>,
    /// `provider_installation` blocks, in order.
    installation: Vec<InstallationBlock>,
    /// `plugin_cache_dir`, when set (non-empty).
    plugin_cache_dir: Option<String>,
    /// `module_cache_dir`, when set (non-empty).
    module_cache_dir: Option<String>,
    /// `plugin_cache_may_break_dependency_lock_file`.
    plugin_cache_may_break: bool,
    /// OCI credentials blocks (OpenTofu only).
    oci: OciBlocks,
}

impl ParsedFile {
    /// A file that contributes nothing (it could not be read).
    pub(crate) fn empty(path: PathBuf) -> ParsedFile {
        ParsedFile {
            path,
            credentials: Vec::new(),
            hosts: Vec::new(),
            helpers: Vec::new(),
            registry_protocols: Vec::new(),
            installation: Vec::new(),
            plugin_cache_dir: None,
            module_cache_dir: None,
            plugin_cache_may_break: false,
            oci: OciBlocks::default(),
        }
    }
}

/// What reading a file depends on: the dialect, and for Terraform's
/// `dev_overrides` the environment.
pub(crate) struct Reading<'a> {
    pub(crate) dialect: Dialect,
    pub(crate) env: &'a Env,
}

struct Entry<T> {
    name: String,
    line: Option<usize>,
    value: T,
}

impl<T> Entry<T> {
    fn new(name: &str, line: Option<usize>, value: T) -> Entry<T> {
        Entry {
            name: name.to_owned(),
            line,
            value,
        }
    }
}

/// A merged entry: where it came from, and its value.
struct Located<T> {
    name: String,
    file: PathBuf,
    line: Option<usize>,
    value: T,
}

const BLOCK_KINDS: [(&str, &str); 3] = [
    ("credentials", "the hostname"),
    ("host", "the hostname"),
    ("credentials_helper", "the helper type"),
];

/// The block without a label read here (OpenTofu's, CFG-11).
const REGISTRY_PROTOCOLS: &str = "registry_protocols";

/// The block read from the HCL 1 tree (INST-1).
const PROVIDER_INSTALLATION: &str = "provider_installation";

/// The plugin cache's attributes (INSTALL-11).
const PLUGIN_CACHE_DIR: &str = "plugin_cache_dir";
const PLUGIN_CACHE_MAY_BREAK: &str = "plugin_cache_may_break_dependency_lock_file";

/// tfdisco's shared module cache (MOD-13); Terraform and OpenTofu ignore
/// an attribute they do not know.
const MODULE_CACHE_DIR: &str = "module_cache_dir";

/// True for a top-level key read here.
fn is_read(key: &str) -> bool {
    matches!(
        key,
        REGISTRY_PROTOCOLS | PLUGIN_CACHE_DIR | PLUGIN_CACHE_MAY_BREAK | MODULE_CACHE_DIR
    ) || BLOCK_KINDS.iter().any(|(k, _)| *k == key)
}

/// Parses one file. A syntax error is a diagnostic naming the file and line,
/// and the file then contributes nothing; a malformed block is a
/// diagnostic and only that block is skipped.
pub(crate) fn parse_file(
    path: PathBuf,
    text: &str,
    read: &Reading<'_>,
    diags: &mut Vec<Diagnostic>,
) -> ParsedFile {
    let mut file = ParsedFile::empty(path);
    let json = text.trim_start().starts_with('{');
    let (top, tree) = if json {
        let (top, installation) = json_entries(&file.path, text, read.dialect, diags);
        let tree = installation
            .then(|| match hcl1::parse_json(text) {
                Ok(items) => Some(items),
                Err(e) => {
                    diags.push(
                        Diagnostic::error(format!("Error parsing {}: {e}", file.path.display()))
                            .at(&file.path, e.pos.map(|p| p.line)),
                    );
                    None
                }
            })
            .flatten();
        (top, tree)
    } else {
        hcl_entries(&file.path, text, read.dialect, diags)
    };
    if let Some(items) = tree {
        let ctx = provider_installation::Context {
            dialect: read.dialect,
            env: read.env,
            path: &file.path,
            json,
        };
        file.installation = provider_installation::decode(&items, &ctx, diags);
        if read.dialect == Dialect::OpenTofu {
            file.oci = oci_decode::decode(&items, &file.path, json, diags);
        }
    }
    let path = file.path.clone();
    for (key, value, line) in top {
        let problem = |what: String| {
            Diagnostic::error(format!("Error parsing {}: {what}", path.display())).at(&path, line)
        };
        if key == PLUGIN_CACHE_DIR || key == PLUGIN_CACHE_MAY_BREAK || key == MODULE_CACHE_DIR {
            match value {
                // Go reads an empty string as not set.
                Lit::String(dir) if key == PLUGIN_CACHE_DIR => {
                    if !dir.is_empty() {
                        file.plugin_cache_dir = Some(dir);
                    }
                }
                Lit::String(dir) if key == MODULE_CACHE_DIR => {
                    if !dir.is_empty() {
                        file.module_cache_dir = Some(dir);
                    }
                }
                Lit::Bool(may_break) if key == PLUGIN_CACHE_MAY_BREAK => {
                    file.plugin_cache_may_break |= may_break;
                }
                other => {
                    let wanted = if key == PLUGIN_CACHE_DIR || key == MODULE_CACHE_DIR {
                        "a string"
                    } else {
                        "a boolean"
                    };
                    diags.push(problem(format!(
                        "{key} must be {wanted}, not {}",
                        other.kind()
                    )));
                }
            }
            continue;
        }
        top_block(&mut file, key, value, line, &problem, diags);
    }
    file
}

/// A top-level block kind of a file read here (everything but the plugin
/// cache's attributes), added to `file`.
fn top_block(
    file: &mut ParsedFile,
    key: String,
    value: Lit,
    line: Option<usize>,
    problem: &dyn Fn(String) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
) {
    if key == REGISTRY_PROTOCOLS {
        // Checked when it is read, for OpenTofu only: Terraform ignores
        // the block.
        let bodies = match value {
            Lit::Array(items) => items,
            body => vec![body],
        };
        for body in bodies {
            file.registry_protocols
                .push(registry_settings::Block { line, body });
        }
        return;
    }
    let Some(blocks) = labelled(&value) else {
        diags.push(problem(format!(
            "{key} must be an object of blocks, not {}",
            value.kind()
        )));
        return;
    };
    for (name, body) in blocks {
        let Some(body) = object(&body) else {
            diags.push(problem(format!(
                "the {key} {} block must contain attributes, not {}",
                go_quote(&name),
                body.kind()
            )));
            continue;
        };
        match key.as_str() {
            "credentials" => {
                let token = match body.get("token") {
                    Some(Lit::String(token)) => Some(Token(token.clone())),
                    _ => None,
                };
                file.credentials.push(Entry::new(&name, line, token));
            }
            "host" => match services(&body) {
                Some(services) => file.hosts.push(Entry::new(&name, line, services)),
                None => diags.push(problem(format!(
                    "services of the host {} block must be an object",
                    go_quote(&name)
                ))),
            },
            _ => match args(&body) {
                Some(args) => file.helpers.push(Entry::new(&name, line, args)),
                None => diags.push(problem(format!(
                    "args of the credentials_helper {} block must be a list of strings",
                    go_quote(&name)
                ))),
            },
        }
    }
}

/// A file's entries that matter here, with their lines.
type Entries = Vec<(String, Lit, Option<usize>)>;

/// True for a top-level key of a block read from the HCL 1 tree: INST-1's,
/// and for OpenTofu OCICRED-1's.
fn needs_tree(key: &str, dialect: Dialect) -> bool {
    key == PROVIDER_INSTALLATION || (dialect == Dialect::OpenTofu && oci_decode::is_oci_block(key))
}

/// The top-level entries of a JSON file that matter here, and whether it
/// has a member read from the HCL 1 tree (`needs_tree`).
fn json_entries(
    path: &Path,
    text: &str,
    dialect: Dialect,
    diags: &mut Vec<Diagnostic>,
) -> (Entries, bool) {
    match serde_json::from_str::<Lit>(text) {
        Ok(Lit::Object(entries)) => {
            let installation = entries.iter().any(|(k, _)| needs_tree(k, dialect));
            let entries = entries
                .into_iter()
                .filter(|(key, _)| is_read(key))
                .map(|(key, value)| (key, value, None))
                .collect();
            (entries, installation)
        }
        Ok(other) => {
            diags.push(
                Diagnostic::error(format!(
                    "Error parsing {}: the top level is {}, not an object",
                    path.display(),
                    other.kind()
                ))
                .at(path, None),
            );
            (Vec::new(), false)
        }
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("Error parsing {}: {e}", path.display()))
                    .at(path, Some(e.line())),
            );
            (Vec::new(), false)
        }
    }
}

/// The top-level blocks (and attributes) of an HCL file that matter here,
/// and the file's HCL 1 tree when it has a block read from it
/// (`needs_tree`).
///
/// The text is read with `hcl-edit`; when that refuses it, with the HCL 1
/// reader (CFG-12), which also reads every `provider_installation` block
/// (its keys may be quoted, its positions are HCL 1's).
fn hcl_entries(
    path: &Path,
    text: &str,
    dialect: Dialect,
    diags: &mut Vec<Diagnostic>,
) -> (Entries, Option<Vec<hcl1::Item>>) {
    use hcl::edit::Span;

    // The parser needs time exponential in the nesting of some invalid text;
    // such text is refused before it gets there (docs/behaviour.md, CFG-9).
    if let Err(rejected) = nesting::check(text) {
        diags.push(
            Diagnostic::error(format!(
                "Error parsing {}: line {}, column {}: {}",
                path.display(),
                rejected.line,
                rejected.column,
                rejected.reason
            ))
            .at(path, Some(rejected.line)),
        );
        return (Vec::new(), None);
    }
    // OpenTofu's HCL 1 refuses an argument set twice (INST-2).
    let hcl1 = || hcl1::parse(text, dialect == Dialect::OpenTofu);
    let body = match hcl::edit::parser::parse_body(text) {
        Ok(body) => body,
        Err(e) => {
            let at = e.location();
            return match hcl1() {
                // HCL 1 reads it: so do the CLIs (CFG-12).
                Ok(items) => (hcl1_entries(path, &items, diags), Some(items)),
                Err(e1) => {
                    let message = match e1.pos {
                        // OpenTofu's own words, which say where.
                        None => e1.message,
                        Some(_) => format!(
                            "line {}, column {}: {}",
                            at.line(),
                            at.column(),
                            e.message()
                        ),
                    };
                    diags.push(
                        Diagnostic::error(format!("Error parsing {}: {message}", path.display()))
                            .at(path, Some(at.line())),
                    );
                    (Vec::new(), None)
                }
            };
        }
    };
    let mut entries = Vec::new();
    let mut lines = Lines::default();
    let mut installation = false;
    for structure in body {
        let line = structure.span().map(|span| lines.line_of(text, span.start));
        let structure = hcl::Structure::from(structure);
        let (key, labels) = match &structure {
            hcl::Structure::Attribute(a) => (a.key(), None),
            hcl::Structure::Block(b) => (b.identifier(), Some(b.labels().len())),
        };
        installation |= needs_tree(key, dialect);
        if !is_read(key) {
            continue;
        }
        if let Some(problem) = label_problem(path, key, labels, line) {
            diags.push(problem);
            continue;
        }
        match literal::from_structure(&structure) {
            Ok((key, value)) => entries.push((key, value, line)),
            Err(attr) => diags.push(line_problem(
                path,
                line,
                format!("the value of {attr} is not a literal value"),
            )),
        }
    }
    let tree = installation
        .then(|| match hcl1() {
            Ok(items) => Some(items),
            Err(e) => {
                diags.push(
                    Diagnostic::error(format!("Error parsing {}: {e}", path.display()))
                        .at(path, e.pos.map(|p| p.line)),
                );
                None
            }
        })
        .flatten();
    (entries, tree)
}

/// The entries that matter here of a file only HCL 1 reads (CFG-12), with
/// the checks `hcl_entries` makes.
fn hcl1_entries(path: &Path, items: &[hcl1::Item], diags: &mut Vec<Diagnostic>) -> Entries {
    let mut entries = Vec::new();
    for item in items {
        let key = item.keys[0].text.as_str();
        if !is_read(key) {
            continue;
        }
        let line = Some(item.pos().line);
        let labels = (!item.assign).then(|| item.keys.len() - 1);
        if let Some(problem) = label_problem(path, key, labels, line) {
            diags.push(problem);
            continue;
        }
        let (key, value) = item.to_entry();
        entries.push((key, value, line));
    }
    entries
}

fn line_problem(path: &Path, line: Option<usize>, what: String) -> Diagnostic {
    Diagnostic::error(format!(
        "Error parsing {}: line {}: {what}",
        path.display(),
        line.unwrap_or(0)
    ))
    .at(path, line)
}

/// A block with the wrong number of labels (`None`: an attribute).
fn label_problem(
    path: &Path,
    key: &str,
    labels: Option<usize>,
    line: Option<usize>,
) -> Option<Diagnostic> {
    let (label, labels_wanted) = match BLOCK_KINDS.iter().find(|(k, _)| *k == key) {
        Some((_, label)) => (*label, 1),
        None => ("no label", 0),
    };
    if labels.is_none_or(|n| n == labels_wanted) {
        return None;
    }
    let wanted = match labels_wanted {
        1 => format!("exactly one label, {label}"),
        _ => label.to_owned(),
    };
    Some(line_problem(
        path,
        line,
        format!("a {key} block needs {wanted}"),
    ))
}

/// `{label: body, …}` or, as HCL 1 may hand it, `[{label: body}, …]`.
fn labelled(value: &Lit) -> Option<Vec<(String, Lit)>> {
    match value {
        Lit::Object(entries) => Some(entries.clone()),
        Lit::Array(items) => {
            let mut all = Vec::new();
            for item in items {
                let Lit::Object(entries) = item else {
                    return None;
                };
                all.extend(entries.iter().cloned());
            }
            Some(all)
        }
        _ => None,
    }
}

/// A block body: an object, or HCL 1's list of objects (merged).
fn object(value: &Lit) -> Option<Lit> {
    labelled(value).map(Lit::Object)
}

fn services(body: &Lit) -> Option<Vec<(String, Value)>> {
    match body.get("services") {
        None | Some(Lit::Null) => Some(Vec::new()),
        Some(services) => Some(
            labelled(services)?
                .into_iter()
                .map(|(id, value)| (id, value.into_json()))
                .collect(),
        ),
    }
}

fn args(body: &Lit) -> Option<Vec<String>> {
    match body.get("args") {
        None | Some(Lit::Null) => Some(Vec::new()),
        Some(Lit::Array(items)) => items
            .iter()
            .map(|item| match item {
                Lit::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        Some(_) => None,
    }
}

/// Line numbers of increasing offsets, counted from the last one asked
/// for: counting from the start for every block made a file of thousands
/// of blocks take time quadratic in its length.
#[derive(Default)]
struct Lines {
    offset: usize,
    newlines: usize,
}

impl Lines {
    fn line_of(&mut self, text: &str, offset: usize) -> usize {
        let end = offset.min(text.len());
        if end < self.offset {
            *self = Lines::default();
        }
        self.newlines += text.as_bytes()[self.offset..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = end;
        self.newlines + 1
    }
}

/// Entries in the order first seen, each replaced whole by a later one of
/// the same key. The index keeps merging linear: a file of 16 000
/// `credentials` blocks took seconds with a search per block.
struct Merged<K, T> {
    items: Vec<T>,
    index: HashMap<K, usize>,
}

impl<K: Eq + Hash, T> Merged<K, T> {
    fn new() -> Merged<K, T> {
        Merged {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn put(&mut self, key: K, item: T) {
        match self.index.entry(key) {
            hash_map::Entry::Occupied(slot) => self.items[*slot.get()] = item,
            hash_map::Entry::Vacant(slot) => {
                slot.insert(self.items.len());
                self.items.push(item);
            }
        }
    }
}

/// Adds `entry` to `merged`, replacing an entry of the same name whole.
fn put<T>(merged: &mut Merged<String, Located<T>>, file: &Path, entry: Entry<T>) {
    let located = Located {
        name: entry.name,
        file: file.to_owned(),
        line: entry.line,
        value: entry.value,
    };
    merged.put(located.name.clone(), located);
}

/// Merges parsed files in order (later wins per block name), then validates
/// the hostnames (docs/behaviour.md, CFG-5), the number of helpers (CFG-7)
/// and of `provider_installation` blocks, and checks the first of those
/// (INST-1).
pub(crate) fn merge(
    files: Vec<ParsedFile>,
    mut diagnostics: Vec<Diagnostic>,
    dialect: Dialect,
) -> CliConfig {
    let mut credentials = Merged::new();
    let mut hosts = Merged::new();
    let mut helpers = Merged::new();
    let mut paths = Vec::new();
    let mut installation_blocks = Vec::new();
    let mut plugin_cache_dir = None;
    let mut module_cache_dir = None;
    let mut plugin_cache_may_break = false;
    let mut oci = OciBlocks::default();
    for file in files {
        installation_blocks.extend(file.installation);
        oci.defaults.extend(file.oci.defaults);
        oci.credentials.extend(file.oci.credentials);
        // A later file's directory replaces an earlier one's; the flag is
        // set by any file (as Go merges them).
        plugin_cache_dir = file.plugin_cache_dir.or(plugin_cache_dir);
        module_cache_dir = file.module_cache_dir.or(module_cache_dir);
        plugin_cache_may_break |= file.plugin_cache_may_break;
        for entry in file.credentials {
            put(&mut credentials, &file.path, entry);
        }
        for entry in file.hosts {
            put(&mut hosts, &file.path, entry);
        }
        for entry in file.helpers {
            put(&mut helpers, &file.path, entry);
        }
        paths.push(file.path);
    }

    let mut config = CliConfig {
        files: paths,
        dialect,
        plugin_cache_dir,
        module_cache_dir,
        plugin_cache_may_break,
        ..CliConfig::default()
    };
    if let Some(second) = installation_blocks.get(1) {
        diagnostics.push(
            Diagnostic::error("No more than one provider_installation block may be specified")
                .at(second.file(), Some(second.line())),
        );
    }
    config.installation = installation_blocks
        .first()
        .map(|first| provider_installation::explicit(first, dialect, &mut diagnostics));
    config.installation_blocks = installation_blocks;
    config.hosts = merge_by_host("host", hosts.items, &mut diagnostics, |host, entry| {
        HostBlock {
            host,
            name: entry.name,
            file: entry.file,
            line: entry.line,
            services: entry.value,
        }
    });
    config.credentials = merge_by_host(
        "credentials",
        credentials.items,
        &mut diagnostics,
        |host, entry| CredentialsBlock {
            host,
            name: entry.name,
            file: entry.file,
            line: entry.line,
            token: entry.value,
        },
    );
    let helpers = helpers.items;
    if let Some(second) = helpers.get(1) {
        diagnostics.push(
            Diagnostic::error("No more than one credentials_helper block may be specified")
                .at(&second.file, second.line),
        );
    }
    config.helper = helpers.into_iter().next().map(|entry| HelperBlock {
        kind: entry.name,
        args: entry.value,
        file: entry.file,
        line: entry.line,
        executable: None,
    });
    oci_decode::validate(&oci, &mut diagnostics);
    config.oci = oci;
    config.diagnostics = diagnostics;
    config
}

/// The `kind` blocks whose label is a valid host, each made by `block`,
/// merged by host.
fn merge_by_host<T, B>(
    kind: &str,
    entries: Vec<Located<T>>,
    diags: &mut Vec<Diagnostic>,
    block: impl Fn(Hostname, Located<T>) -> B,
) -> Vec<B> {
    let mut merged = Merged::new();
    for entry in entries {
        let Some(host) = valid_host(kind, &entry, diags) else {
            continue;
        };
        merged.put(host.clone(), block(host, entry));
    }
    merged.items
}

fn valid_host<T>(kind: &str, entry: &Located<T>, diags: &mut Vec<Diagnostic>) -> Option<Hostname> {
    match Hostname::parse(&entry.name) {
        Ok(host) => Some(host),
        Err(e) => {
            diags.push(
                Diagnostic::error(format!(
                    "The {kind} {} block has an invalid hostname: {}",
                    go_quote(&entry.name),
                    e.kind()
                ))
                .at(&entry.file, entry.line),
            );
            None
        }
    }
}
