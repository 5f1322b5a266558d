//! Reading a discovery document: a JSON object kept in document order, its
//! values kept as raw JSON text (docs/behaviour.md, DISCO-8 to DISCO-11,
//! JSON-1, JSON-2, JSON-4, JSON-5).
//!
//! The document is kept as one string, the body's text, with the places of
//! each entry's key and value in it, found in one serde_json pass that
//! borrows keys and values from the text (no allocation per entry). Keys
//! given twice are sorted out (DISCO-10), and a hash table built, only when
//! something needs the unique keys: looking up one service, what discovery
//! does, scans the entries.
//! Values are never built into trees: serde_json skips over a raw value
//! without recursion, so a document nested as deep as Go accepts (10 000
//! levels) is read, kept, cloned and dropped without deep stacks, and a
//! deeper one is refused by a linear scan before parsing.

mod numbers;

use foldhash::fast::RandomState;
use std::borrow::Cow;
use std::fmt;
use std::hash::BuildHasher;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use hashbrown::HashTable;
use serde::de::{DeserializeSeed, Deserializer as _, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// Up to this many entries a linear scan beats hashing.
const FEW: usize = 16;

/// Lookups that scan the entries of a larger document before the hash table
/// is built: discovery looks up one or two services, and a scan compares
/// lengths where building the table hashes every key.
const SCANS: usize = 8;

/// The deepest nesting Go's `encoding/json` accepts.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// The longest document read, 2 GiB (JSON-4): offsets into the text are 32
/// bits, which keeps the index small, and the text holds the document and
/// after it the keys written with escapes, unescaped (never longer).
pub(crate) const MAX_LEN: usize = (u32::MAX / 2) as usize;

/// The entries of a document, their keys and values as JSON text (DISCO-9,
/// DISCO-10).
pub(crate) struct Entries {
    /// The document's text (invalid UTF-8 already replaced, DISCO-11),
    /// followed by the keys it writes with escapes, unescaped; for
    /// caller-given services, each key and its value's JSON.
    text: String,
    /// Every entry in document order, a key given twice included.
    all: Vec<Entry>,
    /// The entries with unique keys, made from `all` when first needed.
    unique: OnceLock<Unique>,
    /// Lookups answered by scanning `all` so far.
    scans: AtomicUsize,
}

/// The entries with unique keys in document order, each in the place of its
/// key's first occurrence with the value of its last (DISCO-10), and with
/// more than [`FEW`] of them a hash table of their keys. The hash is
/// foldhash, seeded at random per process and per table: a server never
/// sees the seed, so it cannot choose keys that collide, and hashing costs a
/// fifth of SipHash's instructions (the table is built for every document
/// whose services are listed or all resolved).
#[derive(Clone)]
struct Unique {
    list: Vec<Entry>,
    /// Each entry's position in `list` and the low 32 bits of its key's
    /// hash (kept so that growing the table reads no keys); empty for at
    /// most [`FEW`] entries.
    table: HashTable<(u32, u32)>,
    hasher: RandomState,
}

#[derive(Clone, Copy)]
struct Entry {
    key: Span,
    value: Span,
}

/// A byte range of a text of at most `u32::MAX` bytes.
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The range `start..end` of a text no longer than `u32::MAX`.
    fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// The slice of `text` this span covers.
    fn of(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }

    /// Where `part`, a slice of `whole`, lies in it; `None` when it is not
    /// one (serde_json borrows from its input, so that does not happen).
    fn within(whole: &str, part: &str) -> Option<Span> {
        let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
        let end = start + part.len();
        (end <= whole.len()).then(|| Span::new(start, end))
    }
}

impl Entry {
    /// True when this entry's key in `text` is `id`.
    fn is(&self, text: &str, id: &str) -> bool {
        self.key.len() == id.len() && self.key.of(text) == id
    }
}

