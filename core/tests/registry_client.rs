//! Registry requests as the CLIs' registry clients make them, without
//! sockets (docs/behaviour.md, RETRY-8, API-2, API-7, D10, D12): their own
//! retries and per-attempt timeout, Go's redirect limit, no `Accept`, no
//! `Content-Type` check, the first JSON value read. The figures are what
//! Terraform 1.11.4 did against a loopback registry.

mod common;

use std::time::Duration;

use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Dialect, Error, ErrorKind, GiveUpReason, Hostname, ModuleSource, ProviderSource,
    Services, Transfer, TransportErrorKind,
};

use common::{Net, Reply};

const VERSIONS_URL: &str = "https://example.com/v1/providers/hashicorp/aws/versions";
const VERSIONS: &str =
    r#"{"versions": [{"version": "1.0.0", "protocols": ["5.0"], "platforms": []}]}"#;

fn services(dialect: Dialect) -> Services {
    Services::from_json(
        Hostname::parse("example.com").expect("valid"),
        Url::parse("https://example.com/.well-known/terraform.json").expect("valid"),
        dialect,
        br#"{"providers.v1": "/v1/providers/", "modules.v1": "/v1/modules/"}"#,
    )
    .expect("a valid document")
}

/// Asks for `hashicorp/aws`'s versions under `config`.
fn versions(net: &mut Net, config: &Config) -> Result<tfdisco_core::ProviderVersions, Error> {
    let dialect = config.dialect();
    let source =
        ProviderSource::parse("example.com/hashicorp/aws", dialect).expect("a valid source");
    net.run(Transfer::provider_versions(
        &services(dialect),
        &source,
        config,
        None,
        net.now(),
    ))
}

/// When each request was sent, from the first.
fn times(net: &Net) -> Vec<Duration> {
    net.seen.iter().map(|s| s.at - net.seen[0].at).collect()
}

fn secs(s: &[f64]) -> Vec<Duration> {
    s.iter().map(|&s| Duration::from_secs_f64(s)).collect()
}

#[test]
fn two_attempts_one_second_apart_in_both_dialects() {
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let mut net = Net::new();
        net.on(VERSIONS_URL, Reply::new(500));
        let error = versions(&mut net, &Config::new(dialect)).expect_err("500 forever");
        assert_eq!(times(&net), secs(&[0.0, 1.0]), "{dialect}");
        assert!(
            matches!(
                &error,
                Error::Registry { error, .. } if matches!(**error, Error::GaveUp {
                    attempts: 2,
                    reason: GiveUpReason::AttemptsExhausted,
                    ..
                })
            ),
            "{error:?}"
        );
    }
}

#[test]
fn more_retries_wait_twice_as_long_each_time() {
    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::new(502));
    // TF_REGISTRY_DISCOVERY_RETRY=3 made four attempts, 1 s, 2 s and 4 s apart.
    let config = Config::new(Dialect::Terraform).with_registry_retries(3);
    versions(&mut net, &config).expect_err("502 forever");
    assert_eq!(times(&net), secs(&[0.0, 1.0, 3.0, 7.0]));
}

#[test]
fn retry_after_on_429_and_503_and_its_limit() {
    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::new(429).header("Retry-After", "2"));
    net.on(VERSIONS_URL, Reply::json(VERSIONS));
    versions(&mut net, &Config::default()).expect("versions after the wait");
    assert_eq!(times(&net), secs(&[0.0, 2.0]));

    // Go would wait 40 s; a wait that ends past the transfer's 21 s is not
    // waited for (D12).
    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::new(503).header("Retry-After", "40"));
    let error = versions(&mut net, &Config::default()).expect_err("not waited for");
    assert_eq!(net.seen.len(), 1);
    let Error::Registry { error, .. } = error else {
        panic!("a registry error")
    };
    assert!(
        matches!(
            *error,
            Error::GaveUp {
                reason: GiveUpReason::PastDeadline {
                    from_retry_after: true,
                    ..
                },
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn an_attempt_that_times_out_before_its_head_is_retried() {
    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::Stall);
    let error = versions(&mut net, &Config::default()).expect_err("stalled forever");
    // 10 s for the first attempt, 1 s of wait, then the second.
    assert_eq!(times(&net), secs(&[0.0, 11.0]));
    assert!(error.is_timeout(), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("timed out (each attempt may take 10s) (gave up after 2 attempts)"),
        "{error}"
    );

    // A shorter TF_REGISTRY_CLIENT_TIMEOUT, and a server that answers the
    // second attempt in time.
    let mut net = Net::new();
    net.on(
        VERSIONS_URL,
        Reply::json(VERSIONS).after(Duration::from_secs(3)),
    );
    net.on(VERSIONS_URL, Reply::json(VERSIONS));
    let config = Config::default().with_registry_attempt_timeout(Some(Duration::from_secs(2)));
    versions(&mut net, &config).expect("the second attempt answers");
    assert_eq!(times(&net), secs(&[0.0, 3.0]));
}

#[test]
fn an_attempt_that_times_out_while_its_body_is_read_is_over() {
    let mut net = Net::new();
    net.on(
        VERSIONS_URL,
        Reply::new(200)
            .chunked(&[b"{\"versions\": [", b"]}"])
            .drip(Duration::from_secs(4)),
    );
    let config = Config::default().with_registry_attempt_timeout(Some(Duration::from_secs(2)));
    let error = versions(&mut net, &config).expect_err("the body is too slow");
    assert_eq!(net.seen.len(), 1, "not retried");
    assert!(error.is_timeout());
}

#[test]
fn tls_failures_are_retried_but_a_refused_certificate_is_not() {
    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::Fail(TransportErrorKind::Tls));
    net.on(VERSIONS_URL, Reply::json(VERSIONS));
    versions(&mut net, &Config::default()).expect("retried");
    assert_eq!(net.seen.len(), 2);

    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::Fail(TransportErrorKind::Certificate));
    let error = versions(&mut net, &Config::default()).expect_err("refused");
    assert_eq!(net.seen.len(), 1);
    assert_eq!(error.kind(), ErrorKind::Tls);
}

