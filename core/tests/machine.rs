//! The machine's contract with its driver: idempotent polls, ignored stray
//! input, a result that stays put.

use std::time::Instant;

use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode, header};
use tfdisco_core::{
    Action, Config, Credentials, Discovery, Error, Hostname, Transfer, TransportError,
    TransportErrorKind,
};

fn start(host: &str) -> (Discovery, Instant) {
    let now = Instant::now();
    let creds = Credentials::token("t0k").expect("valid");
    (
        Transfer::discovery(
            Hostname::parse(host).expect("valid"),
            &Config::default(),
            Some(creds),
            now,
        )
        .expect("starts"),
        now,
    )
}

fn json_head() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h
}

#[test]
fn poll_repeats_the_same_request_until_something_is_handled() {
    let (mut d, _) = start("example.com");
    let (Action::Send(a), Action::Send(b)) = (d.poll(), d.poll()) else {
        panic!("want two sends")
    };
    assert_eq!(a.uri(), b.uri());
    assert_eq!(a.method(), "GET");
    assert_eq!(a.uri(), "https://example.com/.well-known/terraform.json");
    assert!(a.headers()[header::AUTHORIZATION].is_sensitive());
    assert!(d.sends_credentials());
    assert_eq!(d.redirects(), 0);
}

#[test]
fn stray_input_is_ignored() {
    let (mut d, now) = start("example.com");
    d.handle_body(b"{}", now);
    d.handle_end(now);
    assert!(matches!(d.poll(), Action::Send(_)));
    d.handle_head(StatusCode::OK, &json_head(), now);
    d.handle_head(StatusCode::INTERNAL_SERVER_ERROR, &HeaderMap::new(), now);
    assert!(matches!(d.poll(), Action::Receive));
    d.handle_body(b"{\"a.v1\": \"/a/\"}", now);
    d.handle_end(now);
    let Action::Done(Ok(first)) = d.poll() else {
        panic!("want success")
    };
    // After the end nothing changes the result.
    d.handle_error(TransportError::new(TransportErrorKind::Io, "late"), now);
    d.handle_timeout(now + std::time::Duration::from_secs(3600));
    d.handle_body(b"garbage", now);
    let Action::Done(Ok(again)) = d.poll() else {
        panic!("still the success")
    };
    assert_eq!(first.len(), again.len());
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn a_redirect_is_another_send_and_a_redirect_body_is_not_read() {
    let (mut d, now) = start("example.com");
    let mut h = HeaderMap::new();
    h.insert(header::LOCATION, HeaderValue::from_static("/next"));
    d.handle_head(StatusCode::FOUND, &h, now);
    // The driver may still be reading the redirect's body: ignored.
    d.handle_body(b"<html>moved</html>", now);
    let Action::Send(req) = d.poll() else {
        panic!("want the next request")
    };
    assert_eq!(req.uri(), "https://example.com/next");
    assert_eq!(d.redirects(), 1);
    assert_eq!(d.url().as_str(), "https://example.com/next");
}

#[test]
fn a_host_no_url_can_carry_cannot_start() {
    let host = Hostname::parse("foo.123").expect("a valid hostname");
    let error = Transfer::discovery(host, &Config::default(), None, Instant::now())
        .expect_err("no URL can carry it");
    assert_eq!(error.kind(), tfdisco_core::ErrorKind::InvalidHostname);
    match error.into_error() {
        Error::UnusableHostname { host, .. } => assert_eq!(host, "foo.123"),
        other => panic!("want UnusableHostname, got {other:?}"),
    }
}

#[test]
fn a_transport_timeout_is_a_discovery_timeout() {
    // The transport's timer may run a little ahead of the driver's clock:
    // its timeout fires the machine's earliest timer, the deadline.
    let (mut d, now) = start("example.com");
    d.handle_error(
        TransportError::new(TransportErrorKind::Timeout, "operation timed out"),
        now,
    );
    assert!(matches!(d.poll(), Action::Done(Err(e)) if e.is_timeout()));
}

#[test]
fn requests_counts_every_request_of_the_transfer() {
    let (mut d, now) = start("example.com");
    assert_eq!(d.requests(), 1);
    let mut h = HeaderMap::new();
    h.insert(header::LOCATION, HeaderValue::from_static("/next"));
    d.handle_head(StatusCode::FOUND, &h, now);
    assert_eq!(d.requests(), 2, "a followed redirect is a new request");
    d.handle_head(StatusCode::OK, &json_head(), now);
    assert!(d.is_receiving());
    assert_eq!(d.requests(), 2, "its body belongs to the same request");
    d.handle_body(b"{}", now);
    d.handle_end(now);
    assert!(d.is_done() && !d.is_receiving());
    assert_eq!(d.poll_timeout(), None, "no timer once done");
}

#[test]
fn action_debug_does_not_show_the_token() {
    let (mut d, _) = start("example.com");
    let shown = format!("{:?} {:?}", d.poll(), d);
    assert!(!shown.contains("t0k"), "{shown}");
}
