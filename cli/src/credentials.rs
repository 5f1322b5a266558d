//! `tfdisco credentials HOST`: which source supplies credentials for a host.

use serde_json::json;
use tfdisco_core::Dialect;
use tfdisco_runs::{CredentialsLookupError, kinds};

use crate::exit;
use crate::failure::Failure;
use crate::setup;

pub(crate) fn run(
    host: &str,
    dialect: Dialect,
    show_token: bool,
    json: bool,
) -> Result<u8, Failure> {
    let host = setup::hostname(host)?;
    let setup = setup::load_dialect(dialect)?;
    let source = setup
        .cli_credentials()
        .expect("the CLI's credentials are read by default");
    let found = source.find(&host).map_err(|error| {
        let failed = CredentialsLookupError {
            host: host.clone(),
            error,
        };
        Failure::new(exit::FAILED, kinds::CREDENTIALS, failed)
    })?;
    let origin = found.as_ref().map(|f| f.origin().to_string());
    let token = found
        .as_ref()
        .and_then(|f| f.credentials())
        .map(|c| c.expose_token().to_owned());
    if json {
        let mut out = json!({
            "hostname": host.as_str(),
            "display": host.display(),
            "source": origin,
            "has_token": token.is_some(),
        });
        if show_token {
            out["token"] = json!(token);
        }
        println!("{out}");
        return Ok(exit::SUCCESS);
    }
    println!("host    {}", host.display());
    match (&origin, &token) {
        (None, _) => println!("source  none: no credentials for this host"),
        (Some(origin), None) => println!(
            "source  {origin}\ntoken   none (the source knows the host but gives no token)"
        ),
        (Some(origin), Some(token)) => {
            println!("source  {origin}");
            if show_token {
                println!("token   {token}");
            } else {
                println!("token   set (shown with --show-token)");
            }
        }
    }
    Ok(exit::SUCCESS)
}
