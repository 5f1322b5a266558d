//! A `.tf` file (HCL native syntax) read for its provider requirements and
//! module calls (docs/behaviour.md, TFCFG-2, TFCFG-6), parsed as Terraform
//! parses it (TFCFG-8).

use std::path::Path;

use tfdisco_core::go_quote;

use super::items::{
    Entry, EntryValue, Field, Items, Line, Mode, ModuleCall, ProviderBlock, RequiredProvidersBlock,
    ResourceBlock,
};
use crate::hcl_syntax::{Attribute, Block, Body, Expr, ExprKind, Item, ObjectKey};
use crate::hcl_text::{self, Lines};
use crate::{Diagnostic, hcl_value};

pub(super) fn read(path: &Path, text: &str, diags: &mut Vec<Diagnostic>) -> Items {
    let body = match hcl_text::parse_body(path, text) {
        Ok(body) => body,
        Err(diag) => {
            diags.push(diag);
            return Items::default();
        }
    };
    let mut reader = Reader {
        path,
        lines: Lines::new(text),
        diags,
        items: Items::default(),
    };
    for block in body.blocks() {
        reader.top_block(block);
    }
    reader.items
}

struct Reader<'a> {
    path: &'a Path,
    lines: Lines,
    diags: &'a mut Vec<Diagnostic>,
    items: Items,
}

impl Reader<'_> {
    fn error(&mut self, line: Line, summary: &str, detail: String) {
        self.diags
            .push(Diagnostic::with_detail(summary, detail).at(self.path, line));
    }

    /// The block's labels, when there are as many as `names`.
    fn labels<'b>(&mut self, block: &'b Block, names: &[&str]) -> Option<Vec<&'b str>> {
        let kind = block.kind.as_str();
        let line = self.lines.of(block.kind_span);
        let wanted = names.len();
        let labels = &block.labels;
        if labels.len() == wanted {
            return Some(labels.iter().map(String::as_str).collect());
        }
        let list = names.join(", ");
        if labels.len() < wanted {
            let detail = format!("All {kind} blocks must have {wanted} labels ({list}).");
            self.error(line, &format!("Missing name for {kind}"), detail);
        } else {
            let detail = format!("Only {wanted} labels ({list}) are expected for {kind} blocks.");
            self.error(line, &format!("Extraneous label for {kind}"), detail);
        }
        None
    }

    fn top_block(&mut self, block: &Block) {
        match block.kind.as_str() {
            "terraform" => {
                for inner in block.body.blocks() {
                    if inner.kind == "required_providers" {
                        self.required_providers(inner);
                    }
                }
            }
            "provider" => {
                let Some(labels) = self.labels(block, &["name"]) else {
                    return;
                };
                let alias = attr(&block.body, "alias").and_then(|a| self.string(a));
                let version = attr(&block.body, "version").and_then(|a| self.string(a));
                self.items.providers.push(ProviderBlock {
                    name: labels[0].to_owned(),
                    alias,
                    version,
                    line: self.lines.of(block.kind_span),
                });
            }
            "resource" => self.resource(block, Mode::Managed),
            "data" => self.resource(block, Mode::Data),
            "ephemeral" => self.resource(block, Mode::Ephemeral),
            "check" => {
                for inner in block.body.blocks() {
                    if inner.kind == "data" {
                        self.resource(inner, Mode::Data);
                    }
                }
            }
            "module" => {
                let Some(labels) = self.labels(block, &["name"]) else {
                    return;
                };
                let source = attr(&block.body, "source").and_then(|a| self.string(a));
                let version = attr(&block.body, "version").and_then(|a| self.string(a));
                self.items.module_calls.push(ModuleCall {
                    name: labels[0].to_owned(),
                    source,
                    version,
                    line: self.lines.of(block.kind_span),
                });
            }
            _ => {}
        }
    }

    fn string(&mut self, attr: &Attribute) -> Option<String> {
        match hcl_value::string(&attr.value) {
            Ok(s) => Some(s),
            Err(why) => {
                self.error(
                    self.lines.of(attr.value.span),
                    why.summary,
                    why.detail.into(),
                );
                None
            }
        }
    }

    fn resource(&mut self, block: &Block, mode: Mode) {
        let Some(labels) = self.labels(block, &["type", "name"]) else {
            return;
        };
        let provider = match attr(&block.body, "provider") {
            None => None,
            Some(a) => match provider_reference(&a.value) {
                Some(name) => Some(name),
                None => {
                    self.error(
                        self.lines.of(a.value.span),
                        "Invalid provider reference",
                        "Provider argument requires a provider name followed by an optional alias, like \"aws.foo\".".into(),
                    );
                    return;
                }
            },
        };
        self.items.resources.push(ResourceBlock {
            mode,
            type_name: labels[0].to_owned(),
            name: labels[1].to_owned(),
            provider,
            line: self.lines.of(block.kind_span),
        });
    }

    fn required_providers(&mut self, block: &Block) {
        let mut entries = Vec::new();
        for item in &block.body.items {
            match item {
                Item::Attribute(a) => entries.push(Entry {
                    name: a.name.clone(),
                    value: entry_value(&a.value, &self.lines),
                    line: self.lines.of(a.name_span),
                }),
                Item::Block(inner) => {
                    let detail = "Blocks are not allowed here.".to_owned();
                    let summary = format!("Unexpected {} block", go_quote(&inner.kind));
                    self.error(self.lines.of(inner.kind_span), &summary, detail);
                }
            }
        }
        self.items.required_providers.push(RequiredProvidersBlock {
            entries,
            line: self.lines.of(block.kind_span),
        });
    }
}

fn attr<'b>(body: &'b Body, key: &str) -> Option<&'b Attribute> {
    body.attribute(key)
}

/// The local name of a `provider` meta-argument: `aws` or `aws.west`.
fn provider_reference(expr: &Expr) -> Option<String> {
    match hcl_value::traversal(expr) {
        Some((root, attrs)) if attrs.len() <= 1 => Some(root),
        _ => None,
    }
}

fn entry_value(expr: &Expr, lines: &Lines) -> EntryValue {
    if let Ok(value) = hcl_value::string_or_null(expr) {
        return EntryValue::Primitive(value);
    }
    let ExprKind::Object(object) = &expr.kind else {
        return EntryValue::Other;
    };
    let mut fields = Vec::new();
    for (key, expr) in object {
        let name = match key {
            ObjectKey::Name(name) => name.clone(),
            ObjectKey::Expr(e) => match hcl_value::string(e) {
                Ok(name) => name,
                Err(_) => return EntryValue::Other,
            },
        };
        let field = if name == "configuration_aliases" {
            Field::Ignored
        } else {
            match hcl_value::string(expr) {
                Ok(s) => Field::String(s),
                Err(_) => Field::NotString,
            }
        };
        fields.push((name, field, lines.of(expr.span)));
    }
    EntryValue::Object(fields)
}
