//! Reading `oci_default_credentials` and `oci_credentials` blocks from a
//! file's HCL 1 tree, and checking them across files (docs/behaviour.md,
//! OCICRED-1 to OCICRED-4). The messages are OpenTofu's; `POS` in them is
//! HCL 1's `line:column`.

use std::path::{Path, PathBuf};

use tfdisco_core::{go_clean, go_quote};

use super::blocks::{
    OciBlockCredentials, OciBlocks, OciCredentialsBlock, OciDefaultCredentialsBlock, Place,
};
use super::matching::parse_prefix;
use crate::Diagnostic;
use crate::hcl1::{self, Item, Literal, Node, Pos};

/// The top-level block names read here.
pub(crate) const CREDENTIALS: &str = "oci_credentials";
pub(crate) const DEFAULTS: &str = "oci_default_credentials";

const INVALID_CREDENTIALS: &str = "Invalid oci_credentials block";
const INVALID_DEFAULTS: &str = "Invalid oci_default_credentials block";

/// True for a top-level key that needs the HCL 1 tree.
pub(crate) fn is_oci_block(key: &str) -> bool {
    key == CREDENTIALS || key == DEFAULTS
}

/// A body's position as HCL 1 prints it: `line:column`, or `-` for a body
/// HCL 1 made up (the JSON unwrapping below), which has none.
#[derive(Clone, Copy)]
struct BodyPos(Option<Pos>);

impl std::fmt::Display for BodyPos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(pos) => pos.fmt(f),
            None => f.write_str("-"),
        }
    }
}

struct Reader<'a> {
    path: &'a Path,
    json: bool,
    diags: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    fn problem(&mut self, summary: &str, detail: String, line: usize) {
        self.diags
            .push(Diagnostic::with_detail(summary, detail).at(self.path, Some(line)));
    }
}

/// The OCI blocks among a file's top-level items: every
/// `oci_default_credentials` block first, then every `oci_credentials`
/// block, as OpenTofu decodes them (so their problems come in that order).
pub(crate) fn decode(
    items: &[Item],
    path: &Path,
    json: bool,
    diags: &mut Vec<Diagnostic>,
) -> OciBlocks {
    let mut reader = Reader { path, json, diags };
    let mut blocks = OciBlocks::default();
    for item in items.iter().filter(|i| i.keys[0].text == DEFAULTS) {
        if let Some(block) = default_block(item, &mut reader) {
            blocks.defaults.push(block);
        }
    }
    for item in items.iter().filter(|i| i.keys[0].text == CREDENTIALS) {
        if let Some(block) = credentials_block(item, &mut reader) {
            blocks.credentials.push(block);
        }
    }
    blocks
}

fn place(path: &Path, pos: Pos) -> Place {
    Place {
        file: path.to_owned(),
        line: pos.line,
        column: pos.column,
    }
}

fn default_block(item: &Item, r: &mut Reader<'_>) -> Option<OciDefaultCredentialsBlock> {
    let pos = item.pos();
    let line = pos.line;
    if item.assign && !r.json {
        r.problem(
            INVALID_DEFAULTS,
            format!("The oci_default_credentials block at {pos} must not be introduced with an equals sign."),
            line,
        );
        return None;
    }
    if item.keys.len() > 1 && !r.json {
        r.problem(
            INVALID_DEFAULTS,
            format!("The oci_default_credentials block at {pos} must not have any labels."),
            line,
        );
        return None;
    }
    let Node::Object(body, open) = &item.value else {
        r.problem(
            INVALID_DEFAULTS,
            format!(
                "The oci_default_credentials block at {pos} must be represented by a JSON object."
            ),
            line,
        );
        return None;
    };
    let at = BodyPos(Some(*open));
    let args = Args(body);
    let decoded = (|| {
        Ok::<_, String>((
            args.boolean("discover_ambient_credentials")?,
            args.strings("docker_style_config_files")?,
            args.string("docker_credentials_helper")?,
        ))
    })();
    let (discover, files, helper) = match decoded {
        Ok(decoded) => decoded,
        Err(e) => {
            r.problem(
                INVALID_DEFAULTS,
                format!("Invalid oci_default_credentials block at {at}: {e}."),
                line,
            );
            return None;
        }
    };
    let mut block = OciDefaultCredentialsBlock {
        place: place(r.path, pos),
        ..OciDefaultCredentialsBlock::default()
    };
    if let Some(discover) = discover {
        block.discover_ambient_credentials = discover;
    }
    if let Some(files) = files {
        let base = r.path.parent().unwrap_or(Path::new(""));
        block.docker_style_config_files =
            Some(files.iter().map(|f| absolute_in(base, f)).collect());
    }
    if let Some(helper) = helper {
        if valid_helper_name(&helper) {
            block.docker_credentials_helper = Some(helper);
        } else {
            r.problem(
                INVALID_DEFAULTS,
                format!(
                    "The oci_default_credentials block at {at} specifies the invalid Docker \
                     credential helper name {}. Must be a non-empty string that could be used \
                     as part of an executable filename.",
                    go_quote(&helper)
                ),
                line,
            );
        }
    }
    if !block.discover_ambient_credentials && block.docker_style_config_files.is_some() {
        r.problem(
            INVALID_DEFAULTS,
            format!(
                "The oci_default_credentials block at {at} disables discovery of ambient \
                 credentials, but also sets docker_style_config_files which is relevant only \
                 when ambient credentials discovery is enabled."
            ),
            line,
        );
    }
    // OpenTofu keeps the block, problems and all.
    Some(block)
}

