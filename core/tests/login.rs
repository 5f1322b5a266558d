//! `terraform login`'s policy, without sockets (docs/behaviour.md, LOGIN-1
//! to LOGIN-11, D39 to D43). The expected URLs and forms were worked out
//! with Python's `urllib.parse.quote_plus(safe="")`, which escapes as Go's
//! `url.QueryEscape` does, and `hashlib`/`base64` for the challenge.

mod common;

use common::{Net, Reply};
use tfdisco_core::http::{Method, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Action, AuthorizationRequest, Callback, Config, Credentials, Dialect, Error, ErrorKind,
    Hostname, LoginError, LoginGrantType, LoginSeed, OAuthClient, RegistryCall, RequestKind,
    Services, TfeAccount, TokenGrant, Transfer, callback_ports, login_grant_type,
    tfe_account_message, tfe_tokens_page,
};

const TOKEN: &str = "https://example.com/oauth/token";

/// The `login.v1` client a document with `login` as its value declares.
fn client_of(login: &str) -> Result<OAuthClient, Error> {
    let body = format!(r#"{{"login.v1": {login}}}"#);
    let host = Hostname::parse("example.com").expect("a host");
    let url = Url::parse("https://example.com/.well-known/terraform.json").expect("a URL");
    Services::from_json(host, url, Dialect::Terraform, body.as_bytes())?.oauth_client("login.v1")
}

fn client() -> OAuthClient {
    client_of(
        r#"{"client": "tf cli*~", "authz": "/oauth/authz?tenant=a%20b", "token": "/oauth/token",
            "scopes": ["openid", "profile+email"], "grant_types": ["authz_code", "password"]}"#,
    )
    .expect("a client")
}

/// Bytes 0, 1, …, 35.
fn seed() -> LoginSeed {
    LoginSeed::new(std::array::from_fn(|i| i as u8))
}

fn request() -> AuthorizationRequest {
    AuthorizationRequest::new(&client(), 10003, &seed()).expect("a request")
}

const STATE: &str = "00010203-0405-0607-0809-0a0b0c0d0e0f";
const CHALLENGE: &str = "VytON__FTsGGFRRSYpGuBtEMSBWjXGs3IAfhF8HTqMY";

/// What `terraform login localhost:18443` (Terraform 1.11.4) printed and
/// posted against a loopback server declaring this client, with the seed
/// made of the state and verifier it drew: the URL, the token request's
/// form and headers are the same byte for byte (LOGIN-1, LOGIN-2, LOGIN-6,
/// LOGIN-7).
#[test]
fn matches_what_terraform_1_11_4_sent() {
    let body = br#"{"login.v1": {"client": "tf cli*~", "authz": "/oauth/authz?tenant=a%20b",
        "token": "/oauth/token", "ports": [10000, 10001], "scopes": ["openid", "profile+email"]}}"#;
    let host = Hostname::parse("localhost:18443").expect("a host");
    let url = Url::parse("https://localhost:18443/.well-known/terraform.json").expect("a URL");
    let client = Services::from_json(host, url, Dialect::Terraform, body)
        .expect("services")
        .oauth_client("login.v1")
        .expect("a client");
    assert_eq!(callback_ports(&client, &mut |n| n - 1), [10000]);
    // State c4841b8a-…, verifier 871b49ca-….049056678.
    let seed = LoginSeed::new([
        196, 132, 27, 138, 172, 37, 59, 34, 176, 136, 93, 74, 209, 132, 214, 149, 135, 27, 73, 202,
        203, 21, 169, 25, 40, 252, 22, 45, 230, 84, 90, 184, 2, 236, 139, 166,
    ]);
    let request = AuthorizationRequest::new(&client, 10000, &seed).expect("a request");
    assert_eq!(
        request.url().as_str(),
        "https://localhost:18443/oauth/authz?tenant=a%20b&client_id=tf+cli%2A~\
         &code_challenge=EeuiM09boGt2DZXR4ZBD3KLNIkJAECAmmn706IknaSA&code_challenge_method=S256\
         &redirect_uri=http%3A%2F%2Flocalhost%3A10000%2Flogin&response_type=code\
         &scope=openid+profile%2Bemail&state=c4841b8a-ac25-3b22-b088-5d4ad184d695"
    );
    // Terraform answered this with 400 and kept waiting (D40 ends here).
    assert!(matches!(
        request.callback("/login?state=c4841b8a-ac25-3b22-b088-5d4ad184d695&error=access_denied"),
        Callback::Denied { .. }
    ));
    let code = match request
        .callback("/login?state=c4841b8a-ac25-3b22-b088-5d4ad184d695&code=c%2Fo+de%2B1")
    {
        Callback::Code(code) => code,
        other => panic!("{other:?}"),
    };
    let grant = TokenGrant::AuthorizationCode {
        request: &request,
        code,
    };
    let mut transfer =
        Transfer::login_token(&client, grant, &config(), Net::new().now()).expect("a transfer");
    let (method, url, headers, body) = first_request(&mut transfer);
    assert_eq!(
        (method, url.as_str()),
        (Method::POST, "https://localhost:18443/oauth/token")
    );
    assert_eq!(
        body,
        "client_id=tf+cli%2A~&code=c%2Fo+de%2B1\
         &code_verifier=871b49ca-cb15-a919-28fc-162de6545ab8.049056678\
         &grant_type=authorization_code&redirect_uri=http%3A%2F%2Flocalhost%3A10000%2Flogin"
    );
    let mut names: Vec<&str> = headers.keys().map(|k| k.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "accept-encoding",
            "content-length",
            "content-type",
            "user-agent"
        ],
        "no Authorization, no Accept"
    );
    assert_eq!(headers["user-agent"], "Terraform/1.11.4");
    assert_eq!(headers["accept-encoding"], "gzip");
    assert_eq!(headers["content-length"], "181");
}

