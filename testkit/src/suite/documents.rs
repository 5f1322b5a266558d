//! Documents, URLs, content types, statuses and JSON edge cases.

#![allow(missing_docs)]

use tfdisco_core::{Error, ErrorKind, Services};

use super::{Subject, WELL_KNOWN, assert_paths, build, builder, error, service_url, services};
use crate::{Reply, TestServer};

/// Serves `reply` at the discovery path and discovers the server once.
fn discover_with<T: Subject>(reply: Reply) -> (TestServer, Result<Services, Error>) {
    let server = TestServer::start();
    server.route(WELL_KNOWN, reply);
    let client = build::<T>(builder::<T>());
    let result = client.discover(&server.host());
    assert_paths::<T>(&server, &[WELL_KNOWN]);
    (server, result)
}

pub fn discovers_absolute_urls<T: Subject>() {
    let (server, result) = discover_with::<T>(Reply::json(
        r#"{"modules.v1": "https://modules.example.com/v1/", "login.v1": {"client": "cli"}}"#,
    ));
    let s = services::<T>(result);
    assert_eq!(s.discovery_url().as_str(), server.url(WELL_KNOWN));
    assert_eq!(s.host(), &server.host());
    assert_eq!(
        service_url(&s, "modules.v1"),
        "https://modules.example.com/v1/"
    );
    assert_eq!(s.len(), 2);
    let seen = &server.requests()[0];
    assert_eq!(
        (seen.method.as_str(), seen.tls),
        ("GET", true),
        "{}",
        T::NAME
    );
    assert_eq!(seen.host(), Some(&*format!("localhost:{}", server.port())));
    assert_eq!(seen.header("accept"), Some("application/json"));
    assert_eq!(seen.header("user-agent"), Some("OpenTofu/1.12.6"));
    assert_eq!(seen.authorization(), None);
}

pub fn resolves_relative_urls<T: Subject>() {
    let (server, result) = discover_with::<T>(Reply::json(
        r#"{"a.v1": "api/", "b.v1": "/api/", "c.v1": "../api/"}"#,
    ));
    let s = services::<T>(result);
    assert_eq!(service_url(&s, "a.v1"), server.url("/.well-known/api/"));
    assert_eq!(service_url(&s, "b.v1"), server.url("/api/"));
    assert_eq!(service_url(&s, "c.v1"), server.url("/api/"));
}

