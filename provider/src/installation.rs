//! Provider installation methods: the CLI configuration's
//! `provider_installation` block (or the configuration implied when there
//! is none) as both CLIs use it, without I/O (docs/behaviour.md, INST-1 to
//! INST-12).
//!
//! - [`ProviderPattern`]: an `include` / `exclude` pattern.
//! - [`InstallationMethod`]: one method (`direct`, `network_mirror`,
//!   `filesystem_mirror`, OpenTofu's `oci_mirror`) with its patterns, and
//!   whether it can handle a provider ([`InstallationMethod::can_handle`]).
//! - [`ProviderInstallation`]: the methods in priority order with the
//!   `dev_overrides`, and which of them would install a provider and why
//!   ([`ProviderInstallation::methods_for`]).
//! - [`available_versions`] and [`first_package`]: how the answers of the
//!   methods that handle a provider combine (Go's `MultiSource`): the union
//!   of their versions, and the first method that has a package.
//!
//! Reading the block from CLI configuration files, scanning filesystem
//! mirrors and asking network mirrors are other crates' work
//! (`tfdisco-config`, the transports).
//!
//! ```
//! use std::path::PathBuf;
//! use tfdisco_core::{Dialect, ProviderSource};
//! use tfdisco_provider::{InstallationMethod, MethodKind, ProviderInstallation, ProviderPattern};
//!
//! let d = Dialect::Terraform;
//! let installation = ProviderInstallation::new(vec![
//!     InstallationMethod::new(
//!         MethodKind::FilesystemMirror { path: PathBuf::from("/usr/share/terraform/providers") },
//!         vec![ProviderPattern::parse("example.com/*/*", d)?],
//!         vec![],
//!     ),
//!     InstallationMethod::new(
//!         MethodKind::Direct { download_retry_count: None },
//!         vec![],
//!         vec![ProviderPattern::parse("example.com/*/*", d)?],
//!     ),
//! ]);
//! let widget = ProviderSource::parse("example.com/acme/widget", d)?;
//! let choices = installation.methods_for(&widget);
//! assert!(choices[0].handles);
//! assert_eq!(choices[0].reason.to_string(), r#"include pattern "example.com/*/*" matches"#);
//! assert!(!choices[1].handles);
//! assert_eq!(choices[1].reason.to_string(), r#"exclude pattern "example.com/*/*" matches"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod multi_source;
mod pattern;

use std::fmt;
use std::path::PathBuf;

use tfdisco_core::{NetworkMirror, Platform, ProviderSource, Version};

pub use multi_source::{
    AvailableVersions, MethodError, MultiSourceError, available_versions, first_package,
};
pub use pattern::{PatternError, ProviderPattern};

/// What an installation method is, and where it looks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MethodKind {
    /// The provider's own registry (`direct`): discovery on its hostname,
    /// `providers.v1`.
    Direct {
        /// OpenTofu's `download_retry_count`, when set.
        download_retry_count: Option<u32>,
    },
    /// A network mirror (`network_mirror`): the provider network mirror
    /// protocol at an `https:` URL.
    NetworkMirror {
        /// The mirror, its URL checked once (`https:` with a host,
        /// `NetworkMirror::parse`, MIRROR-1).
        mirror: NetworkMirror,
        /// OpenTofu's `download_retry_count`, when set.
        download_retry_count: Option<u32>,
        /// OpenTofu's `trust_all_hashes`, when set.
        trust_all_hashes: Option<bool>,
    },
    /// A local directory (`filesystem_mirror`), in the packed or unpacked
    /// layout.
    FilesystemMirror {
        /// The directory, as written (or, implied, as found).
        path: PathBuf,
    },
    /// OpenTofu's OCI registry mirror (`oci_mirror`), which tfdisco reads
    /// but does not use (INST-10).
    OciMirror {
        /// The `repository_template`, as written.
        repository_template: String,
    },
}

