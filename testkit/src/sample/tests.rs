//! The sample registry's answers, read off the wire (the test server's
//! plain-http port): what it serves, and registry-like 404s for the rest.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use super::{DOCUMENT, MODULES_PATH, NOT_FOUND, PROVIDERS, PROVIDERS_PATH, install};
use crate::TestServer;

/// `GET path` over plain http: the status, the `Content-Type` and the body.
fn get(server: &TestServer, path: &str) -> (u16, Option<String>, String) {
    let mut tcp = TcpStream::connect(("127.0.0.1", server.http_port())).expect("connect");
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = String::new();
    tcp.read_to_string(&mut response).expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let content_type = lines.find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-type")
            .then(|| value.trim().to_owned())
    });
    (status, content_type, body.to_owned())
}

#[test]
fn the_document_names_the_registry_paths() {
    assert!(DOCUMENT.contains(&format!(r#""modules.v1": "{MODULES_PATH}""#)));
    assert!(DOCUMENT.contains(&format!(r#""providers.v1": "{PROVIDERS_PATH}""#)));
}

#[test]
fn the_type_is_the_last_part_of_the_source() {
    assert_eq!(PROVIDERS[0].type_name(), "random");
}

#[test]
fn what_it_does_not_have_is_a_registry_404() {
    let server = TestServer::start();
    install(&server, DOCUMENT.as_bytes());
    // What it has.
    let (status, content_type, _) = get(&server, "/v1/providers/hashicorp/random/versions");
    assert_eq!(
        (status, content_type.as_deref()),
        (200, Some("application/json"))
    );
    let (status, _, _) = get(&server, "/v1/modules/hashicorp/consul/aws/0.12.1/download");
    assert_eq!(status, 204);
    // Unknown providers, modules, versions and platforms: registry.terraform.io's 404.
    for path in [
        "/v1/providers/acme/none/versions",
        "/v1/providers/hashicorp/random/9.9.9/download/linux/amd64",
        "/v1/providers/hashicorp/random/3.6.0/download/freebsd/amd64",
        "/v1/modules/acme/none/aws/versions",
        "/v1/modules/hashicorp/consul/aws/9.9.9/download",
    ] {
        let answer = get(&server, path);
        assert_eq!(
            answer,
            (
                404,
                Some("application/json".to_owned()),
                NOT_FOUND.to_owned()
            ),
            "{path}"
        );
    }
    // Elsewhere (package files, the OAuth endpoints, any other path): a
    // plain 404, not the test server's 500.
    for path in [
        "/downloads/random/3.6.0/SHA256SUMS",
        "/oauth/token",
        "/nothing/here",
    ] {
        let (status, content_type, _) = get(&server, path);
        assert_eq!(status, 404, "{path}");
        assert_eq!(content_type.as_deref(), Some("text/plain"), "{path}");
    }
}
