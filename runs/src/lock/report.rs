//! What a lock run reports: the providers locked ([`LockReport`]), or why
//! the run failed ([`RunError`]) with the CLI's exit code for it; each as
//! the one JSON document the CLI's `--json` prints and the Python and Node
//! packages return.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};

use tfdisco_config::{ConfigurationError, DialectChoice, LockFileError};
use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_provider::Trust;
use tfdisco_provider::plan::LockFailure;

use crate::ModuleFailure;
use crate::exit;
use crate::report_text::{path_text, text, trust_label, words};

/// What a lock run did: `{"lock_file", "changed", "platforms",
/// "providers": [{"source", "version", "constraints", "hashes_added",
/// "trust", "key_id"}], "dialect": {"name", "chosen_by", "why"}}`.
#[derive(Clone, Debug, Serialize)]
pub struct LockReport {
    /// The lock file.
    #[serde(rename = "lock_file", serialize_with = "path_text")]
    pub path: PathBuf,
    /// True when its bytes changed (and it was written).
    pub changed: bool,
    /// The platforms locked.
    #[serde(serialize_with = "words")]
    pub platforms: Vec<Platform>,
    /// Each provider locked, in address order.
    pub providers: Vec<ProviderReport>,
    /// The dialect the run followed, and what chose it (CFG-14).
    pub dialect: DialectChoice,
}

/// One provider of a [`LockReport`].
#[derive(Clone, Debug, Serialize)]
pub struct ProviderReport {
    /// The provider.
    #[serde(serialize_with = "text")]
    pub source: ProviderSource,
    /// The version locked.
    #[serde(serialize_with = "text")]
    pub version: Version,
    /// Its constraints as the lock file writes them (empty: none).
    pub constraints: String,
    /// The hashes the lock file did not hold before, sorted.
    pub hashes_added: Vec<String>,
    /// How the key that signed its checksums is trusted.
    #[serde(serialize_with = "trust_label")]
    pub trust: Trust,
    /// That key's id (none when OpenTofu skipped the signature).
    pub key_id: Option<String>,
}

/// Why a lock run failed; the lock file is then as it was.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// The configuration does not parse, or has modules not read.
    Configuration(ConfigurationError),
    /// The lock file cannot be read, or not written.
    LockFile(LockFileError),
    /// A provider named is not one the configuration requires, or a
    /// constraint cannot be read.
    Usage(String),
    /// Providers that could not be locked (or installed): every failure.
    Failed(Vec<LockFailure>),
    /// Install runs: the lock file would change and `--lockfile readonly`
    /// was given; nothing was installed.
    ReadOnly(String),
    /// A mirror folder could not be read (`-fs-mirror`) or written
    /// (`tfdisco mirror`), or a package not placed (`tfdisco install`).
    Folder {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Install runs: the run was cancelled (`Cancel`, Ctrl-C); nothing was
    /// placed and the lock file is as it was.
    Cancelled,
    /// Modules that could not be installed: every failure. Nothing was
    /// placed and the module manifest is as it was.
    Modules(Vec<ModuleFailure>),
}

