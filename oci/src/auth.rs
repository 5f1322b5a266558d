//! What a client learns of each registry's authentication, and what it
//! sends because of it (OCI-5, OCI-6): the scheme a registry asked for, its
//! token service, and the tokens it gave, per repository scope, until they
//! expire.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tfdisco_core::http::StatusCode;
use tfdisco_core::{Credentials, Error};
use url::Url;

use crate::{Challenge, OciCredentials, Scheme};

/// What a request does in a repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Reads: `pull`.
    Pull,
    /// Reads and writes: `pull,push`.
    Push,
}

/// A token scope: `repository:NAME:pull` (or `pull,push`), and for a
/// cross-repository mount the source's `repository:FROM:pull` too, the two
/// separated by a space as a challenge lists them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scope {
    repository: Box<str>,
    access: Access,
    /// The repository a mount reads from.
    from: Option<Box<str>>,
}

impl Scope {
    /// The scope of `access` to `repository`.
    pub fn new(repository: &str, access: Access) -> Scope {
        Scope {
            repository: repository.into(),
            access,
            from: None,
        }
    }

    /// The scope of mounting a blob of `from` into `repository`: push to
    /// the one, pull from the other (both of one registry).
    ///
    /// ```
    /// use tfdisco_oci::Scope;
    /// assert_eq!(
    ///     Scope::mount("prod/aws", "staging/aws").to_string(),
    ///     "repository:prod/aws:pull,push repository:staging/aws:pull"
    /// );
    /// ```
    pub fn mount(repository: &str, from: &str) -> Scope {
        Scope {
            repository: repository.into(),
            access: Access::Push,
            from: Some(from.into()),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let actions = match self.access {
            Access::Pull => "pull",
            Access::Push => "pull,push",
        };
        write!(f, "repository:{}:{actions}", self.repository)?;
        match &self.from {
            Some(from) => write!(f, " repository:{from}:pull"),
            None => Ok(()),
        }
    }
}

/// How long a token lives when its answer does not say: 60 s, the
/// distribution specification's default.
const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(60);

/// The schemes, token services and tokens a client learned, per registry.
/// A client keeps one, shared by its requests (behind a lock); it holds
/// tokens, so its `Debug` shows only which registries it knows.
#[derive(Default)]
pub struct AuthCache {
    registries: HashMap<Box<str>, Learned>,
}

#[derive(Default)]
struct Learned {
    /// The registry asked for `Basic`: every request carries it.
    basic: bool,
    /// Tokens by scope, with when they expire.
    tokens: HashMap<String, (Credentials, Option<Instant>)>,
}

impl fmt::Debug for AuthCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthCache")
            .field("registries", &self.registries.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// What to do after a challenge.
#[derive(Debug)]
pub(crate) enum AfterChallenge {
    /// Send the request again: the cache now knows what to send.
    Retry,
    /// Ask the token service first.
    Token(TokenService),
}

/// The registry's token service as a challenge named it: where to ask,
/// and with which credentials.
#[derive(Debug)]
pub(crate) struct TokenService {
    pub(crate) url: Url,
    /// `Basic` with the username and password, when there are some.
    pub(crate) credentials: Option<Credentials>,
}

impl AuthCache {
    /// An empty cache.
    pub fn new() -> AuthCache {
        AuthCache::default()
    }

    /// The `Authorization` a request to `registry` for `scope` carries at
    /// `now`: `Basic` once the registry asked for it, a token still valid
    /// for the scope, or nothing (the registry's challenge then says what
    /// it wants).
    pub fn authorization(
        &self,
        registry: &str,
        scope: &Scope,
        credentials: Option<&OciCredentials>,
        now: Instant,
    ) -> Option<Credentials> {
        let learned = self.registries.get(registry)?;
        if learned.basic {
            return credentials.and_then(OciCredentials::basic_authorization);
        }
        match learned.tokens.get(&scope.to_string()) {
            Some((token, expires)) if expires.is_none_or(|at| now < at) => Some(token.clone()),
            _ => None,
        }
    }

    /// A 401 from `url` with `challenge`: what to do next, or why the
    /// request cannot be authorized.
    pub(crate) fn challenged(
        &mut self,
        registry: &str,
        challenge: Option<&Challenge>,
        scope: &Scope,
        credentials: Option<&OciCredentials>,
        url: &Url,
    ) -> Result<AfterChallenge, Error> {
        let unauthorized = || Error::Status {
            url: url.clone().into(),
            status: StatusCode::UNAUTHORIZED,
        };
        let invalid = |problem: String| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        };
        let Some(challenge) = challenge else {
            return Err(unauthorized());
        };
        let learned = self.registries.entry(registry.into()).or_default();
        match challenge.scheme() {
            Scheme::Basic => match credentials.and_then(OciCredentials::basic_authorization) {
                Some(_) => {
                    learned.basic = true;
                    Ok(AfterChallenge::Retry)
                }
                None => Err(unauthorized()),
            },
            Scheme::Bearer => {
                if let Some(token) = credentials.and_then(OciCredentials::bearer_authorization) {
                    learned.tokens.insert(scope.to_string(), (token, None));
                    return Ok(AfterChallenge::Retry);
                }
                if credentials.is_some_and(OciCredentials::has_refresh_token) {
                    return Err(Error::InvalidArgument {
                        message: format!(
                            "{registry} asks for a token, and tfdisco cannot yet trade a \
                             refresh token (an identity token) for one"
                        ),
                    });
                }
                let realm = challenge
                    .param("realm")
                    .ok_or_else(|| invalid("the Bearer challenge has no realm".to_owned()))?;
                let mut token_url = Url::parse(realm).map_err(|e| {
                    invalid(format!(
                        "the Bearer challenge's realm {realm:?} is not a URL: {e}"
                    ))
                })?;
                if !matches!(token_url.scheme(), "https" | "http") {
                    return Err(invalid(format!(
                        "the Bearer challenge's realm {realm:?} is not an http(s) URL"
                    )));
                }
                {
                    let mut query = token_url.query_pairs_mut();
                    if let Some(service) = challenge.param("service") {
                        query.append_pair("service", service);
                    }
                    // The challenge's scopes, else the request's own.
                    let own = scope.to_string();
                    let scopes = challenge.param("scope").unwrap_or(&own);
                    for s in scopes.split(' ').filter(|s| !s.is_empty()) {
                        query.append_pair("scope", s);
                    }
                }
                Ok(AfterChallenge::Token(TokenService {
                    url: token_url,
                    credentials: credentials.and_then(OciCredentials::basic_authorization),
                }))
            }
            Scheme::Other(name) => Err(invalid(format!(
                "the registry asks for the {name} authentication scheme, which tfdisco does not \
                 speak (only Basic and Bearer)"
            ))),
        }
    }

    /// The token service's answer for `scope`, received at `now`.
    pub(crate) fn token_received(
        &mut self,
        registry: &str,
        scope: &Scope,
        token: TokenAnswer,
        now: Instant,
    ) {
        let expires = now.checked_add(token.lifetime);
        self.registries
            .entry(registry.into())
            .or_default()
            .tokens
            .insert(scope.to_string(), (token.token, expires));
    }
}

/// A token service's answer: the token and how long it lives.
#[derive(Clone, Debug)]
pub struct TokenAnswer {
    token: Credentials,
    lifetime: Duration,
}

impl TokenAnswer {
    /// Reads `{"token": …}` or `{"access_token": …}`, with `expires_in`
    /// seconds (60 when absent or under 60, as the distribution
    /// specification says).
    pub(crate) fn parse(url: &Url, body: &[u8]) -> Result<TokenAnswer, Error> {
        #[derive(Deserialize)]
        struct Body {
            #[serde(default)]
            token: Option<String>,
            #[serde(default)]
            access_token: Option<String>,
            #[serde(default)]
            expires_in: Option<u64>,
        }
        let invalid = |problem: String| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        };
        let body: Body = serde_json::from_slice(body)
            .map_err(|e| invalid(format!("the token service's answer is not its JSON: {e}")))?;
        let token = body
            .token
            .filter(|t| !t.is_empty())
            .or(body.access_token.filter(|t| !t.is_empty()))
            .ok_or_else(|| invalid("the token service's answer holds no token".to_owned()))?;
        let token = Credentials::token(&token).map_err(|e| invalid(e.to_string()))?;
        let lifetime = body
            .expires_in
            .map(Duration::from_secs)
            .filter(|&d| d >= DEFAULT_TOKEN_LIFETIME)
            .unwrap_or(DEFAULT_TOKEN_LIFETIME);
        Ok(TokenAnswer { token, lifetime })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        crate::RepositoryAddress::parse("r.example/a")
            .expect("valid")
            .tags_url()
    }

