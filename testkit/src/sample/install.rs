//! The sample registry's routes on a test server, made from the data in
//! [`super`].

use super::{
    DOWNLOADS_PATH, MODULES, MODULES_PATH, Module, NOT_FOUND, PROVIDERS, PROVIDERS_PATH, Provider,
    SHASUM, version_entries,
};
use crate::{Reply, TestServer};

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

/// Routes only the sample registry: modules under [`MODULES_PATH`],
/// providers under [`PROVIDERS_PATH`]. Anything else under those two answers
/// 404 with [`NOT_FOUND`], as registry.terraform.io does; every other path
/// the server has no route for answers a plain-text 404 (not the test
/// server's 500, which clients would retry).
pub fn install_registry(server: &TestServer) {
    server.route_prefix("/", not_found("text/plain", "not found\n"));
    server.route_prefix(
        DOWNLOADS_PATH,
        not_found(
            "text/plain",
            "the sample registry's packages are not real: none is served\n",
        ),
    );
    for api in [MODULES_PATH, PROVIDERS_PATH] {
        server.route_prefix(api, not_found("application/json", NOT_FOUND));
    }
    for module in MODULES {
        install_module(server, module);
    }
    for provider in PROVIDERS {
        install_provider(server, provider);
    }
    crate::signed_registry::install_registry(server);
}

fn not_found(content_type: &str, body: &str) -> Reply {
    Reply::new(404)
        .header("Content-Type", content_type)
        .body(body.as_bytes())
}

fn install_module(server: &TestServer, module: &Module) {
    let source = module.source;
    let versions: Vec<String> = module
        .versions
        .iter()
        .map(|v| format!(r#"{{"version": "{v}"}}"#))
        .collect();
    server.route(
        &format!("{MODULES_PATH}{source}/versions"),
        Reply::json(&format!(
            r#"{{"modules": [{{"source": "{source}", "versions": [{}]}}]}}"#,
            versions.join(", ")
        )),
    );
    for version in module.versions {
        server.route(
            &format!("{MODULES_PATH}{source}/{version}/download"),
            Reply::new(204).header(
                "X-Terraform-Get",
                &module.location.replace("{version}", version),
            ),
        );
    }
}

fn install_provider(server: &TestServer, provider: &Provider) {
    let source = provider.source;
    let name = provider.type_name();
    server.route(
        &format!("{PROVIDERS_PATH}{source}/versions"),
        Reply::json(&format!(
            r#"{{"id": "{source}", "versions": [{}], "warnings": null}}"#,
            version_entries(provider.versions, provider.platforms)
        )),
    );
    for version in provider.versions {
        for (os, arch) in provider.platforms {
            let filename = format!("terraform-provider-{name}_{version}_{os}_{arch}.zip");
            let downloads = format!("{DOWNLOADS_PATH}{name}/{version}");
            let body = format!(
                r#"{{
  "protocols": ["5.0"],
  "os": "{os}",
  "arch": "{arch}",
  "filename": "{filename}",
  "download_url": "{downloads}/{filename}",
  "shasums_url": "{downloads}/SHA256SUMS",
  "shasums_signature_url": "{downloads}/SHA256SUMS.sig",
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
                &format!("{PROVIDERS_PATH}{source}/{version}/download/{os}/{arch}"),
                Reply::json(&body),
            );
        }
    }
}
