//! Golden runs of the real `terraform login` and `terraform logout`
//! (Terraform 1.11.4) against an [`OAuthServer`](crate::oauth_server::OAuthServer), one per [`Case`], for
//! the tests of `tfdisco login` / `tfdisco logout` to compare with.
//!
//! Each case logs in to (or out of) [`HOST`] (`login.example.com`; the
//! password grant `app.terraform.io`), whose services a CLI configuration
//! `host` block points at the loopback server, so no port is in the host
//! name or the credentials file. The configuration is `~/.terraformrc`
//! (`TF_CLI_CONFIG_FILE` unset), as most users have it: with
//! `TF_CLI_CONFIG_FILE` set Terraform reads nothing of `~/.terraform.d`,
//! the credentials file included ([`Case::config_env`]). Terraform runs in a `HOME` of its own,
//! its answers to the prompts given one prompt at a time, with a
//! [browser](BROWSER_SCRIPT) first on the `PATH` that fetches the login
//! page with `curl` and follows its redirect to Terraform's callback. A
//! run that does not end by itself is killed after [`Case::limit`].
//!
//! Each case is a folder of `fixtures/login-goldens/`:
//!
//! - `credentials.before.json`: `~/.terraform.d/credentials.tfrc.json`
//!   before the run, when there was one (the case's [`Case::before`]);
//! - `credentials.after.json`: the file after the run, byte for byte,
//!   when there was one, and `credentials.after.mode` its mode (`0600`);
//! - `exit-code`: the exit code, or `killed`;
//! - `stdout`, `stderr`: what Terraform printed, colours stripped;
//! - `authz.txt`, `token.txt`: every request to `/authz` and `/token`,
//!   each field on a line as sent, the `Authorization` header as sent;
//! - `services.txt`: the requests to `tfe.v2` and `providers.v1`;
//! - `browser.txt`: the URLs Terraform opened; `callback.txt`: the status
//!   and body of the page the browser ended on (Terraform's callback);
//! - `helper.txt`: what a credentials helper was asked (its arguments and
//!   standard input);
//! - `checks.txt`: the relations the generator checked between the random
//!   values (the challenge is `S256` of the verifier, the code sent is the
//!   code issued, the states agree).
//!
//! The placeholders: `{STATE}`, `{CODE_CHALLENGE}`, `{CODE_VERIFIER}`,
//! `{CODE}` for the random values, `{PORT}` / `{HTTP_PORT}` for the
//! server's HTTPS / plain-http ports, `{CALLBACK_PORT}` for Terraform's
//! callback listener, `{TAKEN_PORT}` for a port held by the generator,
//! `{HOME}` for the home folder and `{SCRATCH}` for the folder holding it.
//!
//! `cargo run -p tfdisco-testkit --bin login-goldens [CASE…]` makes them
//! again with the `terraform` on the PATH (and `curl`); the tests never
//! need either.
//!
//! What Terraform 1.11.4 does that may surprise (each pinned by a case):
//!
//! - `/token` gets a form (`client_id`, `code`, `code_verifier`,
//!   `grant_type=authorization_code`, `redirect_uri`) and no
//!   `Authorization` header: no client secret, so Go's oauth2 puts the
//!   client in the form; a failed exchange is not tried again
//!   (`token-invalid-grant`);
//! - the verifier is a UUID, `.` and 9 digits; the state a UUID;
//!   `code_challenge` is `S256` of the verifier (`checks.txt`);
//! - with no `~/.terraform.d` the token is not saved (the folder is not
//!   made) and the run fails after the exchange
//!   (`first-login-no-config-dir`);
//! - the file is re-encoded by Go: keys sorted, two-space indent, no final
//!   newline, `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`, numbers
//!   kept as written (`1.50`); a key that normalizes to the host is
//!   replaced by the display form (`login-replaces-differently-written-host`);
//!   logout of the last host leaves `{"credentials": {}}`; the mode is
//!   `0600`;
//! - with `TF_CLI_CONFIG_FILE` set the credentials file is not read:
//!   logout finds nothing (`logout-config-file-env`), login still merges
//!   into it (`login-config-file-env`);
//! - a credentials helper gets `store HOST` with `{"token":"…"}` on its
//!   standard input, `forget HOST`; the file is untouched;
//! - an authz redirect with `error=`, a wrong `state` or no `code` gets a
//!   400 from the callback and Terraform waits for ever (killed);
//! - ports `[P, P]` leave no port to try; `[P, P+1]` tries `P` only;
//! - an `http://` authz URL is used as it is; one with `user:pass@` makes
//!   `login.v1` unusable (a warning) and Terraform falls back to `tfe.v2`;
//! - the `tfe.v2` fallback opens `https://HOST/app/settings/tokens` (the
//!   service's host without its port), asks `ping` and `account/details`
//!   with the pasted token, and refuses a 401 (`Token is invalid`);
//! - the password grant is only for `app.terraform.io`;
//! - a credentials file that is not JSON is reported as a CLI
//!   configuration problem, and the token got is not saved
//!   (`login-invalid-credentials-file`);
//! - `init` sends the stored token as `Authorization: Bearer …` to the
//!   host's `providers.v1` (`init-sends-stored-token`, `services.txt`);
//! - Terraform closes its callback server as soon as it has the code,
//!   which cuts the browser's connection about half the time (an empty
//!   reply); the generator runs such a case again until the browser has
//!   the page ([`run::make`]).

