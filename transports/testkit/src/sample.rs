//! A small sample registry: a discovery document and the module and provider
//! registry answers behind it, as `tfdisco serve` and `tfdisco demo` serve
//! them (and the Python package's tests read them).

use crate::{Reply, TestServer};

/// The sample discovery document: a module and a provider registry on the
/// same server (relative URLs), and a `login.v1` OAuth client.
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

/// Routes the sample discovery document (at the well-known path) and its
/// registry on `server`.
pub fn install(server: &TestServer, document: &[u8]) {
    server.route(
        tfdisco_core::DISCOVERY_PATH,
        Reply::new(200)
            .header("Content-Type", "application/json")
            .body(document),
    );
    install_registry(server);
}

/// Routes only the sample registry: modules under `/v1/modules/`,
/// providers under `/v1/providers/`.
pub fn install_registry(server: &TestServer) {
    let versions: Vec<String> = MODULE_VERSIONS
        .iter()
        .map(|v| format!(r#"{{"version": "{v}"}}"#))
        .collect();
    server.route(
        &format!("/v1/modules/{MODULE}/versions"),
        Reply::json(&format!(
            r#"{{"modules": [{{"source": "{MODULE}", "versions": [{}]}}]}}"#,
            versions.join(", ")
        )),
    );
    for version in MODULE_VERSIONS {
        server.route(
            &format!("/v1/modules/{MODULE}/{version}/download"),
            Reply::new(204).header(
                "X-Terraform-Get",
                &MODULE_LOCATION.replace("{version}", version),
            ),
        );
    }

    let platforms: Vec<String> = PLATFORMS
        .iter()
        .map(|(os, arch)| format!(r#"{{"os": "{os}", "arch": "{arch}"}}"#))
        .collect();
    let versions: Vec<String> = PROVIDER_VERSIONS
        .iter()
        .map(|v| {
            format!(
                r#"{{"version": "{v}", "protocols": ["5.0"], "platforms": [{}]}}"#,
                platforms.join(", ")
            )
        })
        .collect();
    server.route(
        &format!("/v1/providers/{PROVIDER}/versions"),
        Reply::json(&format!(r#"{{"versions": [{}]}}"#, versions.join(", "))),
    );
    for version in PROVIDER_VERSIONS {
        for (os, arch) in PLATFORMS {
            let filename = format!("terraform-provider-random_{version}_{os}_{arch}.zip");
            let body = format!(
                r#"{{
  "protocols": ["5.0"],
  "os": "{os}",
  "arch": "{arch}",
  "filename": "{filename}",
  "download_url": "/downloads/random/{version}/{filename}",
  "shasums_url": "/downloads/random/{version}/SHA256SUMS",
  "shasums_signature_url": "/downloads/random/{version}/SHA256SUMS.sig",
  "shasum": "{SHASUM}",
  "signing_keys": {{"gpg_public_keys": [{{
    "key_id": "34365D9472D7468F",
    "ascii_armor": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n(sample)\n-----END PGP PUBLIC KEY BLOCK-----",
    "trust_signature": "",
    "source": "HashiCorp",
    "source_url": "https://www.hashicorp.com/security.html"
  }}]}}
}}"#
            );
            server.route(
                &format!("/v1/providers/{PROVIDER}/{version}/download/{os}/{arch}"),
                Reply::json(&body),
            );
        }
    }
}
