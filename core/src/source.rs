//! Source addresses: the provider and module registry addresses of
//! Terraform and OpenTofu configurations, parsed, normalized and shown as
//! `terraform-registry-address` and `opentofu/registry-address` do
//! (docs/behaviour.md, SRC-1 to SRC-9), and the module package addresses
//! `init` downloads from (PKG-1 to PKG-9).
//!
//! Pure: no I/O. The dialect decides the default registry host, the
//! built-in provider hosts and the reserved type prefixes.

mod module;
mod package;
mod provider;

use std::fmt;

pub use module::ModuleSource;
pub use package::{Getter, ModuleAddress, ModulePackage, PackageDetector};
pub use provider::ProviderSource;

/// A source address that does not parse, with the Go implementations' words
/// where they have them (for providers: `Summary: Detail`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    message: String,
}

impl SourceError {
    pub(crate) fn new(message: impl Into<String>) -> SourceError {
        SourceError {
            message: message.into(),
        }
    }

    /// A Go `ParserError`: `Summary: Detail`.
    pub(crate) fn parser(summary: &str, detail: impl fmt::Display) -> SourceError {
        SourceError::new(format!("{summary}: {detail}"))
    }

    /// The message, without the input (the caller has it).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SourceError {}
