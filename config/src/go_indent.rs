//! A JSON document re-encoded as Terraform re-encodes the files it edits
//! (`credentials.tfrc.json`, docs/behaviour.md, CRED-7): decoded as Go's
//! `encoding/json` decodes into `interface{}` with numbers kept as written
//! (`json.Number`), a later duplicate key winning, then
//! `json.MarshalIndent(v, "", "  ")`: keys sorted by their bytes, two
//! spaces a level, `<`, `>`, `&`, U+2028 and U+2029 escaped, no final
//! newline.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::value::RawValue;
use tfdisco_core::go_json_string;

/// How deeply arrays and objects may nest: serde_json's own limit for
/// documents it reads whole (Go allows 10000).
pub(crate) const MAX_DEPTH: usize = 128;

/// A decoded JSON value, numbers and literals as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GoValue {
    /// `null`, `true`, `false` or a number, as written.
    Literal(String),
    /// A string, decoded.
    String(String),
    /// An array.
    Array(Vec<GoValue>),
    /// An object, by key.
    Object(BTreeMap<String, GoValue>),
}

impl GoValue {
    /// Decodes `text`, at most [`MAX_DEPTH`] levels deep.
    pub(crate) fn parse(text: &str) -> Result<GoValue, serde_json::Error> {
        let raw: Box<RawValue> = serde_json::from_str(text)?;
        GoValue::from_raw(&raw, 0)
    }

    fn from_raw(raw: &RawValue, depth: usize) -> Result<GoValue, serde_json::Error> {
        let text = raw.get().trim();
        if depth >= MAX_DEPTH && matches!(text.as_bytes().first(), Some(b'{' | b'[')) {
            return Err(serde::de::Error::custom(format_args!(
                "nested more than {MAX_DEPTH} levels deep"
            )));
        }
        Ok(match text.as_bytes().first() {
            Some(b'{') => {
                let members: Vec<(String, Box<RawValue>)> = members(text)?;
                let mut object = BTreeMap::new();
                for (key, value) in members {
                    object.insert(key, GoValue::from_raw(&value, depth + 1)?);
                }
                GoValue::Object(object)
            }
            Some(b'[') => {
                let items: Vec<Box<RawValue>> = serde_json::from_str(text)?;
                GoValue::Array(
                    items
                        .iter()
                        .map(|item| GoValue::from_raw(item, depth + 1))
                        .collect::<Result<_, _>>()?,
                )
            }
            Some(b'"') => GoValue::String(serde_json::from_str(text)?),
            _ => GoValue::Literal(text.to_owned()),
        })
    }

    /// What the value is, for messages that must not quote it (CFG-13), in
    /// the words of the CLI configuration's literals: "a string", "a list", ….
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            GoValue::Literal(t) if t == "null" => "null",
            GoValue::Literal(t) if t == "true" || t == "false" => "a bool",
            GoValue::Literal(_) => "a number",
            GoValue::String(_) => "a string",
            GoValue::Array(_) => "a list",
            GoValue::Object(_) => "an object",
        }
    }

    /// `json.MarshalIndent(v, "", "  ")`.
    pub(crate) fn to_go_indented(&self) -> String {
        let mut out = String::new();
        self.write(0, &mut out);
        out
    }

    fn write(&self, level: usize, out: &mut String) {
        let pad = |out: &mut String, level: usize| out.push_str(&"  ".repeat(level));
        match self {
            GoValue::Literal(text) => out.push_str(text),
            GoValue::String(text) => out.push_str(&go_json_string(text)),
            GoValue::Array(items) if items.is_empty() => out.push_str("[]"),
            GoValue::Object(members) if members.is_empty() => out.push_str("{}"),
            GoValue::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    pad(out, level + 1);
                    item.write(level + 1, out);
                }
                out.push('\n');
                pad(out, level);
                out.push(']');
            }
            GoValue::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    pad(out, level + 1);
                    let _ = write!(out, "{}: ", go_json_string(key));
                    value.write(level + 1, out);
                }
                out.push('\n');
                pad(out, level);
                out.push('}');
            }
        }
    }
}

/// An object's members in order, duplicates kept (a later one wins when
/// they are put in a map, as in Go).
fn members(text: &str) -> Result<Vec<(String, Box<RawValue>)>, serde_json::Error> {
    struct Members(Vec<(String, Box<RawValue>)>);
    impl<'de> serde::Deserialize<'de> for Members {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Members, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Members;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Members, A::Error> {
                    let mut members = Vec::new();
                    while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                        members.push(member);
                    }
                    Ok(Members(members))
                }
            }
            d.deserialize_map(Visit)
        }
    }
    serde_json::from_str::<Members>(text).map(|m| m.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_written_html_escaped_sorted_and_indented_as_go() {
        let text = r#"{"z": [1, 2.50, {"b": true, "a": null}], "a": "<&>", "e": {}, "f": [], "n": -0.0e1, "d": 1, "d": 2}"#;
        let value = GoValue::parse(text).expect("parses");
        assert_eq!(
            value.to_go_indented(),
            "{\n  \"a\": \"\\u003c\\u0026\\u003e\",\n  \"d\": 2,\n  \"e\": {},\n  \"f\": [],\n  \
             \"n\": -0.0e1,\n  \"z\": [\n    1,\n    2.50,\n    {\n      \"a\": null,\n      \
             \"b\": true\n    }\n  ]\n}"
        );
    }

    #[test]
    fn strings_are_decoded_then_encoded_again() {
        let value = GoValue::parse(r#"{"\u0041": "\u00e9\n\/"}"#).expect("parses");
        assert_eq!(value.to_go_indented(), "{\n  \"A\": \"é\\n/\"\n}");
    }

    #[test]
    fn what_is_not_json_is_an_error() {
        for text in ["", "{", "{\"a\": 01}", "[1,]", "\"\\ud800\"", "{} x"] {
            assert!(GoValue::parse(text).is_err(), "{text:?}");
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(GoValue::parse(&deep(MAX_DEPTH)).is_ok());
        let err = GoValue::parse(&deep(MAX_DEPTH + 1)).expect_err("too deep");
        assert!(err.to_string().contains("nested more than 128"), "{err}");
        // Deep enough to overflow a stack if it were walked: refused.
        assert!(GoValue::parse(&deep(100_000)).is_err());
    }
}
