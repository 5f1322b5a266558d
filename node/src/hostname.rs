//! `Hostname` and the hostname functions.

use napi::Env;
use napi::bindgen_prelude::{ClassInstance, Either, Unknown};
use napi_derive::napi;
use tfdisco_core::hostname::{for_display as core_for_display, is_valid as core_is_valid};

use crate::errors::{Failure, OrThrow, string_arg};

/// A Terraform/OpenTofu service hostname in comparison form.
#[napi]
#[derive(Clone)]
pub struct Hostname(pub(crate) tfdisco_core::Hostname);

#[napi]
impl Hostname {
    /// Parses `name` as a user types it (svchost's `ForComparison`).
    #[napi(constructor)]
    pub fn new(env: Env, name: Unknown<'_>) -> napi::Result<Self> {
        string_arg(&name, "The \"name\" argument")
            .and_then(|name| Ok(tfdisco_core::Hostname::parse(&name)?))
            .map(Hostname)
            .or_throw(&env)
    }

    /// A hostname already in comparison form, such as one read back from
    /// storage: accepts punycode, refuses what parsing would have changed.
    #[napi(factory)]
    pub fn from_comparison(env: Env, value: Unknown<'_>) -> napi::Result<Self> {
        string_arg(&value, "The \"value\" argument")
            .and_then(|value| Ok(tfdisco_core::Hostname::from_comparison(&value)?))
            .map(Hostname)
            .or_throw(&env)
    }

    /// The form to show people (`münchen.de:8443`).
    #[napi(getter)]
    pub fn display(&self) -> String {
        self.0.display().into_owned()
    }

    /// The host part of the comparison form, without the port.
    #[napi(getter)]
    pub fn host(&self) -> String {
        self.0.host().to_owned()
    }

    /// The port, or null when it is the default (443).
    #[napi(getter)]
    pub fn port(&self) -> Option<u32> {
        self.0.port().map(u32::from)
    }

    /// The comparison form (`xn--mnchen-3ya.de:8443`).
    #[napi]
    #[allow(clippy::inherent_to_string)]
    pub fn to_string(&self) -> String {
        self.0.as_str().to_owned()
    }

    /// The comparison form, for `JSON.stringify`.
    #[napi(js_name = "toJSON")]
    pub fn to_json(&self) -> String {
        self.0.as_str().to_owned()
    }

    /// True when `other` (a `Hostname`, or a string parsed as one) names
    /// the same host; false for a string that does not parse.
    #[napi]
    pub fn equals(&self, other: Either<String, ClassInstance<'_, Hostname>>) -> bool {
        match other {
            Either::A(text) => tfdisco_core::Hostname::parse(&text).is_ok_and(|h| h == self.0),
            Either::B(host) => host.0 == self.0,
        }
    }
}

/// A hostname argument: a `Hostname`, or a string parsed as one.
pub(crate) type HostArg<'a> = Either<String, ClassInstance<'a, Hostname>>;

/// The hostname a [`HostArg`] names, or the `InvalidHostnameError`.
pub(crate) fn host_arg(arg: &HostArg<'_>) -> Result<tfdisco_core::Hostname, Failure> {
    match arg {
        Either::A(text) => Ok(tfdisco_core::Hostname::parse(text)?),
        Either::B(host) => Ok(host.0.clone()),
    }
}

/// The comparison form of `name` (svchost `ForComparison`).
#[napi]
pub fn normalize(env: Env, name: String) -> napi::Result<String> {
    tfdisco_core::Hostname::parse(&name)
        .map(|h| h.as_str().to_owned())
        .or_throw(&env)
}

/// The liberal display form of any string (svchost's `ForDisplay`).
#[napi]
pub fn for_display(name: String) -> String {
    core_for_display(&name)
}

/// True when `new Hostname(name)` would succeed (svchost `IsValid`).
#[napi]
pub fn is_valid(name: String) -> bool {
    core_is_valid(&name)
}
