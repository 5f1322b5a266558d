//! Discovery as a goal of the transfer engine: the first URL is the host's
//! well-known document, 404 means "no services", and the body becomes
//! [`Services`] (docs/behaviour.md, "Discovery").

use std::time::Instant;

use http::{HeaderMap, StatusCode};
use url::Url;

use crate::transfer::{Goal, Next, Transfer};
use crate::{Config, Credentials, Dialect, Error, Hostname, Services, StartError};

/// Where every host keeps its discovery document.
pub const DISCOVERY_PATH: &str = "/.well-known/terraform.json";

/// One discovery of one host: a [`Transfer`] of its discovery document.
///
/// ```
/// use std::time::Instant;
/// use tfdisco_core::{Action, Config, Transfer, Hostname};
///
/// let host = Hostname::parse("Example.COM")?;
/// let mut discovery = Transfer::discovery(host, &Config::default(), None, Instant::now())?;
/// let Action::Send(request) = discovery.poll() else { unreachable!("a request comes first") };
/// assert_eq!(request.uri(), "https://example.com/.well-known/terraform.json");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type Discovery = Transfer<DiscoveryRequest>;

/// The goal of a [`Discovery`]: the services of a host
/// (`GET https://<host>/.well-known/terraform.json`).
#[derive(Clone, Debug)]
pub struct DiscoveryRequest {
    host: Hostname,
    dialect: Dialect,
}

impl Goal for DiscoveryRequest {
    type Output = Services;
    const NAME: &'static str = "discovery";

    fn host(&self) -> &Hostname {
        &self.host
    }

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<Services> {
        match status {
            StatusCode::OK => Next::ReadDocument,
            StatusCode::NOT_FOUND => Next::Finish(Ok(Services::none(
                self.host.clone(),
                url.clone(),
                self.dialect,
            ))),
            status => Next::Finish(Err(Error::Status {
                url: url.clone().into(),
                status,
            })),
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<Services, Error> {
        Services::from_body(self.host.clone(), url.clone(), self.dialect, body)
    }
}

impl Transfer<DiscoveryRequest> {
    /// Starts discovering `host`'s services at time `now`.
    ///
    /// `credentials` are sent only as D4 allows. A host in
    /// [`Config::with_plain_http_host`] is fetched over plain http. A host no
    /// URL can carry is a [`StartError`] ([`Error::UnusableHostname`]).
    pub fn discovery(
        host: Hostname,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Discovery, StartError> {
        let scheme = if config.allows_plain_http(host.host(), host.port()) {
            "http"
        } else {
            "https"
        };
        let url = discovery_url(&host, scheme).map_err(StartError::new)?;
        let goal = DiscoveryRequest {
            host,
            dialect: config.dialect(),
        };
        Transfer::get(goal, url, config, credentials, now)
    }

    /// The host being discovered.
    pub fn host(&self) -> &Hostname {
        &self.goal().host
    }
}

/// `<scheme>://<host>/.well-known/terraform.json` for `host`.
pub(crate) fn discovery_url(host: &Hostname, scheme: &str) -> Result<Url, Error> {
    let pieces = [scheme, "://", host.as_str(), DISCOVERY_PATH];
    // Put together on the stack when it fits (the URL parser makes its own
    // copy, so a `String` here would be an allocation only to be dropped).
    let mut stack = [0u8; 320];
    let joined;
    let text = match concat_into(&mut stack, &pieces) {
        Some(text) => text,
        None => {
            joined = pieces.concat();
            &joined
        }
    };
    Url::parse(text).map_err(|e| Error::UnusableHostname {
        host: host.to_string(),
        reason: e.to_string(),
    })
}

/// `pieces` one after another in `buffer`, or `None` when they do not fit.
fn concat_into<'b>(buffer: &'b mut [u8], pieces: &[&str]) -> Option<&'b str> {
    let mut len = 0;
    for piece in pieces {
        let end = len + piece.len();
        buffer.get_mut(len..end)?.copy_from_slice(piece.as_bytes());
        len = end;
    }
    std::str::from_utf8(&buffer[..len]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_discovery_url_is_the_same_on_the_stack_or_not() {
        let label = "a".repeat(63);
        for name in [
            "example.com".to_owned(),
            "example.com:8443".to_owned(),
            // 319 bytes of host: too long for the stack buffer.
            [label.as_str(); 5].join("."),
        ] {
            let host = Hostname::parse(&name).expect("valid");
            let url = discovery_url(&host, "https").expect("a URL");
            let expected = format!("https://{}{DISCOVERY_PATH}", host.as_str());
            assert_eq!(url.as_str(), expected);
        }
        let mut small = [0u8; 4];
        assert_eq!(concat_into(&mut small, &["ab", "cd"]), Some("abcd"));
        assert_eq!(concat_into(&mut small, &["ab", "cde"]), None);
    }
}
