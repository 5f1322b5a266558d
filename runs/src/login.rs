//! `login` and `logout`, as `terraform login` / `logout` do them
//! (docs/behaviour.md, LOGIN-R1 to LOGIN-R8): a host's `login.v1` OAuth
//! client (the authorization code with PKCE on a loopback listener, or the
//! password grant), or its `tfe.v2` tokens page, then the token kept where
//! the CLI configuration says (`credentials.tfrc.json` or the credentials
//! helper). The flow's rules are the core's; this module moves its bytes:
//! the listener, the browser and the person are the caller's [`LoginUi`].

mod listener;
mod page;

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;
use tfdisco_config::{CliCredentials, CredentialsLocation, CredentialsStore};
use tfdisco_core::url::Url;
use tfdisco_core::{
    AuthorizationRequest, Callback, Credentials, CredentialsError, Error, Hostname, LoginGrantType,
    LoginSeed, OAuthClient, TokenGrant, callback_ports, login_grant_type, tfe_account_message,
    tfe_tokens_page,
};
use tfdisco_transport::{BlockingClient, Transport};

use crate::Cancel;
use listener::{Answer, CallbackListener, WaitEnd};

/// How long a login waits for the browser to come back, by default: ten
/// minutes (Terraform waits for ever).
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(600);

/// The host `login` and `logout` use when none is named: HCP Terraform's.
pub const DEFAULT_LOGIN_HOST: &str = tfdisco_core::HCP_TERRAFORM_HOST;

/// How a login runs.
///
/// ```
/// use std::time::Duration;
/// use tfdisco_runs::{Cancel, LoginOptions};
///
/// let options = LoginOptions::new()
///     .timeout(Duration::from_secs(120))
///     .cancel(Cancel::new());
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct LoginOptions {
    timeout: Duration,
    cancel: Option<Cancel>,
    seed: Option<[u8; 36]>,
}

impl Default for LoginOptions {
    fn default() -> LoginOptions {
        LoginOptions::new()
    }
}

impl LoginOptions {
    /// Waits [`DEFAULT_LOGIN_TIMEOUT`], no cancellation, fresh random state.
    pub fn new() -> LoginOptions {
        LoginOptions {
            timeout: DEFAULT_LOGIN_TIMEOUT,
            cancel: None,
            seed: None,
        }
    }

    /// How long to wait for the browser's callback.
    pub fn timeout(mut self, timeout: Duration) -> LoginOptions {
        self.timeout = timeout;
        self
    }

    /// A handle that ends the wait for the callback (Ctrl-C).
    pub fn cancel(mut self, cancel: Cancel) -> LoginOptions {
        self.cancel = Some(cancel);
        self
    }

    /// The random bytes of the request's state and proof key, for tests;
    /// by default they come from the operating system.
    pub fn seed(mut self, seed: [u8; 36]) -> LoginOptions {
        self.seed = Some(seed);
        self
    }
}

/// Where a host's token goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "storage", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CredentialsStorage {
    /// `credentials.tfrc.json`, in plain text.
    File {
        /// The file.
        path: PathBuf,
    },
    /// The CLI configuration's `credentials_helper`.
    Helper {
        /// The helper's type (its block's label).
        kind: String,
    },
}

/// How the token is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LoginMethod {
    /// `login.v1`'s authorization code grant, in a browser.
    AuthorizationCode,
    /// `login.v1`'s password grant (HCP Terraform only, as Terraform).
    Password,
    /// `tfe.v2`'s tokens page: the person pastes a token.
    TokensPage,
}

