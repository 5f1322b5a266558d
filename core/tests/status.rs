//! Status codes: 200 and 404 are answers, redirects are followed, the rest fail.

mod common;

use common::{Reply, Scenario};
use tfdisco_core::{Error, ErrorKind};

#[test]
fn not_found_means_no_services() {
    let out = Scenario::new("example.com").reply(Reply::new(404)).run();
    let services = out.services();
    assert!(!services.has_document());
    assert!(services.is_empty());
    assert_eq!(
        services.service_url("modules.v1").expect_err("none").kind(),
        ErrorKind::ServiceNotProvided
    );
}

#[test]
fn a_404_body_and_content_type_are_ignored() {
    let out = Scenario::new("example.com")
        .reply(
            Reply::new(404)
                .header("Content-Type", "text/html")
                .body(b"<h1>nope</h1>"),
        )
        .run();
    assert!(!out.services().has_document());
    assert_eq!(out.bytes_sent, 0);
}

#[test]
fn null_means_no_services_and_empty_object_means_none_listed() {
    let out = Scenario::new("example.com")
        .reply(Reply::json("null"))
        .run();
    assert!(!out.services().has_document());
    let out = Scenario::new("example.com")
        .reply(Reply::json(" {} "))
        .run();
    assert!(out.services().has_document());
    assert!(out.services().is_empty());
}

#[test]
fn every_other_status_is_an_error_naming_status_and_url() {
    for code in [500, 502, 503, 204, 201, 206, 401, 403, 410, 418, 599] {
        let out = Scenario::new("example.com")
            .reply(Reply::json("{}").header("X", "y"))
            .run();
        assert!(out.result.is_ok());
        let out = Scenario::new("example.com").reply(Reply::new(code)).run();
        match out.error() {
            Error::Status { status, url } => {
                assert_eq!(status.as_u16(), code);
                assert_eq!(
                    url.as_str(),
                    "https://example.com/.well-known/terraform.json"
                );
            }
            other => panic!("{code}: want a status error, got {other:?}"),
        }
    }
    let out = Scenario::new("example.com").reply(Reply::new(500)).run();
    assert_eq!(
        out.error().to_string(),
        "failed to request discovery document: 500 Internal Server Error \
         (GET https://example.com/.well-known/terraform.json)"
    );
    assert_eq!(out.error().status().map(|s| s.as_u16()), Some(500));
}

#[test]
fn transport_failures_are_network_errors() {
    use tfdisco_core::TransportErrorKind;
    for kind in [
        TransportErrorKind::Connect,
        TransportErrorKind::Tls,
        TransportErrorKind::Io,
    ] {
        let out = Scenario::new("example.com").reply(Reply::Fail(kind)).run();
        match out.error() {
            Error::Transport { error, url } => {
                assert_eq!(error.kind(), kind);
                assert_eq!(
                    url.as_str(),
                    "https://example.com/.well-known/terraform.json"
                );
            }
            other => panic!("want a transport error, got {other:?}"),
        }
        assert_eq!(
            out.error().to_string(),
            "failed to request discovery document: \
             Get \"https://example.com/.well-known/terraform.json\": simulated failure"
        );
    }
    // Nobody listening at all.
    let out = Scenario::new("nowhere.example").run();
    assert_eq!(out.error().kind(), ErrorKind::Network);
}
