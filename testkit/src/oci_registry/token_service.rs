//! The token service of a registry with `auth: token`: HTTPS on 127.0.0.1
//! with the trusted leaf, `GET /token` (the Docker token flow, Basic
//! credentials optional) and `POST /token` (OAuth2 forms: `grant_type`
//! `password` or `refresh_token`), answering tokens [`Signer`] signed. It
//! records every request (never a secret).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use super::jwt::Signer;
use super::{TOKEN_ISSUER, TOKEN_LIFETIME_SECS, TOKEN_SERVICE};
use crate::background::Background;
use crate::pki::{Cert, pki};

/// The largest form body read.
const FORM_LIMIT: usize = 64 * 1024;

/// A request the token service received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    /// `GET` or `POST`.
    pub method: String,
    /// The path and query (`/token?service=…&scope=…`); a form body is not
    /// part of it.
    pub target: String,
    /// Whether an `Authorization` header was sent (its value is not kept).
    pub authorization: bool,
    /// A form's `grant_type` (`password`, `refresh_token`); `None` for a
    /// `GET`.
    pub grant_type: Option<String>,
    /// The scopes asked for (`repository:NAME:pull,push`), from the query
    /// or the form.
    pub scopes: Vec<String>,
    /// The status answered.
    pub status: u16,
}

/// Who may have tokens.
pub(crate) struct Accounts {
    pub(crate) username: String,
    pub(crate) password: String,
    pub(crate) anonymous_pull: bool,
}

/// A running token service; it stops when dropped.
pub(crate) struct TokenService {
    state: Arc<State>,
    port: u16,
    _background: Background,
}

