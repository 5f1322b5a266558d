//! How the fixture reaches its own registry: the port, the client, and the
//! credentials of the registry's mode (none, Basic, or a bearer token from
//! its token service, one per operation).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::OciAuth;
use super::TOKEN_SERVICE;
use super::client::{Answer, Client};
use super::token_service::form_encode;

/// What a request to the registry needs.
#[derive(Clone)]
pub(crate) struct Access {
    pub(crate) port: u16,
    pub(crate) client: Client,
    pub(crate) auth: OciAuth,
    pub(crate) token_port: Option<u16>,
}

impl Access {
    /// The `Authorization` value for `actions` (`pull`, `pull,push`) on
    /// `repo`: none anonymously, Basic, or a token the token service gives
    /// for the registry's own credentials.
    pub(crate) async fn authorization(
        &self,
        repo: &str,
        actions: &str,
    ) -> Result<Option<String>, String> {
        match &self.auth {
            OciAuth::Anonymous => Ok(None),
            OciAuth::Basic { username, password } => Ok(Some(basic(username, password))),
            OciAuth::Token {
                username, password, ..
            } => {
                let port = self
                    .token_port
                    .ok_or_else(|| "the token service is not running".to_owned())?;
                let target = format!(
                    "/token?service={}&scope={}",
                    form_encode(TOKEN_SERVICE),
                    form_encode(&format!("repository:{repo}:{actions}"))
                );
                let header = basic(username, password);
                let answer = self
                    .client
                    .send(port, "GET", &target, &[("Authorization", &header)], b"")
                    .await?
                    .expect(200, "the token service")?;
                let value: tfdisco_core::serde_json::Value =
                    tfdisco_core::serde_json::from_slice(&answer.body)
                        .map_err(|e| format!("the token service's answer: {e}"))?;
                let token = value["token"]
                    .as_str()
                    .ok_or_else(|| format!("no token in {}", answer.text()))?;
                Ok(Some(format!("Bearer {token}")))
            }
        }
    }

    /// Sends a request to the registry with `authorization`, if any.
    pub(crate) async fn send(
        &self,
        authorization: Option<&str>,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Answer, String> {
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if let Some(value) = authorization {
            all.push(("Authorization", value));
        }
        self.client
            .send(self.port, method, target, &all, body)
            .await
    }
}

/// A `Basic` authorization value.
pub(crate) fn basic(username: &str, password: &str) -> String {
    format!(
        "Basic {}",
        STANDARD.encode(format!("{username}:{password}"))
    )
}
