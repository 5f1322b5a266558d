//! The CLI's credentials source: `TF_TOKEN_*` variables, then `credentials`
//! blocks, then the helper program (docs/behaviour.md, CRED-4, CRED-7), with Terraform's rules
//! for storing and forgetting credentials.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tfdisco_core::{Credentials, CredentialsError, CredentialsSource, Hostname};

use crate::cli_config::Token;
use crate::{CachingCredentials, CliConfig, Env, EnvCredentials, Error, HelperProgram, files};

/// A credentials source that can also keep credentials: `terraform login`
/// stores, `terraform logout` forgets.
pub trait CredentialsStore: CredentialsSource {
    /// Keeps `credentials` for `host`.
    fn store(&self, host: &Hostname, credentials: &Credentials) -> Result<(), CredentialsError>;
    /// Drops whatever credentials are kept for `host`.
    fn forget(&self, host: &Hostname) -> Result<(), CredentialsError>;
}

impl<S: CredentialsStore + ?Sized> CredentialsStore for Arc<S> {
    fn store(&self, host: &Hostname, credentials: &Credentials) -> Result<(), CredentialsError> {
        (**self).store(host, credentials)
    }

    fn forget(&self, host: &Hostname) -> Result<(), CredentialsError> {
        (**self).forget(host)
    }
}

/// Where a host's credentials come from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Origin {
    /// A `TF_TOKEN_*` environment variable.
    EnvVar {
        /// The variable's name.
        name: String,
    },
    /// A `credentials` block in a CLI config file.
    ConfigFile {
        /// The file.
        path: PathBuf,
    },
    /// An entry of `credentials.tfrc.json`, the file `login` writes.
    CredentialsFile {
        /// The file.
        path: PathBuf,
    },
    /// The `credentials_helper` program.
    Helper {
        /// The helper type (may be empty for a helper given directly).
        kind: String,
        /// The program.
        executable: PathBuf,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::EnvVar { name } => write!(f, "environment variable {name}"),
            Origin::ConfigFile { path } => write!(f, "credentials block in {}", path.display()),
            Origin::CredentialsFile { path } => write!(f, "credentials file {}", path.display()),
            Origin::Helper { kind, executable } if kind.is_empty() => {
                write!(f, "credentials helper {}", executable.display())
            }
            Origin::Helper { kind, executable } => write!(
                f,
                "credentials helper {} ({})",
                tfdisco_core::go_quote(kind),
                executable.display()
            ),
        }
    }
}

/// The answer of [`CliCredentials::find`]: which source answered for a host,
/// and what it said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    origin: Origin,
    credentials: Option<Credentials>,
}

impl Found {
    /// The source that answered.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The credentials. `None` when the source knows the host but has no
    /// token for it: a `credentials` block without `token` (which hides
    /// the helper, as in Go), or a helper that answered `{}`.
    pub fn credentials(&self) -> Option<&Credentials> {
        self.credentials.as_ref()
    }

    /// The credentials, owned.
    pub fn into_credentials(self) -> Option<Credentials> {
        self.credentials
    }
}

/// Where `store` and `forget` would act for a host (Terraform's
/// `HostCredentialsLocation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CredentialsLocation {
    /// No credentials file entry and no helper: a store writes
    /// `credentials.tfrc.json`.
    NotAvailable,
    /// The host has an entry in `credentials.tfrc.json`, which a store or
    /// forget edits (even when a helper is configured).
    InPrimaryFile,
    /// The host has a `credentials` block in another CLI config file: it
    /// cannot be changed.
    InOtherFile,
    /// The helper program takes stores and forgets.
    ViaHelper,
}

