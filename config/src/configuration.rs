//! A Terraform/OpenTofu configuration directory, read for the providers it
//! requires (docs/behaviour.md, TFCFG-1 to TFCFG-8): what `terraform
//! providers` lists and `providers lock` locks.

mod constraint_syntax;
mod hcl_file;
mod items;
mod json_file;
mod module;
mod tree;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, ProviderSource};

use crate::Diagnostic;

pub use tree::MAX_MODULES;

/// The providers a configuration requires, from its root module and every
/// module it calls.
///
/// ```
/// use tfdisco_config::Configuration;
/// use tfdisco_core::Dialect;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(
///     dir.path().join("main.tf"),
///     r#"
///     terraform {
///       required_providers {
///         aws = { source = "hashicorp/aws", version = "~> 5.0" }
///       }
///     }
///     resource "random_id" "x" {}
///     "#,
/// )?;
/// let config = Configuration::load(Dialect::Terraform, dir.path())?;
/// let found: Vec<String> = config.providers().map(|p| p.source().to_string()).collect();
/// assert_eq!(found, ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/random"]);
/// let aws = config.providers().next().expect("aws");
/// assert_eq!(aws.constraints()[0].constraints(), "~> 5.0");
/// assert_eq!(aws.constraints()[0].module(), "");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Configuration {
    dialect: Dialect,
    root: PathBuf,
    modules: Vec<ModuleInfo>,
    providers: BTreeMap<ProviderSource, RequiredProvider>,
    uninstalled: Vec<Diagnostic>,
    unread: Vec<Diagnostic>,
}

/// One module of the configuration: its path (`""` for the root module,
/// `network`, `network.subnets`: the module manifest's `Key`) and the
/// directory it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInfo {
    path: String,
    dir: PathBuf,
}

/// A provider the configuration requires: its address, the version
/// constraints each module gives, and every place that requires it.
#[derive(Clone, Debug)]
pub struct RequiredProvider {
    source: ProviderSource,
    constraints: Vec<ModuleConstraints>,
    origins: Vec<ProviderOrigin>,
}

/// The version constraints one module gives for a provider, as written
/// (`required_providers` `version`, the legacy string form, or a `provider`
/// block's `version`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleConstraints {
    module: String,
    constraints: String,
    file: PathBuf,
    line: Option<usize>,
}

/// One place that requires a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderOrigin {
    module: String,
    kind: OriginKind,
    file: PathBuf,
    line: Option<usize>,
}

/// Why a place requires a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginKind {
    /// An entry of `required_providers`.
    RequiredProviders {
        /// The entry's local name.
        local_name: String,
    },
    /// A `resource`, `data` or `ephemeral` block (its type's prefix, or its
    /// `provider` argument).
    Resource {
        /// `resource`, `data` or `ephemeral`.
        mode: &'static str,
        /// The resource type.
        type_name: String,
        /// The resource name.
        name: String,
    },
    /// A `provider` block.
    ProviderBlock {
        /// The block's label, the provider's local name.
        local_name: String,
    },
}

/// A configuration the CLI would refuse: every problem, each with its file
/// and (in HCL files) line, in Terraform's words where it has them.
#[derive(Clone, Debug)]
pub struct ConfigurationError {
    diagnostics: Vec<Diagnostic>,
}

impl Configuration {
    /// Reads the configuration in `dir` as `terraform providers` and
    /// `providers lock` read it (TFCFG-1): every `.tf` and `.tf.json` file
    /// (for OpenTofu also `.tofu` and `.tofu.json`), override files merged
    /// last; local child modules (`./`, `../`) from their directories,
    /// installed ones from the directories `.terraform/modules/modules.json`
    /// names, recursively. Calls that the manifest does not list are
    /// [`uninstalled_modules`](Configuration::uninstalled_modules); the CLIs
    /// refuse to run until `init` lists them
    /// ([`require_installed`](Configuration::require_installed)).
    ///
    /// Each file is checked for nesting before parsing (CFG-9) and may be
    /// 16 MiB at most; at most [`MAX_MODULES`] module instances are read.
    pub fn load(
        dialect: Dialect,
        dir: impl AsRef<Path>,
    ) -> Result<Configuration, ConfigurationError> {
        let root = dir.as_ref().to_owned();
        let loaded =
            tree::load(dialect, &root).map_err(|diagnostics| ConfigurationError { diagnostics })?;
        let mut providers: BTreeMap<ProviderSource, RequiredProvider> = BTreeMap::new();
        let mut modules = Vec::new();
        for (info, module) in loaded.modules {
            for req in &module.requirements {
                let entry =
                    providers
                        .entry(req.source.clone())
                        .or_insert_with(|| RequiredProvider {
                            source: req.source.clone(),
                            constraints: Vec::new(),
                            origins: Vec::new(),
                        });
                let mut origin = req.origin.clone();
                origin.module.clone_from(&info.path);
                if let Some(constraints) = &req.constraints {
                    entry.constraints.push(ModuleConstraints {
                        module: info.path.clone(),
                        constraints: constraints.clone(),
                        file: origin.file.clone(),
                        line: origin.line,
                    });
                }
                entry.origins.push(origin);
            }
            modules.push(info);
        }
        Ok(Configuration {
            dialect,
            root,
            modules,
            providers,
            uninstalled: loaded.uninstalled,
            unread: loaded.unread,
        })
    }

