//! The CLI configuration's `provider_installation` block (docs/behaviour.md,
//! INST-1, INST-2, INST-8, INST-10, INST-11): read from the HCL 1 tree
//! (`hcl1.rs`) as both CLIs decode it, every diagnostic in their words, and
//! the first block turned into the core's [`ProviderInstallation`].

use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, Env, NetworkMirror, ProviderSource, go_clean, go_quote};
use tfdisco_provider::{
    DevOverride, InstallationMethod, MethodKind, ProviderInstallation, ProviderPattern,
};

use crate::Diagnostic;
use crate::hcl1::{self, Item, Literal, Node, Pos};
use crate::oci_template;
use crate::registry_settings::{go_atoi, saturating_u32};

/// The variable OpenTofu reads for the retries of a provider download.
pub const PROVIDER_DOWNLOAD_RETRY_VAR: &str = "TF_PROVIDER_DOWNLOAD_RETRY";

/// OpenTofu's retries of a provider package download (INST-11): the
/// method's `download_retry_count` when set (0 turns retries off), else
/// `TF_PROVIDER_DOWNLOAD_RETRY` when Go's `strconv.Atoi` reads an integer
/// above 0, else 2. Attempts are retries + 1.
///
/// ```
/// use tfdisco_config::{Env, download_retries};
///
/// assert_eq!(download_retries(None, &Env::empty()), 2);
/// let env = Env::empty().with_var("TF_PROVIDER_DOWNLOAD_RETRY", "7");
/// assert_eq!(download_retries(None, &env), 7);
/// assert_eq!(download_retries(Some(0), &env), 0);
/// ```
pub fn download_retries(configured: Option<u32>, env: &Env) -> u32 {
    configured.unwrap_or_else(|| {
        env.var(PROVIDER_DOWNLOAD_RETRY_VAR)
            .and_then(|v| v.to_str())
            .and_then(go_atoi)
            .filter(|&n| n > 0)
            .map_or(2, saturating_u32)
    })
}

/// One `provider_installation` block as written, before its methods are
/// checked (Go's `cliconfig.ProviderInstallation`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationBlock {
    file: PathBuf,
    line: usize,
    column: usize,
    methods: Vec<MethodBlock>,
    dev_overrides: Vec<DevOverride>,
}

impl InstallationBlock {
    /// The file the block is in.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The line of its `provider_installation` keyword.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column (from 1, in characters) of its keyword.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The methods decoded, in the order written: their priority.
    pub fn methods(&self) -> &[MethodBlock] {
        &self.methods
    }

    /// The `dev_overrides` entries that are valid, in the order written (a
    /// provider named twice keeps its last directory).
    pub fn dev_overrides(&self) -> &[DevOverride] {
        &self.dev_overrides
    }
}

/// One installation method as written: its arguments unchecked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodBlock {
    name: &'static str,
    location: Option<String>,
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    download_retry_count: Option<u32>,
    trust_all_hashes: Option<bool>,
    line: usize,
    column: usize,
}

impl MethodBlock {
    /// `direct`, `filesystem_mirror`, `network_mirror` or `oci_mirror`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// `path`, `url` or `repository_template` as written; `None` for
    /// `direct`.
    pub fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }

    /// The `include` patterns as written; `None` when not set.
    pub fn include(&self) -> Option<&[String]> {
        self.include.as_deref()
    }

    /// The `exclude` patterns as written; `None` when not set.
    pub fn exclude(&self) -> Option<&[String]> {
        self.exclude.as_deref()
    }

    /// OpenTofu's `download_retry_count` (`direct`, `network_mirror`).
    pub fn download_retry_count(&self) -> Option<u32> {
        self.download_retry_count
    }

    /// OpenTofu's `trust_all_hashes` (`network_mirror`).
    pub fn trust_all_hashes(&self) -> Option<bool> {
        self.trust_all_hashes
    }

    /// The line of the method's keyword.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column of the method's keyword.
    pub fn column(&self) -> usize {
        self.column
    }
}

/// What decoding depends on.
pub(crate) struct Context<'a> {
    pub(crate) dialect: Dialect,
    pub(crate) env: &'a Env,
    pub(crate) path: &'a Path,
    pub(crate) json: bool,
}

const BLOCK: &str = "provider_installation";

impl Context<'_> {
    fn diag(&self, summary: &str, detail: String, pos: Pos) -> Diagnostic {
        Diagnostic::with_detail(summary, detail).at(self.path, Some(pos.line))
    }

    fn block_problem(&self, detail: String, pos: Pos) -> Diagnostic {
        self.diag("Invalid provider_installation block", detail, pos)
    }

    fn method_problem(&self, detail: String, pos: Pos) -> Diagnostic {
        self.diag("Invalid provider_installation method block", detail, pos)
    }
}

