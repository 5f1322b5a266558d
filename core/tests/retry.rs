//! Retries (docs/behaviour.md, RETRY-1 to RETRY-7): what Terraform 1.15 does
//! for discovery, decided in the core, on a simulated clock.

mod common;

use std::time::{Duration, Instant};

use common::{Reply, Scenario, disco};
use tfdisco_core::http::StatusCode;
use tfdisco_core::{
    Action, Config, Dialect, Error, ErrorKind, GiveUpReason, Hostname, RetryPolicy, Transfer,
    TransportErrorKind,
};

const DOC: &str = r#"{"modules.v1": "/m/"}"#;

fn terraform(host: &str) -> Scenario {
    Scenario::new(host).config(|c| c.with_dialect(Dialect::Terraform))
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// When each request was sent, from the start.
fn times(out: &common::Outcome) -> Vec<Duration> {
    out.seen.iter().map(|s| s.at).collect()
}

#[test]
fn status_503_twice_then_the_document() {
    let out = terraform("example.com")
        .reply(Reply::new(503))
        .reply(Reply::new(503))
        .reply(Reply::json(DOC))
        .run();
    out.services();
    assert_eq!(times(&out), [ms(0), ms(100), ms(300)]);
    let first = disco("example.com");
    assert_eq!(out.urls(), [first.as_str(); 3]);
}

#[test]
fn a_reset_twice_then_the_document() {
    for kind in [
        TransportErrorKind::Io,
        TransportErrorKind::Connect,
        TransportErrorKind::Proxy,
    ] {
        let out = terraform("example.com")
            .reply(Reply::Fail(kind))
            .reply(Reply::Fail(kind))
            .reply(Reply::json(DOC))
            .run();
        out.services();
        assert_eq!(times(&out), [ms(0), ms(100), ms(300)], "{kind:?}");
    }
}

#[test]
fn status_429_with_retry_after_in_seconds() {
    let out = terraform("example.com")
        .reply(Reply::new(429).header("Retry-After", "1"))
        .reply(Reply::json(DOC))
        .run();
    out.services();
    assert_eq!(times(&out), [ms(0), ms(1000)]);
}

#[test]
fn retry_after_as_an_http_date_is_measured_against_the_servers_date() {
    let out = terraform("example.com")
        .reply(
            Reply::new(503)
                .header("Date", "Sun, 22 Nov 2026 10:00:00 GMT")
                .header("Retry-After", "Sun, 22 Nov 2026 10:00:02 GMT"),
        )
        .reply(Reply::json(DOC))
        .run();
    out.services();
    assert_eq!(times(&out), [ms(0), ms(2000)]);
}

#[test]
fn unusable_retry_after_falls_back_to_the_policy() {
    for value in ["soon", "-1", "1.5", "Sun, 22 Nov 2026 10:00:02 GMT"] {
        // (A date without the server's Date cannot be measured.)
        let out = terraform("example.com")
            .reply(Reply::new(503).header("Retry-After", value))
            .reply(Reply::json(DOC))
            .run();
        out.services();
        assert_eq!(times(&out), [ms(0), ms(100)], "{value}");
    }
    // Retry-After counts on 429 and 503 only.
    let out = terraform("example.com")
        .reply(Reply::new(502).header("Retry-After", "5"))
        .reply(Reply::json(DOC))
        .run();
    assert_eq!(times(&out), [ms(0), ms(100)]);
}

#[test]
fn status_500_forever_is_four_attempts_then_an_error() {
    let out = terraform("example.com").reply(Reply::new(500)).run();
    assert_eq!(times(&out), [ms(0), ms(100), ms(300), ms(700)]);
    let e = out.error();
    assert!(
        matches!(
            e,
            Error::GaveUp {
                attempts: 4,
                reason: GiveUpReason::AttemptsExhausted,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.kind(), ErrorKind::Status);
    assert_eq!(e.status(), Some(StatusCode::INTERNAL_SERVER_ERROR));
    assert_eq!(
        e.to_string(),
        "failed to request discovery document: 500 Internal Server Error \
         (GET https://example.com/.well-known/terraform.json) (gave up after 4 attempts)"
    );
}

#[test]
fn what_is_not_retried() {
    let cases = [
        ("501", Reply::new(501), ErrorKind::Status),
        ("400", Reply::new(400), ErrorKind::Status),
        ("403", Reply::new(403), ErrorKind::Status),
        ("tls", Reply::Fail(TransportErrorKind::Tls), ErrorKind::Tls),
        (
            "other transport failure",
            Reply::Fail(TransportErrorKind::Other),
            ErrorKind::Network,
        ),
        ("bad document", Reply::json("[1, 2]"), ErrorKind::Json),
        (
            "bad content type",
            Reply::new(200).header("Content-Type", "text/html"),
            ErrorKind::ContentType,
        ),
        (
            "reset mid-body",
            Reply::new(200)
                .header("Content-Type", "application/json")
                .chunked(&[b"{"])
                .then_fail(TransportErrorKind::Io),
            ErrorKind::Network,
        ),
    ];
    for (what, reply, kind) in cases {
        let out = terraform("example.com").reply(reply).run();
        assert_eq!(out.seen.len(), 1, "{what}");
        assert_eq!(out.error().kind(), kind, "{what}");
        assert!(
            !matches!(out.error(), Error::GaveUp { .. }),
            "{what}: a failure that is not retried is reported as it is"
        );
    }
    // 404 means no services, at once.
    let out = terraform("example.com").reply(Reply::new(404)).run();
    assert!(!out.services().has_document());
    assert_eq!(out.seen.len(), 1);
}

#[test]
fn d8_a_redirect_loop_is_not_retried() {
    let out = terraform("example.com")
        .reply(Reply::redirect(302, "/.well-known/terraform.json"))
        .run();
    assert!(matches!(out.error(), Error::TooManyRedirects { .. }));
    assert_eq!(
        out.seen.len(),
        4,
        "one attempt: the first request and 3 redirects"
    );
}

#[test]
fn the_timeout_is_not_retried() {
    let out = terraform("example.com").reply(Reply::Stall).run();
    assert!(out.error().is_timeout());
    assert!(matches!(out.error(), Error::Timeout { .. }));
    assert_eq!(out.seen.len(), 1);
}

#[test]
fn a_wait_that_would_pass_the_deadline_is_not_made() {
    let out = terraform("example.com")
        .config(|c| c.with_timeout(ms(250)))
        .reply(Reply::new(503))
        .run();
    // Attempt 1 at 0, attempt 2 at 100 ms; attempt 3 would start at 300 ms.
    assert_eq!(times(&out), [ms(0), ms(100)]);
    assert_eq!(out.elapsed, ms(100), "it ends at once, not at the deadline");
    let e = out.error();
    assert!(
        matches!(
            e,
            Error::GaveUp {
                attempts: 2,
                reason: GiveUpReason::PastDeadline {
                    wait: Some(w),
                    from_retry_after: false,
                    ..
                },
                ..
            } if *w == ms(200)
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().ends_with(
            "(attempt 2; not retried: the next attempt would wait 200ms, \
             past the end of the 250ms allowed)"
        ),
        "{e}"
    );
}

#[test]
fn a_retry_after_that_does_not_fit_ends_the_discovery() {
    for (value, wait) in [
        ("3600", Some(Duration::from_secs(3600))),
        ("99999999999999999999999999", None),
        ("18446744073709551615", Some(Duration::from_secs(u64::MAX))),
    ] {
        let out = terraform("example.com")
            .reply(Reply::new(429).header("Retry-After", value))
            .run();
        assert_eq!(out.seen.len(), 1, "{value}");
        let e = out.error();
        assert!(
            matches!(
                e,
                Error::GaveUp {
                    attempts: 1,
                    reason: GiveUpReason::PastDeadline {
                        from_retry_after: true,
                        wait: w,
                        ..
                    },
                    ..
                } if *w == wait
            ),
            "{value}: {e:?}"
        );
        assert_eq!(e.kind(), ErrorKind::Status);
        assert!(e.to_string().contains("(Retry-After)"), "{e}");
    }
}

#[test]
fn a_retry_starts_over_from_the_first_url_with_the_same_credentials() {
    // Attempt 1: redirected to another host (credentials dropped, D4), which
    // fails with 503. Attempt 2 starts from the first URL, with credentials
    // again and the whole redirect budget.
    let out = terraform("example.com")
        .token("t0k")
        .reply(Reply::redirect(302, "https://mirror.example.net/d.json"))
        .reply_at("https://mirror.example.net/d.json", Reply::new(503))
        .reply_at("https://mirror.example.net/d.json", Reply::json(DOC))
        .run();
    out.services();
    assert_eq!(
        out.urls(),
        [
            &disco("example.com"),
            "https://mirror.example.net/d.json",
            &disco("example.com"),
            "https://mirror.example.net/d.json",
        ]
    );
    assert_eq!(
        out.authorizations(),
        [Some("Bearer t0k"), None, Some("Bearer t0k"), None]
    );
}

#[test]
fn opentofu_does_not_retry_by_default() {
    let out = Scenario::new("example.com").reply(Reply::new(503)).run();
    assert_eq!(out.seen.len(), 1);
    assert!(
        matches!(out.error(), Error::Status { .. }),
        "a plain status error"
    );
}

#[test]
fn the_policy_follows_the_dialect_unless_set() {
    assert_eq!(Config::new(Dialect::OpenTofu).retry_policy().attempts(), 1);
    assert_eq!(Config::new(Dialect::Terraform).retry_policy().attempts(), 4);
    let switched = Config::new(Dialect::OpenTofu).with_dialect(Dialect::Terraform);
    assert_eq!(switched.retry_policy(), &RetryPolicy::terraform());
    let kept = Config::new(Dialect::OpenTofu)
        .with_retries(2)
        .with_dialect(Dialect::Terraform);
    assert_eq!(
        kept.retry_policy().attempts(),
        3,
        "a policy set by hand stays"
    );
    let out = Scenario::new("example.com")
        .config(|c| c.with_retries(1))
        .reply(Reply::new(503))
        .run();
    assert_eq!(times(&out), [ms(0), ms(100)]);
}

#[test]
fn the_machine_waits_with_nothing_in_flight() {
    let now = Instant::now();
    let config = Config::new(Dialect::Terraform);
    let host = Hostname::parse("example.com").expect("valid");
    let mut d = Transfer::discovery(host, &config, None, now).expect("starts");
    assert!(matches!(d.poll(), Action::Send(_)));
    d.handle_head(StatusCode::BAD_GATEWAY, &Default::default(), now);
    let Action::Wait(until) = d.poll() else {
        panic!("a wait after a 502")
    };
    assert_eq!(until, now + ms(100));
    assert_eq!(
        d.poll_timeout(),
        Some(until),
        "the wait is the earliest timer"
    );
    assert!(d.is_waiting() && !d.is_sending() && !d.is_receiving());
    let retry = d.retry().expect("a retry is planned");
    assert_eq!((retry.attempt, retry.attempts), (2, 4));
    assert_eq!(retry.wait, ms(100));
    assert_eq!(retry.cause.status(), Some(StatusCode::BAD_GATEWAY));
    // Inputs other than the time are ignored while waiting; early is nothing.
    d.handle_head(StatusCode::OK, &Default::default(), now);
    d.handle_timeout(now + ms(99));
    assert!(d.is_waiting());
    d.handle_timeout(until);
    assert!(matches!(d.poll(), Action::Send(_)));
    assert_eq!((d.attempt(), d.requests()), (2, 2));
    assert!(d.retry().is_none());
}

#[test]
fn an_input_that_comes_with_a_timer_is_dropped() {
    // A head reported at or after the end of the wait was not the answer to
    // the retry (the driver was not told to send it yet): the timer fires,
    // the head is dropped, and the retry is still to be sent.
    let now = Instant::now();
    let config = Config::new(Dialect::Terraform);
    let host = Hostname::parse("example.com").expect("valid");
    let mut d = Transfer::discovery(host, &config, None, now).expect("starts");
    d.handle_head(StatusCode::SERVICE_UNAVAILABLE, &Default::default(), now);
    assert!(d.is_waiting());
    let mut location = tfdisco_core::http::HeaderMap::new();
    location.insert("location", "/elsewhere".parse().expect("valid"));
    d.handle_head(StatusCode::FOUND, &location, now + ms(150));
    assert!(matches!(d.poll(), Action::Send(r) if r.uri() == disco("example.com").as_str()));
    assert_eq!((d.attempt(), d.redirects()), (2, 0));
}
