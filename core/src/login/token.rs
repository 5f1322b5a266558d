//! The token request to a `login.v1` client's token endpoint and what its
//! answer means, as `golang.org/x/oauth2` v0.27.0 (Terraform 1.11.4's)
//! makes and reads them (LOGIN-6 to LOGIN-9).

use std::borrow::Cow;
use std::fmt;
use std::time::Instant;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use url::Url;

use super::go_form;
use super::{AuthorizationCode, AuthorizationRequest, Endpoint, checked_endpoint};
use crate::transfer::{Body, Goal, Next, Transfer};
use crate::{Config, Credentials, Error, Hostname, OAuthClient, RegistryCall, StartError};

/// How a login obtains its token.
pub enum TokenGrant<'a> {
    /// The authorization-code grant with PKCE, after the callback gave the
    /// code.
    AuthorizationCode {
        /// The authorization request the code answers.
        request: &'a AuthorizationRequest,
        /// The code.
        code: AuthorizationCode,
    },
    /// The resource owner password grant (Terraform uses it only for
    /// `app.terraform.io`). `Debug` does not show the password.
    Password {
        /// The user name.
        username: String,
        /// The password.
        password: String,
    },
}

impl fmt::Debug for TokenGrant<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenGrant::AuthorizationCode { request, code } => f
                .debug_struct("AuthorizationCode")
                .field("request", request)
                .field("code", code)
                .finish(),
            TokenGrant::Password { username, .. } => f
                .debug_struct("Password")
                .field("username", username)
                .field("password", &"***")
                .finish(),
        }
    }
}

/// The token request: a [`Goal`] whose output is the access token as
/// [`Credentials`]. Made by [`Transfer::login_token`].
pub struct TokenRequest {
    host: Hostname,
    body: Body,
    status: StatusCode,
    form: bool,
}

impl fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("host", &self.host)
            .field("body", &"***")
            .finish_non_exhaustive()
    }
}

impl Transfer<TokenRequest> {
    /// The token request of `client` for `grant` (LOGIN-6, LOGIN-7): a
    /// `POST` of a form to the client's token endpoint, `client_id` in the
    /// form (the Authorization header of no stored credentials is sent),
    /// never retried. Fails to start when the client has no token URL, or
    /// it is not https or carries user information (LOGIN-3).
    pub fn login_token(
        client: &OAuthClient,
        grant: TokenGrant<'_>,
        config: &Config,
        now: Instant,
    ) -> Result<Transfer<TokenRequest>, StartError> {
        let start = |e: Error| StartError::new(e);
        let url = checked_endpoint(client.token_url(), Endpoint::Token)
            .map_err(|e| start(e.into()))?
            .clone();
        let host = url_host(&url).map_err(start)?;
        let scope = client.scopes().join(" ");
        let form = match &grant {
            TokenGrant::AuthorizationCode { request, code } => go_form::encode(&[
                ("client_id", request.client_id().as_bytes()),
                ("code", code.bytes()),
                ("code_verifier", request.verifier().as_bytes()),
                ("grant_type", b"authorization_code"),
                ("redirect_uri", request.redirect_uri().as_bytes()),
            ]),
            TokenGrant::Password { username, password } => {
                let mut pairs: Vec<(&str, &[u8])> = vec![
                    ("client_id", client.client_id().as_bytes()),
                    ("grant_type", b"password"),
                    ("password", password.as_bytes()),
                    ("username", username.as_bytes()),
                ];
                if !client.scopes().is_empty() {
                    pairs.push(("scope", scope.as_bytes()));
                }
                go_form::encode(&pairs)
            }
        };
        let goal = TokenRequest {
            host,
            body: Body {
                content_type: HeaderValue::from_static("application/x-www-form-urlencoded"),
                bytes: Bytes::from(form),
            },
            status: StatusCode::OK,
            form: false,
        };
        Transfer::get(goal, url, config, None, now)
    }
}

/// The hostname of an https URL, for traces and the transfer's host.
pub(super) fn url_host(url: &Url) -> Result<Hostname, Error> {
    Hostname::of_url(url).map_err(|e| Error::InvalidArgument {
        message: format!("cannot request {url}: its host is not a valid hostname: {e}"),
    })
}

impl Goal for TokenRequest {
    type Output = Credentials;
    const NAME: &'static str = "login token";
    const KIND: crate::RequestKind = crate::RequestKind::Login;

    fn host(&self) -> &Hostname {
        &self.host
    }

    fn method(&self) -> Method {
        Method::POST
    }

    fn body(&self) -> Option<Body> {
        Some(self.body.clone())
    }

