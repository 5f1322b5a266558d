//! `tfdisco login` and `tfdisco logout` against the login goldens of the
//! real `terraform login` / `logout` (Terraform 1.11.4;
//! `tfdisco_testkit::login_goldens`): each case set up as it was for
//! Terraform (the same loopback OAuth server, home folder, CLI
//! configuration, browser and helper scripts, answers), then the same
//! credentials file byte for byte and mode, the same exit code, the same
//! authorization URL and the same fields sent to `/authz` and `/token`, the
//! same `tfe.v2` requests and helper calls, or the deliberate difference a
//! case names (docs/behaviour.md, LOGINRUN-1 to LOGINRUN-9). Every case
//! runs on tokio; the cases that reach the token endpoint or `tfe.v2` on
//! the other transports too. The token, a password and a pasted token
//! never appear in what tfdisco prints.
#![cfg(unix)]

mod common;

use tfdisco_testkit::login_goldens::{BROWSER_SCRIPT, CASES, Case, Golden, run::run};

/// The golden files both CLIs must leave alike.
const COMPARED: [&str; 8] = [
    "exit-code",
    "credentials.after.json",
    "credentials.after.mode",
    "authz.txt",
    "token.txt",
    "services.txt",
    "browser.txt",
    "helper.txt",
];

/// Secrets of the cases, which tfdisco must never print.
const SECRETS: [&str; 4] = [
    "login-token-1",
    "tfe-token-1",
    "s3cret-pass",
    "not-the-token",
];

/// What both CLIs say for a case (compared without case): the failure's
/// gist in Terraform's words.
const SAID: [(&str, &str); 7] = [
    ("tfe-fallback-401", "token is invalid: unauthorized"),
    (
        "login-credentials-in-cli-config",
        "credentials for login.example.com are manually configured",
    ),
    ("ports-one-port", "between 10000 and 10000"),
    ("no-login-service", "does not support terraform tokens api"),
    ("authz-userinfo", "does not support terraform tokens api"),
    ("login-answer-no", "login cancelled"),
    ("token-invalid-grant", "\"invalid_grant\""),
];

/// The cases run on every transport (the others on tokio only).
const ON_EVERY_TRANSPORT: [&str; 5] = [
    "first-login",
    "token-invalid-grant",
    "password-grant",
    "tfe-fallback",
    "login-by-discovery",
];

/// Golden files by name: their bytes, `None` for a file not left.
type Files = Vec<(&'static str, Option<Vec<u8>>)>;

/// What tfdisco leaves where it differs from Terraform on purpose; `None`
/// where it leaves what Terraform left.
fn deliberately(case: &Case, golden: &Golden) -> Option<Files> {
    let first_login = || tfdisco_testkit::login_goldens::case("first-login").map(Case::golden);
    let text = |s: &str| Some(s.as_bytes().to_vec());
    Some(match case.name {
        // D44: the configuration folder is made and the token kept.
        "first-login-no-config-dir" => {
            let first = first_login()?;
            vec![
                ("exit-code", text("0\n")),
                ("credentials.after.json", first.after),
                ("credentials.after.mode", text("0600\n")),
            ]
        }
        // D40: `error=` with our state ends the login (Terraform waits
        // until it is killed). D45: a callback that never comes ends the
        // wait (`--wait 2` here), exit 1.
        "authz-access-denied" | "authz-wrong-state" | "authz-no-code" => {
            vec![("exit-code", text("1\n"))]
        }
        // D39: an authorization endpoint that is not https is refused
        // before the browser is opened.
        "authz-plain-http" => vec![
            ("exit-code", text("1\n")),
            ("credentials.after.json", golden.before.clone()),
            ("credentials.after.mode", None),
            ("authz.txt", text("")),
            ("token.txt", text("")),
            ("browser.txt", text("")),
        ],
        _ => return None,
    })
}

/// tfdisco's arguments for `case` on `transport`, given the server's
/// `localhost:PORT`.
fn command_line(case: &Case, transport: &str, authority: &str) -> Vec<String> {
    let mut line: Vec<String> = case
        .command_line(authority)
        .into_iter()
        .map(|arg| match arg.as_str() {
            "-input=false" => "--input=false".to_owned(),
            _ => arg,
        })
        .collect();
    line.extend(["--dialect", "terraform"].map(str::to_owned));
    // Logout makes no request: no transport to choose.
    if case.command == "login" {
        line.extend(["--transport", transport].map(str::to_owned));
    }
    if matches!(case.name, "authz-wrong-state" | "authz-no-code") {
        line.extend(["--wait", "2"].map(str::to_owned));
    }
    line
}

/// One case on one transport: what differs, if anything.
fn check(case: &Case, transport: &str) -> Result<(), String> {
    let golden = case.golden();
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let program = std::ffi::OsString::from(env!("CARGO_BIN_EXE_tfdisco"));
    let ran = run(
        case,
        scratch.path(),
        &program,
        BROWSER_SCRIPT,
        &|authority| command_line(case, transport, authority),
    )?;
    let printed = format!("{}{}", ran.text("stdout"), ran.text("stderr"));
    let mut differences = ran.problems.clone();
    for secret in SECRETS {
        if printed.contains(secret) {
            differences.push(format!("printed the secret {secret:?}"));
        }
    }
    for (name, gist) in SAID.iter().filter(|(name, _)| *name == case.name) {
        for (who, text) in [("terraform", &golden.stderr), ("tfdisco", &printed)] {
            if !text.to_lowercase().contains(gist) {
                differences.push(format!("{name}: {who} does not say {gist:?}"));
            }
        }
    }
    let committed = |name: &str| std::fs::read(case.dir().join(name)).ok();
    let mut expected: Files = COMPARED
        .iter()
        .map(|&name| (name, committed(name)))
        .collect();
    for (name, value) in deliberately(case, &golden).unwrap_or_default() {
        if let Some(slot) = expected.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = value;
        }
    }
    for (name, want) in expected {
        let got = ran.files.get(name).cloned();
        if got != want {
            differences.push(format!(
                "{name}: tfdisco left {:?}, expected {:?}",
                got.map(|b| String::from_utf8_lossy(&b).into_owned()),
                want.map(|b| String::from_utf8_lossy(&b).into_owned())
            ));
        }
    }
    if differences.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n-- tfdisco printed:\n{printed}",
            differences.join("\n")
        ))
    }
}

#[test]
fn every_case_as_terraform() {
    let cases: Vec<&Case> = CASES.iter().filter(|c| c.command != "init").collect();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    for case in &cases {
        for transport in common::TRANSPORTS {
            if transport != "tokio" && !ON_EVERY_TRANSPORT.contains(&case.name) {
                continue;
            }
            runs += 1;
            if let Err(e) = check(case, transport) {
                failures.push(format!("{} ({transport}): {e}", case.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
