//! A program run as the tests run `tfdisco` and `tfdisco-dev`: a clean
//! environment (only `HOME`, a `PATH` of the system's folders, and the
//! variables a test gives) and what it printed, as text.

use std::path::Path;
use std::process::{Command, Output};

/// What a program did: its exit code (`None` when a signal ended it) and
/// what it printed.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: Option<i32>,
    /// Standard output, as text.
    pub stdout: String,
    /// Standard error, as text.
    pub stderr: String,
}

impl Run {
    /// Standard output read as one JSON document; panics (a failed test)
    /// with the output when it is not one.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// `program args…` with only `HOME` (`home`), `PATH` (`/usr/bin:/bin`)
/// and `vars` in the environment; panics when the program cannot start.
pub fn run(program: &Path, home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("the program runs").into()
}
