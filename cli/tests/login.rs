//! `tfdisco login` where it does more than Terraform, on the set-up of the
//! login goldens (`tfdisco_testkit::login_goldens`): a callback that never
//! comes ends at `--wait` (Terraform waits for ever) or at an interrupt
//! (Terraform ignores it), writing nothing (docs/behaviour.md, LOGINRUN-4,
//! D45); and the token stored is the one registry requests send
//! (LOGINRUN-7).
#![cfg(unix)]

mod common;

use std::ffi::OsString;

use tfdisco_testkit::login_goldens::{BROWSER_SCRIPT, case, run::Ran, run::run};

fn tfdisco() -> OsString {
    OsString::from(env!("CARGO_BIN_EXE_tfdisco"))
}

/// Runs the golden case `name` with `program` and the arguments `line`
/// gives for the server's `localhost:PORT`.
fn ran(name: &str, program: &OsString, line: &dyn Fn(&str) -> Vec<String>) -> Ran {
    let case = case(name).expect("a golden case");
    let scratch = tempfile::tempdir().expect("a folder");
    run(case, scratch.path(), program, BROWSER_SCRIPT, line).expect("ran")
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|a| (*a).to_owned()).collect()
}

#[test]
fn a_callback_that_never_comes_ends_at_the_wait_and_writes_nothing() {
    // The server sends the browser back with another state: the listener
    // answers 400 and goes on waiting, until --wait.
    let ran = ran("authz-wrong-state", &tfdisco(), &|_| {
        args(&[
            "login",
            "login.example.com",
            "--dialect",
            "terraform",
            "--wait",
            "1",
        ])
    });
    let stderr = ran.text("stderr");
    assert_eq!(ran.exit, Some(1), "{stderr}");
    assert!(
        stderr.contains("the login server did not send the browser back within 1s"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "a request to the login server was refused: incorrect \"state\" value in the callback"
        ),
        "{stderr}"
    );
    assert!(!ran.files.contains_key("credentials.after.json"));
    assert_eq!(ran.text("token.txt"), "", "no token request");
}

#[test]
fn an_interrupt_ends_the_wait() {
    // SIGTERM (Ctrl-C's other half) while the login waits: exit 130. The
    // shell's background job keeps the answers' stdin through fd 3 (its
    // own would be /dev/null) and SIGINT would be ignored there.
    let script = "exec 3<&0; \"$0\" \"$@\" <&3 & pid=$!; sleep 3; kill -TERM $pid; wait $pid";
    let tfdisco = tfdisco().to_string_lossy().into_owned();
    let ran = ran("authz-wrong-state", &OsString::from("/bin/sh"), &|_| {
        args(&[
            "-c",
            script,
            &tfdisco,
            "login",
            "login.example.com",
            "--dialect",
            "terraform",
        ])
    });
    let stderr = ran.text("stderr");
    assert_eq!(ran.exit, Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted while waiting for the login"),
        "{stderr}"
    );
    assert!(!ran.files.contains_key("credentials.after.json"));
}

#[test]
fn after_a_login_registry_requests_send_the_token() {
    // The case where Terraform's init sent the stored token: tfdisco's
    // registry request sends the same (and the file tfdisco login writes
    // is Terraform's, byte for byte: login_goldens.rs).
    let golden = case("init-sends-stored-token").expect("case").golden();
    let ran = ran("init-sends-stored-token", &tfdisco(), &|_| {
        args(&[
            "provider",
            "versions",
            "login.example.com/acme/thing",
            "--dialect",
            "terraform",
        ])
    });
    assert_eq!(ran.exit, Some(0), "{}", ran.text("stderr"));
    assert!(
        golden
            .services
            .contains("GET /v1/providers/acme/thing/versions Authorization: Bearer old-token"),
        "{}",
        golden.services
    );
    assert_eq!(ran.text("services.txt"), golden.services);
}

#[test]
fn opentofu_has_no_default_host() {
    let home = tempfile::tempdir().expect("a home");
    for command in ["login", "logout"] {
        let run = common::tfdisco(home.path(), &[], &[command, "--dialect", "opentofu"]);
        assert_eq!(run.code, Some(2), "{command}: {}", run.stderr);
        assert!(
            run.stderr.contains("OpenTofu has no default host"),
            "{command}: {}",
            run.stderr
        );
    }
    assert!(
        std::fs::read_dir(home.path())
            .expect("home")
            .next()
            .is_none(),
        "nothing written"
    );
}
