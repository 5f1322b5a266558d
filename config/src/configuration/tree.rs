//! The modules of a configuration: the root directory, local child modules
//! read where their `source` points, installed ones where
//! `.terraform/modules/modules.json` says (docs/behaviour.md, TFCFG-1,
//! TFCFG-6, TFCFG-7).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use tfdisco_core::Dialect;

use super::module::{self, Module, ParsedFile};
use super::{ModuleInfo, hcl_file, json_file};
use crate::hcl_text;
use crate::{Diagnostic, ModuleManifest};

/// At most this many module instances (the root module and every call,
/// counted through the tree) are read.
pub const MAX_MODULES: usize = 1000;
/// At most this many provider requirements, all modules together.
pub(super) const MAX_REQUIREMENTS: usize = 1 << 20;

pub(super) struct Tree {
    /// Each module instance: path and directory, and its module.
    pub(super) modules: Vec<(ModuleInfo, Rc<Module>)>,
    /// "Module not installed", for each call without a manifest entry.
    pub(super) uninstalled: Vec<Diagnostic>,
    /// The same, for the calls among them that are not local: modules not
    /// read at all.
    pub(super) unread: Vec<Diagnostic>,
}

pub(super) fn load(dialect: Dialect, root: &Path) -> Result<Tree, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let manifest = ModuleManifest::read(root).unwrap_or_else(|diagnostic| {
        diags.push(diagnostic);
        ModuleManifest::default()
    });
    let mut cache: HashMap<PathBuf, Rc<Module>> = HashMap::new();
    let mut tree = Tree {
        modules: Vec::new(),
        uninstalled: Vec::new(),
        unread: Vec::new(),
    };
    let mut requirements = 0;
    // (module path, directory, the call's file and line)
    type CallSite = Option<(PathBuf, Option<usize>)>;
    let mut stack: Vec<(String, PathBuf, CallSite)> = vec![(String::new(), root.to_owned(), None)];
    while let Some((path, dir, call_site)) = stack.pop() {
        if tree.modules.len() == MAX_MODULES {
            let (file, line) = call_site.unwrap_or_else(|| (root.to_owned(), None));
            diags.push(
                Diagnostic::with_detail(
                    "Too many modules",
                    format!(
                        "The configuration has more than {MAX_MODULES} module calls (counting each call of a module that is called more than once, and calls that call themselves)."
                    ),
                )
                .at(&file, line),
            );
            break;
        }
        let module = match cache.get(&dir) {
            Some(module) => Rc::clone(module),
            None => {
                let module = Rc::new(load_module(dialect, &path, &dir, &mut diags));
                cache.insert(dir.clone(), Rc::clone(&module));
                module
            }
        };
        requirements += module.requirements.len();
        if requirements > MAX_REQUIREMENTS {
            diags.push(
                Diagnostic::with_detail(
                    "Configuration too large",
                    format!(
                        "The configuration requires providers more than {MAX_REQUIREMENTS} times."
                    ),
                )
                .at(&dir, None),
            );
            break;
        }
        let mut children = Vec::new();
        for call in &module.calls {
            let key = if path.is_empty() {
                call.name.clone()
            } else {
                format!("{path}.{}", call.name)
            };
            let Some(source) = &call.source else {
                diags.push(missing_source(&call.file, call.line));
                continue;
            };
            let installed = manifest.get(&key).map(|record| &record.dir);
            if installed.is_none() {
                let diagnostic = Diagnostic::with_detail(
                    "Module not installed",
                    format!(
                        "This module is not yet installed. Run \"{} init\" to install all modules required by this configuration.",
                        dialect.command()
                    ),
                )
                .at(&call.file, call.line);
                if !is_local(source) {
                    tree.unread.push(diagnostic.clone());
                }
                tree.uninstalled.push(diagnostic);
            }
            let child_dir = if is_local(source) {
                clean(&dir.join(source))
            } else if let Some(record_dir) = installed {
                clean(&root.join(record_dir))
            } else {
                continue;
            };
            children.push((key, child_dir, Some((call.file.clone(), call.line))));
        }
        tree.modules.push((ModuleInfo { path, dir }, module));
        // Depth first, calls in the order written.
        stack.extend(children.into_iter().rev());
    }
    if diags.is_empty() {
        Ok(tree)
    } else {
        Err(diags)
    }
}

