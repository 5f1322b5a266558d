//! Reading a discovery document: a JSON object kept in document order.

use std::borrow::Cow;
use std::fmt;

use indexmap::IndexMap;
use serde::de::{Deserializer as _, MapAccess, Visitor};
use serde_json::Value;

/// Up to this many entries a linear scan beats hashing.
const FEW: usize = 16;

/// The entries of a document: unique keys, in document order. Larger
/// documents are hashed for lookups (SipHash with a random key, so a hostile
/// document cannot make them slow).
pub(crate) enum Entries {
    Few(Vec<(Box<str>, Value)>),
    Many(IndexMap<Box<str>, Value>),
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
    let mut de = serde_json::Deserializer::from_str(&text);
    let entries = de
        .deserialize_any(DocumentVisitor)
        .and_then(|entries| de.end().map(|()| entries))
        .map_err(|e| e.to_string())?;
    Ok(entries)
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
            let value = map.next_value::<Value>()?;
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
            entries.insert(key.into_boxed_str(), value);
        }
        entries
    }

    /// Adds an entry. A duplicate key keeps its first place and takes the
    /// last value, as Go's `map` decoding does.
    fn insert(&mut self, key: Box<str>, value: Value) {
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

    pub(crate) fn get(&self, id: &str) -> Option<&Value> {
        match self {
            Entries::Few(list) => list.iter().find(|(k, _)| **k == *id).map(|(_, v)| v),
            Entries::Many(map) => map.get(id),
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        let (few, many) = match self {
            Entries::Few(list) => (&list[..], None),
            Entries::Many(map) => (&[][..], Some(map)),
        };
        let few = few.iter().map(|(k, v)| (k.as_ref(), v));
        let many = many.into_iter().flatten().map(|(k, v)| (k.as_ref(), v));
        few.chain(many)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(e: &Entries) -> Vec<&str> {
        e.iter().map(|(k, _)| k).collect()
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
        assert_eq!(e.get("b"), Some(&Value::from(3)));

        let mut doc = String::from("{");
        for i in 0..40 {
            doc.push_str(&format!("\"k{}\": {i},", i % 30));
        }
        doc.push_str("\"last\": true}");
        let e = parse(doc.as_bytes()).expect("valid").expect("object");
        assert_eq!(e.len(), 31);
        assert_eq!(keys(&e)[..3], ["k0", "k1", "k2"]);
        assert_eq!(e.get("k5"), Some(&Value::from(35)));
        assert_eq!(e.get("k29"), Some(&Value::from(29)));
        assert_eq!(e.get("last"), Some(&Value::Bool(true)));
        assert_eq!(e.get("k30"), None);
    }

    #[test]
    fn invalid_utf8_in_strings_becomes_replacement_character() {
        let e = parse(b"{\"a\": \"x\xffy\"}")
            .expect("lossy")
            .expect("object");
        assert_eq!(e.get("a"), Some(&Value::from("x\u{fffd}y")));
    }
}
