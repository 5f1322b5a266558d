//! tfdisco's module lock, `.tfdisco.modules.lock.json`: for each module a
//! configuration installs from somewhere else than a local path, its
//! source, its version (registry modules) and what identifies the package
//! it came from (docs/behaviour.md, MOD-12). Neither CLI has one; the format
//! is tfdisco's and stays stable:
//!
//! ```json
//! {
//!   "version": 1,
//!   "modules": {
//!     "net": {
//!       "source": "registry.example.test/acme/net/aws",
//!       "version": "1.1.0",
//!       "hash": "h1:…"
//!     },
//!     "vpc": {
//!       "source": "git::https://example.com/vpc.git?ref=v2",
//!       "hash": "git:3f786850e387550fdab836ed7e6dc881de23001b"
//!     }
//!   }
//! }
//! ```
//!
//! `hash` is `h1:` (the package's files, as a provider package's `h1:`)
//! for an archive, `git:` and the commit checked out for a Git repository,
//! the manifest's digest (`sha256:…`) for an `oci://` package. Written
//! only when asked (`tfdisco get --lock`); read and checked whenever it is
//! there.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Diagnostic;
use crate::hcl_text;

/// The module lock's file name, in the configuration's folder.
pub const MODULE_LOCK_FILE: &str = ".tfdisco.modules.lock.json";

/// The format's version, `1`.
const FORMAT: u32 = 1;

/// One module's entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleLockEntry {
    /// The call's source, as the module manifest records it.
    pub source: String,
    /// The version installed, for a registry module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What identifies the package: `h1:…`, `git:COMMIT` or `sha256:…`.
    pub hash: String,
}

/// A module lock: entries by module key.
///
/// ```
/// use tfdisco_config::{ModuleLock, ModuleLockEntry};
///
/// let mut lock = ModuleLock::default();
/// lock.modules.insert(
///     "vpc".into(),
///     ModuleLockEntry {
///         source: "git::https://example.com/vpc.git?ref=v2".into(),
///         version: None,
///         hash: "git:3f786850e387550fdab836ed7e6dc881de23001b".into(),
///     },
/// );
/// let text = String::from_utf8(lock.to_bytes()).unwrap();
/// assert!(text.starts_with("{\n  \"version\": 1,\n  \"modules\": {\n    \"vpc\": {"));
/// assert_eq!(ModuleLock::parse(&text).unwrap(), lock);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleLock {
    /// The entries, by key.
    pub modules: BTreeMap<String, ModuleLockEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    version: u32,
    #[serde(default)]
    modules: BTreeMap<String, ModuleLockEntry>,
}

impl ModuleLock {
    /// Reads `root`'s module lock; `None` when there is none. A file that
    /// is not the document, or of another format version, is an error.
    pub fn read(root: &Path) -> Result<Option<ModuleLock>, Diagnostic> {
        let path = root.join(MODULE_LOCK_FILE);
        match hcl_text::read_limited(&path) {
            Ok(text) => ModuleLock::parse(&text)
                .map(Some)
                .map_err(|detail| failed(detail).at(&path, None)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(failed(e.to_string()).at(&path, None)),
        }
    }

    /// The lock a document's text holds.
    pub fn parse(text: &str) -> Result<ModuleLock, String> {
        let document: Document = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if document.version != FORMAT {
            return Err(format!(
                "format version {} is not one this tfdisco reads (it reads {FORMAT})",
                document.version
            ));
        }
        Ok(ModuleLock {
            modules: document.modules,
        })
    }

    /// The document: two-space indentation, keys in the order above,
    /// modules sorted by key, a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let document = Document {
            version: FORMAT,
            modules: self.modules.clone(),
        };
        let mut bytes = serde_json::to_vec_pretty(&document).expect("a lock serializes");
        bytes.push(b'\n');
        bytes
    }

    /// Writes the lock into `root`, replacing the file atomically.
    pub fn write(&self, root: &Path) -> io::Result<()> {
        crate::write_atomically(&root.join(MODULE_LOCK_FILE), &self.to_bytes())
    }
}

fn failed(detail: String) -> Diagnostic {
    Diagnostic::with_detail("Failed to read the module lock", detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_versions_and_unknown_members_are_refused() {
        assert!(ModuleLock::parse(r#"{"version": 2, "modules": {}}"#).is_err());
        assert!(ModuleLock::parse(r#"{"version": 1, "extra": 1}"#).is_err());
        assert_eq!(
            ModuleLock::parse(r#"{"version": 1}"#).expect("empty"),
            ModuleLock::default()
        );
    }
}
