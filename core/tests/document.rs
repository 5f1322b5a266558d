//! Reading the document: JSON rules of go-anchors §2.3 step 11.

mod common;

use common::{Reply, Scenario};
use tfdisco_core::{Error, ErrorKind};

fn discover(body: &[u8]) -> Result<tfdisco_core::Services, Error> {
    Scenario::new("example.com")
        .reply(
            Reply::new(200)
                .header("Content-Type", "application/json")
                .body(body),
        )
        .run()
        .result
}

#[test]
fn keeps_document_order_and_raw_values() {
    let s = discover(br#"{"z.v1": "/z/", "login.v1": {"client": "c"}, "a.v1": 7, "m.v1": null}"#)
        .expect("valid");
    let ids: Vec<&str> = s.iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["z.v1", "login.v1", "a.v1", "m.v1"]);
    assert_eq!(s.get("a.v1"), Some(&serde_json::json!(7)));
    assert_eq!(s.get("m.v1"), Some(&serde_json::Value::Null));
    assert_eq!(s.len(), 4);
}

#[test]
fn duplicate_keys_keep_the_last_value() {
    let s = discover(br#"{"modules.v1": "/old/", "modules.v1": "/new/"}"#).expect("valid");
    assert_eq!(s.len(), 1);
    assert_eq!(s.service_url("modules.v1").expect("url").path(), "/new/");
}

#[test]
fn invalid_utf8_inside_strings_is_replaced() {
    let s = discover(b"{\"modules.v1\": \"/caf\xe9/\"}").expect("Go replaces it with U+FFFD");
    assert_eq!(
        s.service_url("modules.v1").expect("url").path(),
        "/caf%EF%BF%BD/"
    );
}

#[test]
fn non_objects_and_broken_json_are_errors_with_position() {
    for body in [
        &b""[..],
        b"[]",
        b"\"modules\"",
        b"42",
        b"true",
        b"\xef\xbb\xbf{}",
        b"{} trailing",
        b"{\"a\": 1,}",
        b"{\"thingy.v1\": \"htt",
        b"{'a': 1}",
    ] {
        match discover(body) {
            Err(Error::InvalidJson { message, url }) => {
                assert!(message.contains("line"), "{message}");
                assert_eq!(
                    url.as_str(),
                    "https://example.com/.well-known/terraform.json"
                );
            }
            other => panic!(
                "{:?}: want InvalidJson, got {other:?}",
                String::from_utf8_lossy(body)
            ),
        }
    }
    let e = discover(b"[]").expect_err("array");
    assert_eq!(
        e.to_string(),
        "failed to decode discovery document from https://example.com/.well-known/terraform.json \
         as a JSON object: invalid type: sequence, expected a JSON object at line 1 column 2"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut body = b"{\"a.v1\": ".to_vec();
    body.extend(std::iter::repeat_n(b'[', 100_000));
    body.extend(std::iter::repeat_n(b']', 100_000));
    body.push(b'}');
    assert_eq!(
        discover(&body).expect_err("too deep").kind(),
        ErrorKind::Json
    );
}