#[cfg(unix)]
pub mod run;

use std::path::{Path, PathBuf};

use crate::oauth_server::{AuthzAnswer, HTTP_SERVER, OAuthSettings, SERVER, TokenAnswer};

/// The host most cases log in to.
pub const HOST: &str = "login.example.com";

/// The browser the runs put first on the `PATH` (as `xdg-open`, which
/// Terraform runs first on Linux): it appends the URL to
/// `$TFDISCO_BROWSER_LOG` and, in the background (Terraform waits for the
/// launcher to exit before it reads the callback's code), fetches it with
/// `curl` trusting `$TFDISCO_BROWSER_CA`, following redirects, and writes
/// `status CODE` and the body of the last page to `$TFDISCO_BROWSER_OUT`.
pub const BROWSER_SCRIPT: &str = r#"#!/bin/sh
printf '%s\n' "$1" >> "$TFDISCO_BROWSER_LOG"
(
  status=$(curl -sS -L --max-redirs 3 --max-time 10 --cacert "$TFDISCO_BROWSER_CA" \
    -o "$TFDISCO_BROWSER_OUT.body" -w '%{http_code}' "$1" 2>"$TFDISCO_BROWSER_OUT.err")
  { printf 'status %s\n' "$status"; cat "$TFDISCO_BROWSER_OUT.body" 2>/dev/null; } > "$TFDISCO_BROWSER_OUT.tmp"
  mv "$TFDISCO_BROWSER_OUT.tmp" "$TFDISCO_BROWSER_OUT"
) </dev/null >/dev/null 2>&1 &
exit 0
"#;

/// A credentials helper (`terraform-credentials-rec`): appends its
/// arguments and standard input to `$TFDISCO_HELPER_LOG`; `get` answers no
/// credentials (`{}`).
pub const HELPER_SCRIPT: &str = r#"#!/bin/sh
input=$(cat)
printf 'args: %s\nstdin: %s\n' "$*" "$input" >> "$TFDISCO_HELPER_LOG"
case "$1" in get) echo '{}' ;; esac
exit 0
"#;

/// The credentials helper's name in the CLI configuration.
pub const HELPER_NAME: &str = "rec";

/// Which ports the `login.v1` client offers Terraform's callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ports {
    /// No `ports` (Terraform's default, 10000–10010).
    Default,
    /// This range.
    Range(u16, u16),
    /// `[P, P+1]`, `P` held by the generator (Terraform tries only `P`).
    Taken,
}

/// How a run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// With this exit code.
    Code(i32),
    /// Killed after [`Case::limit`]: Terraform waits for a callback with a
    /// code that never comes.
    Killed,
}

