//! Reading a lock file as Go's `loadLocks` / `decodeProviderLockFromHCL`
//! read it (docs/behaviour.md, LOCK-2, LOCK-3), with Terraform's messages.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use tfdisco_core::{Dialect, ProviderSource, Version, go_quote};

use super::{LockFile, LockFileError, LockedProvider, sorted};
use crate::hcl_syntax::{Attribute, Block, Body, Expr, ExprKind, Item};
use crate::hcl_text::{self, Lines};
use crate::{Diagnostic, hcl_value};

/// What one file's problems are collected in, with where they are.
struct Reader<'a> {
    path: &'a Path,
    lines: Lines,
    dialect: Dialect,
    diags: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

pub(super) fn parse(text: &str, path: &Path, dialect: Dialect) -> Result<LockFile, LockFileError> {
    let invalid = |diagnostics| LockFileError::Invalid {
        path: path.to_owned(),
        diagnostics,
    };
    let body = hcl_text::parse_body(path, text).map_err(|d| invalid(vec![d]))?;
    let mut reader = Reader {
        path,
        lines: Lines::new(text),
        dialect,
        diags: Vec::new(),
        warnings: Vec::new(),
    };
    let providers = reader.file(&body);
    if !reader.diags.is_empty() {
        return Err(invalid(reader.diags));
    }
    Ok(LockFile {
        dialect,
        providers,
        warnings: reader.warnings,
    })
}

