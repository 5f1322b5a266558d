//! What can go wrong when OCI credentials are worked out or fetched
//! (docs/behaviour.md, OCICRED-5, OCICRED-9, OCICRED-10). No text here ever
//! holds a password, a token, an `auth` value or a helper's secret.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use tfdisco_core::go_quote;

/// Why no credentials could be given for a repository, or why the policy
/// could not be built. The texts are OpenTofu's where it has them.
#[derive(Debug)]
#[non_exhaustive]
pub enum OciCredentialsError {
    /// Files listed in `docker_style_config_files` could not be read or
    /// parsed: the whole policy fails (OCICRED-5).
    DockerStyleFiles {
        /// One line per file: `reading PATH: …` or `parsing PATH: …`.
        problems: Vec<String>,
    },
    /// An `auths` entry that covers the repository has no `:` in its
    /// decoded `auth`; OpenTofu then refuses the repository even when
    /// another source was chosen (OCICRED-9).
    MalformedAuth {
        /// The registry asked about.
        registry: String,
        /// `(file, key)` of each such entry.
        entries: Vec<(PathBuf, String)>,
    },
    /// The chosen credential helper could not give an answer (OCICRED-10).
    Helper {
        /// The helper's name (the program is `docker-credential-NAME`).
        name: String,
        /// What went wrong.
        problem: HelperProblem,
    },
}

/// What went wrong with a credential helper.
#[derive(Debug)]
#[non_exhaustive]
pub enum HelperProblem {
    /// No `docker-credential-NAME` in the `PATH` given.
    NotFound,
    /// The program was found through a relative `PATH` entry (Go's
    /// `exec.ErrDot`).
    FoundRelative,
    /// A helper name from a Docker-style file that is empty or holds a path
    /// separator: never run.
    InvalidName,
    /// The program could not be started (or its output read).
    Start(io::Error),
    /// It exited with a failure status and printed this (trimmed), which
    /// does not start like a JSON answer.
    Failed(String),
    /// It exited with a failure status and printed nothing: Go's
    /// `exit status N`.
    Exit(String),
    /// It exited with a failure status (Go's `exit status N`) and printed
    /// what starts like a JSON answer: not shown, as it may hold the secret
    /// (docs/behaviour.md, CFG-13).
    FailedWithAnswer(String),
    /// It did not finish in time, and was killed.
    TimedOut(Duration),
    /// Its output is not the JSON object the protocol wants.
    MalformedOutput(String),
    /// It answered with the username `<token>` (an identity token), which
    /// OpenTofu refuses.
    OAuthStyle,
}

impl fmt::Display for OciCredentialsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OciCredentialsError::DockerStyleFiles { problems } => write!(
                f,
                "discovering ambient OCI registry credentials: failed to read Docker-style \
                 config files: {}",
                problems.join("\n")
            ),
            OciCredentialsError::MalformedAuth { registry, entries } => {
                write!(f, "finding credentials for {}: ", go_quote(registry))?;
                for (i, (file, key)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str("\n")?;
                    }
                    let file = file.display();
                    write!(
                        f,
                        "from {file}: auth object for {} in {file} does not have base64-encoded \
                         username:password pair",
                        go_quote(key)
                    )?;
                }
                Ok(())
            }
            OciCredentialsError::Helper { name, problem } => {
                let quoted = go_quote(name);
                write!(f, "from {quoted} credential helper: ")?;
                if let HelperProblem::OAuthStyle = problem {
                    return write!(
                        f,
                        "{quoted} credential helper returned OAuth-style credentials, but only \
                         username/password-style is allowed from a credential helper"
                    );
                }
                write!(f, "{quoted} credential helper failed: ")?;
                let program = go_quote(&format!("docker-credential-{name}"));
                match problem {
                    HelperProblem::NotFound => {
                        write!(f, "exec: {program}: executable file not found in $PATH")
                    }
                    HelperProblem::FoundRelative => write!(
                        f,
                        "exec: {program}: cannot run executable found relative to current \
                         directory"
                    ),
                    HelperProblem::InvalidName => {
                        f.write_str("the name is empty or holds a path separator; not run")
                    }
                    HelperProblem::Start(e) => write!(f, "exec: {program}: {e}"),
                    HelperProblem::Failed(message) => f.write_str(message),
                    HelperProblem::Exit(status) => f.write_str(status),
                    HelperProblem::FailedWithAnswer(status) => write!(
                        f,
                        "{status}, with output that looks like a JSON answer (not shown: it \
                         may hold a secret)"
                    ),
                    HelperProblem::TimedOut(timeout) => write!(
                        f,
                        "{program} did not finish within {timeout:?} and was stopped"
                    ),
                    HelperProblem::MalformedOutput(detail) => f.write_str(detail),
                    HelperProblem::OAuthStyle => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for OciCredentialsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OciCredentialsError::Helper {
                problem: HelperProblem::Start(e),
                ..
            } => Some(e),
            _ => None,
        }
    }
}
