//! How the reports write their values as JSON, for
//! `#[serde(serialize_with)]`: as their text, as CLI words.

use std::fmt;
use std::path::Path;

use serde::{Serialize, Serializer};
use tfdisco_core::Platform;
use tfdisco_provider::Trust;

/// A report's value as its text (`hashicorp/aws`, `5.0.0`,
/// `linux_amd64`), for `#[serde(serialize_with)]`.
pub(crate) fn text<T: fmt::Display, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

/// A report's path as its text, for `#[serde(serialize_with)]`.
pub(crate) fn path_text<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.display().to_string())
}

/// A report's platforms as their text, in a list, for
/// `#[serde(serialize_with)]`.
pub(crate) fn words<S: Serializer>(
    platforms: &[Platform],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    Words(platforms).serialize(serializer)
}

/// How a package is trusted, as the CLI names it ([`Trust::label`]), for
/// `#[serde(serialize_with)]`.
pub(crate) fn trust_label<S: Serializer>(trust: &Trust, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(trust.label())
}

/// Values as their text (`linux_amd64`), in a list.
pub(crate) struct Words<'a, T>(pub(crate) &'a [T]);

impl<T: fmt::Display> Serialize for Words<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(ToString::to_string))
    }
}