/// `file` joined to `base` unless absolute, then made absolute and
/// cleaned, as Go's `filepath.Join` and `filepath.Abs` do (the process's
/// working directory is read only for a relative result).
fn absolute_in(base: &Path, file: &str) -> PathBuf {
    let joined = if Path::new(file).is_absolute() {
        PathBuf::from(file)
    } else {
        base.join(file)
    };
    let absolute = std::path::absolute(&joined).unwrap_or(joined);
    clean(&absolute)
}

/// Go's `filepath.Clean` on `/`-separated paths; other paths as they are.
pub(crate) fn clean(path: &Path) -> PathBuf {
    match path.to_str() {
        Some(text) if !cfg!(windows) => PathBuf::from(go_clean(text)),
        _ => path.to_owned(),
    }
}

/// OpenTofu's check of a helper name: not empty, no `/` (or the
/// system's separator).
pub(crate) fn valid_helper_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('/') && !name.contains(std::path::MAIN_SEPARATOR)
}

fn credentials_block(item: &Item, r: &mut Reader<'_>) -> Option<OciCredentialsBlock> {
    let (item, made_up) = if r.json {
        unwrap_json_keys(item)
    } else {
        (item.clone(), false)
    };
    let pos = item.pos();
    let line = pos.line;
    if item.keys.len() != 2 {
        r.problem(
            INVALID_CREDENTIALS,
            format!(
                "The oci_credentials block at {pos} must have one label, giving an OCI \
                 repository address prefix."
            ),
            line,
        );
        return None;
    }
    if item.assign && !r.json {
        r.problem(
            INVALID_CREDENTIALS,
            format!(
                "The oci_credentials block at {pos} must not be introduced with an equals sign."
            ),
            line,
        );
        return None;
    }
    let (body, at) = match &item.value {
        Node::Object(body, open) => (body, BodyPos((!made_up).then_some(*open))),
        _ => {
            r.problem(
                INVALID_CREDENTIALS,
                format!("The oci_credentials block at {pos} must be represented by a JSON object."),
                line,
            );
            return None;
        }
    };
    let label = item.keys[1].text.clone();
    let repository_path = match parse_prefix(&label) {
        Ok((_, path)) => path.to_owned(),
        Err(e) => {
            r.problem(
                INVALID_CREDENTIALS,
                format!("The oci_credentials block at {at} has an invalid block label: {e}."),
                line,
            );
            return None;
        }
    };
    let args = Args(body);
    let decoded = (|| {
        Ok::<_, String>([
            args.string("username")?,
            args.string("password")?,
            args.string("access_token")?,
            args.string("refresh_token")?,
            args.string("docker_credentials_helper")?,
        ])
    })();
    let [username, password, access_token, refresh_token, helper] = match decoded {
        Ok(decoded) => decoded,
        Err(e) => {
            r.problem(
                INVALID_CREDENTIALS,
                format!("Invalid oci_credentials block at {at}: {e}."),
                line,
            );
            return None;
        }
    };
    let basic = username.is_some() || password.is_some();
    let oauth = access_token.is_some() || refresh_token.is_some();
    let styles = [basic, oauth, helper.is_some()]
        .into_iter()
        .filter(|&set| set)
        .count();
    let detail = match styles {
        0 => Some(
            "must set either username+password, access_token+refresh_token, or docker_credentials_helper",
        ),
        1 => None,
        _ => Some(
            "must set only one group out of username+password, access_token+refresh_token, or docker_credentials_helper",
        ),
    };
    if let Some(detail) = detail {
        r.problem(
            INVALID_CREDENTIALS,
            format!("The oci_credentials block at {at} {detail}."),
            line,
        );
        return None;
    }
    let credentials = if basic {
        let (Some(username), Some(password)) = (username, password) else {
            r.problem(
                INVALID_CREDENTIALS,
                format!(
                    "The oci_credentials block at {at} must set both username and password \
                     together when using static credentials."
                ),
                line,
            );
            return None;
        };
        OciBlockCredentials::Basic { username, password }
    } else if oauth {
        let (Some(access_token), Some(refresh_token)) = (access_token, refresh_token) else {
            r.problem(
                INVALID_CREDENTIALS,
                format!(
                    "The oci_credentials block at {at} must set both access_token and \
                     refresh_token together when using OAuth-style credentials."
                ),
                line,
            );
            return None;
        };
        OciBlockCredentials::OAuth {
            access_token,
            refresh_token,
        }
    } else {
        let helper = helper.unwrap_or_default();
        let mut refused = false;
        if !repository_path.is_empty() {
            r.problem(
                INVALID_CREDENTIALS,
                format!(
                    "The oci_credentials block at {at} cannot set docker_credentials_helper \
                     with a repository path: credential helpers only support credentials for \
                     whole domains."
                ),
                line,
            );
            refused = true;
        }
        if !valid_helper_name(&helper) {
            r.problem(
                INVALID_CREDENTIALS,
                format!(
                    "The oci_credentials block at {at} specifies the invalid Docker credential \
                     helper name {}. Must be a non-empty string that could be used as part of \
                     an executable filename.",
                    go_quote(&helper)
                ),
                line,
            );
            refused = true;
        }
        if refused {
            return None;
        }
        OciBlockCredentials::DockerCredentialsHelper(helper)
    };
    Some(OciCredentialsBlock {
        label,
        credentials,
        place: place(r.path, pos),
    })
}

