//! One module: its files merged as Go's `NewModule` merges them (primary
//! files, then override files), and the providers it requires as
//! `Config.addProviderRequirements` finds them (docs/behaviour.md, TFCFG-2
//! to TFCFG-5).

use std::collections::HashMap;
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

    let providers = asm.providers(&primary, &overrides);
    let resources = asm.resources(&primary, &overrides);
    let calls = asm.calls(&primary, &overrides);

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
                ("version", _) => {
                    ok = false;
                    self.error(
                        file,
                        *line,
                        "Invalid version constraint",
                        "Version must be specified as a string.".into(),
                    );
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
                ("source", _) => {
                    ok = false;
                    self.error(
                        file,
                        *line,
                        "Invalid source",
                        "Source must be specified as a string.".into(),
                    );
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

    /// `provider` blocks, unique by name and alias; override files merge
    /// into them (`version` replaced when given).
    fn providers(
        &mut self,
        primary: &[ParsedFile],
        overrides: &[ParsedFile],
    ) -> Vec<At<ProviderBlock>> {
        let mut out: Vec<At<ProviderBlock>> = Vec::new();
        let mut index: HashMap<(String, Option<String>), usize> = HashMap::new();
        for file in primary {
            for p in &file.items.providers {
                let key = (p.name.clone(), p.alias.clone());
                if let Some(existing) = index.get(&key).map(|&i| &out[i]) {
                    let previous =
                        format!("{}:{}", existing.file.display(), existing.line.unwrap_or(0));
                    let detail = match &existing.item.alias {
                        None => format!(
                            "A default (non-aliased) provider configuration for {} was already given at {previous}. If multiple configurations are required, set the \"alias\" argument for alternative configurations.",
                            go_quote(&p.name)
                        ),
                        Some(alias) => format!(
                            "A provider configuration for {} with alias {} was already given at {previous}. Each configuration for the same provider must have a distinct alias.",
                            go_quote(&p.name),
                            go_quote(alias)
                        ),
                    };
                    self.error(
                        &file.path,
                        p.line,
                        "Duplicate provider configuration",
                        detail,
                    );
                    continue;
                }
                index.insert(key, out.len());
                out.push(At {
                    file: file.path.clone(),
                    line: p.line,
                    item: p.clone(),
                });
            }
        }
        for file in overrides {
            for p in &file.items.providers {
                let key = (p.name.clone(), p.alias.clone());
                match index.get(&key) {
                    Some(&i) => {
                        if p.version.is_some() {
                            out[i].item.version = p.version.clone();
                        }
                    }
                    None if p.alias.is_none() => {
                        index.insert(key, out.len());
                        out.push(At {
                            file: file.path.clone(),
                            line: p.line,
                            item: p.clone(),
                        });
                    }
                    None => {
                        let detail = format!(
                            "There is no {} provider configuration with the alias {}. An override file can only override an aliased provider configuration that was already defined in a primary configuration file.",
                            p.name,
                            go_quote(p.alias.as_deref().unwrap_or_default())
                        );
                        self.error(
                            &file.path,
                            p.line,
                            "Missing base provider configuration for override",
                            detail,
                        );
                    }
                }
            }
        }
        out
    }

    /// Resources, unique by mode, type and name; override files may change
    /// their `provider`.
    fn resources(
        &mut self,
        primary: &[ParsedFile],
        overrides: &[ParsedFile],
    ) -> Vec<At<ResourceBlock>> {
        let mut out: Vec<At<ResourceBlock>> = Vec::new();
        let mut index: HashMap<(Mode, String, String), usize> = HashMap::new();
        for file in primary {
            for r in &file.items.resources {
                let key = (r.mode, r.type_name.clone(), r.name.clone());
                if let Some(&i) = index.get(&key) {
                    let e = &out[i];
                    let (what, kind) = match r.mode {
                        Mode::Managed => ("resource", "resource"),
                        Mode::Data => ("data", "data resource"),
                        Mode::Ephemeral => ("ephemeral", "ephemeral resource"),
                    };
                    let detail = format!(
                        "A {} {kind} named {} was already declared at {}:{}. Resource names must be unique per type in each module.",
                        r.type_name,
                        go_quote(&r.name),
                        e.file.display(),
                        e.line.unwrap_or(0)
                    );
                    let summary =
                        format!("Duplicate {what} {} configuration", go_quote(&r.type_name));
                    self.error(&file.path, r.line, &summary, detail);
                    continue;
                }
                index.insert(key, out.len());
                out.push(At {
                    file: file.path.clone(),
                    line: r.line,
                    item: r.clone(),
                });
            }
        }
        for file in overrides {
            for r in &file.items.resources {
                if r.mode == Mode::Ephemeral {
                    continue;
                }
                let key = (r.mode, r.type_name.clone(), r.name.clone());
                match index.get(&key) {
                    Some(&i) => {
                        if r.provider.is_some() {
                            out[i].item.provider = r.provider.clone();
                        }
                    }
                    None => {
                        let (summary, what, block) = match r.mode {
                            Mode::Data => {
                                ("Missing data resource to override", "data resource", "data")
                            }
                            _ => ("Missing resource to override", "resource", "resource"),
                        };
                        let detail = format!(
                            "There is no {} {what} named {}. An override file can only override a {block} block defined in a primary configuration file.",
                            r.type_name,
                            go_quote(&r.name)
                        );
                        self.error(&file.path, r.line, summary, detail);
                    }
                }
            }
        }
        out
    }

    /// Module calls, unique by name; override files may change `source`.
    fn calls(&mut self, primary: &[ParsedFile], overrides: &[ParsedFile]) -> Vec<At<ModuleCall>> {
        let mut out: Vec<At<ModuleCall>> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for file in primary {
            for c in &file.items.module_calls {
                if let Some(e) = index.get(&c.name).map(|&i| &out[i]) {
                    let detail = format!(
                        "A module call named {} was already defined at {}:{}. Module calls must have unique names within a module.",
                        go_quote(&c.name),
                        e.file.display(),
                        e.line.unwrap_or(0)
                    );
                    self.error(&file.path, c.line, "Duplicate module call", detail);
                    continue;
                }
                index.insert(c.name.clone(), out.len());
                out.push(At {
                    file: file.path.clone(),
                    line: c.line,
                    item: c.clone(),
                });
            }
        }
        for file in overrides {
            for c in &file.items.module_calls {
                match index.get(&c.name) {
                    Some(&i) => {
                        if c.source.is_some() {
                            out[i].item.source = c.source.clone();
                        }
                    }
                    None => {
                        let detail = format!(
                            "There is no module call named {}. An override file can only override a module call that was defined in a primary configuration file.",
                            go_quote(&c.name)
                        );
                        self.error(
                            &file.path,
                            c.line,
                            "Missing module call to override",
                            detail,
                        );
                    }
                }
            }
        }
        out
    }
}
