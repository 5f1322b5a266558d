//! The documents of a mirror folder as `terraform providers mirror` writes
//! them (docs/behaviour.md, MIRROR-10): Go's `json.MarshalIndent(v, "", "  ")`
//! of maps, so keys sorted as strings, two spaces of indentation, `<`, `>`
//! and `&` escaped as Go escapes them, and no newline at the end.

use std::collections::BTreeMap;

use tfdisco_core::go_json_string as quoted;

/// One archive of a `<version>.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveEntry {
    /// Its hashes, as listed (`h1:…`, `zh:…`).
    pub hashes: Vec<String>,
    /// Its URL relative to the document: the file name.
    pub url: String,
}

/// `index.json`: `{"versions": {"<version>": {}, …}}`.
///
/// ```
/// let doc = tfdisco_provider::mirror_index_document(["1.1.0", "1.0.0"]);
/// assert_eq!(
///     String::from_utf8(doc).unwrap(),
///     "{\n  \"versions\": {\n    \"1.0.0\": {},\n    \"1.1.0\": {}\n  }\n}"
/// );
/// ```
pub fn mirror_index_document<'a>(versions: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let sorted: BTreeMap<&str, ()> = versions.into_iter().map(|v| (v, ())).collect();
    let entries = sorted.keys().map(|v| format!("    {}: {{}}", quoted(v)));
    document("versions", entries.collect())
}

/// `<version>.json`: `{"archives": {"<os_arch>": {"hashes": […], "url":
/// "…"}, …}}`, keyed by platform.
pub fn mirror_archives_document(archives: &BTreeMap<String, ArchiveEntry>) -> Vec<u8> {
    let entries = archives.iter().map(|(platform, entry)| {
        let hashes = if entry.hashes.is_empty() {
            "[]".to_owned()
        } else {
            let lines: Vec<String> = entry
                .hashes
                .iter()
                .map(|h| format!("        {}", quoted(h)))
                .collect();
            format!("[\n{}\n      ]", lines.join(",\n"))
        };
        format!(
            "    {}: {{\n      \"hashes\": {hashes},\n      \"url\": {}\n    }}",
            quoted(platform),
            quoted(&entry.url)
        )
    });
    document("archives", entries.collect())
}

/// `{"<member>": {<entries>}}`, indented as Go indents it: each entry is
/// one member of the inner object, written already (four spaces in).
fn document(member: &str, entries: Vec<String>) -> Vec<u8> {
    let mut out = format!("{{\n  \"{member}\": ");
    if entries.is_empty() {
        out.push_str("{}");
    } else {
        out.push_str("{\n");
        out.push_str(&entries.join(",\n"));
        out.push_str("\n  }");
    }
    out.push_str("\n}");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_documents() {
        assert_eq!(
            String::from_utf8(mirror_index_document([])).expect("UTF-8"),
            "{\n  \"versions\": {}\n}"
        );
        assert_eq!(
            String::from_utf8(mirror_archives_document(&BTreeMap::new())).expect("UTF-8"),
            "{\n  \"archives\": {}\n}"
        );
        let mut one = BTreeMap::new();
        one.insert(
            "linux_amd64".to_owned(),
            ArchiveEntry {
                hashes: Vec::new(),
                url: "a.zip".to_owned(),
            },
        );
        assert_eq!(
            String::from_utf8(mirror_archives_document(&one)).expect("UTF-8"),
            "{\n  \"archives\": {\n    \"linux_amd64\": {\n      \"hashes\": [],\n      \"url\": \"a.zip\"\n    }\n  }\n}"
        );
    }
}