/// HCL 1's JSON reading turns nested objects into more keys
/// (`{"oci_credentials": {"a": {"b": {…}}}}` is one item with the keys
/// `oci_credentials`, `a`, `b`); OpenTofu folds the keys after the second
/// back into the body, a body without a position (true when it did).
fn unwrap_json_keys(item: &Item) -> (Item, bool) {
    let mut item = item.clone();
    let mut wrapped = false;
    while item.keys.len() > 2 {
        let key = item
            .keys
            .pop()
            .unwrap_or_else(|| unreachable!("more than two keys"));
        let inner = Item {
            keys: vec![key],
            assign: true,
            value: item.value,
        };
        item.value = Node::Object(vec![inner], Pos::default());
        wrapped = true;
    }
    (item, wrapped)
}

/// Checks across every file (OCICRED-4, OpenTofu's `Config.Validate`): at
/// most one `oci_default_credentials` block, and no label twice (compared
/// as written). Both blocks are kept, as OpenTofu keeps them.
pub(crate) fn validate(blocks: &OciBlocks, diags: &mut Vec<Diagnostic>) {
    if let Some(second) = blocks.defaults.get(1) {
        diags.push(
            Diagnostic::error("No more than one oci_default_credentials block may be specified")
                .at(second.file(), Some(second.line())),
        );
    }
    let mut seen = std::collections::HashSet::new();
    for block in &blocks.credentials {
        if !seen.insert(block.label.as_str()) {
            diags.push(
                Diagnostic::error(format!(
                    "Duplicate oci_credentials block for {}",
                    go_quote(&block.label)
                ))
                .at(block.file(), Some(block.line())),
            );
        }
    }
}

/// A block's arguments, read as HCL 1's decoder reads them into a struct
/// of optional fields: names compared without case, unknown ones ignored,
/// the last of a repeated one used, `null` as not set.
struct Args<'a>(&'a [Item]);

impl Args<'_> {
    /// The value of the argument `key`, or (`Err`) what HCL 1 calls the
    /// block of that name.
    fn get(&self, key: &str) -> Option<Result<&Node, &'static str>> {
        let item = hcl1::last_named(self.0.iter(), key)?;
        Some(if item.keys.len() > 1 {
            Err("a block")
        } else {
            Ok(&item.value)
        })
    }

    /// A string; numbers and bools as written.
    fn string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Ok(Node::Literal(lit, _))) => Ok(lit.as_text()),
            Some(other) => Err(format!("{key} must be a string, not {}", kind(other))),
        }
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        match self.get(key) {
            None | Some(Ok(Node::Literal(Literal::Null, _))) => Ok(None),
            Some(Ok(Node::List(items, _))) => hcl1::strings(items)
                .map(Some)
                .ok_or_else(|| format!("{key} must be a list of strings")),
            Some(other) => Err(format!(
                "{key} must be a list of strings, not {}",
                kind(other)
            )),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, String> {
        match self.get(key) {
            None | Some(Ok(Node::Literal(Literal::Null, _))) => Ok(None),
            Some(Ok(Node::Literal(Literal::Bool(b), _))) => Ok(Some(*b)),
            Some(Ok(Node::Literal(Literal::String(s), _))) => Literal::parse_bool(s)
                .map(Some)
                .ok_or_else(|| format!("{key} must be a bool")),
            Some(_) => Err(format!("{key} must be a bool")),
        }
    }
}

fn kind(value: Result<&Node, &'static str>) -> &'static str {
    value.map_or_else(|block| block, Node::kind)
}
