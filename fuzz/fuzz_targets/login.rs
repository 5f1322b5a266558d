//! `terraform login`'s untrusted inputs from arbitrary bytes: a request to
//! the loopback listener (`AuthorizationRequest::callback`) and the token
//! endpoint's answer to the token request (`Transfer::login_token`: a
//! status, a `Content-Type`, a body in chunks). Never a panic; a callback
//! gives a code only with this login's state; the token request always
//! finishes, and credentials come only from a 2xx answer.
#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use tfdisco_core::http::header::CONTENT_TYPE;
use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Action, AuthorizationRequest, Callback, Config, Dialect, Hostname, LoginSeed, Services,
    TokenGrant, Transfer,
};

const CLIENT: &[u8] = br#"{"login.v1": {"client": "terraform-cli", "authz": "/authz?tenant=x",
    "token": "/token", "ports": [10000, 10010], "scopes": ["openid"]}}"#;

const STATUSES: [u16; 8] = [200, 201, 204, 400, 401, 404, 500, 302];

const CONTENT_TYPES: [&str; 5] = [
    "application/json",
    "application/x-www-form-urlencoded",
    "text/plain; charset=utf-8",
    "text/html",
    "",
];

fuzz_target!(|data: &[u8]| {
    let [selector, seed, rest @ ..] = data else {
        return;
    };
    let (target, body) = match rest.iter().position(|&b| b == 0xff) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let host = Hostname::parse("example.com").expect("a host");
    let url = Url::parse("https://example.com/.well-known/terraform.json").expect("a URL");
    let services = Services::from_json(host, url, Dialect::Terraform, CLIENT).expect("services");
    let client = services.oauth_client("login.v1").expect("a client");
    let request =
        AuthorizationRequest::new(&client, 10003, &LoginSeed::new([*seed; 36])).expect("a request");

    // The listener's request.
    let target = String::from_utf8_lossy(target);
    if let Callback::Code(_) = request.callback(&target) {
        assert!(target.contains(request.state()), "a code without our state");
    }

    // The token endpoint's answer.
    let ours = format!("/login?code=fuzz&state={}", request.state());
    let Callback::Code(code) = request.callback(&ours) else {
        panic!("our own callback is refused");
    };
    let config = Config::new(Dialect::Terraform);
    let now = Instant::now();
    let grant = TokenGrant::AuthorizationCode {
        request: &request,
        code,
    };
    let mut transfer = Transfer::login_token(&client, grant, &config, now).expect("starts");
    let status = StatusCode::from_u16(STATUSES[usize::from(selector % 8)]).expect("a status");
    let mut headers = HeaderMap::new();
    let content_type = CONTENT_TYPES[usize::from(selector / 8 % 5)];
    if let Ok(value) = HeaderValue::from_str(content_type) {
        headers.insert(CONTENT_TYPE, value);
    }
    let chunk = 1 + usize::from(selector / 40);
    let mut sent_head = false;
    for _ in 0..body.len() + 8 {
        match transfer.poll() {
            Action::Send(_) if !sent_head => {
                sent_head = true;
                transfer.handle_head(status, &headers, now);
            }
            Action::Send(_) => {
                // A redirect (302) has no Location: it must not be followed.
                transfer.handle_error(
                    tfdisco_core::TransportError::new(
                        tfdisco_core::TransportErrorKind::Connect,
                        "no second answer",
                    ),
                    now,
                );
            }
            Action::Receive => {
                for piece in body.chunks(chunk) {
                    transfer.handle_body(piece, now);
                }
                transfer.handle_end(now);
            }
            Action::Wait(at) => transfer.handle_timeout(at),
            Action::Done(result) => {
                if let Ok(credentials) = result {
                    assert!(status.is_success(), "credentials from a {status} answer");
                    assert!(!credentials.expose_token().is_empty());
                }
                return;
            }
            _ => return,
        }
    }
    panic!("the token request did not finish");
});
