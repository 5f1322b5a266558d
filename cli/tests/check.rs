//! `tfdisco check`: the operator's report, and its exit code.

mod common;

use common::{ca_file, tfdisco};
use tfdisco_testkit::{Reply, TestServer};

fn check(server: &TestServer, extra: &[&str]) -> common::Run {
    let home = tempfile::tempdir().expect("temp dir");
    let host = server.host().to_string();
    let ca = ca_file();
    let mut args = vec!["check", host.as_str(), "--ca-file", ca.as_str()];
    args.extend_from_slice(extra);
    tfdisco(home.path(), &[], &args)
}

#[test]
fn a_healthy_host() {
    let s = TestServer::start();
    s.route(
        "/.well-known/terraform.json",
        Reply::redirect(301, "/disco"),
    );
    s.route(
        "/disco",
        Reply::json(r#"{"modules.v1": "/m/", "providers.v1": "https://p.example/v1/"}"#),
    );
    let r = check(&s, &[]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let out = &r.stdout;
    for want in [
        "1. GET https://localhost:",
        "301 Moved Permanently in ",
        "location: /disco",
        "2. GET https://localhost:",
        "200 OK in ",
        "content-type: application/json",
        "services (2)",
        "terraform: ok",
        "opentofu:  ok",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    assert!(!out.contains("warning"), "{out}");
}

#[test]
fn warnings_for_nested_redirects_and_doubtful_services() {
    let s = TestServer::start();
    s.route("/.well-known/terraform.json", Reply::redirect(302, "/a"));
    s.route("/a", Reply::redirect(302, "/b"));
    s.route(
        "/b",
        Reply::json(r#"{"modules.v1": "api/modules", "providers.v1": "http://p.example/v1/", "custom.v1": "/c/"}"#),
    );
    let r = check(&s, &[]);
    assert_eq!(r.code, Some(0), "warnings do not fail: {}", r.stdout);
    for want in [
        "warning: 2 redirects; clients are only guaranteed to follow one",
        "warning: relative URL \"api/modules\" has no trailing slash",
        "warning: plain http: requests and tokens travel unencrypted",
        "warning: not a service id Terraform or OpenTofu use",
    ] {
        assert!(r.stdout.contains(want), "missing {want:?} in\n{}", r.stdout);
    }
}

#[test]
fn a_broken_service_fails_the_verdict() {
    let s = TestServer::start();
    s.route(
        "/.well-known/terraform.json",
        Reply::json(r#"{"modules.v1": "ftp://m.example/", "login.v1": {"client": "c"}, "thing.v1-beta": "/x/"}"#),
    );
    let r = check(&s, &[]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(r.stdout.contains("terraform: would fail"), "{}", r.stdout);
    assert!(r.stdout.contains("unsupported scheme ftp"), "{}", r.stdout);
    assert!(
        r.stdout.contains("missing required property \"authz\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("note: thing.v1-beta cannot be requested"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_failed_discovery_fails_both() {
    let s = TestServer::start();
    s.route(
        "/.well-known/terraform.json",
        Reply::new(200)
            .header("Content-Type", "text/plain")
            .body(b"{}"),
    );
    let r = check(&s, &[]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stdout.contains("unsupported Content-Type \"text/plain\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("terraform: would fail") && r.stdout.contains("opentofu:  would fail")
    );
}

#[test]
fn each_attempt_is_a_line_with_why_it_was_retried() {
    let s = TestServer::start();
    s.route_each(
        "/.well-known/terraform.json",
        [
            Reply::new(503).header("Retry-After", "0"),
            Reply::new(502),
            Reply::json(r#"{"modules.v1": "/m/"}"#),
        ],
    );
    let r = check(&s, &["--dialect", "terraform"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let out = &r.stdout;
    for want in [
        "1. GET https://localhost:",
        "503 Service Unavailable in ",
        "retrying in 0ns (Retry-After): attempt 2 of 4",
        "(attempt 2)",
        "502 Bad Gateway in ",
        "retrying in 200ms: attempt 3 of 4",
        "(attempt 3)",
        "200 OK in ",
    ] {
        assert!(out.contains(want), "{want:?} in\n{out}");
    }
    assert!(
        !out.contains("redirects; clients"),
        "retries are not redirects\n{out}"
    );
}

#[test]
fn retries_is_an_option() {
    let s = TestServer::start();
    s.route("/.well-known/terraform.json", Reply::new(503));
    let r = check(&s, &["--dialect", "terraform", "--retries", "0"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(s.requests().len(), 1);
    let r = check(&s, &["--retries", "1", "--timeout", "5"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(
        s.requests().len(),
        3,
        "opentofu with one retry: two more requests"
    );
    assert!(
        r.stdout.contains("(gave up after 2 attempts)"),
        "{}",
        r.stdout
    );
}
