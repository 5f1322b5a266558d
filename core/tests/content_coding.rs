//! `Content-Encoding`: gzip is asked for and decoded in the core, the size
//! limit counts decoded bytes, anything else is refused by name
//! (docs/behaviour.md, GZIP-1 to GZIP-3).

mod common;

use std::io::Write;

use common::{Reply, Scenario};
use flate2::Compression;
use flate2::write::GzEncoder;
use tfdisco_core::{Error, ErrorKind};

const DOC: &str = r#"{"modules.v1": "/m/", "providers.v1": "https://p.example/v1/"}"#;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::best());
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory")
}

fn gzipped(body: &[u8]) -> Reply {
    Reply::new(200)
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "gzip")
        .body(body)
}

#[test]
fn gzip_is_asked_for_and_decoded() {
    let out = Scenario::new("example.com")
        .reply(gzipped(&gzip(DOC.as_bytes())))
        .run();
    assert_eq!(
        out.services()
            .service_url("providers.v1")
            .expect("listed")
            .as_str(),
        "https://p.example/v1/"
    );
    assert_eq!(
        out.seen[0]
            .headers
            .get("accept-encoding")
            .map(|v| v.as_bytes()),
        Some(&b"gzip"[..])
    );
}

#[test]
fn gzip_in_one_byte_chunks_without_a_length() {
    let compressed = gzip(DOC.as_bytes());
    let chunks: Vec<&[u8]> = compressed.chunks(1).collect();
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .header("Content-Encoding", "GZIP")
                .chunked(&chunks),
        )
        .run();
    assert_eq!(out.services().len(), 2);
}

#[test]
fn the_limit_counts_decoded_bytes_and_a_bomb_stops_early() {
    // 10 MiB of spaces after an object: about 10 KiB compressed.
    let mut doc = DOC.as_bytes().to_vec();
    doc.resize(10 << 20, b' ');
    let bomb = gzip(&doc);
    assert!(bomb.len() < 64 * 1024, "{}", bomb.len());
    let chunks: Vec<&[u8]> = bomb.chunks(1024).collect();
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .header("Content-Encoding", "gzip")
                .header("Content-Length", &bomb.len().to_string())
                .chunked(&chunks),
        )
        .run();
    assert!(
        matches!(
            out.error(),
            Error::BodyTooLarge {
                limit: 1_048_576,
                declared: None,
                ..
            }
        ),
        "{:?}",
        out.error()
    );
    assert!(
        out.bytes_sent < bomb.len() as u64 / 2,
        "reading stopped once 1 MiB was decoded: {} of {}",
        out.bytes_sent,
        bomb.len()
    );
    // Exactly the limit, decoded, is fine.
    let mut exact = DOC.as_bytes().to_vec();
    exact.resize(1 << 20, b' ');
    let out = Scenario::new("example.com")
        .reply(gzipped(&gzip(&exact)))
        .run();
    assert_eq!(out.services().len(), 2);
}

#[test]
fn other_encodings_are_refused_by_name() {
    for encoding in ["br", "deflate", "x-gzip", "gzip, br"] {
        let out = Scenario::new("example.com")
            .reply(Reply::json(DOC).header("Content-Encoding", encoding))
            .run();
        let e = out.error();
        assert_eq!(e.kind(), ErrorKind::ContentEncoding, "{encoding}");
        assert!(
            e.to_string().contains(&format!(
                "unsupported Content-Encoding {encoding:?} (gzip and identity are accepted)"
            )),
            "{e}"
        );
        assert_eq!(out.bytes_sent, 0, "the body is not read");
    }
    let out = Scenario::new("example.com")
        .reply(Reply::json(DOC).header("Content-Encoding", "identity"))
        .run();
    assert_eq!(out.services().len(), 2);
}

#[test]
fn broken_gzip_is_an_error() {
    let mut truncated = gzip(DOC.as_bytes());
    truncated.truncate(truncated.len() - 4);
    for body in [&b"{\"not\": \"gzip\"}"[..], &truncated] {
        let out = Scenario::new("example.com").reply(gzipped(body)).run();
        assert!(
            matches!(out.error(), Error::InvalidGzip { .. }),
            "{:?}",
            out.error()
        );
        assert_eq!(out.error().kind(), ErrorKind::ContentEncoding);
    }
}