/// What a login tells its [`LoginUi`], in order.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoginStep<'a> {
    /// The host's `login.v1` cannot be used (a URL with user
    /// information, a version tfdisco does not know, …): the login falls
    /// back to `tfe.v2`, as Terraform does after its warning.
    LoginServiceUnusable {
        /// Why.
        error: &'a Error,
    },
    /// Before the consent question: what will happen and where the token
    /// will go.
    Consent {
        /// The host.
        host: &'a Hostname,
        /// How the token is obtained.
        method: LoginMethod,
        /// Where it will be kept.
        storage: &'a CredentialsStorage,
    },
    /// The page the person must visit, and whether a browser was opened
    /// at it.
    Browser {
        /// The host.
        host: &'a Hostname,
        /// The page.
        url: &'a Url,
        /// `true` when [`LoginUi::open_browser`] succeeded.
        opened: bool,
        /// How the token is obtained (the login page or the tokens page).
        method: LoginMethod,
    },
    /// Waiting for the browser to come back to the listener.
    Waiting,
    /// A request reached the listener that is not the callback (it got a
    /// 400; the wait goes on).
    CallbackRejected {
        /// Why.
        reason: &'a str,
    },
    /// Before the password grant's questions.
    PasswordNeeded,
    /// Before the tokens page's question.
    TokenNeeded {
        /// Where the token will be kept.
        storage: &'a CredentialsStorage,
    },
    /// The pasted token works for this user.
    TokenChecked {
        /// The account's user name.
        username: &'a str,
    },
}

/// A question a login asks the person.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoginQuestion<'a> {
    /// "Do you want to proceed?": only `yes` (any case, trimmed) goes on.
    Proceed,
    /// The password grant's user name.
    Username {
        /// The host.
        host: &'a Hostname,
    },
    /// The password grant's password (a secret: not echoed).
    Password {
        /// The host.
        host: &'a Hostname,
    },
    /// The token from the tokens page (a secret: not echoed).
    Token {
        /// The host.
        host: &'a Hostname,
    },
}

/// The person and the browser, as the caller reaches them: the CLI's
/// terminal, a tool's own dialogs, a test's script.
pub trait LoginUi {
    /// Shows a step of the login.
    fn step(&mut self, step: &LoginStep<'_>);
    /// Asks a question; `None` when there is no answer (end of input).
    fn ask(&mut self, question: &LoginQuestion<'_>) -> Option<String>;
    /// Opens `url` in a browser; an error when none could be opened (the
    /// URL is shown for the person to open).
    fn open_browser(&mut self, url: &Url) -> Result<(), String>;
}

/// A login that went through.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct LoginReport {
    /// The host, in display form.
    pub host: String,
    /// How the token was obtained.
    pub method: LoginMethod,
    /// Where it was kept.
    pub storage: CredentialsStorage,
    /// The account the token belongs to, when the host said (`tfe.v2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// What a logout did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LogoutReport {
    /// The host, in display form.
    pub host: String,
    /// Where the credentials were forgotten; `None` when none were stored
    /// (not an error, as in Terraform).
    pub removed_from: Option<CredentialsStorage>,
}

/// Why a login or logout failed. No variant holds a token, a code or a
/// password.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoginFailure {
    /// The host's discovery failed.
    Discovery(Error),
    /// The host offers neither `login.v1` nor `tfe.v2`.
    NotSupported {
        /// The host, in display form.
        host: String,
        /// Why, in Terraform's words.
        detail: String,
    },
    /// The host's credentials are set in another CLI configuration file.
    ManuallyConfigured {
        /// The host, in display form.
        host: String,
    },
    /// There is nowhere to keep a token (no home directory).
    NoStore,
    /// The person did not answer `yes`, or gave no answer.
    Cancelled,
    /// No port of the client's range could be listened on.
    NoPort {
        /// The range's lowest port.
        min: u16,
        /// The range's highest port.
        max: u16,
    },
    /// The login.v1 client cannot be used (an endpoint that is not https,
    /// …).
    Flow(tfdisco_core::LoginError),
    /// The browser never came back within the timeout.
    TimedOut(Duration),
    /// The wait was cancelled (Ctrl-C).
    Interrupted,
    /// The listener failed.
    Listener(std::io::Error),
    /// The login server refused (`error=` in the callback).
    Denied {
        /// The `error` code.
        error: String,
        /// The `error_description`, when given.
        description: Option<String>,
    },
    /// The token request failed, or the pasted token was refused.
    Token(Error),
    /// The pasted token is not a token that can be sent.
    InvalidToken(String),
    /// The host did not accept the pasted token, in Terraform's words
    /// (`Token is invalid: unauthorized`, …).
    TokenRefused {
        /// What Terraform says.
        message: String,
        /// The request's error.
        error: Error,
    },
    /// Keeping or forgetting the token failed.
    Store(CredentialsError),
    /// The operating system gave no random bytes.
    NoRandomness(String),
}

