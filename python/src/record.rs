//! Record classes: frozen wrappers of a core value whose fields are
//! read-only attributes, shown as a dataclass shows itself. One table per
//! class ([`record_methods!`]) declares the fields once; [`record_class!`]
//! declares a plain record class with its table.

use pyo3::prelude::*;
use pyo3::types::PyString;

/// `repr(text)` as Python writes it (`'a'`, `"it's"`).
pub(crate) fn quote(py: Python<'_>, text: &str) -> PyResult<String> {
    Ok(PyString::new(py, text).repr()?.to_string())
}

/// The `#[pymethods]` of a class whose attributes are the fields of the
/// core value it wraps, from one table of those fields: a read-only
/// attribute per field, with the docstring its `///` lines give, and, for
/// a record (`as "Name"`), a `__repr__` that shows every field in order as
/// a dataclass does, `Name(field=repr(value), …)`.
///
/// ```ignore
/// record_methods! {
///     PyModuleVersions as "ModuleVersions" {
///         /// The URL the versions were read from, after redirects.
///         url => |v| v.url.as_str(),
///         /// A getter that needs the interpreter names it second.
///         scopes => |c, py| PyTuple::new(py, c.scopes())?,
///         /// A field `__repr__` shows otherwise than by its `repr`.
///         ascii_armor => |k| k.ascii_armor.as_str();
///             shown |k| format!("<{} characters>", k.ascii_armor.chars().count()),
///     }
///     // Any other methods, as in a `#[pymethods]` block.
/// }
/// ```
///
/// The class is a tuple struct around the core value; `|v|` names that
/// value. Each getter's value becomes a Python object as PyO3 converts
/// return values (`&str` a `str`, `Option` `None` or the value, a `Vec` a
/// new `list`, …), and `?` may be used in it. Without `as "Name"` no
/// `__repr__` is made: the class writes its own among the other methods.
macro_rules! record_methods {
    ($class:ident $(as $name:literal)? { $($fields:tt)* } $($more:tt)*) => {
        $crate::record::record_methods!(
            @methods $class [$($name)?] { $($fields)* } { $($fields)* } $($more)*
        );
    };
    (
        @methods $class:ident [$($name:literal)?]
        {
            $(
                $(#[doc = $doc:literal])*
                $field:ident => |$value:ident $(, $py:ident)?| $get:expr
                $(; shown |$shown_value:ident| $shown:expr)?
            ),* $(,)?
        }
        $fields:tt
        $($more:tt)*
    ) => {
        #[pyo3::pymethods]
        impl $class {
            $(
                $(#[doc = $doc])*
                #[getter]
                fn $field<'py>(
                    &self,
                    py: pyo3::Python<'py>,
                ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                    let $value = &self.0;
                    $(let $py = py;)?
                    pyo3::IntoPyObjectExt::into_bound_py_any($get, py)
                }
            )*

            $($more)*

            $(
                fn __repr__(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<String> {
                    $crate::record::record_methods!(@repr self, py, $name, $fields)
                }
            )?
        }
    };
    (
        @repr $this:ident, $py:ident, $name:literal,
        {
            $(
                $(#[doc = $doc:literal])*
                $field:ident => |$value:ident $(, $get_py:ident)?| $get:expr
                $(; shown |$shown_value:ident| $shown:expr)?
            ),* $(,)?
        }
    ) => {{
        let fields: &[String] = &[$(
            format!(
                "{}={}",
                stringify!($field),
                $crate::record::record_methods!(
                    @shown $this.$field($py)?, &$this.0 $(, |$shown_value| $shown)?
                ),
            ),
        )*];
        Ok(format!("{}({})", $name, fields.join(", ")))
    }};
    (@shown $object:expr, $value:expr) => {
        pyo3::types::PyAnyMethods::repr(&$object)?
    };
    (@shown $object:expr, $value:expr, |$shown_value:ident| $shown:expr) => {{
        let $shown_value = $value;
        $shown
    }};
}

pub(crate) use record_methods;

/// A record class of the `tfdisco` module and its [`record_methods!`]:
/// a frozen class named in Python as given (`as "Name"`, also the name
/// its `__repr__` shows), a tuple struct around the core value; with
/// `eq`, compared by that value (`==`, `!=`). A class with more to its
/// `#[pyclass]` (`hash`, `str`, `mapping`, …) is declared as usual and
/// takes [`record_methods!`].
///
/// ```ignore
/// record_class! {
///     /// The versions of a module package (`Client.module_versions`).
///     PyModuleVersions(ModuleVersions) as "ModuleVersions", eq {
///         /// The URL the versions were read from, after redirects.
///         url => |v| v.url.as_str(),
///     }
///     // Any other methods, as in a `#[pymethods]` block.
/// }
/// ```
macro_rules! record_class {
    (
        @class [$($attrs:tt)*]
        $class:ident($inner:ty) as $name:literal { $($fields:tt)* } $($more:tt)*
    ) => {
        $($attrs)*
        pub(crate) struct $class(pub(crate) $inner);

        $crate::record::record_methods! {
            $class as $name { $($fields)* } $($more)*
        }
    };
    ($(#[$attr:meta])* $class:ident($inner:ty) as $name:literal, eq $($rest:tt)*) => {
        $crate::record::record_class!(
            @class [
                $(#[$attr])*
                #[pyo3::pyclass(frozen, eq, module = "tfdisco", name = $name)]
                #[derive(PartialEq)]
            ]
            $class($inner) as $name $($rest)*
        );
    };
    ($(#[$attr:meta])* $class:ident($inner:ty) as $name:literal $($rest:tt)*) => {
        $crate::record::record_class!(
            @class [
                $(#[$attr])*
                #[pyo3::pyclass(frozen, module = "tfdisco", name = $name)]
            ]
            $class($inner) as $name $($rest)*
        );
    };
}

pub(crate) use record_class;
