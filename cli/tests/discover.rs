//! `tfdisco discover` against the loopback test server: exit codes, outputs,
//! options.

mod common;

use std::time::Duration;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::{Reply, TestServer};

const DOC: &str = r#"{"z.v1": "/z/", "modules.v1": "modules/", "login.v1": {"client": "c", "authz": "/a", "token": "/t"}}"#;
const WELL_KNOWN: &str = "/.well-known/terraform.json";

fn server(reply: Reply) -> TestServer {
    let s = TestServer::start();
    s.route(WELL_KNOWN, reply);
    s
}

fn discover(server: &TestServer, extra: &[&str], vars: &[(&str, &str)]) -> Run {
    let home = tempfile::tempdir().expect("temp dir");
    let host = server.host().to_string();
    let ca = ca_file();
    let mut args = vec!["discover", host.as_str(), "--ca-file", ca.as_str()];
    args.extend_from_slice(extra);
    tfdisco(home.path(), vars, &args)
}

#[test]
fn lists_services_for_people() {
    let s = server(Reply::json(DOC));
    let r = discover(&s, &[], &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let port = s.port();
    let want = format!(
        "host           localhost:{port}\n\
         discovery URL  https://localhost:{port}/.well-known/terraform.json\n\
         z.v1           https://localhost:{port}/z/\n\
         modules.v1     https://localhost:{port}/.well-known/modules/\n\
         login.v1       OAuth client \"c\": authorize at https://localhost:{port}/a, token at https://localhost:{port}/t, ports 1024-65535\n"
    );
    assert_eq!(r.stdout, want);
}

#[test]
fn json_shape_in_document_order() {
    let s = server(Reply::json(DOC));
    let r = discover(&s, &["--json"], &[]);
    assert_eq!(r.code, Some(0));
    let z = r.stdout.find("\"z.v1\"").expect("z");
    let m = r.stdout.find("\"modules.v1\"").expect("modules");
    assert!(z < m, "services keep document order: {}", r.stdout);
    let v = r.json();
    let port = s.port();
    assert_eq!(v["hostname"], format!("localhost:{port}"));
    assert_eq!(v["display"], format!("localhost:{port}"));
    assert_eq!(
        v["discovery_url"],
        format!("https://localhost:{port}/.well-known/terraform.json")
    );
    assert_eq!(v["services"]["modules.v1"], "modules/");
    assert_eq!(v["services"]["login.v1"]["client"], "c");
    assert_eq!(
        v["resolved"]["z.v1"],
        format!("https://localhost:{port}/z/")
    );
    assert_eq!(
        v["resolved"]["login.v1"]["oauth_client"]["token"],
        format!("https://localhost:{port}/t")
    );
}

#[test]
fn requested_services_decide_the_exit_code() {
    let s = server(Reply::json(DOC));
    assert_eq!(discover(&s, &["modules.v1"], &[]).code, Some(0));
    let r = discover(&s, &["modules.v1", "providers.v1"], &[]);
    assert_eq!(r.code, Some(3));
    assert!(
        r.stdout.contains("providers.v1   error: host localhost:"),
        "{}",
        r.stdout
    );
    let r = discover(&s, &["modules.v2", "--json"], &[]);
    assert_eq!(r.code, Some(3));
    assert_eq!(
        r.json()["resolved"]["modules.v2"]["error"]["kind"],
        "version_not_supported"
    );
    // A bad id is a usage error, found before any request.
    let before = s.requests().len();
    let r = discover(&s, &["modules"], &[]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("invalid service ID format"),
        "{}",
        r.stderr
    );
    assert_eq!(s.requests().len(), before);
    // Terraform's go-version ids.
    assert_eq!(
        discover(&s, &["modules.1", "--dialect", "terraform"], &[]).code,
        Some(3)
    );
    assert_eq!(discover(&s, &["modules.1"], &[]).code, Some(2));
}

#[test]
fn failures_exit_1_with_a_clear_line_or_json() {
    let s = server(Reply::new(500));
    let r = discover(&s, &[], &[]);
    assert_eq!(r.code, Some(1));
    let port = s.port();
    assert_eq!(
        r.stderr,
        format!(
            "tfdisco: failed to request discovery document: 500 Internal Server Error \
             (GET https://localhost:{port}/.well-known/terraform.json)\n"
        )
    );
    let r = discover(&s, &["--json"], &[]);
    assert_eq!(r.code, Some(1));
    let v = r.json();
    assert_eq!(v["error"]["kind"], "status");
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("text")
            .contains("500 Internal Server Error")
    );

    let s = server(
        Reply::new(200)
            .header("Content-Type", "text/html")
            .body(b"<html>"),
    );
    assert_eq!(
        discover(&s, &["--json"], &[]).json()["error"]["kind"],
        "content_type"
    );
}

