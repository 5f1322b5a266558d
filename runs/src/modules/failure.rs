//! Why a module could not be installed: the module's key, what kind of
//! failure, and the diagnostic as `init` words it.

use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use tfdisco_config::Diagnostic;

use crate::exit;

/// What kind of failure a [`ModuleFailure`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// A module's files cannot be read, or a call is not well formed.
    Configuration,
    /// A `source` that is no module address.
    InvalidSource,
    /// No version of a registry module fits its constraint (or it has
    /// none).
    NoVersion,
    /// The module registry failed or said no (versions, location).
    Registry,
    /// The package could not be downloaded, unpacked or checked out, or
    /// has no such subdirectory.
    Download,
}

impl FailureKind {
    /// The kind in one word, as `--json` names it: `configuration`,
    /// `invalid_source`, `no_version`, `registry` or `download`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Configuration => "configuration",
            FailureKind::InvalidSource => "invalid_source",
            FailureKind::NoVersion => "no_version",
            FailureKind::Registry => "registry",
            FailureKind::Download => "download",
        }
    }

    /// The exit code the failure alone gives: 3 when no version fits
    /// (as for providers), 2 for the configuration, 1 otherwise.
    pub fn exit_code(self) -> i32 {
        i32::from(match self {
            FailureKind::NoVersion => exit::NOT_PROVIDED,
            FailureKind::Configuration | FailureKind::InvalidSource => exit::USAGE,
            FailureKind::Registry | FailureKind::Download => exit::FAILED,
        })
    }
}

/// A module that could not be installed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ModuleFailure {
    /// The module's key (`vpc`, `vpc.subnets`; `""` for the root module).
    pub key: String,
    /// What kind of failure.
    pub kind: FailureKind,
    /// What `init` would say: summary, detail, the call's file and line.
    pub diagnostic: Diagnostic,
}

impl fmt::Display for ModuleFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            f.write_str(&self.diagnostic.located())
        } else {
            write!(f, "module.{}: {}", self.key, self.diagnostic.located())
        }
    }
}

/// `{"key", "kind", "message", "exit_code"}`.
impl Serialize for ModuleFailure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ModuleFailure", 4)?;
        map.serialize_field("key", &self.key)?;
        map.serialize_field("kind", self.kind.as_str())?;
        map.serialize_field("message", &self.diagnostic.located())?;
        map.serialize_field("exit_code", &self.kind.exit_code())?;
        map.end()
    }
}
