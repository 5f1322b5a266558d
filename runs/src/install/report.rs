//! What an install run reports ([`InstallReport`]): each provider, how its
//! package was got, from where, how many bytes were downloaded; as the one
//! JSON document the CLI's `--json` prints and the language packages
//! return. Failures are [`RunError`](crate::RunError)s, with `lock`'s
//! exit codes.

use std::path::PathBuf;

use serde::Serialize;
use serde::ser::Serializer;

use tfdisco_config::DialectChoice;
use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_provider::Trust;
use tfdisco_provider::plan::Installed;

use crate::report_text::{path_text, text, trust_label};

/// What an install run did: `{"lock_file", "changed", "platform",
/// "providers": [{"source", "version", "installed", "from", "bytes",
/// "hashes_added", "trust", "key_id"}], "warnings", "dialect", "modules":
/// [{"key", "source", "version", "dir", "installed"}]}`.
#[derive(Clone, Debug, Serialize)]
pub struct InstallReport {
    /// The lock file.
    #[serde(rename = "lock_file", serialize_with = "path_text")]
    pub path: PathBuf,
    /// True when its bytes changed (and it was written).
    pub changed: bool,
    /// The platform installed for (the one this program runs on).
    #[serde(serialize_with = "text")]
    pub platform: Platform,
    /// Each provider, in address order.
    pub providers: Vec<InstalledProvider>,
    /// What the run warns about: providers left to a development override,
    /// what the implied mirrors' scans said.
    pub warnings: Vec<String>,
    /// The dialect the run followed, and what chose it (CFG-14).
    pub dialect: DialectChoice,
    /// The modules installed first, as [`GetReport`](crate::GetReport)
    /// lists them.
    pub modules: Vec<crate::InstalledModule>,
}

/// One provider of an [`InstallReport`].
#[derive(Clone, Debug, Serialize)]
pub struct InstalledProvider {
    /// The provider.
    #[serde(serialize_with = "text")]
    pub source: ProviderSource,
    /// The version installed.
    #[serde(serialize_with = "text")]
    pub version: Version,
    /// Kept, linked from the plugin cache, or fetched.
    #[serde(serialize_with = "installed_word")]
    pub installed: Installed,
    /// The installation method its package came from, of those that may
    /// install it (INSTALL-13): `registry`, a network mirror's URL, a
    /// filesystem mirror's folder, an OCI repository; for a package kept,
    /// the first of them.
    pub from: String,
    /// Bytes downloaded (0 when nothing was).
    pub bytes: u64,
    /// The hashes the lock file did not hold before, sorted.
    pub hashes_added: Vec<String>,
    /// How the package is trusted.
    #[serde(serialize_with = "trust_label")]
    pub trust: Trust,
    /// The id of the key that signed its checksums, if one did.
    pub key_id: Option<String>,
}

/// The word for how a package was got: `reused`, `cached` or
/// `downloaded`.
pub fn install_word(installed: Installed) -> &'static str {
    match installed {
        Installed::Reused => "reused",
        Installed::FromCache => "cached",
        _ => "downloaded",
    }
}

/// [`install_word`], for `#[serde(serialize_with)]`.
fn installed_word<S: Serializer>(installed: &Installed, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(install_word(*installed))
}
