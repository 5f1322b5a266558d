//! The OAuth server without Terraform: `/authz` issues a code for a
//! challenge, `/token` gives a token for the right verifier only, and the
//! other services answer and record as the login goldens need.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use tfdisco_testkit::oauth_server::{
    AuthzAnswer, OAuthServer, OAuthSettings, TokenAnswer, s256_challenge,
};

/// An answer: status, headers (names lower case), body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// One HTTP/1.1 request over TLS to `localhost:port` (trusting the test
/// CA), `Connection: close`, the answer read to its end.
fn send(port: u16, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(tfdisco_testkit::pki().ca_pem().as_bytes()) {
        roots.add(cert.expect("the CA")).expect("trusted");
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    let name = ServerName::try_from("localhost").expect("a name");
    let tls = ClientConnection::new(Arc::new(config), name).expect("a TLS client");
    let tcp = TcpStream::connect(("127.0.0.1", port)).expect("connected");
    tcp.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut stream = StreamOwned::new(tls, tcp);
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("sent");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8(raw).expect("UTF-8");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_owned(),
    }
}

fn query(pairs: &[(&str, &str)]) -> String {
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (n, v) in pairs {
        out.append_pair(n, v);
    }
    out.finish()
}

const VERIFIER: &str = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9.123456789";
const REDIRECT: &str = "http://localhost:10005/login";

