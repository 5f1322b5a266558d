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

const TRANSPORTS: [&str; 3] = ["tokio", "async-std", "curl"];

/// One case on one transport: what differs, if anything.
fn run(case: &Case, transport: &str) -> Result<(), String> {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("a folder");
    let setup = case.setup(&server, scratch.path());
    server.take_requests();
    let env = setup.env();
    let vars: Vec<(&str, String)> = env
        .iter()
        .map(|(k, v)| (*k, v.to_string_lossy().into_owned()))
        .collect();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
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
    let ran = tfdisco_testkit::program::run(
        std::path::Path::new(env!("CARGO_BIN_EXE_tfdisco")),
        &setup.home,
        &vars,
        &args,
    );
    let exit = ran.code.unwrap_or(-1);
    let observed = setup.observe(exit, &server.take_requests());
    case.expected_for_tfdisco(&setup)
        .check(&observed)
        .map_err(|e| format!("{e}\n--- stderr\n{}", ran.stderr))
}

#[test]
fn every_case_on_every_transport() {
    let mut failures = Vec::new();
    for case in CASES {
        for transport in TRANSPORTS {
            if let Err(e) = run(case, transport) {
                failures.push(format!("{} ({transport}): {e}", case.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs differ:\n\n{}",
        failures.len(),
        CASES.len() * TRANSPORTS.len(),
        failures.join("\n\n")
    );
}