/// The `provider_installation` blocks among a file's top-level items, in
/// order, as both CLIs decode them (INST-1, INST-2): a block introduced
/// with `=` (or not an object) is skipped; a labelled block or method is
/// reported and still read; an unknown, malformed or incomplete method is
/// skipped; a block keeps the methods that are valid.
pub(crate) fn decode(
    items: &[Item],
    ctx: &Context<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<InstallationBlock> {
    let mut blocks = Vec::new();
    for item in items.iter().filter(|i| i.keys[0].text == BLOCK) {
        let pos = item.pos();
        if !ctx.json {
            if item.assign {
                diags.push(ctx.block_problem(
                    format!(
                        "The provider_installation block at {pos} must not be introduced with \
                         an equals sign."
                    ),
                    pos,
                ));
                continue;
            }
            if item.keys.len() > 1 {
                diags.push(ctx.block_problem(
                    format!("The provider_installation block at {pos} must not have any labels."),
                    pos,
                ));
            }
        }
        if ctx.json && item.keys.len() > 1 {
            // HCL 1 flattened it: say so, the CLIs do not (INST-2).
            diags.push(
                Diagnostic::warning(
                    "A provider_installation method was read as a label",
                    Some(format!(
                        "The provider_installation member at {pos} holds nothing but objects, \
                         so HCL 1, as Terraform and OpenTofu use it, reads {} as a label of the \
                         block, not as an installation method. Write each method as a list of \
                         objects, such as \"direct\": [{{}}].",
                        go_quote(&item.keys[1].text)
                    )),
                )
                .at(ctx.path, Some(pos.line)),
            );
        }
        let Node::Object(methods, _) = &item.value else {
            diags.push(ctx.block_problem(
                format!(
                    "The provider_installation block at {pos} must not be introduced with an \
                     equals sign."
                ),
                pos,
            ));
            continue;
        };
        let mut block = InstallationBlock {
            file: ctx.path.to_owned(),
            line: pos.line,
            column: pos.column,
            methods: Vec::new(),
            dev_overrides: Vec::new(),
        };
        for method in methods {
            decode_method(method, pos, ctx, &mut block, diags);
        }
        blocks.push(block);
    }
    blocks
}

fn decode_method(
    method: &Item,
    block_pos: Pos,
    ctx: &Context<'_>,
    block: &mut InstallationBlock,
    diags: &mut Vec<Diagnostic>,
) {
    let pos = method.pos();
    if !ctx.json {
        if method.assign {
            diags.push(ctx.method_problem(
                format!(
                    "The items inside the provider_installation block at {block_pos} must all \
                     be blocks."
                ),
                pos,
            ));
            return;
        }
        if method.keys.len() > 1 {
            diags.push(ctx.method_problem(
                format!(
                    "The blocks inside the provider_installation block at {block_pos} may not \
                     have any labels."
                ),
                pos,
            ));
        }
    }
    let Node::Object(body, open) = &method.value else {
        diags.push(ctx.method_problem(
            format!(
                "The items inside the provider_installation block at {block_pos} must all be \
                 blocks."
            ),
            pos,
        ));
        return;
    };
    let name = method.keys[0].text.as_str();
    let tofu = ctx.dialect == Dialect::OpenTofu;
    let invalid = |detail: String| {
        ctx.method_problem(
            format!("Invalid {name} block at {block_pos}: {detail}."),
            pos,
        )
    };
    let (name, location_key): (&'static str, Option<&str>) = match name {
        "direct" => ("direct", None),
        "filesystem_mirror" => ("filesystem_mirror", Some("path")),
        "network_mirror" => ("network_mirror", Some("url")),
        "oci_mirror" if tofu => ("oci_mirror", Some("repository_template")),
        "dev_overrides" => {
            if !block.methods.is_empty() {
                let at = if tofu { "at at" } else { "at" };
                diags.push(ctx.method_problem(
                    format!(
                        "The dev_overrides block {at} {pos} must appear before all other \
                         installation methods, because development overrides always have the \
                         highest priority."
                    ),
                    pos,
                ));
                return;
            }
            dev_overrides(body, block_pos, ctx, block, diags);
            return;
        }
        other => {
            diags.push(ctx.method_problem(
                format!(
                    "Unknown provider installation method {} at {pos}.",
                    go_quote(other)
                ),
                pos,
            ));
            return;
        }
    };
    // OpenTofu reports the OCI mirror's problems at its body's `{`.
    let oci = name == "oci_mirror";
    let oci_problem = |detail: String| {
        ctx.diag(
            "Invalid provider_installation method block",
            format!("Invalid oci_mirror block at {open}: {detail}."),
            *open,
        )
    };
    let fail = |detail: String| {
        if oci {
            oci_problem(detail)
        } else {
            invalid(detail)
        }
    };
    let args = Args(body);
    let decoded = (|| {
        let location = match location_key {
            Some(key) => args.string(key)?,
            None => None,
        };
        let include = args.strings("include")?;
        let exclude = args.strings("exclude")?;
        let retries = match name {
            "direct" | "network_mirror" if tofu => args.count("download_retry_count")?,
            _ => None,
        };
        let trust = match name {
            "network_mirror" if tofu => args.boolean("trust_all_hashes")?,
            _ => None,
        };
        Ok::<_, String>((location, include, exclude, retries, trust))
    })();
    let (location, include, exclude, download_retry_count, trust_all_hashes) = match decoded {
        Ok(decoded) => decoded,
        Err(e) => {
            diags.push(fail(e));
            return;
        }
    };
    if let Some(key) = location_key
        && location.as_deref().is_none_or(str::is_empty)
    {
        diags.push(fail(format!("{} argument is required", go_quote(key))));
        return;
    }
    if oci {
        let template = location.as_deref().unwrap_or_default();
        let patterns = include.clone().unwrap_or_default();
        if let Err(detail) = oci_template::check(template, &patterns, ctx.dialect) {
            diags.push(ctx.diag(
                "Invalid oci_mirror repository template",
                format!("Invalid oci_mirror block at {open}: {detail}."),
                *open,
            ));
            return;
        }
    }
    block.methods.push(MethodBlock {
        name,
        location,
        include,
        exclude,
        download_retry_count,
        trust_all_hashes,
        line: pos.line,
        column: pos.column,
    });
}

/// `dev_overrides { "<provider>" = "<dir>" … }` (INST-8).
fn dev_overrides(
    body: &[Item],
    block_pos: Pos,
    ctx: &Context<'_>,
    block: &mut InstallationBlock,
    diags: &mut Vec<Diagnostic>,
) {
    let mut entries = Vec::new();
    for item in body {
        let value = match &item.value {
            Node::Literal(lit, _) if item.keys.len() == 1 => lit.as_text(),
            _ => None,
        };
        let Some(value) = value else {
            diags.push(ctx.method_problem(
                format!(
                    "Invalid dev_overrides block at {block_pos}: the value of {} must be a \
                     string, not {}.",
                    go_quote(&item.keys[0].text),
                    item.value.kind()
                ),
                item.pos(),
            ));
            return;
        };
        entries.push((&item.keys[0].text, value, item.pos()));
    }
    for (key, raw, pos) in entries {
        let provider = match ProviderSource::parse(key, ctx.dialect) {
            Ok(p) => p,
            Err(e) => {
                diags.push(ctx.diag(
                    "Invalid provider installation dev overrides",
                    format!(
                        "The entry {} in {block_pos} is not a valid provider source \
                         string.\n\n{e}",
                        go_quote(key)
                    ),
                    pos,
                ));
                continue;
            }
        };
        let dir = match ctx.dialect {
            Dialect::Terraform => go_expand(&raw, |name| match ctx.env.var(name) {
                Some(v) => v.to_string_lossy().into_owned(),
                None => {
                    let diag = Diagnostic::with_detail(
                        "Interpolated environment variable not set",
                        format!(
                            "The environment variable {name} is not set or empty and can \
                                 result in undesired behavior"
                        ),
                    )
                    .at(ctx.path, Some(pos.line));
                    if !diags.contains(&diag) {
                        diags.push(diag);
                    }
                    String::new()
                }
            }),
            Dialect::OpenTofu => raw,
        };
        let dir = PathBuf::from(go_clean(&dir));
        block.dev_overrides.retain(|o| o.provider != provider);
        block.dev_overrides.push(DevOverride { provider, dir });
    }
}

/// A method's arguments, read as HCL 1's decoder reads them into a struct:
/// names compared without case, unknown ones ignored, the last of a
/// repeated one used.
struct Args<'a>(&'a [Item]);

