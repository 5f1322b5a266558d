//! Reading a discovery document: a JSON object kept in document order, its
//! values kept as raw JSON text (docs/behaviour.md, DISCO-8 to DISCO-11).
//!
//! Values are never built into trees: serde_json skips over a raw value
//! without recursion, so a document nested as deep as Go accepts (10 000
//! levels) is read, kept, cloned and dropped without deep stacks, and a
//! deeper one is refused by a linear scan before parsing.

use std::borrow::Cow;
use std::fmt;

use indexmap::IndexMap;
use serde::de::{Deserializer as _, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// Up to this many entries a linear scan beats hashing.
const FEW: usize = 16;

/// The deepest nesting Go's `encoding/json` accepts.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// The entries of a document: unique keys, in document order. Larger
/// documents are hashed for lookups (SipHash with a random key, so a hostile
/// document cannot make them slow).
pub(crate) enum Entries {
    Few(Vec<(Box<str>, Box<RawValue>)>),
    Many(IndexMap<Box<str>, Box<RawValue>>),
}

/// Parses a body into its entries, `None` for a `null` document. Invalid
/// UTF-8 becomes U+FFFD first, as Go's decoder does inside strings (outside
/// strings it is a syntax error either way).
pub(crate) fn parse(body: &[u8]) -> Result<Option<Entries>, String> {
    // `from_utf8` checks valid text much faster than `from_utf8_lossy` does.
    let text = match std::str::from_utf8(body) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(body),
    };
    check_depth(text.as_bytes())?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let entries = de
        .deserialize_any(DocumentVisitor)
        .and_then(|entries| de.end().map(|()| entries))
        .map_err(|e| e.to_string())?;
    Ok(entries)
}

