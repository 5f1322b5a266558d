//! One module: its files merged as Go's `NewModule` merges them (primary
//! files, then override files), and the providers it requires as
//! `Config.addProviderRequirements` finds them (docs/behaviour.md, TFCFG-2
//! to TFCFG-5).

use std::collections::HashMap;
use std::hash::Hash;
use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, ProviderSource, go_quote};

use super::constraint_syntax;
use super::items::{
    EntryValue, Field, Items, Line, Mode, ModuleCall, ProviderBlock, RequiredProvidersBlock,
    ResourceBlock,
};
use super::{OriginKind, ProviderOrigin};
use crate::Diagnostic;

/// One file's items and name.
pub(super) struct ParsedFile {
    pub(super) path: PathBuf,
    pub(super) items: Items,
    pub(super) is_override: bool,
}

/// A located item: the file it is in, and the line.
#[derive(Clone)]
struct At<T> {
    file: PathBuf,
    line: Line,
    item: T,
}

/// One provider requirement of a module.
pub(super) struct Requirement {
    pub(super) source: ProviderSource,
    /// The version constraints, as written.
    pub(super) constraints: Option<String>,
    pub(super) origin: ProviderOrigin,
}

/// A module call, with the file it is in.
pub(super) struct Call {
    pub(super) name: String,
    pub(super) source: Option<String>,
    pub(super) version: Option<String>,
    pub(super) file: PathBuf,
    pub(super) line: Line,
}

/// A module's requirements and calls.
pub(super) struct Module {
    pub(super) requirements: Vec<Requirement>,
    pub(super) calls: Vec<Call>,
}

/// A `required_providers` entry that was read.
struct Required {
    source: ProviderSource,
    constraints: Option<String>,
}

pub(super) fn assemble(
    dialect: Dialect,
    module_path: &str,
    files: Vec<ParsedFile>,
    diags: &mut Vec<Diagnostic>,
) -> Module {
    let mut asm = Assembler {
        dialect,
        module: module_path.to_owned(),
        diags,
    };
    let (primary, overrides): (Vec<_>, Vec<_>) = files.into_iter().partition(|f| !f.is_override);

    // required_providers: one block among the primary files; override
    // files replace entries by name.
    let mut required: Vec<At<(String, Required)>> = Vec::new();
    let mut first_block: Option<(PathBuf, Line)> = None;
    for file in &primary {
        for block in &file.items.required_providers {
            if let Some((path, line)) = &first_block {
                let detail = format!(
                    "A module may have only one required providers configuration. The required providers were previously configured at {}:{}.",
                    path.display(),
                    line.unwrap_or(0)
                );
                asm.error(
                    &file.path,
                    block.line,
                    "Duplicate required providers configuration",
                    detail,
                );
                continue;
            }
            first_block = Some((file.path.clone(), block.line));
            required.extend(asm.required_block(&file.path, block));
        }
    }
    let mut required_index: HashMap<String, usize> = required
        .iter()
        .enumerate()
        .map(|(i, r)| (r.item.0.clone(), i))
        .collect();
    for file in &overrides {
        for block in &file.items.required_providers {
            for entry in asm.required_block(&file.path, block) {
                match required_index.get(&entry.item.0) {
                    Some(&i) => required[i] = entry,
                    None => {
                        required_index.insert(entry.item.0.clone(), required.len());
                        required.push(entry);
                    }
                }
            }
        }
    }
    let local: HashMap<String, ProviderSource> = required
        .iter()
        .map(|r| (r.item.0.clone(), r.item.1.source.clone()))
        .collect();

    let providers = asm.merge(&primary, &overrides, |items| &items.providers);
    let resources = asm.merge(&primary, &overrides, |items| &items.resources);
    let calls = asm.merge(&primary, &overrides, |items| &items.module_calls);

    let mut requirements = Vec::new();
    for r in &required {
        let (name, req) = &r.item;
        requirements.push(Requirement {
            source: req.source.clone(),
            constraints: req.constraints.clone(),
            origin: asm.origin(
                &r.file,
                r.line,
                OriginKind::RequiredProviders {
                    local_name: name.clone(),
                },
            ),
        });
    }
    for r in &resources {
        let res = &r.item;
        let implied = match &res.provider {
            Some(local_name) => asm.implied(local_name, &local),
            None => {
                let prefix = res.type_name.split('_').next().unwrap_or_default();
                asm.implied(prefix, &local)
            }
        };
        if let Some(source) = implied {
            requirements.push(Requirement {
                source,
                constraints: None,
                origin: asm.origin(
                    &r.file,
                    r.line,
                    OriginKind::Resource {
                        mode: res.mode.keyword(),
                        type_name: res.type_name.clone(),
                        name: res.name.clone(),
                    },
                ),
            });
        }
    }
    for p in &providers {
        if let Some(source) = asm.implied(&p.item.name, &local) {
            requirements.push(Requirement {
                source,
                constraints: p.item.version.clone(),
                origin: asm.origin(
                    &p.file,
                    p.line,
                    OriginKind::ProviderBlock {
                        local_name: p.item.name.clone(),
                    },
                ),
            });
        }
    }
    Module {
        requirements,
        calls: calls
            .into_iter()
            .map(|c| Call {
                name: c.item.name,
                source: c.item.source,
                version: c.item.version,
                file: c.file,
                line: c.line,
            })
            .collect(),
    }
}

