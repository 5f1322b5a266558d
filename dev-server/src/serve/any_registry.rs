//! `tfdisco-dev serve --any-registry DIR` (hidden): the registry that answers
//! for any provider (`tfdisco_testkit::any_registry`), for the Python and
//! Node packages' tests of configurations read as Terraform reads them
//! (the edges of the corpus of real configurations,
//! `tfdisco_testkit::real_configurations`, locked against it as
//! `cli/tests/real_configurations.rs` locks them), with a network mirror
//! beside it for OpenTofu's `trust_all_hashes` (docs/behaviour.md
//! MIRROR-14).
//!
//! It listens on a loopback port of its own (`127.0.0.1:0`) with the
//! certificate the serve process made (the CA is `--ca-out`'s), and serves
//!
//! - the any registry: every provider of every namespace, its versions,
//!   packages for each of `any_registry::PLATFORMS`, each version's
//!   `SHA256SUMS` signed by the registry's key;
//! - under `/mirror/`, a network mirror of the tree Terraform's `providers
//!   mirror` wrote for the signed registry (`mirror_goldens`' case
//!   `mirror-fresh`: `ns/alpha` 1.1.0 and `ns/beta` 0.10.0 for
//!   `linux_amd64`, `darwin_arm64` and `windows_amd64`), under each of
//!   `any_registry::HOSTS` (`/mirror/registry.opentofu.org/ns/alpha/index.json`),
//!   as `mirror_goldens::serve_tree` serves it.
//!
//! It writes `DIR/terraformrc`, the CLI configuration whose `host` blocks
//! send `registry.terraform.io` and `registry.opentofu.org` to the registry
//! (`any_registry::cli_config`), and is described on stdout, before `press
//! Ctrl-C to stop`, as one `any-registry {json}` line: `host`
//! (`localhost:PORT`), `ca_file` (the CA to trust), `cli_config` (that
//! file, for `TF_CLI_CONFIG_FILE`), `hosts`, `platforms`, `key_id` (the
//! key that signs every `SHA256SUMS`), `mirror` (the mirror's URL,
//! `https://localhost:PORT/mirror/`) and `mirror_tree` (the folder of the
//! tree it serves, the providers' host's folder named `{HOST}`). It stops
//! with the serve process.

use std::path::Path;

use serde_json::json;
use tfdisco_testkit::{TestServer, any_registry, mirror_goldens};

use crate::exit;
use crate::failure::Failure;

/// The mirror tree served under `/mirror/`.
const MIRROR_TREE: &str = "mirror-fresh";

/// The name of the CLI configuration file written into the folder.
const CLI_CONFIG: &str = "terraformrc";

/// The registry and mirror on their server, and what the line says of them.
pub(super) struct AnyRegistry {
    /// Kept for its drop: the server stops with it.
    _server: TestServer,
    described: String,
}

impl AnyRegistry {
    /// Serves the registry and the mirror on `server` (a loopback server of
    /// their own, presenting a certificate of the CA in `ca_file`) and
    /// writes the CLI configuration into `dir` (made when missing).
    pub(super) fn start(
        server: TestServer,
        dir: &Path,
        ca_file: &Path,
    ) -> Result<AnyRegistry, Failure> {
        let usage = |what: &Path, e: std::io::Error| {
            Failure::new(
                exit::USAGE,
                "invalid_option",
                format!("--any-registry {}: {e}", what.display()),
            )
        };
        any_registry::install(&server);
        let tree = mirror_goldens::tree_dir(MIRROR_TREE);
        for host in any_registry::HOSTS {
            mirror_goldens::serve_tree(&server, &tree, host, &[]);
        }
        std::fs::create_dir_all(dir).map_err(|e| usage(dir, e))?;
        let cli_config = dir.join(CLI_CONFIG);
        std::fs::write(&cli_config, any_registry::cli_config(&server))
            .map_err(|e| usage(&cli_config, e))?;
        let path = |p: &Path| p.to_string_lossy().into_owned();
        let described = json!({
            "host": server.host().to_string(),
            "ca_file": path(ca_file),
            "cli_config": path(&cli_config),
            "hosts": any_registry::HOSTS,
            "platforms": any_registry::PLATFORMS,
            "key_id": any_registry::key_id(),
            "mirror": server.url(mirror_goldens::MIRROR_PATH),
            "mirror_tree": path(&tree),
        })
        .to_string();
        Ok(AnyRegistry {
            _server: server,
            described,
        })
    }

    /// The `any-registry` line's JSON.
    pub(super) fn describe(&self) -> &str {
        &self.described
    }
}