/// Refuses nesting deeper than [`MAX_DEPTH`], as Go's scanner does, with a
/// linear scan (brackets inside strings do not count). Shorter texts cannot
/// nest that deep and are not scanned.
fn check_depth(text: &[u8]) -> Result<(), String> {
    if text.len() <= MAX_DEPTH {
        return Ok(());
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    let line = 1 + text[..i].iter().filter(|&&c| c == b'\n').count();
                    let column = i - text[..i]
                        .iter()
                        .rposition(|&c| c == b'\n')
                        .map_or(0, |p| p + 1)
                        + 1;
                    return Err(format!(
                        "invalid character '{}' exceeded max depth (nesting deeper than \
                         {MAX_DEPTH} levels) at line {line} column {column}",
                        b as char
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = Option<Entries>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Entries::Few(Vec::with_capacity(FEW));
        while let Some(key) = map.next_key::<Box<str>>()? {
            let value = map.next_value::<Box<RawValue>>()?;
            entries.insert(key, value);
        }
        Ok(Some(entries))
    }
}

impl Entries {
    /// Entries from caller-given pairs, with the document's duplicate rule.
    pub(crate) fn from_pairs(pairs: impl IntoIterator<Item = (String, Value)>) -> Entries {
        let mut entries = Entries::Few(Vec::new());
        for (key, value) in pairs {
            entries.insert(key.into_boxed_str(), raw(&value));
        }
        entries
    }

    /// A copy of these entries.
    pub(crate) fn copy(&self) -> Entries {
        match self {
            Entries::Few(list) => Entries::Few(list.clone()),
            Entries::Many(map) => Entries::Many(map.clone()),
        }
    }

    /// Adds an entry. A duplicate key keeps its first place and takes the
    /// last value, as Go's `map` decoding does.
    fn insert(&mut self, key: Box<str>, value: Box<RawValue>) {
        match self {
            Entries::Few(list) => {
                if let Some((_, slot)) = list.iter_mut().find(|(k, _)| *k == key) {
                    *slot = value;
                } else if list.len() < FEW {
                    list.push((key, value));
                } else {
                    let mut map: IndexMap<_, _> = std::mem::take(list).into_iter().collect();
                    map.insert(key, value);
                    *self = Entries::Many(map);
                }
            }
            Entries::Many(map) => {
                map.insert(key, value);
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Entries::Few(list) => list.len(),
            Entries::Many(map) => map.len(),
        }
    }

    pub(crate) fn get(&self, id: &str) -> Option<&RawValue> {
        match self {
            Entries::Few(list) => list.iter().find(|(k, _)| **k == *id).map(|(_, v)| &**v),
            Entries::Many(map) => map.get(id).map(|v| &**v),
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        let (few, many) = match self {
            Entries::Few(list) => (&list[..], None),
            Entries::Many(map) => (&[][..], Some(map)),
        };
        let few = few.iter().map(|(k, v)| (k.as_ref(), &**v));
        let many = many.into_iter().flatten().map(|(k, v)| (k.as_ref(), &**v));
        few.chain(many)
    }
}

/// A caller-given value as raw JSON.
fn raw(value: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| {
        // A `Value` always serializes (its maps have string keys, its
        // numbers are finite); keep the entry as `null` rather than panic.
        RawValue::NULL.to_owned()
    })
}

/// The type of a JSON value, read from the first byte of its text.
///
/// ```
/// use tfdisco_core::JsonType;
/// use tfdisco_core::serde_json::value::RawValue;
///
/// let raw = RawValue::from_string(r#"{"client": "cli"}"#.to_owned())?;
/// assert_eq!(JsonType::of(&raw), JsonType::Object);
/// assert_eq!(JsonType::of(&raw).name(), "object");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// The type of `raw` (valid JSON text, as serde_json makes it: no
    /// leading white space).
    pub fn of(raw: &RawValue) -> JsonType {
        match raw.get().trim_start().as_bytes().first() {
            Some(b'"') => JsonType::String,
            Some(b'{') => JsonType::Object,
            Some(b'[') => JsonType::Array,
            Some(b't' | b'f') => JsonType::Bool,
            Some(b'n') | None => JsonType::Null,
            Some(_) => JsonType::Number,
        }
    }

    /// `null`, `boolean`, `number`, `string`, `array` or `object`.
    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Bool => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// What one level of a raw value holds: scalars read, containers one level
/// deep with their members still raw (so nothing deep is ever built).
#[derive(Debug)]
pub(crate) enum Shallow {
    Null,
    Bool,
    Number(serde_json::Number),
    String(String),
    Array(Vec<Box<RawValue>>),
    /// Members in order; a duplicate key keeps the last value, as in Go.
    Object(IndexMap<String, Box<RawValue>>),
}

impl Shallow {
    /// Reads one level of `raw` (which serde_json already validated).
    pub(crate) fn of(raw: &RawValue) -> Shallow {
        serde_json::from_str(raw.get()).unwrap_or(Shallow::Null)
    }

    /// The string, for a string.
    pub(crate) fn into_string(self) -> Option<String> {
        match self {
            Shallow::String(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Shallow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shallow, D::Error> {
        d.deserialize_any(ShallowVisitor)
    }
}

struct ShallowVisitor;

impl<'de> Visitor<'de> for ShallowVisitor {
    type Value = Shallow;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Shallow, E> {
        Ok(Shallow::Null)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shallow, E> {
        Ok(Shallow::Bool)
    }

    fn visit_i64<E>(self, v: i64) -> Result<Shallow, E> {
        Ok(Shallow::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Shallow, E> {
        Ok(Shallow::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Shallow, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Shallow::Null, Shallow::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Shallow, E> {
        Ok(Shallow::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Shallow, E> {
        Ok(Shallow::String(v))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Shallow, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Box<RawValue>>()? {
            items.push(item);
        }
        Ok(Shallow::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shallow, A::Error> {
        let mut members = IndexMap::new();
        while let Some((key, value)) = map.next_entry::<String, Box<RawValue>>()? {
            members.insert(key, value);
        }
        Ok(Shallow::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(e: &Entries) -> Vec<&str> {
        e.iter().map(|(k, _)| k).collect()
    }

    fn text<'a>(e: &'a Entries, id: &str) -> Option<&'a str> {
        e.get(id).map(RawValue::get)
    }

    #[test]
    fn null_and_objects() {
        assert!(parse(b"null").expect("null is fine").is_none());
        assert!(parse(b" {} ").expect("empty object").is_some());
        for bad in [
            &b""[..],
            b"[]",
            b"\"x\"",
            b"1",
            b"{} {}",
            b"\xef\xbb\xbf{}",
            b"{\"a\":",
            b"{\"a\": [1,}",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn duplicates_keep_last_value_at_first_place() {
        let e = parse(br#"{"b": 1, "a": 2, "b": 3}"#)
            .expect("valid")
            .expect("object");
        assert_eq!(keys(&e), ["b", "a"]);
        assert_eq!(text(&e, "b"), Some("3"));

        let mut doc = String::from("{");
        for i in 0..40 {
            doc.push_str(&format!("\"k{}\": {i},", i % 30));
        }
        doc.push_str("\"last\": true}");
        let e = parse(doc.as_bytes()).expect("valid").expect("object");
        assert_eq!(e.len(), 31);
        assert_eq!(keys(&e)[..3], ["k0", "k1", "k2"]);
        assert_eq!(text(&e, "k5"), Some("35"));
        assert_eq!(text(&e, "k29"), Some("29"));
        assert_eq!(text(&e, "last"), Some("true"));
        assert!(e.get("k30").is_none());
    }

    #[test]
    fn invalid_utf8_in_strings_becomes_replacement_character() {
        let e = parse(b"{\"a\": \"x\xffy\"}")
            .expect("lossy")
            .expect("object");
        assert_eq!(text(&e, "a"), Some("\"x\u{fffd}y\""));
    }

    fn nested(depth: usize) -> String {
        format!(
            "{{\"x.v1\": {}0{}}}",
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        )
    }

    #[test]
    fn go_nesting_limit_is_10000_levels() {
        // The object itself is the first level.
        assert!(parse(nested(MAX_DEPTH).as_bytes()).is_ok());
        let Err(e) = parse(nested(MAX_DEPTH + 1).as_bytes()) else {
            panic!("too deep")
        };
        assert!(e.contains("exceeded max depth"), "{e}");
        assert!(
            e.ends_with(&format!("at line 1 column {}", MAX_DEPTH + 9)),
            "{e}"
        );
        // Brackets in strings do not count.
        let in_strings = format!("{{\"x.v1\": \"{}\"}}", "[\\\"".repeat(MAX_DEPTH));
        assert!(parse(in_strings.as_bytes()).is_ok());
    }

    #[test]
    fn shallow_reads_one_level() {
        let raw = RawValue::from_string(r#"{"a": [[1]], "b": "s", "a": 2}"#.into()).expect("valid");
        let Shallow::Object(members) = Shallow::of(&raw) else {
            panic!("an object")
        };
        assert_eq!(members.len(), 2);
        assert_eq!(members["a"].get(), "2", "the last duplicate wins");
        assert_eq!(
            Shallow::of(&members["b"]).into_string().as_deref(),
            Some("s")
        );
    }
}
