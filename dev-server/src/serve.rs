//! `tfdisco-dev serve`: a development discovery server on loopback.

mod any_registry;
mod golden;
mod help;
mod how_to;
mod oci;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tfdisco_testkit::{TestServer, dev_pki, sample, server_config_from_pem};

use crate::exit;
use crate::failure::Failure;

pub(crate) use help::{HEADING as HELP_HEADING, sample_registry as sample_registry_help};
use how_to::{Trust, reachable};

/// Options of `tfdisco-dev serve`.
#[derive(Args, Debug)]
pub(crate) struct ServeOpts {
    /// The discovery document to serve [default: a sample document].
    #[arg(long, value_name = "FILE")]
    doc: Option<PathBuf>,
    /// Where to listen; port 0 picks a free port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8443")]
    listen: SocketAddr,
    /// The server certificate chain, PEM (without it a CA and a certificate are made).
    #[arg(long, value_name = "FILE", requires = "key")]
    cert: Option<PathBuf>,
    /// The private key of --cert, PEM.
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// Where to write the CA certificate made when no --cert is given.
    ///
    /// [default: tfdisco-serve-ca.pem in the temporary directory]
    #[arg(long, value_name = "FILE", conflicts_with = "cert")]
    ca_out: Option<PathBuf>,
    /// For the language packages' tests: sets up this case of the install
    /// goldens (`tfdisco_testkit::install_goldens`) on the server in
    /// --golden-scratch, prints it as a `golden-install {json}` line, and
    /// checks what the run left on each `check EXIT` line of stdin.
    #[arg(
        long,
        value_name = "CASE",
        hide = true,
        group = "golden_case",
        requires = "golden_scratch"
    )]
    golden_install: Option<String>,
    /// For the language packages' tests: the same for this case of the
    /// module goldens (`tfdisco_testkit::module_goldens`), printed as a
    /// `golden-module {json}` line.
    #[arg(
        long,
        value_name = "CASE",
        hide = true,
        group = "golden_case",
        requires = "golden_scratch"
    )]
    golden_module: Option<String>,
    /// The folder the --golden-install or --golden-module case is set up in.
    #[arg(long, value_name = "DIR", hide = true, requires = "golden_case")]
    golden_scratch: Option<PathBuf>,
    /// For the language packages' tests: starts a real OCI registry
    /// (`tfdisco_testkit::oci_registry`, MODE anonymous or basic) holding
    /// a module package and a mirror of the signed registry's providers,
    /// prints it as an `oci-registry {json}` line, and stops it with this
    /// process (a signal, a `stop` line on stdin or stdin's end).
    #[arg(long, value_name = "MODE", hide = true, conflicts_with = "golden_case")]
    oci_registry: Option<String>,
    /// For the language packages' tests: starts the registry that answers
    /// for any provider (`tfdisco_testkit::any_registry`), with a network
    /// mirror beside it, on a loopback port of its own, writes the CLI
    /// configuration sending registry.terraform.io and
    /// registry.opentofu.org to it into DIR, and prints it as an
    /// `any-registry {json}` line.
    #[arg(long, value_name = "DIR", hide = true, conflicts_with = "cert")]
    any_registry: Option<PathBuf>,
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| {
        Failure::new(
            exit::USAGE,
            "invalid_option",
            format!("reading {}: {e}", path.display()),
        )
    })
}

