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

use std::io::BufRead as _;
use std::path::Path;
use std::sync::mpsc::{Receiver, channel};

use serde_json::json;
use tfdisco_testkit::TestServer;
use tfdisco_testkit::install_goldens::{CASES, Case, Expected, Setup, process_umask};

use crate::exit;
use crate::failure::Failure;

/// A case set up on the server, and the checks asked on stdin.
pub(super) struct Golden {
    case: &'static Case,
    setup: Setup,
    expected: Expected,
    checks: Receiver<String>,
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
            let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
            return Err(Failure::new(
                exit::USAGE,
                "invalid_option",
                format!(
                    "--golden-install: no case {name:?} (cases: {})",
                    names.join(", ")
                ),
            ));
        };
        std::fs::create_dir_all(scratch).map_err(|e| {
            Failure::new(
                exit::USAGE,
                "invalid_option",
                format!("--golden-scratch {}: {e}", scratch.display()),
            )
        })?;
        let setup = case.setup(server, scratch);
        let expected = case
            .expected_for_tfdisco(&setup.host)
            .under_umask(process_umask());
        let (send, checks) = channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Golden {
            case,
            setup,
            expected,
            checks,
        })
    }

    /// The case as the `golden-install` line's JSON.
    pub(super) fn describe(&self) -> String {
        let env: serde_json::Map<String, serde_json::Value> = self
            .setup
            .env()
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value.to_string_lossy().into()))
            .collect();
        let path = |p: &Path| p.to_string_lossy().into_owned();
        json!({
            "case": self.case.name,
            "dir": path(&self.setup.dir),
            "cache": self.setup.cache.as_deref().map(path),
            "host": self.setup.host,
            "server_host": self.setup.server_host,
            "env": env,
            "upgrade": self.case.args.contains(&"-upgrade"),
            "readonly": self.case.args.contains(&"-lockfile=readonly"),
            "exit": self.expected.exit,
            "terraform_exit": self.case.exit,
            "lock_before": self.case.input_lock(&self.setup.host),
            "lock": self.expected.lock,
        })
        .to_string()
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
                Some(exit) => self
                    .expected
                    .check(&self.setup.observe(exit, &server.requests())),
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