impl MethodKind {
    /// The block's name: `direct`, `network_mirror`, `filesystem_mirror` or
    /// `oci_mirror`.
    pub fn name(&self) -> &'static str {
        match self {
            MethodKind::Direct { .. } => "direct",
            MethodKind::NetworkMirror { .. } => "network_mirror",
            MethodKind::FilesystemMirror { .. } => "filesystem_mirror",
            MethodKind::OciMirror { .. } => "oci_mirror",
        }
    }

    /// Where the method would look for `source`: the provider's registry
    /// host for `direct`, else [`MethodKind::location`].
    pub fn location_for(&self, source: &ProviderSource) -> String {
        match self.location() {
            Some(location) => location,
            None => source.host().display().into_owned(),
        }
    }

    /// Where the method looks: the URL, the directory or the repository
    /// template; `None` for `direct`.
    pub fn location(&self) -> Option<String> {
        match self {
            MethodKind::Direct { .. } => None,
            MethodKind::NetworkMirror { mirror, .. } => Some(mirror.base().to_string()),
            MethodKind::FilesystemMirror { path } => Some(path.display().to_string()),
            MethodKind::OciMirror {
                repository_template,
            } => Some(repository_template.clone()),
        }
    }
}

/// `direct`, or the name and where it looks: `filesystem_mirror
/// /usr/share/terraform/providers`.
impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        if let Some(location) = self.location() {
            write!(f, " {location}")?;
        }
        Ok(())
    }
}

/// One installation method with its `include` and `exclude` patterns (Go's
/// `MultiSourceSelector`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationMethod {
    /// What it is and where it looks.
    pub kind: MethodKind,
    /// The providers it may install; empty means every provider (INST-5).
    pub include: Vec<ProviderPattern>,
    /// The providers it never installs; wins over `include`.
    pub exclude: Vec<ProviderPattern>,
}

impl InstallationMethod {
    /// A method with these patterns.
    pub fn new(
        kind: MethodKind,
        include: Vec<ProviderPattern>,
        exclude: Vec<ProviderPattern>,
    ) -> InstallationMethod {
        InstallationMethod {
            kind,
            include,
            exclude,
        }
    }

    /// Whether the method may install `provider` (Go's
    /// `CanHandleProvider`): not if an `exclude` pattern matches; else if
    /// there are `include` patterns, whether one matches; else yes
    /// (INST-5).
    pub fn can_handle(&self, provider: &ProviderSource) -> bool {
        self.why(provider).0
    }

    /// [`can_handle`](InstallationMethod::can_handle), and the reason.
    fn why(&self, provider: &ProviderSource) -> (bool, Reason) {
        if let Some(pattern) = self.exclude.iter().find(|p| p.matches(provider)) {
            return (false, Reason::Excluded(pattern.clone()));
        }
        if self.include.is_empty() {
            return (true, Reason::NoIncludePatterns);
        }
        match self.include.iter().find(|p| p.matches(provider)) {
            Some(pattern) => (true, Reason::Included(pattern.clone())),
            None => (false, Reason::NotIncluded),
        }
    }
}

/// A `dev_overrides` entry: the provider is used from a local directory by
/// every command but `init` (INST-8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevOverride {
    /// The provider.
    pub provider: ProviderSource,
    /// The directory holding its executable.
    pub dir: PathBuf,
}

/// How providers are installed: the methods in priority order, the
/// `dev_overrides`, and whether this is the configuration implied by the
/// absence of a `provider_installation` block (INST-1, INST-9).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProviderInstallation {
    /// The methods, in priority order.
    pub methods: Vec<InstallationMethod>,
    /// The development overrides.
    pub dev_overrides: Vec<DevOverride>,
    /// True when no `provider_installation` block was given: filesystem
    /// mirrors for the local directories that exist, then `direct` without
    /// the providers found in them.
    pub implied: bool,
    /// For an implied configuration, each provider found in a local
    /// directory and the first directory it was found in: why `direct`
    /// excludes it.
    pub found_locally: Vec<(ProviderSource, PathBuf)>,
}

impl ProviderInstallation {
    /// An explicit configuration of these methods, without overrides.
    pub fn new(methods: Vec<InstallationMethod>) -> ProviderInstallation {
        ProviderInstallation {
            methods,
            ..ProviderInstallation::default()
        }
    }