impl Reader<'_> {
    fn error(&mut self, at: Option<usize>, summary: &str, detail: String) {
        self.diags
            .push(Diagnostic::with_detail(summary, detail).at(self.path, at));
    }

    fn file(&mut self, body: &Body) -> BTreeMap<ProviderSource, LockedProvider> {
        // The schema check first, as hcl's `Body.Content` makes it: stray
        // attributes, then blocks of other types or with the wrong labels.
        let mut blocks = Vec::new();
        for attr in body.attributes() {
            self.unsupported_argument(attr);
        }
        for block in body.blocks() {
            let (kind, label) = match block.kind.as_str() {
                "provider" => ("provider", "source_addr"),
                "module" => ("module", "path"),
                _ => {
                    self.unsupported_block(block);
                    continue;
                }
            };
            match block.labels.len() {
                1 => blocks.push((kind, block)),
                0 => self.error(
                    self.lines.of(block.kind_span),
                    &format!("Missing {label} for {kind}"),
                    format!("All {kind} blocks must have 1 labels ({label})."),
                ),
                _ => self.error(
                    self.lines.of(block.kind_span),
                    &format!("Extraneous label for {kind}"),
                    format!("Only 1 labels ({label}) are expected for {kind} blocks."),
                ),
            }
        }
        let mut providers = BTreeMap::new();
        let mut seen: HashMap<ProviderSource, Option<usize>> = HashMap::new();
        let mut module_seen = false;
        for (kind, block) in blocks {
            let line = self.lines.of(block.kind_span);
            if kind == "module" {
                if !module_seen {
                    module_seen = true;
                    let product = product(self.dialect);
                    let version = self.dialect.default_cli_version();
                    self.warnings.push(
                        Diagnostic::warning(
                            "Dependency locks for modules are not yet supported",
                            Some(format!(
                                "{product} v{version} only supports dependency locks for providers, not for modules. This configuration may be intended for a later version of {product} that also supports dependency locks for modules."
                            )),
                        )
                        .at(self.path, line),
                    );
                }
                continue;
            }
            let Some(lock) = self.provider(block) else {
                continue;
            };
            if let Some(previous) = seen.get(&lock.source) {
                let detail = format!(
                    "This lockfile already declared a lock for provider {} at {}:{}.",
                    lock.source,
                    self.path.display(),
                    previous.unwrap_or(0)
                );
                self.error(line, "Duplicate provider lock", detail);
                continue;
            }
            seen.insert(lock.source.clone(), line);
            providers.insert(lock.source.clone(), lock);
        }
        providers
    }

    fn unsupported_argument(&mut self, attr: &Attribute) {
        let detail = format!(
            "An argument named {} is not expected here.",
            go_quote(&attr.name)
        );
        self.error(
            self.lines.of(attr.name_span),
            "Unsupported argument",
            detail,
        );
    }

    fn unsupported_block(&mut self, block: &Block) {
        let detail = format!(
            "Blocks of type {} are not expected here.",
            go_quote(&block.kind)
        );
        self.error(
            self.lines.of(block.kind_span),
            "Unsupported block type",
            detail,
        );
    }

    /// One `provider` block, or `None` when it is unusable (its problems
    /// reported).
    fn provider(&mut self, block: &Block) -> Option<LockedProvider> {
        let line = self.lines.of(block.kind_span);
        let raw = block.labels[0].as_str();
        let source = match ProviderSource::parse(raw, self.dialect) {
            Ok(source) => source,
            Err(_) => {
                self.error(
                    line,
                    "Invalid provider source address",
                    "The provider source address for a provider lock must be a valid, fully-qualified address of the form \"hostname/namespace/type\".".into(),
                );
                return None;
            }
        };
        if let Err(detail) = lockable(&source) {
            self.error(line, "Invalid provider source address", detail);
            return None;
        }
        let canonical = source.to_string();
        if canonical != raw {
            let detail = format!(
                "The provider source address for this provider lock must be written as {}, the fully-qualified and normalized form.",
                go_quote(&canonical)
            );
            self.error(line, "Non-normalized provider source address", detail);
            return None;
        }

        let mut attrs: [Option<&Attribute>; 3] = [None; 3];
        // The parser has refused attributes set twice.
        for item in &block.body.items {
            match item {
                Item::Attribute(attr) => match attr.name.as_str() {
                    "version" => attrs[0] = Some(attr),
                    "constraints" => attrs[1] = Some(attr),
                    "hashes" => attrs[2] = Some(attr),
                    _ => self.unsupported_argument(attr),
                },
                Item::Block(inner) => self.unsupported_block(inner),
            }
        }
        let [version_attr, constraints_attr, hashes_attr] = attrs;
        if version_attr.is_none() {
            self.error(
                line,
                "Missing required argument",
                "The argument \"version\" is required, but no definition was found.".into(),
            );
        }
        let version = version_attr.and_then(|attr| self.version(&source, attr));
        let constraints = constraints_attr.and_then(|attr| self.static_string(&attr.value));
        let hashes = hashes_attr.map_or_else(Vec::new, |attr| self.hashes(&attr.value));
        Some(LockedProvider {
            source,
            version: version.unwrap_or_default(),
            constraints: constraints.filter(|c| !c.is_empty()),
            hashes: sorted(hashes),
        })
    }

    fn static_string(&mut self, expr: &Expr) -> Option<String> {
        match hcl_value::string(expr) {
            Ok(s) => Some(s),
            Err(why) => {
                self.error(self.lines.of(expr.span), why.summary, why.detail.into());
                None
            }
        }
    }

    fn version(&mut self, source: &ProviderSource, attr: &Attribute) -> Option<String> {
        let at = self.lines.of(attr.value.span);
        let raw = match hcl_value::string_or_null(&attr.value) {
            Ok(Some(raw)) => raw,
            Ok(None) => {
                self.error(
                    at,
                    "Missing required argument",
                    "A provider lock block must contain a \"version\" argument.".into(),
                );
                return None;
            }
            Err(why) => {
                self.error(at, why.summary, why.detail.into());
                return None;
            }
        };
        match check_version(source, &raw, self.dialect) {
            Ok(()) => Some(raw),
            Err(detail) => {
                self.error(at, "Invalid provider version number", detail);
                None
            }
        }
    }

    fn hashes(&mut self, expr: &Expr) -> Vec<String> {
        let at = self.lines.of(expr.span);
        let ExprKind::Tuple(items) = &expr.kind else {
            self.error(
                at,
                "Invalid expression",
                "A static list expression is required.".into(),
            );
            return Vec::new();
        };
        if items.is_empty() {
            self.error(
                at,
                "Invalid provider hash set",
                "The \"hashes\" argument must either be omitted or contain at least one hash value."
                    .into(),
            );
            return Vec::new();
        }
        let mut hashes = Vec::new();
        for item in items {
            let Some(raw) = self.static_string(item) else {
                continue;
            };
            match check_hash(&raw) {
                Ok(()) => hashes.push(raw),
                Err(detail) => self.error(
                    self.lines.of(item.span),
                    "Invalid provider hash string",
                    detail,
                ),
            }
        }
        hashes
    }
}