/// One golden run.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The folder's name.
    pub name: &'static str,
    /// What it shows.
    pub summary: &'static str,
    /// `login` or `logout` (or `init`, with [`Case::main_tf`]).
    pub command: &'static str,
    /// Arguments before the host (`-input=false`).
    pub args: &'static [&'static str],
    /// The host argument ([`SERVER`] for the server's `localhost:PORT`).
    pub host: &'static str,
    /// Whether the CLI configuration has a `host` block for [`Case::host`]
    /// (else Terraform asks the host's discovery document).
    pub host_block: bool,
    /// The answers to Terraform's prompts, one per prompt, in turn.
    pub answers: &'static [&'static str],
    /// The working folder's `main.tf`, for an `init` after a login (the
    /// `host` block then names [`HOST`]; without a host argument it names
    /// `app.terraform.io`, the default host of `login`).
    pub main_tf: Option<&'static str>,
    /// The credentials file before the run.
    pub before: Option<&'static str>,
    /// Whether `~/.terraform.d` is there before the run (it is when
    /// [`Case::before`] or [`Case::helper`] is).
    pub config_dir: bool,
    /// More CLI configuration (a `credentials` block, say).
    pub cli_config: &'static str,
    /// Whether the CLI configuration is named by `TF_CLI_CONFIG_FILE`
    /// (Terraform then reads nothing of `~/.terraform.d`, the credentials
    /// file included, but still writes it) rather than being
    /// `~/.terraformrc`.
    pub config_env: bool,
    /// Whether the credentials helper [`HELPER_NAME`] is configured.
    pub helper: bool,
    /// What the server answers.
    pub settings: fn() -> OAuthSettings,
    /// The callback ports offered.
    pub ports: Ports,
    /// How the run ends.
    pub exit: Exit,
    /// Seconds before the run is killed.
    pub limit: u64,
}

const BASE: Case = Case {
    name: "",
    summary: "",
    command: "login",
    args: &[],
    host: HOST,
    host_block: true,
    answers: &["yes"],
    main_tf: None,
    before: None,
    config_dir: true,
    cli_config: "",
    config_env: false,
    helper: false,
    settings: OAuthSettings::default,
    ports: Ports::Default,
    exit: Exit::Code(0),
    limit: 15,
};

const LOGOUT: Case = Case {
    command: "logout",
    answers: &[],
    ..BASE
};

/// Two hosts, other keys, and `<>&` in a value.
const TWO_HOSTS: &str = r#"{
  "credentials": {
    "other.example.com": {
      "token": "other-token"
    },
    "login.example.com": {
      "token": "old-token"
    }
  },
  "note": "a <b> & c",
  "number": 1.50
}
"#;

const OTHER_HOST: &str = r#"{"credentials":{"other.example.com":{"token":"other-token","extra":"<&>"}},"z":[1,2],"a":null}"#;

const ONLY_LOGIN_HOST: &str = "{\n  \"credentials\": {\n    \"login.example.com\": {\n      \"token\": \"old-token\"\n    }\n  }\n}\n";

const DIFFERENTLY_WRITTEN: &str = "{\n  \"credentials\": {\n    \"LOGIN.Example.COM\": {\n      \"token\": \"old-token\"\n    }\n  }\n}";

const INIT_MAIN_TF: &str = "terraform {\n  required_providers {\n    thing = {\n      source = \"login.example.com/acme/thing\"\n    }\n  }\n}\n";

const IN_CLI_CONFIG: &str =
    "credentials \"login.example.com\" {\n  token = \"configured-token\"\n}\n";

fn access_denied() -> OAuthSettings {
    OAuthSettings {
        authz_answer: AuthzAnswer::AccessDenied,
        ..OAuthSettings::default()
    }
}

fn wrong_state() -> OAuthSettings {
    OAuthSettings {
        authz_answer: AuthzAnswer::WrongState,
        ..OAuthSettings::default()
    }
}

fn no_code() -> OAuthSettings {
    OAuthSettings {
        authz_answer: AuthzAnswer::NoCode,
        ..OAuthSettings::default()
    }
}

fn token_answer(answer: TokenAnswer) -> OAuthSettings {
    OAuthSettings {
        token_answer: answer,
        ..OAuthSettings::default()
    }
}

fn invalid_grant() -> OAuthSettings {
    token_answer(TokenAnswer::InvalidGrant)
}

fn server_error() -> OAuthSettings {
    token_answer(TokenAnswer::ServerError)
}

