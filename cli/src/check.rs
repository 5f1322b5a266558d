//! `tfdisco check HOST`: a report for registry operators.

use std::fmt::Write as _;

use serde_json::value::RawValue;
use tfdisco_core::http::header;
use tfdisco_core::{Dialect, Error, Hostname, JsonType, Resolved, ServiceId, Services};
use tfdisco_transport::{Event, ExchangeReport};

use crate::exit;
use crate::failure::Failure;
use crate::net::{self, Client, NetOpts};
use crate::setup;

/// Headers worth showing for each response.
const SHOWN_HEADERS: &[header::HeaderName] = &[
    header::LOCATION,
    header::CONTENT_TYPE,
    header::CONTENT_LENGTH,
    header::TRANSFER_ENCODING,
    header::CONTENT_ENCODING,
    header::WWW_AUTHENTICATE,
];

pub(crate) fn run(host: &str, opts: &NetOpts) -> Result<u8, Failure> {
    let host = setup::hostname(host)?;
    let client = net::client(opts)?;
    let mut out = String::new();
    let _ = writeln!(out, "check {}", host.display());

    let (services, observed) = discover(&client, &host);
    if !observed.exchanges.is_empty() {
        requests(&mut out, &observed.exchanges);
    }
    for warning in &observed.warnings {
        let _ = writeln!(out, "  warning: {warning}");
    }
    let services = match services {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(out, "\ndiscovery failed\n  {e}");
            let _ = writeln!(
                out,
                "\nverdict\n  terraform: would fail\n  opentofu:  would fail"
            );
            print!("{out}");
            return Ok(exit::FAILED);
        }
    };
    if services.is_forced() {
        let _ = writeln!(
            out,
            "\na host block in the CLI configuration gives this host's services: it is not discovered"
        );
    }
    services_section(&mut out, &services);
    let failing = verdict(&mut out, &services);
    print!("{out}");
    Ok(if failing { exit::FAILED } else { exit::SUCCESS })
}

/// What a discovery showed of itself.
#[derive(Default)]
struct Observed {
    exchanges: Vec<ExchangeReport>,
    warnings: Vec<String>,
}

/// Discovers `host` through the client (aliases, `host` blocks and the
/// credentials rule included), recording every exchange.
fn discover(client: &Client, host: &Hostname) -> (Result<Services, Error>, Observed) {
    let mut observed = Observed::default();
    let mut observer = |event: &Event<'_>| match event {
        Event::Exchange(report) => observed.exchanges.push((*report).clone()),
        Event::CredentialsFailed { host, error } => observed.warnings.push(format!(
            "credentials for {}: {error}; discovering without credentials",
            host.display()
        )),
        _ => {}
    };
    let result = client.wait(client.as_async().discover(host).observe(&mut observer));
    (result, observed)
}

fn requests(out: &mut String, exchanges: &[ExchangeReport]) {
    let _ = writeln!(out, "\nrequests");
    for (i, e) in exchanges.iter().enumerate() {
        let creds = if e.authorization_sent {
            "  (with credentials)"
        } else {
            ""
        };
        let attempt = if e.attempt > 1 {
            format!("  (attempt {})", e.attempt)
        } else {
            String::new()
        };
        let _ = writeln!(out, "  {}. GET {}{creds}{attempt}", i + 1, e.url);
        match (e.status, &e.error) {
            (Some(status), _) => {
                let time = e
                    .time_to_head
                    .map(|t| format!(" in {:.1} ms", t.as_secs_f64() * 1e3));
                let _ = writeln!(out, "     {status}{}", time.unwrap_or_default());
                for name in SHOWN_HEADERS {
                    for value in e.headers.get_all(name) {
                        let _ = writeln!(
                            out,
                            "     {name}: {}",
                            String::from_utf8_lossy(value.as_bytes())
                        );
                    }
                }
                if e.body_bytes > 0 {
                    let _ = writeln!(out, "     {} body bytes", e.body_bytes);
                }
            }
            (None, Some(error)) => {
                let _ = writeln!(out, "     failed: {error}");
            }
            (None, None) => {
                let _ = writeln!(out, "     no response");
            }
        }
        if let Some(retry) = &e.retry {
            let why = if retry.from_retry_after {
                " (Retry-After)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "     retrying in {:?}{why}: attempt {} of {}",
                retry.wait, retry.attempt, retry.attempts
            );
        }
    }
    let last_attempt = exchanges.last().map_or(1, |e| e.attempt);
    let redirects = exchanges
        .iter()
        .filter(|e| e.attempt == last_attempt)
        .count()
        .saturating_sub(1);
    if redirects > 1 {
        let _ = writeln!(
            out,
            "  warning: {redirects} redirects; clients are only guaranteed to follow one"
        );
    }
}