struct Assembler<'a> {
    dialect: Dialect,
    module: String,
    diags: &'a mut Vec<Diagnostic>,
}

impl Assembler<'_> {
    fn error(&mut self, file: &Path, line: Line, summary: &str, detail: String) {
        self.diags
            .push(Diagnostic::with_detail(summary, detail).at(file, line));
    }

    fn origin(&self, file: &Path, line: Line, kind: OriginKind) -> ProviderOrigin {
        ProviderOrigin {
            module: self.module.clone(),
            kind,
            file: file.to_owned(),
            line,
        }
    }

    /// Go's `Module.ImpliedProviderForUnqualifiedType`: the module's own
    /// `required_providers` entry for the local name, else `hashicorp/NAME`
    /// on the dialect's registry, or `terraform.io/builtin/terraform`. A
    /// name that is not a valid provider type implies nothing.
    fn implied(
        &self,
        name: &str,
        local: &HashMap<String, ProviderSource>,
    ) -> Option<ProviderSource> {
        if let Some(source) = local.get(name) {
            return Some(source.clone());
        }
        let part = ProviderSource::normalize_part(name).ok()?;
        if part == "terraform" {
            return ProviderSource::from_parts(
                "terraform.io",
                "builtin",
                "terraform",
                self.dialect,
            )
            .ok();
        }
        ProviderSource::parse(&format!("hashicorp/{part}"), self.dialect).ok()
    }

    /// Go's `decodeRequiredProvidersBlock`.
    fn required_block(
        &mut self,
        file: &Path,
        block: &RequiredProvidersBlock,
    ) -> Vec<At<(String, Required)>> {
        let mut out = Vec::new();
        for entry in &block.entries {
            let name = entry.name.as_str();
            let line = entry.line;
            let at = |item| At {
                file: file.to_owned(),
                line,
                item: (name.to_owned(), item),
            };
            match &entry.value {
                EntryValue::Primitive(value) => {
                    let constraints = value.clone().unwrap_or_default();
                    if !self.constraints_ok(file, line, &constraints) {
                        continue;
                    }
                    let Ok(part) = ProviderSource::normalize_part(name) else {
                        self.invalid_name(file, line, name);
                        continue;
                    };
                    let Some(source) = self.implied(&part, &HashMap::new()) else {
                        self.invalid_name(file, line, name);
                        continue;
                    };
                    out.push(at(Required {
                        source,
                        constraints: Some(constraints),
                    }));
                }
                EntryValue::Object(fields) => {
                    match ProviderSource::normalize_part(name) {
                        Ok(normal) if normal == name => {}
                        Ok(normal) => {
                            let detail = format!(
                                "Provider names must be normalized. Replace {} with {} to fix this error.",
                                go_quote(name),
                                go_quote(&normal)
                            );
                            self.error(file, line, "Invalid provider local name", detail);
                            continue;
                        }
                        Err(e) => {
                            let detail = format!("{name} is an invalid provider local name: {e}");
                            self.error(file, line, "Invalid provider local name", detail);
                            continue;
                        }
                    }
                    if let Some(required) = self.object_entry(file, name, fields) {
                        out.push(at(required));
                    }
                }
                EntryValue::Other => self.error(
                    file,
                    line,
                    "Invalid required_providers object",
                    "required_providers entries must be strings or objects.".into(),
                ),
            }
        }
        out
    }

    fn invalid_name(&mut self, file: &Path, line: Line, name: &str) {
        let detail = match ProviderSource::normalize_part(name) {
            Err(e) => e.to_string(),
            Ok(_) => format!("{} is not a valid provider name", go_quote(name)),
        };
        self.error(file, line, "Invalid provider name", detail);
    }

    fn constraints_ok(&mut self, file: &Path, line: Line, constraints: &str) -> bool {
        if constraint_syntax::is_valid(constraints) {
            return true;
        }
        self.error(
            file,
            line,
            "Invalid version constraint",
            "This string does not use correct version constraint syntax.".into(),
        );
        false
    }

    fn object_entry(
        &mut self,
        file: &Path,
        name: &str,
        fields: &[(String, Field, Line)],
    ) -> Option<Required> {
        let mut source = None;
        let mut constraints = None;
        let mut ok = true;
        for (key, field, line) in fields {
            match (key.as_str(), field) {
                ("version", Field::String(v)) => {
                    if self.constraints_ok(file, *line, v) {
                        constraints = Some(v.clone());
                    } else {
                        ok = false;
                    }
                }
                ("source", Field::String(s)) => match ProviderSource::parse(s, self.dialect) {
                    Ok(parsed) => source = Some(parsed),
                    Err(e) => {
                        ok = false;
                        let message = e.to_string();
                        let (summary, detail) = message
                            .split_once(": ")
                            .unwrap_or(("Invalid provider source string", &message));
                        self.error(file, *line, summary, detail.to_owned());
                    }
                },
                ("version" | "source", _) => {
                    ok = false;
                    let (summary, name) = if key == "version" {
                        ("Invalid version constraint", "Version")
                    } else {
                        ("Invalid source", "Source")
                    };
                    let detail = format!("{name} must be specified as a string.");
                    self.error(file, *line, summary, detail);
                }
                ("configuration_aliases", _) => {}
                _ => {
                    self.error(
                        file,
                        *line,
                        "Invalid required_providers object",
                        "required_providers objects can only contain \"version\", \"source\" and \"configuration_aliases\" attributes. To configure a provider, use a \"provider\" block.".into(),
                    );
                    return None;
                }
            }
        }
        if !ok {
            return None;
        }
        let source = match source {
            Some(source) => source,
            None => self.implied(name, &HashMap::new())?,
        };
        Some(Required {
            source,
            constraints,
        })
    }

    /// The items `items` of every file (`provider` blocks, resources or
    /// module calls) merged as `NewModule` merges them: unique by key in
    /// the primary files, then each override file's merged into them.
    fn merge<T: Declared>(
        &mut self,
        primary: &[ParsedFile],
        overrides: &[ParsedFile],
        items: fn(&Items) -> &[T],
    ) -> Vec<At<T>> {
        let mut out: Vec<At<T>> = Vec::new();
        let mut index: HashMap<T::Key, usize> = HashMap::new();
        let at = |file: &ParsedFile, item: &T| At {
            file: file.path.clone(),
            line: item.line(),
            item: item.clone(),
        };
        for file in primary {
            for item in items(&file.items) {
                let key = item.key();
                if let Some(&i) = index.get(&key) {
                    let (summary, detail) = item.duplicate(&out[i]);
                    self.error(&file.path, item.line(), &summary, detail);
                    continue;
                }
                index.insert(key, out.len());
                out.push(at(file, item));
            }
        }
        for file in overrides {
            for item in items(&file.items).iter().filter(|i| i.overrides()) {
                let key = item.key();
                match index.get(&key) {
                    Some(&i) => item.merge_into(&mut out[i].item),
                    None => match item.missing_base() {
                        Some((summary, detail)) => {
                            self.error(&file.path, item.line(), summary, detail);
                        }
                        None => {
                            index.insert(key, out.len());
                            out.push(at(file, item));
                        }
                    },
                }
            }
        }
        out
    }
}