/// The credentials source of the Terraform and OpenTofu CLIs.
///
/// Lookups try, in order, and stop at the first that knows the host:
///
/// 1. a `TF_TOKEN_*` variable ([`EnvCredentials`]);
/// 2. a `credentials` block from the CLI config files, including
///    `credentials.tfrc.json` when the config directory is read (it is one
///    of its `*.tfrc.json` files, merged like the others);
/// 3. the `credentials_helper` program, behind a [`CachingCredentials`].
///
/// [`store`](CredentialsStore::store) and [`forget`](CredentialsStore::forget)
/// follow Terraform (see [`CredentialsLocation`]): a host with a block in a
/// hand-written config file cannot be changed; a host already in
/// `credentials.tfrc.json`, or any host when there is no helper, is written
/// there (atomically, mode 0600); otherwise the helper takes it. Token
/// variables are never changed.
///
/// ```
/// use tfdisco_config::{CliConfig, Env, Origin};
/// use tfdisco_core::{Dialect, Hostname};
///
/// let home = tempfile::tempdir()?;
/// std::fs::write(
///     home.path().join(".tofurc"),
///     r#"credentials "app.example.com" { token = "from-file" }"#,
/// )?;
/// let env = Env::empty()
///     .with_var("HOME", home.path())
///     .with_var("TF_TOKEN_other_example_com", "from-env");
/// let source = CliConfig::load(Dialect::OpenTofu, &env).credentials_source(&env);
///
/// let found = source.find(&Hostname::parse("app.example.com")?)?.expect("configured");
/// assert_eq!(found.origin(), &Origin::ConfigFile { path: home.path().join(".tofurc") });
/// assert_eq!(found.credentials().expect("a token").expose_token(), "from-file");
///
/// let found = source.find(&Hostname::parse("other.example.com")?)?.expect("configured");
/// assert_eq!(found.origin().to_string(), "environment variable TF_TOKEN_other_example_com");
/// assert!(source.find(&Hostname::parse("example.net")?)?.is_none());
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Debug, Default)]
pub struct CliCredentials {
    env: EnvCredentials,
    state: Mutex<State>,
    credentials_file: Option<PathBuf>,
    helper: Option<Helper>,
}

#[derive(Debug, Default)]
struct State {
    configured: HashMap<Hostname, Configured>,
    unwritable: HashSet<Hostname>,
}

#[derive(Debug)]
struct Configured {
    origin: Origin,
    token: Option<Token>,
}

#[derive(Debug)]
struct Helper {
    kind: String,
    program: CachingCredentials<HelperProgram>,
}

impl CliConfig {
    /// The CLI credentials source for this configuration: `env`'s token
    /// variables, these `credentials` blocks, `credentials.tfrc.json` for
    /// storing, and the helper program when one was found.
    pub fn credentials_source(&self, env: &Env) -> CliCredentials {
        CliCredentials::new(EnvCredentials::new(env)).with_config(self)
    }
}

impl CliCredentials {
    /// A source with only token variables (add the rest with
    /// [`with_config`](CliCredentials::with_config) and
    /// [`with_helper`](CliCredentials::with_helper)).
    pub fn new(env: EnvCredentials) -> CliCredentials {
        CliCredentials {
            env,
            ..CliCredentials::default()
        }
    }

    /// Adds the `credentials` blocks, the `credentials.tfrc.json` location
    /// (from [`CliConfig::load`]) and the helper program found for the
    /// `credentials_helper` block. Reads `credentials.tfrc.json` to learn
    /// which hosts it may edit.
    pub fn with_config(mut self, config: &CliConfig) -> CliCredentials {
        self.credentials_file = config.locations().and_then(|l| l.credentials_file());
        let writable = self
            .credentials_file
            .as_deref()
            .map(files::credentials_file_hosts)
            .unwrap_or_default();
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for block in config.credentials_blocks() {
            let path = block.file().to_owned();
            let origin = if Some(&path) == self.credentials_file.as_ref() {
                Origin::CredentialsFile { path }
            } else {
                Origin::ConfigFile { path }
            };
            let configured = Configured {
                origin,
                token: block.token().cloned(),
            };
            state.configured.insert(block.host().clone(), configured);
            if !writable.contains(block.host()) {
                state.unwritable.insert(block.host().clone());
            }
        }
        if let Some(block) = config.credentials_helper()
            && let Some(exe) = block.executable()
            && let Ok(program) = HelperProgram::new(exe, block.args().iter().cloned())
        {
            self = self.with_helper(block.kind(), program);
        }
        self
    }

    /// Uses `program` as the credentials helper (of type `kind`, only used
    /// to name it), behind a cache.
    pub fn with_helper(
        mut self,
        kind: impl Into<String>,
        program: HelperProgram,
    ) -> CliCredentials {
        self.helper = Some(Helper {
            kind: kind.into(),
            program: CachingCredentials::new(program),
        });
        self
    }