#[test]
fn invalid_hostnames_are_usage_errors() {
    let home = tempfile::tempdir().expect("temp dir");
    let r = tfdisco(home.path(), &[], &["discover", "a..b"]);
    assert_eq!(r.code, Some(2));
    assert_eq!(
        r.stderr,
        "tfdisco: invalid hostname \"a..b\": hostname contains empty label (two consecutive periods)\n"
    );
    let r = tfdisco(
        home.path(),
        &[],
        &["discover", "https://example.com", "--json"],
    );
    assert_eq!(r.code, Some(2));
    assert_eq!(r.json()["error"]["kind"], "invalid_hostname");
}

#[test]
fn an_untrusted_certificate_fails_with_a_hint() {
    let s = server(Reply::json(DOC));
    let home = tempfile::tempdir().expect("temp dir");
    let r = tfdisco(home.path(), &[], &["discover", s.host().as_str()]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr
            .contains("hint: if the server uses a private CA, trust it with --ca-file FILE"),
        "{}",
        r.stderr
    );
    assert_eq!(s.requests().len(), 0);
}

#[test]
fn every_transport_gives_the_same_answer() {
    let s = server(Reply::json(DOC));
    let outputs: Vec<String> = ["tokio", "async-std", "curl"]
        .iter()
        .map(|t| {
            let r = discover(&s, &["--transport", t, "--json"], &[]);
            assert_eq!(r.code, Some(0), "{t}: {}", r.stderr);
            r.stdout
        })
        .collect();
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

#[test]
fn credentials_from_the_environment_and_no_credentials() {
    let s = server(Reply::json(DOC));
    let port = s.port();
    let var = "TF_TOKEN_localhost:".to_owned() + &port.to_string();
    let r = discover(&s, &[], &[(var.as_str(), "s3cret")]);
    assert_eq!(r.code, Some(0));
    assert_eq!(s.requests()[0].authorization(), Some("Bearer s3cret"));
    let r = discover(&s, &["--no-credentials"], &[(var.as_str(), "s3cret")]);
    assert_eq!(r.code, Some(0));
    assert_eq!(s.requests()[1].authorization(), None);
    assert!(!r.stdout.contains("s3cret") && !r.stderr.contains("s3cret"));
}

#[test]
fn a_credentials_lookup_that_fails_is_a_warning() {
    // A token that cannot be sent in a header: the lookup fails, discovery
    // goes ahead anonymously (as in Terraform), and people are told.
    let s = server(Reply::json(DOC));
    let var = format!("TF_TOKEN_localhost:{}", s.port());
    for transport in ["tokio", "curl"] {
        let r = discover(
            &s,
            &["--transport", transport],
            &[(var.as_str(), "s3c\nret")],
        );
        assert_eq!(r.code, Some(0), "{transport}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "tfdisco: warning: credentials for localhost:{}:",
                s.port()
            )) && r.stderr.contains("sending no credentials"),
            "{transport}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("s3c"), "{}", r.stderr);
    }
    assert!(s.requests().iter().all(|r| r.authorization().is_none()));
}

