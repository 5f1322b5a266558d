//! Retries (docs/behaviour.md, RETRY-1 to RETRY-7), decided by the core and
//! honoured by every transport with no decision of its own: Terraform's
//! policy of 4 attempts and waits of 100, 200 and 400 ms.
//!
//! These scenarios run on [`Subject::Waiting`]: where the transport's
//! runtime has a clock the test can stop (tokio's), the waits between
//! attempts take no real time. The waits are measured on the client's clock
//! ([`ExchangeReport::started`], from the transport's
//! [`Transport::now`](tfdisco_transport::Transport::now)), so they are
//! checked the same way on virtual and real time.

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use tfdisco_core::{Dialect, Error, ErrorKind, GiveUpReason};
use tfdisco_transport::{ClientBuilder, ExchangeReport};

use super::{
    Subject, WELL_KNOWN, WaitingClient, build_waiting, error, record, service_url, services,
    waiting_builder,
};
use crate::{Reply, TestServer};

fn terraform<T: Subject>() -> ClientBuilder<WaitingClient<T>> {
    waiting_builder::<T>().dialect(Dialect::Terraform)
}

/// Discovers the server's host, keeping every exchange report.
fn discover<T: Subject>(
    client: &WaitingClient<T>,
    server: &TestServer,
) -> (Result<tfdisco_core::Services, Error>, Vec<ExchangeReport>) {
    let mut reports = Vec::new();
    let host = server.host();
    let result = client.wait(
        client
            .as_async()
            .discover(&host)
            .observe(&mut record(&mut reports)),
    );
    (result, reports)
}

/// The client waited at least this long before each attempt after the
/// first, on its own clock; the server saw every attempt.
#[track_caller]
fn assert_waited<T: Subject>(server: &TestServer, reports: &[ExchangeReport], at_least_ms: &[u64]) {
    assert_eq!(server.requests().len(), reports.len(), "{}", T::NAME);
    let gaps: Vec<Duration> = reports
        .windows(2)
        .map(|w| w[1].started.saturating_duration_since(w[0].started))
        .collect();
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
    let client = build_waiting::<T>(terraform::<T>());
    let (result, reports) = discover::<T>(&client, &server);
    let s = services::<T>(result);
    assert_eq!(service_url(&s, "modules.v1"), server.url("/m/"));
    assert_waited::<T>(&server, &reports, &[100, 200]);
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
    let client = build_waiting::<T>(terraform::<T>());
    let (result, reports) = discover::<T>(&client, &server);
    services::<T>(result);
    assert_waited::<T>(&server, &reports, &[100, 200]);
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
    let client = build_waiting::<T>(terraform::<T>());
    let (result, reports) = discover::<T>(&client, &server);
    services::<T>(result);
    assert_waited::<T>(&server, &reports, &[1000]);
}

/// The attempts made and the reason of `e`, which must be
/// [`Error::GaveUp`].
#[track_caller]
fn gave_up<T: Subject>(e: &Error) -> (u32, &GiveUpReason) {
    match e {
        Error::GaveUp {
            attempts, reason, ..
        } => (*attempts, reason),
        _ => panic!("{}: gave up, not {e:?}", T::NAME),
    }
}

pub fn status_500_forever_is_four_requests<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(500));
    let client = build_waiting::<T>(terraform::<T>());
    let (result, reports) = discover::<T>(&client, &server);
    let e = error::<T>(result, ErrorKind::Status);
    let (attempts, reason) = gave_up::<T>(&e);
    assert!(
        attempts == 4 && matches!(reason, GiveUpReason::AttemptsExhausted),
        "{}: {e:?}",
        T::NAME
    );
    assert_waited::<T>(&server, &reports, &[100, 200, 400]);
}

pub fn status_501_is_not_retried<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(501));
    let client = build_waiting::<T>(terraform::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Status);
    assert!(matches!(e, Error::Status { .. }), "{}: {e:?}", T::NAME);
    assert_eq!(server.requests().len(), 1, "{}", T::NAME);
}

pub fn a_retry_cut_short_by_the_deadline<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(503));
    let client = build_waiting::<T>(terraform::<T>().timeout(Duration::from_millis(250)));
    let start = Instant::now();
    let (result, reports) = discover::<T>(&client, &server);
    let e = error::<T>(result, ErrorKind::Status);
    let (attempts, reason) = gave_up::<T>(&e);
    assert!(
        attempts == 2 && matches!(reason, GiveUpReason::PastDeadline { .. }),
        "{}: {e:?}",
        T::NAME
    );
    assert!(
        start.elapsed() < Duration::from_millis(250),
        "{}: it gives up at once, not at the deadline ({:?})",
        T::NAME,
        start.elapsed()
    );
    assert_waited::<T>(&server, &reports, &[100]);
}