    /// Changes how long each run of the helper program may take (default
    /// [`DEFAULT_HELPER_TIMEOUT`](crate::DEFAULT_HELPER_TIMEOUT)).
    pub fn with_helper_timeout(mut self, timeout: Duration) -> CliCredentials {
        if let Some(helper) = self.helper.take() {
            let program = helper.program.inner().clone().with_timeout(timeout);
            self = self.with_helper(helper.kind, program);
        }
        self
    }

    /// The token variables.
    pub fn env(&self) -> &EnvCredentials {
        &self.env
    }

    /// `credentials.tfrc.json`, where stores go when no helper takes them.
    pub fn credentials_file(&self) -> Option<&Path> {
        self.credentials_file.as_deref()
    }

    /// The helper type and program, when there is one.
    pub fn helper(&self) -> Option<(&str, &HelperProgram)> {
        self.helper
            .as_ref()
            .map(|h| (h.kind.as_str(), h.program.inner()))
    }

    /// Which source answers for `host` and what it says; `None` when no
    /// source knows the host. This is what `tfdisco credentials HOST` shows.
    ///
    /// Errors (a failing helper, a token that cannot be sent) stop the
    /// lookup, as in Go; they are [`Error`]s, boxed.
    pub fn find(&self, host: &Hostname) -> Result<Option<Found>, CredentialsError> {
        if let Some((origin, credentials)) = self.env.find(host) {
            let credentials = Some(credentials?);
            return Ok(Some(Found {
                origin,
                credentials,
            }));
        }
        if let Some(configured) = self.lock().configured.get(host) {
            let origin = configured.origin.clone();
            let credentials = match &configured.token {
                None => None,
                Some(token) => {
                    Some(
                        Credentials::token(&token.0).map_err(|_| Error::InvalidToken {
                            origin: origin.clone(),
                        })?,
                    )
                }
            };
            return Ok(Some(Found {
                origin,
                credentials,
            }));
        }
        match &self.helper {
            Some(helper) => Ok(Some(Found {
                origin: Origin::Helper {
                    kind: helper.kind.clone(),
                    executable: helper.program.inner().executable().to_owned(),
                },
                credentials: helper.program.credentials(host)?,
            })),
            None => Ok(None),
        }
    }

    /// Where a store or forget for `host` would act.
    pub fn location(&self, host: &Hostname) -> CredentialsLocation {
        location(&self.lock(), self.helper.is_some(), host)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update(&self, host: &Hostname, new: Option<&Credentials>) -> Result<(), CredentialsError> {
        let mut state = self.lock();
        match location(&state, self.helper.is_some(), host) {
            CredentialsLocation::InOtherFile => {
                Err(Box::new(Error::Unwritable { host: host.clone() }))
            }
            CredentialsLocation::InPrimaryFile | CredentialsLocation::NotAvailable => {
                let path = self.credentials_file.as_deref().ok_or(Error::NoStore)?;
                files::update_credentials_file(path, host, new)?;
                match new {
                    Some(new) => {
                        let configured = Configured {
                            origin: Origin::CredentialsFile {
                                path: path.to_owned(),
                            },
                            token: Some(Token(new.expose_token().to_owned())),
                        };
                        state.configured.insert(host.clone(), configured);
                    }
                    None => {
                        state.configured.remove(host);
                    }
                }
                Ok(())
            }
            CredentialsLocation::ViaHelper => {
                drop(state);
                let helper = self.helper.as_ref().ok_or(Error::NoStore)?;
                match new {
                    Some(new) => helper.program.store(host, new),
                    None => helper.program.forget(host),
                }
            }
        }
    }
}

fn location(state: &State, has_helper: bool, host: &Hostname) -> CredentialsLocation {
    if state.unwritable.contains(host) {
        CredentialsLocation::InOtherFile
    } else if state.configured.contains_key(host) {
        CredentialsLocation::InPrimaryFile
    } else if has_helper {
        CredentialsLocation::ViaHelper
    } else {
        CredentialsLocation::NotAvailable
    }
}

impl CredentialsSource for CliCredentials {
    fn credentials(&self, host: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        Ok(self.find(host)?.and_then(Found::into_credentials))
    }
}

impl CredentialsStore for CliCredentials {
    fn store(&self, host: &Hostname, credentials: &Credentials) -> Result<(), CredentialsError> {
        self.update(host, Some(credentials))
    }

    fn forget(&self, host: &Hostname) -> Result<(), CredentialsError> {
        self.update(host, None)
    }
}
