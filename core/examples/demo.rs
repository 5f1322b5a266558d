//! Walks through one discovery step by step, with canned responses instead of
//! a network: a redirect, then a document with relative and absolute URLs and
//! a `login.v1` OAuth client.
//!
//! ```text
//! cargo run -p tfdisco-core --example demo
//! ```

use std::time::Instant;

use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode, header};
use tfdisco_core::{Action, Config, Credentials, Hostname, Transfer};

const DOCUMENT: &str = r#"{
  "modules.v1": "/api/modules/v1/",
  "providers.v1": "https://downloads.example.net/providers/",
  "login.v1": {
    "client": "terraform-cli",
    "grant_types": ["authz_code"],
    "authz": "/oauth/authorization",
    "token": "/oauth/token",
    "ports": [10000, 10010]
  }
}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let input = "Registry.Example.COM:443";
    let host = Hostname::parse(input)?;
    println!(
        "1. normalize  {input:?} -> {host} (shown to people as {})",
        host.display()
    );

    let now = Instant::now();
    let credentials = Credentials::token("demo-token")?;
    let mut discovery = Transfer::discovery(host, &Config::default(), Some(credentials), now)?;

    let mut step = 2;
    let services = loop {
        match discovery.poll() {
            Action::Send(request) => {
                let auth = if request.headers().contains_key(header::AUTHORIZATION) {
                    "with the token"
                } else {
                    "without credentials"
                };
                println!("{step}. fetch      GET {} ({auth})", request.uri());
                step += 1;
                let (status, headers, body) = respond(&request.uri().to_string());
                println!("{step}. response   {status}");
                step += 1;
                discovery.handle_head(status, &headers, now);
                if discovery.is_receiving() {
                    discovery.handle_body(body.as_bytes(), now);
                    discovery.handle_end(now);
                }
            }
            Action::Receive => unreachable!("bodies are read right after their head"),
            Action::Wait(until) => discovery.handle_timeout(until),
            Action::Done(result) => break result?,
            _ => unreachable!("no other action yet"),
        }
    };

    println!(
        "{step}. parse      {} services from {}",
        services.len(),
        services.discovery_url()
    );
    step += 1;
    println!("{step}. resolve");
    for (id, _) in services.iter() {
        match services.service_url(id) {
            Ok(url) => println!("   {id:<14} {url}"),
            Err(_) => {
                let client = services.oauth_client(id)?;
                println!(
                    "   {id:<14} OAuth client {:?}, authorize at {}, ports {}-{}",
                    client.client_id(),
                    client.authorization_url().map_or("-", |u| u.as_str()),
                    client.min_port(),
                    client.max_port()
                );
            }
        }
    }
    Ok(())
}

/// The canned "network": the host redirects its well-known URL once.
fn respond(url: &str) -> (StatusCode, HeaderMap, &'static str) {
    let mut headers = HeaderMap::new();
    if url.ends_with("/.well-known/terraform.json") {
        headers.insert(
            header::LOCATION,
            HeaderValue::from_static("/terraform/discovery.json"),
        );
        return (StatusCode::MOVED_PERMANENTLY, headers, "");
    }
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    (StatusCode::OK, headers, DOCUMENT)
}
