//! The Content-Type rule (docs/behaviour.md, DISCO-6) through the machine.

mod common;

use common::{Reply, Scenario};
use tfdisco_core::Error;

fn with_content_type(value: Option<&str>) -> Result<(), Error> {
    let mut reply = Reply::new(200);
    if let Some(v) = value {
        reply = reply.header("Content-Type", v);
    }
    Scenario::new("example.com")
        .reply(reply.body(br#"{"modules.v1": "/m/"}"#))
        .run()
        .result
        .map(|_| ())
}

#[test]
fn json_with_parameters_case_and_whitespace_is_accepted() {
    for v in [
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=latin-1",
        "APPLICATION/JSON",
        " application/json ",
        "application/json;",
        "application/json; foo=\"bar\"",
    ] {
        assert!(with_content_type(Some(v)).is_ok(), "{v}");
    }
}

#[test]
fn missing_and_malformed_types_name_the_value() {
    for v in [
        None,
        Some(""),
        Some("application/json; charset"),
        Some("application/json, text/plain"),
        Some("application/json;; charset=utf-8"),
        Some("json"),
    ] {
        match with_content_type(v) {
            Err(Error::MalformedContentType { value, url }) => {
                assert_eq!(value, v.unwrap_or(""));
                assert_eq!(
                    url.as_str(),
                    "https://example.com/.well-known/terraform.json"
                );
            }
            other => panic!("{v:?}: want MalformedContentType, got {other:?}"),
        }
    }
    let e = with_content_type(Some("application/json, text/plain")).expect_err("malformed");
    assert_eq!(
        e.to_string(),
        "discovery URL https://example.com/.well-known/terraform.json has a malformed \
         Content-Type \"application/json, text/plain\""
    );
}

#[test]
fn other_media_types_are_unsupported() {
    for (v, media) in [
        ("text/json", "text/json"),
        ("application/x-json", "application/x-json"),
        ("application/vnd.api+json", "application/vnd.api+json"),
        ("Text/Plain; charset=utf-8", "text/plain"),
        ("application/octet-stream", "application/octet-stream"),
    ] {
        match with_content_type(Some(v)) {
            Err(Error::UnsupportedContentType { media_type, .. }) => assert_eq!(media_type, media),
            other => panic!("{v}: want UnsupportedContentType, got {other:?}"),
        }
    }
}

#[test]
fn only_the_first_header_counts() {
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .header("Content-Type", "text/html")
                .body(b"{}"),
        )
        .run();
    assert!(out.result.is_ok());
}