#[test]
fn nine_redirects_are_followed_and_a_tenth_is_not_retried() {
    let mut net = Net::new();
    for n in 0..9 {
        let from = if n == 0 {
            VERSIONS_URL.to_owned()
        } else {
            format!("https://example.com/r/{n}")
        };
        net.on(&from, Reply::redirect(302, &format!("/r/{}", n + 1)));
    }
    net.on("https://example.com/r/9", Reply::json(VERSIONS));
    versions(&mut net, &Config::default()).expect("nine redirects");
    assert_eq!(net.seen.len(), 10);

    let mut net = Net::new();
    net.on(VERSIONS_URL, Reply::redirect(302, "/loop"));
    net.on("https://example.com/loop", Reply::redirect(302, "/loop"));
    let error = versions(&mut net, &Config::default()).expect_err("a loop");
    assert_eq!(net.seen.len(), 10, "10 requests, never retried");
    assert_eq!(error.kind(), ErrorKind::Redirect);
}

#[test]
fn any_content_type_and_trailing_data_are_read() {
    for content_type in [
        None,
        Some("text/plain"),
        Some("text/html; charset=utf-8"),
        Some("garbage;;;"),
    ] {
        let mut net = Net::new();
        let mut reply = Reply::new(200);
        if let Some(value) = content_type {
            reply = reply.header("Content-Type", value);
        }
        net.on(
            VERSIONS_URL,
            reply.body(format!("{VERSIONS} trailing garbage <html>").as_bytes()),
        );
        let answer = versions(&mut net, &Config::default()).expect("read as Terraform reads it");
        assert_eq!(answer.versions.len(), 1, "{content_type:?}");
        // No Accept either (API-2).
        assert!(!net.seen[0].headers.contains_key("accept"));
    }
}

#[test]
fn opentofu_reads_a_download_answer_whole() {
    let source = ModuleSource::parse("example.com/a/b/c", Dialect::OpenTofu).expect("valid");
    for (body, ok) in [
        (
            r#"{"location": "https://example.com/b.zip", "use_registry_credentials": false}"#,
            true,
        ),
        (
            r#"{"location": "https://example.com/b.zip", "use_registry_credentials": false} x"#,
            false,
        ),
    ] {
        let mut net = Net::new();
        net.on(
            "https://example.com/v1/modules/a/b/c/1.0.0/download",
            Reply::new(200)
                .header("Content-Type", "text/plain")
                .body(body.as_bytes()),
        );
        let result = net.run(Transfer::module_download(
            &services(Dialect::OpenTofu),
            &source,
            "1.0.0",
            &Config::default(),
            None,
            net.now(),
        ));
        assert_eq!(result.is_ok(), ok, "{body}: {result:?}");
    }
}

#[test]
fn discovery_keeps_its_own_rules() {
    // Discovery: one 11 s deadline, no retry of a timeout, JSON only.
    let outcome = common::Scenario::new("example.com")
        .config(|c| c.with_dialect(Dialect::Terraform))
        .reply(Reply::Stall)
        .run();
    assert_eq!(outcome.seen.len(), 1);
    assert_eq!(outcome.elapsed, Duration::from_secs(11));
    let outcome = common::Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "text/plain")
                .body(b"{}"),
        )
        .run();
    assert_eq!(
        outcome.result.expect_err("not JSON").kind(),
        ErrorKind::ContentType
    );
    assert_eq!(outcome.seen[0].headers["accept"], "application/json");
}
