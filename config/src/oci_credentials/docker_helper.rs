//! Docker-style credential helpers, `docker-credential-NAME get`, run as
//! OpenTofu runs them through ORAS (docs/behaviour.md, OCICRED-10).

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::error::HelperProblem;
use crate::helper::{stop, wait_until};
use crate::literal::Lit;

/// The most of a helper's stdout that is read (more is an error).
const MAX_STDOUT: usize = 1 << 20;

/// What a helper run gets from the policy: where programs are looked for
/// and how long one may run.
#[derive(Clone, Debug)]
pub(crate) struct HelperEnv {
    /// `PATH`, from the environment snapshot.
    pub(crate) path: Option<OsString>,
    /// `PATHEXT` (Windows only).
    pub(crate) pathext: Option<OsString>,
    pub(crate) timeout: Duration,
}

/// A helper's answer: a username and a secret, or none.
pub(crate) type Answer = Option<(String, String)>;

/// Runs `docker-credential-NAME get` with `server_url` on stdin (no
/// newline) and reads its answer (OCICRED-10).
pub(crate) fn get(name: &str, server_url: &str, env: &HelperEnv) -> Result<Answer, HelperProblem> {
    let program = format!("docker-credential-{name}");
    if name.is_empty() || name.contains(['/', '\\']) {
        // Only a name from a Docker-style file can get here: OpenTofu would
        // run it as a path; tfdisco does not.
        return Err(HelperProblem::InvalidName);
    }
    let executable = look_path(&program, env)?;
    tracing::debug!(
        helper = name,
        server_url,
        executable = %executable.display(),
        "running a Docker-style credential helper"
    );
    let deadline = Instant::now() + env.timeout;
    let mut child = Command::new(&executable)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(HelperProblem::Start)?;
    if let Some(mut stdin) = child.stdin.take() {
        let input = server_url.as_bytes().to_vec();
        // A thread, so a helper that does not read cannot block us.
        thread::spawn(move || stdin.write_all(&input));
    }
    let Some(stdout) = child.stdout.take() else {
        stop(&mut child);
        return Err(HelperProblem::Start(io::Error::other("no stdout pipe")));
    };
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut stdout = stdout;
        let mut bytes = Vec::new();
        let result = (&mut stdout)
            .take(MAX_STDOUT as u64 + 1)
            .read_to_end(&mut bytes)
            .map(|_| bytes);
        // Drain the rest, so a helper that prints too much still exits.
        let _ = io::copy(&mut stdout, &mut io::sink());
        let _ = tx.send(result);
    });
    let output = match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            stop(&mut child);
            return Err(HelperProblem::Start(e));
        }
        Err(RecvTimeoutError::Disconnected) => Vec::new(),
        Err(RecvTimeoutError::Timeout) => {
            stop(&mut child);
            return Err(HelperProblem::TimedOut(env.timeout));
        }
    };
    let status = wait_until(&mut child, deadline)
        .ok()
        .flatten()
        .ok_or(HelperProblem::TimedOut(env.timeout))?;
    if output.len() > MAX_STDOUT {
        return Err(HelperProblem::MalformedOutput(
            "the output is larger than 1 MiB".into(),
        ));
    }
    if !status.success() {
        let message = String::from_utf8_lossy(&output);
        let message = message.trim();
        return match message {
            "credentials not found in native keychain" => Ok(None),
            "" => Err(HelperProblem::Exit(exit_text(status))),
            // An answer, or a piece of one, is no message: it may hold the
            // secret (docs/behaviour.md, CFG-13).
            message if message.starts_with(['{', '[']) => {
                Err(HelperProblem::FailedWithAnswer(exit_text(status)))
            }
            message => Err(HelperProblem::Failed(message.to_owned())),
        };
    }
    answer(&output)
}

