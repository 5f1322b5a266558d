//! `tfdisco lock --oci-mirror` against a real OCI registry (Debian's
//! `docker-registry`) holding the signed registry's zips, with the OCI
//! credentials of the CLI configuration (OCIMIRROR-6, OCICRED): Terraform's
//! lock file from the registry, byte for byte apart from the header; wrong
//! credentials are exit 1, nothing written and no secret printed.

mod common;

use std::fs;

use common::{ca_file, tfdisco};
use tfdisco_testkit::lock_goldens::CASES;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry};

const SECRET: &str = "cli-oci-secret";

/// A registry with Basic auth holding every version of the signed
/// registry's providers under `mirror/ns/TYPE`.
fn mirror() -> OciRegistry {
    let registry = OciRegistry::start(OciAuth::basic("ci", SECRET));
    registry.mirror_signed_registry();
    registry
}

/// `tfdisco lock --oci-mirror …` in a fresh copy of the `fresh` case with
/// `password` in an `oci_credentials` block of the CLI configuration.
fn lock(registry: &OciRegistry, password: &str) -> (common::Run, Option<String>, String) {
    let case = CASES
        .iter()
        .find(|c| c.name == "fresh")
        .expect("the fresh case");
    let host = "registry.example.test";
    let work = tempfile::tempdir().expect("temp dir");
    let dir = work.path().join("run");
    case.prepare(&dir, host);
    let home = tempfile::tempdir().expect("temp dir");
    let config = home.path().join("tofu.rc");
    fs::write(
        &config,
        format!(
            "oci_credentials \"{}\" {{\n  username = \"ci\"\n  password = \"{password}\"\n}}\n",
            registry.host()
        ),
    )
    .expect("write the CLI configuration");
    let template = registry.signed_mirror_template();
    let ca = ca_file();
    let chdir = dir.to_string_lossy().into_owned();
    let mut args = vec![
        "lock",
        "--dialect",
        "opentofu",
        "--ca-file",
        &ca,
        "--chdir",
        &chdir,
        "--oci-mirror",
        &template,
    ];
    for platform in case.platforms {
        args.extend(["--platform", platform]);
    }
    let config_text = config.to_string_lossy().into_owned();
    let run = tfdisco(home.path(), &[("TF_CLI_CONFIG_FILE", &config_text)], &args);
    let written = fs::read_to_string(dir.join(".terraform.lock.hcl")).ok();
    (
        run,
        written,
        case.expected(host).expect("Terraform's lock file"),
    )
}

#[test]
fn a_lock_from_an_oci_mirror_with_the_cli_configurations_credentials() {
    let registry = mirror();
    let (run, written, expected) = lock(&registry, SECRET);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let written = written.expect("a lock file");
    let body = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&written), body(&expected));
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
}

#[test]
fn wrong_oci_credentials_fail_the_run_and_write_nothing() {
    let registry = mirror();
    let (run, written, _) = lock(&registry, "not-the-secret");
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(written, None, "no lock file is written");
    assert!(run.stderr.contains("401"), "{}", run.stderr);
    assert!(run.stderr.contains("OCI tag list"), "{}", run.stderr);
    assert!(!run.stderr.contains("discovery"), "{}", run.stderr);
    for text in [&run.stdout, &run.stderr] {
        assert!(
            !text.contains("not-the-secret") && !text.contains(SECRET),
            "{text}"
        );
    }
}
