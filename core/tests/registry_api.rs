//! Registry requests through the machine, without sockets: every response
//! shape and error, URLs resolved as Terraform resolves them, headers and
//! credentials (docs/behaviour.md, API-1 to API-12, D9).

mod common;

use std::time::{Duration, Instant};

use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Credentials, Dialect, Error, ErrorKind, Hostname, ModuleSource, Platform,
    ProviderSource, Services, Transfer,
};

use common::{Net, Reply};

const TOKEN: &str = "registry-token-1";

fn services(dialect: Dialect, document: &str) -> Services {
    Services::from_json(
        Hostname::parse("example.com").expect("valid"),
        Url::parse("https://example.com/.well-known/terraform.json").expect("valid"),
        dialect,
        document.as_bytes(),
    )
    .expect("a valid document")
}

fn provider(text: &str, dialect: Dialect) -> ProviderSource {
    ProviderSource::parse(text, dialect).expect("a valid provider source")
}

fn module(text: &str, dialect: Dialect) -> ModuleSource {
    ModuleSource::parse(text, dialect).expect("a valid module source")
}

fn token() -> Option<Credentials> {
    Some(Credentials::token(TOKEN).expect("a valid token"))
}

const VERSIONS: &str = r#"{"id": "x", "versions": [
    {"version": "2.0.0", "protocols": ["5.0", "6.0"], "platforms": [{"os": "linux", "arch": "amd64"}, {"os": "darwin", "arch": "arm64"}]},
    {"version": "1.0.0", "protocols": ["5.0"], "platforms": []}
], "warnings": ["this provider moved"]}"#;

fn package(os: &str, arch: &str, protocols: &str, shasum: &str, download: &str) -> String {
    format!(
        r#"{{"protocols": {protocols}, "os": "{os}", "arch": "{arch}", "filename": "p.zip",
        "download_url": "{download}", "shasums_url": "SHA256SUMS",
        "shasums_signature_url": "/sums/SHA256SUMS.sig", "shasum": "{shasum}",
        "signing_keys": {{"gpg_public_keys": [{{"key_id": "ABC", "ascii_armor": "---key---"}}]}}}}"#
    )
}

const SHASUM: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn provider_versions(
    net: &mut Net,
    document: &str,
    source: &str,
    dialect: Dialect,
) -> Result<tfdisco_core::ProviderVersions, Error> {
    let config = Config::new(dialect);
    let transfer = Transfer::provider_versions(
        &services(dialect, document),
        &provider(source, dialect),
        &config,
        token(),
        net.now(),
    );
    net.run(transfer)
}

#[test]
fn provider_base_without_a_slash_loses_its_last_segment_as_in_terraform() {
    let mut net = Net::new();
    net.on(
        "https://example.com/v1/hashicorp/aws/versions",
        Reply::json(VERSIONS),
    );
    let answer = provider_versions(
        &mut net,
        r#"{"providers.v1": "/v1/providers"}"#,
        "example.com/hashicorp/aws",
        Dialect::OpenTofu,
    )
    .expect("versions");
    assert_eq!(
        answer.url.as_str(),
        "https://example.com/v1/hashicorp/aws/versions"
    );
    assert_eq!(answer.versions.len(), 2);
    assert_eq!(answer.versions[0].protocols, ["5.0", "6.0"]);
    assert_eq!(answer.versions[0].platforms[1].to_string(), "darwin_arm64");
    assert_eq!(answer.warnings, ["this provider moved"]);
}

