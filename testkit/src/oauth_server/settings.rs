//! What an [`OAuthServer`](super::OAuthServer) offers and how it answers:
//! the `login.v1` client it describes, the services beside it, and the
//! scenario knobs of its authorization and token endpoints.

/// The placeholder for `localhost:PORT` (the server's main HTTPS port) in
/// [`OAuthSettings::authz`] and [`OAuthSettings::token`].
pub const SERVER: &str = "{SERVER}";

/// The placeholder for `localhost:PORT` of the server's plain-http port.
pub const HTTP_SERVER: &str = "{HTTP_SERVER}";

/// What `/authz` answers a request it finds well formed (one it does not
/// gets a 400 and no redirect).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AuthzAnswer {
    /// A redirect to `redirect_uri` with `code` and the request's `state`.
    #[default]
    Code,
    /// A redirect with `error=access_denied` and the request's `state`.
    AccessDenied,
    /// A redirect with a `code` and a `state` that is not the request's.
    WrongState,
    /// A redirect with the request's `state` and no `code`.
    NoCode,
}

/// What `/token` answers a request that passes its checks (one that does
/// not gets a 400 `invalid_grant` with what was wrong).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TokenAnswer {
    /// 200, `{"access_token": …, "token_type": "bearer"}`.
    #[default]
    Token,
    /// 400, `{"error":"invalid_grant"}`.
    InvalidGrant,
    /// 500 with a plain-text body.
    ServerError,
    /// 200, `Content-Type: application/json`, a body that is not JSON.
    NotJson,
    /// 200, JSON without `access_token`.
    NoAccessToken,
}

/// An [`OAuthServer`](super::OAuthServer)'s configuration. The default is a
/// `login.v1` client `terraform-cli` with the `authz_code` grant, no scopes,
/// no `ports` (Terraform's default range), `tfe.v2` and `providers.v1`
/// offered too, and every endpoint answering as a good server does.
#[derive(Clone)]
pub struct OAuthSettings {
    /// Whether the services offer `login.v1`.
    pub login: bool,
    /// `client`: the OAuth client id.
    pub client_id: String,
    /// `grant_types` (`authz_code`, `password`); `None` leaves the key out.
    pub grant_types: Option<Vec<String>>,
    /// `scopes`; empty leaves the key out (and `/authz` checks no `scope`).
    pub scopes: Vec<String>,
    /// `ports`: the callback listener's range; `None` leaves the key out.
    pub ports: Option<(u16, u16)>,
    /// `authz`, with [`SERVER`] / [`HTTP_SERVER`] for the server's
    /// `localhost:PORT`; it may carry a query (`/authz?tenant=x`), which
    /// `/authz` then checks.
    pub authz: String,
    /// `token`, with the same placeholders.
    pub token: String,
    /// Whether the services offer `tfe.v2` (`/api/v2/`).
    pub tfe: bool,
    /// Whether the services offer `providers.v1` (`/v1/providers/`).
    pub providers: bool,
    /// The token `/token` issues.
    pub access_token: String,
    /// The user name `grant_type=password` must give.
    pub username: String,
    /// The password `grant_type=password` must give.
    pub password: String,
    /// The token `/api/v2/account/details` accepts (`Bearer …`).
    pub tfe_token: String,
    /// The user name `/api/v2/account/details` answers.
    pub tfe_username: String,
    /// What `/authz` answers.
    pub authz_answer: AuthzAnswer,
    /// What `/token` answers.
    pub token_answer: TokenAnswer,
}

impl Default for OAuthSettings {
    fn default() -> OAuthSettings {
        OAuthSettings {
            login: true,
            client_id: "terraform-cli".to_owned(),
            grant_types: Some(vec!["authz_code".to_owned()]),
            scopes: Vec::new(),
            ports: None,
            authz: format!("https://{SERVER}/authz"),
            token: format!("https://{SERVER}/token"),
            tfe: true,
            providers: true,
            access_token: "login-token-1".to_owned(),
            username: "alice".to_owned(),
            password: "s3cret-pass".to_owned(),
            tfe_token: "tfe-token-1".to_owned(),
            tfe_username: "alice".to_owned(),
            authz_answer: AuthzAnswer::Code,
            token_answer: TokenAnswer::Token,
        }
    }
}

impl std::fmt::Debug for OAuthSettings {
    /// The shape only: the token and password values are left out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("login", &self.login)
            .field("client_id", &self.client_id)
            .field("grant_types", &self.grant_types)
            .field("scopes", &self.scopes)
            .field("ports", &self.ports)
            .field("authz", &self.authz)
            .field("token", &self.token)
            .field("tfe", &self.tfe)
            .field("providers", &self.providers)
            .field("authz_answer", &self.authz_answer)
            .field("token_answer", &self.token_answer)
            .finish_non_exhaustive()
    }
}