fn services_section(out: &mut String, services: &Services) {
    let _ = writeln!(out, "\ndocument {}", services.discovery_url());
    if !services.has_document() {
        let _ = writeln!(out, "  none: the host offers no services (404 or null)");
        return;
    }
    let _ = writeln!(out, "\nservices ({})", services.len());
    let width = services.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    for (id, value) in services.iter() {
        let (shown, warnings) = describe(services, id, value);
        let _ = writeln!(out, "  {id:<width$}  {shown}");
        for w in warnings {
            let _ = writeln!(out, "  {:width$}  warning: {w}", "");
        }
    }
}

/// What a service resolves to, and what an operator should know about it.
fn describe(services: &Services, id: &str, value: &RawValue) -> (String, Vec<String>) {
    let mut warnings = Vec::new();
    if !ServiceId::is_known(id) {
        warnings.push("not a service id Terraform or OpenTofu use".to_owned());
    }
    let kind = JsonType::of(value);
    if !matches!(kind, JsonType::String | JsonType::Object) {
        warnings.push(format!(
            "a {} is neither a URL nor a client definition",
            kind.name()
        ));
    }
    let shown = match services.resolve(id) {
        Ok(Resolved::Url(url)) => {
            if let Ok(raw) = serde_json::from_str::<String>(value.get()) {
                let relative = !raw.contains("://");
                if relative && !raw.ends_with('/') && !raw.contains('?') {
                    warnings.push(format!(
                        "relative URL {raw:?} has no trailing slash: clients resolve paths against its parent"
                    ));
                }
            }
            if url.scheme() == "http" {
                warnings.push("plain http: requests and tokens travel unencrypted".to_owned());
            }
            url.to_string()
        }
        Ok(Resolved::OAuthClient(c)) => format!(
            "OAuth client {:?} (grant types {})",
            c.client_id(),
            c.grant_types()
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(e) => format!("error: {e}"),
    };
    (shown, warnings)
}

/// Prints what each dialect would make of the document; true if either fails.
fn verdict(out: &mut String, services: &Services) -> bool {
    let _ = writeln!(out, "\nverdict");
    let mut failing = false;
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let view = services.with_dialect(dialect);
        let mut problems = Vec::new();
        let mut notes = Vec::new();
        for (id, _) in view.iter() {
            if let Err(e) = ServiceId::parse(id, dialect) {
                notes.push(format!("{id} cannot be requested: {e}"));
                continue;
            }
            if !ServiceId::is_known(id) {
                continue;
            }
            if let Err(e) = view.resolve(id) {
                problems.push(e.to_string());
            }
        }
        let name = format!("{}:", dialect.name());
        if problems.is_empty() {
            let _ = writeln!(out, "  {name:<10} ok");
        } else {
            failing = true;
            let _ = writeln!(out, "  {name:<10} would fail");
            for p in problems {
                let _ = writeln!(out, "    {p}");
            }
        }
        for n in notes {
            let _ = writeln!(out, "    note: {n}");
        }
    }
    failing
}
