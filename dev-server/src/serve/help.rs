//! What `tfdisco-dev serve --help` says about the sample registry, made from the
//! data the registry is served from (`tfdisco_testkit::sample`).

use std::fmt::Write as _;

use tfdisco_testkit::sample::{
    self, DOCUMENT, MODULES, MODULES_PATH, NOT_FOUND, PROVIDERS, PROVIDERS_PATH,
};
use tfdisco_testkit::signed_registry;

/// The first line of the text, for `-h` to point at.
pub(crate) const HEADING: &str = "The sample registry";

/// The help's account of the sample registry: the document, every provider
/// with its versions and platforms, every module with its versions, what
/// the rest answers, and how to ask it.
pub(crate) fn sample_registry() -> String {
    let mut text = format!(
        "{HEADING} (served with or without --doc):\n\n\
         Without --doc, {} is:\n",
        tfdisco_core::DISCOVERY_PATH
    );
    for line in DOCUMENT.lines() {
        let _ = writeln!(text, "  {line}");
    }
    let _ = writeln!(
        text,
        "\nProviders, under {PROVIDERS_PATH} (every version for every platform):"
    );
    for provider in PROVIDERS {
        let platforms: Vec<String> = provider
            .platforms
            .iter()
            .map(|(os, arch)| format!("{os}_{arch}"))
            .collect();
        let _ = writeln!(
            text,
            "  {:<22} versions {}; platforms {}",
            provider.source,
            provider.versions.join(" "),
            platforms.join(" ")
        );
    }
    let platforms = signed_registry::PLATFORMS.join(" ");
    for (name, versions) in signed_registry::PROVIDERS {
        let _ = writeln!(
            text,
            "  {:<22} versions {}; platforms {platforms}; real packages, signed",
            format!("{}/{name}", signed_registry::NAMESPACE),
            versions.join(" "),
        );
    }
    let _ = writeln!(text, "Modules, under {MODULES_PATH}:");
    for module in MODULES {
        let _ = writeln!(
            text,
            "  {:<22} versions {}",
            module.source,
            module.versions.join(" ")
        );
    }
    let _ = write!(
        text,
        "\nAnything else under {PROVIDERS_PATH} or {MODULES_PATH} answers 404 with\n\
         {NOT_FOUND}, as registry.terraform.io does; any other path\n\
         answers 404. The package files of hashicorp/random (under {}) and the\n\
         login.v1 endpoints are not served. The packages of {ns}/* are (under\n\
         {files}), their SHA256SUMS signed by a test key (id {key}):\n\
         `tfdisco lock` and `terraform providers lock` verify and lock them.\n",
        sample::DOWNLOADS_PATH,
        ns = signed_registry::NAMESPACE,
        files = signed_registry::FILES_PATH,
        key = signed_registry::key_id(),
    );
    // Module registry hosts need a dot (docs/behaviour.md SRC-7).
    if let (Some(provider), Some(module)) = (PROVIDERS.first(), MODULES.first()) {
        let _ = write!(
            text,
            "\nModule registry hosts need a dot: ask it as 127.0.0.1:PORT, e.g.\n  \
             tfdisco provider versions 127.0.0.1:8443/{} --ca-file CA.pem\n  \
             tfdisco module versions 127.0.0.1:8443/{} --ca-file CA.pem\n",
            provider.source, module.source
        );
    }
    text
}