/// An item a module declares once in its primary files, by its key, and
/// override files change (`provider` blocks, resources, module calls).
trait Declared: Clone {
    type Key: Eq + Hash;

    fn key(&self) -> Self::Key;

    fn line(&self) -> Line;

    /// The error (summary, detail) of declaring it again, `first` being the
    /// first declaration.
    fn duplicate(&self, first: &At<Self>) -> (String, String);

    /// Whether it is merged from override files at all.
    fn overrides(&self) -> bool {
        true
    }

    /// This override merged into the declaration it overrides.
    fn merge_into(&self, base: &mut Self);

    /// The error (summary, detail) of an override with nothing to
    /// override; `None` when the override declares it instead.
    fn missing_base(&self) -> Option<(&'static str, String)>;
}

/// Unique by name and alias; an override replaces `version` when given.
impl Declared for ProviderBlock {
    type Key = (String, Option<String>);

    fn key(&self) -> Self::Key {
        (self.name.clone(), self.alias.clone())
    }

    fn line(&self) -> Line {
        self.line
    }

    fn duplicate(&self, first: &At<Self>) -> (String, String) {
        let previous = format!("{}:{}", first.file.display(), first.line.unwrap_or(0));
        let detail = match &first.item.alias {
            None => format!(
                "A default (non-aliased) provider configuration for {} was already given at {previous}. If multiple configurations are required, set the \"alias\" argument for alternative configurations.",
                go_quote(&self.name)
            ),
            Some(alias) => format!(
                "A provider configuration for {} with alias {} was already given at {previous}. Each configuration for the same provider must have a distinct alias.",
                go_quote(&self.name),
                go_quote(alias)
            ),
        };
        ("Duplicate provider configuration".to_owned(), detail)
    }