/// The JSON a helper prints: `{"ServerURL": …, "Username": …, "Secret": …}`
/// read as Go reads it into a struct (names without case, other members
/// ignored, `null` as nothing).
fn answer(output: &[u8]) -> Result<Answer, HelperProblem> {
    let text = String::from_utf8_lossy(output);
    let malformed = HelperProblem::MalformedOutput;
    let entries = match serde_json::from_str::<Lit>(&text).map_err(|e| malformed(e.to_string()))? {
        Lit::Null => Vec::new(),
        Lit::Object(entries) => entries,
        other => {
            return Err(malformed(format!(
                "the output is {}, not an object",
                other.kind()
            )));
        }
    };
    let (mut username, mut secret) = (String::new(), String::new());
    for (key, value) in entries {
        let slot = if key.eq_ignore_ascii_case("username") {
            &mut username
        } else if key.eq_ignore_ascii_case("secret") {
            &mut secret
        } else if key.eq_ignore_ascii_case("serverurl") {
            if matches!(value, Lit::String(_) | Lit::Null) {
                continue;
            }
            return Err(malformed(format!(
                "ServerURL must be a string, not {}",
                value.kind()
            )));
        } else {
            continue;
        };
        match value {
            Lit::String(text) => *slot = text,
            Lit::Null => {}
            other => {
                return Err(malformed(format!(
                    "{} must be a string, not {}",
                    if key.eq_ignore_ascii_case("username") {
                        "Username"
                    } else {
                        "Secret"
                    },
                    other.kind()
                )));
            }
        }
    }
    if username == "<token>" {
        return Err(HelperProblem::OAuthStyle);
    }
    if username.is_empty() && secret.is_empty() {
        return Ok(None);
    }
    Ok(Some((username, secret)))
}

/// Go's `exec.LookPath` over the snapshot's `PATH`: the first directory
/// holding an executable file of that name; an empty entry is the working
/// directory, and a program found through a relative entry is refused.
fn look_path(program: &str, env: &HelperEnv) -> Result<PathBuf, HelperProblem> {
    let path = env.path.as_deref().unwrap_or_default();
    if path.is_empty() {
        return Err(HelperProblem::NotFound);
    }
    let names = candidates(program, env.pathext.as_deref());
    for dir in std::env::split_paths(path) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        for name in &names {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                if !candidate.is_absolute() {
                    return Err(HelperProblem::FoundRelative);
                }
                return Ok(candidate);
            }
        }
    }
    Err(HelperProblem::NotFound)
}

/// The file names tried: the name itself, and on Windows the name with
/// each `PATHEXT` extension.
fn candidates(program: &str, pathext: Option<&OsStr>) -> Vec<OsString> {
    if !cfg!(windows) {
        return vec![program.into()];
    }
    let exts = pathext
        .and_then(OsStr::to_str)
        .filter(|e| !e.is_empty())
        .unwrap_or(".com;.exe;.bat;.cmd");
    let mut names: Vec<OsString> = exts
        .split(';')
        .filter(|e| !e.is_empty())
        .map(|e| format!("{program}{}", e.to_ascii_lowercase()).into())
        .collect();
    names.push(program.into());
    names
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| !m.is_dir() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Go's words for an exit: `exit status N`, or `signal: N` for a program
/// a signal ended.
fn exit_text(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("signal: {signal}");
        }
    }
    status.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_go_decodes_them() {
        let ok = |t: &str| answer(t.as_bytes());
        assert_eq!(
            ok(r#"{"ServerURL":"https://x","Username":"u","Secret":"s"}"#).expect("ok"),
            Some(("u".into(), "s".into()))
        );
        assert_eq!(
            ok(r#"{"username":"u","SECRET":"s","extra":[1]}"#).expect("ok"),
            Some(("u".into(), "s".into()))
        );
        assert_eq!(ok("null").expect("ok"), None);
        assert_eq!(ok(r#"{"Username":"","Secret":""}"#).expect("ok"), None);
        assert!(matches!(
            ok(r#"{"Username":"<token>","Secret":"t"}"#),
            Err(HelperProblem::OAuthStyle)
        ));
        assert!(matches!(ok("[]"), Err(HelperProblem::MalformedOutput(_))));
        assert!(matches!(ok("nope"), Err(HelperProblem::MalformedOutput(_))));
        assert!(matches!(
            ok(r#"{"Secret":1}"#),
            Err(HelperProblem::MalformedOutput(_))
        ));
    }
}
