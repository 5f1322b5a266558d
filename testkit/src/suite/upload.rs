//! Requests that write (docs/behaviour.md, UPLOAD): the goal's method and
//! body reach the server as given on every transport, a 307 sends them
//! again, a 303 makes a GET without the body, and a HEAD reads no body.

#![allow(missing_docs)]

use std::time::Instant;

use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::{HeaderMap, HeaderValue, Method, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{Body, Error, Goal, Hostname, Next, RequestKind, Transfer};

use super::{Subject, build, builder};
use crate::{Reply, Seen, TestServer};

/// A request of `method`, with `body` if any; its answer is the status.
struct Write {
    host: Hostname,
    method: Method,
    body: Option<&'static [u8]>,
}

impl Goal for Write {
    type Output = u16;
    const NAME: &'static str = "write";
    const KIND: RequestKind = RequestKind::Oci;

    fn host(&self) -> &Hostname {
        &self.host
    }

    fn method(&self) -> Method {
        self.method.clone()
    }

    fn body(&self) -> Option<Body> {
        self.body.map(|bytes| Body {
            content_type: HeaderValue::from_static("application/octet-stream"),
            bytes: Bytes::from_static(bytes),
        })
    }

    fn on_head(&mut self, _: &Url, status: StatusCode, _: &HeaderMap) -> Next<u16> {
        Next::Finish(Ok(status.as_u16()))
    }

    fn on_body(&mut self, _: &Url, _: Vec<u8>) -> Result<u16, Error> {
        Ok(0)
    }
}

fn write<T: Subject>(
    server: &TestServer,
    path: &str,
    method: Method,
    body: Option<&'static [u8]>,
) -> u16 {
    let client = build::<T>(builder::<T>());
    let goal = Write {
        host: server.host(),
        method,
        body,
    };
    let url = Url::parse(&server.url(path)).expect("a URL");
    let config = client.cache().config();
    let mut transfer = Transfer::get(goal, url, &config, None, Instant::now()).expect("starts");
    match client.drive(&mut transfer, None) {
        Ok(status) => status,
        Err(e) => panic!("{}: {e}", T::NAME),
    }
}

pub fn a_write_sends_its_method_and_body<T: Subject>() {
    let server = TestServer::start();
    server.route("/v2/a/blobs/uploads/1", Reply::new(201));
    let body: &'static [u8] = b"layer bytes, 24 of them.";
    assert_eq!(
        write::<T>(&server, "/v2/a/blobs/uploads/1", Method::PUT, Some(body)),
        201
    );
    let seen = server.requests();
    assert_eq!(seen.len(), 1, "{}", T::NAME);
    assert_eq!(seen[0].method, "PUT", "{}", T::NAME);
    assert_eq!(seen[0].body, body, "{}", T::NAME);
    assert_eq!(
        seen[0].header("content-type"),
        Some("application/octet-stream"),
        "{}",
        T::NAME
    );
    assert_eq!(seen[0].header("content-length"), Some("24"), "{}", T::NAME);
    assert_eq!(seen[0].header("expect"), None, "{}", T::NAME);
}

/// A write of `body` with `method` to `path`, which answers `status`
/// with `Location: location`, where `then` is the answer: the two requests
/// the server saw.
fn redirected_write<T: Subject>(
    path: &str,
    (status, location): (u16, &str),
    then: u16,
    method: Method,
    body: &'static [u8],
) -> Vec<Seen> {
    let server = TestServer::start();
    server.route(path, Reply::new(status).header("Location", location));
    server.route(location, Reply::new(then));
    assert_eq!(write::<T>(&server, path, method, Some(body)), then);
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "{}", T::NAME);
    seen
}

pub fn a_307_sends_the_write_again_a_303_makes_a_get<T: Subject>() {
    let body: &'static [u8] = b"again";
    let path = "/v2/a/blobs/uploads/2";
    let seen = redirected_write::<T>(path, (307, "/storage/2"), 201, Method::PUT, body);
    assert_eq!(
        (seen[1].method.as_str(), seen[1].body.as_slice()),
        ("PUT", body)
    );

    let path = "/v2/a/blobs/uploads/3";
    let seen = redirected_write::<T>(path, (303, "/status/3"), 200, Method::POST, body);
    assert_eq!(seen[0].method, "POST", "{}", T::NAME);
    assert_eq!((seen[1].method.as_str(), seen[1].body.len()), ("GET", 0));
    assert_eq!(seen[1].header("content-type"), None, "{}", T::NAME);
}

pub fn a_head_reads_no_body<T: Subject>() {
    let server = TestServer::start();
    server.route(
        "/v2/a/blobs/sha256:00",
        Reply::new(200).header("Content-Length", "1048576"),
    );
    assert_eq!(
        write::<T>(&server, "/v2/a/blobs/sha256:00", Method::HEAD, None),
        200
    );
    // And the connection serves a GET after it.
    server.route("/v2/a/blobs/sha256:01", Reply::new(404));
    assert_eq!(
        write::<T>(&server, "/v2/a/blobs/sha256:01", Method::GET, None),
        404
    );
    let seen = server.requests();
    assert_eq!(seen[0].method, "HEAD", "{}", T::NAME);
    assert_eq!(seen[1].method, "GET", "{}", T::NAME);
}
