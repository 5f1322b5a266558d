//! `tfdisco login [HOST]` and `tfdisco logout [HOST]`: `terraform login` /
//! `logout` without Terraform. The terminal is the run's `LoginUi`: the
//! texts on stdout, the answers from stdin (secrets without echo on a
//! terminal), the browser launched as Terraform launches it.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use clap::Args;
use tfdisco_core::Dialect;
use tfdisco_core::url::Url;
use tfdisco_runs::{
    Cancel, CredentialsStorage, DEFAULT_LOGIN_HOST, LoginFailure, LoginMethod, LoginOptions,
    LoginQuestion, LoginStep, LoginUi, kinds,
};

use crate::browser;
use crate::exit;
use crate::failure::Failure;
use crate::interrupt;
use crate::net::{self, NetOpts, parse_seconds};
use crate::setup;

/// `tfdisco login …`
#[derive(Args, Debug)]
pub(crate) struct LoginOpts {
    /// The host to log in to [default: app.terraform.io with --dialect
    /// terraform; OpenTofu has no default].
    host: Option<String>,
    /// Ask for input (`-input=false` refuses: logging in needs a person).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    input: bool,
    /// How long to wait for the browser to come back, in seconds
    /// [default: 600].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    wait: Option<Duration>,
    #[command(flatten)]
    net: NetOpts,
}

/// `tfdisco logout …`
#[derive(Args, Debug)]
pub(crate) struct LogoutOpts {
    /// The host to log out of [default: app.terraform.io with --dialect
    /// terraform; OpenTofu has no default].
    host: Option<String>,
    /// Which CLI's configuration files to read (terraform, opentofu).
    ///
    /// The names are read in any case, and tofu is opentofu too.
    ///
    /// [default: as for discover]
    #[arg(long, value_parser = net::parse_dialect)]
    dialect: Option<Dialect>,
}

const RULE: &str =
    "\n---------------------------------------------------------------------------------\n";

pub(crate) fn login(opts: &LoginOpts) -> Result<u8, Failure> {
    if !opts.input {
        return Err(Failure::new(
            exit::FAILED,
            kinds::LOGIN,
            "login is an interactive command: it cannot run with --input=false; to configure \
             credentials without a person, write them to a CLI configuration file",
        ));
    }
    let host = setup::hostname(host_argument(&opts.host, opts.net.dialect(), "log in to")?)?;
    let setup = setup::load(&opts.net.client_options()?)?;
    let client = net::client_with(opts.net.transport, &setup, |b| b)?;
    let store = setup
        .cli_credentials()
        .expect("the CLI's credentials are read by default");
    let cancel = Cancel::new();
    interrupt::cancel_on_interrupt(cancel.clone());
    let mut options = LoginOptions::new().cancel(cancel);
    if let Some(wait) = opts.wait {
        options = options.timeout(wait);
    }
    let mut ui = Terminal::new();
    let report = tfdisco_runs::login(&client, store, &host, &mut ui, &options).map_err(failure)?;
    println!("{RULE}");
    match report.method {
        LoginMethod::TokensPage => println!(
            "Success! Logged in to {} as {}.\n",
            report.host,
            report.username.as_deref().unwrap_or("?")
        ),
        _ => println!(
            "Success! tfdisco has obtained and saved an API token.\n\n\
             The new API token will be used for any future command that must make\n\
             authenticated requests to {}.\n",
            report.host
        ),
    }
    Ok(exit::SUCCESS)
}

pub(crate) fn logout(opts: &LogoutOpts) -> Result<u8, Failure> {
    let dialect = net::choose_dialect(opts.dialect, Path::new(".")).dialect();
    let host = setup::hostname(host_argument(&opts.host, dialect, "log out of")?)?;
    let setup = setup::load_dialect(dialect)?;
    let store = setup
        .cli_credentials()
        .expect("the CLI's credentials are read by default");
    let report = tfdisco_runs::logout(store, &host).map_err(failure)?;
    match &report.removed_from {
        None => println!("No credentials for {} are stored.\n", report.host),
        Some(from) => {
            println!(
                "Removed the stored credentials for {} from {}\n",
                report.host,
                describe(from)
            );
            println!(
                "Success! tfdisco has removed the stored API token for {}.\n",
                report.host
            );
        }
    }
    Ok(exit::SUCCESS)
}

/// The host named, or the dialect's default: Terraform's is
/// `app.terraform.io`; OpenTofu has none and wants one named.
fn host_argument<'a>(
    given: &'a Option<String>,
    dialect: Dialect,
    what: &str,
) -> Result<&'a str, Failure> {
    match (given.as_deref(), dialect) {
        (Some(host), _) => Ok(host),
        (None, Dialect::OpenTofu) => Err(Failure::new(
            exit::USAGE,
            kinds::LOGIN,
            format!("name the host to {what}: OpenTofu has no default host"),
        )),
        (None, _) => Ok(DEFAULT_LOGIN_HOST),
    }
}