    fn merge_into(&self, base: &mut Self) {
        if self.version.is_some() {
            base.version = self.version.clone();
        }
    }

    fn missing_base(&self) -> Option<(&'static str, String)> {
        let alias = self.alias.as_deref()?;
        let detail = format!(
            "There is no {} provider configuration with the alias {}. An override file can only override an aliased provider configuration that was already defined in a primary configuration file.",
            self.name,
            go_quote(alias)
        );
        Some(("Missing base provider configuration for override", detail))
    }
}

/// Unique by mode, type and name; an override replaces `provider` when
/// given. Ephemeral resources are not overridden.
impl Declared for ResourceBlock {
    type Key = (Mode, String, String);

    fn key(&self) -> Self::Key {
        (self.mode, self.type_name.clone(), self.name.clone())
    }

    fn line(&self) -> Line {
        self.line
    }

    fn duplicate(&self, first: &At<Self>) -> (String, String) {
        let (what, kind) = match self.mode {
            Mode::Managed => ("resource", "resource"),
            Mode::Data => ("data", "data resource"),
            Mode::Ephemeral => ("ephemeral", "ephemeral resource"),
        };
        let detail = format!(
            "A {} {kind} named {} was already declared at {}:{}. Resource names must be unique per type in each module.",
            self.type_name,
            go_quote(&self.name),
            first.file.display(),
            first.line.unwrap_or(0)
        );
        let summary = format!(
            "Duplicate {what} {} configuration",
            go_quote(&self.type_name)
        );
        (summary, detail)
    }

    fn overrides(&self) -> bool {
        self.mode != Mode::Ephemeral
    }

    fn merge_into(&self, base: &mut Self) {
        if self.provider.is_some() {
            base.provider = self.provider.clone();
        }
    }

    fn missing_base(&self) -> Option<(&'static str, String)> {
        let (summary, what, block) = match self.mode {
            Mode::Data => ("Missing data resource to override", "data resource", "data"),
            _ => ("Missing resource to override", "resource", "resource"),
        };
        let detail = format!(
            "There is no {} {what} named {}. An override file can only override a {block} block defined in a primary configuration file.",
            self.type_name,
            go_quote(&self.name)
        );
        Some((summary, detail))
    }
}

/// Unique by name; an override replaces `source` when given.
impl Declared for ModuleCall {
    type Key = String;

    fn key(&self) -> Self::Key {
        self.name.clone()
    }

    fn line(&self) -> Line {
        self.line
    }

    fn duplicate(&self, first: &At<Self>) -> (String, String) {
        let detail = format!(
            "A module call named {} was already defined at {}:{}. Module calls must have unique names within a module.",
            go_quote(&self.name),
            first.file.display(),
            first.line.unwrap_or(0)
        );
        ("Duplicate module call".to_owned(), detail)
    }

    fn merge_into(&self, base: &mut Self) {
        if self.source.is_some() {
            base.source = self.source.clone();
        }
        if self.version.is_some() {
            base.version = self.version.clone();
        }
    }

    fn missing_base(&self) -> Option<(&'static str, String)> {
        let detail = format!(
            "There is no module call named {}. An override file can only override a module call that was defined in a primary configuration file.",
            go_quote(&self.name)
        );
        Some(("Missing module call to override", detail))
    }
}