/// hashbrown finds a bucket with a hash's low bits and tags it with its top
/// seven: spread the 32 bits the table keeps over 64.
fn spread(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl Unique {
    /// The unique entries of `all`, whose keys and values are in `text`.
    fn of(text: &str, all: &[Entry]) -> Unique {
        let mut unique = Unique {
            list: Vec::with_capacity(all.len()),
            table: HashTable::new(),
            hasher: RandomState::default(),
        };
        if all.len() > FEW {
            unique.table.reserve(all.len(), |&(_, h)| spread(h));
        }
        for &entry in all {
            unique.insert(text, entry);
        }
        unique
    }

    fn hash(&self, key: &str) -> u32 {
        self.hasher.hash_one(key) as u32
    }

    /// Adds an entry. A duplicate key keeps its first place and takes the
    /// last value, as Go's `map` decoding does (DISCO-10).
    fn insert(&mut self, text: &str, entry: Entry) {
        let key = entry.key.of(text);
        let position = if self.table.capacity() == 0 {
            self.list.iter().position(|e| e.is(text, key))
        } else {
            let hash = self.hash(key);
            let list = &self.list;
            let same = self
                .table
                .find(spread(hash), |&(p, h)| {
                    h == hash && list[p as usize].is(text, key)
                })
                .map(|&(p, _)| p as usize);
            if same.is_none() {
                // No more entries than bytes in the text.
                let position = self.list.len() as u32;
                self.table
                    .insert_unique(spread(hash), (position, hash), |&(_, h)| spread(h));
            }
            same
        };
        match position {
            Some(p) => self.list[p].value = entry.value,
            None => self.list.push(entry),
        }
    }

    fn find(&self, text: &str, id: &str) -> Option<&Entry> {
        if self.table.capacity() == 0 {
            return self.list.iter().find(|e| e.is(text, id));
        }
        let hash = self.hash(id);
        let (position, _) = self.table.find(spread(hash), |&(p, h)| {
            h == hash && self.list[p as usize].is(text, id)
        })?;
        Some(&self.list[*position as usize])
    }
}

/// Parses a body into its entries, `None` for a `null` document. Invalid
/// UTF-8 becomes U+FFFD first, as Go's decoder does inside strings (outside
/// strings it is a syntax error either way).
pub(crate) fn parse(body: Vec<u8>) -> Result<Option<Entries>, String> {
    // Valid UTF-8 becomes the text where it lies; `from_utf8` checks it much
    // faster than `from_utf8_lossy` does.
    let mut text = match String::from_utf8(body) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    check_len(text.len())?;
    check_depth(text.as_bytes())?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let read = de
        .deserialize_any(DocumentVisitor { doc: &text })
        .and_then(|read| de.end().map(|()| read))
        .map_err(|e| e.to_string())?;
    numbers::check(&text)?;
    Ok(read.map(|(all, unescaped)| {
        text.push_str(&unescaped);
        Entries::new(text, all)
    }))
}

/// Refuses a document longer than [`MAX_LEN`] (JSON-4).
fn check_len(len: usize) -> Result<(), String> {
    if len > MAX_LEN {
        return Err(format!(
            "the document is {len} bytes long; at most {MAX_LEN} are read"
        ));
    }
    Ok(())
}

/// Refuses nesting deeper than [`MAX_DEPTH`], as Go's scanner does, with a
/// linear scan (brackets inside strings do not count). A text with no more
/// opening brackets than that, in strings or not, cannot nest that deep and
/// is only counted (JSON-1).
fn check_depth(text: &[u8]) -> Result<(), String> {
    if text.len() <= MAX_DEPTH || openers(text) <= MAX_DEPTH {
        return Ok(());
    }
    let (mut depth, mut strings) = (0usize, Strings::default());
    for (i, &b) in text.iter().enumerate() {
        if !strings.outside(b) {
            continue;
        }
        match b {
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

/// Where a byte-by-byte scan of JSON text is with respect to its strings.
#[derive(Default)]
struct Strings {
    in_string: bool,
    escaped: bool,
}

impl Strings {
    /// Takes the next byte: true when it is outside every string (the `"`
    /// that opens or closes one, and an escape, are inside).
    fn outside(&mut self, b: u8) -> bool {
        if self.in_string {
            match b {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                _ => {}
            }
            false
        } else if b == b'"' {
            self.in_string = true;
            false
        } else {
            true
        }
    }
}

/// How many `[` and `{` `text` holds, in strings or not: counted in blocks
/// of 255 bytes with a byte-sized counter, which compilers vectorize.
fn openers(text: &[u8]) -> usize {
    text.chunks(255)
        .map(|block| {
            // `[` is 0x5b and `{` 0x7b: they differ only in bit 0x20.
            let n = block
                .iter()
                .fold(0u8, |n, &b| n + u8::from(b | 0x20 == b'{'));
            usize::from(n)
        })
        .sum()
}

/// Reads the document object, noting where each key and value lie in
/// `doc`, the text being parsed, and unescaping the keys written with
/// escapes into a string of their own.
struct DocumentVisitor<'de> {
    doc: &'de str,
}

impl<'de> Visitor<'de> for DocumentVisitor<'de> {
    type Value = Option<(Vec<Entry>, String)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut all, mut unescaped) = (Vec::with_capacity(FEW), String::new());
        let borrowed = |part: &str| {
            Span::within(self.doc, part)
                .ok_or_else(|| A::Error::custom("serde_json did not borrow from the document"))
        };
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let value = borrowed(map.next_value::<&'de RawValue>()?.get())?;
            let key = match key {
                Cow::Borrowed(key) => borrowed(key)?,
                Cow::Owned(key) => {
                    let start = self.doc.len() + unescaped.len();
                    unescaped.push_str(&key);
                    Span::new(start, start + key.len())
                }
            };
            all.push(Entry { key, value });
        }
        Ok(Some((all, unescaped)))
    }
}

