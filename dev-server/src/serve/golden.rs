//! `tfdisco-dev serve --golden-install CASE --golden-scratch DIR` (hidden): a
//! case of the install goldens set up on the server, for the Python and
//! Node packages' tests, which run their own `install` against it and let
//! the testkit judge the result, exactly as the conformance suite does
//! (`tfdisco_testkit::install_goldens`: `Case::setup`, `Setup::observe`,
//! `Expected::check`).
//!
//! The case is described on stdout, before `press Ctrl-C to stop`, as one
//! `golden-install {json}` line: `case`, `dir` (the working directory),
//! `cache` (or null), `host` (the providers'), `server_host` (the
//! server's, `localhost:PORT`), `env` (the variables of the run: the CLI
//! configuration, the home folder, the plugin cache), `upgrade`, `readonly`
//! (the case's `init` arguments), `exit` (the exit code tfdisco must give),
//! `terraform_exit`, `lock_before` and `lock` (the lock file tfdisco must
//! leave, or null). Each `check EXIT` line on stdin is answered, once the
//! run's requests are in, with a `golden-check {json}` line: `{"ok": true}`
//! or `{"ok": false, "problems": "…"}`, every difference between what the
//! case expects and what the run left (exit code, tree, lock file,
//! downloads).
//!
//! `--golden-module CASE` does the same for a case of the module goldens
//! (`tfdisco_testkit::module_goldens`), described as one `golden-module
//! {json}` line: `case`, `dir`, `host` (the registry's), `server_host`,
//! `env` (the CLI configuration, the home folder, `GIT_CONFIG_NOSYSTEM`;
//! not `SSL_CERT_FILE`: the client is given the server's CA),
//! `command` (`get` or `install`), `upgrade`, `exit` and
//! `terraform_exit`; a check judges the exit code, `modules.json`, the
//! tree of `.terraform/modules` and the downloads.

use std::io::BufRead as _;
use std::path::Path;
use std::sync::mpsc::{Receiver, channel};

use serde_json::json;
use tfdisco_testkit::TestServer;
use tfdisco_testkit::install_goldens::{CASES, Case, Expected, Setup, process_umask};
use tfdisco_testkit::module_goldens as modules;

use crate::exit;
use crate::failure::Failure;

/// A case set up on the server, and the checks asked on stdin.
pub(super) struct Golden {
    kind: Kind,
    checks: Receiver<String>,
}

/// Which goldens the case is of.
enum Kind {
    Install {
        case: &'static Case,
        setup: Setup,
        expected: Expected,
    },
    Module {
        case: &'static modules::Case,
        setup: modules::Setup,
        expected: modules::Expected,
    },
}

fn no_case(option: &str, name: &str, names: Vec<&str>) -> Failure {
    Failure::new(
        exit::USAGE,
        "invalid_option",
        format!("{option}: no case {name:?} (cases: {})", names.join(", ")),
    )
}

fn make_scratch(scratch: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(scratch).map_err(|e| {
        Failure::new(
            exit::USAGE,
            "invalid_option",
            format!("--golden-scratch {}: {e}", scratch.display()),
        )
    })
}

/// The lines of stdin, read on a thread of their own.
fn read_checks() -> Receiver<String> {
    let (send, checks) = channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    checks
}

impl Golden {
    /// Sets case `name` up on `server` in `scratch` (made when missing),
    /// and starts reading `check EXIT` lines from stdin.
    pub(super) fn set_up(
        server: &TestServer,
        name: &str,
        scratch: &Path,
    ) -> Result<Golden, Failure> {
        let Some(case) = CASES.iter().find(|c| c.name == name) else {
            let names = CASES.iter().map(|c| c.name).collect();
            return Err(no_case("--golden-install", name, names));
        };
        make_scratch(scratch)?;
        let setup = case.setup(server, scratch);
        let expected = case
            .expected_for_tfdisco(&setup.host)
            .under_umask(process_umask());
        Ok(Golden {
            kind: Kind::Install {
                case,
                setup,
                expected,
            },
            checks: read_checks(),
        })
    }

    /// Sets case `name` of the module goldens up on `server` in `scratch`
    /// (made when missing), and starts reading `check EXIT` lines from
    /// stdin.
    pub(super) fn set_up_module(
        server: &TestServer,
        name: &str,
        scratch: &Path,
    ) -> Result<Golden, Failure> {
        let Some(case) = modules::CASES.iter().find(|c| c.name == name) else {
            let names = modules::CASES.iter().map(|c| c.name).collect();
            return Err(no_case("--golden-module", name, names));
        };
        make_scratch(scratch)?;
        let setup = case.setup(server, scratch);
        let expected = case.expected_for_tfdisco(&setup);
        Ok(Golden {
            kind: Kind::Module {
                case,
                setup,
                expected,
            },
            checks: read_checks(),
        })
    }

    /// The case as its `golden-install {json}` or `golden-module {json}`
    /// line.
    pub(super) fn describe(&self) -> String {
        let path = |p: &Path| p.to_string_lossy().into_owned();
        let env = |vars: Vec<(&'static str, std::ffi::OsString)>| {
            vars.into_iter()
                .filter(|(name, _)| *name != "SSL_CERT_FILE")
                .map(|(name, value)| (name.to_owned(), value.to_string_lossy().into()))
                .collect::<serde_json::Map<String, serde_json::Value>>()
        };
        match &self.kind {
            Kind::Install {
                case,
                setup,
                expected,
            } => format!(
                "golden-install {}",
                json!({
                    "case": case.name,
                    "dir": path(&setup.dir),
                    "cache": setup.cache.as_deref().map(path),
                    "host": setup.host,
                    "server_host": setup.server_host,
                    "env": env(setup.env()),
                    "upgrade": case.args.contains(&"-upgrade"),
                    "readonly": case.args.contains(&"-lockfile=readonly"),
                    "exit": expected.exit,
                    "terraform_exit": case.exit,
                    "lock_before": case.input_lock(&setup.host),
                    "lock": expected.lock,
                })
            ),
            Kind::Module {
                case,
                setup,
                expected,
            } => format!(
                "golden-module {}",
                json!({
                    "case": case.name,
                    "dir": path(&setup.dir),
                    "host": setup.host,
                    "server_host": setup.server_host,
                    "env": env(setup.env()),
                    "command": match case.command {
                        modules::Command::Get => "get",
                        modules::Command::Init => "install",
                    },
                    "upgrade": case.args.contains(&"-update") || case.args.contains(&"-upgrade"),
                    "exit": expected.exit,
                    "terraform_exit": case.exit,
                })
            ),
        }
    }

    /// The answers to the `check EXIT` lines read since the last call
    /// (a line that is not one is answered with its problem), each
    /// judged on every request `server` has seen.
    pub(super) fn checks(&self, server: &TestServer) -> Vec<String> {
        let mut answers = Vec::new();
        while let Ok(line) = self.checks.try_recv() {
            let exit = line
                .strip_prefix("check ")
                .and_then(|code| code.trim().parse::<i32>().ok());
            let result = match exit {
                Some(exit) => match &self.kind {
                    Kind::Install {
                        setup, expected, ..
                    } => expected.check(&setup.observe(exit, &server.requests())),
                    Kind::Module {
                        setup, expected, ..
                    } => expected.check(&setup.observe(exit, &server.requests())),
                },
                None => Err(format!("not a check line: {line:?} (check EXIT)")),
            };
            answers.push(
                match result {
                    Ok(()) => json!({"ok": true}),
                    Err(problems) => json!({"ok": false, "problems": problems}),
                }
                .to_string(),
            );
        }
        answers
    }
}
