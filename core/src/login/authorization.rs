//! The authorization-code half of a login: the URL the browser opens, the
//! loopback listener's ports and what a request to it means (LOGIN-1 to
//! LOGIN-5).

use std::fmt;

use url::Url;

use super::go_form;
use super::pkce;
use super::{Endpoint, LoginError, LoginSeed, checked_endpoint};
use crate::OAuthClient;

/// A login's authorization request: the URL to open in a browser, with the
/// state and the PKCE verifier that go with it. `Debug` does not show the
/// verifier.
#[derive(Clone)]
pub struct AuthorizationRequest {
    url: Url,
    redirect_uri: String,
    state: String,
    verifier: String,
    challenge: String,
    client_id: String,
}

impl AuthorizationRequest {
    /// The request of `client` for a listener on `port`, with the state and
    /// verifier `seed` makes (LOGIN-1, LOGIN-2). Fails when the client has
    /// no authorization or token URL, or one is not https or carries user
    /// information (LOGIN-3).
    pub fn new(
        client: &OAuthClient,
        port: u16,
        seed: &LoginSeed,
    ) -> Result<AuthorizationRequest, LoginError> {
        let authz = checked_endpoint(client.authorization_url(), Endpoint::Authorization)?;
        checked_endpoint(client.token_url(), Endpoint::Token)?;
        let state = pkce::uuid(&seed.state());
        let verifier = pkce::verifier(&seed.verifier_uuid(), seed.verifier_number());
        let challenge = pkce::challenge(&verifier);
        let redirect_uri = format!("http://localhost:{port}/login");
        let scope = client.scopes().join(" ");
        let mut pairs: Vec<(&str, &[u8])> = vec![
            ("client_id", client.client_id().as_bytes()),
            ("code_challenge", challenge.as_bytes()),
            ("code_challenge_method", b"S256"),
            ("redirect_uri", redirect_uri.as_bytes()),
            ("response_type", b"code"),
            ("state", state.as_bytes()),
        ];
        if !client.scopes().is_empty() {
            pairs.push(("scope", scope.as_bytes()));
        }
        let encoded = go_form::encode(&pairs);
        // oauth2's AuthCodeURL: `&` when the URL already has a `?`. URL
        // rules dropped any fragment (URL-5), so a `?` is the query's.
        let mut url = authz.clone();
        let query = match authz.query() {
            Some(existing) => format!("{existing}&{encoded}"),
            None => encoded,
        };
        url.set_query(Some(&query));
        Ok(AuthorizationRequest {
            url,
            redirect_uri,
            state,
            verifier,
            challenge,
            client_id: client.client_id().to_owned(),
        })
    }

    /// The authorization URL to open in a browser.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// `http://localhost:PORT/login`, the redirect URI both requests name.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// The request state, a UUID.
    pub fn state(&self) -> &str {
        &self.state
    }

    /// The PKCE code challenge (S256).
    pub fn code_challenge(&self) -> &str {
        &self.challenge
    }

    /// The PKCE verifier, for the token request.
    pub(super) fn verifier(&self) -> &str {
        &self.verifier
    }

    /// The client id the authorization URL names.
    pub(super) fn client_id(&self) -> &str {
        &self.client_id
    }

    /// What a request to the loopback listener means (LOGIN-4). `target` is
    /// the HTTP request-target as received (`/login?code=…&state=…`); its
    /// query is read as Go's `ParseForm` reads it, and the path and method
    /// do not matter, as in Terraform.
    pub fn callback(&self, target: &str) -> Callback {
        let query = match target.split_once('?') {
            Some((_, query)) => query,
            None => "",
        };
        let (pairs, error) = go_form::parse_query(query.as_bytes());
        if let Some(problem) = error {
            return Callback::Rejected {
                reason: format!("the callback's query cannot be parsed: {problem}"),
            };
        }
        let state = go_form::first(&pairs, "state");
        if !same(state, self.state.as_bytes()) {
            let reason = if state.is_empty() {
                "the callback has no \"state\""
            } else {
                "incorrect \"state\" value in the callback"
            };
            return Callback::Rejected {
                reason: reason.to_owned(),
            };
        }
        let code = go_form::first(&pairs, "code");
        if !code.is_empty() {
            return Callback::Code(AuthorizationCode(code.to_vec()));
        }
        let error = go_form::first(&pairs, "error");
        if !error.is_empty() {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let description = go_form::first(&pairs, "error_description");
            return Callback::Denied {
                error: text(error),
                description: (!description.is_empty()).then(|| text(description)),
            };
        }
        Callback::Rejected {
            reason: "no \"code\" argument in the callback".to_owned(),
        }
    }
}

impl fmt::Debug for AuthorizationRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorizationRequest")
            .field("url", &self.url.as_str())
            .field("redirect_uri", &self.redirect_uri)
            .field("state", &self.state)
            .field("verifier", &"***")
            .field("code_challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

/// Compares two byte strings in time that depends only on their lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What a request to the loopback listener means
/// ([`AuthorizationRequest::callback`]).
#[derive(Debug)]
pub enum Callback {
    /// The authorization code: answer with a page saying so, stop
    /// listening, and ask for the token.
    Code(AuthorizationCode),
    /// Answer 400 and keep waiting, as Terraform does: a query Go cannot
    /// parse, a wrong or missing state, no code. `reason` is for people.
    Rejected {
        /// Why, in a few words (never the request's values).
        reason: String,
    },
    /// The server said `error=…` (with the right state): the login ends
    /// with this error (D40; Terraform keeps waiting for a code).
    Denied {
        /// The `error` code.
        error: String,
        /// The `error_description`, when given.
        description: Option<String>,
    },
}

impl Callback {
    /// The error that ends the login, for [`Callback::Denied`].
    pub fn into_error(self) -> Option<LoginError> {
        match self {
            Callback::Denied { error, description } => {
                Some(LoginError::Denied { error, description })
            }
            _ => None,
        }
    }
}

/// An authorization code from the callback: used once, in the token
/// request. `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthorizationCode(Vec<u8>);

impl AuthorizationCode {
    /// The code's bytes, as the callback's query gave them (Go does not
    /// check them for UTF-8).
    pub(super) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for AuthorizationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthorizationCode(***)")
    }
}

/// The ports to try for the listener, in order, as Terraform picks them
/// (LOGIN-5): `min + random(max - min)` (so never `max` itself), at most
/// `1.5 × (max - min)` tries; none when `max == min`, where Terraform
/// cannot pick one. `random(n)` returns a number in `0..n`; a larger one is
/// taken modulo `n`.
pub fn callback_ports(client: &OAuthClient, random: &mut dyn FnMut(u32) -> u32) -> Vec<u16> {
    let (min, max) = (client.min_port(), client.max_port());
    let available = u32::from(max.saturating_sub(min));
    let tries = available + available / 2;
    (0..tries)
        .map(|_| {
            let offset = random(available) % available;
            // min + offset < max ≤ 65535.
            u16::try_from(u32::from(min) + offset).unwrap_or(max)
        })
        .collect()
}