impl RunError {
    /// How an error about the file or folder `path` becomes a
    /// [`RunError::Folder`]: `.map_err(RunError::in_folder(path))`.
    pub(crate) fn in_folder<E>(path: &std::path::Path) -> impl FnOnce(E) -> RunError + use<E>
    where
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let path = path.to_owned();
        move |error| RunError::Folder {
            path,
            error: error.into(),
        }
    }

    /// What failed, in one word, as `tfdisco lock --json` and the language
    /// packages name it: `configuration`, `lock_file`, `usage`, `failed`,
    /// `readonly`, `folder`, `cancelled` or `modules`.
    pub fn kind(&self) -> &'static str {
        match self {
            RunError::Configuration(_) => "configuration",
            RunError::LockFile(_) => "lock_file",
            RunError::Usage(_) => "usage",
            RunError::Failed(_) => "failed",
            RunError::ReadOnly(_) => "readonly",
            RunError::Folder { .. } => "folder",
            RunError::Cancelled => "cancelled",
            RunError::Modules(_) => "modules",
        }
    }

    /// `tfdisco lock`'s (and `tfdisco mirror`'s) exit code, which the
    /// Python and Node packages give as the error's `exit_code`: 2 for the
    /// configuration, the lock file's contents or the arguments; 3 when no
    /// version or platform fits, or the lock file would change under
    /// `--lockfile readonly`; 1 for a failed request, verification or
    /// write; 130 for a cancelled run (a shell's code for Ctrl-C).
    pub fn exit_code(&self) -> i32 {
        let code = match self {
            RunError::Cancelled => exit::CANCELLED,
            RunError::Configuration(_) | RunError::Usage(_) => exit::USAGE,
            RunError::ReadOnly(_) => exit::NOT_PROVIDED,
            RunError::LockFile(LockFileError::Io { .. }) | RunError::Folder { .. } => exit::FAILED,
            RunError::LockFile(_) => exit::USAGE,
            RunError::Modules(failures) => {
                return failures
                    .iter()
                    .map(|f| f.kind.exit_code())
                    .find(|code| *code != i32::from(exit::NOT_PROVIDED))
                    .unwrap_or(i32::from(exit::NOT_PROVIDED));
            }
            RunError::Failed(failures) => {
                return failures
                    .iter()
                    .map(failure_exit_code)
                    .find(|code| *code != i32::from(exit::NOT_PROVIDED))
                    .unwrap_or(i32::from(exit::NOT_PROVIDED));
            }
        };
        i32::from(code)
    }
}

/// The exit code a provider's failure alone would give `tfdisco lock`: 3
/// when nothing offered fits (`LockFailure::is_unavailable`), 1 for a failed
/// request, download, local file or verification.
pub fn failure_exit_code(failure: &LockFailure) -> i32 {
    i32::from(if failure.is_unavailable() {
        exit::NOT_PROVIDED
    } else {
        exit::FAILED
    })
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Configuration(e) => {
                f.write_str("the configuration cannot be read:")?;
                for diagnostic in e.diagnostics() {
                    write!(f, "\n- {}", diagnostic.located())?;
                }
                Ok(())
            }
            RunError::LockFile(e) => write!(f, "{e}"),
            RunError::Usage(message) | RunError::ReadOnly(message) => f.write_str(message),
            RunError::Folder { path, error } => {
                write!(f, "cannot use {}: {error}", path.display())
            }
            RunError::Failed(failures) => {
                f.write_str("some providers could not be installed:")?;
                for failure in failures {
                    write!(f, "\n- {failure}")?;
                }
                Ok(())
            }
            RunError::Cancelled => f.write_str(
                "the install was cancelled: nothing was placed, and the lock file is as it was",
            ),
            RunError::Modules(failures) => {
                f.write_str("some modules could not be installed:")?;
                for failure in failures {
                    write!(f, "\n- {failure}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for RunError {}

/// `{"error": {"kind", "message", "exit_code"}, "failures": [{"source",
/// "version", "platform", "kind", "message", "exit_code"}]}`: the failures
/// of [`RunError::Failed`], none for the others.
impl Serialize for RunError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Head {
            kind: &'static str,
            message: String,
            exit_code: i32,
        }
        let failures: &[LockFailure] = match self {
            RunError::Failed(failures) => failures,
            _ => &[],
        };
        let mut map = serializer.serialize_struct("RunError", 2)?;
        map.serialize_field(
            "error",
            &Head {
                kind: self.kind(),
                message: self.to_string(),
                exit_code: self.exit_code(),
            },
        )?;
        match self {
            RunError::Modules(modules) => map.serialize_field("failures", modules)?,
            _ => map.serialize_field("failures", &Failures(failures))?,
        }
        map.end()
    }
}

struct Failures<'a>(&'a [LockFailure]);

impl Serialize for Failures<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Failure {
            source: String,
            version: Option<String>,
            platform: Option<String>,
            kind: &'static str,
            message: String,
            exit_code: i32,
        }
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for f in self.0 {
            seq.serialize_element(&Failure {
                source: f.source.to_string(),
                version: f.version.as_ref().map(ToString::to_string),
                platform: f.platform.as_ref().map(ToString::to_string),
                kind: f.kind(),
                message: f.to_string(),
                exit_code: failure_exit_code(f),
            })?;
        }
        seq.end()
    }
}