    #[test]
    fn basic_once_asked_for() {
        let mut cache = AuthCache::new();
        let scope = Scope::new("a", Access::Pull);
        let creds = OciCredentials::basic("u", "p");
        let now = Instant::now();
        assert_eq!(
            cache.authorization("r.example", &scope, Some(&creds), now),
            None
        );
        let challenge = Challenge::parse(r#"Basic realm="x""#);
        let next = cache
            .challenged(
                "r.example",
                challenge.as_ref(),
                &scope,
                Some(&creds),
                &url(),
            )
            .expect("retry");
        assert!(matches!(next, AfterChallenge::Retry));
        let sent = cache
            .authorization("r.example", &scope, Some(&creds), now)
            .expect("basic");
        assert_eq!(sent.authorization().to_str().expect("ascii"), "Basic dTpw");
        // Without credentials, a Basic challenge cannot be answered.
        let err = AuthCache::new()
            .challenged("r.example", challenge.as_ref(), &scope, None, &url())
            .expect_err("401");
        assert_eq!(err.status(), Some(StatusCode::UNAUTHORIZED));
    }

    #[test]
    fn bearer_asks_the_token_service_and_keeps_the_token_until_it_expires() {
        let mut cache = AuthCache::new();
        let scope = Scope::new("a/b", Access::Pull);
        let creds = OciCredentials::basic("u", "p");
        let challenge = Challenge::parse(
            r#"Bearer realm="https://auth.example/token",service="r.example",scope="repository:a/b:pull""#,
        );
        let AfterChallenge::Token(request) = cache
            .challenged(
                "r.example",
                challenge.as_ref(),
                &scope,
                Some(&creds),
                &url(),
            )
            .expect("token")
        else {
            panic!("a token request")
        };
        assert_eq!(
            request.url.as_str(),
            "https://auth.example/token?service=r.example&scope=repository%3Aa%2Fb%3Apull"
        );
        assert!(request.credentials.is_some());
        let answer = TokenAnswer::parse(&url(), br#"{"token":"T","expires_in":300}"#).expect("ok");
        let now = Instant::now();
        cache.token_received("r.example", &scope, answer, now);
        let sent = cache
            .authorization("r.example", &scope, None, now)
            .expect("token");
        assert_eq!(sent.authorization().to_str().expect("ascii"), "Bearer T");
        let other = Scope::new("a/b", Access::Push);
        assert_eq!(cache.authorization("r.example", &other, None, now), None);
        let later = now + Duration::from_secs(300);
        assert_eq!(cache.authorization("r.example", &scope, None, later), None);
        assert_eq!(
            format!("{cache:?}"),
            r#"AuthCache { registries: ["r.example"] }"#
        );
    }

    #[test]
    fn a_mount_asks_for_both_repositories_and_keeps_its_own_token() {
        let mut cache = AuthCache::new();
        let mount = Scope::mount("prod/a", "staging/a");
        // No scope in the challenge: the request's own, one parameter each.
        let challenge = Challenge::parse(r#"Bearer realm="https://auth.example/token""#);
        let AfterChallenge::Token(request) = cache
            .challenged("r.example", challenge.as_ref(), &mount, None, &url())
            .expect("token")
        else {
            panic!("a token request")
        };
        assert_eq!(
            request.url.query(),
            Some("scope=repository%3Aprod%2Fa%3Apull%2Cpush&scope=repository%3Astaging%2Fa%3Apull")
        );
        let answer = TokenAnswer::parse(&url(), br#"{"token":"M"}"#).expect("ok");
        let now = Instant::now();
        cache.token_received("r.example", &mount, answer, now);
        assert!(
            cache
                .authorization("r.example", &mount, None, now)
                .is_some()
        );
        let push = Scope::new("prod/a", Access::Push);
        assert_eq!(cache.authorization("r.example", &push, None, now), None);
    }

    #[test]
    fn token_answers() {
        let a = TokenAnswer::parse(&url(), br#"{"access_token":"A"}"#).expect("ok");
        assert_eq!(a.lifetime, DEFAULT_TOKEN_LIFETIME);
        let a = TokenAnswer::parse(&url(), br#"{"token":"","access_token":"A","expires_in":5}"#)
            .expect("ok");
        assert_eq!(a.token.expose_token(), "A");
        assert_eq!(a.lifetime, DEFAULT_TOKEN_LIFETIME);
        for bad in [&b"{}"[..], b"[]", b"{\"token\":\"a\nb\"}", b"not json"] {
            assert!(TokenAnswer::parse(&url(), bad).is_err());
        }
    }

    #[test]
    fn challenges_that_cannot_be_answered() {
        let scope = Scope::new("a", Access::Pull);
        for (header, problem) in [
            ("Bearer service=\"x\"", "no realm"),
            ("Bearer realm=\"/token\"", "not a URL"),
            ("Bearer realm=\"ftp://x/\"", "not an http"),
            ("Negotiate", "negotiate"),
        ] {
            let err = AuthCache::new()
                .challenged("r", Challenge::parse(header).as_ref(), &scope, None, &url())
                .expect_err(header);
            assert!(err.to_string().contains(problem), "{header}: {err}");
        }
        let refresh = OciCredentials::refresh_token("R");
        let err = AuthCache::new()
            .challenged(
                "r",
                Challenge::parse("Bearer realm=\"https://a/\"").as_ref(),
                &scope,
                Some(&refresh),
                &url(),
            )
            .expect_err("not yet");
        assert!(err.to_string().contains("refresh token"), "{err}");
    }
}
