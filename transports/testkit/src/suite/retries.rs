//! Retries (docs/behaviour.md, RETRY-1 to RETRY-7), decided by the core and
//! honoured by every transport with no decision of its own: Terraform's
//! policy of 4 attempts and waits of 100, 200 and 400 ms.

use std::time::{Duration, Instant};

use tfdisco_core::{Dialect, Error, ErrorKind, GiveUpReason};

use super::{Builder, Subject, WELL_KNOWN, build, builder, error, record, service_url, services};
use crate::{Reply, TestServer};

fn terraform<T: Subject>() -> Builder<T> {
    builder::<T>().dialect(Dialect::Terraform)
}

/// The gaps between the requests the server received.
fn gaps(server: &TestServer) -> Vec<Duration> {
    let seen = server.requests();
    seen.windows(2)
        .map(|w| w[1].received.saturating_duration_since(w[0].received))
        .collect()
}

#[track_caller]
fn assert_waited<T: Subject>(server: &TestServer, at_least_ms: &[u64]) {
    let gaps = gaps(server);
    assert_eq!(gaps.len(), at_least_ms.len(), "{}: {gaps:?}", T::NAME);
    for (gap, least) in gaps.iter().zip(at_least_ms) {
        assert!(
            *gap >= Duration::from_millis(*least),
            "{}: waited {gap:?}, at least {least} ms expected ({gaps:?})",
            T::NAME
        );
    }
}

pub fn status_503_twice_then_the_document<T: Subject>() {
    let server = TestServer::start();
    server.route_each(
        WELL_KNOWN,
        [
            Reply::new(503),
            Reply::new(503),
            Reply::json(r#"{"modules.v1": "/m/"}"#),
        ],
    );
    let client = build::<T>(terraform::<T>());
    let mut reports = Vec::new();
    let s =
        services::<T>(client.discover_observed(&server.host(), Some(&mut record(&mut reports))));
    assert_eq!(service_url(&s, "modules.v1"), server.url("/m/"));
    assert_waited::<T>(&server, &[100, 200]);
    let attempts: Vec<u32> = reports.iter().map(|r| r.attempt).collect();
    assert_eq!(attempts, [1, 2, 3], "{}", T::NAME);
    let retry = reports[0]
        .retry
        .as_ref()
        .expect("the first attempt was retried");
    assert_eq!((retry.attempt, retry.attempts), (2, 4));
    assert_eq!(retry.wait, Duration::from_millis(100));
    assert_eq!(retry.cause.status().map(|s| s.as_u16()), Some(503));
    assert!(reports[2].retry.is_none());
}

pub fn a_reset_twice_then_the_document<T: Subject>() {
    let server = TestServer::start();
    server.route_each(
        WELL_KNOWN,
        [Reply::reset(), Reply::reset(), Reply::json("{}")],
    );
    let client = build::<T>(terraform::<T>());
    services::<T>(client.discover(&server.host()));
    assert_waited::<T>(&server, &[100, 200]);
}

pub fn status_429_with_retry_after_then_the_document<T: Subject>() {
    let server = TestServer::start();
    server.route_each(
        WELL_KNOWN,
        [
            Reply::new(429).header("Retry-After", "1"),
            Reply::json("{}"),
        ],
    );
    let client = build::<T>(terraform::<T>());
    services::<T>(client.discover(&server.host()));
    assert_waited::<T>(&server, &[1000]);
}

pub fn status_500_forever_is_four_requests<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(500));
    let client = build::<T>(terraform::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Status);
    assert!(
        matches!(
            e,
            Error::GaveUp {
                attempts: 4,
                reason: GiveUpReason::AttemptsExhausted,
                ..
            }
        ),
        "{}: {e:?}",
        T::NAME
    );
    assert_waited::<T>(&server, &[100, 200, 400]);
}

pub fn status_501_is_not_retried<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(501));
    let client = build::<T>(terraform::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Status);
    assert!(matches!(e, Error::Status { .. }), "{}: {e:?}", T::NAME);
    assert_eq!(server.requests().len(), 1, "{}", T::NAME);
}

pub fn a_retry_cut_short_by_the_deadline<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(503));
    let client = build::<T>(terraform::<T>().timeout(Duration::from_millis(250)));
    let start = Instant::now();
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Status);
    assert!(
        matches!(
            e,
            Error::GaveUp {
                attempts: 2,
                reason: GiveUpReason::PastDeadline { .. },
                ..
            }
        ),
        "{}: {e:?}",
        T::NAME
    );
    assert!(
        start.elapsed() < Duration::from_millis(250),
        "{}: it gives up at once, not at the deadline ({:?})",
        T::NAME,
        start.elapsed()
    );
    assert_eq!(server.requests().len(), 2, "{}", T::NAME);
}