/// `GET /authz` as Terraform sends it; the code and state of the redirect.
fn authorize(server: &OAuthServer, challenge: &str) -> (String, String) {
    let target = format!(
        "/authz?{}",
        query(&[
            ("client_id", "terraform-cli"),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("state", "the-state"),
        ])
    );
    let answer = send(server.port(), "GET", &target, &[], "");
    assert_eq!(answer.status, 302, "{}", answer.body);
    let location = answer.header("location").expect("a location").to_owned();
    let (base, query) = location.split_once('?').expect("a query");
    assert_eq!(base, REDIRECT);
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .map(|(n, v)| (n.into_owned(), v.into_owned()))
        .collect();
    let get = |name: &str| {
        fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    (get("code"), get("state"))
}

fn exchange(server: &OAuthServer, code: &str, verifier: &str) -> Answer {
    let body = query(&[
        ("client_id", "terraform-cli"),
        ("code", code),
        ("code_verifier", verifier),
        ("grant_type", "authorization_code"),
        ("redirect_uri", REDIRECT),
    ]);
    send(
        server.port(),
        "POST",
        "/token",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &body,
    )
}

#[test]
fn pkce_a_bad_verifier_is_refused_and_the_good_one_gets_the_token() {
    let server = OAuthServer::start(OAuthSettings::default());
    let (code, state) = authorize(&server, &s256_challenge(VERIFIER));
    assert_eq!(state, "the-state");
    assert!(!code.is_empty());

    let bad = exchange(&server, &code, "not-the-verifier");
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"], "invalid_grant");

    let good = exchange(&server, &code, VERIFIER);
    assert_eq!(good.status, 200, "{}", good.body);
    assert_eq!(good.json()["access_token"], "login-token-1");
    assert_eq!(good.json()["token_type"], "bearer");

    // A code is good for one token.
    assert_eq!(exchange(&server, &code, VERIFIER).status, 400);

    let tokens = server.token_requests();
    assert_eq!(tokens.len(), 3);
    assert!(
        tokens[0]
            .problems
            .iter()
            .any(|p| p.contains("code_verifier"))
    );
    assert!(tokens[1].problems.is_empty());
    assert_eq!(tokens[1].field("code_verifier"), Some(VERIFIER));
    assert_eq!(tokens[1].client, Some(("terraform-cli".to_owned(), "form")));
    assert_eq!(tokens[1].authorization, None);
    let authz = server.authz_requests();
    assert_eq!(authz.len(), 1);
    assert_eq!(authz[0].code.as_deref(), Some(code.as_str()));
    // Debug shows no secret.
    assert!(!format!("{:?}", tokens[1]).contains(VERIFIER));
}

#[test]
fn the_client_in_basic_auth_is_recorded_as_sent() {
    let server = OAuthServer::start(OAuthSettings::default());
    let (code, _) = authorize(&server, &s256_challenge(VERIFIER));
    let body = query(&[
        ("code", &code),
        ("code_verifier", VERIFIER),
        ("grant_type", "authorization_code"),
        ("redirect_uri", REDIRECT),
    ]);
    // base64("terraform-cli:")
    let basic = "Basic dGVycmFmb3JtLWNsaTo=";
    let answer = send(
        server.port(),
        "POST",
        "/token",
        &[("Authorization", basic)],
        &body,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let tokens = server.token_requests();
    assert_eq!(tokens[0].authorization.as_deref(), Some(basic));
    assert_eq!(
        tokens[0].client,
        Some(("terraform-cli".to_owned(), "basic"))
    );
}

#[test]
fn authz_without_a_challenge_is_refused_without_a_redirect() {
    let server = OAuthServer::start(OAuthSettings::default());
    let target = format!(
        "/authz?{}",
        query(&[
            ("client_id", "terraform-cli"),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("state", "s"),
        ])
    );
    let answer = send(server.port(), "GET", &target, &[], "");
    assert_eq!(answer.status, 400);
    assert_eq!(answer.header("location"), None);
    let problems = &server.authz_requests()[0].problems;
    assert!(
        problems.iter().any(|p| p.contains("code_challenge")),
        "{problems:?}"
    );
}

#[test]
fn authz_and_token_knobs() {
    let server = OAuthServer::start(OAuthSettings {
        authz_answer: AuthzAnswer::AccessDenied,
        ..OAuthSettings::default()
    });
    let target = format!(
        "/authz?{}",
        query(&[
            ("client_id", "terraform-cli"),
            ("code_challenge", "c"),
            ("code_challenge_method", "S256"),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("state", "s"),
        ])
    );
    let answer = send(server.port(), "GET", &target, &[], "");
    assert_eq!(
        answer.header("location"),
        Some("http://localhost:10005/login?error=access_denied&state=s")
    );

    let server = OAuthServer::start(OAuthSettings {
        token_answer: TokenAnswer::ServerError,
        ..OAuthSettings::default()
    });
    let (code, _) = authorize(&server, &s256_challenge(VERIFIER));
    assert_eq!(exchange(&server, &code, VERIFIER).status, 500);
}

#[test]
fn password_grant_checks_the_user() {
    let server = OAuthServer::start(OAuthSettings::default());
    let form = |password: &str| {
        query(&[
            ("client_id", "terraform-cli"),
            ("grant_type", "password"),
            ("password", password),
            ("username", "alice"),
        ])
    };
    let wrong = send(server.port(), "POST", "/token", &[], &form("wrong"));
    assert_eq!(wrong.status, 400);
    let right = send(server.port(), "POST", "/token", &[], &form("s3cret-pass"));
    assert_eq!(right.status, 200, "{}", right.body);
}

#[test]
fn tfe_and_registry_record_the_authorization() {
    let server = OAuthServer::start(OAuthSettings::default());
    assert_eq!(
        send(server.port(), "GET", "/api/v2/ping", &[], "").status,
        204
    );
    let details = "/api/v2/account/details";
    let good = send(
        server.port(),
        "GET",
        details,
        &[("Authorization", "Bearer tfe-token-1")],
        "",
    );
    assert_eq!(good.status, 200);
    assert_eq!(good.json()["data"]["attributes"]["username"], "alice");
    let bad = send(
        server.port(),
        "GET",
        details,
        &[("Authorization", "Bearer nope")],
        "",
    );
    assert_eq!(bad.status, 401);
    let versions = "/v1/providers/hashicorp/null/versions";
    let answer = send(
        server.port(),
        "GET",
        versions,
        &[("Authorization", "Bearer t")],
        "",
    );
    assert_eq!(answer.status, 200);
    let seen = server.service_requests();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[3].path, versions);
    assert_eq!(seen[3].authorization.as_deref(), Some("Bearer t"));
}

#[test]
fn discovery_document_and_host_block() {
    let server = OAuthServer::start(OAuthSettings {
        scopes: vec!["a".to_owned()],
        ports: Some((10000, 10010)),
        ..OAuthSettings::default()
    });
    let answer = send(server.port(), "GET", "/.well-known/terraform.json", &[], "");
    assert_eq!(answer.status, 200);
    let doc = answer.json();
    assert_eq!(doc, server.services());
    assert_eq!(doc["login.v1"]["authz"], server.url("/authz"));
    assert_eq!(doc["login.v1"]["ports"], serde_json::json!([10000, 10010]));
    let block = server.host_block("login.example.com");
    assert!(
        block.starts_with("host \"login.example.com\" {\n  services = {\n"),
        "{block}"
    );
    assert!(block.contains("\"scopes\" = [\"a\"]"), "{block}");
}
