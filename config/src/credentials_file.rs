//! The contents of `credentials.tfrc.json` (docs/behaviour.md, CRED-7): which hosts it
//! has, and the edit `terraform login` / `logout` make. Pure: `files.rs`
//! reads and replaces the file.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};
use tfdisco_core::{Credentials, Hostname};

use crate::go_indent::GoValue;

/// The file's name inside the config directory.
pub const CREDENTIALS_FILE_NAME: &str = "credentials.tfrc.json";

/// What a credentials store keeps for token credentials: `{"token": "…"}`
/// (svchost's `ToStore`). Helper programs get it on stdin for `store`.
///
/// ```
/// let creds = tfdisco_core::Credentials::token("foo-bar")?;
/// assert_eq!(tfdisco_config::to_store(&creds), serde_json::json!({"token": "foo-bar"}));
/// # Ok::<(), tfdisco_core::InvalidToken>(())
/// ```
pub fn to_store(credentials: &Credentials) -> Value {
    let mut object = Map::new();
    object.insert("token".into(), credentials.expose_token().into());
    Value::Object(object)
}

/// The hosts that have an entry in the file's text. Unreadable content or
/// invalid hostnames count as no entry, as in Go.
pub(crate) fn hosts(text: &str) -> HashSet<Hostname> {
    let Ok(Value::Object(mut document)) = serde_json::from_str::<Value>(text) else {
        return HashSet::new();
    };
    match document.remove("credentials") {
        Some(Value::Object(entries)) => entries
            .keys()
            .filter_map(|k| Hostname::parse(k).ok())
            .collect(),
        _ => HashSet::new(),
    }
}

/// The new text of the file after storing `new` for `host` (or forgetting
/// it when `new` is `None`): every key that names the same host is removed,
/// then the display form of `host` is added. Other content is kept; keys
/// come out sorted and indented by two spaces, as Go writes them.
///
/// `old` is the current text (empty when the file does not exist); `path`
/// only names the file in error messages.
pub(crate) fn update(
    path: &Path,
    old: &str,
    host: &Hostname,
    new: Option<&Credentials>,
) -> Result<String, String> {
    let mut document = if old.is_empty() {
        BTreeMap::new()
    } else {
        // Read as any JSON first: serde's message for a value of the wrong
        // type would quote it (docs/behaviour.md, CFG-13).
        match GoValue::parse(old).map_err(|e| format!("cannot read {}: {e}", path.display()))? {
            GoValue::Object(document) => document,
            other => {
                return Err(format!(
                    "cannot read {}: the file holds {}, not a JSON object",
                    path.display(),
                    other.kind()
                ));
            }
        }
    };
    let entries = document
        .entry("credentials".to_owned())
        .or_insert_with(|| GoValue::Object(BTreeMap::new()));
    let GoValue::Object(entries) = entries else {
        return Err(format!(
            "credentials file {} has invalid value for \"credentials\" property: must be a JSON object",
            path.display()
        ));
    };
    entries.retain(|key, _| Hostname::parse(key).ok().as_ref() != Some(host));
    if let Some(new) = new {
        let token = GoValue::String(new.expose_token().to_owned());
        entries.insert(
            host.display().into_owned(),
            GoValue::Object(BTreeMap::from([("token".to_owned(), token)])),
        );
    }
    Ok(GoValue::Object(document).to_go_indented())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(s: &str) -> Hostname {
        Hostname::parse(s).expect("valid")
    }

    #[test]
    fn store_replaces_every_spelling_and_keeps_the_rest() {
        let old = r#"{"other": 1, "credentials": {"Example.COM": {"token": "a"}, "example.com:443": {"token": "b"}, "x.org": {"token": "c"}, "bad host": {}}}"#;
        let creds = Credentials::token("new").expect("valid");
        let text = update(Path::new("f"), old, &host("example.com"), Some(&creds)).expect("ok");
        let v: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            v,
            serde_json::json!({"other": 1, "credentials": {"example.com": {"token": "new"}, "x.org": {"token": "c"}, "bad host": {}}})
        );
        assert!(text.starts_with("{\n  \"credentials\""), "{text}");
    }

    #[test]
    fn display_form_is_the_key() {
        let creds = Credentials::token("t").expect("valid");
        let text = update(Path::new("f"), "", &host("München.de:8443"), Some(&creds)).expect("ok");
        assert!(text.contains("\"münchen.de:8443\""), "{text}");
        assert_eq!(hosts(&text), HashSet::from([host("münchen.de:8443")]));
    }

    #[test]
    fn forget_and_bad_files() {
        let text = update(
            Path::new("f"),
            r#"{"credentials": {"a.com": {"token": "x"}}}"#,
            &host("a.com"),
            None,
        )
        .expect("ok");
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("json"),
            serde_json::json!({"credentials": {}})
        );
        let err = update(
            Path::new("f"),
            r#"{"credentials": []}"#,
            &host("a.com"),
            None,
        )
        .expect_err("not an object");
        assert_eq!(
            err,
            r#"credentials file f has invalid value for "credentials" property: must be a JSON object"#
        );
        let err = update(Path::new("f"), "[1]", &host("a.com"), None).expect_err("not an object");
        assert!(err.starts_with("cannot read f: "), "{err}");
        // serde would quote the string.
        let err = update(Path::new("f"), r#""s3cret-token""#, &host("a.com"), None)
            .expect_err("not an object");
        assert_eq!(
            err,
            "cannot read f: the file holds a string, not a JSON object"
        );
        assert!(hosts("not json").is_empty());
    }
}