fn not_json() -> OAuthSettings {
    token_answer(TokenAnswer::NotJson)
}

fn no_access_token() -> OAuthSettings {
    token_answer(TokenAnswer::NoAccessToken)
}

fn plain_http_authz() -> OAuthSettings {
    OAuthSettings {
        authz: format!("http://{HTTP_SERVER}/authz"),
        ..OAuthSettings::default()
    }
}

fn userinfo_authz() -> OAuthSettings {
    OAuthSettings {
        authz: format!("https://user:secret@{SERVER}/authz"),
        tfe: false,
        ..OAuthSettings::default()
    }
}

fn scopes_and_query() -> OAuthSettings {
    OAuthSettings {
        authz: format!("https://{SERVER}/authz?tenant=x"),
        scopes: vec!["openid".to_owned(), "terraform:all".to_owned()],
        ..OAuthSettings::default()
    }
}

fn password_grant() -> OAuthSettings {
    OAuthSettings {
        grant_types: Some(vec!["password".to_owned()]),
        ..OAuthSettings::default()
    }
}

fn tfe_only() -> OAuthSettings {
    OAuthSettings {
        login: false,
        ..OAuthSettings::default()
    }
}

fn nothing() -> OAuthSettings {
    OAuthSettings {
        login: false,
        tfe: false,
        ..OAuthSettings::default()
    }
}