impl Args<'_> {
    fn get(&self, key: &str) -> Option<&Node> {
        let arguments = self.0.iter().filter(|i| i.keys.len() == 1);
        hcl1::last_named(arguments, key).map(|i| &i.value)
    }

    /// A string; numbers and bools as written.
    fn string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Node::Literal(lit, _)) => Ok(lit.as_text()),
            Some(other) => Err(format!("{key} must be a string, not {}", other.kind())),
        }
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Node::List(items, _)) => hcl1::strings(items)
                .map(Some)
                .ok_or_else(|| format!("{key} must be a list of strings")),
            Some(other) => Err(format!(
                "{key} must be a list of strings, not {}",
                other.kind()
            )),
        }
    }

    /// A whole number, 0 or more (a number, or a string that is one).
    fn count(&self, key: &str) -> Result<Option<u32>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Node::Literal(Literal::Number(n) | Literal::String(n), _))
                if n.parse::<u32>().is_ok() =>
            {
                Ok(n.parse().ok())
            }
            Some(_) => Err(format!("{key} must be a whole number, 0 or more")),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Node::Literal(Literal::Bool(b), _)) => Ok(Some(*b)),
            Some(Node::Literal(Literal::String(s), _)) => Literal::parse_bool(s)
                .map(Some)
                .ok_or_else(|| format!("{key} must be a bool")),
            Some(_) => Err(format!("{key} must be a bool")),
        }
    }
}