#[test]
fn provider_versions_headers_and_credentials_on_another_https_host() {
    let mut net = Net::new();
    net.on(
        "https://api.example.net/v1/providers/hashicorp/aws/versions",
        Reply::json(VERSIONS),
    );
    provider_versions(
        &mut net,
        r#"{"providers.v1": "https://api.example.net/v1/providers/?x=1#f"}"#,
        "example.com/hashicorp/aws",
        Dialect::Terraform,
    )
    .expect("versions");
    let seen = &net.seen[0];
    // D9: the source host's token goes to the endpoint its document names.
    assert_eq!(
        seen.authorization(),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    // API-2: the CLI's registry headers, and no Accept (the registry
    // clients send none).
    assert_eq!(seen.headers["x-terraform-version"], "1.15.9");
    assert!(!seen.headers.contains_key("accept"), "{:?}", seen.headers);
    assert_eq!(seen.headers["user-agent"], "Terraform/1.15.9");
}

#[test]
fn the_cli_user_agent_keeps_appended_text_and_a_chosen_one_stays() {
    let disco = services(Dialect::OpenTofu, r#"{"modules.v1": "/m/"}"#);
    let source = module("example.com/a/b/c", Dialect::OpenTofu);
    for (config, want) in [
        (Config::default(), "OpenTofu/1.12.6"),
        (
            Config::default()
                .with_appended_user_agent("ci/7")
                .expect("valid"),
            "OpenTofu/1.12.6 ci/7",
        ),
        (
            Config::default()
                .with_user_agent("mirror/2")
                .expect("valid"),
            "mirror/2",
        ),
        (
            Config::default().with_cli_version("1.9.0").expect("valid"),
            "OpenTofu/1.9.0",
        ),
    ] {
        let mut net = Net::new();
        net.on("https://example.com/m/a/b/c/versions", Reply::new(404));
        let transfer = Transfer::module_versions(&disco, &source, &config, None, net.now());
        let _ = net.run(transfer);
        assert_eq!(net.seen[0].headers["user-agent"], want);
    }
}

#[test]
fn no_credentials_to_a_plain_http_endpoint() {
    let mut net = Net::new();
    net.on(
        "http://api.example.net/v1/providers/hashicorp/aws/versions",
        Reply::json(VERSIONS),
    );
    provider_versions(
        &mut net,
        r#"{"providers.v1": "http://api.example.net/v1/providers/"}"#,
        "example.com/hashicorp/aws",
        Dialect::OpenTofu,
    )
    .expect("versions");
    assert_eq!(net.seen[0].authorization(), None);
    assert_eq!(net.seen[0].headers["x-terraform-version"], "1.12.6");
}

#[test]
fn a_redirect_to_another_host_drops_the_token() {
    let mut net = Net::new();
    net.on(
        "https://example.com/v1/providers/hashicorp/aws/versions",
        Reply::redirect(302, "https://mirror.example.org/aws/versions"),
    );
    net.on(
        "https://mirror.example.org/aws/versions",
        Reply::json(VERSIONS),
    );
    let answer = provider_versions(
        &mut net,
        r#"{"providers.v1": "/v1/providers/"}"#,
        "example.com/hashicorp/aws",
        Dialect::OpenTofu,
    )
    .expect("versions");
    assert_eq!(
        answer.url.as_str(),
        "https://mirror.example.org/aws/versions"
    );
    assert!(net.seen[0].authorization().is_some());
    assert_eq!(net.seen[1].authorization(), None);
}

#[test]
fn bad_versions_skipped_by_terraform_refused_by_opentofu() {
    let document = r#"{"versions": [{"version": "1.0.0"}, {"version": "banana"}]}"#;
    let url = "https://example.com/v1/providers/hashicorp/aws/versions";
    let disco = r#"{"providers.v1": "/v1/providers/"}"#;
    let mut net = Net::new();
    net.on(url, Reply::json(document));
    let answer = provider_versions(
        &mut net,
        disco,
        "example.com/hashicorp/aws",
        Dialect::Terraform,
    )
    .expect("Terraform skips what does not parse");
    assert_eq!(answer.versions.len(), 1);
    let mut net = Net::new();
    net.on(url, Reply::json(document));
    let error = provider_versions(
        &mut net,
        disco,
        "example.com/hashicorp/aws",
        Dialect::OpenTofu,
    )
    .expect_err("OpenTofu refuses it");
    assert_eq!(error.kind(), ErrorKind::InvalidResponse);
    assert!(error.to_string().contains("\"banana\""), "{error}");
}

#[test]
fn not_found_and_not_a_registry_are_different_errors() {
    let mut net = Net::new();
    net.on(
        "https://example.com/v1/providers/hashicorp/nope/versions",
        Reply::new(404),
    );
    let error = provider_versions(
        &mut net,
        r#"{"providers.v1": "/v1/providers/"}"#,
        "example.com/hashicorp/nope",
        Dialect::OpenTofu,
    )
    .expect_err("404");
    assert_eq!(error.kind(), ErrorKind::NotFound);
    assert_eq!(
        error.to_string(),
        "provider registry example.com does not have a provider named example.com/hashicorp/nope \
         (GET https://example.com/v1/providers/hashicorp/nope/versions)"
    );

    let mut net = Net::new();
    let error = provider_versions(
        &mut net,
        r#"{"modules.v1": "/v1/modules/"}"#,
        "example.com/hashicorp/aws",
        Dialect::OpenTofu,
    )
    .expect_err("no providers.v1");
    assert_eq!(error.kind(), ErrorKind::ServiceNotProvided);
    assert_eq!(
        error.to_string(),
        "host example.com does not provide a providers service"
    );
    assert!(net.seen.is_empty(), "nothing is requested");
}

#[test]
fn failures_name_the_request_and_follow_the_registry_retry_policy() {
    let mut net = Net::new();
    net.on(
        "https://example.com/v1/providers/hashicorp/aws/versions",
        Reply::new(503),
    );
    let error = provider_versions(
        &mut net,
        r#"{"providers.v1": "/v1/providers/"}"#,
        "example.com/hashicorp/aws",
        Dialect::Terraform,
    )
    .expect_err("503 forever");
    // RETRY-8: the registry clients' two attempts, 1 s apart, not
    // discovery's four.
    assert_eq!(net.seen.len(), 2, "{:?}", net.seen);
    assert_eq!(net.seen[1].at - net.seen[0].at, Duration::from_secs(1));
    assert_eq!(error.kind(), ErrorKind::Status);
    assert_eq!(
        error.to_string(),
        "failed to request provider versions: 503 Service Unavailable \
         (GET https://example.com/v1/providers/hashicorp/aws/versions) (gave up after 2 attempts)"
    );
}

#[test]
fn unqualified_sources_and_bad_arguments_send_nothing() {
    let disco = services(Dialect::OpenTofu, r#"{"providers.v1": "/v1/providers/"}"#);
    let config = Config::default();
    let now = Instant::now();
    let bare = provider("aws", Dialect::OpenTofu);
    // Nothing is sent: the transfer does not start (a StartError, not a
    // transfer that fails).
    let error =
        Transfer::provider_versions(&disco, &bare, &config, None, now).expect_err("a bare type");
    assert_eq!(error.kind(), ErrorKind::InvalidSource);
    let net = Net::new();
    let aws = provider("example.com/hashicorp/aws", Dialect::OpenTofu);
    let linux = Platform::parse("linux_amd64").expect("valid");
    for (version, platform) in [("1.0", linux.clone()), ("1.0.0/../x", linux)] {
        let error =
            Transfer::provider_package(&disco, &aws, version, &platform, &config, None, now)
                .expect_err("a bad version");
        assert_eq!(error.kind(), ErrorKind::InvalidArgument, "{version}");
    }
    // The message quotes the input as given.
    for given in ["linux", "linuxamd64_", "Linux_amd64"] {
        let message = Platform::parse(given).expect_err("invalid").to_string();
        assert!(
            message.starts_with(&format!("invalid platform {given:?}: ")),
            "{message}"
        );
    }
    assert!(Platform::parse("linux_amd64/x").is_err());
    assert!(net.seen.is_empty());
}

fn provider_package(
    net: &mut Net,
    body: Reply,
    redirect: bool,
) -> Result<tfdisco_core::ProviderPackage, Error> {
    let first = "https://example.com/v1/providers/hashicorp/aws/2.0.0/download/linux/amd64";
    if redirect {
        net.on(
            first,
            Reply::redirect(301, "https://cdn.example.org/meta/aws/linux"),
        );
        net.on("https://cdn.example.org/meta/aws/linux", body);
    } else {
        net.on(first, body);
    }
    let transfer = Transfer::provider_package(
        &services(Dialect::OpenTofu, r#"{"providers.v1": "/v1/providers/"}"#),
        &provider("example.com/hashicorp/aws", Dialect::OpenTofu),
        "2.0.0",
        &Platform::parse("linux_amd64").expect("valid"),
        &Config::default(),
        token(),
        net.now(),
    );
    net.run(transfer)
}

#[test]
fn package_urls_resolve_against_the_final_url() {
    let mut net = Net::new();
    let body = package("linux", "amd64", r#"["5.0"]"#, SHASUM, "../files/p.zip");
    let p = provider_package(&mut net, Reply::json(&body), true).expect("a package");
    assert_eq!(
        p.download_url.as_str(),
        "https://cdn.example.org/meta/files/p.zip"
    );
    assert_eq!(
        p.shasums_url.as_str(),
        "https://cdn.example.org/meta/aws/SHA256SUMS"
    );
    assert_eq!(
        p.shasums_signature_url.as_str(),
        "https://cdn.example.org/sums/SHA256SUMS.sig"
    );
    assert_eq!(p.shasum, SHASUM);
    assert_eq!(p.signing_keys[0].key_id, "ABC");
    assert_eq!(p.platform.to_string(), "linux_amd64");
}

#[test]
fn package_answers_that_cannot_be_used() {
    for (body, want) in [
        (
            package("darwin", "amd64", r#"["5.0"]"#, SHASUM, "p.zip"),
            "answered for darwin_amd64",
        ),
        (
            package("linux", "amd64", r#"["4.0"]"#, SHASUM, "p.zip"),
            "protocol 5 or 6",
        ),
        (
            package("linux", "amd64", "[]", SHASUM, "p.zip"),
            "protocol 5 or 6",
        ),
        (
            package("linux", "amd64", r#"["6"]"#, "abc", "p.zip"),
            "64 hex digits",
        ),
        (
            package("linux", "amd64", r#"["5.0"]"#, SHASUM, "ftp://x/p.zip"),
            "only http and https",
        ),
    ] {
        let mut net = Net::new();
        let error = provider_package(&mut net, Reply::json(&body), false).expect_err(want);
        assert_eq!(error.kind(), ErrorKind::InvalidResponse, "{want}");
        assert!(error.to_string().contains(want), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("invalid provider package response from"),
            "{error}"
        );
    }
    let mut net = Net::new();
    let error = provider_package(&mut net, Reply::json(r#"{"os": "linux"}"#), false)
        .expect_err("fields missing");
    assert_eq!(error.kind(), ErrorKind::Json);
    let mut net = Net::new();
    let error = provider_package(&mut net, Reply::new(404), false).expect_err("404");
    assert_eq!(error.kind(), ErrorKind::NotFound);
    assert!(
        error.to_string().starts_with(
            "provider example.com/hashicorp/aws 2.0.0 is not available for linux_amd64"
        )
    );
}

#[test]
fn module_versions_add_the_trailing_slash_and_keep_case() {
    let mut net = Net::new();
    net.on(
        "https://example.com/api/modules/Acme/VPC/aws/versions",
        Reply::json(r#"{"modules": [{"versions": [{"version": "1.0.0"}, {"version": "1.1.0"}]}, {"versions": [{"version": "9.9.9"}]}]}"#),
    );
    let transfer = Transfer::module_versions(
        &services(Dialect::Terraform, r#"{"modules.v1": "/api/modules?q=1"}"#),
        &module("example.com/Acme/VPC/aws//sub", Dialect::Terraform),
        &Config::new(Dialect::Terraform),
        token(),
        net.now(),
    );
    let answer = net.run(transfer).expect("versions");
    assert_eq!(answer.versions, ["1.0.0", "1.1.0"], "the first module only");
    assert_eq!(net.seen[0].headers["x-terraform-version"], "1.15.9");
}

#[test]
fn module_versions_errors() {
    for (reply, kind) in [
        (
            Reply::json(r#"{"modules": []}"#),
            ErrorKind::InvalidResponse,
        ),
        (Reply::new(404), ErrorKind::NotFound),
        (Reply::new(403), ErrorKind::Status),
        (Reply::json(r#"{"modules": "x"}"#), ErrorKind::Json),
    ] {
        let mut net = Net::new();
        net.on("https://example.com/m/a/b/c/versions", reply);
        let transfer = Transfer::module_versions(
            &services(Dialect::OpenTofu, r#"{"modules.v1": "/m/"}"#),
            &module("example.com/a/b/c", Dialect::OpenTofu),
            &Config::default(),
            None,
            net.now(),
        );
        let error = net.run(transfer).expect_err("an error");
        assert_eq!(error.kind(), kind, "{error}");
    }
}

fn module_download(
    net: &mut Net,
    dialect: Dialect,
    reply: Reply,
) -> Result<tfdisco_core::ModuleLocation, Error> {
    let first = "https://example.com/m/a/b/c/1.0.0/download";
    net.on(
        first,
        Reply::redirect(307, "https://other.example.com/dl/a/b/c"),
    );
    net.on("https://other.example.com/dl/a/b/c", reply);
    let transfer = Transfer::module_download(
        &services(dialect, r#"{"modules.v1": "/m/"}"#),
        &module("example.com/a/b/c", dialect),
        "1.0.0",
        &Config::new(dialect),
        None,
        net.now(),
    );
    net.run(transfer)
}

#[test]
fn module_download_locations() {
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let mut net = Net::new();
        let got = module_download(
            &mut net,
            dialect,
            Reply::new(204).header("X-Terraform-Get", "git::https://g/x?ref=1"),
        )
        .expect("a location");
        assert_eq!(got.location, "git::https://g/x?ref=1");
        assert_eq!(got.use_registry_credentials, None);
        // Relative locations resolve against the request URL before redirects.
        let mut net = Net::new();
        let got = module_download(
            &mut net,
            dialect,
            Reply::new(204).header("X-Terraform-Get", "./pkg.zip"),
        )
        .expect("a location");
        assert_eq!(got.location, "https://example.com/m/a/b/c/1.0.0/pkg.zip");
        let mut net = Net::new();
        let error = module_download(&mut net, dialect, Reply::new(204)).expect_err("no header");
        assert_eq!(error.kind(), ErrorKind::InvalidResponse);
        let mut net = Net::new();
        let error = module_download(&mut net, dialect, Reply::new(404)).expect_err("404");
        assert_eq!(error.kind(), ErrorKind::NotFound);
    }
    // Terraform takes the header of a 200 and ignores its body.
    let mut net = Net::new();
    let got = module_download(
        &mut net,
        Dialect::Terraform,
        Reply::new(200)
            .header("X-Terraform-Get", "s3::https://b/x.zip")
            .body(b"not json"),
    )
    .expect("a location");
    assert_eq!(got.location, "s3::https://b/x.zip");
}

#[test]
fn opentofu_reads_the_location_from_a_200_body() {
    let mut net = Net::new();
    let got = module_download(
        &mut net,
        Dialect::OpenTofu,
        Reply::json(
            r#"{"location": "https://pkgs.example.com/a.zip", "use_registry_credentials": true}"#,
        ),
    )
    .expect("a direct location");
    assert_eq!(got.location, "https://pkgs.example.com/a.zip");
    assert_eq!(got.use_registry_credentials, Some(true));

    let mut net = Net::new();
    let got = module_download(
        &mut net,
        Dialect::OpenTofu,
        Reply::json("{}").header("X-Terraform-Get", "git::https://g/y"),
    )
    .expect("the header when the body has none");
    assert_eq!(got.location, "git::https://g/y");

    for body in [
        r#"{"location": "git::https://g/y", "use_registry_credentials": false}"#,
        r#"{"location": "https://p/a.zip#frag", "use_registry_credentials": true}"#,
        r#"{"foo": "bar"}"#,
    ] {
        let mut net = Net::new();
        let error =
            module_download(&mut net, Dialect::OpenTofu, Reply::json(body)).expect_err(body);
        assert_eq!(error.kind(), ErrorKind::InvalidResponse, "{body}: {error}");
    }
}

#[test]
fn registry_documents_may_pass_the_discovery_limit() {
    let entry = r#"{"version": "1.0.0", "protocols": ["5.0"], "platforms": [{"os": "linux", "arch": "amd64"}]}"#;
    let big = format!(r#"{{"versions": [{}]}}"#, vec![entry; 30_000].join(","));
    assert!(big.len() > 2 * 1024 * 1024);
    let mut net = Net::new();
    net.on(
        "https://example.com/v1/providers/hashicorp/aws/versions",
        Reply::json(&big),
    );
    let answer = provider_versions(
        &mut net,
        r#"{"providers.v1": "/v1/providers/"}"#,
        "example.com/hashicorp/aws",
        Dialect::OpenTofu,
    )
    .expect("within the registry limit");
    assert_eq!(answer.versions.len(), 30_000);

    let config = Config::default().with_registry_body_limit(1024);
    let transfer = Transfer::provider_versions(
        &services(Dialect::OpenTofu, r#"{"providers.v1": "/v1/providers/"}"#),
        &provider("example.com/hashicorp/aws", Dialect::OpenTofu),
        &config,
        None,
        net.now(),
    );
    let error = net.run(transfer).expect_err("over the limit");
    assert_eq!(error.kind(), ErrorKind::TooLarge);
    assert!(
        error
            .to_string()
            .starts_with("provider versions response from"),
        "{error}"
    );
}
