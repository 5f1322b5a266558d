//! `tfdisco provider …`, `tfdisco module …` and `tfdisco completions`
//! against the sample registry on the loopback test server: JSON shapes,
//! human output, exit codes.

mod common;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::{Reply, TestServer, sample};

fn sample_server() -> TestServer {
    let s = TestServer::start();
    sample::install(&s, sample::DOCUMENT.as_bytes());
    s
}

/// Module registry hosts need a dot: the server by address.
fn host(server: &TestServer) -> String {
    format!("127.0.0.1:{}", server.port())
}

fn run(args: &[&str]) -> Run {
    let home = tempfile::tempdir().expect("temp dir");
    let ca = ca_file();
    let mut all = args.to_vec();
    all.extend_from_slice(&["--ca-file", ca.as_str()]);
    tfdisco(home.path(), &[], &all)
}

#[test]
fn provider_versions_json() {
    let s = sample_server();
    let source = format!("{}/{}", host(&s), sample::PROVIDER);
    let r = run(&["provider", "versions", &source, "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["source"], source);
    assert_eq!(
        v["versions_url"],
        format!(
            "https://{}/v1/providers/hashicorp/random/versions",
            host(&s)
        )
    );
    assert_eq!(v["versions"][1]["version"], "3.6.0");
    assert_eq!(v["versions"][1]["protocols"][0], "5.0");
    assert_eq!(
        v["versions"][1]["platforms"][0],
        serde_json::json!({"os": "linux", "arch": "amd64"})
    );
}

#[test]
fn provider_package_json_and_human() {
    let s = sample_server();
    let source = format!("{}/{}", host(&s), sample::PROVIDER);
    let r = run(&[
        "provider",
        "package",
        &source,
        "3.6.0",
        "darwin_arm64",
        "--json",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v = r.json();
    let keys: Vec<&str> = v
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = vec![
        "source",
        "version",
        "os",
        "arch",
        "filename",
        "download_url",
        "shasums_url",
        "shasums_signature_url",
        "shasum",
        "protocols",
        "signing_keys",
    ];
    want.sort_unstable();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(keys, want);
    assert_eq!(v["os"], "darwin");
    assert_eq!(v["arch"], "arm64");
    assert_eq!(v["shasum"], sample::SHASUM);
    assert_eq!(
        v["shasums_url"],
        format!("https://{}/downloads/random/3.6.0/SHA256SUMS", host(&s))
    );
    assert_eq!(v["signing_keys"][0]["key_id"], "34365D9472D7468F");

    let r = run(&["provider", "package", &source, "3.6.0", "linux_amd64"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout
            .contains("terraform-provider-random_3.6.0_linux_amd64.zip"),
        "{}",
        r.stdout
    );
}

#[test]
fn module_versions_and_download() {
    let s = sample_server();
    let source = format!("{}/{}", host(&s), sample::MODULE);
    let r = run(&["module", "versions", &source, "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.json()["versions"],
        serde_json::json!(sample::MODULE_VERSIONS)
    );
    let r = run(&["module", "download", &source, "0.12.0", "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let url = "https://github.com/hashicorp/terraform-aws-consul?ref=v0.12.0";
    assert_eq!(
        r.json(),
        serde_json::json!({
            "source": source,
            "version": "0.12.0",
            "location": format!("git::{url}"),
            "package": {
                "getter": "git",
                "address": format!("git::{url}"),
                "url": url,
                "subdir": "",
                "ref": "v0.12.0",
                "depth": null,
                "sshkey": false,
                "archive": null,
                "checksum": null,
            },
            "module_subdir": "",
            "use_registry_credentials": null,
        })
    );
    let r = run(&["module", "download", &source, "0.12.0"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout
            .ends_with(&format!("\n  git git::{url}, ref v0.12.0\n")),
        "{}",
        r.stdout
    );
}

/// Module `acme/NAME/aws` 1.0.0 on `s` downloads from `location` (a 204
/// with `X-Terraform-Get`); its source address.
fn module_at(s: &TestServer, name: &str, location: &str) -> String {
    s.route(
        &format!("/v1/modules/acme/{name}/aws/1.0.0/download"),
        Reply::new(204).header("X-Terraform-Get", location),
    );
    format!("{}/acme/{name}/aws", host(s))
}

#[test]
fn module_download_json_has_the_parsed_package() {
    // docs/behaviour.md, PKG-3 to PKG-8: detected shorthands, query parts,
    // the location's subdir joined with the source's.
    let s = sample_server();
    let base = format!("https://{}/v1/modules/acme", host(&s));
    let cases = [
        (
            "scp",
            "git@github.com:acme/vpc.git//modules/net?ref=v1.2.0&depth=1",
            "//examples/a",
            serde_json::json!({
                "getter": "git",
                "address": "git::ssh://git@github.com/acme/vpc.git?depth=1&ref=v1.2.0",
                "url": "ssh://git@github.com/acme/vpc.git?depth=1&ref=v1.2.0",
                "subdir": "modules/net",
                "ref": "v1.2.0",
                "depth": 1,
                "sshkey": false,
                "archive": null,
                "checksum": null,
            }),
            "modules/net/examples/a",
        ),
        (
            "s3",
            "bucket.s3.eu-west-1.amazonaws.com/vpc.zip",
            "//b",
            serde_json::json!({
                "getter": "s3",
                "address": "s3::https://s3.eu-west-1.amazonaws.com/bucket/vpc.zip",
                "url": "https://s3.eu-west-1.amazonaws.com/bucket/vpc.zip",
                "subdir": "",
                "ref": null,
                "depth": null,
                "sshkey": false,
                "archive": "zip",
                "checksum": null,
            }),
            "b",
        ),
        (
            "rel",
            "./pkg?archive=tar.gz&checksum=sha256:ab",
            "",
            serde_json::json!({
                "getter": "https",
                "address": format!("{base}/rel/aws/1.0.0/pkg?archive=tar.gz&checksum=sha256:ab"),
                "url": format!("{base}/rel/aws/1.0.0/pkg?archive=tar.gz&checksum=sha256:ab"),
                "subdir": "",
                "ref": null,
                "depth": null,
                "sshkey": false,
                "archive": "tar.gz",
                "checksum": "sha256:ab",
            }),
            "",
        ),
    ];
    for (name, location, source_subdir, package, module_subdir) in cases {
        let source = format!("{}{source_subdir}", module_at(&s, name, location));
        let r = run(&["module", "download", &source, "1.0.0", "--json"]);
        assert_eq!(r.code, Some(0), "{name}: {}", r.stderr);
        let v = r.json();
        assert_eq!(v["package"], package, "{name}");
        assert_eq!(v["module_subdir"], module_subdir, "{name}");
    }
    let r = run(&[
        "module",
        "download",
        &format!("{}/acme/scp/aws", host(&s)),
        "1.0.0",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.ends_with(
            "\n  git git::ssh://git@github.com/acme/vpc.git?depth=1&ref=v1.2.0, ref v1.2.0, \
             depth 1, subdir modules/net\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn a_location_init_refuses_exits_1_in_its_words() {
    // docs/behaviour.md, PKG-1, PKG-2, PKG-4, PKG-7: what `init` refuses
    // (observed with Terraform 1.11.4) is an invalid response, exit 1.
    let s = sample_server();
    let cases = [
        (
            "terraform",
            "?archive=zip",
            "Terraform cannot detect a supported external module source type for ?archive=zip",
        ),
        (
            "opentofu",
            "?archive=zip",
            "OpenTofu cannot detect a supported external module source type for ?archive=zip",
        ),
        (
            "terraform",
            "hashicorp/consul/aws",
            "must be a direct remote package address",
        ),
        (
            "terraform",
            "https://example.com/x//../y",
            "subdirectory path \"../y\" leads outside of the module package",
        ),
        (
            "terraform",
            "github.com/acme",
            "GitHub URLs should be github.com/username/repo",
        ),
        (
            "opentofu",
            "ftp://example.com/x.zip",
            "download not supported for scheme 'ftp'",
        ),
    ];
    for (i, (dialect, location, words)) in cases.into_iter().enumerate() {
        let source = module_at(&s, &format!("refused{i}"), location);
        let message = format!("invalid source location \"{location}\" for {source} 1.0.0: {words}");
        let r = run(&["module", "download", &source, "1.0.0", "--dialect", dialect]);
        assert_eq!(r.code, Some(1), "{location}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains(&message), "{location}: {}", r.stderr);
        let r = run(&[
            "module",
            "download",
            &source,
            "1.0.0",
            "--dialect",
            dialect,
            "--json",
        ]);
        assert_eq!(r.code, Some(1), "{location}: {}", r.stderr);
        let v = r.json();
        assert_eq!(v["error"]["kind"], "invalid_response", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(&message)),
            "{v}"
        );
    }
}

#[test]
fn failures_have_the_discover_exit_codes() {
    let s = sample_server();
    s.route("/v1/modules/acme/none/aws/versions", Reply::new(404));
    let h = host(&s);
    // Not found: 3, with the JSON error shape.
    let r = run(&[
        "module",
        "versions",
        &format!("{h}/acme/none/aws"),
        "--json",
    ]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(r.json()["error"]["kind"], "not_found");
    // Bad source, version or platform: usage, 2, before any request.
    for args in [
        vec!["module", "versions", "github.com/acme/vpc/aws"],
        vec!["provider", "versions", "aws"],
        vec!["provider", "package", "hashicorp/aws", "1.0", "linux_amd64"],
        vec!["provider", "package", "hashicorp/aws", "1.0.0", "linux"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("tfdisco: invalid"),
            "{args:?}: {}",
            r.stderr
        );
    }
    // A host without that registry: 3, as a service that is not provided.
    let plain = TestServer::start();
    plain.route("/.well-known/terraform.json", Reply::json("{}"));
    let r = run(&[
        "provider",
        "versions",
        &format!("localhost:{}/a/b", plain.port()),
        "--json",
    ]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(r.json()["error"]["kind"], "service_not_provided");
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let home = tempfile::tempdir().expect("temp dir");
        let r = tfdisco(home.path(), &[], &["completions", shell]);
        assert_eq!(r.code, Some(0), "{shell}: {}", r.stderr);
        assert!(
            r.stdout.contains("provider"),
            "{shell}: no subcommand in the script"
        );
    }
}

#[test]
fn a_failing_credentials_lookup_warns_once_per_registry_call() {
    // A token that cannot go into a header: the lookup fails for the
    // discovery and again for the registry request (as in Terraform); both go
    // without a token, and people are told once (CRED-3).
    let s = sample_server();
    let source = format!("{}/{}", host(&s), sample::PROVIDER);
    let home = tempfile::tempdir().expect("temp dir");
    let ca = ca_file();
    let var = format!("TF_TOKEN_127.0.0.1:{}", s.port());
    for transport in ["tokio", "curl"] {
        let r = tfdisco(
            home.path(),
            &[(var.as_str(), "s3c\nret")],
            &[
                "provider",
                "versions",
                &source,
                "--ca-file",
                ca.as_str(),
                "--transport",
                transport,
            ],
        );
        assert_eq!(r.code, Some(0), "{transport}: {}", r.stderr);
        let warning = format!("tfdisco: warning: credentials for 127.0.0.1:{}:", s.port());
        assert_eq!(
            r.stderr.matches(&warning).count(),
            1,
            "{transport}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("s3c"), "never the token: {}", r.stderr);
    }
    let requests = s.requests();
    assert!(
        requests
            .iter()
            .all(|seen| seen.header("authorization").is_none()),
        "no request carried a token"
    );
}

#[test]
fn the_cli_version_and_the_registry_retries_are_settings() {
    // A versions answer that fails once: TF_REGISTRY_DISCOVERY_RETRY=0 is
    // ignored (the CLIs cannot turn retries off with it), --registry-retries
    // 0 is not.
    let s = TestServer::start();
    s.route(
        "/.well-known/terraform.json",
        Reply::json(r#"{"providers.v1": "/v1/providers/"}"#),
    );
    let source = format!("{}/ns/type", host(&s));
    let home = tempfile::tempdir().expect("temp dir");
    let ca = ca_file();
    let run = |extra: &[&str]| {
        s.route_each(
            "/v1/providers/ns/type/versions",
            [
                Reply::new(503),
                Reply::json(r#"{"versions": [{"version": "1.0.0"}]}"#),
            ],
        );
        s.take_requests();
        let mut args = vec![
            "provider",
            "versions",
            source.as_str(),
            "--ca-file",
            ca.as_str(),
            "--dialect",
            "terraform",
        ];
        args.extend_from_slice(extra);
        let r = tfdisco(home.path(), &[("TF_REGISTRY_DISCOVERY_RETRY", "0")], &args);
        let versions: Vec<_> = s
            .take_requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/versions"))
            .collect();
        (r, versions)
    };
    let (r, versions) = run(&["--registry-retries", "0"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("503 Service Unavailable"), "{}", r.stderr);
    assert_eq!(versions.len(), 1);
    let (r, versions) = run(&["--cli-version", "1.11.4"]);
    assert_eq!(r.code, Some(0), "retried once: {}", r.stderr);
    assert_eq!(versions.len(), 2);
    for r in &versions {
        assert_eq!(r.header("user-agent"), Some("Terraform/1.11.4"));
        assert_eq!(r.header("x-terraform-version"), Some("1.11.4"));
    }
    let (r, versions) = run(&["--cli-version", "eleven"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("invalid CLI version \"eleven\""),
        "{}",
        r.stderr
    );
    assert!(versions.is_empty());
}
