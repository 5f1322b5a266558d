//! The options every command that talks to servers takes, and one client
//! type over the three transports.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use tfdisco_core::{Dialect, Discovery, Error, Hostname, Services};
use tfdisco_transport::{ClientBuilder, FromSettings, Observer, SharedRegistry};

use crate::exit;
use crate::failure::Failure;
use crate::setup::{self, Setup};

/// Which transport moves the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TransportKind {
    /// tokio + hyper + rustls
    Tokio,
    /// async-std (futures-io, async-io, futures-rustls, hyper)
    AsyncStd,
    /// the system libcurl
    Curl,
}

impl TransportKind {
    pub(crate) const ALL: [TransportKind; 3] = [
        TransportKind::Tokio,
        TransportKind::AsyncStd,
        TransportKind::Curl,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            TransportKind::Tokio => "tokio",
            TransportKind::AsyncStd => "async-std",
            TransportKind::Curl => "curl",
        }
    }
}

/// Network options shared by `discover` and `check`.
#[derive(Args, Debug)]
pub(crate) struct NetOpts {
    /// The transport to discover with.
    #[arg(long, value_enum, default_value = "tokio")]
    pub(crate) transport: TransportKind,
    /// Terraform or OpenTofu rules (service ids, User-Agent, CLI config files).
    #[arg(long, value_parser = parse_dialect, default_value = "opentofu")]
    pub(crate) dialect: Dialect,
    /// Also trust the CA certificates in this PEM file (repeatable).
    #[arg(long = "ca-file", value_name = "FILE")]
    pub(crate) ca_files: Vec<PathBuf>,
    /// Time allowed for the whole discovery, in seconds [default: 11].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub(crate) timeout: Option<Duration>,
    /// How many redirects to follow [default: 3].
    #[arg(long, value_name = "N")]
    pub(crate) max_redirects: Option<u32>,
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
    /// The defaults of every option, with `transport`.
    pub(crate) fn defaults(transport: TransportKind) -> NetOpts {
        NetOpts {
            transport,
            dialect: Dialect::default(),
            ca_files: Vec::new(),
            timeout: None,
            max_redirects: None,
            no_credentials: true,
            insecure_http: Vec::new(),
            resolve: Vec::new(),
        }
    }
}

pub(crate) fn parse_dialect(s: &str) -> Result<Dialect, String> {
    s.parse()
        .map_err(|e: tfdisco_core::UnknownDialect| e.to_string())
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(secs > 0.0 && secs.is_finite()) {
        return Err("the timeout must be a positive number of seconds".into());
    }
    Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())
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

/// One client over whichever transport was chosen.
pub(crate) enum Client {
    Tokio {
        runtime: tokio::runtime::Runtime,
        client: tfdisco_tokio::Client,
    },
    AsyncStd(tfdisco_async_std::Client),
    Curl(tfdisco_curl::Client),
}

impl Client {
    /// Builds a client for `opts` with the credentials and `host` blocks of
    /// the CLI configuration.
    pub(crate) fn build(opts: &NetOpts, setup: &Setup) -> Result<Client, Failure> {
        Client::build_with(opts.transport, opts, setup, |b| b)
    }

