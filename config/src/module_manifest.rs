//! The module manifest, `.terraform/modules/modules.json`: what `init`
//! installed for each module call, read as Terraform reads it and written
//! byte for byte as it writes it (docs/behaviour.md, MOD-2).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use tfdisco_core::go_json_string;

use crate::Diagnostic;
use crate::hcl_text;

/// The module manifest's path, relative to the root directory.
pub const MANIFEST: &str = ".terraform/modules/modules.json";

/// The folder modules are installed in, relative to the root directory.
pub const MODULES_DIR: &str = ".terraform/modules";

/// One module's record: its key (`""` for the root module, `vpc`,
/// `vpc.subnets`), its source as the call wrote it (normalized), its
/// version (registry modules only), and its folder relative to the root
/// directory, `/`-separated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleRecord {
    /// The module's key.
    pub key: String,
    /// The call's source address.
    pub source: String,
    /// The version installed, for a registry module.
    pub version: Option<String>,
    /// Where the module is (`.`, `modules/net`, `.terraform/modules/vpc`).
    pub dir: String,
}

/// The records of a module manifest, by key.
///
/// ```
/// use tfdisco_config::{ModuleManifest, ModuleRecord};
///
/// let mut manifest = ModuleManifest::new();
/// manifest.insert(ModuleRecord {
///     key: "vpc".into(),
///     source: "registry.terraform.io/acme/vpc/aws".into(),
///     version: Some("1.2.0".into()),
///     dir: ".terraform/modules/vpc".into(),
/// });
/// assert_eq!(
///     String::from_utf8(manifest.to_bytes()).unwrap(),
///     r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"vpc","Source":"registry.terraform.io/acme/vpc/aws","Version":"1.2.0","Dir":".terraform/modules/vpc"}]}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleManifest {
    records: BTreeMap<String, ModuleRecord>,
}

impl ModuleManifest {
    /// A manifest holding only the root module's record.
    pub fn new() -> ModuleManifest {
        let mut manifest = ModuleManifest::default();
        manifest.insert(ModuleRecord {
            key: String::new(),
            source: String::new(),
            version: None,
            dir: ".".to_owned(),
        });
        manifest
    }

    /// Reads `root`'s manifest as Terraform reads it: a missing or empty
    /// file holds no records; two records of one key, or a file that is
    /// not the JSON document, are an error ("Failed to read module
    /// manifest").
    pub fn read(root: &Path) -> Result<ModuleManifest, Diagnostic> {
        let path = root.join(MANIFEST);
        let text = match hcl_text::read_limited(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(ModuleManifest::default()),
            Err(e) => return Err(failed(e.to_string()).at(&path, None)),
        };
        ModuleManifest::parse(&text).map_err(|(detail, line)| failed(detail).at(&path, line))
    }

    /// The records of a manifest's text; an error says why (and where).
    fn parse(text: &str) -> Result<ModuleManifest, (String, Option<usize>)> {
        #[derive(serde::Deserialize)]
        struct Snapshot {
            #[serde(rename = "Modules", default)]
            modules: Vec<Record>,
        }
        #[derive(serde::Deserialize)]
        struct Record {
            #[serde(rename = "Key", default)]
            key: String,
            #[serde(rename = "Source", default)]
            source: String,
            #[serde(rename = "Version", default)]
            version: String,
            #[serde(rename = "Dir", default)]
            dir: String,
        }
        let mut manifest = ModuleManifest::default();
        if text.is_empty() {
            return Ok(manifest);
        }
        let snapshot: Snapshot = serde_json::from_str(text)
            .map_err(|e| (format!("error unmarshalling snapshot: {e}"), Some(e.line())))?;
        for record in snapshot.modules {
            if manifest.records.contains_key(&record.key) {
                return Err((
                    format!("snapshot file contains two records for path {}", record.key),
                    None,
                ));
            }
            manifest.insert(ModuleRecord {
                key: record.key,
                source: record.source,
                version: (!record.version.is_empty()).then_some(record.version),
                dir: record.dir,
            });
        }
        Ok(manifest)
    }

    /// The record of `key`.
    pub fn get(&self, key: &str) -> Option<&ModuleRecord> {
        self.records.get(key)
    }

    /// Adds (or replaces) a record.
    pub fn insert(&mut self, record: ModuleRecord) {
        self.records.insert(record.key.clone(), record);
    }

    /// The records, sorted by key.
    pub fn records(&self) -> impl ExactSizeIterator<Item = &ModuleRecord> {
        self.records.values()
    }

    /// The manifest as Terraform writes it: Go's `json.Marshal` of
    /// `{"Modules": [...]}`, records sorted by key, each `Key`, `Source`,
    /// `Version` (only when set) and `Dir`, one line without a final
    /// newline, `<`, `>` and `&` escaped as Go escapes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::from("{\"Modules\":[");
        for (i, record) in self.records.values().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"Key\":{},\"Source\":{}",
                go_json_string(&record.key),
                go_json_string(&record.source)
            );
            if let Some(version) = &record.version {
                let _ = write!(out, ",\"Version\":{}", go_json_string(version));
            }
            let _ = write!(out, ",\"Dir\":{}}}", go_json_string(&record.dir));
        }
        out.push_str("]}");
        out.into_bytes()
    }

    /// Writes the manifest into `root/.terraform/modules/modules.json`,
    /// replacing the file atomically (the folder must exist).
    pub fn write(&self, root: &Path) -> io::Result<()> {
        crate::write_atomically(&root.join(MANIFEST), &self.to_bytes())
    }
}

/// "Failed to read module manifest", with `detail`.
fn failed(detail: String) -> Diagnostic {
    Diagnostic::with_detail("Failed to read module manifest", detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let mut manifest = ModuleManifest::new();
        manifest.insert(ModuleRecord {
            key: "a.b".into(),
            source: "git::https://example.com/x.git?depth=1&ref=v1".into(),
            version: None,
            dir: ".terraform/modules/a.b".into(),
        });
        let bytes = manifest.to_bytes();
        let text = String::from_utf8(bytes).expect("UTF-8");
        assert!(text.contains(r"?depth=1\u0026ref=v1"), "{text}");
        assert!(!text.ends_with('\n'));
        assert_eq!(ModuleManifest::parse(&text).expect("parses"), manifest);
    }

    #[test]
    fn refuses_two_records_of_one_key() {
        let text = r#"{"Modules":[{"Key":"a","Dir":"x"},{"Key":"a","Dir":"y"}]}"#;
        let (detail, _) = ModuleManifest::parse(text).expect_err("two records");
        assert_eq!(detail, "snapshot file contains two records for path a");
        assert_eq!(
            ModuleManifest::parse("").expect("empty"),
            ModuleManifest::default()
        );
    }
}
