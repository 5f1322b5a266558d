//! `tfdisco-dev demo`: the built-in server, discovered through every transport,
//! step by step. Works offline.

use std::fmt::Write as _;

use tfdisco_core::{Error, Hostname, ModuleSource, Platform, ProviderSource, Services};
use tfdisco_runs::LockOptions;
use tfdisco_testkit::{Reply, TestServer, dev_pki, sample, signed_registry};
use tfdisco_transport::{Event, ExchangeReport};

use tfdisco_cli_common::client::{Client, TransportKind, client_with};
use tfdisco_cli_common::exit;
use tfdisco_cli_common::failure::{Failure, option_failure};
use tfdisco_cli_common::report::Report;
use tfdisco_core::Env;
use tfdisco_runs::{BlockingRuns, ClientOptions, CredentialsChoice};

const MOVED_TO: &str = "/terraform/discovery.json";

pub(crate) fn run() -> Result<u8, Failure> {
    let pki = dev_pki(&["localhost", "127.0.0.1", "::1"])
        .map_err(|e| Failure::new(exit::FAILED, "tls", e))?;
    let listen = "127.0.0.1:0".parse().expect("a constant socket address");
    let server = TestServer::bind(listen, Some(pki.server_config))?;
    server.route(tfdisco_core::DISCOVERY_PATH, Reply::redirect(301, MOVED_TO));
    server.route(MOVED_TO, Reply::json(sample::DOCUMENT));
    sample::install_registry(&server);
    let host = Hostname::parse(&format!("localhost:{}", server.port())).expect("a valid hostname");

    println!(
        "A discovery server is listening on https://{host} with a certificate from its own CA."
    );
    println!(
        "{} redirects to {MOVED_TO}, which lists:",
        tfdisco_core::DISCOVERY_PATH
    );
    for line in sample::DOCUMENT.lines() {
        println!("    {line}");
    }

    // The demo's own world: no CLI configuration, no credentials, nothing
    // from the environment.
    let mut options = ClientOptions::default();
    options.cli_config = false;
    options.credentials = CredentialsChoice::Nothing;
    options.env = Some(Env::empty());
    let setup = options.load().map_err(option_failure)?;
    let mut first: Option<Services> = None;
    let mut first_walk: Option<Vec<String>> = None;
    let mut first_lock: Option<String> = None;
    let mut all_agree = true;
    for kind in TransportKind::ALL {
        println!("\n== {} transport", kind.name());
        let client = client_with(kind, &setup, |b| {
            b.add_root_certificate_pem(pki.ca_pem.as_bytes())
        })?;
        let mut steps = String::new();
        let mut step = |event: &Event<'_>| {
            if let Event::Exchange(report) = event {
                describe(&mut steps, report);
            }
        };
        let result = client.wait(client.as_async().discover(&host).observe(&mut step));
        print!("{steps}");
        match result {
            Ok(services) => match &first {
                None => {
                    println!("  services, resolved against {}:", services.discovery_url());
                    for line in Report(services.report(&[])).human().lines().skip(2) {
                        println!("    {line}");
                    }
                    first = Some(services);
                }
                Some(earlier) => {
                    all_agree &= says_agreement(
                        same_answers(earlier, &services),
                        (
                            "the same services as the tokio transport",
                            "DIFFERENT services from the tokio transport",
                        ),
                    );
                }
            },
            Err(e) => {
                all_agree = false;
                println!("  failed: {e}");
                continue;
            }
        }
        // Module registry hosts need a dot (Terraform's rule): the registry
        // is reached by address.
        let registry =
            Hostname::parse(&format!("127.0.0.1:{}", server.port())).expect("a valid hostname");
        all_agree &= compare(
            walk(&client, &registry),
            &mut first_walk,
            |lines| {
                println!("  then on to the registry, as init goes:");
                for line in lines {
                    println!("    {line}");
                }
            },
            (
                "the same registry answers as the tokio transport",
                "DIFFERENT registry answers from the tokio transport",
            ),
            "registry request failed",
        );
        all_agree &= compare(
            lock(&client, &registry),
            &mut first_lock,
            |text| {
                println!(
                    "  then `tfdisco lock` of a configuration requiring\n    \
                     {registry}/{ns}/alpha ~> 1.0 and {registry}/{ns}/beta >= 0.9.0\n  \
                     for {}: every package downloaded and hashed,\n  \
                     its signed SHA256SUMS checked, then the lock file written:",
                    signed_registry::PLATFORMS.join(", "),
                    ns = signed_registry::NAMESPACE,
                );
                for line in text.lines() {
                    if line.is_empty() {
                        println!();
                    } else {
                        println!("    {line}");
                    }
                }
            },
            (
                "the same lock file as the tokio transport",
                "a DIFFERENT lock file from the tokio transport",
            ),
            "lock failed",
        );
    }
    println!();
    if all_agree {
        println!("All three transports gave the same answer.");
        Ok(exit::SUCCESS)
    } else {
        println!("The transports did not all succeed with the same answer.");
        Ok(exit::FAILED)
    }
}

