//! OAuth client definitions such as `login.v1` (docs/behaviour.md, OAUTH-1
//! to OAUTH-8).

use std::borrow::Borrow;
use std::collections::BTreeSet;

use serde_json::value::RawValue;
use url::Url;

use super::bases::Bases;
use super::document::{JsonType, Shallow, members};

/// The lowest and highest local port a login client may listen on by default.
const DEFAULT_PORTS: (u16, u16) = (1024, 65535);

/// An OAuth client as a `login.v1` service describes it: a public client
/// using the authorization-code flow with PKCE and a loopback redirect, as
/// `terraform login` / `tofu login` use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthClient {
    id: String,
    authorization_url: Option<Url>,
    token_url: Option<Url>,
    min_port: u16,
    max_port: u16,
    grant_types: BTreeSet<String>,
    scopes: Vec<String>,
}

impl OAuthClient {
    /// The client id (`client`).
    pub fn client_id(&self) -> &str {
        &self.id
    }

    /// The authorization endpoint (`authz`), required by `authz_code`.
    pub fn authorization_url(&self) -> Option<&Url> {
        self.authorization_url.as_ref()
    }

    /// The token endpoint (`token`), required by `authz_code` and `password`.
    pub fn token_url(&self) -> Option<&Url> {
        self.token_url.as_ref()
    }

    /// The lowest local port for the redirect listener (default 1024).
    pub fn min_port(&self) -> u16 {
        self.min_port
    }

    /// The highest local port for the redirect listener (default 65535).
    pub fn max_port(&self) -> u16 {
        self.max_port
    }

    /// The grant types, `authz_code` when the document names none. Unknown
    /// names are kept.
    pub fn grant_types(&self) -> &BTreeSet<String> {
        &self.grant_types
    }

    /// True when the client supports `grant_type`.
    pub fn supports_grant_type(&self, grant_type: &str) -> bool {
        self.grant_types.contains(grant_type)
    }

    /// The scopes to request; empty when none are given.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

/// Reads the client definition `value` of service `id`; relative endpoint URLs
/// resolve against the discovery URL of `bases`. `forced` allows the legacy
/// HCL shape (a list of objects) that only caller-given services can have.
/// Errors are Go's texts. Only the members it reads are looked into, one
/// level at a time.
#[cfg(test)]
fn read(id: &str, value: &RawValue, base: &Url, forced: bool) -> Result<OAuthClient, String> {
    read_text(id, value.get(), &Bases::new(base.clone()), forced)
}

/// [`read`] of a value's JSON text.
pub(crate) fn read_text(
    id: &str,
    value: &str,
    bases: &Bases,
    forced: bool,
) -> Result<OAuthClient, String> {
    let not_an_object = || {
        format!(
            "service {id} must be declared with an object value in the service discovery document"
        )
    };
    const NAMES: [&str; 6] = ["client", "grant_types", "authz", "token", "ports", "scopes"];
    let object = match JsonType::of_text(value) {
        JsonType::Object => members(value, NAMES),
        JsonType::Array if forced => match Shallow::read(value) {
            Shallow::Array(list) => list.first().and_then(|first| members(first.get(), NAMES)),
            _ => None,
        },
        _ => None,
    };
    let [client, grant_types, authz, token, ports, scopes] = object
        .ok_or_else(not_an_object)?
        .map(|raw| raw.map(Shallow::of));

    let grant_types: BTreeSet<String> = match grant_types {
        None => BTreeSet::from(["authz_code".to_owned()]),
        Some(Shallow::Array(list)) => list
            .iter()
            .filter_map(|item| Shallow::of(item).into_string())
            .collect(),
        Some(_) => {
            return Err(format!(
                "service {id} is defined with invalid grant_types property: \
                 must be an array of grant type strings"
            ));
        }
    };
    let needs_authz = grant_types.contains("authz_code");
    let needs_token = needs_authz || grant_types.contains("password");

    let Some(Shallow::String(client)) = client else {
        return Err(format!(
            "service {id} definition is missing required property \"client\""
        ));
    };

    let endpoint = |member: Option<Shallow<'_>>,
                    property: &str,
                    what: &str,
                    required: bool|
     -> Result<Option<Url>, String> {
        match member {
            Some(Shallow::String(raw)) => bases
                .resolve(&raw)
                .map(Some)
                .map_err(|e| format!("service {id}: failed to parse {what} URL: {e}")),
            _ if required => Err(format!(
                "service {id} definition is missing required property \"{property}\""
            )),
            _ => Ok(None),
        }
    };
    let authorization_url = endpoint(authz, "authz", "authorization", needs_authz)?;
    let token_url = endpoint(token, "token", "token", needs_token)?;

    let (min_port, max_port) = match ports {
        Some(Shallow::Array(ports)) => read_ports(id, &ports)?,
        _ => DEFAULT_PORTS,
    };

    let scopes = match scopes {
        Some(Shallow::Array(list)) => list
            .iter()
            .map(|s| Shallow::of(s).into_string())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                format!("invalid \"scopes\" for service {id}: all scopes must be strings")
            })?,
        _ => Vec::new(),
    };

    Ok(OAuthClient {
        id: client.into_owned(),
        authorization_url,
        token_url,
        min_port,
        max_port,
        grant_types,
        scopes,
    })
}

