//! The registry through the client: cache, forget, forced services,
//! aliases, `service_url`, and coalescing of concurrent discoveries (D7).

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use tfdisco_core::serde_json::json;
use tfdisco_core::{Error, ErrorKind, Services};

use super::{
    Client, Subject, WELL_KNOWN, assert_paths, build, builder, error, hostname, service_url,
    services,
};
use crate::{Reply, TestServer};

pub fn cache_hit_makes_no_request<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    let client = build::<T>(builder::<T>());
    let first = services::<T>(client.discover(&server.host()));
    let second = services::<T>(client.discover(&server.host()));
    assert_eq!(first.discovery_url(), second.discovery_url());
    assert_eq!(service_url(&second, "modules.v1"), server.url("/m/"));
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

pub fn errors_are_not_cached<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(500));
    let client = build::<T>(builder::<T>());
    error::<T>(client.discover(&server.host()), ErrorKind::Status);
    error::<T>(client.discover(&server.host()), ErrorKind::Status);
    assert_paths::<T>(&server, &[WELL_KNOWN, WELL_KNOWN]);
}

pub fn forget_and_forget_all<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(builder::<T>());
    let registry = client.cache();
    services::<T>(client.discover(&server.host()));
    registry.forget(&server.host());
    assert!(registry.cached(&server.host()).is_none());
    services::<T>(client.discover(&server.host()));
    registry.forget_all();
    services::<T>(client.discover(&server.host()));
    assert_paths::<T>(&server, &[WELL_KNOWN, WELL_KNOWN, WELL_KNOWN]);
}

pub fn forced_services_make_no_request<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/discovered/"}"#));
    let client = build::<T>(builder::<T>());
    let registry = client.cache();
    registry
        .force(server.host(), [("modules.v1".to_owned(), json!("rel/"))])
        .expect("valid services");
    let s = services::<T>(client.discover(&server.host()));
    assert!(s.is_forced());
    assert_eq!(
        service_url(&s, "modules.v1"),
        server.url("/.well-known/rel/")
    );
    assert_paths::<T>(&server, &[]);
    registry.forget(&server.host());
    let s = services::<T>(client.discover(&server.host()));
    assert_eq!(service_url(&s, "modules.v1"), server.url("/discovered/"));
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

pub fn forget_alias<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(builder::<T>());
    let registry = client.cache();
    let alias = hostname(&format!("localhost:{}", server.other_port()));
    registry.alias(alias.clone(), server.host());
    services::<T>(client.discover(&alias));
    registry.forget_alias(&alias);
    assert!(registry.cached(&alias).is_none());
    services::<T>(client.discover(&alias));
    let ports: Vec<u16> = server.requests().iter().map(|r| r.port).collect();
    assert_eq!(ports, [server.port(), server.other_port()], "{}", T::NAME);
}

pub fn service_url_through_the_client<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    let client = build::<T>(builder::<T>());
    let host = server.host();
    let url = client.service_url(&host, "modules.v1").expect("provided");
    assert_eq!(url.as_str(), server.url("/m/"));
    let e = client
        .service_url(&host, "providers.v1")
        .expect_err("not provided");
    assert_eq!(e.kind(), ErrorKind::ServiceNotProvided);
    let e = client
        .service_url(&host, "modules.v2")
        .expect_err("other version");
    assert_eq!(e.kind(), ErrorKind::VersionNotSupported);
    let e = client
        .service_url(&host, "modules")
        .expect_err("no version");
    assert_eq!(e.kind(), ErrorKind::InvalidServiceId);
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

const CALLERS: usize = 6;

/// Starts [`CALLERS`] discoveries of one host on as many threads while the
/// server holds its answer, releases it once all but one wait for the first,
/// and returns every result.
fn concurrently<T: Subject>(
    server: &TestServer,
    client: &Client<T>,
) -> Vec<Result<Services, Error>> {
    let host = server.host();
    std::thread::scope(|scope| {
        let callers: Vec<_> = (0..CALLERS)
            .map(|_| scope.spawn(|| client.discover(&host)))
            .collect();
        let end = Instant::now() + Duration::from_secs(10);
        while client.cache().waiting(&host) < CALLERS - 1 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
        let waiting = client.cache().waiting(&host);
        server.release();
        let results = callers
            .into_iter()
            .map(|c| c.join().expect("no panic"))
            .collect();
        assert_eq!(
            waiting,
            CALLERS - 1,
            "{}: callers waiting for the one request",
            T::NAME
        );
        results
    })
}

pub fn concurrent_discoveries_share_one_request<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#).hold());
    let client = build::<T>(builder::<T>());
    let results = concurrently::<T>(&server, &client);
    for result in results {
        let s = services::<T>(result);
        assert_eq!(service_url(&s, "modules.v1"), server.url("/m/"));
    }
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

pub fn concurrent_failure_is_shared_not_cached<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::new(503).hold());
    let client = build::<T>(builder::<T>());
    let results = concurrently::<T>(&server, &client);
    for result in results {
        let e = error::<T>(result, ErrorKind::Status);
        assert_eq!(e.status().map(|s| s.as_u16()), Some(503));
    }
    assert_paths::<T>(&server, &[WELL_KNOWN]);
    error::<T>(client.discover(&server.host()), ErrorKind::Status);
    assert_paths::<T>(&server, &[WELL_KNOWN, WELL_KNOWN]);
}