/// Says in a line whether a transport's answer is the first transport's
/// (`same`): the first text of `said` when it is, the second when not.
fn says_agreement(same: bool, said: (&str, &str)) -> bool {
    println!("  {}", if same { said.0 } else { said.1 });
    same
}

/// A step every transport must answer alike: the first answer shown by
/// `show` and kept in `first`, a later one compared with it
/// ([`says_agreement`]), a failure printed after `failed`. False when the
/// step failed or its answer differs.
fn compare<T: PartialEq, E: std::fmt::Display>(
    result: Result<T, E>,
    first: &mut Option<T>,
    show: impl FnOnce(&T),
    said: (&str, &str),
    failed: &str,
) -> bool {
    match result {
        Ok(answer) => match first {
            Some(earlier) => says_agreement(&answer == earlier, said),
            None => {
                show(&answer);
                *first = Some(answer);
                true
            }
        },
        Err(e) => {
            println!("  {failed}: {e}");
            false
        }
    }
}

/// From the sample source addresses to a provider package and a module's
/// download location, one line per answer.
fn walk(client: &Client, host: &Hostname) -> Result<Vec<String>, Error> {
    let dialect = client.cache().config().dialect();
    let invalid = |input: String, error| Error::InvalidSource { input, error };
    let text = format!("{host}/{}", sample::PROVIDER);
    let provider = ProviderSource::parse(&text, dialect).map_err(|e| invalid(text, e))?;
    let versions = client.provider_versions(&provider)?;
    let latest = versions.versions.last().map(|v| v.version.clone());
    let latest = latest.ok_or_else(|| Error::InvalidArgument {
        message: format!("{provider} has no versions"),
    })?;
    let platform = Platform::parse("linux_amd64")?;
    let package = client.provider_package(&provider, &latest, &platform)?;
    let text = format!("{host}/{}", sample::MODULE);
    let module = ModuleSource::parse(&text, dialect).map_err(|e| invalid(text, e))?;
    let modules = client.module_versions(&module)?;
    let newest = modules.versions.last().cloned().unwrap_or_default();
    let location = client.module_download(&module, &newest)?;
    Ok(vec![
        format!(
            "provider {provider}: versions {}",
            versions
                .versions
                .iter()
                .map(|v| v.version.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!("  {latest} for {platform}: {}", package.download_url),
        format!("  sha256 {}", package.shasum),
        format!("module {module}: versions {}", modules.versions.join(", ")),
        format!("  {newest} downloads from {}", location.location),
    ])
}

/// `tfdisco lock` in a scratch directory: the lock file it writes.
fn lock(client: &Client, host: &Hostname) -> Result<String, Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("tfdisco-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = (|| {
        let ns = signed_registry::NAMESPACE;
        std::fs::write(
            dir.join("main.tf"),
            format!(
                "terraform {{\n  required_providers {{\n    \
                 alpha = {{\n      source  = \"{host}/{ns}/alpha\"\n      version = \"~> 1.0\"\n    }}\n    \
                 beta = {{\n      source  = \"{host}/{ns}/beta\"\n      version = \">= 0.9.0\"\n    }}\n  \
                 }}\n}}\n"
            ),
        )?;
        let mut options = LockOptions::new();
        for platform in signed_registry::PLATFORMS {
            options = options.platform(Platform::parse(platform)?);
        }
        let report = client.lock(&dir, &options)?;
        Ok(std::fs::read_to_string(report.path)?)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn describe(out: &mut String, e: &ExchangeReport) {
    let _ = writeln!(out, "  -> GET {}", e.url);
    match (e.status, &e.error) {
        (Some(status), _) => {
            let mut line = format!("  <- {status}");
            if let Some(t) = e.time_to_head {
                let _ = write!(line, " in {:.1} ms", t.as_secs_f64() * 1e3);
            }
            for name in ["location", "content-type"] {
                if let Some(v) = e.headers.get(name).and_then(|v| v.to_str().ok()) {
                    let _ = write!(line, ", {name}: {v}");
                }
            }
            if e.body_bytes > 0 {
                let _ = write!(line, ", {} bytes", e.body_bytes);
            }
            let _ = writeln!(out, "{line}");
        }
        (None, Some(error)) => {
            let _ = writeln!(out, "  <- failed: {error}");
        }
        (None, None) => {
            let _ = writeln!(out, "  <- no response");
        }
    }
}

/// Same final URL, same entries, same resolved URLs.
fn same_answers(a: &Services, b: &Services) -> bool {
    let resolved = |s: &Services| -> Vec<(String, Option<String>)> {
        s.iter()
            .map(|(id, _)| (id.to_owned(), s.service_url(id).ok().map(String::from)))
            .collect()
    };
    let raw = |s: &Services| -> Vec<(String, String)> {
        s.iter()
            .map(|(id, v)| (id.to_owned(), v.get().to_owned()))
            .collect()
    };
    a.discovery_url() == b.discovery_url() && raw(a) == raw(b) && resolved(a) == resolved(b)
}
