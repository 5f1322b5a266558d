//! A `.tf.json` file (HCL's JSON syntax) read for its provider requirements
//! and module calls (docs/behaviour.md, TFCFG-2, TFCFG-6). JSON values carry
//! no positions here: problems name the file only. The JSON parser's own
//! recursion limit (128) bounds the nesting.

use std::path::Path;

use super::items::{
    Entry, EntryValue, Field, Items, Mode, ModuleCall, ProviderBlock, RequiredProvidersBlock,
    ResourceBlock,
};
use crate::Diagnostic;
use crate::literal::Lit;

pub(super) fn read(path: &Path, text: &str, diags: &mut Vec<Diagnostic>) -> Items {
    let mut items = Items::default();
    let top = match serde_json::from_str::<Lit>(text) {
        Ok(Lit::Object(entries)) => entries,
        Ok(_) => {
            diags.push(
                Diagnostic::with_detail(
                    "Incorrect JSON value type",
                    "A JSON object is required here, to define arguments and child blocks.",
                )
                .at(path, Some(1)),
            );
            return items;
        }
        Err(e) => {
            diags.push(
                Diagnostic::with_detail(
                    "Invalid JSON syntax",
                    format!("line {}, column {}: {e}", e.line(), e.column()),
                )
                .at(path, Some(e.line())),
            );
            return items;
        }
    };
    let mut reader = Reader { path, diags };
    for (key, value) in &top {
        match key.as_str() {
            "terraform" => {
                for body in bodies(value) {
                    for (k, v) in body {
                        if k == "required_providers" {
                            for block in bodies(v) {
                                items.required_providers.push(RequiredProvidersBlock {
                                    entries: block
                                        .iter()
                                        .map(|(name, value)| Entry {
                                            name: name.clone(),
                                            value: entry_value(value),
                                            line: None,
                                        })
                                        .collect(),
                                    line: None,
                                });
                            }
                        }
                    }
                }
            }
            "provider" => {
                for (labels, body) in labelled(value, 1) {
                    items.providers.push(ProviderBlock {
                        name: labels[0].clone(),
                        alias: reader.string(body, "alias"),
                        version: reader.string(body, "version"),
                        line: None,
                    });
                }
            }
            "resource" => reader.resources(value, Mode::Managed, &mut items),
            "data" => reader.resources(value, Mode::Data, &mut items),
            "ephemeral" => reader.resources(value, Mode::Ephemeral, &mut items),
            "check" => {
                for (_, body) in labelled(value, 1) {
                    for (k, v) in body {
                        if k == "data" {
                            reader.resources(v, Mode::Data, &mut items);
                        }
                    }
                }
            }
            "module" => {
                for (labels, body) in labelled(value, 1) {
                    items.module_calls.push(ModuleCall {
                        name: labels[0].clone(),
                        source: reader.string(body, "source"),
                        version: reader.string(body, "version"),
                        line: None,
                    });
                }
            }
            _ => {}
        }
    }
    items
}

struct Reader<'a> {
    path: &'a Path,
    diags: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    /// A string attribute of a block body; numbers and bools become text.
    fn string(&mut self, body: &[(String, Lit)], key: &str) -> Option<String> {
        let value = body.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)?;
        match primitive(value) {
            Some(Some(s)) => Some(s),
            _ => {
                self.diags.push(
                    Diagnostic::with_detail(
                        "Unsuitable value type",
                        format!("Unsuitable value for {}: string required", key),
                    )
                    .at(self.path, None),
                );
                None
            }
        }
    }

    fn resources(&mut self, value: &Lit, mode: Mode, items: &mut Items) {
        for (labels, body) in labelled(value, 2) {
            let provider = match body.iter().rev().find(|(k, _)| k == "provider") {
                None => None,
                Some((_, Lit::String(reference))) => {
                    Some(reference.split('.').next().unwrap_or_default().to_owned())
                }
                Some(_) => {
                    self.diags.push(
                        Diagnostic::with_detail(
                            "Invalid provider reference",
                            "Provider argument requires a provider name followed by an optional alias, like \"aws.foo\".",
                        )
                        .at(self.path, None),
                    );
                    continue;
                }
            };
            items.resources.push(ResourceBlock {
                mode,
                type_name: labels[0].clone(),
                name: labels[1].clone(),
                provider,
                line: None,
            });
        }
    }
}

/// A block body: an object's entries.
type Body<'a> = &'a [(String, Lit)];

/// A block body, or HCL's JSON form of several: an array of objects.
fn bodies(value: &Lit) -> Vec<Body<'_>> {
    match value {
        Lit::Object(entries) => vec![entries.as_slice()],
        Lit::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Lit::Object(entries) => Some(entries.as_slice()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Blocks with `n` labels: objects nested `n` deep, keyed by the labels, any
/// level of which may be an array of such objects.
fn labelled(value: &Lit, n: usize) -> Vec<(Vec<String>, Body<'_>)> {
    let mut out = Vec::new();
    let mut stack = vec![(Vec::new(), value)];
    while let Some((labels, value)) = stack.pop() {
        for body in bodies(value) {
            if labels.len() == n {
                out.push((labels.clone(), body));
                continue;
            }
            for (label, inner) in body.iter().rev() {
                let mut more = labels.clone();
                more.push(label.clone());
                stack.push((more, inner));
            }
        }
    }
    out
}

/// A primitive value as text (`None` inside for null), or `None` for a
/// list or object.
fn primitive(value: &Lit) -> Option<Option<String>> {
    match value {
        Lit::Null => Some(None),
        Lit::Bool(b) => Some(Some(b.to_string())),
        Lit::Number(n) => Some(Some(n.to_string())),
        Lit::String(s) => Some(Some(s.clone())),
        Lit::Array(_) | Lit::Object(_) => None,
    }
}

fn entry_value(value: &Lit) -> EntryValue {
    if let Some(p) = primitive(value) {
        return EntryValue::Primitive(p);
    }
    match value {
        Lit::Object(fields) => EntryValue::Object(
            fields
                .iter()
                .map(|(name, v)| {
                    let field = if name == "configuration_aliases" {
                        Field::Ignored
                    } else {
                        match primitive(v) {
                            Some(Some(s)) => Field::String(s),
                            _ => Field::NotString,
                        }
                    };
                    (name.clone(), field, None)
                })
                .collect(),
        ),
        _ => EntryValue::Other,
    }
}
