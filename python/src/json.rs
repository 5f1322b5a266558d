//! JSON text to Python objects, keeping the order of object members; and
//! the reports' one JSON document (the library's serialization, what the
//! `tfdisco` CLI prints with `--json`) as a `str` ([`to_json`]).
//!
//! `Services` keeps each value as the text of the document; this builds the
//! Python value straight from that text (dict, list, str, int, float, bool,
//! None), with no tree in between. Nesting deeper than serde_json's limit
//! (128), or a number it cannot represent, falls back to Python's `json`
//! module, which decides as Python would.

use std::fmt;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use tfdisco_core::serde_json;

/// The library's JSON document of `report`: what `to_json()` returns.
pub(crate) fn to_json(report: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(report)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// The Python value of the JSON text `text`.
pub(crate) fn to_python<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let built = Seed(py)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match built {
        Ok(value) => Ok(value),
        Err(_) => {
            static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            LOADS.import(py, "json", "loads")?.call1((text,))
        }
    }
}

/// Builds one value.
struct Seed<'py>(Python<'py>);

fn python_error<E: de::Error>(e: PyErr) -> E {
    E::custom(e)
}

impl<'de, 'py> DeserializeSeed<'de> for Seed<'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'py> Visitor<'de> for Seed<'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        let Ok(b) = v.into_pyobject(self.0);
        Ok(b.to_owned().into_any())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        let Ok(object) = v.into_pyobject(self.0);
        Ok(object.into_any())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        let Ok(object) = v.into_pyobject(self.0);
        Ok(object.into_any())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        let Ok(object) = v.into_pyobject(self.0);
        Ok(object.into_any())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let Ok(object) = v.into_pyobject(self.0);
        Ok(object.into_any())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.0.None().into_bound(self.0))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let list = PyList::empty(self.0);
        while let Some(item) = seq.next_element_seed(Seed(self.0))? {
            list.append(item).map_err(python_error)?;
        }
        Ok(list.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Members in document order; a repeated key keeps its first place
        // and its last value, as `json.loads` and Go do.
        let dict = PyDict::new(self.0);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = map.next_value_seed(Seed(self.0))?;
            dict.set_item(key.as_ref(), value).map_err(python_error)?;
        }
        Ok(dict.into_any())
    }
}
