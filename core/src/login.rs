//! `terraform login`'s policy, without I/O (docs/behaviour.md, LOGIN-1 to
//! LOGIN-11): the authorization URL a browser opens, what a request to the
//! loopback listener means, the ports to listen on, the token request to a
//! `login.v1` client's token endpoint and what its answer means, and the
//! `tfe.v2` fallback (the tokens page, and the pasted token's check).
//!
//! The caller supplies the randomness ([`LoginSeed`], the `random` of
//! [`callback_ports`]), listens, opens the browser and drives the
//! transfers; everything decided is here.
//!
//! ```
//! use tfdisco_core::url::Url;
//! use tfdisco_core::{AuthorizationRequest, Callback, Dialect, Hostname, LoginSeed, Services};
//!
//! let body = br#"{"login.v1": {"client": "terraform-cli", "authz": "/oauth/authorization",
//!     "token": "/oauth/token", "ports": [10000, 10010]}}"#;
//! let host = Hostname::parse("example.com")?;
//! let url = Url::parse("https://example.com/.well-known/terraform.json")?;
//! let services = Services::from_json(host, url, Dialect::Terraform, body)?;
//! let client = services.oauth_client("login.v1")?;
//!
//! let request = AuthorizationRequest::new(&client, 10003, &LoginSeed::new([7; 36]))?;
//! assert_eq!(request.redirect_uri(), "http://localhost:10003/login");
//! assert!(request.url().as_str().starts_with(
//!     "https://example.com/oauth/authorization?client_id=terraform-cli&code_challenge="
//! ));
//! let target = format!("/login?code=abc&state={}", request.state());
//! assert!(matches!(request.callback(&target), Callback::Code(_)));
//! assert!(matches!(request.callback("/login?code=abc&state=x"), Callback::Rejected { .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod authorization;
mod go_form;
mod pkce;
mod tfe;
mod token;

use std::fmt;

use url::Url;

use crate::{Hostname, OAuthClient};

pub use authorization::{AuthorizationCode, AuthorizationRequest, Callback, callback_ports};
pub use tfe::{TfeAccount, TfeAccountRequest, TfePing, tfe_account_message, tfe_tokens_page};
pub use token::{TokenGrant, TokenRequest};

/// The random bytes a login needs, from the caller (a cryptographic
/// source; tests give fixed bytes): 16 for the request state, 16 and 4
/// for the PKCE verifier. `Debug` does not show them.
#[derive(Clone)]
pub struct LoginSeed {
    bytes: [u8; 36],
}

impl LoginSeed {
    /// A seed of 36 random bytes: `0..16` make the state, `16..32` the
    /// verifier's UUID, `32..36` its number.
    pub fn new(bytes: [u8; 36]) -> LoginSeed {
        LoginSeed { bytes }
    }

    fn state(&self) -> [u8; 16] {
        self.part(0)
    }

    fn verifier_uuid(&self) -> [u8; 16] {
        self.part(16)
    }

    fn verifier_number(&self) -> [u8; 4] {
        let mut n = [0; 4];
        n.copy_from_slice(&self.bytes[32..36]);
        n
    }

    fn part(&self, from: usize) -> [u8; 16] {
        let mut part = [0; 16];
        part.copy_from_slice(&self.bytes[from..from + 16]);
        part
    }
}

impl fmt::Debug for LoginSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LoginSeed(***)")
    }
}

/// How `terraform login` obtains a token from a `login.v1` client
/// ([`login_grant_type`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoginGrantType {
    /// The authorization-code grant with PKCE, through a browser.
    AuthorizationCode,
    /// The resource owner password grant: a user name and password typed
    /// in.
    Password,
}

/// HCP Terraform's host: the one `terraform login` logs in to when none
/// is named, and the only one it uses the password grant with (LOGIN-11).
pub const HCP_TERRAFORM_HOST: &str = "app.terraform.io";

/// The grant `terraform login` uses with `client` for `host` (LOGIN-11):
/// the authorization code when the client supports `authz_code`, else the
/// password grant when it supports `password` and the host is
/// `app.terraform.io`, else none ([`LoginError::NoSupportedGrant`]).
pub fn login_grant_type(
    client: &OAuthClient,
    host: &Hostname,
) -> Result<LoginGrantType, LoginError> {
    if client.supports_grant_type("authz_code") {
        Ok(LoginGrantType::AuthorizationCode)
    } else if client.supports_grant_type("password") && host.as_str() == HCP_TERRAFORM_HOST {
        Ok(LoginGrantType::Password)
    } else {
        Err(LoginError::NoSupportedGrant {
            host: host.display().into_owned(),
        })
    }
}

