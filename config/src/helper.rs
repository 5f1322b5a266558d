//! Credentials helper programs (docs/behaviour.md, CRED-8, CRED-9): `get`, `store` and `forget`
//! run as child processes, with a deadline.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tfdisco_core::{Credentials, CredentialsError, CredentialsSource, Hostname};

use crate::{CredentialsStore, Error, to_store};

/// How long a helper program may take before it is killed.
pub const DEFAULT_HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a helper's stdout that is read (more is an error).
const MAX_STDOUT: usize = 1 << 20;
/// The most of a helper's stderr kept for the error message.
const MAX_STDERR: usize = 64 << 10;

/// A credentials helper program, run as
/// `<executable> [args…] <get|store|forget> <hostname>` with the hostname in
/// comparison (punycode) form.
///
/// - `get` gets no stdin and prints a JSON object: `{"token": "…"}` gives
///   token credentials; `{}`, `null` or other keys give none.
/// - `store` gets `{"token":"…"}` on stdin; its stdout is ignored.
/// - `forget` gets no stdin.
///
/// A non-zero exit is an error whose text is the program's stderr. Unlike
/// Go, which waits forever, a program that has not finished after the
/// timeout ([`DEFAULT_HELPER_TIMEOUT`] unless changed) is killed and the call
/// fails with [`Error::HelperTimeout`], so a hung helper cannot hang
/// discovery. The program inherits the environment and working directory.
///
/// ```no_run
/// use std::time::Duration;
/// use tfdisco_config::HelperProgram;
/// use tfdisco_core::Hostname;
///
/// let helper = HelperProgram::new("/usr/local/bin/terraform-credentials-pass", ["--store", "tf"])?
///     .with_timeout(Duration::from_secs(5));
/// let credentials = helper.get(&Hostname::parse("app.example.com")?)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct HelperProgram {
    executable: PathBuf,
    args: Vec<String>,
    timeout: Duration,
}

impl HelperProgram {
    /// A helper program. The path must be absolute (Go panics otherwise; this
    /// returns [`Error::HelperPathNotAbsolute`]).
    pub fn new<I, A>(executable: impl Into<PathBuf>, args: I) -> Result<HelperProgram, Error>
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        let executable = executable.into();
        if !executable.is_absolute() {
            return Err(Error::HelperPathNotAbsolute { path: executable });
        }
        Ok(HelperProgram {
            executable,
            args: args.into_iter().map(Into::into).collect(),
            timeout: DEFAULT_HELPER_TIMEOUT,
        })
    }

    /// Changes how long each run may take.
    pub fn with_timeout(mut self, timeout: Duration) -> HelperProgram {
        self.timeout = timeout;
        self
    }

    /// The program.
    pub fn executable(&self) -> &Path {
        &self.executable
    }

    /// The arguments given before the verb and hostname.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// How long each run may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `get` for `host`.
    pub fn get(&self, host: &Hostname) -> Result<Option<Credentials>, Error> {
        let stdout = self.run("get", host, None)?;
        let malformed = |detail: String| Error::HelperMalformedOutput {
            executable: self.executable.clone(),
            detail,
        };
        let object =
            serde_json::from_slice::<Option<Map<String, Value>>>(&stdout).map_err(|e| {
                // serde's message quotes a string or a number, and either may be
                // the token itself (docs/behaviour.md, CFG-13).
                match serde_json::from_slice::<Value>(&stdout) {
                    Ok(Value::String(_)) => {
                        malformed("invalid type: string, expected a map".into())
                    }
                    Ok(Value::Number(_)) => {
                        malformed("invalid type: number, expected a map".into())
                    }
                    _ => malformed(e.to_string()),
                }
            })?;
        match object.as_ref().and_then(|o| o.get("token")) {
            Some(Value::String(token)) => Credentials::token(token)
                .map(Some)
                .map_err(|e| malformed(e.to_string())),
            _ => Ok(None),
        }
    }

    /// Runs `store` for `host`, with the credentials on stdin.
    pub fn store(&self, host: &Hostname, credentials: &Credentials) -> Result<(), Error> {
        let input = to_store(credentials).to_string().into_bytes();
        self.run("store", host, Some(input)).map(drop)
    }

    /// Runs `forget` for `host`.
    pub fn forget(&self, host: &Hostname) -> Result<(), Error> {
        self.run("forget", host, None).map(drop)
    }

    /// Runs the program with `verb` and returns its stdout (empty unless the
    /// verb is `get`).
    fn run(&self, verb: &str, host: &Hostname, input: Option<Vec<u8>>) -> Result<Vec<u8>, Error> {
        let deadline = Instant::now() + self.timeout;
        let mut child = Command::new(&self.executable)
            .args(&self.args)
            .arg(verb)
            .arg(host.as_str())
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(if verb == "get" {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| Error::HelperStart {
                executable: self.executable.clone(),
                source,
            })?;
        if let (Some(input), Some(mut pipe)) = (input, child.stdin.take()) {
            // A thread, so a helper that does not read cannot block us; a
            // helper that exits without reading makes this fail, harmlessly.
            thread::spawn(move || pipe.write_all(&input));
        }
        let stdout = child.stdout.take().map(|pipe| capture(pipe, MAX_STDOUT));
        let stderr = child.stderr.take().map(|pipe| capture(pipe, MAX_STDERR));
        // The pipes close when the program exits (or something it started
        // and that keeps them open does): waiting for them first is waiting
        // for the exit without polling.
        let (Some(stdout), Some(stderr)) = (collect(stdout, deadline), collect(stderr, deadline))
        else {
            stop(&mut child);
            return Err(self.timed_out());
        };
        let status = self.wait(&mut child, deadline)?;
        if !status.success() {
            let text = String::from_utf8_lossy(&stderr.bytes);
            let text = text.trim_end();
            return Err(if text.is_empty() {
                Error::HelperNoMessage {
                    executable: self.executable.clone(),
                }
            } else {
                Error::HelperFailed {
                    executable: self.executable.clone(),
                    stderr: text.to_owned(),
                }
            });
        }
        if stdout.truncated {
            return Err(Error::HelperMalformedOutput {
                executable: self.executable.clone(),
                detail: "output is larger than 1 MiB".into(),
            });
        }
        Ok(stdout.bytes)
    }

    /// Waits for the child to exit, killing it at the deadline.
    fn wait(&self, child: &mut Child, deadline: Instant) -> Result<ExitStatus, Error> {
        match wait_until(child, deadline) {
            Ok(Some(status)) => Ok(status),
            Ok(None) => Err(self.timed_out()),
            Err(source) => Err(Error::HelperStart {
                executable: self.executable.clone(),
                source,
            }),
        }
    }

    fn timed_out(&self) -> Error {
        Error::HelperTimeout {
            executable: self.executable.clone(),
            timeout: self.timeout,
        }
    }
}

