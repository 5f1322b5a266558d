//! Discovers every host given on the command line at once, with the
//! credentials, `host` blocks and User-Agent suffix that `tofu` (or
//! `terraform`, with `--terraform`) would use, and prints each host's
//! `modules.v1` and `providers.v1` URLs.
//!
//! ```text
//! cargo run -- registry.opentofu.org app.terraform.io
//! ```

use std::process::ExitCode;

use tfdisco_config::{CliConfig, Dialect, Env};
use tfdisco_tokio::{Client, Hostname};
use tokio::task::JoinSet;

#[tokio::main]
async fn main() -> ExitCode {
    let mut dialect = Dialect::OpenTofu;
    let mut hosts = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--terraform" => dialect = Dialect::Terraform,
            _ => match Hostname::parse(&arg) {
                Ok(host) => hosts.push(host),
                Err(e) => {
                    eprintln!("{arg}: {e}");
                    return ExitCode::from(2);
                }
            },
        }
    }

    // What the CLI would read: its config files and TF_TOKEN_* variables.
    let env = Env::from_process();
    let config = CliConfig::load(dialect, &env);
    for diagnostic in config.diagnostics() {
        eprintln!("warning: {diagnostic}");
    }
    let client = match Client::builder()
        .cli_config(&config)
        .environment(env)
        .build()
    {
        Ok(client) => client,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };

    let mut tasks = JoinSet::new();
    for (i, host) in hosts.iter().enumerate() {
        let (client, host) = (client.clone(), host.clone());
        tasks.spawn(async move { (i, client.discover(&host).await) });
    }
    let mut results: Vec<_> = tasks.join_all().await;
    results.sort_by_key(|(i, _)| *i);

    let mut failed = false;
    for (i, result) in results {
        let host = hosts[i].display();
        match result {
            Ok(services) => {
                for id in ["modules.v1", "providers.v1"] {
                    match services.service_url(id) {
                        Ok(url) => println!("{host}\t{id}\t{url}"),
                        Err(e) => println!("{host}\t{id}\t-\t({e})"),
                    }
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("{host}: {e} [{}]", e.kind());
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
