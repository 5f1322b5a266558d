//! How a CLI configuration installs a provider, as `tfdisco provider source`
//! shows it and the language packages give it (docs/behaviour.md, INST-1 to
//! INST-12): the explicit-or-implied choice of the `provider_installation`
//! configuration made once, here, with the implied mirrors' warnings, and
//! its one JSON document.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use tfdisco_core::{Dialect, Env, ProviderSource};
use tfdisco_provider::{
    Choice, InstallationMethod, MethodKind, MethodSummary, ProviderInstallation,
};

use crate::implied::{implied_mirror_diagnostics, implied_provider_installation};
use crate::{CliConfig, Diagnostic, Severity, oci_repository};

/// The configuration a CLI configuration installs providers with (INST-1,
/// INST-9): its first `provider_installation` block, or the implied one.
#[derive(Clone, Debug)]
pub struct InstallationChoice {
    /// The methods, in priority order, and the development overrides.
    pub installation: ProviderInstallation,
    /// The block the methods come from: its file and line; `None` for the
    /// implied configuration.
    pub block: Option<(PathBuf, usize)>,
    /// The working directory the implied configuration looked in.
    pub working_directory: PathBuf,
    /// What the implied mirrors' scans said (paths that are no package, a
    /// folder that cannot be read), as warnings: the CLIs log them.
    pub warnings: Vec<Diagnostic>,
}

impl CliConfig {
    /// How providers are installed with this configuration (INST-1,
    /// INST-9): its first `provider_installation` block, checked; or, when
    /// it has none, the implied configuration for the working directory
    /// `cwd`, read from the configuration's environment
    /// ([`CliConfig::env`]; none for [`CliConfig::from_sources`]), with its
    /// mirrors' warnings.
    pub fn provider_installation(&self, cwd: &Path) -> InstallationChoice {
        let working_directory = cwd.to_owned();
        if let (Some(explicit), Some(first)) = (
            self.explicit_provider_installation(),
            self.provider_installation_blocks().first(),
        ) {
            return InstallationChoice {
                installation: explicit.clone(),
                block: Some((first.file().to_owned(), first.line())),
                working_directory,
                warnings: Vec::new(),
            };
        }
        let empty = Env::empty();
        let env = self.env().unwrap_or(&empty);
        let (installation, mirrors) = implied_provider_installation(self.dialect(), env, cwd);
        InstallationChoice {
            installation,
            block: None,
            working_directory,
            warnings: implied_mirror_diagnostics(&mirrors),
        }
    }

    /// Which installation methods would install `source`, in priority
    /// order, and why (INST-6 to INST-12), with every diagnostic: the
    /// configuration's, then the implied mirrors' warnings.
    pub fn installation_report(&self, source: &ProviderSource, cwd: &Path) -> InstallationReport {
        let choice = self.provider_installation(cwd);
        let installation = &choice.installation;
        let methods = installation
            .summary(source)
            .into_iter()
            .zip(installation.methods_for(source))
            .map(|(summary, choice)| {
                let oci = match choice.choice {
                    Choice::Method(InstallationMethod {
                        kind:
                            MethodKind::OciMirror {
                                repository_template,
                            },
                        ..
                    }) => Some(oci_repository(repository_template, source)),
                    _ => None,
                };
                MethodReport { summary, oci }
            })
            .collect();
        let mut diagnostics = self.diagnostics().to_vec();
        diagnostics.extend(choice.warnings.iter().cloned());
        InstallationReport {
            source: source.clone(),
            dialect: self.dialect(),
            choice,
            methods,
            diagnostics,
        }
    }
}

/// Which installation methods would install a provider, and why
/// ([`CliConfig::installation_report`]).
#[derive(Clone, Debug)]
pub struct InstallationReport {
    /// The provider asked about.
    pub source: ProviderSource,
    /// Whose rules.
    pub dialect: Dialect,
    /// The configuration the methods come from.
    pub choice: InstallationChoice,
    /// Every method, a development override first, with what it says of
    /// the provider.
    pub methods: Vec<MethodReport>,
    /// The CLI configuration's diagnostics, then the implied mirrors'
    /// warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl InstallationReport {
    /// Whether some installation method (not a development override) may
    /// install the provider.
    pub fn may_install(&self) -> bool {
        self.methods
            .iter()
            .any(|m| m.summary.may_install && m.summary.priority.is_some())
    }
}

/// One line of an [`InstallationReport`].
#[derive(Clone, Debug)]
pub struct MethodReport {
    /// The method, where it looks, whether it may install the provider and
    /// why.
    pub summary: MethodSummary,
    /// For an `oci_mirror`, the registry and repository its template maps
    /// the provider to, or why it maps it to none (INST-10).
    pub oci: Option<Result<(String, String), String>>,
}

/// `{"source", "dialect", "configuration": {"implied", "file", "line",
/// "working_directory"}, "methods": [{"priority", "method", "location",
/// "may_install", "reason", "supported", "oci"?}], "diagnostics":
/// [{"severity", "message", "file", "line"}]}`; `oci` (`{"registry",
/// "repository"}` or `{"error"}`) only for an `oci_mirror`.
impl Serialize for InstallationReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Configuration {
            implied: bool,
            file: Option<String>,
            line: Option<usize>,
            working_directory: String,
        }
        let block = self.choice.block.as_ref();
        let mut map = serializer.serialize_struct("InstallationReport", 5)?;
        map.serialize_field("source", &self.source.to_string())?;
        map.serialize_field("dialect", self.dialect.name())?;
        map.serialize_field(
            "configuration",
            &Configuration {
                implied: self.choice.installation.implied,
                file: block.map(|(file, _)| file.display().to_string()),
                line: block.map(|(_, line)| *line),
                working_directory: self.choice.working_directory.display().to_string(),
            },
        )?;
        map.serialize_field("methods", &self.methods)?;
        map.serialize_field("diagnostics", &self.diagnostics)?;
        map.end()
    }
}

impl Serialize for MethodReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Oci<'a> {
            Repository {
                registry: &'a str,
                repository: &'a str,
            },
            Error {
                error: &'a str,
            },
        }
        let s = &self.summary;
        let mut map = serializer.serialize_struct("MethodReport", 7)?;
        map.serialize_field("priority", &s.priority)?;
        map.serialize_field("method", s.method)?;
        map.serialize_field("location", &s.location)?;
        map.serialize_field("may_install", &s.may_install)?;
        map.serialize_field("reason", &s.reason)?;
        map.serialize_field("supported", &s.supported)?;
        match &self.oci {
            Some(Ok((registry, repository))) => map.serialize_field(
                "oci",
                &Oci::Repository {
                    registry,
                    repository,
                },
            )?,
            Some(Err(error)) => map.serialize_field("oci", &Oci::Error { error })?,
            None => map.skip_field("oci")?,
        }
        map.end()
    }
}

/// `{"severity", "message", "file", "line"}`.
impl Serialize for Diagnostic {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("Diagnostic", 4)?;
        map.serialize_field(
            "severity",
            match self.severity() {
                Severity::Error => "error",
                _ => "warning",
            },
        )?;
        map.serialize_field("message", &self.to_string())?;
        map.serialize_field("file", &self.file().map(|f| f.display().to_string()))?;
        map.serialize_field("line", &self.line())?;
        map.end()
    }
}
