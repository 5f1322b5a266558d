//! D4: where credentials travel, and that they never show up in messages.

mod common;

use common::{Reply, Scenario, disco};
use tfdisco_core::{Credentials, Hostname};

const DOC: &str = r#"{"modules.v1": "/m/"}"#;
const BEARER: Option<&str> = Some("Bearer s3cret-token");

#[test]
fn sent_to_the_host_itself() {
    let out = Scenario::new("example.com")
        .token("s3cret-token")
        .reply(Reply::json(DOC))
        .run();
    assert_eq!(out.authorizations(), [BEARER]);
}

#[test]
fn no_header_without_credentials() {
    let out = Scenario::new("example.com").reply(Reply::json(DOC)).run();
    assert_eq!(out.authorizations(), [None]);
}

#[test]
fn kept_on_redirects_to_the_same_host_on_another_port_and_to_subdomains() {
    let out = Scenario::new("example.com")
        .token("s3cret-token")
        .reply(Reply::redirect(302, "https://example.com:8443/a"))
        .reply_at(
            "https://example.com:8443/a",
            Reply::redirect(302, "https://registry.example.com/b"),
        )
        .reply_at("https://registry.example.com/b", Reply::json(DOC))
        .run();
    assert!(out.result.is_ok());
    assert_eq!(out.authorizations(), [BEARER, BEARER, BEARER]);
}

#[test]
fn dropped_for_other_hosts_and_never_restored() {
    let out = Scenario::new("example.com")
        .token("s3cret-token")
        .reply(Reply::redirect(302, "https://example.net/a"))
        .reply_at(
            "https://example.net/a",
            Reply::redirect(302, "https://example.com/b"),
        )
        .reply_at("https://example.com/b", Reply::json(DOC))
        .run();
    assert!(out.result.is_ok());
    assert_eq!(out.authorizations(), [BEARER, None, None]);
}

#[test]
fn dropped_when_leaving_a_subdomain_for_its_parent() {
    let out = Scenario::new("registry.example.com")
        .token("s3cret-token")
        .reply(Reply::redirect(302, "https://example.com/a"))
        .reply_at("https://example.com/a", Reply::json(DOC))
        .run();
    assert_eq!(out.authorizations(), [BEARER, None]);
}

#[test]
fn lookalike_suffixes_are_not_subdomains() {
    let out = Scenario::new("example.com")
        .token("s3cret-token")
        .reply(Reply::redirect(302, "https://badexample.com/a"))
        .reply_at("https://badexample.com/a", Reply::json(DOC))
        .run();
    assert_eq!(out.authorizations(), [BEARER, None]);
}

#[test]
fn never_sent_over_plain_http_even_to_a_development_host() {
    let dev = Hostname::parse("localhost:8080").expect("valid");
    let out = Scenario::new("localhost:8080")
        .token("s3cret-token")
        .config(|c| c.with_plain_http_host(dev.clone()))
        .reply_at(
            "http://localhost:8080/.well-known/terraform.json",
            Reply::redirect(302, "https://localhost:8080/x"),
        )
        .reply_at("https://localhost:8080/x", Reply::json(DOC))
        .run();
    assert!(out.result.is_ok());
    assert_eq!(
        out.authorizations(),
        [None, None],
        "dropped on the http request, stays dropped"
    );

    let out = Scenario::new("localhost")
        .token("s3cret-token")
        .config(|c| c.with_plain_http_host(Hostname::parse("localhost").expect("valid")))
        .reply_at(
            "http://localhost/.well-known/terraform.json",
            Reply::redirect(302, "http://localhost/x"),
        )
        .reply_at("http://localhost/x", Reply::json(DOC))
        .run();
    // "localhost" is a development host for plain http on port 80, but the first
    // request is plain http, so no credentials at all.
    assert_eq!(out.urls()[0], "http://localhost/.well-known/terraform.json");
    assert_eq!(out.authorizations(), [None, None]);
}

#[test]
fn the_token_never_appears_in_errors_or_debug_output() {
    let token = "s3cret-token";
    let failing = [
        Reply::new(500),
        Reply::new(401),
        Reply::new(200)
            .header("Content-Type", "text/plain")
            .body(b"{}"),
        Reply::json("{not json"),
        Reply::redirect(302, "http://example.com/"),
        Reply::redirect(302, "::garbage"),
        Reply::new(302),
        Reply::Stall,
    ];
    for reply in failing {
        let out = Scenario::new("example.com").token(token).reply(reply).run();
        let error = out.error();
        assert!(!error.to_string().contains(token), "{error}");
        assert!(!format!("{error:?}").contains(token), "{error:?}");
    }
    let creds = Credentials::token(token).expect("valid");
    assert!(!format!("{creds:?}").contains(token));
    assert!(Credentials::token("bad\ntoken").is_err());
    let err = Credentials::token("bad\ntoken").expect_err("newline");
    assert!(!err.to_string().contains("bad"));
}

#[test]
fn requests_carry_accept_and_user_agent() {
    let out = Scenario::new("example.com")
        .config(|c| {
            c.with_user_agent("my-tool/1.0")
                .expect("valid")
                .with_appended_user_agent(" extra/2 ")
                .expect("valid")
        })
        .reply(Reply::json(DOC))
        .run();
    let h = &out.seen[0].headers;
    assert_eq!(h["accept"], "application/json");
    assert_eq!(h["user-agent"], "my-tool/1.0 extra/2");
    assert_eq!(out.seen[0].url, disco("example.com"));
}