struct State {
    accounts: Accounts,
    signer: Signer,
    seen: Mutex<Vec<TokenRequest>>,
    /// Refresh tokens handed out, and whose they are.
    refresh_tokens: Mutex<HashMap<String, String>>,
    issued: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TokenService {
    /// Starts the service on a free port of 127.0.0.1.
    pub(crate) fn start(accounts: Accounts) -> Result<TokenService, String> {
        let signer = Signer::new()?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| format!("a loopback port for the token service: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("a non-blocking listener: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("the token service's port: {e}"))?
            .port();
        let state = Arc::new(State {
            accounts,
            signer,
            seen: Mutex::new(Vec::new()),
            refresh_tokens: Mutex::new(HashMap::new()),
            issued: AtomicU64::new(0),
        });
        let shared = state.clone();
        let acceptor = TlsAcceptor::from(pki().server_config(Cert::Trusted));
        let background = Background::start("tfdisco-oci-token-service", move || async move {
            let Ok(listener) = TcpListener::from_std(listener) else {
                return;
            };
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                };
                let acceptor = acceptor.clone();
                let state = shared.clone();
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = service_fn(move |request| respond(request, state.clone()));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        Ok(TokenService {
            state,
            port,
            _background: background,
        })
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The signing certificate, PEM (the registry's `rootcertbundle`).
    pub(crate) fn cert_pem(&self) -> &str {
        self.state.signer.cert_pem()
    }

    /// Every request so far, oldest first.
    pub(crate) fn requests(&self) -> Vec<TokenRequest> {
        lock(&self.state.seen).clone()
    }

    /// Every request so far, oldest first, forgetting them.
    pub(crate) fn take_requests(&self) -> Vec<TokenRequest> {
        std::mem::take(&mut *lock(&self.state.seen))
    }
}

/// Who a request is from.
enum Caller {
    Anonymous,
    User(String),
}

/// What a request gets: a status and a JSON body, plus a challenge on 401.
struct Outcome {
    status: u16,
    body: String,
}

impl Outcome {
    fn error(status: u16, code: &str, message: &str) -> Outcome {
        Outcome {
            status,
            body: format!(
                r#"{{"error":{},"error_description":{},"errors":[{{"code":{},"message":{}}}]}}"#,
                quoted(code),
                quoted(message),
                quoted(&code.to_uppercase()),
                quoted(message)
            ),
        }
    }

    fn unauthorized(message: &str) -> Outcome {
        Outcome::error(401, "unauthorized", message)
    }
}

async fn respond(
    request: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let method = request.method().to_string();
    let target = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| request.uri().path().to_owned());
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or("").to_owned();
    let authorization = request
        .headers()
        .get("authorization")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let mut record = TokenRequest {
        method: method.clone(),
        target,
        authorization: authorization.is_some(),
        grant_type: None,
        scopes: Vec::new(),
        status: 0,
    };
    let outcome = if path != "/token" {
        Outcome::error(404, "not_found", "the token service answers on /token")
    } else {
        match method.as_str() {
            "GET" => {
                let params = form_pairs(&query);
                record.scopes = scopes(&params);
                token_get(&state, &params, authorization.as_deref())
            }
            "POST" => match Limited::new(request.into_body(), FORM_LIMIT)
                .collect()
                .await
            {
                Ok(body) => {
                    let form = String::from_utf8_lossy(&body.to_bytes()).into_owned();
                    let params = form_pairs(&form);
                    record.grant_type = param(&params, "grant_type").map(str::to_owned);
                    record.scopes = scopes(&params);
                    token_post(&state, &params)
                }
                Err(_) => Outcome::error(400, "invalid_request", "the form could not be read"),
            },
            _ => Outcome::error(405, "unsupported", "GET or POST /token"),
        }
    };
    record.status = outcome.status;
    lock(&state.seen).push(record);
    let mut response = Response::new(Full::new(Bytes::from(outcome.body)));
    *response.status_mut() =
        hyper::StatusCode::from_u16(outcome.status).unwrap_or(hyper::StatusCode::BAD_REQUEST);
    let headers = response.headers_mut();
    headers.insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    if outcome.status == 401 {
        headers.insert(
            "www-authenticate",
            hyper::header::HeaderValue::from_static("Basic realm=\"tfdisco-test-token-service\""),
        );
    }
    Ok(response)
}

/// `GET /token`: the Docker token flow.
fn token_get(state: &State, params: &[(String, String)], authorization: Option<&str>) -> Outcome {
    if let Some(err) = wrong_service(params) {
        return err;
    }
    let caller = match authorization {
        None => Caller::Anonymous,
        Some(header) => match basic_credentials(header) {
            Some((user, password)) if state.is_account(&user, &password) => Caller::User(user),
            _ => return Outcome::unauthorized("wrong credentials"),
        },
    };
    if matches!(caller, Caller::Anonymous) && !state.accounts.anonymous_pull {
        return Outcome::unauthorized("credentials required");
    }
    let refresh = match (&caller, param(params, "offline_token")) {
        (Caller::User(user), Some("true")) => Some(state.refresh_token_for(user)),
        _ => None,
    };
    state.answer(&caller, &scopes(params), refresh, true)
}

/// `POST /token`: OAuth2's password and refresh-token grants.
fn token_post(state: &State, params: &[(String, String)]) -> Outcome {
    if let Some(err) = wrong_service(params) {
        return err;
    }
    let (user, refresh) = match param(params, "grant_type") {
        Some("password") => {
            let user = param(params, "username").unwrap_or("");
            let password = param(params, "password").unwrap_or("");
            if !state.is_account(user, password) {
                return Outcome::unauthorized("wrong credentials");
            }
            (user.to_owned(), state.refresh_token_for(user))
        }
        Some("refresh_token") => {
            let token = param(params, "refresh_token").unwrap_or("");
            let Some(user) = lock(&state.refresh_tokens).get(token).cloned() else {
                return Outcome::unauthorized("unknown refresh token");
            };
            (user, token.to_owned())
        }
        _ => {
            return Outcome::error(
                400,
                "unsupported_grant_type",
                "grant_type must be password or refresh_token",
            );
        }
    };
    state.answer(&Caller::User(user), &scopes(params), Some(refresh), false)
}

/// A 400 when the request names a service other than the registry's.
fn wrong_service(params: &[(String, String)]) -> Option<Outcome> {
    match param(params, "service") {
        Some(service) if service != TOKEN_SERVICE => Some(Outcome::error(
            400,
            "invalid_request",
            &format!("unknown service {service:?}"),
        )),
        _ => None,
    }
}

impl State {
    fn is_account(&self, user: &str, password: &str) -> bool {
        user == self.accounts.username && password == self.accounts.password
    }

    fn refresh_token_for(&self, user: &str) -> String {
        let n = self.issued.fetch_add(1, Ordering::SeqCst) + 1;
        let token = format!("tfdisco-refresh-{}-{n}", std::process::id());
        lock(&self.refresh_tokens).insert(token.clone(), user.to_owned());
        token
    }

    /// A signed token for `caller` with the access it may have of `scopes`;
    /// `docker` adds the Docker flow's `token` member beside `access_token`.
    fn answer(
        &self,
        caller: &Caller,
        scopes: &[String],
        refresh: Option<String>,
        docker: bool,
    ) -> Outcome {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let jti = self.issued.fetch_add(1, Ordering::SeqCst) + 1;
        let subject = match caller {
            Caller::Anonymous => "",
            Caller::User(user) => user,
        };
        let access: Vec<String> = scopes
            .iter()
            .filter_map(|scope| granted(caller, scope))
            .collect();
        let claims = format!(
            r#"{{"iss":{},"sub":{},"aud":{},"exp":{},"nbf":{now},"iat":{now},"jti":"{jti}","access":[{}]}}"#,
            quoted(TOKEN_ISSUER),
            quoted(subject),
            quoted(TOKEN_SERVICE),
            now + TOKEN_LIFETIME_SECS,
            access.join(",")
        );
        let token = match self.signer.sign(&claims) {
            Ok(token) => token,
            Err(e) => return Outcome::error(500, "server_error", &e),
        };
        let mut members = vec![];
        if docker {
            members.push(format!(r#""token":{}"#, quoted(&token)));
        }
        members.push(format!(r#""access_token":{}"#, quoted(&token)));
        if let Some(refresh) = refresh {
            members.push(format!(r#""refresh_token":{}"#, quoted(&refresh)));
        }
        members.push(format!(r#""expires_in":{TOKEN_LIFETIME_SECS}"#));
        members.push(format!(r#""issued_at":{}"#, quoted(&rfc3339(now))));
        if !docker {
            members.push(format!(r#""scope":{}"#, quoted(&scopes.join(" "))));
        }
        Outcome {
            status: 200,
            body: format!("{{{}}}", members.join(",")),
        }
    }
}

/// The `access` entry `caller` gets for `scope` (`TYPE:NAME:ACTIONS`): every
/// action asked for a user, `pull` alone for an anonymous caller, nothing
/// for a malformed scope.
fn granted(caller: &Caller, scope: &str) -> Option<String> {
    let (kind, rest) = scope.split_once(':')?;
    let (name, actions) = rest.rsplit_once(':')?;
    let actions: Vec<&str> = actions
        .split(',')
        .filter(|a| !a.is_empty())
        .filter(|a| match caller {
            Caller::User(_) => true,
            Caller::Anonymous => kind == "repository" && *a == "pull",
        })
        .collect();
    if actions.is_empty() {
        return None;
    }
    let actions: Vec<String> = actions.iter().map(|a| quoted(a)).collect();
    Some(format!(
        r#"{{"type":{},"name":{},"actions":[{}]}}"#,
        quoted(kind),
        quoted(name),
        actions.join(",")
    ))
}

/// The user and password of a `Basic` authorization.
fn basic_credentials(header: &str) -> Option<(String, String)> {
    let (scheme, encoded) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = STANDARD.decode(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// Every scope of the `scope` parameters (each may list several, space
/// separated).
fn scopes(params: &[(String, String)]) -> Vec<String> {
    params
        .iter()
        .filter(|(k, _)| k == "scope")
        .flat_map(|(_, v)| v.split(' '))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The first value of a parameter.
fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The pairs of a query or an `application/x-www-form-urlencoded` body.
pub(crate) fn form_pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (form_decode(k), form_decode(v))
        })
        .collect()
}

/// `+` as a space and `%XX` as its byte.
fn form_decode(text: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` percent-encoded for a query or a form (unreserved characters
/// kept).
pub(crate) fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Seconds since the epoch as RFC 3339 UTC (`2026-01-02T03:04:05Z`).
fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rest = secs % 86_400;
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// `"text"` as JSON.
fn quoted(text: &str) -> String {
    tfdisco_core::serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oci_token_service_helpers() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        let pairs = form_pairs("scope=repository%3Aa%2Fb%3Apull+x&grant_type=password&e");
        assert_eq!(pairs[0].1, "repository:a/b:pull x");
        assert_eq!(pairs[2], ("e".to_owned(), String::new()));
        assert_eq!(form_decode("%zz%4"), "%zz%4");
        assert_eq!(form_encode("a b:c/d"), "a%20b%3Ac%2Fd");
        assert_eq!(
            granted(&Caller::Anonymous, "repository:ns/x:pull,push").as_deref(),
            Some(r#"{"type":"repository","name":"ns/x","actions":["pull"]}"#)
        );
        assert_eq!(granted(&Caller::Anonymous, "repository:ns/x:push"), None);
        assert_eq!(
            basic_credentials("Basic dTpwOnc="),
            Some(("u".to_owned(), "p:w".to_owned()))
        );
    }
}
