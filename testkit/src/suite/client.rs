//! Client options: User-Agent and dialect, the exchange observer,
//! connection reuse, tracing. (Trust roots: `trust.rs`.)

#![allow(missing_docs)]

use std::time::Duration;

use tfdisco_core::{Config, Dialect, ErrorKind, StaticCredentials, Transfer};
use tfdisco_transport::Transport;

use super::{
    Subject, TOKEN_PREFIX, WELL_KNOWN, build, build_waiting, builder, error, record, services,
    token, waiting_builder,
};
use crate::{Reply, TestServer, traces};

/// Discovery sends what each CLI's discovery sends (DISCO-3); the caller's
/// own `User-Agent` replaces it, with `TF_APPEND_USER_AGENT`'s text after.
pub fn user_agent_and_dialect<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let terraform = build::<T>(builder::<T>().dialect(Dialect::Terraform));
    services::<T>(terraform.discover(&server.host()));
    let custom = build::<T>(
        builder::<T>()
            .user_agent("my-mirror/1.0")
            .append_user_agent("  ci-run  "),
    );
    services::<T>(custom.discover(&server.host()));
    let agents: Vec<_> = server
        .requests()
        .iter()
        .map(|r| r.header("user-agent").unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        agents,
        [
            "HashiCorp Terraform/1.15.9 (+https://www.terraform.io)",
            "my-mirror/1.0 ci-run"
        ],
        "{}",
        T::NAME
    );
    let invalid = builder::<T>().user_agent("bad\nagent").build();
    assert!(
        invalid.is_err(),
        "{}: a User-Agent with a line break",
        T::NAME
    );
}

pub fn observer_sees_each_exchange<T: Subject>() {
    let server = TestServer::start();
    let doc = r#"{"modules.v1": "/m/"}"#;
    server
        .route(WELL_KNOWN, Reply::redirect(302, "/next").body(b"moved"))
        .route("/next", Reply::json(doc));
    let client = build::<T>(builder::<T>());
    let now = client.transport().now();
    let mut discovery = Transfer::discovery(
        server.host(),
        &Config::default(),
        Some(token("observed")),
        now,
    )
    .expect("starts");
    let mut exchanges = Vec::new();
    let s = services::<T>(client.drive(&mut discovery, Some(&mut record(&mut exchanges))));
    assert_eq!(s.len(), 1);
    assert_eq!(exchanges.len(), 2, "{}", T::NAME);
    let (first, second) = (&exchanges[0], &exchanges[1]);
    assert_eq!(first.url.as_str(), server.url(WELL_KNOWN));
    assert!(first.authorization_sent && second.authorization_sent);
    assert_eq!(first.status.map(|s| s.as_u16()), Some(302));
    assert_eq!(
        first.headers.get("location").map(|v| v.as_bytes()),
        Some(&b"/next"[..])
    );
    assert!(first.time_to_head.is_some() && first.error.is_none());
    assert_eq!(second.url.as_str(), server.url("/next"));
    assert_eq!(second.status.map(|s| s.as_u16()), Some(200));
    assert_eq!(second.body_bytes, doc.len() as u64, "{}", T::NAME);
    assert!(second.elapsed >= second.time_to_head.unwrap_or_default());
}

/// Two discoveries, with the cache emptied in between; returns the
/// connection numbers the server saw.
fn two_discoveries<T: Subject>(reuse: bool) -> (Vec<u64>, u64) {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build_waiting::<T>(waiting_builder::<T>().reuse_connections(reuse));
    services::<T>(client.discover(&server.host()));
    client.cache().forget(&server.host());
    // The connection goes back to the pool before the next request: libcurl's
    // and async-std's transports put it back before the call returns; hyper
    // does it from a task of its own, which runs when its runtime is next
    // driven. So the client's runtime is driven until it has nothing else to
    // do: a wait on its clock, which tokio's paused clock (the `Waiting`
    // transport) only moves on once every task is idle. (On the real clocks
    // of the others it is a short wait that changes nothing.)
    let transport = client.transport();
    let settle = transport.sleep_until(transport.now() + Duration::from_millis(100));
    if let Err(e) = transport.block_on(settle) {
        panic!("{}: driving the runtime: {e}", T::NAME);
    }
    services::<T>(client.discover(&server.host()));
    let ids = server.requests().iter().map(|r| r.connection).collect();
    (ids, server.connections())
}

pub fn connections_are_reused<T: Subject>() {
    let (ids, connections) = two_discoveries::<T>(true);
    assert_eq!(ids, [1, 1], "{}", T::NAME);
    assert_eq!(connections, 1, "{}", T::NAME);
}

pub fn new_connection_per_request_without_reuse<T: Subject>() {
    let (ids, connections) = two_discoveries::<T>(false);
    assert_eq!(ids, [1, 2], "{}", T::NAME);
    assert_eq!(connections, 2, "{}", T::NAME);
}

/// Start, redirect, success, cache hit and failure are traced; no token is.
pub fn traces_never_show_the_token<T: Subject>() {
    let traces = traces();
    let server = TestServer::start();
    server
        .route(WELL_KNOWN, Reply::redirect(302, "/next"))
        .route("/next", Reply::json("{}"));
    let failing = TestServer::start();
    failing.route(WELL_KNOWN, Reply::new(500));
    let client = build::<T>(
        builder::<T>().credentials(
            StaticCredentials::new()
                .with(server.host(), token("traced"))
                .with(failing.host(), token("traced-too")),
        ),
    );
    services::<T>(client.discover(&server.host()));
    services::<T>(client.discover(&server.host()));
    error::<T>(client.discover(&failing.host()), ErrorKind::Status);
    let lines = traces.lines();
    let about = |host: &str, message: &str| {
        lines
            .iter()
            .any(|l| l.contains(host) && l.contains(message))
    };
    let host = server.host().to_string();
    for message in [
        "discovery started",
        "following redirect",
        "discovery succeeded",
        "discovery result cached",
    ] {
        assert!(
            about(&host, message),
            "{}: no {message:?} event for {host}",
            T::NAME
        );
    }
    assert!(
        about(failing.host().as_str(), "discovery failed"),
        "{}",
        T::NAME
    );
    let leaks: Vec<_> = lines.iter().filter(|l| l.contains(TOKEN_PREFIX)).collect();
    assert!(leaks.is_empty(), "{}: tokens in traces: {leaks:?}", T::NAME);
}