    /// Like [`Client::build`], for `kind`, with extra builder settings.
    pub(crate) fn build_with(
        kind: TransportKind,
        opts: &NetOpts,
        setup: &Setup,
        extra: impl Fn(Builder) -> Builder,
    ) -> Result<Client, Failure> {
        let settings = extra(settings(opts, setup)?);
        let client = match kind {
            TransportKind::Tokio => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                let client = {
                    let _entered = runtime.enter();
                    settings.apply(tfdisco_tokio::Client::builder()).build()
                };
                Client::Tokio {
                    client: client.map_err(build_failure)?,
                    runtime,
                }
            }
            TransportKind::AsyncStd => Client::AsyncStd(
                settings
                    .apply(tfdisco_async_std::Client::builder())
                    .build()
                    .map_err(build_failure)?,
            ),
            TransportKind::Curl => Client::Curl(
                settings
                    .apply(tfdisco_curl::Client::builder())
                    .build()
                    .map_err(build_failure)?,
            ),
        };
        for block in setup.config.host_blocks() {
            if let Err(e) = client
                .registry()
                .force(block.host().clone(), block.services().to_vec())
            {
                eprintln!("tfdisco: warning: host block {:?}: {e}", block.name());
            }
        }
        Ok(client)
    }

    pub(crate) fn registry(&self) -> &SharedRegistry {
        match self {
            Client::Tokio { client, .. } => client.registry(),
            Client::AsyncStd(client) => client.registry(),
            Client::Curl(client) => client.registry(),
        }
    }

    /// Discovers `host` through the registry (cache, forced hosts).
    pub(crate) fn discover(&self, host: &Hostname) -> Result<Services, Error> {
        match self {
            Client::Tokio { runtime, client } => runtime.block_on(client.discover(host)),
            Client::AsyncStd(client) => async_std::task::block_on(client.discover(host)),
            Client::Curl(client) => client.discover(host),
        }
    }

    /// Drives one discovery, telling `observer` about each exchange.
    pub(crate) fn drive(
        &self,
        discovery: &mut Discovery,
        observer: &mut dyn Observer,
    ) -> Result<Services, Error> {
        match self {
            Client::Tokio { runtime, client } => {
                runtime.block_on(client.drive(discovery, Some(observer)))
            }
            Client::AsyncStd(client) => {
                async_std::task::block_on(client.drive(discovery, Some(observer)))
            }
            Client::Curl(client) => client.drive(discovery, Some(observer)),
        }
    }
}

fn build_failure(e: tfdisco_transport::BuildError) -> Failure {
    Failure::new(exit::USAGE, "invalid_option", e)
}

/// The builder settings of the options, independent of the transport.
pub(crate) struct Builder {
    dialect: Dialect,
    timeout: Option<Duration>,
    max_redirects: Option<u32>,
    ca_files: Vec<PathBuf>,
    ca_pems: Vec<Vec<u8>>,
    plain_http: Vec<Hostname>,
    resolve: Vec<(String, SocketAddr)>,
    append_user_agent: Option<String>,
    credentials: Option<tfdisco_config::CliCredentials>,
}

impl Builder {
    /// Also trusts the CA certificates in `pem`.
    pub(crate) fn trust_pem(mut self, pem: &str) -> Builder {
        self.ca_pems.push(pem.as_bytes().to_vec());
        self
    }

    fn apply<C: FromSettings>(self, mut b: ClientBuilder<C>) -> ClientBuilder<C> {
        b = b.dialect(self.dialect);
        if let Some(t) = self.timeout {
            b = b.timeout(t);
        }
        if let Some(n) = self.max_redirects {
            b = b.max_redirects(n);
        }
        for file in self.ca_files {
            b = b.add_root_certificate_file(file);
        }
        for pem in self.ca_pems {
            b = b.add_root_certificate_pem(pem);
        }
        for host in self.plain_http {
            b = b.plain_http_host(host);
        }
        for (host, addr) in &self.resolve {
            b = b.resolve(host, *addr);
        }
        if let Some(extra) = &self.append_user_agent {
            b = b.append_user_agent(extra);
        }
        if let Some(credentials) = self.credentials {
            b = b.credentials(credentials);
        }
        b
    }
}

fn settings(opts: &NetOpts, setup: &Setup) -> Result<Builder, Failure> {
    let plain_http = opts
        .insecure_http
        .iter()
        .map(|h| setup::hostname(h))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Builder {
        dialect: opts.dialect,
        timeout: opts.timeout,
        max_redirects: opts.max_redirects,
        ca_files: opts.ca_files.clone(),
        ca_pems: Vec::new(),
        plain_http,
        resolve: opts.resolve.clone(),
        append_user_agent: setup
            .env
            .var("TF_APPEND_USER_AGENT")
            .map(|v| v.to_string_lossy().into_owned()),
        credentials: (!opts.no_credentials).then(|| setup.config.credentials_source(&setup.env)),
    })
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
