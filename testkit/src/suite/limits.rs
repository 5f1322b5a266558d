//! Size limits (D6) and the overall deadline: the transport stops reading
//! as soon as the core says so.

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use tfdisco_core::{DEFAULT_BODY_LIMIT, Error, ErrorKind};

use super::{SHORT, Subject, WELL_KNOWN, assert_paths, build, builder, error, services};
use crate::{Reply, TestServer};

/// How many bytes past the limit a server may have sent before the client
/// hung up: buffers in the server, TLS and the kernel, and a paced server
/// (so a client that kept reading would take 64 MiB).
const SLACK: u64 = 1024 * 1024;

/// 64 MiB of whitespace in 16 KiB chunks, one every millisecond.
fn huge_body(reply: Reply) -> Reply {
    reply
        .header("Content-Type", "application/json")
        .repeat(&[b' '; 16 * 1024], 4096)
        .interval(Duration::from_millis(1))
}

/// A JSON document of exactly `size` bytes.
fn document_of_size(size: usize) -> Vec<u8> {
    let mut doc = br#"{"modules.v1": "/m/""#.to_vec();
    doc.resize(size - 1, b' ');
    doc.push(b'}');
    doc
}

/// Serves a huge body (declared or not), expects `TooLarge` with that
/// declared length, and returns how many body bytes the server sent.
fn over_the_limit<T: Subject>(declared: Option<u64>) -> u64 {
    let server = TestServer::start();
    let mut reply = Reply::new(200);
    if let Some(n) = declared {
        reply = reply.header("Content-Length", &n.to_string());
    }
    server.route(WELL_KNOWN, huge_body(reply));
    let client = build::<T>(builder::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::TooLarge);
    assert!(
        matches!(e, Error::BodyTooLarge { declared: d, .. } if d == declared),
        "{e:?}"
    );
    assert!(
        server.wait_finished(Duration::from_secs(10)),
        "{}: the server is still sending",
        T::NAME
    );
    let sent = server.requests()[0].body_bytes_sent();
    assert!(
        sent <= DEFAULT_BODY_LIMIT + SLACK,
        "{}: server sent {sent} bytes",
        T::NAME
    );
    sent
}

pub fn declared_body_over_the_limit<T: Subject>() {
    over_the_limit::<T>(Some(64 << 20));
}

pub fn chunked_body_over_the_limit<T: Subject>() {
    let sent = over_the_limit::<T>(None);
    assert!(
        sent > DEFAULT_BODY_LIMIT,
        "{}: the client read past the limit",
        T::NAME
    );
}

/// Discovery answered with a document of exactly the limit, sent by
/// `send` (which adds the body to a JSON reply), reads it whole.
fn reads_a_body_of_exactly_the_limit<T: Subject>(send: impl FnOnce(Reply, Vec<u8>) -> Reply) {
    let server = TestServer::start();
    let doc = document_of_size(DEFAULT_BODY_LIMIT as usize);
    let reply = Reply::new(200).header("Content-Type", "application/json");
    server.route(WELL_KNOWN, send(reply, doc));
    let client = build::<T>(builder::<T>());
    let s = services::<T>(client.discover(&server.host()));
    assert_eq!(s.len(), 1);
}

pub fn declared_body_of_exactly_the_limit<T: Subject>() {
    reads_a_body_of_exactly_the_limit::<T>(|reply, doc| reply.body(&doc));
}

pub fn chunked_body_of_exactly_the_limit<T: Subject>() {
    reads_a_body_of_exactly_the_limit::<T>(|reply, doc| reply.chunked([doc]).chunk_size(64 * 1024));
}

pub fn configured_body_limit<T: Subject>() {
    let server = TestServer::start();
    server.route(
        WELL_KNOWN,
        Reply::new(200)
            .header("Content-Type", "application/json")
            .chunked([document_of_size(200)]),
    );
    let client = build::<T>(builder::<T>().body_limit(100));
    let e = error::<T>(client.discover(&server.host()), ErrorKind::TooLarge);
    assert!(matches!(e, Error::BodyTooLarge { limit: 100, .. }), "{e:?}");
}

/// Runs a discovery that must time out after [`SHORT`], and checks it did
/// not take much longer.
fn times_out<T: Subject>(server: &TestServer) {
    let client = build::<T>(builder::<T>().timeout(SHORT));
    let started = Instant::now();
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Timeout);
    let took = started.elapsed();
    assert!(
        took >= SHORT,
        "{}: timed out early, after {took:?}",
        T::NAME
    );
    assert!(took < Duration::from_secs(5), "{}: took {took:?}", T::NAME);
    assert!(e.is_timeout());
    assert_paths::<T>(server, &[WELL_KNOWN]);
}

pub fn stall_before_headers_times_out<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}").stall(Duration::from_secs(20)));
    times_out::<T>(&server);
}

pub fn dripping_body_times_out<T: Subject>() {
    let server = TestServer::start();
    server.route(
        WELL_KNOWN,
        Reply::json(&format!("{{{}}}", " ".repeat(1000)))
            .chunk_size(1)
            .interval(Duration::from_millis(50)),
    );
    times_out::<T>(&server);
    assert!(server.requests()[0].body_bytes_sent() < 1002, "{}", T::NAME);
}

pub fn slow_server_within_the_deadline<T: Subject>() {
    let server = TestServer::start();
    server.route(
        WELL_KNOWN,
        Reply::json(r#"{"modules.v1": "/m/"}"#)
            .stall(Duration::from_millis(200))
            .chunk_size(4)
            .interval(Duration::from_millis(5)),
    );
    let client = build::<T>(builder::<T>());
    let s = services::<T>(client.discover(&server.host()));
    assert_eq!(s.len(), 1);
}
