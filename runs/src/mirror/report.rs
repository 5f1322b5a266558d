//! What a mirror run reports ([`MirrorReport`]), as the one JSON document
//! the CLI's `--json` prints and the Python and Node packages return.

use std::path::PathBuf;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use tfdisco_config::DialectChoice;
use tfdisco_core::{Platform, ProviderSource, Version};
use tfdisco_provider::Trust;

use crate::report_text::{Words, text, trust_label};

/// What a mirror run did.
#[derive(Clone, Debug)]
pub struct MirrorReport {
    /// The mirror folder.
    pub folder: PathBuf,
    /// The platforms mirrored.
    pub platforms: Vec<Platform>,
    /// Each provider mirrored, in address order.
    pub providers: Vec<MirroredProvider>,
    /// Every `index.json` and `<version>.json` written.
    pub indexes: Vec<PathBuf>,
    /// Archives of the folder left out of the indexes, and why.
    pub skipped: Vec<(PathBuf, String)>,
    /// What the folder's scan said about paths that are no package.
    pub warnings: Vec<String>,
    /// The dialect the run followed, and what chose it (CFG-14).
    pub dialect: DialectChoice,
}

/// One provider of a [`MirrorReport`]: `{"source", "version",
/// "constraints", "locked", "trust", "key_id", "archives"}`.
#[derive(Clone, Debug, Serialize)]
pub struct MirroredProvider {
    /// The provider.
    #[serde(serialize_with = "text")]
    pub source: ProviderSource,
    /// The version mirrored.
    #[serde(serialize_with = "text")]
    pub version: Version,
    /// Its constraints as the lock file writes them (empty: none).
    pub constraints: String,
    /// True when the lock file decided the version.
    pub locked: bool,
    /// How the key that signed its checksums is trusted.
    #[serde(serialize_with = "trust_label")]
    pub trust: Trust,
    /// That key's id (none when OpenTofu skipped the signature).
    pub key_id: Option<String>,
    /// The archives written, one per platform.
    #[serde(serialize_with = "path_texts")]
    pub archives: Vec<PathBuf>,
}

/// `{"folder", "platforms", "indexes", "providers": [{"source", "version",
/// "constraints", "locked", "trust", "key_id", "archives"}], "skipped":
/// [{"path", "why"}], "warnings", "dialect": {"name", "chosen_by", "why"}}`.
impl Serialize for MirrorReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Skipped {
            path: String,
            why: String,
        }
        let skipped: Vec<Skipped> = self
            .skipped
            .iter()
            .map(|(path, why)| Skipped {
                path: path.display().to_string(),
                why: why.clone(),
            })
            .collect();
        let mut map = serializer.serialize_struct("MirrorReport", 7)?;
        map.serialize_field("folder", &self.folder.display().to_string())?;
        map.serialize_field("platforms", &Words(&self.platforms))?;
        map.serialize_field("indexes", &paths(&self.indexes))?;
        map.serialize_field("providers", &self.providers)?;
        map.serialize_field("skipped", &skipped)?;
        map.serialize_field("warnings", &self.warnings)?;
        map.serialize_field("dialect", &self.dialect)?;
        map.end()
    }
}

fn paths(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| p.display().to_string()).collect()
}

/// [`paths`], for `#[serde(serialize_with)]`.
fn path_texts<S: Serializer>(list: &[PathBuf], serializer: S) -> Result<S::Ok, S::Error> {
    paths(list).serialize(serializer)
}
