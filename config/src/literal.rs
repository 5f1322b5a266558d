//! Literal values of a CLI config file, from either syntax, with object keys
//! kept in file order (service ids keep the order they were written in).

use std::fmt;

use hcl::expr::{Operation, UnaryOperator};
use hcl::{Body, Expression, ObjectKey, Structure};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// A JSON-like value. Blocks are objects keyed by their labels, as in HCL's
/// JSON syntax: `credentials "a" { token = "x" }` is `{"credentials": {"a":
/// {"token": "x"}}}`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lit {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Lit>),
    /// Entries in file order; a key may repeat (the later one wins).
    Object(Vec<(String, Lit)>),
}

impl Lit {
    /// The value of `key` in an object (the last one when it repeats).
    pub(crate) fn get(&self, key: &str) -> Option<&Lit> {
        match self {
            Lit::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Lit::Null => "null",
            Lit::Bool(_) => "a bool",
            Lit::Number(_) => "a number",
            Lit::String(_) => "a string",
            Lit::Array(_) => "a list",
            Lit::Object(_) => "an object",
        }
    }

    pub(crate) fn into_json(self) -> Value {
        match self {
            Lit::Null => Value::Null,
            Lit::Bool(b) => Value::Bool(b),
            Lit::Number(n) => Value::Number(n),
            Lit::String(s) => Value::String(s),
            Lit::Array(items) => Value::Array(items.into_iter().map(Lit::into_json).collect()),
            Lit::Object(entries) => Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, v.into_json()))
                    .collect(),
            ),
        }
    }
}

/// The literal value of an HCL expression. HCL 1, the syntax of the CLI
/// config files, has no variables, functions or operators; a quoted string
/// with `${…}` in it is kept as written, as HCL 1 does.
pub(crate) fn from_expr(expr: &Expression) -> Result<Lit, NotLiteral> {
    Ok(match expr {
        Expression::Null => Lit::Null,
        Expression::Bool(b) => Lit::Bool(*b),
        Expression::Number(n) => Lit::Number(json_number(n).ok_or(NotLiteral)?),
        Expression::String(s) => Lit::String(s.clone()),
        Expression::TemplateExpr(t) => Lit::String(t.to_string()),
        Expression::Array(items) => {
            Lit::Array(items.iter().map(from_expr).collect::<Result<_, _>>()?)
        }
        Expression::Object(object) => Lit::Object(
            object
                .iter()
                .map(|(k, v)| Ok((object_key(k)?, from_expr(v)?)))
                .collect::<Result<_, _>>()?,
        ),
        Expression::Parenthesis(inner) => from_expr(inner)?,
        Expression::Operation(op) => match &**op {
            // `-1` parses as an operation on `1`.
            Operation::Unary(unary) if unary.operator == UnaryOperator::Neg => {
                match from_expr(&unary.expr)? {
                    Lit::Number(n) => Lit::Number(negate(&n).ok_or(NotLiteral)?),
                    _ => return Err(NotLiteral),
                }
            }
            _ => return Err(NotLiteral),
        },
        _ => return Err(NotLiteral),
    })
}

/// The attributes and blocks of an HCL body as an object. Fails with the
/// name of the first attribute whose value is not a literal.
pub(crate) fn from_body(body: &Body) -> Result<Lit, String> {
    let mut entries = Vec::new();
    for structure in body.iter() {
        entries.push(from_structure(structure)?);
    }
    Ok(Lit::Object(entries))
}

/// One attribute (`key = value`) or block (`ident "label" { … }`) as an
/// object entry.
pub(crate) fn from_structure(structure: &Structure) -> Result<(String, Lit), String> {
    match structure {
        Structure::Attribute(attr) => {
            let value = from_expr(attr.expr()).map_err(|_| attr.key().to_owned())?;
            Ok((attr.key().to_owned(), value))
        }
        Structure::Block(block) => {
            let mut value =
                from_body(block.body()).map_err(|key| format!("{}.{key}", block.identifier()))?;
            for label in block.labels().iter().rev() {
                value = Lit::Object(vec![(label.as_str().to_owned(), value)]);
            }
            Ok((block.identifier().to_owned(), value))
        }
    }
}

/// An expression that is not a literal value.
#[derive(Debug)]
pub(crate) struct NotLiteral;

fn object_key(key: &ObjectKey) -> Result<String, NotLiteral> {
    match key {
        ObjectKey::Identifier(ident) => Ok(ident.to_string()),
        ObjectKey::Expression(expr) => match from_expr(expr)? {
            Lit::String(s) => Ok(s),
            Lit::Number(n) => Ok(n.to_string()),
            Lit::Bool(b) => Ok(b.to_string()),
            _ => Err(NotLiteral),
        },
        _ => Err(NotLiteral),
    }
}

fn json_number(n: &hcl::Number) -> Option<Number> {
    if let Some(u) = n.as_u64() {
        Some(u.into())
    } else if let Some(i) = n.as_i64() {
        Some(i.into())
    } else {
        n.as_f64().and_then(Number::from_f64)
    }
}

fn negate(n: &Number) -> Option<Number> {
    if let Some(i) = n.as_i64() {
        i.checked_neg().map(Number::from)
    } else {
        n.as_f64().and_then(|f| Number::from_f64(-f))
    }
}

impl<'de> Deserialize<'de> for Lit {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Lit, D::Error> {
        deserializer.deserialize_any(LitVisitor)
    }
}

struct LitVisitor;

impl<'de> Visitor<'de> for LitVisitor {
    type Value = Lit;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Lit, E> {
        Ok(Lit::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Lit, E> {
        Ok(Lit::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Lit, E> {
        Ok(Lit::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Lit, E> {
        Ok(Lit::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Lit, E> {
        Ok(Lit::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Lit, E> {
        Ok(Number::from_f64(v).map_or(Lit::Null, Lit::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Lit, E> {
        Ok(Lit::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Lit, E> {
        Ok(Lit::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lit, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Lit::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lit, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, Lit>()? {
            entries.push(entry);
        }
        Ok(Lit::Object(entries))
    }
}
