//! Registry requests through the client, on every transport: the sample
//! registry, an API on another https host (the token goes there, D9) and on
//! an http host (it does not), a redirect inside the API, and 404s.

use tfdisco_core::{Error, ErrorKind, ModuleSource, Platform, ProviderSource, StaticCredentials};
use tfdisco_transport::Event;

use super::credentials::FailingSource;
use super::{Subject, WELL_KNOWN, assert_paths, bearer, build, builder, hostname, token};
use crate::{Reply, TestServer, sample};

#[track_caller]
fn ok<T: Subject, V>(result: Result<V, Error>) -> V {
    result.unwrap_or_else(|e| panic!("{}: expected an answer, got {e} ({e:?})", T::NAME))
}

#[track_caller]
fn failed<T: Subject, V: std::fmt::Debug>(result: Result<V, Error>, kind: ErrorKind) -> Error {
    match result {
        Err(e) if e.kind() == kind => e,
        other => panic!("{}: expected a {kind} error, got {other:?}", T::NAME),
    }
}

fn provider(text: &str) -> ProviderSource {
    ProviderSource::parse(text, Default::default()).expect("a valid provider source")
}

fn module(text: &str) -> ModuleSource {
    ModuleSource::parse(text, Default::default()).expect("a valid module source")
}

pub fn sample_registry_from_source_to_package<T: Subject>() {
    let server = TestServer::start();
    sample::install(&server, sample::DOCUMENT.as_bytes());
    // Module registry hosts need a dot: reach the server by address.
    let host = hostname(&format!("127.0.0.1:{}", server.port()));
    let client = build::<T>(
        builder::<T>().credentials(StaticCredentials::new().with(host.clone(), token("registry"))),
    );
    let source = provider(&format!("{host}/{}", sample::PROVIDER));
    let versions = ok::<T, _>(client.provider_versions(&source));
    let listed: Vec<&str> = versions
        .versions
        .iter()
        .map(|v| v.version.as_str())
        .collect();
    assert_eq!(listed, sample::PROVIDER_VERSIONS, "{}", T::NAME);
    let linux = Platform::parse("linux_amd64").expect("valid");
    let package = ok::<T, _>(client.provider_package(&source, "3.6.0", &linux));
    assert_eq!(
        package.download_url.as_str(),
        format!(
            "https://{host}/downloads/random/3.6.0/terraform-provider-random_3.6.0_linux_amd64.zip"
        )
    );
    assert_eq!(package.shasum, sample::SHASUM);
    let consul = module(&format!("{host}/{}", sample::MODULE));
    let modules = ok::<T, _>(client.module_versions(&consul));
    assert_eq!(modules.versions, sample::MODULE_VERSIONS, "{}", T::NAME);
    let location = ok::<T, _>(client.module_download(&consul, "0.12.1"));
    assert_eq!(
        location.location,
        "git::https://github.com/hashicorp/terraform-aws-consul?ref=v0.12.1"
    );
    // One discovery, cached, then one request per answer, each with the
    // token and the CLI version.
    assert_paths::<T>(
        &server,
        &[
            WELL_KNOWN,
            "/v1/providers/hashicorp/random/versions",
            "/v1/providers/hashicorp/random/3.6.0/download/linux/amd64",
            "/v1/modules/hashicorp/consul/aws/versions",
            "/v1/modules/hashicorp/consul/aws/0.12.1/download",
        ],
    );
    for seen in &server.requests()[1..] {
        assert_eq!(
            seen.authorization(),
            Some(bearer("registry").as_str()),
            "{}",
            T::NAME
        );
        assert_eq!(
            seen.header("x-terraform-version"),
            Some("1.10.6"),
            "{}",
            T::NAME
        );
    }
}