/// A JSON string, borrowed from the text when it has no escapes.
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

impl Entries {
    fn new(text: String, all: Vec<Entry>) -> Entries {
        Entries {
            text,
            all,
            unique: OnceLock::new(),
            scans: AtomicUsize::new(0),
        }
    }

    /// Entries from caller-given pairs, with the document's duplicate rule;
    /// `Err` when they take more than 4 GiB (JSON-4).
    pub(crate) fn from_pairs(
        pairs: impl IntoIterator<Item = (String, Value)>,
    ) -> Result<Entries, String> {
        let (mut text, mut all) = (String::new(), Vec::new());
        let push = |text: &mut String, part: &str| {
            let start = text.len();
            text.push_str(part);
            Span::new(start, text.len())
        };
        for (key, value) in pairs {
            let value = raw(&value);
            if text.len() + key.len() + value.get().len() > u32::MAX as usize {
                return Err("the services given take more than 4 GiB as JSON".to_owned());
            }
            let key = push(&mut text, &key);
            let value = push(&mut text, value.get());
            all.push(Entry { key, value });
        }
        Ok(Entries::new(text, all))
    }

    fn unique(&self) -> &Unique {
        self.unique
            .get_or_init(|| Unique::of(&self.text, &self.all))
    }

    pub(crate) fn len(&self) -> usize {
        self.unique().list.len()
    }

    /// The value of `id` as JSON text.
    pub(crate) fn text(&self, id: &str) -> Option<&str> {
        let entry = match self.unique.get() {
            Some(unique) => unique.find(&self.text, id),
            // The last occurrence holds the value (DISCO-10).
            None if self.all.len() <= FEW || self.scans.fetch_add(1, Ordering::Relaxed) < SCANS => {
                self.all.iter().rev().find(|e| e.is(&self.text, id))
            }
            None => self.unique().find(&self.text, id),
        };
        entry.map(|e| e.value.of(&self.text))
    }

    /// Every key and its value as JSON text, in document order.
    pub(crate) fn texts(&self) -> impl Iterator<Item = (&str, &str)> {
        let text = &self.text;
        let list = self.unique().list.iter();
        list.map(move |e| (e.key.of(text), e.value.of(text)))
    }

    pub(crate) fn get(&self, id: &str) -> Option<&RawValue> {
        self.text(id).map(raw_value)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.texts().map(|(key, value)| (key, raw_value(value)))
    }
}

impl Clone for Entries {
    fn clone(&self) -> Entries {
        Entries {
            text: self.text.clone(),
            all: self.all.clone(),
            unique: self.unique.clone(),
            scans: AtomicUsize::new(self.scans.load(Ordering::Relaxed)),
        }
    }
}

/// `text`, JSON that serde_json read before, as a [`RawValue`] borrowed
/// from it: serde_json reads it once more (without recursion, JSON-2) and
/// hands out the same slice.
fn raw_value(text: &str) -> &RawValue {
    serde_json::from_str(text).unwrap_or(RawValue::NULL)
}

/// A caller-given value as raw JSON.
fn raw(value: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| {
        // A `Value` always serializes (its maps have string keys, its
        // numbers are finite); keep the entry as `null` rather than panic.
        RawValue::NULL.to_owned()
    })
}