/// Which endpoint of an OAuth client a [`LoginError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Endpoint {
    /// The authorization endpoint (`authz`), opened in a browser.
    Authorization,
    /// The token endpoint (`token`), which the token request goes to.
    Token,
}

impl Endpoint {
    /// `authorization` or `token`.
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::Authorization => "authorization",
            Endpoint::Token => "token",
        }
    }
}

/// Why a login cannot go on. The messages are for people and never hold a
/// secret (a code, a verifier, a password, a token, a URL's user
/// information).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoginError {
    /// The client declares no URL for `endpoint`.
    MissingEndpoint {
        /// The endpoint.
        endpoint: Endpoint,
    },
    /// The endpoint is not an `https:` URL (LOGIN-3, D39).
    NotHttps {
        /// The endpoint.
        endpoint: Endpoint,
        /// Its URL, without user information.
        url: String,
    },
    /// The endpoint's URL has a user name or password (LOGIN-3).
    UserInfo {
        /// The endpoint.
        endpoint: Endpoint,
        /// Its URL, without user information.
        url: String,
    },
    /// The client allows no grant type this login can use (LOGIN-11).
    NoSupportedGrant {
        /// The host, in its display form.
        host: String,
    },
    /// The server answered the authorization request with `error=…`
    /// (LOGIN-4, D40).
    Denied {
        /// The `error` code (RFC 6749 §4.1.2.1).
        error: String,
        /// The `error_description`, when given.
        description: Option<String>,
    },
}

impl fmt::Display for LoginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoginError::MissingEndpoint { endpoint } => {
                write!(f, "the login.v1 client declares no {} URL", endpoint.name())
            }
            LoginError::NotHttps { endpoint, url } => write!(
                f,
                "the login.v1 client's {} URL {url} is not an https: URL",
                endpoint.name()
            ),
            LoginError::UserInfo { endpoint, url } => write!(
                f,
                "the login.v1 client's {} URL {url} must not carry a user name or password",
                endpoint.name()
            ),
            LoginError::NoSupportedGrant { host } => write!(
                f,
                "The given hostname {} does not allow any OAuth grant types that are supported \
                 by this version of Terraform.",
                crate::go_quote(host)
            ),
            LoginError::Denied { error, description } => {
                write!(
                    f,
                    "the authorization server refused the login: {}",
                    crate::go_quote(error)
                )?;
                match description {
                    Some(description) => write!(f, " {}", crate::go_quote(description)),
                    None => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for LoginError {}

impl From<LoginError> for crate::Error {
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) with the
    /// login error's message.
    fn from(e: LoginError) -> crate::Error {
        crate::Error::InvalidArgument {
            message: e.to_string(),
        }
    }
}

/// `endpoint`'s URL of a client, checked (LOGIN-3): present, `https:`,
/// without user information.
fn checked_endpoint(url: Option<&Url>, endpoint: Endpoint) -> Result<&Url, LoginError> {
    let url = url.ok_or(LoginError::MissingEndpoint { endpoint })?;
    let shown = || {
        let mut shown = url.clone();
        // Only fails for URLs that cannot have user information.
        let _ = shown.set_username("");
        let _ = shown.set_password(None);
        shown.to_string()
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(LoginError::UserInfo {
            endpoint,
            url: shown(),
        });
    }
    if url.scheme() != "https" || url.host_str().is_none_or(str::is_empty) {
        return Err(LoginError::NotHttps {
            endpoint,
            url: shown(),
        });
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_debug_hides_the_bytes() {
        assert_eq!(format!("{:?}", LoginSeed::new([9; 36])), "LoginSeed(***)");
    }

    #[test]
    fn user_information_is_refused_and_never_shown() {
        let url = Url::parse("https://user:s3cret@example.com/token").expect("a URL");
        let e = checked_endpoint(Some(&url), Endpoint::Token).expect_err("userinfo");
        assert!(!e.to_string().contains("s3cret"), "{e}");
        assert!(!e.to_string().contains("user:"), "{e}");
        let http = Url::parse("http://example.com/token").expect("a URL");
        assert_eq!(
            checked_endpoint(Some(&http), Endpoint::Token)
                .expect_err("http")
                .to_string(),
            "the login.v1 client's token URL http://example.com/token is not an https: URL"
        );
    }
}