impl fmt::Display for LoginFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoginFailure::Discovery(e) => write!(f, "service discovery failed: {e}"),
            LoginFailure::NotSupported { host, detail } => {
                write!(
                    f,
                    "host does not support Terraform tokens API: {host}: {detail}"
                )
            }
            LoginFailure::ManuallyConfigured { host } => write!(
                f,
                "credentials for {host} are manually configured in a CLI configuration \
                 file: remove that block (and revoke the credentials) first"
            ),
            LoginFailure::NoStore => write!(f, "no credentials store is available"),
            LoginFailure::Cancelled => write!(f, "login cancelled"),
            LoginFailure::NoPort { min, max } => write!(
                f,
                "cannot start the temporary login server: no TCP port between {min} and \
                 {max} is available on 127.0.0.1"
            ),
            LoginFailure::Flow(e) => write!(f, "{e}"),
            LoginFailure::TimedOut(after) => write!(
                f,
                "the login server did not send the browser back within {}s",
                after.as_secs()
            ),
            LoginFailure::Interrupted => write!(f, "interrupted while waiting for the login"),
            LoginFailure::Listener(e) => write!(f, "the temporary login server failed: {e}"),
            LoginFailure::Denied { error, description } => {
                write!(f, "the login server refused the login: {error}")?;
                match description {
                    Some(d) => write!(f, ": {d}"),
                    None => Ok(()),
                }
            }
            LoginFailure::Token(e) => write!(f, "failed to obtain an API token: {e}"),
            LoginFailure::InvalidToken(why) => write!(f, "the token is not valid: {why}"),
            LoginFailure::TokenRefused { message, .. } => f.write_str(message),
            LoginFailure::Store(e) => write!(f, "failed to save the API token: {e}"),
            LoginFailure::NoRandomness(e) => {
                write!(f, "cannot make the login's random state: {e}")
            }
        }
    }
}

impl std::error::Error for LoginFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoginFailure::Discovery(e)
            | LoginFailure::Token(e)
            | LoginFailure::TokenRefused { error: e, .. } => Some(e),
            LoginFailure::Flow(e) => Some(e),
            LoginFailure::Listener(e) => Some(e),
            _ => None,
        }
    }
}

impl LoginFailure {
    /// The process exit code: 1, as Terraform, and 130 for an interrupt.
    pub fn exit_code(&self) -> u8 {
        match self {
            LoginFailure::Interrupted => crate::exit::CANCELLED,
            _ => crate::exit::FAILED,
        }
    }
}

/// Where `store` would keep `host`'s token, or why it cannot.
fn storage(store: &CliCredentials, host: &Hostname) -> Result<CredentialsStorage, LoginFailure> {
    match store.location(host) {
        CredentialsLocation::InOtherFile => Err(LoginFailure::ManuallyConfigured {
            host: host.display().into_owned(),
        }),
        CredentialsLocation::ViaHelper => Ok(CredentialsStorage::Helper {
            kind: store
                .helper()
                .map(|(kind, _)| kind.to_owned())
                .unwrap_or_default(),
        }),
        _ => {
            let path = store.credentials_file().ok_or(LoginFailure::NoStore)?;
            Ok(CredentialsStorage::File {
                path: path.to_owned(),
            })
        }
    }
}

