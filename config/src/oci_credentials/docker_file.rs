//! Docker-style credentials files (`~/.docker/config.json`,
//! `containers/auth.json`, `~/.dockercfg`) read as OpenTofu reads them
//! (docs/behaviour.md, OCICRED-7): Go's JSON decoding into
//! `{auths: {KEY: {auth: base64}}, credHelpers: {DOMAIN: NAME}, credsStore:
//! NAME}`.

use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use crate::literal::Lit;

/// One file's settings. `Debug` does not show the `auth` values.
#[derive(Clone)]
pub(crate) struct DockerStyleFile {
    pub(crate) path: PathBuf,
    /// `auths`, in file order; `None` for an entry without credentials
    /// (`null`, `{}`, an empty or `null` `auth`).
    pub(crate) auths: Vec<(String, Option<Vec<u8>>)>,
    /// `credHelpers`, in file order.
    pub(crate) cred_helpers: Vec<(String, String)>,
    /// `credsStore`, empty when not set.
    pub(crate) creds_store: String,
}

impl fmt::Debug for DockerStyleFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DockerStyleFile")
            .field("path", &self.path)
            .field(
                "auths",
                &self.auths.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("cred_helpers", &self.cred_helpers)
            .field("creds_store", &self.creds_store)
            .finish()
    }
}

/// Go's `base64.StdEncoding`: padding required, stray bits after the last
/// character allowed; `\r` and `\n` are skipped before decoding.
const GO_STD: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
        .with_decode_allow_trailing_bits(true),
);

/// Go's `encoding/json` matches a field name without case, with Unicode's
/// simple folding (so `ſ` is an `s` and the Kelvin sign a `k`); `name` is
/// lowercase ASCII.
fn go_field_is(key: &str, name: &str) -> bool {
    let mut folded = key.chars().map(|c| match c {
        '\u{17f}' => 's',
        '\u{212a}' => 'k',
        c => c.to_ascii_lowercase(),
    });
    name.chars().all(|n| folded.next() == Some(n)) && folded.next().is_none()
}

impl DockerStyleFile {
    /// Reads a file's text. Errors (`invalid JSON syntax: …`, or a value of
    /// the wrong type, or an `auth` that is not standard base64) reject the
    /// whole file, as in Go; they never quote a value.
    pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<DockerStyleFile, String> {
        // Go replaces invalid UTF-8 in strings with U+FFFD.
        let text = String::from_utf8_lossy(bytes);
        let top: Lit =
            serde_json::from_str(&text).map_err(|e| format!("invalid JSON syntax: {e}"))?;
        let mut file = DockerStyleFile {
            path: path.to_owned(),
            auths: Vec::new(),
            cred_helpers: Vec::new(),
            creds_store: String::new(),
        };
        let entries = match top {
            Lit::Null => return Ok(file),
            Lit::Object(entries) => entries,
            other => {
                return Err(format!("the file holds {}, not an object", other.kind()));
            }
        };
        // Go goes on after a value of the wrong type and reports the first.
        let mut first_error = None;
        let mut fail = |e: String| {
            first_error.get_or_insert(e);
        };
        for (key, value) in entries {
            if go_field_is(&key, "auths") {
                match value {
                    Lit::Null => file.auths.clear(),
                    Lit::Object(auths) => {
                        for (name, auth) in auths {
                            match auth_bytes(auth) {
                                Ok(bytes) => put(&mut file.auths, name, bytes),
                                Err(e) => {
                                    fail(format!("auths {}: {e}", tfdisco_core::go_quote(&name)))
                                }
                            }
                        }
                    }
                    other => fail(format!("auths must be an object, not {}", other.kind())),
                }
            } else if go_field_is(&key, "credhelpers") {
                match value {
                    Lit::Null => file.cred_helpers.clear(),
                    Lit::Object(helpers) => {
                        for (domain, name) in helpers {
                            match name {
                                Lit::String(name) => put(&mut file.cred_helpers, domain, name),
                                Lit::Null => put(&mut file.cred_helpers, domain, String::new()),
                                other => fail(format!(
                                    "credHelpers {} must be a string, not {}",
                                    tfdisco_core::go_quote(&domain),
                                    other.kind()
                                )),
                            }
                        }
                    }
                    other => fail(format!(
                        "credHelpers must be an object, not {}",
                        other.kind()
                    )),
                }
            } else if go_field_is(&key, "credsstore") {
                match value {
                    Lit::String(name) => file.creds_store = name,
                    Lit::Null => {}
                    other => fail(format!("credsStore must be a string, not {}", other.kind())),
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(file),
        }
    }
}

/// An `auths` value's decoded `auth`: `None` when there is none.
fn auth_bytes(value: Lit) -> Result<Option<Vec<u8>>, String> {
    let entries = match value {
        Lit::Null => return Ok(None),
        Lit::Object(entries) => entries,
        other => return Err(format!("must be an object, not {}", other.kind())),
    };
    let mut auth = None;
    for (key, value) in entries {
        if !go_field_is(&key, "auth") {
            continue;
        }
        auth = match value {
            Lit::Null => None,
            Lit::String(text) => {
                let text: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
                Some(
                    GO_STD
                        .decode(text.as_bytes())
                        .map_err(|_| "auth is not standard base64".to_owned())?,
                )
            }
            other => return Err(format!("auth must be a string, not {}", other.kind())),
        };
    }
    Ok(auth.filter(|bytes| !bytes.is_empty()))
}

/// Sets `key` in an ordered map, in place when it is already there (a Go
/// map has one value per key).
fn put<T>(map: &mut Vec<(String, T)>, key: String, value: T) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => map.push((key, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DockerStyleFile, String> {
        DockerStyleFile::parse(Path::new("/x.json"), text.as_bytes())
    }

    #[test]
    fn go_json_rules() {
        let f = parse(
            r#"{"AUTHS": {"a": {"Auth": "dTpw"}, "b": null, "c": {}, "d": {"auth": ""}},
                "authſ": {"a": {"auth": "eDp5"}},
                "credhelpers": {"example.com": "h"}, "CredsStore": "g", "credStore": "ignored",
                "identitytoken": 5}"#,
        )
        .expect("valid");
        assert_eq!(f.auths.len(), 4);
        assert_eq!(f.auths[0], ("a".to_owned(), Some(b"x:y".to_vec())));
        assert!(f.auths[1..].iter().all(|(_, a)| a.is_none()));
        assert_eq!(f.cred_helpers, [("example.com".to_owned(), "h".to_owned())]);
        assert_eq!(f.creds_store, "g");
        assert!(!format!("{f:?}").contains("eDp5"));
        assert!(parse("null").expect("null").auths.is_empty());
        assert!(parse("[]").is_err());
        assert!(
            parse("{")
                .expect_err("refused")
                .starts_with("invalid JSON syntax: ")
        );
        assert!(parse(r#"{"credsStore": 1}"#).is_err());
        assert!(parse(r#"{"auths": {"a": {"auth": "dTpw"}}, "credsStore": 1}"#).is_err());
        assert_eq!(
            parse(r#"{"auths": {"a": {"auth": "not base64!"}}}"#).expect_err("refused"),
            r#"auths "a": auth is not standard base64"#
        );
        assert!(parse(r#"{"auths": {"a": {"auth": "dTpw\n"}}}"#).is_ok());
        assert!(
            parse(r#"{"auths": {"a": {"auth": "dTp"}}}"#).is_err(),
            "padding is required"
        );
        assert!(parse(r#"{"auths": {"a": "x"}}"#).is_err());
    }
}
