//! The options every command that talks to servers takes, and the client
//! they make.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use clap::Args;
use tfdisco_config::DialectChoice;
use tfdisco_core::{Dialect, Env};
use tfdisco_runs::{ClientOptions, CredentialsChoice, timeout_from_secs};

use crate::failure::Failure;
use crate::setup;

pub(crate) use tfdisco_cli_common::client::{Client, TransportKind, client_with};

/// Network options shared by `discover` and `check`.
#[derive(Args, Debug)]
pub(crate) struct NetOpts {
    /// The transport to discover with.
    #[arg(long, value_enum, default_value = "tokio")]
    pub(crate) transport: TransportKind,
    /// Terraform or OpenTofu rules (terraform, opentofu).
    ///
    /// The rules decide the service ids, the User-Agent and the CLI
    /// configuration files. The names are read in any case, and tofu is
    /// opentofu too.
    ///
    /// [default: TFDISCO_DIALECT; else the lock file's CLI, or the registry
    /// of all its providers; else opentofu with .tofu files; else the one of
    /// terraform and tofu on the PATH; else opentofu; -v says which and why]
    #[arg(long, value_parser = parse_dialect)]
    dialect: Option<Dialect>,
    /// The dialect chosen, once asked for ([`NetOpts::dialect`]).
    #[arg(skip)]
    choice: OnceLock<DialectChoice>,
    /// Also trust the CA certificates in this PEM file (repeatable).
    #[arg(long = "ca-file", value_name = "FILE")]
    pub(crate) ca_files: Vec<PathBuf>,
    /// Time allowed for the whole discovery, in seconds [default: 11].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub(crate) timeout: Option<Duration>,
    /// How many redirects a discovery follows [default: 3].
    ///
    /// Registry requests follow 9, as both CLIs.
    #[arg(long, value_name = "N")]
    pub(crate) max_redirects: Option<u32>,
    /// How many times to retry a discovery that failed.
    ///
    /// A discovery is retried when it failed with a connection error, 429 or
    /// a 5xx other than 501, waiting 100 ms, 200 ms, 400 ms, … or as
    /// Retry-After says, within --timeout.
    ///
    /// [default: 3 with --dialect terraform, as Terraform 1.15; 0 with
    /// opentofu]
    #[arg(long, value_name = "N")]
    pub(crate) retries: Option<u32>,
    /// How many times to retry a registry request that failed.
    ///
    /// A registry request is retried when it failed with a connection error,
    /// a TLS failure other than a refused certificate, 429, a 5xx other than
    /// 501, or an attempt's timeout, waiting 1 s, 2 s, 4 s, … or as
    /// Retry-After says.
    ///
    /// [default: TF_REGISTRY_DISCOVERY_RETRY when over 0, else 1, as both
    /// CLIs]
    #[arg(long, value_name = "N")]
    pub(crate) registry_retries: Option<u32>,
    /// Time each attempt of a registry request may take, in seconds.
    ///
    /// The time includes reading the response's body.
    ///
    /// [default: TF_REGISTRY_CLIENT_TIMEOUT when over 0 (or OpenTofu's
    /// registry_protocols block), else 10]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub(crate) registry_timeout: Option<Duration>,
    /// The CLI version to announce, in User-Agent and X-Terraform-Version.
    ///
    /// [default: the dialect's current release, 1.15.9 for terraform, 1.12.6
    /// for opentofu]
    #[arg(long, value_name = "VERSION")]
    pub(crate) cli_version: Option<String>,
    /// Send no credentials (ignore TF_TOKEN_*, config files and helpers).
    #[arg(long)]
    pub(crate) no_credentials: bool,
    /// Use plain http for this host (development servers only; repeatable).
    #[arg(long = "insecure-http", value_name = "HOST")]
    pub(crate) insecure_http: Vec<String>,
    /// Connect to ADDR for HOST:PORT, like curl --resolve (repeatable).
    #[arg(long, value_name = "HOST:PORT:ADDR", value_parser = parse_resolve)]
    pub(crate) resolve: Vec<(String, SocketAddr)>,
}