    /// Every answer's body is read: an error answer may say why in JSON
    /// (LOGIN-8).
    fn on_head(
        &mut self,
        _url: &Url,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Next<Credentials> {
        self.status = status;
        self.form = matches!(
            media_type(headers).as_deref(),
            Some("application/x-www-form-urlencoded" | "text/plain")
        );
        Next::ReadDocument
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<Credentials, Error> {
        let invalid = |problem: String| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        };
        let token = read_answer(self.status, self.form, &body).map_err(invalid)?;
        Credentials::token(&token).map_err(|_| {
            invalid("oauth2: the access_token cannot be sent in an HTTP header".to_owned())
        })
    }

    fn present_error(&self, error: Error) -> Error {
        RegistryCall::LoginToken.wrap(error)
    }
}

/// The lower-cased media type of the first `Content-Type`, as Go's
/// `mime.ParseMediaType` gives it (even when a parameter is malformed).
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(http::header::CONTENT_TYPE)?;
    let text = String::from_utf8_lossy(value.as_bytes());
    let media = text.split(';').next().unwrap_or_default().trim();
    Some(media.to_ascii_lowercase())
}

/// The fields of a token answer oauth2 reads.
#[derive(Default)]
struct Answer {
    access_token: String,
    error: String,
    error_description: String,
    error_uri: String,
}

/// What a token answer means (LOGIN-8): the access token, or the problem
/// in oauth2's words. Neither the token nor the body is ever in the
/// problem.
fn read_answer(status: StatusCode, form: bool, body: &[u8]) -> Result<String, String> {
    let failed = !status.is_success();
    let parsed = if form {
        read_form(body).map_err(|e| format!("oauth2: cannot parse response: {e}"))
    } else {
        read_json(body).map_err(|e| format!("oauth2: cannot parse json: {e}"))
    };
    let cannot_fetch = || format!("oauth2: cannot fetch token: {}", status_text(status));
    let answer = match parsed {
        Ok(answer) => answer,
        Err(_) if failed => return Err(cannot_fetch()),
        Err(problem) => return Err(problem),
    };
    if !answer.error.is_empty() {
        let mut problem = format!("oauth2: {}", crate::go_quote(&answer.error));
        for extra in [&answer.error_description, &answer.error_uri] {
            if !extra.is_empty() {
                problem.push(' ');
                problem.push_str(&crate::go_quote(extra));
            }
        }
        return Err(problem);
    }
    if failed {
        return Err(cannot_fetch());
    }
    if answer.access_token.is_empty() {
        return Err("oauth2: server response missing access_token".to_owned());
    }
    Ok(answer.access_token)
}

/// `404 Not Found`, as Go's `Response.Status`.
fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// A form-encoded answer, read by Go's `url.ParseQuery`.
fn read_form(body: &[u8]) -> Result<Answer, String> {
    let (pairs, error) = go_form::parse_query(body);
    if let Some(problem) = error {
        return Err(problem.to_owned());
    }
    let get = |name| String::from_utf8_lossy(go_form::first(&pairs, name)).into_owned();
    Ok(Answer {
        access_token: get("access_token"),
        error: get("error"),
        error_description: get("error_description"),
        error_uri: get("error_uri"),
    })
}

/// A JSON answer, read as Go's `json.Unmarshal` reads it into oauth2's
/// `tokenJSON`: an object (or `null`), names matched without regard to
/// case, the last of a repeated name kept, a `null` leaving a field as it
/// was; the string fields must be strings, `expires_in` a whole number
/// (or a string holding one) within 64 bits; nothing may follow.
fn read_json(body: &[u8]) -> Result<Answer, String> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let answer = de
        .deserialize_option(AnswerVisitor)
        .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(answer)
}

struct AnswerVisitor;

/// The fields of `tokenJSON`, as Go's case-insensitive match finds them.
const FIELDS: [&str; 7] = [
    "access_token",
    "token_type",
    "refresh_token",
    "expires_in",
    "error",
    "error_description",
    "error_uri",
];

/// Go's `encoding/json` name folding for ASCII field names: case, and the
/// Kelvin sign and long s that fold to `k` and `s`.
fn folds_to(key: &str, field: &str) -> bool {
    let mut key = key.chars().map(|c| match c {
        '\u{212a}' => 'k',
        '\u{17f}' => 's',
        c => c.to_ascii_lowercase(),
    });
    field.chars().all(|f| key.next() == Some(f)) && key.next().is_none()
}

impl<'de> Visitor<'de> for AnswerVisitor {
    type Value = Answer;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_none<E>(self) -> Result<Answer, E> {
        Ok(Answer::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Answer, D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Answer, A::Error> {
        let mut answer = Answer::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let field = FIELDS
                .iter()
                .find(|f| **f == key)
                .or_else(|| FIELDS.iter().find(|f| folds_to(&key, f)));
            let Some(&field) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if field == "expires_in" {
                let raw: &RawValue = map.next_value()?;
                check_expires_in(raw.get()).map_err(serde::de::Error::custom)?;
                continue;
            }
            let Some(value) = map.next_value::<Option<String>>()? else {
                continue;
            };
            match field {
                "access_token" => answer.access_token = value,
                "error" => answer.error = value,
                "error_description" => answer.error_description = value,
                "error_uri" => answer.error_uri = value,
                _ => {}
            }
        }
        Ok(answer)
    }
}

/// oauth2's `expirationTime`: `null`, or a JSON number (or a string
/// holding one) that is a whole number within 64 bits.
fn check_expires_in(raw: &str) -> Result<(), String> {
    if raw == "null" {
        return Ok(());
    }
    let text: Cow<'_, str> = if raw.starts_with('"') {
        let s: String = serde_json::from_str(raw).map_err(|e| e.to_string())?;
        if !is_json_number(&s) {
            return Err(format!(
                "invalid number literal, trying to unmarshal {raw} into Number"
            ));
        }
        Cow::Owned(s)
    } else if is_json_number(raw) {
        Cow::Borrowed(raw)
    } else {
        return Err("cannot unmarshal into Go value of type json.Number".to_owned());
    };
    text.parse::<i64>().map(|_| ()).map_err(|_| {
        format!(
            "strconv.ParseInt: parsing {}: invalid syntax",
            crate::go_quote(&text)
        )
    })
}

