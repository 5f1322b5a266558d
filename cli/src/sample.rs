//! The sample discovery document `tfdisco serve` and `tfdisco demo` serve.

/// Relative and absolute service URLs and a `login.v1` OAuth client.
pub(crate) const DOCUMENT: &str = r#"{
  "modules.v1": "/api/modules/v1/",
  "providers.v1": "https://providers.example.com/v1/",
  "login.v1": {
    "client": "tfdisco-dev",
    "grant_types": ["authz_code"],
    "authz": "/oauth/authorization",
    "token": "/oauth/token",
    "ports": [10000, 10010]
  }
}
"#;
