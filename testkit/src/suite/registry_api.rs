//! Registry requests through the client, on every transport: the sample
//! registry, an API on another https host (the token goes there, D9) and on
//! an http host (it does not), a redirect inside the API, and 404s.

#![allow(missing_docs)]

use std::time::Duration;

use tfdisco_core::{
    Dialect, Error, ErrorKind, ModuleSource, Platform, ProviderSource, StaticCredentials,
    TransportErrorKind,
};
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
            Some("1.12.6"),
            "{}",
            T::NAME
        );
    }
}

/// Answers discovery on `server` with a document naming `api` as
/// `providers.v1`.
fn providers_at(server: &TestServer, api: &str) {
    server.route(
        WELL_KNOWN,
        Reply::json(&format!(r#"{{"providers.v1": "{api}"}}"#)),
    );
}

/// A discovery document naming `api` as `providers.v1`, a versions answer
/// under it, and a client with a token for the server's host: the requests
/// the server saw after asking for `acme/widgets`'s versions.
fn versions_from_api<T: Subject>(server: &TestServer, api: &str) -> Vec<crate::Seen> {
    providers_at(server, api);
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
pub fn registry_calls_tell_their_observer<T: Subject>() {
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
    let calls = client.as_async();
    ok::<T, _>(client.wait(calls.provider_versions(&source).observe(&mut observer)));
    ok::<T, _>(client.wait(calls.module_versions(&consul).observe(&mut observer)));
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

/// What Terraform 1.11.4 sent and did, against a registry whose versions
/// answer is a 500 and then the document: discovery with its CLI's headers,
/// the versions request with the registry client's (no `Accept`), and the
/// second attempt 1 s after the first (RETRY-8, API-2, DISCO-3). On the
/// client's clock, so the tokio suite waits no real second.
pub fn registry_requests_as_terraform_makes_them<T: Subject>() {
    let server = TestServer::start();
    server.route(
        WELL_KNOWN,
        Reply::json(r#"{"providers.v1": "/v1/providers/"}"#),
    );
    server.route_each(
        "/v1/providers/ns/type/versions",
        [
            Reply::new(500),
            Reply::json(r#"{"versions": [{"version": "1.0.0"}]}"#),
        ],
    );
    let client = super::build_waiting::<T>(
        super::waiting_builder::<T>()
            .dialect(Dialect::Terraform)
            .cli_version("1.11.4")
            .append_user_agent("ci/1"),
    );
    let source = provider(&format!("{}/ns/type", server.host()));
    let mut reports = Vec::new();
    let versions = ok::<T, _>(
        client.wait(
            client
                .as_async()
                .provider_versions(&source)
                .observe(&mut super::record(&mut reports)),
        ),
    );
    assert_eq!(versions.versions.len(), 1);
    let seen = server.requests();
    assert_eq!(seen.len(), 3, "{}", T::NAME);
    assert_eq!(
        seen[0].header("user-agent"),
        Some("HashiCorp Terraform/1.11.4 (+https://www.terraform.io) ci/1")
    );
    assert_eq!(seen[0].header("accept"), Some("application/json"));
    assert_eq!(seen[0].header("x-terraform-version"), None);
    for registry in &seen[1..] {
        assert_eq!(registry.header("user-agent"), Some("Terraform/1.11.4 ci/1"));
        assert_eq!(registry.header("x-terraform-version"), Some("1.11.4"));
        assert_eq!(registry.header("accept"), None, "{}", T::NAME);
    }
    let attempts: Vec<_> = reports
        .iter()
        .filter(|r| r.goal == "provider versions")
        .collect();
    assert_eq!(attempts.len(), 2, "{}", T::NAME);
    let gap = attempts[1]
        .started
        .saturating_duration_since(attempts[0].started);
    assert!(
        gap >= Duration::from_secs(1) && gap < Duration::from_secs(2),
        "{}: the second attempt {gap:?} after the first",
        T::NAME
    );
}

/// OpenTofu's client: its own `User-Agent` on discovery and registry
/// requests alike.
pub fn registry_headers_as_opentofu_sends_them<T: Subject>() {
    let server = TestServer::start();
    sample::install(&server, sample::DOCUMENT.as_bytes());
    let client = build::<T>(builder::<T>().dialect(Dialect::OpenTofu));
    let host = hostname(&format!("127.0.0.1:{}", server.port()));
    ok::<T, _>(client.provider_versions(&provider(&format!("{host}/{}", sample::PROVIDER))));
    let seen = server.requests();
    let agents: Vec<_> = seen.iter().map(|s| s.header("user-agent")).collect();
    assert_eq!(agents, [Some("OpenTofu/1.12.6"), Some("OpenTofu/1.12.6")]);
    assert_eq!(seen[1].header("accept"), None, "{}", T::NAME);
    assert_eq!(seen[1].header("x-terraform-version"), Some("1.12.6"));
}

/// Static registries on object storage serve their answers as `text/plain`
/// or with no `Content-Type`: the CLIs read them (API-7), and so does every
/// transport; a discovery document is still refused unless it is JSON.
pub fn registry_answers_of_any_content_type<T: Subject>() {
    let server = TestServer::start();
    server.route(
        WELL_KNOWN,
        Reply::json(r#"{"providers.v1": "/v1/providers/", "modules.v1": "/v1/modules/"}"#),
    );
    server.route(
        "/v1/providers/ns/type/versions",
        Reply::new(200)
            .header("Content-Type", "text/plain")
            .body(br#"{"versions": [{"version": "1.0.0"}]}"#),
    );
    server.route(
        "/v1/modules/ns/name/system/versions",
        Reply::new(200).body(br#"{"modules": [{"versions": [{"version": "2.0.0"}]}]}"#),
    );
    let client = build::<T>(builder::<T>());
    let host = hostname(&format!("127.0.0.1:{}", server.port()));
    let versions = ok::<T, _>(client.provider_versions(&provider(&format!("{host}/ns/type"))));
    assert_eq!(versions.versions[0].version, "1.0.0", "{}", T::NAME);
    let modules = ok::<T, _>(client.module_versions(&module(&format!("{host}/ns/name/system"))));
    assert_eq!(modules.versions, ["2.0.0"], "{}", T::NAME);
}

/// `source`'s versions asked of `client`, which fail with a TLS error;
/// the error and what went wrong in each attempt, as its report says.
fn failed_attempts<T: Subject>(
    client: &super::WaitingClient<T>,
    source: &ProviderSource,
) -> (Error, Vec<Option<TransportErrorKind>>) {
    let mut reports = Vec::new();
    let e = failed::<T, _>(
        client.wait(
            client
                .as_async()
                .provider_versions(source)
                .observe(&mut super::record(&mut reports)),
        ),
        ErrorKind::Tls,
    );
    let attempts = reports
        .iter()
        .filter(|r| r.goal == "provider versions")
        .map(|r| r.error.as_ref().map(|e| e.kind()))
        .collect();
    (e, attempts)
}

/// A registry API that does not speak TLS where https is asked fails its
/// handshake: the registry clients retry that (RETRY-8), as not a refused
/// certificate, which a registry on an untrusted certificate shows.
pub fn a_failed_handshake_is_retried_a_refused_certificate_is_not<T: Subject>() {
    let server = TestServer::start();
    let plain = format!("https://127.0.0.1:{}/api/providers/", server.http_port());
    providers_at(&server, &plain);
    let client = super::build_waiting::<T>(super::waiting_builder::<T>());
    let source = provider(&format!("{}/ns/type", server.host()));
    let (e, attempts) = failed_attempts::<T>(&client, &source);
    assert_eq!(
        attempts,
        [Some(TransportErrorKind::Tls), Some(TransportErrorKind::Tls)],
        "{}: {e}",
        T::NAME
    );

    let untrusted = TestServer::with_cert(crate::Cert::Untrusted);
    untrusted.route(WELL_KNOWN, Reply::json("{}"));
    let api = format!("https://localhost:{}/api/providers/", untrusted.port());
    providers_at(&server, &api);
    client.cache().forget_all();
    let (_, attempts) = failed_attempts::<T>(&client, &source);
    assert_eq!(
        attempts,
        [Some(TransportErrorKind::Certificate)],
        "{}",
        T::NAME
    );
}

/// A download location `init` would refuse (`?archive=zip`: no getter
/// detects it) fails the request, in Terraform's words, on every transport;
/// one it accepts comes back parsed (PKG-1, PKG-4).
pub fn a_location_init_would_refuse_is_an_error<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    server.route(
        "/m/ns/name/system/1.0.0/download",
        Reply::new(204).header("X-Terraform-Get", "?archive=zip"),
    );
    server.route(
        "/m/ns/name/system/2.0.0/download",
        Reply::new(204).header(
            "X-Terraform-Get",
            "git::https://example.com/vpc.git//modules/vpc?ref=v2.0.0",
        ),
    );
    let client = build::<T>(builder::<T>().dialect(Dialect::Terraform));
    let source = module(&format!("127.0.0.1:{}/ns/name/system", server.port()));
    let e = failed::<T, _>(
        client.module_download(&source, "1.0.0"),
        ErrorKind::InvalidResponse,
    );
    assert!(
        e.to_string()
            .contains("cannot detect a supported external module source type for ?archive=zip"),
        "{}: {e}",
        T::NAME
    );
    let location = ok::<T, _>(client.module_download(&source, "2.0.0"));
    let package = location.package.expect("a go-getter address");
    assert_eq!(package.subdir(), "modules/vpc", "{}", T::NAME);
    assert_eq!(package.revision(), Some("v2.0.0"));
}

/// A file a registry names is downloaded as it streams in, whole and in
/// order, without a token, through a redirect (DL-1, DL-2).
pub fn a_download_streams_into_its_sink<T: Subject>() {
    use tfdisco_core::url::Url;
    use tfdisco_core::{Contents, Sink};

    /// Counts and checksums what it is given, keeping nothing.
    #[derive(Default)]
    struct Fold {
        bytes: u64,
        sum: u64,
    }
    impl Sink for Fold {
        type Output = (u64, u64);
        fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
            self.bytes += chunk.len() as u64;
            for &b in chunk {
                self.sum = self.sum.wrapping_mul(31).wrapping_add(u64::from(b));
            }
            Ok(())
        }
        fn finish(&mut self) -> Result<(u64, u64), String> {
            Ok((self.bytes, self.sum))
        }
    }

    let server = TestServer::start();
    let block: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    server.route(
        "/dl/archive.zip",
        Reply::new(200)
            .header("Content-Type", "application/zip")
            .repeat(&block, 64),
    );
    server.route("/dl/moved", Reply::redirect(302, "/dl/archive.zip"));
    server.route(
        "/dl/SHA256SUMS",
        Reply::new(200).body(b"abc  archive.zip\n"),
    );
    let client = build::<T>(
        builder::<T>().credentials(StaticCredentials::new().with(server.host(), token("never"))),
    );
    let url = |path: &str| Url::parse(&server.url(path)).expect("a URL");
    let (bytes, sum) =
        ok::<T, _>(client.download(url("/dl/moved"), Fold::default(), &server.host()));
    let mut want = Fold::default();
    for _ in 0..64 {
        want.write(&block).expect("folds");
    }
    assert_eq!((bytes, sum), (want.bytes, want.sum), "{}", T::NAME);
    let sums =
        ok::<T, _>(client.download(url("/dl/SHA256SUMS"), Contents::default(), &server.host()));
    assert_eq!(sums, b"abc  archive.zip\n");
    for seen in server.requests() {
        assert_eq!(seen.authorization(), None, "{}: DL-1", T::NAME);
    }
}