    /// The configuration implied without a `provider_installation` block
    /// (INST-9): a filesystem mirror without patterns for each directory
    /// that exists, in order, then `direct` excluding exactly each provider
    /// found in them. `found` lists each directory with the providers it
    /// holds.
    pub fn implied(found: Vec<(PathBuf, Vec<ProviderSource>)>) -> ProviderInstallation {
        let mut methods = Vec::new();
        let mut found_locally: Vec<(ProviderSource, PathBuf)> = Vec::new();
        for (dir, providers) in found {
            for provider in providers {
                if !found_locally.iter().any(|(p, _)| *p == provider) {
                    found_locally.push((provider, dir.clone()));
                }
            }
            methods.push(InstallationMethod::new(
                MethodKind::FilesystemMirror { path: dir },
                Vec::new(),
                Vec::new(),
            ));
        }
        let exclude = found_locally
            .iter()
            .map(|(p, _)| ProviderPattern::exact(p))
            .collect();
        methods.push(InstallationMethod::new(
            MethodKind::Direct {
                download_retry_count: None,
            },
            Vec::new(),
            exclude,
        ));
        ProviderInstallation {
            methods,
            dev_overrides: Vec::new(),
            implied: true,
            found_locally,
        }
    }

    /// The development override of `provider`, if there is one.
    pub fn dev_override(&self, provider: &ProviderSource) -> Option<&DevOverride> {
        self.dev_overrides.iter().find(|o| o.provider == *provider)
    }

    /// The methods that may install `provider`, in priority order (the
    /// selectors of Go's `MultiSource` that can handle it).
    pub fn handling<'a>(
        &'a self,
        provider: &'a ProviderSource,
    ) -> impl Iterator<Item = &'a InstallationMethod> + 'a {
        self.methods.iter().filter(|m| m.can_handle(provider))
    }

    /// The union of the versions the methods handling `provider` offer
    /// ([`available_versions`]), asking each with `ask` in priority order.
    /// A configuration without methods offers nothing and is no error, as
    /// in Go.
    pub fn available_versions<E>(
        &self,
        provider: &ProviderSource,
        mut ask: impl FnMut(&InstallationMethod) -> Result<(Vec<Version>, Vec<String>), MethodError<E>>,
    ) -> Result<AvailableVersions, MultiSourceError<E>> {
        if self.methods.is_empty() {
            return Ok(AvailableVersions::default());
        }
        let answers = self
            .handling(provider)
            .map(|m| (m.kind.to_string(), ask(m)))
            .collect::<Vec<_>>();
        available_versions(provider, answers)
    }

    /// The first method handling `provider` that has a package of `version`
    /// for `platform` ([`first_package`]), asking each with `ask` in
    /// priority order and none after it. A configuration without methods
    /// has no such provider (`ProviderNotFound`), as in Go.
    pub fn first_package<T, E>(
        &self,
        provider: &ProviderSource,
        version: &Version,
        platform: &Platform,
        mut ask: impl FnMut(&InstallationMethod) -> Result<T, MethodError<E>>,
    ) -> Result<(&InstallationMethod, T), MultiSourceError<E>> {
        if self.methods.is_empty() {
            return Err(MultiSourceError::ProviderNotFound {
                provider: Box::new(provider.clone()),
                sources: Vec::new(),
            });
        }
        let methods: Vec<&InstallationMethod> = self
            .methods
            .iter()
            .filter(|m| m.can_handle(provider))
            .collect();
        let answers = methods.iter().map(|m| ask(m));
        let (i, package) = first_package(provider, version, platform, answers)?;
        Ok((methods[i], package))
    }

    /// Every method, in priority order, with whether it may install
    /// `provider` and why; a development override for it comes first
    /// (INST-6, INST-8).
    pub fn methods_for(&self, provider: &ProviderSource) -> Vec<MethodChoice<'_>> {
        let mut choices = Vec::new();
        if let Some(over) = self.dev_override(provider) {
            choices.push(MethodChoice {
                choice: Choice::DevOverride(over),
                handles: true,
                reason: Reason::DevOverride {
                    dir: over.dir.clone(),
                },
            });
        }
        for method in &self.methods {
            let (handles, mut reason) = method.why(provider);
            if self.implied
                && matches!(method.kind, MethodKind::Direct { .. })
                && let Reason::Excluded(_) = reason
                && let Some((_, dir)) = self.found_locally.iter().find(|(p, _)| p == provider)
            {
                reason = Reason::FoundLocally { dir: dir.clone() };
            }
            choices.push(MethodChoice {
                choice: Choice::Method(method),
                handles,
                reason,
            });
        }
        choices
    }
}