/// "Missing required argument": a module call without a `source`.
pub(super) fn missing_source(file: &Path, line: Option<usize>) -> Diagnostic {
    Diagnostic::with_detail(
        "Missing required argument",
        "The argument \"source\" is required, but no definition was found.",
    )
    .at(file, line)
}

/// Go's `isMaybeRelativeLocalPath`: `./`, `../` and their Windows forms.
pub(super) fn is_local(source: &str) -> bool {
    ["./", "../", ".\\", "..\\"]
        .iter()
        .any(|prefix| source.starts_with(prefix))
}

/// The path with `.` and `x/..` taken out, lexically (as Go's
/// `filepath.Clean`; symbolic links are not followed).
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The module calls of the module in `dir` (its path `path`), sorted by
/// name as `init` walks them: what the module installer reads of each
/// module it installs.
pub(super) fn calls(
    dialect: Dialect,
    path: &str,
    dir: &Path,
) -> Result<Vec<super::ModuleCall>, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let module = load_module(dialect, path, dir, &mut diags);
    calls_of(&module, diags)
}

/// The module calls of one configuration file read as if it were its
/// module's only one (an override file as a primary one), sorted by name.
pub(super) fn calls_in_file(
    dialect: Dialect,
    file: &Path,
) -> Result<Vec<super::ModuleCall>, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let parsed: Vec<ParsedFile> = parse_file(file.to_owned(), false, &mut diags)
        .into_iter()
        .collect();
    let module = module::assemble(dialect, "", parsed, &mut diags);
    calls_of(&module, diags)
}

/// A module's calls, sorted by name; its diagnostics, if any, instead.
fn calls_of(
    module: &Module,
    diags: Vec<Diagnostic>,
) -> Result<Vec<super::ModuleCall>, Vec<Diagnostic>> {
    if !diags.is_empty() {
        return Err(diags);
    }
    let mut calls: Vec<super::ModuleCall> = module
        .calls
        .iter()
        .map(|call| super::ModuleCall {
            name: call.name.clone(),
            source: call.source.clone(),
            version: call.version.clone(),
            file: call.file.clone(),
            line: call.line,
        })
        .collect();
    calls.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(calls)
}

/// Reads and merges one module directory.
fn load_module(dialect: Dialect, path: &str, dir: &Path, diags: &mut Vec<Diagnostic>) -> Module {
    let files = match dir_files(dialect, dir) {
        Ok(files) => files,
        Err(_) => {
            diags.push(
                Diagnostic::with_detail(
                    "Failed to read module directory",
                    format!(
                        "Module directory {} does not exist or cannot be read.",
                        dir.display()
                    ),
                )
                .at(dir, None),
            );
            Vec::new()
        }
    };
    let parsed = files
        .into_iter()
        .filter_map(|(file, is_override)| parse_file(file, is_override, diags))
        .collect();
    module::assemble(dialect, path, parsed, diags)
}

/// One configuration file read and parsed (HCL or JSON by its name); `None`
/// when it cannot be read, with a diagnostic saying so.
fn parse_file(file: PathBuf, is_override: bool, diags: &mut Vec<Diagnostic>) -> Option<ParsedFile> {
    let text = match hcl_text::read_limited(&file) {
        Ok(text) => text,
        Err(e) => {
            diags.push(
                Diagnostic::with_detail(
                    "Failed to read file",
                    format!(
                        "The configuration file {} could not be read: {e}.",
                        file.display()
                    ),
                )
                .at(&file, None),
            );
            return None;
        }
    };
    let name = file.to_string_lossy();
    let items = if name.ends_with(".json") {
        json_file::read(&file, &text, diags)
    } else {
        hcl_file::read(&file, &text, diags)
    };
    Some(ParsedFile {
        path: file,
        items,
        is_override,
    })
}

