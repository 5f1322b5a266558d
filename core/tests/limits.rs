//! D6: the document size limit, declared or streamed, enforced while reading.

mod common;

use common::{Reply, Scenario};
use tfdisco_core::{DEFAULT_BODY_LIMIT, Error};

const MIB: usize = 1024 * 1024;

/// A valid JSON object of exactly `n` bytes.
fn doc_of(n: usize) -> Vec<u8> {
    let mut body = br#"{"modules.v1": "/m/", "pad": ""#.to_vec();
    let tail = b"\"}";
    body.resize(n - tail.len(), b'x');
    body.extend_from_slice(tail);
    assert_eq!(body.len(), n);
    body
}

#[test]
fn exactly_the_limit_is_fine() {
    assert_eq!(DEFAULT_BODY_LIMIT, MIB as u64);
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .body(&doc_of(MIB)),
        )
        .run();
    assert!(out.result.is_ok());
    let chunks: Vec<Vec<u8>> = doc_of(MIB).chunks(16 * 1024).map(<[u8]>::to_vec).collect();
    let parts: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .chunked(&parts),
        )
        .run();
    assert!(out.result.is_ok());
}

#[test]
fn a_declared_length_over_the_limit_fails_before_reading() {
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .body(&doc_of(MIB + 1)),
        )
        .run();
    assert!(
        matches!(out.error(), Error::BodyTooLarge { declared: Some(n), .. } if *n == MIB as u64 + 1)
    );
    assert_eq!(out.bytes_sent, 0, "not one byte of the body is read");
    assert_eq!(
        out.error().to_string(),
        "discovery doc response from https://example.com/.well-known/terraform.json is too large \
         (got 1048577 bytes; limit 1048576)"
    );
}

#[test]
fn a_streamed_body_over_the_limit_fails_as_soon_as_it_passes_it() {
    // 4 KiB chunks of a 3 MiB body of unknown length.
    let body = doc_of(3 * MIB);
    let chunks: Vec<&[u8]> = body.chunks(4096).collect();
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .chunked(&chunks),
        )
        .run();
    assert!(matches!(
        out.error(),
        Error::BodyTooLarge { declared: None, .. }
    ));
    assert!(
        out.bytes_sent <= MIB as u64 + 4096,
        "the machine stopped the transport early: {} bytes read",
        out.bytes_sent
    );
}

#[test]
fn valid_json_followed_by_whitespace_past_the_limit_is_an_error_not_a_truncation() {
    // Go silently truncates unknown-length bodies, so this would succeed there.
    let mut body = b"{}".to_vec();
    body.resize(MIB + 10, b' ');
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .chunked(&[&body]),
        )
        .run();
    assert!(matches!(out.error(), Error::BodyTooLarge { .. }));
}

#[test]
fn the_limit_is_configurable() {
    let out = Scenario::new("example.com")
        .config(|c| c.with_body_limit(10))
        .reply(Reply::json(r#"{"a.v1": "/a/"}"#))
        .run();
    assert!(matches!(out.error(), Error::BodyTooLarge { limit: 10, .. }));
    let out = Scenario::new("example.com")
        .config(|c| c.with_body_limit(2))
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .chunked(&[b"{", b"}"]),
        )
        .run();
    assert!(out.result.is_ok());
}

#[test]
fn a_lying_content_length_is_still_bounded() {
    let body = doc_of(2 * MIB);
    let chunks: Vec<&[u8]> = body.chunks(64 * 1024).collect();
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .header("Content-Length", "100")
                .chunked(&chunks),
        )
        .run();
    assert!(matches!(out.error(), Error::BodyTooLarge { .. }));
    assert!(out.bytes_sent <= MIB as u64 + 64 * 1024);
}
