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
pub use package::{Getter, ModuleAddress, ModulePackage, PackageDetector, without_ssh_key};
pub use provider::ProviderSource;

crate::message_error! {
    /// A source address that does not parse, with the Go implementations' words
    /// where they have them (for providers: `Summary: Detail`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SourceError {
        /// The message, without the input (the caller has it).
        message: String,
    }
    pub(crate) fn new;
}

impl SourceError {
    /// A Go `ParserError`: `Summary: Detail`.
    pub(crate) fn parser(summary: &str, detail: impl fmt::Display) -> SourceError {
        SourceError::new(format!("{summary}: {detail}"))
    }
}
