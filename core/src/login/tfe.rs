//! The `tfe.v2` fallback of a host without `login.v1`: the tokens page the
//! browser opens, and the check of the token pasted from it, as Terraform
//! makes it with go-tfe v1.70.0 (LOGIN-10).

use std::time::Instant;

use http::header::USER_AGENT;
use http::{HeaderMap, HeaderValue, StatusCode};
use serde::Deserialize;
use url::Url;

use super::token::url_host;
use crate::registry_api::{Extent, nullable, parse_json};
use crate::transfer::{Goal, Next, Transfer};
use crate::{Config, Credentials, Error, Hostname, RegistryCall, StartError};

/// JSON:API, what go-tfe asks for.
const JSON_API: &str = "application/vnd.api+json";
/// go-tfe's `User-Agent`, which Terraform's login sends as it is.
const GO_TFE: &str = "go-tfe";

/// The page where a user of a `tfe.v2` host makes a token:
/// `https://HOSTNAME/app/settings/tokens?source=terraform-login`, the
/// service URL's host without its port, scheme or path (as Terraform
/// builds it).
///
/// ```
/// use tfdisco_core::tfe_tokens_page;
/// use tfdisco_core::url::Url;
///
/// let service = Url::parse("https://tfe.example.com:8443/api/v2/?x=1")?;
/// assert_eq!(
///     tfe_tokens_page(&service).as_str(),
///     "https://tfe.example.com/app/settings/tokens?source=terraform-login"
/// );
/// # Ok::<(), tfdisco_core::url::ParseError>(())
/// ```
pub fn tfe_tokens_page(tfe_service: &Url) -> Url {
    let host = match tfe_service.host() {
        Some(url::Host::Domain(name)) => name.to_owned(),
        Some(url::Host::Ipv4(ip)) => ip.to_string(),
        Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
        None => String::new(),
    };
    let page = format!("https://{host}/app/settings/tokens?source=terraform-login");
    Url::parse(&page).unwrap_or_else(|_| {
        // Only a service URL without a host gets here.
        let mut url = tfe_service.clone();
        url.set_path("/app/settings/tokens");
        url.set_query(Some("source=terraform-login"));
        url
    })
}

/// The user a `tfe.v2` token belongs to (`account/details`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TfeAccount {
    /// `data.attributes.username`.
    pub username: String,
}

/// `{tfe.v2}` with a slash at the end of its path, then `leaf`, as go-tfe
/// resolves its paths (the service's query dropped).
fn endpoint(service: &Url, leaf: &str) -> Result<Url, Error> {
    let mut base = service.clone();
    if !base.path().ends_with('/') {
        let path = format!("{}/", base.path());
        base.set_path(&path);
    }
    base.join(leaf).map_err(|e| Error::InvalidArgument {
        message: format!("cannot request {leaf} of tfe.v2 service {service}: {e}"),
    })
}

/// `GET {tfe.v2}ping` with the token: go-tfe's first request, whose
/// answer (any status) it only reads headers of. A [`Goal`] whose output
/// is `()`.
#[derive(Debug)]
pub struct TfePing {
    host: Hostname,
}

/// `GET {tfe.v2}account/details` with the token: the user it belongs to.
/// A [`Goal`] whose output is a [`TfeAccount`]; a 401 is
/// [`Error::Status`] (the token is invalid, [`tfe_account_message`]).
#[derive(Debug)]
pub struct TfeAccountRequest {
    host: Hostname,
}

impl Transfer<TfePing> {
    /// `GET {service}ping` with `token` as its Bearer token (sent only over
    /// https), `Accept: application/vnd.api+json` and go-tfe's `User-Agent:
    /// go-tfe`; any status ends it well (LOGIN-10).
    pub fn tfe_ping(
        service: &Url,
        token: &Credentials,
        config: &Config,
        now: Instant,
    ) -> Result<Transfer<TfePing>, StartError> {
        let url = endpoint(service, "ping").map_err(StartError::new)?;
        let host = url_host(&url).map_err(StartError::new)?;
        Transfer::get(TfePing { host }, url, config, Some(token.clone()), now)
    }
}