/// Every case.
pub const CASES: &[Case] = &[
    Case {
        name: "first-login",
        summary: "login with no credentials file (~/.terraform.d there)",
        ..BASE
    },
    Case {
        name: "first-login-no-config-dir",
        summary: "login with no ~/.terraform.d: the token is not saved (the folder is not made)",
        config_dir: false,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "login-keeps-others",
        summary: "login keeps the other host and the other keys (Go re-encodes them)",
        before: Some(OTHER_HOST),
        ..BASE
    },
    Case {
        name: "login-replaces-token",
        summary: "a second login replaces the host's token, keeps the rest",
        before: Some(TWO_HOSTS),
        ..BASE
    },
    Case {
        name: "login-replaces-differently-written-host",
        summary: "the old key that normalizes to the host is replaced by the display form",
        before: Some(DIFFERENTLY_WRITTEN),
        ..BASE
    },
    Case {
        name: "logout-one-of-two",
        summary: "logout removes one host and keeps the other",
        before: Some(TWO_HOSTS),
        ..LOGOUT
    },
    Case {
        name: "logout-last-host",
        summary: "logout of the last host leaves an empty credentials object",
        before: Some(ONLY_LOGIN_HOST),
        ..LOGOUT
    },
    Case {
        name: "logout-config-file-env",
        summary: "TF_CLI_CONFIG_FILE set: the stored credentials are not read, logout finds none",
        before: Some(TWO_HOSTS),
        config_env: true,
        ..LOGOUT
    },
    Case {
        name: "login-config-file-env",
        summary: "TF_CLI_CONFIG_FILE set: login still writes the credentials file, keeping the rest",
        before: Some(TWO_HOSTS),
        config_env: true,
        ..BASE
    },
    Case {
        name: "logout-unknown-host",
        summary: "logout of a host with no stored credentials",
        before: Some(OTHER_HOST),
        ..LOGOUT
    },
    Case {
        name: "logout-no-file",
        summary: "logout with no credentials file",
        ..LOGOUT
    },
    Case {
        name: "login-credentials-helper",
        summary: "login with a credentials helper: the helper stores, the file is not written",
        helper: true,
        ..BASE
    },
    Case {
        name: "logout-credentials-helper",
        summary: "logout with a credentials helper: the helper forgets",
        helper: true,
        before: Some(ONLY_LOGIN_HOST),
        ..LOGOUT
    },
    Case {
        name: "login-credentials-in-cli-config",
        summary: "credentials in another CLI configuration file: login refused",
        cli_config: IN_CLI_CONFIG,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "logout-credentials-in-cli-config",
        summary: "credentials in another CLI configuration file: logout refused",
        cli_config: IN_CLI_CONFIG,
        exit: Exit::Code(1),
        ..LOGOUT
    },
    Case {
        name: "login-input-false",
        summary: "-input=false: refused before anything",
        args: &["-input=false"],
        answers: &[],
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "login-answer-no",
        summary: "answering no at the prompt cancels",
        answers: &["no"],
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "login-default-host",
        summary: "no host argument: app.terraform.io (its host block offers nothing)",
        host: "",
        settings: nothing,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "authz-access-denied",
        summary: "the authorization server answers error=access_denied: Terraform waits",
        settings: access_denied,
        exit: Exit::Killed,
        limit: 6,
        ..BASE
    },
    Case {
        name: "authz-wrong-state",
        summary: "the callback's state is not Terraform's: Terraform waits",
        settings: wrong_state,
        exit: Exit::Killed,
        limit: 6,
        ..BASE
    },
    Case {
        name: "authz-no-code",
        summary: "the callback has no code: Terraform waits",
        settings: no_code,
        exit: Exit::Killed,
        limit: 6,
        ..BASE
    },
    Case {
        name: "token-invalid-grant",
        summary: "the token endpoint answers 400 invalid_grant",
        settings: invalid_grant,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "token-server-error",
        summary: "the token endpoint answers 500",
        settings: server_error,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "token-not-json",
        summary: "the token endpoint answers application/json that is not JSON",
        settings: not_json,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "token-no-access-token",
        summary: "the token endpoint answers JSON without access_token",
        settings: no_access_token,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "ports-one-port",
        summary: "ports [10000, 10000]: no port to try",
        ports: Ports::Range(10000, 10000),
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "ports-taken",
        summary: "ports [P, P+1] with P taken: Terraform tries P alone",
        ports: Ports::Taken,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "authz-plain-http",
        summary: "an http:// authz URL: accepted, the login goes through",
        settings: plain_http_authz,
        exit: Exit::Code(0),
        ..BASE
    },
    Case {
        name: "authz-userinfo",
        summary: "an authz URL with user:password@: login.v1 refused (a warning), no tfe.v2",
        settings: userinfo_authz,
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "scopes-and-authz-query",
        summary: "scopes, and an authz URL with a query of its own",
        settings: scopes_and_query,
        ..BASE
    },
    Case {
        name: "password-grant",
        summary: "the password grant on app.terraform.io (host block)",
        host: "app.terraform.io",
        settings: password_grant,
        answers: &["yes", "alice", "s3cret-pass"],
        ..BASE
    },
    Case {
        name: "password-grant-elsewhere",
        summary: "the password grant is refused for another host",
        settings: password_grant,
        exit: Exit::Code(1),
        answers: &[],
        ..BASE
    },
    Case {
        name: "tfe-fallback",
        summary: "no login.v1: the tfe.v2 token pasted at the prompt",
        settings: tfe_only,
        answers: &["yes", "tfe-token-1"],
        ..BASE
    },
    Case {
        name: "tfe-fallback-401",
        summary: "no login.v1: a pasted tfe.v2 token the host refuses (401)",
        settings: tfe_only,
        answers: &["yes", "not-the-token"],
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "no-login-service",
        summary: "a host with neither login.v1 nor tfe.v2",
        settings: nothing,
        answers: &[],
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "login-invalid-credentials-file",
        summary: "a credentials file that is not JSON: the token is not saved, the file kept",
        before: Some("{\"credentials\": not json\n"),
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "init-sends-stored-token",
        summary: "init after a login: the registry gets the stored token (Bearer)",
        command: "init",
        args: &["-backend=false", "-input=false"],
        host: "",
        answers: &[],
        main_tf: Some(INIT_MAIN_TF),
        before: Some(ONLY_LOGIN_HOST),
        exit: Exit::Code(1),
        ..BASE
    },
    Case {
        name: "login-by-discovery",
        summary: "login to localhost:PORT: the discovery document's login.v1",
        host: SERVER,
        host_block: false,
        ..BASE
    },
];

/// The folder of the committed cases.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/login-goldens")
}

/// The case named `name`.
pub fn case(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}