/// Logs in to `host` (`terraform login HOST`): discovers it over `client`,
/// obtains a token as its services allow, and keeps it in `store`.
///
/// Nothing is written unless a token was obtained; the token is never
/// shown, logged or put in an error.
pub fn login<T: Transport>(
    client: &BlockingClient<T>,
    store: &CliCredentials,
    host: &Hostname,
    ui: &mut dyn LoginUi,
    options: &LoginOptions,
) -> Result<LoginReport, LoginFailure> {
    let services = client.discover(host).map_err(LoginFailure::Discovery)?;
    let service = match services.oauth_client("login.v1") {
        Ok(oauth) => Ok(oauth),
        Err(e) => {
            if !matches!(e, Error::ServiceNotProvided { .. }) {
                ui.step(&LoginStep::LoginServiceUnusable { error: &e });
            }
            services
                .service_url("tfe.v2")
                .map_err(|e| LoginFailure::NotSupported {
                    host: host.display().into_owned(),
                    detail: e.to_string(),
                })
                .map(Err)?
        }
    };
    let storage = storage(store, host)?;
    let (method, credentials, username) = match service {
        Ok(oauth) => {
            let method = match login_grant_type(&oauth, host).map_err(LoginFailure::Flow)? {
                LoginGrantType::Password => LoginMethod::Password,
                _ => LoginMethod::AuthorizationCode,
            };
            consent(ui, host, method, &storage)?;
            let credentials = match method {
                LoginMethod::Password => by_password(client, &oauth, host, ui)?,
                _ => by_code(client, &oauth, host, ui, options)?,
            };
            (method, credentials, None)
        }
        Err(tfe) => {
            let method = LoginMethod::TokensPage;
            consent(ui, host, method, &storage)?;
            let (credentials, username) = by_tokens_page(client, &tfe, host, ui, &storage)?;
            (method, credentials, Some(username))
        }
    };
    store
        .store(host, &credentials)
        .map_err(LoginFailure::Store)?;
    Ok(LoginReport {
        host: host.display().into_owned(),
        method,
        storage,
        username,
    })
}

/// Forgets `host`'s stored token (`terraform logout HOST`): no request is
/// made. A host with nothing stored is not an error.
pub fn logout(store: &CliCredentials, host: &Hostname) -> Result<LogoutReport, LoginFailure> {
    if store.location(host) == CredentialsLocation::NotAvailable {
        return Ok(LogoutReport {
            host: host.display().into_owned(),
            removed_from: None,
        });
    }
    let storage = storage(store, host)?;
    store.forget(host).map_err(LoginFailure::Store)?;
    Ok(LogoutReport {
        host: host.display().into_owned(),
        removed_from: Some(storage),
    })
}

fn consent(
    ui: &mut dyn LoginUi,
    host: &Hostname,
    method: LoginMethod,
    storage: &CredentialsStorage,
) -> Result<(), LoginFailure> {
    ui.step(&LoginStep::Consent {
        host,
        method,
        storage,
    });
    match ui.ask(&LoginQuestion::Proceed) {
        Some(answer) if answer.trim().eq_ignore_ascii_case("yes") => Ok(()),
        _ => Err(LoginFailure::Cancelled),
    }
}

