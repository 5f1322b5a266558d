//! `tfdisco lock` on configurations whose providers are required inside
//! modules, against the goldens of the real `terraform get` followed by
//! `terraform providers lock` (Terraform 1.11.4;
//! `tfdisco_testkit::module_lock_goldens`), on every transport: on a fresh
//! copy (no `.terraform`), `tfdisco lock` installs the remote modules first
//! (docs/behaviour.md, MOD-11) and must leave Terraform's lock file byte
//! for byte, and the `modules.json` Terraform's `get` wrote. A case with a
//! known difference (`Case::known_difference`, a bug or a missing feature)
//! must still differ, and says why; once tfdisco leaves Terraform's files
//! there too, the test fails so that the mark is taken off.
#![cfg(unix)]

mod common;

use tfdisco_testkit::TestServer;
use tfdisco_testkit::module_lock_goldens::{CASES, Case};

/// One case on one transport: what differs, if anything.
fn run(case: &Case, transport: &str) -> Result<(), String> {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("a folder");
    let setup = case.setup(&server, scratch.path());
    assert!(!setup.dir.join(".terraform").exists(), "a fresh copy");
    let dir = setup.dir.to_string_lossy().into_owned();
    let mut args = vec![
        "lock",
        "--dialect",
        "terraform",
        "--transport",
        transport,
        "--chdir",
        &dir,
    ];
    args.extend(case.tfdisco_platform_args());
    let ran = common::tfdisco_env(&setup.home, &setup.env(), &args);
    let mut problems = Vec::new();
    if ran.code != Some(0) {
        problems.push(format!("exit code {:?} where 0 was expected", ran.code));
    }
    let expected_lock = case.terraform_lock(&setup);
    let lock = setup.lock_file();
    if lock.as_deref() != Some(expected_lock.as_str()) {
        problems.push(format!(
            "the lock file differs from Terraform's:\n--- expected\n{expected_lock}--- observed\n{}",
            lock.as_deref().unwrap_or("(none)\n")
        ));
    }
    let expected_json = case.terraform_modules_json(&setup);
    let json = setup.modules_json();
    if json.as_deref() != Some(expected_json.as_str()) {
        problems.push(format!(
            "modules.json differs from Terraform get's:\n--- expected\n{expected_json}\n--- observed\n{}",
            json.as_deref().unwrap_or("(none)")
        ));
    }
    match (case.known_difference, problems.is_empty()) {
        (None, true) => Ok(()),
        (Some(why), false) => {
            eprintln!(
                "{} ({transport}): a known difference ({why}):\n{}\n--- stderr\n{}",
                case.name,
                problems.join("\n"),
                ran.stderr
            );
            Ok(())
        }
        (Some(why), true) => Err(format!(
            "marked as a known difference ({why}), but tfdisco now leaves Terraform's lock file \
             and modules.json: take the mark off the case"
        )),
        (None, false) => Err(format!(
            "{}\n--- stderr\n{}",
            problems.join("\n"),
            ran.stderr
        )),
    }
}

#[test]
fn lock_on_a_fresh_copy_is_terraforms_get_then_lock() {
    common::each_case_on_each_transport(CASES, |case| case.name, run);
}