/// A discovery document naming `api` as `providers.v1`, a versions answer
/// under it, and a client with a token for the server's host: the requests
/// the server saw after asking for `acme/widgets`'s versions.
fn versions_from_api<T: Subject>(server: &TestServer, api: &str) -> Vec<crate::Seen> {
    server.route(
        WELL_KNOWN,
        Reply::json(&format!(r#"{{"providers.v1": "{api}"}}"#)),
    );
    server.route(
        "/api/providers/acme/widgets/versions",
        Reply::json(r#"{"versions": [{"version": "1.0.0"}]}"#),
    );
    let client = build::<T>(
        builder::<T>()
            .credentials(StaticCredentials::new().with(server.host(), token("source-host"))),
    );
    let source = provider(&format!("{}/acme/widgets", server.host()));
    let versions = ok::<T, _>(client.provider_versions(&source));
    assert_eq!(versions.url.as_str(), format!("{api}acme/widgets/versions"));
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "{}", T::NAME);
    seen
}

pub fn registry_api_on_another_https_host_gets_the_token<T: Subject>() {
    let server = TestServer::start();
    let api = format!("https://127.0.0.1:{}/api/providers/", server.other_port());
    let seen = versions_from_api::<T>(&server, &api);
    assert_eq!(
        seen[1].host(),
        Some(format!("127.0.0.1:{}", server.other_port()).as_str())
    );
    assert_eq!(
        seen[1].authorization(),
        Some(bearer("source-host").as_str()),
        "{}",
        T::NAME
    );
}

pub fn registry_api_on_plain_http_gets_no_token<T: Subject>() {
    let server = TestServer::start();
    let api = format!("http://localhost:{}/api/providers/", server.http_port());
    let seen = versions_from_api::<T>(&server, &api);
    assert!(seen[0].authorization().is_some(), "discovery is https");
    assert_eq!(
        seen[1].authorization(),
        None,
        "{}: D9, never over http",
        T::NAME
    );
}

pub fn redirect_inside_the_registry_api<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/modules/"}"#));
    server.route(
        "/modules/acme/vpc/aws/1.0.0/download",
        Reply::redirect(302, "/elsewhere/vpc"),
    );
    server.route(
        "/elsewhere/vpc",
        Reply::new(204).header("X-Terraform-Get", "./vpc.tar.gz"),
    );
    let host = hostname(&format!("127.0.0.1:{}", server.port()));
    let client = build::<T>(builder::<T>());
    let location =
        ok::<T, _>(client.module_download(&module(&format!("{host}/acme/vpc/aws")), "1.0.0"));
    // Relative to the request before the redirect, as Terraform resolves it.
    assert_eq!(
        location.location,
        format!("https://{host}/modules/acme/vpc/aws/1.0.0/vpc.tar.gz")
    );
    assert_paths::<T>(
        &server,
        &[
            WELL_KNOWN,
            "/modules/acme/vpc/aws/1.0.0/download",
            "/elsewhere/vpc",
        ],
    );
}

pub fn registry_not_found_and_not_a_registry<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"providers.v1": "/p/"}"#));
    server.route("/p/acme/gone/versions", Reply::new(404));
    let host = hostname(&format!("127.0.0.1:{}", server.port()));
    let client = build::<T>(builder::<T>());
    let e = failed::<T, _>(
        client.provider_versions(&provider(&format!("{host}/acme/gone"))),
        ErrorKind::NotFound,
    );
    assert!(
        e.to_string().contains("does not have a provider named"),
        "{e}"
    );
    let e = failed::<T, _>(
        client.module_versions(&module(&format!("{host}/acme/vpc/aws"))),
        ErrorKind::ServiceNotProvided,
    );
    assert!(
        e.to_string().contains("does not provide a modules service"),
        "{e}"
    );
    assert_paths::<T>(&server, &[WELL_KNOWN, "/p/acme/gone/versions"]);
}

/// Registry calls are observed as discovery is: the discovery's exchanges
/// when one is made, the request's, and each failed credentials lookup
/// (CRED-3: the request then goes without a token).
pub fn registry_calls_are_observed<T: Subject>() {
    let server = TestServer::start();
    sample::install(&server, sample::DOCUMENT.as_bytes());
    let host = hostname(&format!("127.0.0.1:{}", server.port()));
    let client = build::<T>(builder::<T>().credentials(FailingSource));
    let source = provider(&format!("{host}/{}", sample::PROVIDER));
    let consul = module(&format!("{host}/{}", sample::MODULE));
    let mut events = Vec::new();
    let mut observer = |event: &Event<'_>| {
        events.push(match event {
            Event::Exchange(report) => format!("{} {}", report.goal, report.url.path()),
            Event::CredentialsFailed { host, .. } => format!("no credentials for {host}"),
            other => format!("{other:?}"),
        });
    };
    ok::<T, _>(client.provider_versions_observed(&source, Some(&mut observer)));
    ok::<T, _>(client.module_versions_observed(&consul, Some(&mut observer)));
    let failed = format!("no credentials for {host}");
    assert_eq!(
        events,
        [
            failed.as_str(),
            "discovery /.well-known/terraform.json",
            failed.as_str(),
            "provider versions /v1/providers/hashicorp/random/versions",
            // The discovery is cached now: only the request's lookup.
            failed.as_str(),
            "module versions /v1/modules/hashicorp/consul/aws/versions",
        ],
        "{}",
        T::NAME
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|seen| seen.authorization().is_none()),
        "{}: no request carried a token",
        T::NAME
    );
}
