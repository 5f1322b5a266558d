//! The answers of an [`OAuthServer`](super::OAuthServer)'s endpoints, from
//! the request as the test server recorded it: `/authz` (the redirect),
//! `/token` (PKCE and the client checked), `tfe.v2` and the registry.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::{Digest, Sha256};

use super::records::{AuthzRequest, ServiceRequest, TokenRequest, field};
use super::settings::{AuthzAnswer, OAuthSettings, TokenAnswer};
use crate::{Reply, Seen};

/// The PKCE `S256` challenge of `verifier`: base64url (no padding) of its
/// SHA-256.
pub fn s256_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// What an issued code was given for.
#[derive(Clone)]
pub(crate) struct Grant {
    challenge: String,
    redirect_uri: String,
    client_id: String,
}

/// Everything the endpoints remember.
#[derive(Default)]
pub(crate) struct Book {
    pub(crate) authz: Vec<AuthzRequest>,
    pub(crate) token: Vec<TokenRequest>,
    pub(crate) services: Vec<ServiceRequest>,
    codes: HashMap<String, Grant>,
    issued: u64,
}

fn form(text: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text.as_bytes())
        .map(|(n, v)| (n.into_owned(), v.into_owned()))
        .collect()
}

/// Whether `uri` is `http://localhost:PORT/login`.
fn is_callback(uri: &str) -> bool {
    uri.strip_prefix("http://localhost:")
        .and_then(|rest| rest.strip_suffix("/login"))
        .is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
}