/// The string a JSON value's text holds, `None` for other types; borrowed
/// when it has no escapes.
pub(crate) fn string(text: &str) -> Option<Cow<'_, str>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<Text<'_>>(text).ok().map(|t| t.0)
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
        JsonType::of_text(raw.get())
    }

    /// The type of a value's JSON text.
    pub(crate) fn of_text(text: &str) -> JsonType {
        match text.trim_start().as_bytes().first() {
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
/// deep with their members still raw (so nothing deep is ever built), text
/// borrowed from the value where it has no escapes (JSON-2).
#[derive(Debug)]
pub(crate) enum Shallow<'a> {
    Null,
    Bool,
    Number(serde_json::Number),
    String(Cow<'a, str>),
    Array(Vec<&'a RawValue>),
    /// An object, its members not read: [`members`] reads the ones wanted.
    Object,
}

impl<'a> Shallow<'a> {
    /// Reads one level of `raw` (which serde_json already validated).
    pub(crate) fn of(raw: &'a RawValue) -> Shallow<'a> {
        Shallow::read(raw.get())
    }

    /// Reads one level of a value's JSON text (which serde_json already
    /// validated).
    pub(crate) fn read(text: &'a str) -> Shallow<'a> {
        if let Some(s) = string(text) {
            return Shallow::String(s);
        }
        serde_json::from_str(text).unwrap_or(Shallow::Null)
    }

    /// The string, for a string.
    pub(crate) fn into_string(self) -> Option<String> {
        match self {
            Shallow::String(s) => Some(s.into_owned()),
            _ => None,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Shallow<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shallow<'de>, D::Error> {
        d.deserialize_any(ShallowVisitor)
    }
}

struct ShallowVisitor;

impl<'de> Visitor<'de> for ShallowVisitor {
    type Value = Shallow<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Null)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Bool)
    }

    fn visit_i64<E>(self, v: i64) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Shallow<'de>, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Shallow::Null, Shallow::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Shallow<'de>, E> {
        Ok(Shallow::String(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Shallow<'de>, E> {
        Ok(Shallow::String(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Shallow<'de>, E> {
        Ok(Shallow::String(Cow::Owned(v)))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Shallow<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<&'de RawValue>()? {
            items.push(item);
        }
        Ok(Shallow::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shallow<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Shallow::Object)
    }
}

/// The members `names` of an object's JSON text, each the last one given
/// (as Go's decoding keeps it), as raw JSON borrowed from the text; the
/// other members are skipped unread (JSON-2). `None` when `text` is not an
/// object.
pub(crate) fn members<'a, const N: usize>(
    text: &'a str,
    names: [&str; N],
) -> Option<[Option<&'a RawValue>; N]> {
    struct Members<'n, const N: usize>(&'n [&'n str; N]);

    impl<'de, const N: usize> DeserializeSeed<'de> for Members<'_, N> {
        type Value = [Option<&'de RawValue>; N];

        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de, const N: usize> Visitor<'de> for Members<'_, N> {
        type Value = [Option<&'de RawValue>; N];

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = [None; N];
            while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                match self.0.iter().position(|name| *name == key) {
                    Some(i) => found[i] = Some(map.next_value()?),
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(text);
    Members(&names).deserialize(&mut de).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Result<Option<Entries>, String> {
        super::parse(body.to_vec())
    }

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
    fn scanned_and_hashed_lookups_agree_on_duplicates() {
        let mut doc = String::from("{");
        for i in 0..40 {
            doc.push_str(&format!("\"k{}\": {i},", i % 30));
        }
        doc.push_str("\"last\": true}");
        let e = parse(doc.as_bytes()).expect("valid").expect("object");
        // The first lookups scan every entry, the later ones use the table.
        for _ in 0..2 * SCANS {
            assert_eq!(e.text("k5"), Some("35"));
            assert_eq!(e.text("k29"), Some("29"));
            assert_eq!(e.text("k30"), None);
        }
        assert!(e.unique.get().is_some(), "the table was built");
        assert_eq!(e.len(), 31);
        assert_eq!(e.clone().text("k5"), Some("35"));
    }

    #[test]
    fn documents_over_2_gib_are_refused() {
        assert_eq!(MAX_LEN, 2_147_483_647);
        assert!(check_len(MAX_LEN).is_ok());
        assert_eq!(
            check_len(MAX_LEN + 1),
            Err("the document is 2147483648 bytes long; at most 2147483647 are read".to_owned())
        );
    }

    #[test]
    fn escaped_keys_are_unescaped_after_the_document() {
        let mut doc = String::from(r#"{"a\u002ev1": 1, "plain.v1": 2, "a.v1": 3"#);
        for i in 0..20 {
            doc.push_str(&format!(r#", "k\u0030{i}": {i}"#));
        }
        doc.push_str(r#", "k05": "last"}"#);
        let e = parse(doc.as_bytes()).expect("valid").expect("object");
        assert_eq!(keys(&e)[..4], ["a.v1", "plain.v1", "k00", "k01"]);
        assert_eq!(text(&e, "a.v1"), Some("3"));
        assert_eq!(text(&e, "k05"), Some("\"last\""));
        assert_eq!(e.len(), 22);
    }

    #[test]
    fn shallow_reads_one_level() {
        let raw = RawValue::from_string(r#"{"a": [[1]], "b": "s", "a": 2}"#.into()).expect("valid");
        assert!(matches!(Shallow::of(&raw), Shallow::Object));
        let [a, b, c] = members(raw.get(), ["a", "b", "c"]).expect("an object");
        assert_eq!(a.map(RawValue::get), Some("2"), "the last duplicate wins");
        assert_eq!(
            Shallow::of(b.expect("listed")).into_string().as_deref(),
            Some("s")
        );
        assert!(c.is_none());
        assert!(members("[1]", ["a"]).is_none());
    }
}
