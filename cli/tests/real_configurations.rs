//! `tfdisco lock` on every root of the corpus of real configurations
//! (`tfdisco_testkit::real_configurations`), against the registry that
//! answers for any provider, with `registry.terraform.io` sent to it by a
//! CLI configuration's `host` block: the lock file Terraform 1.11.4 wrote,
//! byte for byte, or a refusal where Terraform refused. The roots listed
//! in `EXPECTED_FAILURES` must differ, so that the list stays true.

mod common;

use std::fs;
use std::path::Path;

use common::{ca_file, tfdisco};
use tfdisco_core::Dialect;
use tfdisco_testkit::real_configurations::{self, Expected, LOCK_FILE, PLATFORMS, Root};
use tfdisco_testkit::{TestServer, any_registry};

/// `tfdisco lock --dialect D --platform … --ca-file CA --chdir DIR` with
/// `TF_CLI_CONFIG_FILE=rc`.
fn lock(dir: &Path, dialect: Dialect, rc: &Path) -> common::Run {
    let home = tempfile::tempdir().expect("temp dir");
    let ca = ca_file();
    let chdir = dir.to_string_lossy().into_owned();
    let dialect = dialect.to_string();
    let mut args = vec![
        "lock",
        "--dialect",
        dialect.as_str(),
        "--ca-file",
        ca.as_str(),
        "--chdir",
        chdir.as_str(),
    ];
    for platform in PLATFORMS {
        args.extend(["--platform", platform]);
    }
    let rc = rc.to_string_lossy().into_owned();
    tfdisco(home.path(), &[("TF_CLI_CONFIG_FILE", rc.as_str())], &args)
}

/// What went differently from the golden, if anything.
fn verdict(root: &Root, rc: &Path) -> Result<(), String> {
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = root.prepare(scratch.path());
    let run = lock(&dir, root.dialect, rc);
    let after = fs::read_to_string(dir.join(LOCK_FILE)).ok();
    match root.expected() {
        Expected::Written(expected) => {
            if run.code != Some(0) {
                return Err(format!(
                    "Terraform wrote a lock file, tfdisco exited {:?}: {}",
                    run.code,
                    run.stderr.trim()
                ));
            }
            match after {
                Some(after) if after == expected => Ok(()),
                Some(after) => Err(format!(
                    "another lock file:\n--- Terraform\n{expected}\n--- tfdisco\n{after}"
                )),
                None => Err("tfdisco wrote no lock file".into()),
            }
        }
        refused @ Expected::Refused { .. } => {
            let Expected::Refused { command, error } = &refused else {
                unreachable!("matched above");
            };
            if run.code == Some(0) || after.is_some() {
                Err(format!(
                    "{command} refused ({error}), tfdisco exited {:?} and wrote {after:?}",
                    run.code
                ))
            } else if refused.is_remote_modules() && !run.stderr.contains("Module not installed") {
                // Terraform could not install a module: tfdisco must refuse
                // for the same reason (TFCFG-7), not another.
                Err(format!(
                    "{command} refused ({error}), tfdisco for another reason: {}",
                    run.stderr.trim()
                ))
            } else {
                Ok(())
            }
        }
    }
}

/// Every root, against its golden; the expected failures differ.
#[test]
fn every_root_locks_as_terraform_locks_it() {
    let roots = real_configurations::roots().unwrap_or_else(|e| panic!("{e}"));
    let server = TestServer::start();
    any_registry::install(&server);
    let config = tempfile::tempdir().expect("temp dir");
    let rc = real_configurations::write_cli_config(&server, config.path());
    let mut problems = Vec::new();
    let (mut same, mut refused, mut remote, mut expected) = (0, 0, 0, 0);
    for root in &roots {
        let id = root.id();
        let outcome = verdict(root, &rc);
        match (real_configurations::expected_failure(&id), outcome) {
            (None, Ok(())) => match root.expected() {
                Expected::Written(_) => same += 1,
                e if e.is_remote_modules() => remote += 1,
                Expected::Refused { .. } => refused += 1,
            },
            (None, Err(why)) => problems.push(format!("{id}: {why}")),
            (Some(failure), Ok(())) => problems.push(format!(
                "{id}: agrees with its golden now: drop it from EXPECTED_FAILURES ({})",
                failure.reason
            )),
            (Some(_), Err(_)) => expected += 1,
        }
    }
    // Every entry of the list names roots that were run.
    for failure in real_configurations::unmatched_expected_failures(&roots) {
        problems.push(format!(
            "EXPECTED_FAILURES: {} matches no root",
            failure.root
        ));
    }
    eprintln!(
        "{} roots: {same} lock files byte for byte, {refused} refused by both, {remote} with \
         remote modules refused by both, {expected} expected failures{}",
        roots.len(),
        if real_configurations::corpus_dir().is_none() {
            " (no corpus folder: the edges only)"
        } else {
            ""
        }
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