/// A committed case's files (see the [module](self)), `None` for those it
/// does not have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Golden {
    /// The exit code; `None`: killed.
    pub exit: Option<i32>,
    /// What Terraform printed on standard output.
    pub stdout: String,
    /// What Terraform printed on standard error.
    pub stderr: String,
    /// The credentials file before.
    pub before: Option<Vec<u8>>,
    /// The credentials file after.
    pub after: Option<Vec<u8>>,
    /// Its mode (`0600`).
    pub after_mode: Option<String>,
    /// `authz.txt`.
    pub authz: String,
    /// `token.txt`.
    pub token: String,
    /// `services.txt`.
    pub services: String,
    /// `browser.txt`.
    pub browser: String,
    /// `callback.txt`.
    pub callback: Option<String>,
    /// `helper.txt`.
    pub helper: Option<String>,
    /// `checks.txt`.
    pub checks: String,
}

fn read_bytes(path: &Path) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn read_text(path: &Path) -> Option<String> {
    read_bytes(path)
        .map(|b| String::from_utf8(b).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

impl Case {
    /// Its folder under `fixtures/login-goldens/`.
    pub fn dir(&self) -> PathBuf {
        goldens_dir().join(self.name)
    }

    /// The CLI arguments: the command, [`Case::args`], the host (its
    /// [`SERVER`] replaced by `authority`).
    pub fn command_line(&self, authority: &str) -> Vec<String> {
        let mut line = vec![self.command.to_owned()];
        line.extend(self.args.iter().map(|a| (*a).to_owned()));
        if !self.host.is_empty() {
            line.push(self.host.replace(SERVER, authority));
        }
        line
    }

    /// The committed files. Panics when the case was never made (no
    /// `exit-code`).
    pub fn golden(&self) -> Golden {
        let dir = self.dir();
        let text = |name: &str| read_text(&dir.join(name));
        let exit = text("exit-code").unwrap_or_else(|| panic!("{}: no exit-code", self.name));
        Golden {
            exit: exit.trim().parse().ok(),
            stdout: text("stdout").unwrap_or_default(),
            stderr: text("stderr").unwrap_or_default(),
            before: read_bytes(&dir.join("credentials.before.json")),
            after: read_bytes(&dir.join("credentials.after.json")),
            after_mode: text("credentials.after.mode").map(|m| m.trim().to_owned()),
            authz: text("authz.txt").unwrap_or_default(),
            token: text("token.txt").unwrap_or_default(),
            services: text("services.txt").unwrap_or_default(),
            browser: text("browser.txt").unwrap_or_default(),
            callback: text("callback.txt"),
            helper: text("helper.txt"),
            checks: text("checks.txt").unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_folder_names() {
        for (i, case) in CASES.iter().enumerate() {
            assert!(!case.name.is_empty());
            assert!(
                case.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert!(
                CASES[..i].iter().all(|c| c.name != case.name),
                "{}",
                case.name
            );
            assert!(case.limit <= 15, "{}", case.name);
        }
    }

    #[test]
    fn every_case_is_committed_with_its_exit() {
        for case in CASES {
            let golden = case.golden();
            let expected = match case.exit {
                Exit::Code(code) => Some(code),
                Exit::Killed => None,
            };
            assert_eq!(golden.exit, expected, "{}", case.name);
            assert_eq!(
                golden.before.as_deref(),
                case.before.map(str::as_bytes),
                "{}",
                case.name
            );
            if golden.after.is_some() {
                assert_eq!(golden.after_mode.as_deref(), Some("0600"), "{}", case.name);
            }
        }
    }

    #[test]
    fn the_first_login_stores_the_token_and_sends_the_verifier_in_the_form() {
        let golden = case("first-login").expect("the case").golden();
        assert_eq!(
            golden.after.as_deref(),
            Some(&b"{\n  \"credentials\": {\n    \"login.example.com\": {\n      \"token\": \"login-token-1\"\n    }\n  }\n}"[..])
        );
        assert!(
            golden.token.contains("  Authorization: (none)\n"),
            "{}",
            golden.token
        );
        assert!(golden.token.contains("  code_verifier={CODE_VERIFIER}\n"));
        assert!(
            golden
                .checks
                .contains("S256(code_verifier) is the code_challenge")
        );
        assert!(
            golden
                .callback
                .expect("a callback")
                .starts_with("status 200\n")
        );
    }
}