/// LOGIN-1: oauth2's `AuthCodeURL`: the authorization URL, `&` after its
/// query, the parameters sorted and escaped as `url.Values.Encode`.
#[test]
fn the_authorization_url_is_oauth2_s() {
    let request = request();
    assert_eq!(
        request.url().as_str(),
        "https://example.com/oauth/authz?tenant=a%20b&client_id=tf+cli%2A~\
         &code_challenge=VytON__FTsGGFRRSYpGuBtEMSBWjXGs3IAfhF8HTqMY&code_challenge_method=S256\
         &redirect_uri=http%3A%2F%2Flocalhost%3A10003%2Flogin&response_type=code\
         &scope=openid+profile%2Bemail&state=00010203-0405-0607-0809-0a0b0c0d0e0f"
    );
    assert_eq!(request.redirect_uri(), "http://localhost:10003/login");

    // No query of its own: `?`; no scopes: no `scope`.
    let plain = client_of(r#"{"client": "c", "authz": "/a", "token": "/t"}"#).expect("a client");
    let url = AuthorizationRequest::new(&plain, 1024, &seed())
        .expect("a request")
        .url()
        .to_string();
    assert_eq!(
        url,
        format!(
            "https://example.com/a?client_id=c&code_challenge={CHALLENGE}\
             &code_challenge_method=S256&redirect_uri=http%3A%2F%2Flocalhost%3A1024%2Flogin\
             &response_type=code&state={STATE}"
        )
    );
}

/// LOGIN-2: the state is a UUID of the seed's first 16 bytes; the verifier
/// (46 characters) is never shown; the challenge is its S256.
#[test]
fn state_verifier_and_challenge() {
    let request = request();
    assert_eq!(request.state(), STATE);
    assert_eq!(request.code_challenge(), CHALLENGE);
    let shown = format!("{request:?}");
    assert!(!shown.contains("10111213-1415"), "{shown}");
    assert!(!shown.contains("539042339"), "{shown}");
    assert!(shown.contains(STATE), "{shown}");
    assert_eq!(format!("{:?}", seed()), "LoginSeed(***)");
}

/// LOGIN-3 (D39): both endpoints must be https, without user information.
#[test]
fn endpoints_must_be_https() {
    let http_authz = client_of(
        r#"{"client": "c", "authz": "http://example.com/a", "token": "https://example.com/t"}"#,
    )
    .expect("a client");
    let e = AuthorizationRequest::new(&http_authz, 2000, &seed()).expect_err("http");
    assert_eq!(
        e.to_string(),
        "the login.v1 client's authorization URL http://example.com/a is not an https: URL"
    );
    let http_token = client_of(
        r#"{"client": "c", "authz": "https://example.com/a", "token": "http://example.com/t"}"#,
    )
    .expect("a client");
    assert!(matches!(
        AuthorizationRequest::new(&http_token, 2000, &seed()),
        Err(LoginError::NotHttps { .. })
    ));
    let grant = TokenGrant::Password {
        username: "u".into(),
        password: "p".into(),
    };
    let e = Transfer::login_token(&http_token, grant, &Config::default(), Net::new().now())
        .expect_err("http");
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);

    let password_only = client_of(r#"{"client": "c", "grant_types": ["password"], "token": "/t"}"#)
        .expect("a client");
    assert_eq!(
        AuthorizationRequest::new(&password_only, 2000, &seed())
            .expect_err("no authz")
            .to_string(),
        "the login.v1 client declares no authorization URL"
    );
    // The service URL rules already refuse user information (URL-5).
    assert!(
        client_of(r#"{"client": "c", "authz": "https://u:p@example.com/a", "token": "/t"}"#)
            .is_err()
    );
}

/// LOGIN-4: the callback's query as `ParseForm` reads it; the state must
/// be ours, then a code is the answer; `error=` ends the login (D40).
#[test]
fn what_a_callback_means() {
    let request = request();
    let code = |target: &str| match request.callback(target) {
        Callback::Code(code) => format!("{code:?}"),
        other => panic!("{target}: {other:?}"),
    };
    assert_eq!(
        code(&format!("/login?code=abc&state={STATE}")),
        "AuthorizationCode(***)"
    );
    code(&format!("/elsewhere?state={STATE}&code=abc&code=second"));
    code(&format!(
        "http://localhost:10003/login?state={STATE}&code=a+b"
    ));

    for target in [
        "/login?code=abc".to_owned(),
        "/login".to_owned(),
        "/login?code=abc&state=00010203-0405-0607-0809-0a0b0c0d0e0F".to_owned(),
        format!("/login?code=abc&state={STATE}x"),
        format!("/login?state={STATE}"),
        format!("/login?state={STATE}&code="),
        format!("/login?state={STATE}&code=abc;x=1"),
        format!("/login?state={STATE}&code=%zz"),
        format!("/login?state=x&state={STATE}&code=abc"),
    ] {
        match request.callback(&target) {
            Callback::Rejected { reason } => {
                assert!(!reason.contains("abc"), "{target}: {reason}");
            }
            other => panic!("{target}: {other:?}"),
        }
    }

    let denied = request.callback(&format!(
        "/login?state={STATE}&error=access_denied&error_description=The+user+said+no"
    ));
    let Callback::Denied { error, description } = &denied else {
        panic!("{denied:?}");
    };
    assert_eq!(
        (error.as_str(), description.as_deref()),
        ("access_denied", Some("The user said no"))
    );
    assert_eq!(
        denied.into_error().expect("an error").to_string(),
        r#"the authorization server refused the login: "access_denied" "The user said no""#
    );
    // With the wrong state an error is just a bad request.
    assert!(matches!(
        request.callback("/login?state=x&error=access_denied"),
        Callback::Rejected { .. }
    ));
}

/// LOGIN-5: `min + rand(max - min)`, 1.5 × (max - min) tries, none for a
/// range of one port.
#[test]
fn listener_ports() {
    let ranged = |ports: &str| {
        client_of(&format!(
            r#"{{"client": "c", "authz": "/a", "token": "/t", "ports": {ports}}}"#
        ))
        .expect("a client")
    };
    let mut asked = Vec::new();
    let mut next = 0;
    let mut random = |n: u32| {
        asked.push(n);
        next += 3;
        next
    };
    let ports = callback_ports(&ranged("[2000, 2004]"), &mut random);
    assert_eq!(ports, [2003, 2002, 2001, 2000, 2003, 2002]);
    assert_eq!(asked, [4; 6]);
    assert!(callback_ports(&ranged("[3000, 3000]"), &mut |_| 0).is_empty());
    let default = client_of(r#"{"client": "c", "authz": "/a", "token": "/t"}"#).expect("a client");
    let all = callback_ports(&default, &mut |n| n - 1);
    assert_eq!(all.len(), 64511 + 64511 / 2);
    assert!(all.iter().all(|&p| p == 65534), "never the top port");
}

/// A transfer's first request: method, URL, headers and body.
fn first_request(
    transfer: &mut Transfer<tfdisco_core::TokenRequest>,
) -> (Method, String, tfdisco_core::http::HeaderMap, String) {
    let Action::Send(request) = transfer.poll() else {
        panic!("a request first");
    };
    let body = transfer.request_body().expect("a body");
    assert_eq!(body.content_type, "application/x-www-form-urlencoded");
    (
        request.method().clone(),
        request.uri().to_string(),
        request.headers().clone(),
        String::from_utf8(body.bytes.to_vec()).expect("text"),
    )
}

fn code_of(request: &AuthorizationRequest, code: &str) -> tfdisco_core::AuthorizationCode {
    let mut target = format!("/login?state={}&code=", request.state());
    tfdisco_core::url::form_urlencoded::byte_serialize(code.as_bytes())
        .for_each(|piece| target.push_str(piece));
    match request.callback(&target) {
        Callback::Code(code) => code,
        other => panic!("{other:?}"),
    }
}

fn config() -> Config {
    Config::new(Dialect::Terraform)
        .with_cli_version("1.11.4")
        .expect("a version")
}

/// LOGIN-6: the authorization-code exchange: a form POST, client_id in
/// the form (svchost's `AuthStyleInParams`), no Authorization header.
#[test]
fn the_code_exchange_request() {
    let request = request();
    let grant = TokenGrant::AuthorizationCode {
        request: &request,
        code: code_of(&request, "c/o de+1"),
    };
    let mut net = Net::new();
    let mut transfer =
        Transfer::login_token(&client(), grant, &config(), net.now()).expect("a transfer");
    let (method, url, headers, body) = first_request(&mut transfer);
    assert_eq!(method, Method::POST);
    assert_eq!(url, TOKEN);
    assert_eq!(
        body,
        "client_id=tf+cli%2A~&code=c%2Fo+de%2B1\
         &code_verifier=10111213-1415-1617-1819-1a1b1c1d1e1f.539042339\
         &grant_type=authorization_code&redirect_uri=http%3A%2F%2Flocalhost%3A10003%2Flogin"
    );
    assert!(headers.get("authorization").is_none());
    assert_eq!(headers["user-agent"], "Terraform/1.11.4");
    assert!(headers.get("x-terraform-version").is_none());
    assert!(headers.get("accept").is_none());
    assert!(!format!("{transfer:?}").contains("539042339"));

    net.on(
        TOKEN,
        Reply::json(r#"{"access_token": "tok.1", "token_type": "bearer"}"#),
    );
    let token = net.drive(&mut transfer).expect("a token");
    assert_eq!(token.expose_token(), "tok.1");
}

/// LOGIN-6: the password grant's form.
#[test]
fn the_password_request() {
    let grant = TokenGrant::Password {
        username: "ann@example.com".into(),
        password: "p&ss w=rd".into(),
    };
    assert!(!format!("{grant:?}").contains("p&ss"));
    let mut transfer =
        Transfer::login_token(&client(), grant, &config(), Net::new().now()).expect("a transfer");
    let (_, _, headers, body) = first_request(&mut transfer);
    assert_eq!(
        body,
        "client_id=tf+cli%2A~&grant_type=password&password=p%26ss+w%3Drd\
         &scope=openid+profile%2Bemail&username=ann%40example.com"
    );
    assert!(headers.get("authorization").is_none());
}

fn password_token(net: &mut Net) -> Result<Credentials, Error> {
    let grant = TokenGrant::Password {
        username: "u".into(),
        password: "pw".into(),
    };
    let now = net.now();
    net.run(Transfer::login_token(&client(), grant, &config(), now))
}

/// LOGIN-7: never retried, the Login kind's limits, redirects as Go's
/// client (a 302 makes a GET, a 307 posts again).
#[test]
fn no_retries_and_go_s_redirects() {
    let mut net = Net::new();
    net.on(TOKEN, Reply::new(503));
    let e = password_token(&mut net).expect_err("503");
    assert_eq!(net.seen.len(), 1, "not retried");
    assert!(e.to_string().contains("503 Service Unavailable"), "{e}");
    let mut net = Net::new();
    net.on(
        TOKEN,
        Reply::new(200).then_fail(tfdisco_core::TransportErrorKind::Connect),
    );
    net.on(TOKEN, Reply::json(r#"{"access_token": "t"}"#));
    assert!(password_token(&mut net).is_err());
    assert_eq!(net.seen.len(), 1, "not retried after a failure");

    let config = Config::default();
    assert_eq!(config.retry_policy_for(RequestKind::Login).attempts(), 1);
    assert_eq!(config.body_limit_for(RequestKind::Login), 1024 * 1024);
    assert_eq!(
        config.timeout_for(RequestKind::Login),
        tfdisco_core::DEFAULT_LOGIN_TIMEOUT
    );
    assert_eq!(config.max_redirects_for(RequestKind::Login), 9);

    let mut net = Net::new();
    net.on(TOKEN, Reply::redirect(307, "/oauth/token2"));
    net.on(
        "https://example.com/oauth/token2",
        Reply::json(r#"{"access_token": "t2"}"#),
    );
    assert_eq!(
        password_token(&mut net).expect("a token").expose_token(),
        "t2"
    );
    assert_eq!(net.seen.len(), 2);
    let mut net = Net::new();
    net.on(TOKEN, Reply::redirect(302, "http://example.com/plain"));
    let e = password_token(&mut net).expect_err("to http");
    assert_eq!(e.kind(), ErrorKind::Redirect, "{e}");
}

/// LOGIN-8: what the answer means, and that no error holds the token.
#[test]
fn what_the_answer_means() {
    let cases: [(Reply, Result<&str, &str>); 7] = [
        (
            Reply::new(200)
                .header("Content-Type", "application/json")
                .body(br#"{"access_token": "a1", "expires_in": 3600}"#),
            Ok("a1"),
        ),
        (
            Reply::new(200).body(br#"{"access_token": "no content type"}"#),
            Ok("no content type"),
        ),
        (
            Reply::new(200)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(b"access_token=f1&token_type=bearer"),
            Ok("f1"),
        ),
        (
            Reply::new(200)
                .header("Content-Type", "Text/Plain; charset=utf-8")
                .body(b"access_token=f2"),
            Ok("f2"),
        ),
        (
            Reply::new(400)
                .header("Content-Type", "application/json")
                .body(br#"{"error": "invalid_grant", "error_description": "code used"}"#),
            Err(r#"oauth2: "invalid_grant" "code used""#),
        ),
        (
            Reply::new(500).body(br#"{"access_token": "s3cret"}"#),
            Err("oauth2: cannot fetch token: 500 Internal Server Error"),
        ),
        (
            Reply::new(200).body(br#"{"token": "s3cret"}"#),
            Err("oauth2: server response missing access_token"),
        ),
    ];
    for (reply, expected) in cases {
        let mut net = Net::new();
        net.on(TOKEN, reply);
        let result = password_token(&mut net);
        match (result, expected) {
            (Ok(token), Ok(want)) => assert_eq!(token.expose_token(), want),
            (Err(e), Err(want)) => {
                let text = e.to_string();
                assert_eq!(
                    text,
                    format!("invalid login token response from {TOKEN}: {want}")
                );
                assert!(!text.contains("s3cret"));
                assert!(matches!(
                    e,
                    Error::Registry {
                        call: RegistryCall::LoginToken,
                        ..
                    }
                ));
            }
            (result, want) => panic!("{want:?}: {result:?}"),
        }
    }
    let mut net = Net::new();
    net.on(TOKEN, Reply::json(r#"{"access_token": "bad\ntoken"}"#));
    let e = password_token(&mut net).expect_err("a line break");
    assert!(!e.to_string().contains("token\""), "{e}");
    let mut net = Net::new();
    net.on(
        TOKEN,
        Reply::json(&format!(
            r#"{{"access_token": "{}"}}"#,
            "x".repeat(1024 * 1024)
        )),
    );
    assert_eq!(
        password_token(&mut net).expect_err("too large").kind(),
        ErrorKind::TooLarge
    );
}

/// LOGIN-9: no stored credentials go with the token request, even over
/// https (the transfer is started without any).
#[test]
fn no_stored_credentials() {
    let mut net = Net::new();
    net.on(TOKEN, Reply::json(r#"{"access_token": "t"}"#));
    password_token(&mut net).expect("a token");
    assert_eq!(net.seen[0].authorization(), None);
}

const TFE: &str = "https://tfe.example.com:8443/api/v2/";

/// LOGIN-10: the tokens page, then ping and account/details with the
/// pasted token; a 401 means the token is invalid.
#[test]
fn the_tfe_fallback() {
    let service = Url::parse(TFE).expect("a URL");
    assert_eq!(
        tfe_tokens_page(&service).as_str(),
        "https://tfe.example.com/app/settings/tokens?source=terraform-login"
    );
    let token = Credentials::token("pasted").expect("a token");
    let account = |net: &mut Net| -> Result<TfeAccount, Error> {
        let now = net.now();
        net.run(Transfer::tfe_ping(&service, &token, &config(), now))?;
        let now = net.now();
        net.run(Transfer::tfe_account(&service, &token, &config(), now))
    };
    let ping = "https://tfe.example.com:8443/api/v2/ping";
    let details = "https://tfe.example.com:8443/api/v2/account/details";

    let mut net = Net::new();
    net.on(ping, Reply::new(401));
    net.on(
        details,
        Reply::new(200)
            .header("Content-Type", "application/vnd.api+json")
            .body(br#"{"data": {"id": "user-1", "type": "users", "attributes": {"username": "ann"}}}"#),
    );
    assert_eq!(
        account(&mut net).expect("an account"),
        TfeAccount {
            username: "ann".into()
        }
    );
    assert_eq!(net.seen.len(), 2);
    for seen in &net.seen {
        assert_eq!(seen.authorization(), Some("Bearer pasted"));
        assert_eq!(seen.headers["accept"], "application/vnd.api+json");
        assert_eq!(seen.headers["user-agent"], "go-tfe");
    }
    assert_eq!(
        (net.seen[0].url.as_str(), net.seen[1].url.as_str()),
        (ping, details)
    );

    let mut net = Net::new();
    net.on(ping, Reply::new(200));
    net.on(details, Reply::new(401));
    let e = account(&mut net).expect_err("401");
    assert_eq!(e.status(), Some(StatusCode::UNAUTHORIZED));
    assert_eq!(tfe_account_message(&e), "Token is invalid: unauthorized");

    let mut net = Net::new();
    net.on(ping, Reply::new(200));
    net.on(details, Reply::new(404));
    let e = account(&mut net).expect_err("404");
    assert!(
        tfe_account_message(&e)
            .starts_with("Failed to retrieve user account details: resource not found"),
        "{}",
        tfe_account_message(&e)
    );

    let mut net = Net::new();
    net.on(ping, Reply::new(200));
    net.on(
        details,
        Reply::json(r#"{"data": {"id": "org-1", "type": "organizations", "attributes": {}}}"#),
    );
    assert_eq!(
        account(&mut net).expect_err("a type").kind(),
        ErrorKind::InvalidResponse
    );

    // A ping that fails is go-tfe's NewClient failing.
    let mut net = Net::new();
    let e = account(&mut net).expect_err("nothing answers");
    assert_eq!(net.seen.len(), 1);
    assert!(
        tfe_account_message(&e).starts_with("Failed to create API client: "),
        "{}",
        tfe_account_message(&e)
    );

    // A base without a trailing slash gets one; its query is dropped.
    let bare = Url::parse("https://tfe.example.com/api/v2?x=1").expect("a URL");
    let t = Transfer::tfe_account(&bare, &token, &config(), Net::new().now()).expect("a transfer");
    assert_eq!(
        t.url().as_str(),
        "https://tfe.example.com/api/v2/account/details"
    );
}

/// LOGIN-11: the authorization code when the client has it; the password
/// grant only for app.terraform.io.
#[test]
fn which_grant() {
    let of = |grants: &str| {
        client_of(&format!(
            r#"{{"client": "c", "authz": "/a", "token": "/t", "grant_types": {grants}}}"#
        ))
        .expect("a client")
    };
    let host = |name: &str| Hostname::parse(name).expect("a host");
    let tfc = host("APP.terraform.io");
    assert_eq!(
        login_grant_type(&of(r#"["password", "authz_code"]"#), &tfc),
        Ok(LoginGrantType::AuthorizationCode)
    );
    assert_eq!(
        login_grant_type(&of(r#"["password"]"#), &tfc),
        Ok(LoginGrantType::Password)
    );
    let e = login_grant_type(&of(r#"["password"]"#), &host("example.com")).expect_err("none");
    assert_eq!(
        e.to_string(),
        "The given hostname \"example.com\" does not allow any OAuth grant types that are \
         supported by this version of Terraform."
    );
    assert!(login_grant_type(&of(r#"["implicit"]"#), &tfc).is_err());
}