pub fn keeps_query_drops_fragment<T: Subject>() {
    let (server, result) =
        discover_with::<T>(Reply::json(r#"{"modules.v1": "/m/?x=1&y=two#fragment"}"#));
    let s = services::<T>(result);
    assert_eq!(service_url(&s, "modules.v1"), server.url("/m/?x=1&y=two"));
}

fn with_content_type<T: Subject>(value: Option<&str>) -> Result<Services, Error> {
    let mut reply = Reply::new(200);
    if let Some(value) = value {
        reply = reply.header("Content-Type", value);
    }
    discover_with::<T>(reply.body(br#"{"modules.v1": "/m/"}"#)).1
}

pub fn accepts_charset_parameter<T: Subject>() {
    let s = services::<T>(with_content_type::<T>(Some(
        "application/json; charset=utf-8",
    )));
    assert_eq!(s.len(), 1);
}

pub fn accepts_upper_case_media_type<T: Subject>() {
    let s = services::<T>(with_content_type::<T>(Some("Application/JSON")));
    assert_eq!(s.len(), 1);
}

pub fn rejects_missing_content_type<T: Subject>() {
    let e = error::<T>(with_content_type::<T>(None), ErrorKind::ContentType);
    assert!(
        matches!(e, Error::MalformedContentType { ref value, .. } if value.is_empty()),
        "{e:?}"
    );
}

pub fn rejects_malformed_content_type<T: Subject>() {
    let e = error::<T>(
        with_content_type::<T>(Some("application/json; charset")),
        ErrorKind::ContentType,
    );
    assert!(matches!(e, Error::MalformedContentType { .. }), "{e:?}");
}

pub fn rejects_unsupported_content_type<T: Subject>() {
    let e = error::<T>(
        with_content_type::<T>(Some("text/plain")),
        ErrorKind::ContentType,
    );
    assert!(
        matches!(e, Error::UnsupportedContentType { ref media_type, .. } if media_type == "text/plain"),
        "{e:?}"
    );
}

pub fn not_found_means_no_services<T: Subject>() {
    let (server, result) = discover_with::<T>(Reply::new(404).body(b"not here"));
    let s = services::<T>(result);
    assert!(s.is_empty() && !s.has_document(), "{s:?}");
    assert_eq!(s.discovery_url().as_str(), server.url(WELL_KNOWN));
}

pub fn null_means_no_services<T: Subject>() {
    let s = services::<T>(discover_with::<T>(Reply::json("null")).1);
    assert!(s.is_empty(), "{s:?}");
}

pub fn empty_object_has_no_services<T: Subject>() {
    let s = services::<T>(discover_with::<T>(Reply::json("{}")).1);
    assert!(s.is_empty(), "{s:?}");
}

pub fn status_500_is_an_error<T: Subject>() {
    let e = error::<T>(
        discover_with::<T>(Reply::new(500).body(b"oops")).1,
        ErrorKind::Status,
    );
    assert_eq!(e.status().map(|s| s.as_u16()), Some(500));
}

pub fn status_204_is_an_error<T: Subject>() {
    let e = error::<T>(discover_with::<T>(Reply::new(204)).1, ErrorKind::Status);
    assert_eq!(e.status().map(|s| s.as_u16()), Some(204));
}

fn with_body<T: Subject>(body: &[u8]) -> Result<Services, Error> {
    discover_with::<T>(
        Reply::new(200)
            .header("Content-Type", "application/json")
            .body(body),
    )
    .1
}

pub fn invalid_utf8_is_replaced<T: Subject>() {
    let s = services::<T>(with_body::<T>(b"{\"modules.v1\": \"/caf\xe9/\"}"));
    assert_eq!(
        s.service_url("modules.v1")
            .map(|u| u.path().to_owned())
            .ok()
            .as_deref(),
        Some("/caf%EF%BF%BD/")
    );
}

pub fn byte_order_mark_is_an_error<T: Subject>() {
    error::<T>(with_body::<T>(b"\xef\xbb\xbf{}"), ErrorKind::Json);
}

pub fn duplicate_keys_keep_the_last<T: Subject>() {
    let s = services::<T>(with_body::<T>(
        br#"{"modules.v1": "/old/", "modules.v1": "/new/"}"#,
    ));
    assert_eq!(s.len(), 1);
    assert!(service_url(&s, "modules.v1").ends_with("/new/"));
}

pub fn deep_nesting_is_an_error<T: Subject>() {
    let mut body = b"{\"a.v1\": ".to_vec();
    body.extend(std::iter::repeat_n(b'[', 100_000));
    body.extend(std::iter::repeat_n(b']', 100_000));
    body.push(b'}');
    error::<T>(with_body::<T>(&body), ErrorKind::Json);
}

/// Go accepts 10 000 levels of nesting; so does every transport, on its
/// own threads.
pub fn nesting_as_deep_as_go_accepts<T: Subject>() {
    let depth = 10_000 - 1;
    let mut body = b"{\"modules.v1\": \"/m/\", \"deep.v1\": ".to_vec();
    body.extend(std::iter::repeat_n(b'[', depth));
    body.extend(std::iter::repeat_n(b']', depth));
    body.push(b'}');
    let s = services::<T>(with_body::<T>(&body));
    assert_eq!(s.len(), 2, "{}", T::NAME);
}

pub fn large_response_header_is_fine<T: Subject>() {
    let big = "a".repeat(64 * 1024);
    let s = services::<T>(
        discover_with::<T>(Reply::json(r#"{"modules.v1": "/m/"}"#).header("X-Large", &big)).1,
    );
    assert_eq!(s.len(), 1);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory")
}

/// gzip is asked for, and decoded by the core whatever the transport.
pub fn gzip_document_is_decoded<T: Subject>() {
    let doc = br#"{"modules.v1": "/m/", "providers.v1": "https://p.example/v1/"}"#;
    let (server, result) = discover_with::<T>(
        Reply::new(200)
            .header("Content-Type", "application/json")
            .header("Content-Encoding", "gzip")
            .body(&gzip(doc)),
    );
    let s = services::<T>(result);
    assert_eq!(service_url(&s, "providers.v1"), "https://p.example/v1/");
    assert_eq!(
        server.requests()[0].header("accept-encoding"),
        Some("gzip"),
        "{}",
        T::NAME
    );
}

/// 10 MiB of gzip-compressed zeros: reading stops at the limit.
pub fn gzip_bomb_stops_at_the_limit<T: Subject>() {
    let bomb = gzip(&vec![0u8; 10 << 20]);
    let (server, result) = discover_with::<T>(
        Reply::new(200)
            .header("Content-Type", "application/json")
            .header("Content-Encoding", "gzip")
            .chunked([bomb])
            .chunk_size(1024),
    );
    error::<T>(result, ErrorKind::TooLarge);
    assert!(server.wait_finished(std::time::Duration::from_secs(10)));
}

pub fn unsupported_content_encoding_is_named<T: Subject>() {
    let (_, result) = discover_with::<T>(Reply::json("{}").header("Content-Encoding", "br"));
    let e = error::<T>(result, ErrorKind::ContentEncoding);
    assert!(e.to_string().contains("\"br\""), "{}: {e}", T::NAME);
}

/// A number no `float64` holds, anywhere in the document, fails it as it
/// fails Terraform's decoder (JSON-5); an underflowing one does not.
pub fn numbers_go_cannot_hold_are_refused<T: Subject>() {
    let (_, result) = discover_with::<T>(Reply::json(
        r#"{"modules.v1": "/m/", "login.v1": {"ports": [10000, 1e400]}}"#,
    ));
    let e = error::<T>(result, ErrorKind::Json);
    assert!(
        e.to_string()
            .contains("cannot unmarshal number 1e400 into Go value of type float64"),
        "{}: {e}",
        T::NAME
    );
    let (_, result) = discover_with::<T>(Reply::json(r#"{"modules.v1": "/m/", "x": 1e-400}"#));
    assert_eq!(services::<T>(result).len(), 2);
}
