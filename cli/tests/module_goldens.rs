//! `tfdisco get` (and `tfdisco install` where Terraform ran `init`)
//! against the module goldens of the real `terraform get` (Terraform
//! 1.11.4; `tfdisco_testkit::module_goldens`), on every transport: the
//! same `modules.json` byte for byte, the same tree (paths, bytes, modes,
//! each `.git` by its HEAD), the same archives downloaded, or the
//! deliberate difference a case names (docs/behaviour.md, MOD-10).
#![cfg(unix)]

mod common;

use tfdisco_testkit::TestServer;
use tfdisco_testkit::module_goldens::{CASES, Case, Command};

/// One case on one transport: what differs, if anything.
fn run(case: &Case, transport: &str) -> Result<(), String> {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("a folder");
    let setup = case.setup(&server, scratch.path());
    server.take_requests();
    let dir = setup.dir.to_string_lossy().into_owned();
    let command = match case.command {
        Command::Get => "get",
        Command::Init => "install",
    };
    let mut args = vec![
        command,
        "--chdir",
        &dir,
        "--dialect",
        "terraform",
        "--transport",
        transport,
    ];
    if case.args.contains(&"-update") || case.args.contains(&"-upgrade") {
        args.push("--upgrade");
    }
    let ran = common::tfdisco_env(&setup.home, &setup.env(), &args);
    let exit = ran.code.unwrap_or(-1);
    let observed = setup.observe(exit, &server.take_requests());
    case.expected_for_tfdisco(&setup)
        .check(&observed)
        .map_err(|e| format!("{e}\n--- stderr\n{}", ran.stderr))
}

#[test]
fn every_case_on_every_transport() {
    common::each_case_on_each_transport(CASES, |case| case.name, run);
}