/// Go's `ProviderIsLockable`: neither built in nor legacy. The detail of the
/// error when it is not.
pub(super) fn lockable(source: &ProviderSource) -> Result<(), String> {
    let product = product(source.dialect());
    if source.is_builtin() {
        return Err(format!(
            "Cannot lock a version for built-in provider {source}. Built-in providers are bundled inside {product} itself, so you can't select a version for them independently of the {product} release you are currently running."
        ));
    }
    if source.is_legacy() {
        return Err(format!(
            "Provider source address {source} is a special provider that is not eligible for dependency locking."
        ));
    }
    Ok(())
}

/// Go's `ParseHash`: a scheme of at least one character and a colon.
pub(super) fn check_hash(raw: &str) -> Result<(), String> {
    match raw.find(':') {
        Some(colon) if colon >= 1 => Ok(()),
        _ => Err(format!(
            "Cannot interpret {} as a provider hash: hash string must start with a scheme keyword followed by a colon.",
            go_quote(raw)
        )),
    }
}

/// The CLI's name in messages.
/// The version of a lock (LOCK-3): a version as go-versions' `ParseVersion`
/// reads it (`tfdisco_core::Version::parse`), written in its normalized form
/// (`MAJOR.MINOR.PATCH[-PRE][+META]`); else the CLIs' words for why not.
pub(super) fn check_version(
    source: &ProviderSource,
    given: &str,
    dialect: Dialect,
) -> Result<(), String> {
    match Version::parse(given, dialect) {
        Ok(version) if version.to_string() == given => Ok(()),
        Ok(version) => Err(format!(
            "The selected version number for provider {source} must be written in normalized \
             form: {}.",
            go_quote(&version.to_string())
        )),
        Err(why) => Err(format!(
            "The selected version number for provider {source} is invalid: {why}."
        )),
    }
}

pub(super) fn product(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Terraform => "Terraform",
        Dialect::OpenTofu => "OpenTofu",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_versions_are_normalized_versions() {
        let null = ProviderSource::parse("hashicorp/null", Dialect::Terraform).expect("valid");
        let check = |given: &str| check_version(&null, given, Dialect::Terraform);
        for ok in [
            "0.0.0",
            "3.2.1",
            "10.20.30",
            "1.0.0-beta1",
            "1.0.0-rc.1+build.5",
            // go-versions takes any dots in build metadata.
            "1.0.0+a..b",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        // Terraform 1.11.4: `version = "3.2"` and `version = 3`; go-versions
        // reads an empty pre-release as none.
        for (given, canonical) in [
            ("3.2", "3.2.0"),
            ("3", "3.0.0"),
            ("03.2.1", "3.2.1"),
            ("1.0.0-", "1.0.0"),
        ] {
            let error = check(given).expect_err(given);
            assert!(
                error.ends_with(&format!(
                    "must be written in normalized form: \"{canonical}\"."
                )),
                "{error}"
            );
        }
        assert_eq!(
            check("v3.2.1"),
            Err(format!(
                "The selected version number for provider {null} is invalid: a \"v\" prefix \
                 should not be used."
            ))
        );
        for bad in ["x.y", "", "1..2", "1.2.3.4", "99999999999999999999"] {
            let error = check(bad).expect_err(bad);
            assert!(error.contains(" is invalid: "), "{bad}: {error}");
        }
    }
}