fn failure(e: LoginFailure) -> Failure {
    Failure::new(e.exit_code(), kinds::LOGIN, e)
}

fn describe(storage: &CredentialsStorage) -> String {
    match storage {
        CredentialsStorage::File { path } => format!("the following file:\n    {}", path.display()),
        CredentialsStorage::Helper { kind } => {
            format!("the configured\n{kind:?} credentials helper")
        }
        other => format!("{other:?}"),
    }
}

/// The terminal as a login's person and browser.
struct Terminal {
    stdin: io::StdinLock<'static>,
}

impl Terminal {
    fn new() -> Terminal {
        Terminal {
            stdin: io::stdin().lock(),
        }
    }

    /// One line of input; `None` at the end of input.
    fn line(&mut self, secret: bool) -> Option<String> {
        if secret && self.stdin.is_terminal() {
            return rpassword::read_password().ok();
        }
        let mut line = String::new();
        match self.stdin.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
        }
    }
}

impl LoginUi for Terminal {
    fn step(&mut self, step: &LoginStep<'_>) {
        match step {
            LoginStep::Consent {
                host,
                method,
                storage,
            } => {
                let mechanism = match method {
                    LoginMethod::TokensPage => "your browser",
                    _ => "OAuth",
                };
                println!(
                    "tfdisco will request an API token for {} using {mechanism}.\n",
                    host.display()
                );
                if *method == LoginMethod::AuthorizationCode {
                    println!(
                        "This will work only if you are able to use a web browser on this computer to\n\
                         complete a login process. If not, you must obtain an API token by another\n\
                         means and configure it in the CLI configuration manually.\n"
                    );
                }
                println!("{}", kept("If login is successful, tfdisco", storage));
            }
            LoginStep::Browser {
                host,
                url,
                opened,
                method,
            } => {
                let page = match method {
                    LoginMethod::TokensPage => "tokens page",
                    _ => "login page",
                };
                if *method == LoginMethod::TokensPage {
                    println!("{RULE}");
                }
                if *opened {
                    println!(
                        "tfdisco must now open a web browser to the {page} for {}.\n",
                        host.display()
                    );
                    println!(
                        "If a browser does not open this automatically, open the following URL to proceed:\n    {url}\n"
                    );
                } else {
                    println!(
                        "Open the following URL to access the {page} for {}:\n    {url}\n",
                        host.display()
                    );
                }
            }
            LoginStep::LoginServiceUnusable { error } => {
                eprintln!("tfdisco: warning: the host's login.v1 cannot be used: {error}")
            }
            LoginStep::Waiting => {
                println!(
                    "tfdisco will now wait for the host to signal that login was successful.\n"
                )
            }
            LoginStep::CallbackRejected { reason } => {
                eprintln!("tfdisco: warning: a request to the login server was refused: {reason}")
            }
            LoginStep::PasswordNeeded => println!(
                "{RULE}\ntfdisco must temporarily use your password to request an API token.\n\
                 This password will NOT be saved locally.\n"
            ),
            LoginStep::TokenNeeded { storage } => println!(
                "{RULE}\nGenerate a token using your browser, and copy-paste it into this prompt.\n\n{}",
                kept("tfdisco", storage)
            ),
            LoginStep::TokenChecked { username } => {
                println!("\nRetrieved token for user {username}\n")
            }
            _ => {}
        }
    }

    fn ask(&mut self, question: &LoginQuestion<'_>) -> Option<String> {
        let (query, description, secret) = match question {
            LoginQuestion::Proceed => (
                "Do you want to proceed?".to_owned(),
                Some("Only 'yes' will be accepted to confirm."),
                false,
            ),
            LoginQuestion::Username { host } => {
                (format!("Username for {}:", host.display()), None, false)
            }
            LoginQuestion::Password { host } => {
                (format!("Password for {}:", host.display()), None, true)
            }
            LoginQuestion::Token { host } => (format!("Token for {}:", host.display()), None, true),
            _ => return None,
        };
        println!("{query}");
        if let Some(description) = description {
            println!("  {description}");
        }
        print!("\n  Enter a value: ");
        let _ = io::stdout().flush();
        let answer = self.line(secret);
        println!();
        answer
    }

    fn open_browser(&mut self, url: &Url) -> Result<(), String> {
        browser::open(url)
    }
}

/// "`lead` will store the token in …" as Terraform says it for `storage`.
fn kept(lead: &str, storage: &CredentialsStorage) -> String {
    match storage {
        CredentialsStorage::Helper { kind } => format!(
            "{lead} will store the token in the configured\n{kind:?} credentials helper \
             for use by subsequent commands.\n"
        ),
        CredentialsStorage::File { path } => format!(
            "{lead} will store the token in plain text in\nthe following file for use by \
             subsequent commands:\n    {}\n",
            path.display()
        ),
        other => format!("{lead} will store the token in {other:?}.\n"),
    }
}