/// Go's `os.Expand`: `$NAME` (letters, digits, `_`), `${NAME}` (anything
/// up to `}`) and the shell's one-character names (`$1`, `$*`, …) replaced
/// by `value(name)`; `${` without `}` and `${}` dropped; a `$` before
/// anything else kept.
pub(crate) fn go_expand(text: &str, mut value: impl FnMut(&str) -> String) -> String {
    let special = |c: u8| b"*#$@!?-0123456789".contains(&c);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut j = 0;
    while j < bytes.len() {
        if bytes[j] != b'$' || j + 1 >= bytes.len() {
            j += 1;
            continue;
        }
        out.push_str(&text[copied..j]);
        let rest = &text[j + 1..];
        let r = rest.as_bytes();
        // (name, bytes after the `$` taken)
        let (name, width): (&str, usize) = if r[0] == b'{' {
            if r.len() > 2 && special(r[1]) && r[2] == b'}' {
                (&rest[1..2], 3)
            } else {
                match rest.find('}') {
                    Some(1) => ("", 2),
                    Some(i) => (&rest[1..i], i + 1),
                    None => ("", 1),
                }
            }
        } else if special(r[0]) {
            (&rest[..1], 1)
        } else {
            let n = r
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            (&rest[..n], n)
        };
        if name.is_empty() && width == 0 {
            out.push('$');
        } else if !name.is_empty() {
            out.push_str(&value(name));
        }
        j += width + 1;
        copied = j;
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// The first block as the CLIs use it (INST-1): each method's location
/// checked, then its `include`, then its `exclude` patterns; a method that
/// fails is left out with a diagnostic, the others kept.
pub(crate) fn explicit(
    block: &InstallationBlock,
    dialect: Dialect,
    diags: &mut Vec<Diagnostic>,
) -> ProviderInstallation {
    let mut methods = Vec::new();
    for method in &block.methods {
        let problem = |summary: &str, detail: String| {
            Diagnostic::with_detail(summary, detail).at(&block.file, Some(method.line))
        };
        let location = method.location.clone().unwrap_or_default();
        let kind = match method.name {
            "direct" => MethodKind::Direct {
                download_retry_count: method.download_retry_count,
            },
            "filesystem_mirror" => MethodKind::FilesystemMirror {
                path: PathBuf::from(&location),
            },
            "oci_mirror" => MethodKind::OciMirror {
                repository_template: location.clone(),
            },
            _ => match NetworkMirror::parse(&location) {
                Ok(mirror) => MethodKind::NetworkMirror {
                    mirror,
                    download_retry_count: method.download_retry_count,
                    trust_all_hashes: method.trust_all_hashes,
                },
                Err(e) => {
                    diags.push(problem(
                        "Invalid URL for provider installation source",
                        format!("{e}."),
                    ));
                    continue;
                }
            },
        };
        // `include`, then `exclude` (`what`: "inclusion", "exclusion").
        let patterns = |list: Option<&[String]>, what: &str| {
            ProviderPattern::parse_all(list.unwrap_or_default(), dialect).map_err(|e| {
                problem(
                    &format!("Invalid provider source {what} patterns"),
                    format!("CLI config specifies invalid provider {what} patterns: {e}."),
                )
            })
        };
        let parsed = patterns(method.include(), "inclusion").and_then(|include| {
            patterns(method.exclude(), "exclusion").map(|exclude| (include, exclude))
        });
        match parsed {
            Ok((include, exclude)) => {
                methods.push(InstallationMethod::new(kind, include, exclude));
            }
            Err(diag) => diags.push(diag),
        }
    }
    ProviderInstallation {
        methods,
        dev_overrides: block.dev_overrides.clone(),
        implied: false,
        found_locally: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_expand_semantics() {
        let env = |name: &str| format!("<{name}>");
        for (given, want) in [
            ("$HOME/x", "<HOME>/x"),
            ("${HOME}/x", "<HOME>/x"),
            ("${A B}", "<A B>"),
            ("$1x", "<1>x"),
            ("${*}", "<*>"),
            ("a$", "a$"),
            ("$/x", "$/x"),
            ("${}x", "x"),
            ("${x", "x"),
            ("no vars", "no vars"),
            ("$A$B", "<A><B>"),
        ] {
            assert_eq!(go_expand(given, env), want, "{given}");
        }
    }
}