#[test]
fn user_agent_follows_the_dialect_and_tf_append_user_agent() {
    let s = server(Reply::json(DOC));
    discover(
        &s,
        &["--dialect", "terraform"],
        &[("TF_APPEND_USER_AGENT", " ci-lint/2 ")],
    );
    assert_eq!(
        s.requests()[0].header("user-agent"),
        Some("HashiCorp Terraform/1.15.9 (+https://www.terraform.io) ci-lint/2")
    );
    discover(&s, &[], &[]);
    assert_eq!(
        s.requests()[1].header("user-agent"),
        Some("OpenTofu/1.12.6")
    );
}

#[test]
fn resolve_reaches_a_name_that_does_not_exist() {
    let s = server(Reply::json(DOC));
    let home = tempfile::tempdir().expect("temp dir");
    let port = s.port();
    let host = format!("registry.example.test:{port}");
    let resolve = format!("registry.example.test:{port}:127.0.0.1");
    let ca = ca_file();
    let r = tfdisco(
        home.path(),
        &[],
        &["discover", &host, "--ca-file", &ca, "--resolve", &resolve],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(s.requests()[0].host(), Some(host.as_str()));
}

#[test]
fn insecure_http_for_a_development_server() {
    let s = server(Reply::json(DOC));
    let home = tempfile::tempdir().expect("temp dir");
    let host = format!("localhost:{}", s.http_port());
    let r = tfdisco(home.path(), &[], &["discover", &host]);
    assert_eq!(r.code, Some(1), "https to a plain-http port fails");
    let r = tfdisco(
        home.path(),
        &[],
        &["discover", &host, "--insecure-http", &host, "--json"],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.json()["discovery_url"],
        format!("http://{host}/.well-known/terraform.json")
    );
}

#[test]
fn timeouts_and_redirect_limits_are_options() {
    let s = server(Reply::json(DOC).stall(Duration::from_secs(5)));
    let r = discover(&s, &["--timeout", "0.3", "--json"], &[]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["kind"], "timeout");

    let s = server(Reply::redirect(302, "/next"));
    s.route("/next", Reply::json(DOC));
    assert_eq!(discover(&s, &[], &[]).code, Some(0));
    let r = discover(&s, &["--max-redirects", "0", "--json"], &[]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["kind"], "redirect");
}

#[test]
fn verbose_shows_the_discovery_steps_without_the_token() {
    let s = server(Reply::redirect(302, "/next"));
    s.route("/next", Reply::json(DOC));
    let var = format!("TF_TOKEN_localhost:{}", s.port());
    let r = discover(&s, &["-v"], &[(var.as_str(), "s3cret")]);
    assert_eq!(r.code, Some(0));
    assert!(r.stderr.contains("discovery started"), "{}", r.stderr);
    assert!(r.stderr.contains("following redirect"), "{}", r.stderr);
    assert!(r.stderr.contains("discovery succeeded"), "{}", r.stderr);
    assert!(!r.stderr.contains("s3cret"));
}

/// Without `--ca-file` every transport builds on the system roots alone and
/// refuses the test CA as untrusted (with libcurl, a trust store held
/// entirely in a hashed directory once made the client fail to build).
#[test]
fn every_transport_builds_on_the_system_roots_alone() {
    let s = server(Reply::json(DOC));
    let host = s.host().to_string();
    for transport in ["tokio", "async-std", "curl"] {
        let home = tempfile::tempdir().expect("temp dir");
        let r = tfdisco(
            home.path(),
            &[],
            &["discover", &host, "--transport", transport, "--json"],
        );
        assert_eq!(r.code, Some(1), "{transport}: {}", r.stderr);
        assert_eq!(
            r.json()["error"]["kind"],
            "tls",
            "{transport}: {}",
            r.stdout
        );
    }
}
