//! Redirects: every followed status, relative and absolute `Location`,
//! other ports and hosts, broken redirects, the limit, https→http (D5).

#![allow(missing_docs)]

use tfdisco_core::{Error, ErrorKind, Services, StaticCredentials};

use super::{
    Builder, Subject, WELL_KNOWN, assert_paths, bearer, build, builder, error, hostname,
    service_url, services, token,
};
use crate::{Reply, Seen, TestServer};

/// `status` with a relative `Location`, then with an absolute one, then the
/// document, whose relative URL resolves against the final URL.
fn redirect_chain<T: Subject>(status: u16) {
    let server = TestServer::start();
    server
        .route(WELL_KNOWN, Reply::redirect(status, "/hop1"))
        .route("/hop1", Reply::redirect(status, &server.url("/hop2/")))
        .route("/hop2/", Reply::json(r#"{"modules.v1": "api/"}"#));
    let client = build::<T>(builder::<T>());
    let s = services::<T>(client.discover(&server.host()));
    assert_eq!(s.discovery_url().as_str(), server.url("/hop2/"));
    assert_eq!(service_url(&s, "modules.v1"), server.url("/hop2/api/"));
    assert_paths::<T>(&server, &[WELL_KNOWN, "/hop1", "/hop2/"]);
    assert!(
        server.requests().iter().all(|r| r.method == "GET"),
        "{status} keeps GET"
    );
}

pub fn redirect_301<T: Subject>() {
    redirect_chain::<T>(301);
}

pub fn redirect_302<T: Subject>() {
    redirect_chain::<T>(302);
}

pub fn redirect_303<T: Subject>() {
    redirect_chain::<T>(303);
}

pub fn redirect_307<T: Subject>() {
    redirect_chain::<T>(307);
}

pub fn redirect_308<T: Subject>() {
    redirect_chain::<T>(308);
}

/// Discovers `server` with a client from `builder`, redirected by
/// `status` to `target`, which serves modules at `/m/`: the services and
/// the two requests the server saw.
fn redirected<T: Subject>(
    server: &TestServer,
    builder: Builder<T>,
    status: u16,
    target: &str,
) -> (Services, Vec<Seen>) {
    server
        .route(WELL_KNOWN, Reply::redirect(status, target))
        .route("/disco", Reply::json(r#"{"modules.v1": "/m/"}"#));
    let client = build::<T>(builder);
    let s = services::<T>(client.discover(&server.host()));
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "{}", T::NAME);
    (s, seen)
}

pub fn redirect_to_other_port<T: Subject>() {
    let server = TestServer::start();
    let target = format!("https://localhost:{}/disco", server.other_port());
    let (s, seen) = redirected::<T>(&server, builder::<T>(), 302, &target);
    assert_eq!(s.discovery_url().as_str(), target);
    assert_eq!(seen[1].port, server.other_port());
    assert_eq!(
        seen[1].host(),
        Some(&*format!("localhost:{}", server.other_port()))
    );
}

pub fn redirect_to_other_host<T: Subject>() {
    let server = TestServer::start();
    let target = format!("https://127.0.0.1:{}/disco", server.port());
    let (s, seen) = redirected::<T>(&server, builder::<T>(), 307, &target);
    assert_eq!(
        service_url(&s, "modules.v1"),
        format!("https://127.0.0.1:{}/m/", server.port())
    );
    assert_eq!(
        seen[1].host(),
        Some(&*format!("127.0.0.1:{}", server.port()))
    );
}

/// Discovery answered with the broken redirect `reply`: a redirect error,
/// and nothing asked after it.
fn broken_redirect<T: Subject>(reply: Reply) -> Error {
    let server = TestServer::start();
    server.route(WELL_KNOWN, reply);
    let client = build::<T>(builder::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Redirect);
    assert_paths::<T>(&server, &[WELL_KNOWN]);
    e
}

pub fn redirect_without_location<T: Subject>() {
    let e = broken_redirect::<T>(Reply::new(302).body(b"nowhere"));
    assert!(matches!(e, Error::MissingLocation { .. }), "{e:?}");
}

pub fn redirect_with_garbage_location<T: Subject>() {
    let e = broken_redirect::<T>(Reply::new(301).header_bytes("Location", b"\xff\xfe/\x80garbage"));
    assert!(matches!(e, Error::InvalidLocation { .. }), "{e:?}");
}

pub fn redirect_chain_at_the_limit<T: Subject>() {
    let server = TestServer::start();
    server
        .route(WELL_KNOWN, Reply::redirect(302, "/r1"))
        .route("/r1", Reply::redirect(302, "/r2"))
        .route("/r2", Reply::redirect(302, "/r3"))
        .route("/r3", Reply::json("{}"));
    let client = build::<T>(builder::<T>());
    services::<T>(client.discover(&server.host()));
    assert_paths::<T>(&server, &[WELL_KNOWN, "/r1", "/r2", "/r3"]);
}

pub fn redirect_loop_past_the_limit<T: Subject>() {
    let server = TestServer::start();
    server
        .route(WELL_KNOWN, Reply::redirect(302, "/loop"))
        .route("/loop", Reply::redirect(302, "/loop"));
    let client = build::<T>(builder::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Redirect);
    assert!(matches!(e, Error::TooManyRedirects { max: 3, .. }), "{e:?}");
    assert_paths::<T>(&server, &[WELL_KNOWN, "/loop", "/loop", "/loop"]);
}

pub fn https_to_http_is_refused<T: Subject>() {
    let server = TestServer::start();
    let target = format!("http://localhost:{}/disco", server.http_port());
    server
        .route(WELL_KNOWN, Reply::redirect(302, &target))
        .route("/disco", Reply::json("{}"));
    let client = build::<T>(builder::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Redirect);
    assert!(matches!(e, Error::InsecureRedirect { .. }), "{e:?}");
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

pub fn https_to_http_for_a_development_host<T: Subject>() {
    let server = TestServer::start();
    let dev = hostname(&format!("localhost:{}", server.http_port()));
    let target = format!("http://localhost:{}/disco", server.http_port());
    let builder = builder::<T>()
        .plain_http_host(dev)
        .credentials(StaticCredentials::new().with(server.host(), token("dev")));
    let (s, seen) = redirected::<T>(&server, builder, 302, &target);
    assert_eq!(s.discovery_url().as_str(), target);
    assert_eq!(seen[0].authorization(), Some(&*bearer("dev")));
    assert!(!seen[1].tls);
    assert_eq!(
        seen[1].authorization(),
        None,
        "credentials never go over http"
    );
}

pub fn plain_http_development_host<T: Subject>() {
    let server = TestServer::start();
    let dev = hostname(&format!("localhost:{}", server.http_port()));
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    let client = build::<T>(
        builder::<T>()
            .plain_http_host(dev.clone())
            .credentials(StaticCredentials::new().with(dev.clone(), token("dev"))),
    );
    let s = services::<T>(client.discover(&dev));
    assert_eq!(
        service_url(&s, "modules.v1"),
        format!("http://localhost:{}/m/", server.http_port())
    );
    let seen = server.requests();
    assert_eq!(seen.len(), 1, "{}", T::NAME);
    assert!(!seen[0].tls);
    assert_eq!(seen[0].authorization(), None);
}
