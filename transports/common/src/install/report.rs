//! What an install run reports ([`InstallReport`]): each provider, how its
//! package was got, from where, how many bytes were downloaded; as the one
//! JSON document the CLI's `--json` prints and the language packages
//! return. Failures are [`LockError`](crate::LockError)s, with `lock`'s
//! exit codes.

use std::path::PathBuf;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use tfdisco_config::DialectChoice;
use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_provider::Trust;
use tfdisco_provider::lock_plan::Installed;

/// What an install run did.
#[derive(Clone, Debug)]
pub struct InstallReport {
    /// The lock file.
    pub path: PathBuf,
    /// True when its bytes changed (and it was written).
    pub changed: bool,
    /// The platform installed for (the one this program runs on).
    pub platform: Platform,
    /// Each provider, in address order.
    pub providers: Vec<InstalledProvider>,
    /// What the run warns about: providers left to a development override,
    /// what the implied mirrors' scans said.
    pub warnings: Vec<String>,
    /// The dialect the run followed, and what chose it (CFG-14).
    pub dialect: DialectChoice,
}

/// One provider of an [`InstallReport`].
#[derive(Clone, Debug)]
pub struct InstalledProvider {
    /// The provider.
    pub source: ProviderSource,
    /// The version installed.
    pub version: Version,
    /// Kept, linked from the plugin cache, or fetched.
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

/// `{"lock_file", "changed", "platform", "providers": [{"source", "version",
/// "installed", "from", "bytes", "hashes_added", "trust", "key_id"}],
/// "warnings"}`.
impl Serialize for InstallReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("InstallReport", 6)?;
        map.serialize_field("lock_file", &self.path.display().to_string())?;
        map.serialize_field("changed", &self.changed)?;
        map.serialize_field("platform", &self.platform.to_string())?;
        map.serialize_field("providers", &self.providers)?;
        map.serialize_field("warnings", &self.warnings)?;
        map.serialize_field("dialect", &self.dialect)?;
        map.end()
    }
}

impl Serialize for InstalledProvider {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("InstalledProvider", 8)?;
        map.serialize_field("source", &self.source.to_string())?;
        map.serialize_field("version", &self.version.to_string())?;
        map.serialize_field("installed", install_word(self.installed))?;
        map.serialize_field("from", &self.from)?;
        map.serialize_field("bytes", &self.bytes)?;
        map.serialize_field("hashes_added", &self.hashes_added)?;
        map.serialize_field("trust", self.trust.label())?;
        map.serialize_field("key_id", &self.key_id)?;
        map.end()
    }
}
