//! The Go implementations' own test tables (`conformance/*.json`), run as data.
//!
//! Every case has an id; a case that fails must be listed, with the D-id that
//! explains it, in `expected_differences.txt`, and a listed case that passes
//! fails the run, so the list never goes stale.

mod common;
#[path = "common/results.rs"]
mod results;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tfdisco_core::hostname::for_display;
use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Credentials, CredentialsSource, Dialect, DiscoveryCache, ErrorKind, Hostname,
    NoCredentials, Services, StaticCredentials,
};

use common::trace::Recorder;
use common::{Net, Reply};
use results::{Results, conformance_dir, table};

/// `id<TAB>D<n><TAB>reason` lines, each naming the D-id that explains it
/// (docs/behaviour.md, "Deliberate differences").
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["D1", "D2", "D3", "D4", "D5", "D6", "D7"])
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn compare<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

#[test]
fn every_table_is_accounted_for() {
    // Tables this crate runs, and those that belong elsewhere.
    let run_here = [
        "discovery_http.json",
        "hostnames.json",
        "hostnames_reported.json",
        "oauth_clients.json",
        "service_urls.json",
        // Provider and module source addresses: tests/source_addresses.rs.
        "source_addresses.json",
        // Module package addresses (detection): tests/module_packages.rs.
        "module_packages.json",
        // Versions and version constraints: tests/versions.rs.
        "versions.json",
        // Installation methods: the multi-source tables in
        // tests/installation.rs; the CLI configuration's tables in the
        // config crate (config/tests/provider_installation.rs).
        "provider_installation.json",
    ];
    let elsewhere = [
        // Credentials sources, helpers and TF_TOKEN_* decoding are not in the
        // pure core; the credentials crate runs these tables.
        "credentials.json",
        "token_env_vars.json",
        // Host.VersionConstraints exists only in terraform-svchost (OpenTofu
        // removed it) and is not implemented; README says so.
        "version_constraints.json",
        // OpenTofu's OCI tables: credentials in the config crate
        // (config/tests/oci_conformance.rs), the mirror source in the provider
        // crate (provider/tests/oci_mirror_conformance.rs), module sources
        // against a real registry in the CLI's tests
        // (cli/tests/oci_modules_conformance.rs).
        "oci_credentials.json",
        "oci_mirror_source.json",
        "oci_modules.json",
        // Terraform's own verdicts on HCL native syntax: the config crate's
        // reader (config/tests/hcl_syntax.rs).
        "hcl_native_syntax.json",
        // OpenTofu's network mirror tests: the provider crate
        // (provider/tests/network_mirror_conformance.rs).
        "network_mirror_source.json",
    ];
    let mut present: Vec<String> = std::fs::read_dir(conformance_dir())
        .expect("conformance/ exists")
        .map(|e| {
            e.expect("readable")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    present.sort();
    let mut known: Vec<String> = run_here
        .iter()
        .chain(&elsewhere)
        .map(|s| s.to_string())
        .collect();
    known.sort();
    assert_eq!(
        present, known,
        "a conformance table is neither run nor accounted for"
    );
}

#[test]
fn vendored_tables_match_shared_copy() {
    // The tables are vendored so the tests run from a clean checkout; when the
    // team's shared copy is present, the two must not drift apart.
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance");
    let Ok(entries) = std::fs::read_dir(&shared) else {
        return;
    };
    for entry in entries {
        let entry = entry.expect("readable");
        let ours = conformance_dir().join(entry.file_name());
        let theirs = std::fs::read(entry.path()).expect("readable");
        let mine = std::fs::read(&ours).unwrap_or_default();
        assert!(
            mine == theirs,
            "{} differs from {}",
            ours.display(),
            entry.path().display()
        );
    }
}

#[test]
fn hostnames() {
    hostname_table("hostnames");
}

/// Cases this project adds to the shared table (`hostnames_reported.json`).
#[test]
fn hostnames_reported() {
    hostname_table("hostnames_reported");
}

fn hostname_table(name: &str) {
    let t = table(&format!("{name}.json"));
    let mut results = Results::new(format!("{name}/").leak());
    let cases = |key: &str| {
        t.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for (i, case) in cases("for_comparison").iter().enumerate() {
        let input = str_field(case, "input").expect("input");
        let got = Hostname::parse(input);
        let outcome = match (str_field(case, "comparison"), str_field(case, "error")) {
            (Some(want), None) => match got {
                Ok(h) => compare("comparison", h.as_str(), want),
                Err(e) => Err(format!("error {e:?}, want {want:?}")),
            },
            (None, Some(want)) => match got {
                Ok(h) => Err(format!("accepted as {h}, want error {want:?}")),
                // Go's text is the reason; our message adds the input.
                Err(e) => compare("error", e.kind().to_string().as_str(), want),
            },
            other => panic!("case {i}: unexpected shape {other:?}"),
        };
        results.record(format!("{name}/for_comparison[{i}] {input:?}"), outcome);
    }
    for (i, case) in cases("for_display").iter().enumerate() {
        let input = str_field(case, "input").expect("input");
        let want = str_field(case, "display").expect("display");
        results.record(
            format!("{name}/for_display[{i}] {input:?}"),
            compare("display", for_display(input).as_str(), want),
        );
    }
    for (i, case) in cases("hostname_for_display").iter().enumerate() {
        let input = str_field(case, "input").expect("input");
        let want = str_field(case, "display").expect("display");
        let outcome = match Hostname::from_comparison(input) {
            Ok(h) => compare("display", h.display().as_ref(), want),
            Err(e) => Err(format!("not accepted as a comparison form: {e}")),
        };
        results.record(
            format!("{name}/hostname_for_display[{i}] {input:?}"),
            outcome,
        );
    }
    results.finish();
}

/// A host as the anchor tables build it: a decoded document, a final
/// discovery URL and a display name.
fn anchor_services(anchor: &Value, services: &Value, dialect: Dialect) -> Services {
    let url: Url = str_field(anchor, "discovery_url")
        .expect("url")
        .parse()
        .expect("valid URL");
    let host =
        Hostname::parse(str_field(anchor, "display_hostname").expect("host")).expect("valid");
    let body = serde_json::to_vec(services).expect("serializable");
    Services::from_json(host, url, dialect, &body).expect("the anchor's document parses")
}

#[test]
fn service_urls() {
    let t = table("service_urls.json");
    let anchor = &t["anchor"];
    let mut document = anchor["services"].clone();
    for (k, v) in anchor["services_opentofu_extra"]
        .as_object()
        .expect("object")
    {
        document[k] = v.clone();
    }
    let mut results = Results::new("service_urls/");
    for dialect in [Dialect::OpenTofu, Dialect::Terraform] {
        let services = anchor_services(anchor, &document, dialect);
        for case in anchor["cases"].as_array().expect("array") {
            let id = str_field(case, "id").expect("id");
            let opentofu_only =
                str_field(case, "note").is_some_and(|n| n.starts_with("opentofu only"));
            let got = services.service_url(id);
            let outcome = if dialect == Dialect::Terraform && id == "anything-but-tfe.v2.1" {
                // The note gives Terraform's answer: the id parses, the key is absent.
                match got {
                    Err(e) if e.kind() == ErrorKind::ServiceNotProvided => compare(
                        "message",
                        e.to_string().as_str(),
                        "host test-server does not provide a anything-but-tfe service",
                    ),
                    other => Err(format!("got {other:?}, want ServiceNotProvided")),
                }
            } else if dialect == Dialect::Terraform && opentofu_only && id != "tfe.v2.1" {
                continue;
            } else {
                match (
                    str_field(case, "url"),
                    str_field(case, "error_contains"),
                    got,
                ) {
                    (Some(want), _, Ok(url)) => compare("url", url.as_str(), want),
                    (Some(want), _, Err(e)) => Err(format!("error {e}, want {want}")),
                    (None, Some(want), Err(e)) if e.to_string().contains(want) => Ok(()),
                    (None, Some(want), other) => {
                        Err(format!("got {other:?}, want error containing {want:?}"))
                    }
                    (None, None, _) => panic!("{id}: case without url or error"),
                }
            };
            results.record(format!("service_urls/{}/{id}", dialect.name()), outcome);
        }
    }
    results.finish();
}

#[test]
fn oauth_clients() {
    let t = table("oauth_clients.json");
    let anchor = &t["anchor"];
    let mut results = Results::new("oauth_clients/");
    for dialect in [Dialect::OpenTofu, Dialect::Terraform] {
        let services = anchor_services(anchor, &anchor["services"], dialect);
        for case in anchor["cases"].as_array().expect("array") {
            let id = str_field(case, "id").expect("id");
            let got = services.oauth_client(id);
            let outcome = match (&case["result"], str_field(case, "error_contains"), got) {
                (Value::Object(want), _, Ok(client)) => {
                    let url = |u: Option<&Url>| u.map(|u| u.as_str().to_owned());
                    let grants: Vec<&str> =
                        client.grant_types().iter().map(String::as_str).collect();
                    let scopes = (!client.scopes().is_empty()).then(|| client.scopes().to_vec());
                    let got = serde_json::json!({
                        "client": client.client_id(),
                        "authz": url(client.authorization_url()),
                        "token": url(client.token_url()),
                        "min_port": client.min_port(),
                        "max_port": client.max_port(),
                        "grant_types": grants,
                        "scopes": scopes,
                    });
                    compare("client", got, Value::Object(want.clone()))
                }
                (Value::Object(_), _, Err(e)) => Err(format!("error {e}")),
                (Value::Null, Some(want), Err(e)) if e.to_string().contains(want) => Ok(()),
                (Value::Null, Some(want), other) => {
                    Err(format!("got {other:?}, want error containing {want:?}"))
                }
                other => panic!("{id}: unexpected case shape {other:?}"),
            };
            results.record(format!("oauth_clients/{}/{id}", dialect.name()), outcome);
        }
    }
    results.finish();
}

/// The anchor servers' random ports, fixed here.
fn subst(s: &str) -> String {
    s.replace("<portA>", "41002")
        .replace("<portB>", "41003")
        .replace("<port>", "41001")
}

fn reply_from(spec: &Value) -> Reply {
    if spec.get("behaviour").is_some() {
        return Reply::Stall;
    }
    let status = spec["status"].as_u64().expect("status") as u16;
    let body = str_field(spec, "body").unwrap_or("");
    let mut reply = Reply::new(status);
    if let Some(headers) = spec.get("headers").and_then(Value::as_object) {
        for (name, value) in headers {
            let value = value.as_str().expect("header value");
            let value = if value == "<len>" {
                body.len().to_string()
            } else {
                subst(value)
            };
            reply = reply.header(name, &value);
        }
    }
    if spec.get("transfer").is_some() {
        // "first 5 bytes flushed, then the rest"
        let (head, tail) = body.as_bytes().split_at(5.min(body.len()));
        reply.chunked(&[head, tail])
    } else {
        reply.chunked(&[body.as_bytes()])
    }
}

fn path_of(spec: &Value) -> String {
    str_field(spec, "path")
        .unwrap_or("/.well-known/terraform.json")
        .to_owned()
}

#[test]
fn discovery_http() {
    let t = table("discovery_http.json");
    let mut results = Results::new("discovery_http/");
    for scenario in t["anchor"].as_array().expect("array") {
        let name = str_field(scenario, "name").expect("name");
        let outcome = run_scenario(scenario);
        results.record(format!("discovery_http/{name}"), outcome);
    }
    results.finish();
}

fn run_scenario(s: &Value) -> Result<(), String> {
    let client = s.get("client").cloned().unwrap_or(Value::Null);
    let expect = &s["expect"];
    let hostname_input = str_field(&client, "hostname_input").unwrap_or("localhost:<port>");
    // "127.0.0.1:<port> (used directly as Hostname)"
    let hostname_input = subst(hostname_input.split(' ').next().unwrap_or(""));
    let host = Hostname::parse(&hostname_input).map_err(|e| e.to_string())?;

    let mut config = Config::default();
    if let Some(ms) = client
        .get("response_header_timeout_ms")
        .and_then(Value::as_u64)
    {
        config = config.with_timeout(Duration::from_millis(ms));
    }
    let mut registry = DiscoveryCache::new(config);
    let mut credentials = StaticCredentials::new();
    if let Some(map) = client.get("credentials").and_then(Value::as_object) {
        for (h, c) in map {
            let h = Hostname::parse(&subst(h)).map_err(|e| e.to_string())?;
            let token = str_field(c, "token").expect("token");
            credentials.insert(h, Credentials::token(token).expect("valid token"));
        }
    }
    let mut server_host = host.clone();
    if let Some(map) = client.get("alias").and_then(Value::as_object) {
        for (alias, target) in map {
            let target = Hostname::parse(&subst(target.as_str().expect("target"))).expect("valid");
            registry.alias(Hostname::parse(alias).expect("valid"), target.clone());
            server_host = target;
        }
    }
    if let Some(map) = client.get("force_host_services").and_then(Value::as_object) {
        for (h, services) in map {
            let services = services.as_object().expect("object").clone();
            registry
                .force(Hostname::parse(h).expect("valid"), services)
                .map_err(|e| e.to_string())?;
        }
    }

    let mut net = Net::new();
    let server = &s.get("server").cloned().unwrap_or(Value::Null);
    if let Some(responses) = server.get("responses").and_then(Value::as_array) {
        for spec in responses {
            let url = format!("https://{server_host}{}", path_of(spec));
            net.on(&url, reply_from(spec));
        }
    }
    if let Some(servers) = server.get("servers").and_then(Value::as_object) {
        for (letter, responses) in servers {
            let port = if letter == "A" { "41002" } else { "41003" };
            for spec in responses.as_array().expect("array") {
                net.on(
                    &format!("https://localhost:{port}{}", path_of(spec)),
                    reply_from(spec),
                );
            }
        }
    }

    if let Some(steps) = expect.get("steps").and_then(Value::as_array) {
        return run_trace_steps(&mut net, &mut registry, &credentials, &host, steps);
    }

    let result = net.discover(&mut registry, &credentials, &host);
    match str_field(expect, "outcome") {
        Some("services") => {
            let services = result.as_ref().map_err(|e| format!("error: {e}"))?;
            if !services.has_document() {
                return Err("no document, want services".into());
            }
        }
        Some("no_services") => {
            let services = result.as_ref().map_err(|e| format!("error: {e}"))?;
            if services.has_document() {
                return Err(format!("want no services, got {services:?}"));
            }
        }
        Some("error") => {
            let error = result.as_ref().err().ok_or("succeeded, want an error")?;
            if str_field(expect, "error_class").is_some_and(|c| c.starts_with("network"))
                && !matches!(error.kind(), ErrorKind::Network | ErrorKind::Timeout)
            {
                return Err(format!(
                    "want a network-class error, got {:?}: {error}",
                    error.kind()
                ));
            }
        }
        None => {}
        Some(other) => panic!("unknown outcome {other}"),
    }
    if let Some(urls) = expect.get("service_url").and_then(Value::as_object) {
        let services = result.as_ref().map_err(|e| format!("error: {e}"))?;
        for (id, want) in urls {
            let got = services.service_url(id).map_err(|e| e.to_string())?;
            compare(id, got.as_str(), &subst(want.as_str().expect("url")))?;
        }
    }
    if let Some(want) = str_field(expect, "final_discovery_url") {
        let services = result.as_ref().map_err(|e| format!("error: {e}"))?;
        compare("final URL", services.discovery_url().as_str(), &subst(want))?;
    }
    if let Some(headers) = expect.get("request_headers").and_then(Value::as_object) {
        let first = net.seen.first().ok_or("no request was sent")?;
        for (name, want) in headers {
            let got = first
                .headers
                .get(name.as_str())
                .and_then(|v| v.to_str().ok());
            compare(name, got, want.as_str())?;
        }
    }
    if let Some(n) = expect.get("network_requests").and_then(Value::as_u64) {
        compare("requests", net.seen.len() as u64, n)?;
    }
    if let Some(want) = str_field(expect, "credentials_for_alias") {
        let first = net.seen.first().ok_or("no request was sent")?;
        compare("Authorization sent", first.authorization(), Some(want))?;
        let via_alias = credentials
            .credentials(registry.credentials_host(&host))
            .map_err(|e| e.to_string())?
            .map(|c| c.authorization().to_str().expect("ASCII").to_owned());
        compare(
            "credentials for the alias",
            via_alias.as_deref(),
            Some(want),
        )?;
    }
    if expect.get("after_ForgetAlias").is_some() {
        registry.forget_alias(&host);
        match net.discover(&mut registry, &NoCredentials, &host) {
            Err(e) if e.kind() == ErrorKind::Network => {}
            other => {
                return Err(format!(
                    "after forget_alias: got {other:?}, want a network error"
                ));
            }
        }
    }
    Ok(())
}

/// The DiscoTrace scenario: our `tracing` events stand for OpenTofu's hooks.
fn run_trace_steps(
    net: &mut Net,
    registry: &mut DiscoveryCache,
    credentials: &StaticCredentials,
    host: &Hostname,
    steps: &[Value],
) -> Result<(), String> {
    let recorder = Recorder::default();
    for step in steps {
        let call = str_field(step, "call").expect("call");
        if call.contains("Forget(host)") {
            registry.forget(host);
        }
        let _ = recorder.capture(|| net.discover(registry, credentials, host));
        let got: Vec<String> = recorder
            .take()
            .into_iter()
            .filter_map(|line| {
                let hook = if line.starts_with("discovery started") {
                    "DiscoveryStart(host)".to_owned()
                } else if line.starts_with("discovery succeeded") {
                    "DiscoverySuccess(host)".to_owned()
                } else if line.starts_with("discovery result cached") {
                    "DiscoveryHostCached(host)".to_owned()
                } else if line.starts_with("discovery failed") {
                    format!("DiscoveryFailure(host, {line:?})")
                } else {
                    return None;
                };
                line.contains(&format!("host={host}")).then_some(hook)
            })
            .collect();
        let want: Vec<&str> = step["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| e.as_str().expect("event"))
            .collect();
        if got.len() != want.len() {
            return Err(format!("{call}: events {got:?}, want {want:?}"));
        }
        for (g, w) in got.iter().zip(&want) {
            // A failure carries Go's message; ours must contain it.
            let matches = match w.strip_prefix("DiscoveryFailure(host, \"") {
                Some(rest) => {
                    let message = rest.trim_end_matches("\")");
                    g.starts_with("DiscoveryFailure(host, ") && g.contains(message)
                }
                None => g == w,
            };
            if !matches {
                return Err(format!("{call}: event {g}, want {w}"));
            }
        }
    }
    Ok(())
}
