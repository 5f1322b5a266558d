//! The environment tfdisco reads (`TF_TOKEN_*`, `TF_CLI_CONFIG_FILE`,
//! `HTTPS_PROXY`, `SSL_CERT_FILE`, …): variables and the home directory,
//! given explicitly so tests (and embedders) never touch the process
//! environment. [`Env::from_process`] is the one place that reads it.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::PathBuf;

/// A snapshot of environment variables, plus where the home directory is
/// when `HOME` is not set.
///
/// Later entries win when a name appears twice. `Debug` shows the variable
/// names only, never their values (they include `TF_TOKEN_*` tokens).
///
/// ```
/// use tfdisco_core::Env;
///
/// let env = Env::empty()
///     .with_var("HOME", "/home/me")
///     .with_var("TF_TOKEN_example_com", "s3cret");
/// assert_eq!(env.var("HOME"), Some("/home/me".as_ref()));
/// assert!(!format!("{env:?}").contains("s3cret"));
/// ```
#[derive(Clone, Default)]
pub struct Env {
    vars: Vec<(OsString, OsString)>,
    home_fallback: Option<PathBuf>,
}

impl Env {
    /// No variables, no home directory.
    pub fn empty() -> Env {
        Env::default()
    }

    /// The given variables, in order.
    pub fn new<I, K, V>(vars: I) -> Env
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        vars.into_iter().collect()
    }

    /// The process environment (`std::env::vars_os`), with the operating
    /// system's idea of the home directory as the fallback for `HOME`.
    pub fn from_process() -> Env {
        Env {
            vars: std::env::vars_os().collect(),
            #[allow(deprecated)] // not deprecated any more since Rust 1.86, still on 1.85
            home_fallback: std::env::home_dir(),
        }
    }

    /// Adds a variable (replacing an earlier one of the same name).
    pub fn with_var(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Env {
        self.vars.push((name.into(), value.into()));
        self
    }

    /// The home directory to use when `HOME` is unset or empty.
    pub fn with_home_fallback(mut self, home: impl Into<PathBuf>) -> Env {
        self.home_fallback = Some(home.into());
        self
    }

    /// The value of a variable (the last one, if it was given twice).
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// The value of a variable when it is set and not empty (Go's
    /// `os.Getenv(name) != ""`).
    pub fn non_empty(&self, name: &str) -> Option<&OsStr> {
        self.var(name).filter(|v| !v.is_empty())
    }

    /// The value of a variable when it is set, not empty and valid UTF-8.
    pub fn non_empty_str(&self, name: &str) -> Option<&str> {
        self.non_empty(name).and_then(OsStr::to_str)
    }

    /// The first of `names` that [`Env::non_empty_str`] finds (Go's
    /// `getEnvAny`).
    pub fn first_non_empty_str(&self, names: &[&str]) -> Option<&str> {
        names.iter().find_map(|name| self.non_empty_str(name))
    }

    /// Every variable, in order, duplicates included.
    pub fn iter(&self) -> impl Iterator<Item = (&OsStr, &OsStr)> {
        self.vars
            .iter()
            .map(|(n, v)| (n.as_os_str(), v.as_os_str()))
    }

    /// The home directory: `HOME` when set and not empty, else the fallback.
    pub fn home(&self) -> Option<PathBuf> {
        self.non_empty("HOME")
            .map(PathBuf::from)
            .or_else(|| self.home_fallback.clone())
    }
}

impl<K: Into<OsString>, V: Into<OsString>> FromIterator<(K, V)> for Env {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Env {
        Env {
            vars: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            home_fallback: None,
        }
    }
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Env")
            .field(
                "names",
                &self.vars.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("home_fallback", &self.home_fallback)
            .finish()
    }
}