impl NetOpts {
    /// The dialect given, or else the one work in `dir` means
    /// (`DialectChoice::detect`), said on `-v`. The first call decides:
    /// a command that works in a folder asks with it first; any other is
    /// answered for the current folder.
    pub(crate) fn dialect_choice_in(&self, dir: &Path) -> &DialectChoice {
        self.choice
            .get_or_init(|| choose_dialect(self.dialect, dir))
    }

    /// The dialect ([`NetOpts::dialect_choice_in`] the current folder,
    /// unless a command asked with its own first).
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect_choice_in(Path::new(".")).dialect()
    }

    /// The options as the set-up the CLI shares with the Python and Node
    /// packages takes them.
    pub(crate) fn client_options(&self) -> Result<ClientOptions, Failure> {
        let mut options = ClientOptions::new(self.dialect());
        options.timeout = self.timeout;
        options.max_redirects = self.max_redirects;
        options.retries = self.retries;
        options.registry_retries = self.registry_retries;
        options.registry_timeout = self.registry_timeout;
        options.cli_version = self.cli_version.clone();
        options.ca_files = self.ca_files.clone();
        options.resolve = self.resolve.clone();
        for host in &self.insecure_http {
            options.plain_http_hosts.push(setup::hostname(host)?);
        }
        if self.no_credentials {
            options.credentials = CredentialsChoice::Nothing;
        }
        Ok(options)
    }
}

/// The dialect `given`, or else the one work in `dir` means
/// (`DialectChoice::detect`), said on `-v`.
pub(crate) fn choose_dialect(given: Option<Dialect>, dir: &Path) -> DialectChoice {
    let choice = match given {
        Some(dialect) => DialectChoice::given(dialect),
        // `main` refused a TFDISCO_DIALECT that names no dialect.
        None => DialectChoice::detect(dir, &Env::from_process())
            .unwrap_or_else(|_| DialectChoice::given(Dialect::default())),
    };
    tracing::info!(dialect = %choice.dialect(), why = %choice.why(), "dialect");
    choice
}

pub(crate) fn parse_dialect(s: &str) -> Result<Dialect, String> {
    s.parse()
        .map_err(|e: tfdisco_core::UnknownDialect| e.to_string())
}

pub(crate) fn parse_seconds(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    timeout_from_secs(secs)
}

/// `HOST:PORT:ADDR`, with an IPv6 `ADDR` in brackets or bare.
fn parse_resolve(s: &str) -> Result<(String, SocketAddr), String> {
    let bad = || format!("{s:?} is not HOST:PORT:ADDR (e.g. registry.example.com:443:127.0.0.1)");
    let (host, rest) = s.split_once(':').ok_or_else(bad)?;
    let (port, addr) = rest.split_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let ip: IpAddr = addr
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .map_err(|_| bad())?;
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host.to_owned(), SocketAddr::new(ip, port)))
}

/// A client for `opts`: the environment and CLI configuration read (its
/// problems printed as warnings), then the options applied.
pub(crate) fn client(opts: &NetOpts) -> Result<Client, Failure> {
    let setup = setup::load(&opts.client_options()?)?;
    client_with(opts.transport, &setup, |b| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_syntax() {
        assert_eq!(
            parse_resolve("registry.example.com:443:127.0.0.1"),
            Ok((
                "registry.example.com".into(),
                "127.0.0.1:443".parse().expect("valid")
            ))
        );
        assert_eq!(
            parse_resolve("h:8443:[::1]"),
            Ok(("h".into(), "[::1]:8443".parse().expect("valid")))
        );
        assert_eq!(parse_resolve("h:8443:::1").map(|r| r.1.port()), Ok(8443));
        for bad in ["h", "h:1", ":1:127.0.0.1", "h:x:127.0.0.1", "h:1:nowhere"] {
            assert!(parse_resolve(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["0", "-1", "nan", "inf", "x"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
