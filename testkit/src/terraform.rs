//! Running the real `terraform` (on the PATH, or `$TERRAFORM`) the way the
//! goldens were made: against the testkit's CA, with no checkpoint, no
//! proxy, none of the caller's `TF_*` settings unless given, under umask
//! `022`. The golden generators use it; a test may use it to run
//! `terraform init -lockfile=readonly` after `tfdisco install` where
//! [`terraform_available`] says it can. [`TF_SETTINGS`] is also the list
//! the benchmarks clear.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::pki;

/// The variable naming the `terraform` program to run instead of the one
/// on the PATH.
pub const TERRAFORM_VAR: &str = "TERRAFORM";

/// The Terraform version the goldens were made with.
pub const TERRAFORM_VERSION: &str = "1.11.4";

/// The umask every run has (the goldens' folder modes are `0755`).
pub const UMASK: u32 = 0o022;

/// The arguments every `init` gets before the caller's.
pub const INIT_ARGS: [&str; 4] = ["init", "-backend=false", "-input=false", "-no-color"];

/// The caller's `TF_*` settings that change what Terraform, OpenTofu or
/// tfdisco do: a run never inherits them (it may give them).
pub const TF_SETTINGS: [&str; 12] = [
    "TF_CLI_CONFIG_FILE",
    "TF_PLUGIN_CACHE_DIR",
    "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE",
    "TF_DATA_DIR",
    "TF_LOG",
    "TF_LOG_PATH",
    "TF_CLI_ARGS",
    "TF_CLI_ARGS_init",
    "TF_CLI_ARGS_providers",
    "TF_WORKSPACE",
    "TF_REGISTRY_DISCOVERY_RETRY",
    "TF_REGISTRY_CLIENT_TIMEOUT",
];

/// The program: `$TERRAFORM`, else `terraform`.
pub fn terraform_program() -> OsString {
    std::env::var_os(TERRAFORM_VAR).unwrap_or_else(|| "terraform".into())
}

/// Whether `terraform version` runs and succeeds.
pub fn terraform_available() -> bool {
    Command::new(terraform_program())
        .arg("version")
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("CHECKPOINT_DISABLE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The version `terraform version` reports (`1.11.4`); `None` when it
/// does not run.
pub fn terraform_version() -> Option<String> {
    let output = Command::new(terraform_program())
        .arg("version")
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("CHECKPOINT_DISABLE", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let first = text.lines().next()?;
    Some(first.strip_prefix("Terraform v")?.trim().to_owned())
}

/// Runs `terraform init -backend=false -input=false -no-color ARGS` in
/// `dir` ([`run_terraform`]). Returns the exit code and what it printed.
pub fn run_terraform_init<K: AsRef<OsStr>, V: AsRef<OsStr>>(
    dir: &Path,
    env: &[(K, V)],
    args: &[&str],
) -> (i32, String) {
    let mut all: Vec<&str> = INIT_ARGS.to_vec();
    all.extend_from_slice(args);
    run_terraform(dir, env, &all)
}

/// Gives `command` the environment every run starts from: none of
/// [`TF_SETTINGS`], `TF_CLI_CONFIG_FILE=/dev/null`, `SSL_CERT_FILE` naming
/// the testkit's CA, `CHECKPOINT_DISABLE=1`, `TF_IN_AUTOMATION=1`,
/// `NO_PROXY=*` and no `HTTPS_PROXY`.
pub fn terraform_environment(command: &mut Command) {
    for name in TF_SETTINGS {
        command.env_remove(name);
    }
    command
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("SSL_CERT_FILE", pki().ca_file())
        .env("CHECKPOINT_DISABLE", "1")
        .env("TF_IN_AUTOMATION", "1")
        .env("NO_PROXY", "*")
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy");
}

/// Runs `terraform ARGS` in `dir` under umask `022`, with
/// `SSL_CERT_FILE` naming the testkit's CA, `CHECKPOINT_DISABLE=1`,
/// `TF_IN_AUTOMATION=1`, `NO_PROXY=*`, `TF_CLI_CONFIG_FILE=/dev/null` and
/// none of the caller's other `TF_*` settings that change a run
/// ([`terraform_environment`]), then the variables of `env` (`TF_CLI_CONFIG_FILE`, `TF_PLUGIN_CACHE_DIR`,
/// `HOME`, …). Returns the exit code (-1 when killed by a signal) and what
/// it printed, standard output then standard error, without colours.
/// Panics when the program cannot be started.
pub fn run_terraform<K: AsRef<OsStr>, V: AsRef<OsStr>>(
    dir: &Path,
    env: &[(K, V)],
    args: &[&str],
) -> (i32, String) {
    run(&terraform_program(), dir, env, args)
}

/// [`run_terraform`] with `program`.
fn run<K: AsRef<OsStr>, V: AsRef<OsStr>>(
    program: &OsStr,
    dir: &Path,
    env: &[(K, V)],
    args: &[&str],
) -> (i32, String) {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("umask {UMASK:03o} && exec \"$0\" \"$@\""))
        .arg(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null());
    terraform_environment(&mut command);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", program.to_string_lossy()));
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.code().unwrap_or(-1), strip_colours(&text))
}

/// The text without ANSI colour sequences (`ESC [ … m`).
pub fn strip_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_stripped() {
        assert_eq!(strip_colours("\u{1b}[1mbold\u{1b}[0m text"), "bold text");
    }

    #[test]
    fn runs_under_its_umask_with_its_settings() {
        let scratch = tempfile::tempdir().expect("temp dir");
        let fake = scratch.path().join("fake-terraform");
        std::fs::write(
            &fake,
            "#!/bin/sh\numask\necho \"$@\"\necho \"$TF_CLI_CONFIG_FILE|$SSL_CERT_FILE|$HOME|${TF_DATA_DIR-unset}\"\necho oops >&2\nexit 3\n",
        )
        .expect("write");
        // The script is read by `sh`, not executed: a file just written may
        // still be open in a child another test forked ("text file busy").
        let script = fake.to_string_lossy().into_owned();
        let (code, output) = run(
            OsStr::new("sh"),
            scratch.path(),
            &[("HOME", "/nowhere")],
            &[script.as_str(), "init", "-x"],
        );
        assert_eq!(code, 3);
        let ca = pki().ca_file().display().to_string();
        assert_eq!(
            output,
            format!("0022\ninit -x\n/dev/null|{ca}|/nowhere|unset\noops\n")
        );
    }
}