fn with_query(base: &str, pairs: &[(&str, &str)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (n, v) in pairs {
        query.append_pair(n, v);
    }
    let sep = if base.contains('?') { '&' } else { '?' };
    format!("{base}{sep}{}", query.finish())
}

fn plain(status: u16, text: &str) -> Reply {
    Reply::new(status)
        .header("Content-Type", "text/plain; charset=utf-8")
        .body(text.as_bytes())
}

fn json(status: u16, value: &serde_json::Value) -> Reply {
    Reply::new(status)
        .header("Content-Type", "application/json")
        .body(value.to_string().as_bytes())
}

impl Book {
    /// `GET /authz`: checks the query, records it, redirects.
    pub(crate) fn authorize(&mut self, seen: &Seen, settings: &OAuthSettings) -> Reply {
        let fields = form(seen.query.as_deref().unwrap_or(""));
        let get = |name: &str| field(&fields, name).unwrap_or("");
        let mut problems = Vec::new();
        if get("response_type") != "code" {
            problems.push(format!(
                "response_type is {:?}, not \"code\"",
                get("response_type")
            ));
        }
        if get("client_id") != settings.client_id {
            problems.push("client_id is not the client's".to_owned());
        }
        if !is_callback(get("redirect_uri")) {
            problems.push("redirect_uri is not http://localhost:PORT/login".to_owned());
        }
        if get("code_challenge_method") != "S256" {
            problems.push("code_challenge_method is not S256".to_owned());
        }
        if get("code_challenge").is_empty() {
            problems.push("no code_challenge".to_owned());
        }
        if get("state").is_empty() {
            problems.push("no state".to_owned());
        }
        if !settings.scopes.is_empty() && get("scope") != settings.scopes.join(" ") {
            problems.push("scope is not the configured scopes".to_owned());
        }
        if let Some((_, query)) = settings.authz.split_once('?') {
            for (name, value) in form(query) {
                if field(&fields, &name) != Some(value.as_str()) {
                    problems.push(format!("the authz URL's own {name} is missing"));
                }
            }
        }
        let mut record = AuthzRequest {
            fields: fields.clone(),
            problems,
            ..AuthzRequest::default()
        };
        if !record.problems.is_empty() {
            let reply = plain(400, &record.problems.join("\n"));
            self.authz.push(record);
            return reply;
        }
        let redirect_uri = get("redirect_uri");
        let state = get("state");
        let location = match settings.authz_answer {
            AuthzAnswer::AccessDenied => with_query(
                redirect_uri,
                &[("error", "access_denied"), ("state", state)],
            ),
            AuthzAnswer::NoCode => with_query(redirect_uri, &[("state", state)]),
            AuthzAnswer::Code | AuthzAnswer::WrongState => {
                self.issued += 1;
                let code = format!("code{}-{:016x}", self.issued, rand::random::<u64>());
                self.codes.insert(
                    code.clone(),
                    Grant {
                        challenge: get("code_challenge").to_owned(),
                        redirect_uri: redirect_uri.to_owned(),
                        client_id: get("client_id").to_owned(),
                    },
                );
                record.code = Some(code.clone());
                let state = if settings.authz_answer == AuthzAnswer::WrongState {
                    "not-the-state"
                } else {
                    state
                };
                with_query(redirect_uri, &[("code", &code), ("state", state)])
            }
        };
        record.location = Some(location.clone());
        self.authz.push(record);
        Reply::redirect(302, &location)
    }

    /// `POST /token`: records the form and the `Authorization` header,
    /// checks the grant, answers.
    pub(crate) fn token(&mut self, seen: &Seen, settings: &OAuthSettings) -> Reply {
        let fields = form(&String::from_utf8_lossy(&seen.body));
        let get = |name: &str| field(&fields, name).unwrap_or("");
        let mut record = TokenRequest {
            authorization: seen.authorization().map(str::to_owned),
            content_type: seen.header("content-type").map(str::to_owned),
            fields: fields.clone(),
            ..TokenRequest::default()
        };
        record.client = basic_user(record.authorization.as_deref())
            .map(|user| (user, "basic"))
            .or_else(|| field(&fields, "client_id").map(|id| (id.to_owned(), "form")));
        let client = record.client.as_ref().map(|(id, _)| id.as_str());
        let problems = &mut record.problems;
        if seen.method != "POST" {
            problems.push(format!("method {}, not POST", seen.method));
        }
        if client != Some(settings.client_id.as_str()) {
            problems.push("the client is not the configured client".to_owned());
        }
        let mut used = None;
        match get("grant_type") {
            "authorization_code" => match self.codes.get(get("code")) {
                None => problems.push("the code was not issued".to_owned()),
                Some(grant) => {
                    if s256_challenge(get("code_verifier")) != grant.challenge {
                        problems.push("code_verifier does not match the code's challenge".into());
                    }
                    if get("redirect_uri") != grant.redirect_uri {
                        problems.push("redirect_uri is not the code's".to_owned());
                    }
                    if client != Some(grant.client_id.as_str()) {
                        problems.push("the client is not the code's".to_owned());
                    }
                    used = Some(get("code").to_owned());
                }
            },
            "password" => {
                if get("username") != settings.username || get("password") != settings.password {
                    problems.push("wrong username or password".to_owned());
                }
            }
            other => problems.push(format!("grant_type {other:?} is not supported")),
        }
        if !settings.scopes.is_empty()
            && get("grant_type") == "password"
            && get("scope") != settings.scopes.join(" ")
        {
            problems.push("scope is not the configured scopes".to_owned());
        }
        let reply = if !record.problems.is_empty() {
            json(
                400,
                &serde_json::json!({
                    "error": "invalid_grant",
                    "error_description": record.problems.join("; "),
                }),
            )
        } else {
            match settings.token_answer {
                TokenAnswer::Token => {
                    if let Some(code) = used {
                        // A code is good for one token.
                        self.codes.remove(&code);
                    }
                    json(
                        200,
                        &serde_json::json!({
                            "access_token": settings.access_token,
                            "token_type": "bearer",
                        }),
                    )
                }
                TokenAnswer::InvalidGrant => {
                    json(400, &serde_json::json!({"error": "invalid_grant"}))
                }
                TokenAnswer::ServerError => plain(500, "the token service failed"),
                TokenAnswer::NotJson => Reply::new(200)
                    .header("Content-Type", "application/json")
                    .body(b"<html>this is not JSON</html>"),
                TokenAnswer::NoAccessToken => {
                    json(200, &serde_json::json!({"token_type": "bearer"}))
                }
            }
        };
        record.status = reply.status;
        self.token.push(record);
        reply
    }

    /// `tfe.v2`: `ping` and `account/details`.
    pub(crate) fn tfe(&mut self, seen: &Seen, settings: &OAuthSettings) -> Option<Reply> {
        let reply = match seen.path.strip_prefix("/api/v2/")? {
            "ping" => Reply::new(204)
                .header("TFP-API-Version", "2.6")
                .header("TFP-AppName", "Terraform Enterprise")
                .header("X-TFE-Version", "v202501-1"),
            "account/details" => {
                if seen.authorization() == Some(format!("Bearer {}", settings.tfe_token).as_str()) {
                    let body = serde_json::json!({"data": {
                        "id": "user-1",
                        "type": "users",
                        "attributes": {"username": settings.tfe_username},
                    }});
                    Reply::new(200)
                        .header("Content-Type", "application/vnd.api+json")
                        .body(body.to_string().as_bytes())
                } else {
                    let body =
                        serde_json::json!({"errors": [{"status": "401", "title": "unauthorized"}]});
                    Reply::new(401)
                        .header("Content-Type", "application/vnd.api+json")
                        .body(body.to_string().as_bytes())
                }
            }
            _ => return None,
        };
        self.note(seen, reply.status);
        Some(reply)
    }

    /// `providers.v1`: `GET /v1/providers/NS/NAME/versions` answers no
    /// versions; the request is recorded.
    pub(crate) fn registry(&mut self, seen: &Seen) -> Option<Reply> {
        let rest = seen.path.strip_prefix("/v1/providers/")?;
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.len() != 3 || parts[2] != "versions" {
            return None;
        }
        let reply = json(200, &serde_json::json!({"versions": []}));
        self.note(seen, 200);
        Some(reply)
    }

    fn note(&mut self, seen: &Seen, status: u16) {
        self.services.push(ServiceRequest {
            method: seen.method.clone(),
            path: seen.path.clone(),
            authorization: seen.authorization().map(str::to_owned),
            status,
        });
    }
}

/// The user of `Basic BASE64(user:secret)`, percent-decoded as RFC 6749
/// has clients encode it.
fn basic_user(header: Option<&str>) -> Option<String> {
    let encoded = header?.strip_prefix("Basic ")?;
    let decoded = STANDARD.decode(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let user = text.split_once(':').map_or(text.as_str(), |(u, _)| u);
    Some(
        url::form_urlencoded::parse(format!("u={user}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_of_rfc_7636() {
        // RFC 7636, appendix B.
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn callback_uris() {
        assert!(is_callback("http://localhost:10000/login"));
        assert!(!is_callback("http://localhost:/login"));
        assert!(!is_callback("https://localhost:10000/login"));
        assert!(!is_callback("http://127.0.0.1:10000/login"));
    }

    #[test]
    fn basic_users() {
        let header = format!("Basic {}", STANDARD.encode("terraform-cli:"));
        assert_eq!(basic_user(Some(&header)).as_deref(), Some("terraform-cli"));
        let header = format!("Basic {}", STANDARD.encode("a%2Bb:x"));
        assert_eq!(basic_user(Some(&header)).as_deref(), Some("a+b"));
        assert_eq!(basic_user(Some("Bearer x")), None);
    }
}