/// Go's `dirFiles`: the directory's configuration files, sorted by name,
/// each with whether it is an override file. Hidden files and editor
/// files (`~`, `#…#`) are skipped; OpenTofu also reads `.tofu` and
/// `.tofu.json`, and skips a `.tf` file that has a `.tofu` twin.
pub(super) fn dir_files(dialect: Dialect, dir: &Path) -> std::io::Result<Vec<(PathBuf, bool)>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(is_override) = config_file(dialect, &name) else {
            continue;
        };
        names.push((name, is_override));
    }
    names.sort();
    if dialect == Dialect::OpenTofu {
        let all: HashSet<String> = names.iter().map(|(n, _)| n.clone()).collect();
        names.retain(|(name, _)| {
            let twin = if let Some(base) = name.strip_suffix(".tf.json") {
                format!("{base}.tofu.json")
            } else if let Some(base) = name.strip_suffix(".tf") {
                format!("{base}.tofu")
            } else {
                return true;
            };
            !all.contains(&twin)
        });
    }
    Ok(names
        .into_iter()
        .map(|(name, is_override)| (dir.join(name), is_override))
        .collect())
}

/// Whether a file name is of a configuration file Go's `dirFiles` reads
/// (`Some`, and whether it is an override file) or not (hidden and editor
/// files, other extensions).
pub(super) fn config_file(dialect: Dialect, name: &str) -> Option<bool> {
    let ext = extension(dialect, name)?;
    if name.starts_with('.')
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
    {
        return None;
    }
    let base = &name[..name.len() - ext.len()];
    Some(base == "override" || base.ends_with("_override"))
}

/// The configuration extension of a file name (test files are not
/// configuration files).
fn extension(dialect: Dialect, name: &str) -> Option<&'static str> {
    let mut exts = vec![".tf.json", ".tf"];
    if dialect == Dialect::OpenTofu {
        exts.extend([".tofu.json", ".tofu"]);
    }
    exts.into_iter().find(|ext| name.ends_with(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_cleaned_lexically() {
        assert_eq!(clean(Path::new("a/./b/../c")), PathBuf::from("a/c"));
        assert_eq!(clean(Path::new("./x")), PathBuf::from("x"));
        assert_eq!(clean(Path::new("../x/..")), PathBuf::from(".."));
        assert_eq!(clean(Path::new("/a/../..")), PathBuf::from("/"));
    }

    /// One file's calls, read alone (an override file as a primary one);
    /// which names are configuration files.
    #[test]
    fn one_files_calls() {
        let dir = tempfile::tempdir().expect("a folder");
        let file = dir.path().join("x_override.tf");
        fs::write(
            &file,
            "module \"b\" {\n  source = \"./b\"\n}\nmodule \"a\" {\n  source  = \"h.test/n/a/s\"\n  version = \"~> 1.0\"\n}\n",
        )
        .expect("written");
        let calls = calls_in_file(Dialect::Terraform, &file).expect("read");
        let names: Vec<(&str, Option<&str>, Option<usize>)> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.version.as_deref(), c.line))
            .collect();
        assert_eq!(
            names,
            [("a", Some("~> 1.0"), Some(4)), ("b", None, Some(1))]
        );
        fs::write(&file, "module \"a\" {").expect("written");
        assert!(calls_in_file(Dialect::Terraform, &file).is_err());
        assert!(calls_in_file(Dialect::Terraform, &dir.path().join("none.tf")).is_err());
        for (name, config) in [
            ("main.tf", Some(false)),
            ("override.tf.json", Some(true)),
            ("a_override.tf", Some(true)),
            (".hidden.tf", None),
            ("main.tf~", None),
            ("#main.tf#", None),
            ("main.tofu", None),
            ("README.md", None),
        ] {
            assert_eq!(config_file(Dialect::Terraform, name), config, "{name}");
        }
        assert_eq!(config_file(Dialect::OpenTofu, "main.tofu"), Some(false));
    }

    #[test]
    fn local_sources() {
        for s in ["./a", "../a", ".\\a", "..\\a", "./"] {
            assert!(is_local(s), "{s}");
        }
        for s in ["a", "hashicorp/consul/aws", "git::https://x", "/abs"] {
            assert!(!is_local(s), "{s}");
        }
    }
}