fn read_ports(id: &str, ports: &[impl Borrow<RawValue>]) -> Result<(u16, u16), String> {
    let [low, high] = ports else {
        return Err(format!(
            "invalid \"ports\" definition for service {id}: must be a two-element array"
        ));
    };
    let port = |v: &RawValue| -> Option<u16> {
        let Shallow::Number(n) = Shallow::of(v) else {
            return None;
        };
        let whole = match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => u,
            (None, Some(f)) if f.fract() == 0.0 && (0.0..=65535.0).contains(&f) => f as u64,
            _ => return None,
        };
        u16::try_from(whole).ok().filter(|&p| p >= 1024)
    };
    let (Some(low), Some(high)) = (port(low.borrow()), port(high.borrow())) else {
        return Err(format!(
            "invalid \"ports\" definition for service {id}: \
             both ports must be whole numbers between 1024 and 65535"
        ));
    };
    if low > high {
        return Err(format!(
            "invalid \"ports\" definition for service {id}: \
             minimum port cannot be greater than maximum port"
        ));
    }
    Ok((low, high))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/disco/foo.json").expect("valid")
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("valid JSON")
    }

    #[test]
    fn defaults() {
        let c = read(
            "login.v1",
            &raw(r#"{"client": "x", "authz": "/a", "token": "/t"}"#),
            &base(),
            false,
        )
        .expect("valid");
        assert_eq!(c.client_id(), "x");
        assert_eq!((c.min_port(), c.max_port()), (1024, 65535));
        assert!(c.supports_grant_type("authz_code"));
        assert_eq!(
            c.authorization_url().map(Url::as_str),
            Some("https://example.com/a")
        );
        assert!(c.scopes().is_empty());
    }

    #[test]
    fn ports_accept_whole_floats_only() {
        let ports = |a: &str, b: &str| read_ports("x.v1", &[raw(a), raw(b)]);
        assert!(ports("1024.0", "65535").is_ok());
        assert!(ports("1024.5", "2000").is_err());
        assert!(ports("-1", "2000").is_err());
        assert!(ports("70000", "2000").is_err());
        assert!(ports("\"1024\"", "2000").is_err());
        assert!(ports("2000", "1999").is_err_and(|e| e.contains("minimum port cannot be greater")));
        assert!(read_ports("x.v1", &[raw("2000")]).is_err_and(|e| e.contains("two-element")));
    }

    #[test]
    fn legacy_list_shape_only_when_forced() {
        let v = raw(r#"[{"client": "x", "grant_types": []}]"#);
        assert!(read("login.v1", &v, &base(), true).is_ok());
        assert!(read("login.v1", &v, &base(), false).is_err());
    }

    #[test]
    fn deep_members_it_does_not_read_are_never_looked_into() {
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let v = raw(&format!(
            r#"{{"client": "x", "authz": "/a", "token": "/t", "extra": {deep}}}"#
        ));
        assert!(read("login.v1", &v, &base(), false).is_ok());
    }
}
