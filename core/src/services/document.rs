//! Reading a discovery document: a JSON object kept in document order.

use std::cmp::Ordering;
use std::fmt;

use serde::de::{Deserializer as _, MapAccess, Visitor};
use serde_json::Value;

/// Below this many entries a linear scan beats keeping a sorted index.
const LINEAR_LOOKUP_MAX: usize = 16;

/// The entries of a document: unique keys, in document order.
pub(crate) struct Entries {
    list: Vec<(Box<str>, Value)>,
    /// Positions in `list` sorted by key; empty when `list` is short.
    sorted: Vec<u32>,
}

/// Parses a body into its entries, `None` for a `null` document. Invalid
/// UTF-8 becomes U+FFFD first, as Go's decoder does inside strings (outside
/// strings it is a syntax error either way).
pub(crate) fn parse(body: &[u8]) -> Result<Option<Entries>, String> {
    let text = String::from_utf8_lossy(body);
    let mut de = serde_json::Deserializer::from_str(&text);
    let list = de
        .deserialize_any(DocumentVisitor)
        .and_then(|list| de.end().map(|()| list))
        .map_err(|e| e.to_string())?;
    Ok(list.map(Entries::from_list))
}

struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = Option<Vec<(Box<str>, Value)>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut list = Vec::with_capacity(map.size_hint().unwrap_or(8).min(64));
        while let Some(key) = map.next_key::<Box<str>>()? {
            let value = map.next_value::<Value>()?;
            list.push((key, value));
        }
        Ok(Some(list))
    }
}

impl Entries {
    pub(crate) fn from_pairs(pairs: impl IntoIterator<Item = (String, Value)>) -> Entries {
        Entries::from_list(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into_boxed_str(), v))
                .collect(),
        )
    }

    /// Removes duplicate keys (the last value wins, at the first key's place)
    /// and builds the lookup index.
    fn from_list(mut list: Vec<(Box<str>, Value)>) -> Entries {
        if list.len() <= LINEAR_LOOKUP_MAX {
            let mut i = 0;
            while i < list.len() {
                match list[..i].iter().position(|(k, _)| *k == list[i].0) {
                    Some(first) => {
                        let (_, value) = list.remove(i);
                        list[first].1 = value;
                    }
                    None => i += 1,
                }
            }
            return Entries {
                list,
                sorted: Vec::new(),
            };
        }
        let mut sorted = sorted_positions(&list);
        let mut keep = vec![true; list.len()];
        // (first, last) positions of each duplicated key; a stable sort leaves
        // a group's positions in document order.
        let mut moves = Vec::new();
        for group in sorted.chunk_by(|&a, &b| list[a as usize].0 == list[b as usize].0) {
            if let [first, .., last] = *group {
                moves.push((first as usize, last as usize));
                for &dup in &group[1..] {
                    keep[dup as usize] = false;
                }
            }
        }
        for &(first, last) in &moves {
            list[first].1 = std::mem::take(&mut list[last].1);
        }
        if !moves.is_empty() {
            let mut flags = keep.into_iter();
            list.retain(|_| flags.next().unwrap_or(true));
            sorted = sorted_positions(&list);
        }
        Entries { list, sorted }
    }

    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Value> {
        if self.sorted.is_empty() {
            return self.list.iter().find(|(k, _)| **k == *id).map(|(_, v)| v);
        }
        let at = self
            .sorted
            .binary_search_by(|&i| self.list[i as usize].0.as_ref().cmp(id))
            .ok()?;
        Some(&self.list[self.sorted[at] as usize].1)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.list.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

/// Positions of `list` sorted by key (stable, so equal keys stay in order).
/// A document is at most a few MiB, so positions fit in a u32.
fn sorted_positions(list: &[(Box<str>, Value)]) -> Vec<u32> {
    let mut sorted: Vec<u32> = (0..list.len() as u32).collect();
    sorted.sort_by(|&a, &b| -> Ordering { list[a as usize].0.cmp(&list[b as usize].0) });
    sorted
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
