//! `tfdisco-dev serve --oci-registry MODE` (hidden): a real OCI registry for
//! the Python and Node packages' tests of OpenTofu's OCI features, started
//! beside the discovery server: the testkit's
//! [`OciRegistry`](tfdisco_testkit::oci_registry::OciRegistry) (Debian's
//! `docker-registry` as a child process, HTTPS with the testkit's CA),
//! anonymous or with Basic credentials (MODE `anonymous` or `basic`),
//! holding
//!
//! - a module package at `modules/app`, tagged `1.0.0` and `latest`
//!   (`main.tf` and `sub/variables.tf`), and a provider's index tagged
//!   `2.0.0` in the same repository, which a module source refuses;
//! - the signed registry's providers under `mirror/ns/TYPE`
//!   (`OciRegistry::mirror_signed_registry`), for `lock` with an OCI
//!   mirror and `install` with an `oci_mirror` installation method.
//!
//! It is described on stdout, before `press Ctrl-C to stop`, as one
//! `oci-registry {json}` line: `mode`, `host` (`127.0.0.1:PORT`),
//! `ca_file` (the CA to trust), `username` and `password` (null when
//! anonymous), `module` (`repository`, `source` (`oci://HOST/modules/app`),
//! `tags`, `digest` (the manifest's), `size`, `package_digest`,
//! `package_size`, `files`: each file's name and text), `not_a_module`
//! (the source of the provider's index) and `mirror_template` (the
//! mirror's `-oci-mirror` template).
//!
//! The registry stops with the serve process: on SIGTERM or SIGINT, a
//! `stop` line on stdin, or stdin's end (the test that started it is gone);
//! its storage and the CA file go with it.

use std::io::BufRead as _;
use std::sync::mpsc::{Receiver, Sender, channel};

use serde_json::json;
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry};

use crate::exit;
use crate::failure::Failure;

/// The module package's repository.
const MODULE_REPOSITORY: &str = "modules/app";
/// The tags the module package has.
const MODULE_TAGS: [&str; 2] = ["1.0.0", "latest"];
/// The tag of a provider's index in the module's repository.
const NOT_A_MODULE_TAG: &str = "2.0.0";
/// The module package's files: name, Unix mode, text.
const MODULE_FILES: &[(&str, u32, &[u8])] = &[
    ("main.tf", 0o100_644, b"output \"ok\" { value = true }\n"),
    ("sub/variables.tf", 0o100_644, b"variable \"x\" {}\n"),
];
/// The user of the `basic` mode.
const USERNAME: &str = "ci";

/// The registry, what the line says of it, and the stop signal.
pub(super) struct OciFixture {
    /// Kept for its drop: the registry stops, its folder goes.
    _registry: OciRegistry,
    described: String,
    stop: Receiver<&'static str>,
}

impl OciFixture {
    /// Starts the registry in `mode` and pushes the module and the mirror;
    /// starts watching for the signals, stdin's `stop` line and its end.
    pub(super) fn start(mode: &str) -> Result<OciFixture, Failure> {
        let usage = |message: String| Failure::new(exit::USAGE, "invalid_option", message);
        let password = format!("tfdisco-oci-{}", std::process::id());
        let auth = match mode {
            "anonymous" => OciAuth::Anonymous,
            "basic" => OciAuth::basic(USERNAME, &password),
            other => {
                return Err(usage(format!(
                    "--oci-registry: no mode {other:?} (modes: anonymous, basic)"
                )));
            }
        };
        let (send, stop) = channel();
        watch_signals(send.clone())?;
        watch_stdin(send);
        let registry = OciRegistry::try_start(auth).map_err(|e| {
            Failure::new(exit::FAILED, "oci_registry", format!("--oci-registry: {e}"))
        })?;
        let zip = stored_zip(MODULE_FILES);
        let mut pushed = None;
        for tag in MODULE_TAGS {
            pushed = Some(registry.push_module(MODULE_REPOSITORY, tag, &zip));
        }
        let pushed = pushed.expect("the module has tags");
        registry.push_provider(
            MODULE_REPOSITORY,
            NOT_A_MODULE_TAG,
            &[("linux", "amd64", b"PK\x05\x06 no zip")],
        );
        registry.mirror_signed_registry();

        // The CA in the registry's folder, which goes with it.
        let ca_file = registry.dir().join("ca.pem");
        std::fs::write(&ca_file, tfdisco_testkit::pki().ca_pem()).map_err(|e| {
            Failure::new(
                exit::FAILED,
                "oci_registry",
                format!("writing {}: {e}", ca_file.display()),
            )
        })?;
        let host = registry.host();
        let files: serde_json::Map<String, serde_json::Value> = MODULE_FILES
            .iter()
            .map(|(name, _, text)| {
                (
                    (*name).to_owned(),
                    String::from_utf8_lossy(text).into_owned().into(),
                )
            })
            .collect();
        let basic = mode == "basic";
        let described = json!({
            "mode": mode,
            "host": host,
            "ca_file": ca_file.to_string_lossy(),
            "username": basic.then_some(USERNAME),
            "password": basic.then_some(password.as_str()),
            "module": {
                "repository": MODULE_REPOSITORY,
                "source": format!("oci://{host}/{MODULE_REPOSITORY}"),
                "tags": MODULE_TAGS,
                "digest": pushed.manifest_digest,
                "size": pushed.manifest.len(),
                "package_digest": pushed.zip_digest,
                "package_size": zip.len(),
                "files": files,
            },
            "not_a_module": format!("oci://{host}/{MODULE_REPOSITORY}?tag={NOT_A_MODULE_TAG}"),
            "mirror_template": registry.signed_mirror_template(),
        })
        .to_string();
        Ok(OciFixture {
            _registry: registry,
            described,
            stop,
        })
    }

    /// The `oci-registry` line's JSON.
    pub(super) fn describe(&self) -> &str {
        &self.described
    }

    /// Why the fixture is to stop, once it is.
    pub(super) fn stopping(&self) -> Option<&'static str> {
        self.stop.try_recv().ok()
    }
}

impl Drop for OciFixture {
    fn drop(&mut self) {
        // The testkit's CA file of this process (the registry's own goes
        // with its folder).
        let _ = std::fs::remove_file(tfdisco_testkit::pki().ca_file());
    }
}

/// Sends on `stop` at the first SIGTERM or SIGINT, from a thread of its own
/// with a runtime of its own.
fn watch_signals(stop: Sender<&'static str>) -> Result<(), Failure> {
    use tokio::signal::unix::{SignalKind, signal};
    let failed = |e: std::io::Error| {
        Failure::new(
            exit::FAILED,
            "oci_registry",
            format!("--oci-registry: watching for signals: {e}"),
        )
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(failed)?;
    let (mut term, mut int) = {
        let _entered = runtime.enter();
        (
            signal(SignalKind::terminate()).map_err(failed)?,
            signal(SignalKind::interrupt()).map_err(failed)?,
        )
    };
    std::thread::spawn(move || {
        let which = runtime.block_on(std::future::poll_fn(|cx| {
            if term.poll_recv(cx).is_ready() {
                return std::task::Poll::Ready("SIGTERM");
            }
            if int.poll_recv(cx).is_ready() {
                return std::task::Poll::Ready("SIGINT");
            }
            std::task::Poll::Pending
        }));
        let _ = stop.send(which);
    });
    Ok(())
}

/// Sends on `stop` at a `stop` line on stdin, or at its end.
fn watch_stdin(stop: Sender<&'static str>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            match line {
                Ok(line) if line.trim() == "stop" => break,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let _ = stop.send("stdin");
    });
}