impl ProviderInstallation {
    /// [`ProviderInstallation::methods_for`] in plain values, as `tfdisco
    /// provider source` prints it and the language packages give it: each
    /// method's name, where it looks for `provider`, its place (from 1; none
    /// for the development override, which comes first), whether it may
    /// install the provider, why, and whether tfdisco installs with it.
    pub fn summary(&self, provider: &ProviderSource) -> Vec<MethodSummary> {
        let mut priority = 0;
        self.methods_for(provider)
            .iter()
            .map(|choice| {
                let reason = choice.reason.to_string();
                match choice.choice {
                    Choice::DevOverride(over) => MethodSummary {
                        method: "dev_overrides",
                        location: over.dir.display().to_string(),
                        priority: None,
                        may_install: choice.handles,
                        reason,
                        supported: true,
                    },
                    Choice::Method(method) => {
                        priority += 1;
                        MethodSummary {
                            method: method.kind.name(),
                            location: method.kind.location_for(provider),
                            priority: Some(priority),
                            may_install: choice.handles,
                            reason,
                            supported: true,
                        }
                    }
                }
            })
            .collect()
    }
}

/// One line of [`ProviderInstallation::summary`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodSummary {
    /// `direct`, `network_mirror`, `filesystem_mirror`, `oci_mirror` or
    /// `dev_overrides`.
    pub method: &'static str,
    /// Where it looks: the registry host (`direct`), the URL, the
    /// directory, the repository template, the override's directory.
    pub location: String,
    /// Its place among the methods, from 1; none for a development
    /// override.
    pub priority: Option<usize>,
    /// Whether it may install the provider.
    pub may_install: bool,
    /// Why, in words.
    pub reason: String,
    /// Whether tfdisco installs with the method: every method since
    /// `oci_mirror` is installed from (kept in the report, which said
    /// `false` for it before).
    pub supported: bool,
}

/// One line of [`ProviderInstallation::methods_for`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodChoice<'a> {
    /// The method (or development override).
    pub choice: Choice<'a>,
    /// Whether it may install the provider.
    pub handles: bool,
    /// Why.
    pub reason: Reason,
}

/// A development override or an installation method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice<'a> {
    /// The `dev_overrides` entry for the provider.
    DevOverride(&'a DevOverride),
    /// An installation method.
    Method(&'a InstallationMethod),
}

/// Why a method may or may not install a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// A development override names the provider.
    DevOverride {
        /// The directory it is used from.
        dir: PathBuf,
    },
    /// This `include` pattern matches it.
    Included(ProviderPattern),
    /// The method has no `include` patterns, so it may install any provider
    /// not excluded.
    NoIncludePatterns,
    /// The method has `include` patterns and none matches.
    NotIncluded,
    /// This `exclude` pattern matches it.
    Excluded(ProviderPattern),
    /// Implied `direct` only: the provider is in this local directory, so
    /// it is never looked up in its registry.
    FoundLocally {
        /// The first directory it was found in.
        dir: PathBuf,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use tfdisco_core::go_quote;
        match self {
            Reason::DevOverride { dir } => write!(
                f,
                "dev_overrides: used from {} by every command but init, which ignores it",
                dir.display()
            ),
            Reason::Included(p) => write!(f, "include pattern {} matches", go_quote(p.as_str())),
            Reason::NoIncludePatterns => f.write_str("no include patterns"),
            Reason::NotIncluded => f.write_str("no include pattern matches"),
            Reason::Excluded(p) => write!(f, "exclude pattern {} matches", go_quote(p.as_str())),
            Reason::FoundLocally { dir } => {
                write!(f, "excluded: found in the local mirror {}", dir.display())
            }
        }
    }
}