impl Transfer<TfeAccountRequest> {
    /// `GET {service}account/details` with `token` as its Bearer token (sent
    /// only over https), `Accept: application/vnd.api+json` and `User-Agent:
    /// go-tfe` (LOGIN-10).
    pub fn tfe_account(
        service: &Url,
        token: &Credentials,
        config: &Config,
        now: Instant,
    ) -> Result<Transfer<TfeAccountRequest>, StartError> {
        let url = endpoint(service, "account/details").map_err(StartError::new)?;
        let host = url_host(&url).map_err(StartError::new)?;
        Transfer::get(
            TfeAccountRequest { host },
            url,
            config,
            Some(token.clone()),
            now,
        )
    }
}

/// What both `tfe.v2` goals share: their name, the login kind, the host,
/// go-tfe's `Accept` and `User-Agent`, the call their errors name.
macro_rules! tfe_goal {
    ($name:literal, $call:ident) => {
        const NAME: &'static str = $name;
        const KIND: crate::RequestKind = crate::RequestKind::Login;

        fn host(&self) -> &Hostname {
            &self.host
        }

        fn accept(&self) -> Option<HeaderValue> {
            Some(HeaderValue::from_static(JSON_API))
        }

        fn request_headers(&self, headers: &mut HeaderMap) {
            headers.insert(USER_AGENT, HeaderValue::from_static(GO_TFE));
        }

        fn present_error(&self, error: Error) -> Error {
            RegistryCall::$call.wrap(error)
        }
    };
}

impl Goal for TfePing {
    type Output = ();
    tfe_goal!("tfe.v2 ping", TfePing);

    fn on_head(&mut self, _url: &Url, _status: StatusCode, _headers: &HeaderMap) -> Next<()> {
        Next::Finish(Ok(()))
    }

    fn on_body(&mut self, _url: &Url, _body: Vec<u8>) -> Result<(), Error> {
        Ok(())
    }
}

impl Goal for TfeAccountRequest {
    type Output = TfeAccount;
    tfe_goal!("tfe.v2 account details", TfeAccount);

    /// go-tfe's `checkResponseCode`: 200 to 399 are answers, 401 is
    /// `unauthorized`, 404 `resource not found`, anything else an error.
    fn on_head(&mut self, url: &Url, status: StatusCode, _headers: &HeaderMap) -> Next<TfeAccount> {
        match status.as_u16() {
            200..=399 => Next::ReadDocument,
            404 => Next::Finish(Err(Error::NotFound {
                url: url.clone().into(),
                message: "resource not found".to_owned(),
            })),
            _ => Next::Finish(Err(Error::Status {
                url: url.clone().into(),
                status,
            })),
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<TfeAccount, Error> {
        #[derive(Deserialize)]
        struct Payload {
            data: Option<Node>,
        }
        #[derive(Deserialize)]
        struct Node {
            #[serde(default, rename = "type", deserialize_with = "nullable")]
            kind: String,
            #[serde(default, deserialize_with = "nullable")]
            id: String,
            #[serde(default)]
            attributes: Option<Attributes>,
        }
        #[derive(Deserialize)]
        struct Attributes {
            #[serde(default, deserialize_with = "nullable")]
            username: String,
        }
        let payload: Payload = parse_json(url, &body, Extent::First)?;
        let invalid = |problem: String| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        };
        let node = payload
            .data
            .ok_or_else(|| invalid("the answer has no \"data\" object".to_owned()))?;
        // google/jsonapi checks the type of a node that has an id.
        if !node.id.is_empty() && node.kind != "users" {
            return Err(invalid(format!(
                "Trying to Unmarshal an object of type {}, but \"users\" does not match",
                crate::go_quote(&node.kind)
            )));
        }
        Ok(TfeAccount {
            username: node.attributes.map(|a| a.username).unwrap_or_default(),
        })
    }
}

/// What Terraform says when the pasted token's check failed: `Failed to
/// create API client: <error>` when the ping failed, `Token is invalid:
/// unauthorized` for a 401 from `account/details`, else `Failed to retrieve
/// user account details: <error>`.
pub fn tfe_account_message(error: &Error) -> String {
    match error {
        Error::Registry {
            call: RegistryCall::TfePing,
            ..
        } => format!("Failed to create API client: {error}"),
        _ if error.status() == Some(StatusCode::UNAUTHORIZED) => {
            "Token is invalid: unauthorized".to_owned()
        }
        _ => format!("Failed to retrieve user account details: {error}"),
    }
}