fn by_code<T: Transport>(
    client: &BlockingClient<T>,
    oauth: &OAuthClient,
    host: &Hostname,
    ui: &mut dyn LoginUi,
    options: &LoginOptions,
) -> Result<Credentials, LoginFailure> {
    let random = Random::new()?;
    let seed = LoginSeed::new(options.seed.unwrap_or(random.seed));
    let mut ports_state = random.ports;
    let ports = callback_ports(oauth, &mut |n| below(&mut ports_state, n));
    let listener = CallbackListener::bind(&ports).ok_or(LoginFailure::NoPort {
        min: oauth.min_port(),
        max: oauth.max_port(),
    })?;
    let request =
        AuthorizationRequest::new(oauth, listener.port(), &seed).map_err(LoginFailure::Flow)?;
    let opened = ui.open_browser(request.url()).is_ok();
    ui.step(&LoginStep::Browser {
        host,
        url: request.url(),
        opened,
        method: LoginMethod::AuthorizationCode,
    });
    ui.step(&LoginStep::Waiting);
    let deadline = Instant::now() + options.timeout;
    let code = listener
        .wait(
            deadline,
            options.cancel.as_ref(),
            &mut |target| match request.callback(target) {
                Callback::Code(code) => Answer::Done(Ok(code), 200, page::accepted()),
                Callback::Rejected { reason } => {
                    ui.step(&LoginStep::CallbackRejected { reason: &reason });
                    Answer::KeepWaiting(400, page::rejected(&reason))
                }
                Callback::Denied { error, description } => {
                    let page = page::denied(&error, description.as_deref());
                    Answer::Done(Err(LoginFailure::Denied { error, description }), 400, page)
                }
            },
        )
        .map_err(|end| match end {
            WaitEnd::TimedOut => LoginFailure::TimedOut(options.timeout),
            WaitEnd::Cancelled => LoginFailure::Interrupted,
            WaitEnd::Io(e) => LoginFailure::Listener(e),
        })??;
    drop(listener);
    client
        .login_token(
            oauth,
            TokenGrant::AuthorizationCode {
                request: &request,
                code,
            },
        )
        .map_err(LoginFailure::Token)
}

fn by_password<T: Transport>(
    client: &BlockingClient<T>,
    oauth: &OAuthClient,
    host: &Hostname,
    ui: &mut dyn LoginUi,
) -> Result<Credentials, LoginFailure> {
    ui.step(&LoginStep::PasswordNeeded);
    let username = ui
        .ask(&LoginQuestion::Username { host })
        .ok_or(LoginFailure::Cancelled)?;
    let password = ui
        .ask(&LoginQuestion::Password { host })
        .ok_or(LoginFailure::Cancelled)?;
    client
        .login_token(oauth, TokenGrant::Password { username, password })
        .map_err(LoginFailure::Token)
}

fn by_tokens_page<T: Transport>(
    client: &BlockingClient<T>,
    tfe: &Url,
    host: &Hostname,
    ui: &mut dyn LoginUi,
    storage: &CredentialsStorage,
) -> Result<(Credentials, String), LoginFailure> {
    let url = tfe_tokens_page(tfe);
    let opened = ui.open_browser(&url).is_ok();
    ui.step(&LoginStep::Browser {
        host,
        url: &url,
        opened,
        method: LoginMethod::TokensPage,
    });
    ui.step(&LoginStep::TokenNeeded { storage });
    let pasted = ui
        .ask(&LoginQuestion::Token { host })
        .ok_or(LoginFailure::Cancelled)?;
    let credentials =
        Credentials::token(pasted.trim()).map_err(|e| LoginFailure::InvalidToken(e.to_string()))?;
    let account =
        client
            .tfe_account(tfe, &credentials)
            .map_err(|error| LoginFailure::TokenRefused {
                message: tfe_account_message(&error),
                error,
            })?;
    ui.step(&LoginStep::TokenChecked {
        username: &account.username,
    });
    Ok((credentials, account.username))
}

/// The system's random bytes a login needs: the request's state and proof
/// key, and a seed for picking ports (which need no secrecy).
struct Random {
    seed: [u8; 36],
    ports: u64,
}

impl Random {
    fn new() -> Result<Random, LoginFailure> {
        let mut bytes = [0u8; 44];
        // Without the system's randomness there is no safe login: a
        // guessable state would let another program answer the callback.
        getrandom::fill(&mut bytes).map_err(|e| LoginFailure::NoRandomness(e.to_string()))?;
        let (seed, ports) = bytes.split_at(36);
        Ok(Random {
            seed: seed.try_into().unwrap_or([0; 36]),
            ports: u64::from_le_bytes(ports.try_into().unwrap_or([0; 8])),
        })
    }
}

/// A number below `n` (at least 1) from the splitmix64 sequence at `state`.
fn below(state: &mut u64, n: u32) -> u32 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    u32::try_from(z % u64::from(n.max(1))).unwrap_or(0)
}
