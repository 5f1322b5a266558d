//! A small sample registry: a discovery document and the module and provider
//! registry answers behind it, as `tfdisco-dev serve` and `tfdisco-dev demo` serve
//! them (and the Python package's tests read them). [`PROVIDERS`] and
//! [`MODULES`] are what it serves: the routes and `tfdisco-dev serve --help` are
//! both made from them.

mod install;

pub use install::{install, install_registry};

/// The sample discovery document: a module and a provider registry on the
/// same server (relative URLs, [`MODULES_PATH`] and [`PROVIDERS_PATH`]), and
/// a `login.v1` OAuth client (its endpoints are not served).
pub const DOCUMENT: &str = r#"{
  "modules.v1": "/v1/modules/",
  "providers.v1": "/v1/providers/",
  "login.v1": {
    "client": "tfdisco-dev",
    "grant_types": ["authz_code"],
    "authz": "/oauth/authorization",
    "token": "/oauth/token",
    "ports": [10000, 10010]
  }
}
"#;

/// Where the sample module registry answers (`modules.v1` of [`DOCUMENT`]).
pub const MODULES_PATH: &str = "/v1/modules/";
/// Where the sample provider registry answers (`providers.v1` of [`DOCUMENT`]).
pub const PROVIDERS_PATH: &str = "/v1/providers/";
/// Where the package URLs of the sample providers point (nothing is served
/// there: the packages are not real).
pub const DOWNLOADS_PATH: &str = "/downloads/";

/// The sample module (`<host>/hashicorp/consul/aws`).
pub const MODULE: &str = "hashicorp/consul/aws";
/// Its versions, oldest first.
pub const MODULE_VERSIONS: [&str; 3] = ["0.11.0", "0.12.0", "0.12.1"];
/// Where each version downloads from (`{version}` replaced).
pub const MODULE_LOCATION: &str =
    "git::https://github.com/hashicorp/terraform-aws-consul?ref=v{version}";

/// The sample provider (`<host>/hashicorp/random`).
pub const PROVIDER: &str = "hashicorp/random";
/// Its versions, oldest first.
pub const PROVIDER_VERSIONS: [&str; 2] = ["3.5.1", "3.6.0"];
/// The platforms every version has.
pub const PLATFORMS: [(&str, &str); 3] = [
    ("linux", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];
/// The SHA-256 every sample package claims (of nothing in particular).
pub const SHASUM: &str = "5f9c7aa76b7c34d722fc9123208e26b22d60440cb47150dd04733b9b94f4541a";

/// A provider the sample registry serves.
#[derive(Clone, Copy, Debug)]
pub struct Provider {
    /// `namespace/type`, after the host.
    pub source: &'static str,
    /// Its versions, oldest first.
    pub versions: &'static [&'static str],
    /// The platforms (`os`, `arch`) every version has.
    pub platforms: &'static [(&'static str, &'static str)],
}

impl Provider {
    /// The provider's type, the last part of its source (`random`).
    pub fn type_name(&self) -> &'static str {
        self.source.rsplit('/').next().unwrap_or(self.source)
    }
}

/// A module the sample registry serves.
#[derive(Clone, Copy, Debug)]
pub struct Module {
    /// `namespace/name/system`, after the host.
    pub source: &'static str,
    /// Its versions, oldest first.
    pub versions: &'static [&'static str],
    /// Where each version downloads from (`{version}` replaced).
    pub location: &'static str,
}

/// Every provider the sample registry serves.
pub const PROVIDERS: &[Provider] = &[Provider {
    source: PROVIDER,
    versions: &PROVIDER_VERSIONS,
    platforms: &PLATFORMS,
}];

/// Every module the sample registry serves.
pub const MODULES: &[Module] = &[Module {
    source: MODULE,
    versions: &MODULE_VERSIONS,
    location: MODULE_LOCATION,
}];

/// The entries of a provider versions document's `versions` list, joined:
/// each of `versions`, protocol 5.0, for every one of `platforms`.
pub(crate) fn version_entries(versions: &[&str], platforms: &[(&str, &str)]) -> String {
    let platforms: Vec<String> = platforms
        .iter()
        .map(|(os, arch)| format!(r#"{{"os": "{os}", "arch": "{arch}"}}"#))
        .collect();
    let entries: Vec<String> = versions
        .iter()
        .map(|v| {
            format!(
                r#"{{"version": "{v}", "protocols": ["5.0"], "platforms": [{}]}}"#,
                platforms.join(", ")
            )
        })
        .collect();
    entries.join(", ")
}

/// The body registry.terraform.io sends with a 404 for a provider, module,
/// version or platform it does not have (`Content-Type: application/json`).
pub const NOT_FOUND: &str = r#"{"errors":["Not Found"]}"#;

#[cfg(test)]
mod tests;
