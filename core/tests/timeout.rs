//! The overall deadline: one timeout for the whole discovery (11 s by default).

mod common;

use std::time::Duration;

use common::{Reply, Scenario};
use tfdisco_core::{Config, DEFAULT_TIMEOUT, Error, Hostname, Transfer};

const DOC: &str = r#"{"modules.v1": "/m/"}"#;

#[test]
fn a_server_that_never_answers_times_out_at_the_deadline() {
    let out = Scenario::new("example.com").reply(Reply::Stall).run();
    assert!(out.error().is_timeout());
    assert_eq!(out.elapsed, DEFAULT_TIMEOUT);
    assert_eq!(
        out.error().to_string(),
        "failed to request discovery document: Get \"https://example.com/.well-known/terraform.json\": \
         timed out (the whole discovery may take 11s)"
    );
}

#[test]
fn slow_headers_time_out() {
    let out = Scenario::new("example.com")
        .reply(Reply::json(DOC).after(Duration::from_secs(12)))
        .run();
    assert!(matches!(out.error(), Error::Timeout { .. }));
    assert_eq!(out.elapsed, DEFAULT_TIMEOUT);
}

#[test]
fn a_dripping_body_times_out() {
    let chunks: Vec<&[u8]> = DOC.as_bytes().chunks(1).collect();
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .chunked(&chunks)
                .drip(Duration::from_secs(1)),
        )
        .run();
    assert!(out.error().is_timeout());
    assert!(out.bytes_sent < DOC.len() as u64);
}

#[test]
fn the_deadline_covers_redirects_too() {
    let out = Scenario::new("example.com")
        .reply(Reply::redirect(302, "/a").after(Duration::from_secs(4)))
        .reply_at(
            "https://example.com/a",
            Reply::redirect(302, "/b").after(Duration::from_secs(4)),
        )
        .reply_at(
            "https://example.com/b",
            Reply::json(DOC).after(Duration::from_secs(4)),
        )
        .run();
    assert!(out.error().is_timeout());
    assert_eq!(
        out.error().url().map(|u| u.as_str()),
        Some("https://example.com/b")
    );
}

#[test]
fn the_timeout_is_configurable() {
    let out = Scenario::new("example.com")
        .config(|c| c.with_timeout(Duration::from_millis(10)))
        .reply(Reply::Stall)
        .run();
    assert!(out.error().is_timeout());
    assert_eq!(out.elapsed, Duration::from_millis(10));
    let out = Scenario::new("example.com")
        .config(|c| c.with_timeout(Duration::from_secs(60)))
        .reply(Reply::json(DOC).after(Duration::from_secs(30)))
        .run();
    assert!(out.result.is_ok());
}

#[test]
fn an_early_timer_is_ignored_and_a_late_one_is_not() {
    let start = std::time::Instant::now();
    let mut d = Transfer::discovery(
        Hostname::parse("example.com").expect("valid"),
        &Config::default(),
        None,
        start,
    )
    .expect("starts");
    assert_eq!(d.poll_timeout(), Some(start + DEFAULT_TIMEOUT));
    d.handle_timeout(start + Duration::from_secs(5));
    assert!(matches!(d.poll(), tfdisco_core::Action::Send(_)));
    d.handle_timeout(start + DEFAULT_TIMEOUT);
    assert!(matches!(
        d.poll(),
        tfdisco_core::Action::Done(Err(Error::Timeout { .. }))
    ));
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn an_unrepresentable_timeout_means_no_deadline() {
    let config = Config::default().with_timeout(Duration::MAX);
    let d = Transfer::discovery(
        Hostname::parse("example.com").expect("valid"),
        &config,
        None,
        std::time::Instant::now(),
    )
    .expect("starts");
    assert_eq!(d.poll_timeout(), None);
}