    /// The dialect it was read for.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The root module's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The modules read, root first, then depth first in the order of the
    /// calls.
    pub fn modules(&self) -> &[ModuleInfo] {
        &self.modules
    }

    /// Every provider required, sorted by address, built-in ones included
    /// (see [`RequiredProvider::is_lockable`]).
    pub fn providers(&self) -> impl ExactSizeIterator<Item = &RequiredProvider> {
        self.providers.values()
    }

    /// One provider's requirements.
    pub fn provider(&self, source: &ProviderSource) -> Option<&RequiredProvider> {
        self.providers.get(source)
    }

    /// "Module not installed", for each module call the module manifest
    /// does not list (TFCFG-7). Local modules were read all the same;
    /// installed ones that are missing were not.
    pub fn uninstalled_modules(&self) -> &[Diagnostic] {
        &self.uninstalled
    }

    /// Refuses a configuration whose providers are not all known: one with
    /// a call that is neither local nor listed in the module manifest (its
    /// module was not read). Local modules need no `init` (D15), where
    /// [`require_installed`](Configuration::require_installed) refuses them
    /// as the CLIs do.
    pub fn require_complete(&self) -> Result<(), ConfigurationError> {
        refuse_any(&self.unread)
    }

    /// Refuses, as `terraform providers lock` does, a configuration with
    /// calls the module manifest does not list.
    pub fn require_installed(&self) -> Result<(), ConfigurationError> {
        refuse_any(&self.uninstalled)
    }
}

/// One `module` block of a module, as `init` reads it to install the
/// module it calls.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModuleCall {
    /// The call's name (the last part of the module's key).
    pub name: String,
    /// Its `source`, as written; `None` when the block has none.
    pub source: Option<String>,
    /// Its `version` constraint, as written.
    pub version: Option<String>,
    /// The file the block is in.
    pub file: PathBuf,
    /// The block's line, where the file format tells it.
    pub line: Option<usize>,
}

impl ModuleCall {
    /// The module calls of the module in `dir`, its files read and merged
    /// as [`Configuration::load`] reads them (override files last), sorted
    /// by name: the order `init` walks them in. `path` is the module's
    /// key (`""` for the root module), for the messages. A module that does
    /// not read is an error with its diagnostics.
    pub fn read_all(
        dialect: Dialect,
        path: &str,
        dir: impl AsRef<Path>,
    ) -> Result<Vec<ModuleCall>, ConfigurationError> {
        tree::calls(dialect, path, dir.as_ref())
            .map_err(|diagnostics| ConfigurationError { diagnostics })
    }

    /// The module calls of one configuration file, read as if it were its
    /// module's only file, sorted by name: what a module package's file
    /// says of the package's calls before the rest of the package is there
    /// (a guess, not the module's calls: an override file may change them,
    /// another file add more). A file that does not read is an error with
    /// its diagnostics.
    pub fn read_file(
        dialect: Dialect,
        file: impl AsRef<Path>,
    ) -> Result<Vec<ModuleCall>, ConfigurationError> {
        tree::calls_in_file(dialect, file.as_ref())
            .map_err(|diagnostics| ConfigurationError { diagnostics })
    }

    /// Whether a module folder's file of this name is one of its
    /// configuration files, as [`read_all`](ModuleCall::read_all) picks
    /// them (by extension; hidden and editor files are not).
    pub fn is_config_file(dialect: Dialect, name: &str) -> bool {
        tree::config_file(dialect, name).is_some()
    }

    /// "Missing required argument", at the call, for a call without a
    /// `source`.
    pub fn missing_source(&self) -> Diagnostic {
        tree::missing_source(&self.file, self.line)
    }
}

/// `Ok` without diagnostics, else an error with them.
fn refuse_any(diagnostics: &[Diagnostic]) -> Result<(), ConfigurationError> {
    if diagnostics.is_empty() {
        Ok(())
    } else {
        Err(ConfigurationError {
            diagnostics: diagnostics.to_vec(),
        })
    }
}

impl ModuleInfo {
    /// The module path: `""` for the root module, else the call names
    /// joined with `.`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The directory it was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl RequiredProvider {
    /// The provider's address.
    pub fn source(&self) -> &ProviderSource {
        &self.source
    }

    /// The version constraints, per module, in module order. Empty when no
    /// module constrains the version.
    pub fn constraints(&self) -> &[ModuleConstraints] {
        &self.constraints
    }

    /// Every place that requires it, in module order.
    pub fn origins(&self) -> &[ProviderOrigin] {
        &self.origins
    }

    /// Whether a lock file may lock it: not built into the CLI (as
    /// `terraform.io/builtin/terraform` is), not legacy.
    pub fn is_lockable(&self) -> bool {
        !(self.source.is_builtin() || self.source.is_legacy())
    }
}

impl ModuleConstraints {
    /// The module path (`""` for the root module).
    pub fn module(&self) -> &str {
        &self.module
    }

    /// The constraints, as written.
    pub fn constraints(&self) -> &str {
        &self.constraints
    }

    /// The file they are in.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The line, when known (HCL syntax).
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}

impl ProviderOrigin {
    /// The module path (`""` for the root module).
    pub fn module(&self) -> &str {
        &self.module
    }

    /// What requires the provider.
    pub fn kind(&self) -> &OriginKind {
        &self.kind
    }

    /// The file it is in.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The line, when known (HCL syntax).
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}

impl ConfigurationError {
    /// The problems, in the order found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for ConfigurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diag) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&diag.located())?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigurationError {}
