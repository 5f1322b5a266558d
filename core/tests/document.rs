//! Reading the document: Go's JSON rules (docs/behaviour.md, DISCO-8 to
//! DISCO-11), its nesting limit included.

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
    let text = |id| s.get(id).map(|raw| raw.get());
    assert_eq!(text("a.v1"), Some("7"));
    assert_eq!(text("m.v1"), Some("null"));
    assert_eq!(text("login.v1"), Some(r#"{"client": "c"}"#));
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

/// `{"x.v1": [[…0…]]}` nested `depth` levels, the object included.
fn nested(depth: usize) -> Vec<u8> {
    let mut body = b"{\"x.v1\": ".to_vec();
    body.extend(std::iter::repeat_n(b'[', depth - 1));
    body.push(b'0');
    body.extend(std::iter::repeat_n(b']', depth - 1));
    body.push(b'}');
    body
}

/// Runs `f` on a thread with a 64 KiB stack: deep recursion would crash it.
fn on_a_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no stack overflow")
}

#[test]
fn as_deep_as_go_accepts_on_a_small_stack() {
    on_a_small_stack(|| {
        let s = discover(&nested(10_000)).expect("Go accepts 10 000 levels");
        let copy = s.with_dialect(tfdisco_core::Dialect::Terraform);
        assert_eq!(copy.get("x.v1").map(|v| v.get().len()), Some(2 * 9_999 + 1));
        // Reading it as a URL looks at one level only.
        assert_eq!(
            s.service_url("x.v1").expect_err("not a string").kind(),
            ErrorKind::VersionNotSupported
        );
        drop((s, copy));
    });
}

#[test]
fn deeper_than_go_accepts_is_an_error_not_a_crash() {
    on_a_small_stack(|| {
        let e = discover(&nested(10_001)).expect_err("too deep");
        assert_eq!(e.kind(), ErrorKind::Json);
        assert!(e.to_string().contains("exceeded max depth"), "{e}");
        // 1 MiB of `[`.
        let e = discover(&vec![b'['; 1 << 20]).expect_err("too deep");
        assert!(e.to_string().contains("exceeded max depth"), "{e}");
    });
}