/// The JSON number grammar (RFC 8259 §6), as Go's `isValidNumber`.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(body: &str) -> Result<String, String> {
        read_answer(StatusCode::OK, false, body.as_bytes())
    }

    #[test]
    fn json_answers() {
        assert_eq!(json(r#"{"access_token": "t1"}"#), Ok("t1".into()));
        assert_eq!(
            json(r#"{"ACCESS_TOKEN": "t1", "token_type": null}"#),
            Ok("t1".into())
        );
        assert_eq!(
            json(r#"{"access_token": "a", "access_token": "b"}"#),
            Ok("b".into())
        );
        assert_eq!(
            json(r#"{"access_token": "a", "access_token": null}"#),
            Ok("a".into())
        );
        assert_eq!(
            json(r#"{"access_token": "a", "expires_in": "3600"}"#),
            Ok("a".into())
        );
        assert_eq!(
            json(r#"{"access_token": "a", "expires_in": 3600, "extra": [1, {}]}"#),
            Ok("a".into())
        );
        for bad in [
            r#"{"access_token": 5}"#,
            r#"{"access_token": "a", "expires_in": 1.5}"#,
            r#"{"access_token": "a", "expires_in": "x"}"#,
            r#"{"access_token": "a", "expires_in": true}"#,
            r#"{"access_token": "a"} {}"#,
            r#"["a"]"#,
            "not json",
        ] {
            let e = json(bad).expect_err(bad);
            assert!(e.starts_with("oauth2: cannot parse json: "), "{bad}: {e}");
        }
        assert_eq!(
            json("null"),
            Err("oauth2: server response missing access_token".into())
        );
        assert_eq!(
            json(r#"{"access_token": ""}"#),
            Err("oauth2: server response missing access_token".into())
        );
    }

    #[test]
    fn errors_never_hold_the_token_or_the_body() {
        let e = read_answer(
            StatusCode::BAD_REQUEST,
            false,
            br#"{"access_token": "s3cret", "other": "body-text"}"#,
        )
        .expect_err("400");
        assert_eq!(e, "oauth2: cannot fetch token: 400 Bad Request");
        let e = json(r#"{"access_token": "s3cret", "error": "invalid_grant"}"#)
            .expect_err("an error code");
        assert_eq!(e, r#"oauth2: "invalid_grant""#);
        let e = read_answer(
            StatusCode::UNAUTHORIZED,
            false,
            br#"{"error": "invalid_client", "error_description": "no such client", "error_uri": "https://e/x"}"#,
        )
        .expect_err("401");
        assert_eq!(
            e,
            r#"oauth2: "invalid_client" "no such client" "https://e/x""#
        );
        let e = read_answer(StatusCode::BAD_GATEWAY, false, b"<html>").expect_err("502");
        assert_eq!(e, "oauth2: cannot fetch token: 502 Bad Gateway");
    }

    #[test]
    fn form_answers() {
        let form = |body: &str| read_answer(StatusCode::OK, true, body.as_bytes());
        assert_eq!(
            form("access_token=a%2Bb&token_type=bearer"),
            Ok("a+b".into())
        );
        assert_eq!(
            form("error=access_denied&access_token=x"),
            Err(r#"oauth2: "access_denied""#.into())
        );
        assert_eq!(
            form("access_token=a;b"),
            Err("oauth2: cannot parse response: invalid semicolon separator in query".into())
        );
        assert_eq!(
            form(""),
            Err("oauth2: server response missing access_token".into())
        );
    }

    #[test]
    fn folding_and_numbers() {
        assert!(folds_to("Access_Token", "access_token"));
        assert!(folds_to("\u{17f}tate", "state"));
        assert!(!folds_to("access_tokens", "access_token"));
        for ok in ["0", "-0", "12", "1.5", "1e3", "-1.25E-2"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "+1", "1.", ".5", "1e", " 1", "0x1"] {
            assert!(!is_json_number(bad), "{bad}");
        }
        assert!(check_expires_in("9223372036854775807").is_ok());
        assert!(check_expires_in("9223372036854775808").is_err());
        assert!(check_expires_in("\"-5\"").is_ok());
        assert!(check_expires_in("\"1e3\"").is_err());
    }
}