pub(crate) fn run(opts: &ServeOpts) -> Result<u8, Failure> {
    let doc = match &opts.doc {
        Some(path) => read(path)?,
        None => sample::DOCUMENT.as_bytes().to_vec(),
    };
    if !matches!(
        serde_json::from_slice::<serde_json::Value>(&doc),
        Ok(serde_json::Value::Object(_) | serde_json::Value::Null)
    ) {
        eprintln!(
            "tfdisco-dev: warning: the document is not a JSON object; clients will refuse it"
        );
    }
    let (tls, ca_file) = match (&opts.cert, &opts.key) {
        (Some(cert), Some(key)) => {
            let config = server_config_from_pem(&read(cert)?, &read(key)?).map_err(|e| {
                Failure::new(exit::USAGE, "invalid_option", format!("--cert/--key: {e}"))
            })?;
            (config, None)
        }
        _ => {
            let names = how_to::certificate_names(opts.listen.ip());
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let pki = dev_pki(&names).map_err(|e| Failure::new(exit::FAILED, "tls", e))?;
            let path = opts
                .ca_out
                .clone()
                .unwrap_or_else(|| std::env::temp_dir().join("tfdisco-serve-ca.pem"));
            std::fs::write(&path, &pki.ca_pem).map_err(|e| {
                Failure::new(
                    exit::USAGE,
                    "invalid_option",
                    format!("writing {}: {e}", path.display()),
                )
            })?;
            (pki.server_config, Some(path))
        }
    };
    let server = TestServer::bind(opts.listen, Some(tls.clone())).map_err(|e| {
        Failure::new(
            exit::USAGE,
            "invalid_option",
            format!(
                "cannot listen on {}: {e} (choose another with --listen, port 0 for any)",
                opts.listen
            ),
        )
    })?;
    // The document, and a small sample registry it may point to.
    sample::install(&server, &doc);
    let golden = match (
        &opts.golden_install,
        &opts.golden_module,
        &opts.golden_scratch,
    ) {
        (Some(name), _, Some(scratch)) => Some(golden::Golden::set_up(&server, name, scratch)?),
        (None, Some(name), Some(scratch)) => {
            Some(golden::Golden::set_up_module(&server, name, scratch)?)
        }
        _ => None,
    };
    let oci = opts
        .oci_registry
        .as_deref()
        .map(oci::OciFixture::start)
        .transpose()?;
    let any = match (&opts.any_registry, &ca_file) {
        (Some(dir), Some(ca_file)) => {
            let loopback = SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, 0));
            let server = TestServer::bind(loopback, Some(tls)).map_err(|e| {
                Failure::new(
                    exit::FAILED,
                    "any_registry",
                    format!("--any-registry: cannot listen on {loopback}: {e}"),
                )
            })?;
            Some(any_registry::AnyRegistry::start(server, dir, ca_file)?)
        }
        _ => None,
    };

    let trust = match &ca_file {
        Some(path) => Trust::MadeCa(path),
        None => Trust::TheirCa,
    };
    let mut out = std::io::stdout().lock();
    let address = reachable(opts.listen, server.port());
    let text = how_to::text(address, &trust, opts.doc.is_none());
    out.write_all(text.as_bytes())?;
    if let Some(golden) = &golden {
        writeln!(out, "{}", golden.describe())?;
    }
    if let Some(oci) = &oci {
        writeln!(out, "oci-registry {}", oci.describe())?;
    }
    if let Some(any) = &any {
        writeln!(out, "any-registry {}", any.describe())?;
    }
    writeln!(out, "press Ctrl-C to stop")?;
    out.flush()?;
    drop(out);

    // Report each request as it arrives, until the process is stopped
    // (with the OCI registry: until it is told to stop, which stops the
    // registry too).
    let mut shown = 0;
    loop {
        std::thread::sleep(Duration::from_millis(100));
        if let Some(why) = oci.as_ref().and_then(oci::OciFixture::stopping) {
            drop(oci);
            eprintln!("tfdisco-dev: serve stopped ({why}); the OCI registry with it");
            return Ok(exit::SUCCESS);
        }
        let requests = server.requests();
        let mut out = std::io::stdout().lock();
        for seen in requests.iter().skip(shown) {
            let creds = if seen.authorization().is_some() {
                " (with credentials)"
            } else {
                ""
            };
            writeln!(out, "{} {}{creds}", seen.method, seen.path)?;
        }
        shown = requests.len();
        if let Some(golden) = &golden {
            for line in golden.checks(&server) {
                writeln!(out, "golden-check {line}")?;
            }
        }
        out.flush()?;
    }
}