/// Waits for a helper program to exit, polling with a growing pause; stops
/// it at `deadline` (`Ok(None)`) or when it cannot be waited for (`Err`).
/// (A program that closed its output early may still run.)
pub(crate) fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    let mut pause = Duration::from_micros(50);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Some(status)),
            Ok(None) => {}
            Err(e) => {
                stop(child);
                return Err(e);
            }
        }
        let now = Instant::now();
        if now >= deadline {
            stop(child);
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Kills a helper program and waits for it to end.
pub(crate) fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

impl CredentialsSource for HelperProgram {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        Ok(self.get(host)?)
    }
}

impl CredentialsStore for HelperProgram {
    fn store(&self, host: &Hostname, credentials: &Credentials) -> Result<(), CredentialsError> {
        Ok(HelperProgram::store(self, host, credentials)?)
    }

    fn forget(&self, host: &Hostname) -> Result<(), CredentialsError> {
        Ok(HelperProgram::forget(self, host)?)
    }
}

/// What was read from a pipe: at most `limit` bytes, and whether there was more.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    truncated: bool,
}

/// Reads a pipe to its end on a thread, keeping the first `limit` bytes and
/// draining the rest so the writer never blocks.
fn capture<R: Read + Send + 'static>(mut pipe: R, limit: usize) -> Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut captured = Captured::default();
        let mut buf = [0; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = limit - captured.bytes.len();
                    captured.bytes.extend_from_slice(&buf[..n.min(room)]);
                    captured.truncated |= n > room;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(captured);
    });
    rx
}

/// The captured output, or `None` if the pipe is still open at the deadline.
fn collect(rx: Option<Receiver<Captured>>, deadline: Instant) -> Option<Captured> {
    let Some(rx) = rx else {
        return Some(Captured::default());
    };
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(captured) => Some(captured),
        Err(RecvTimeoutError::Disconnected) => Some(Captured::default()),
        Err(RecvTimeoutError::Timeout) => None,
    }
}
