//! How `tfdisco discover` shows a result: a table for people, JSON for programs.

use std::fmt::Write as _;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use tfdisco_core::{Error, OAuthClient, Resolved, Services};

/// The services of one discovery, restricted to `ids` when any are given.
pub(crate) struct Report<'a> {
    pub(crate) services: &'a Services,
    pub(crate) ids: &'a [String],
}

impl Report<'_> {
    /// The ids shown: the requested ones, else every id in document order.
    fn ids(&self) -> Vec<&str> {
        if self.ids.is_empty() {
            self.services.ids().collect()
        } else {
            self.ids.iter().map(String::as_str).collect()
        }
    }

    /// The first error among the requested ids, which decides the exit code.
    pub(crate) fn first_error(&self) -> Option<Error> {
        if self.ids.is_empty() {
            return None;
        }
        self.ids()
            .into_iter()
            .find_map(|id| self.services.resolve(id).err())
    }

    /// The table for people.
    pub(crate) fn human(&self) -> String {
        let s = self.services;
        let mut rows: Vec<(String, String)> = vec![
            ("host".into(), s.host().display().into_owned()),
            ("discovery URL".into(), s.discovery_url().to_string()),
        ];
        if !s.has_document() {
            rows.push((
                "services".into(),
                "none (the host has no discovery document)".into(),
            ));
        }
        for id in self.ids() {
            let shown = match s.resolve(id) {
                Ok(Resolved::Url(url)) => url.into(),
                Ok(Resolved::OAuthClient(c)) => summarize(&c),
                Err(e) => format!("error: {e}"),
            };
            rows.push((id.to_owned(), shown));
        }
        let width = rows
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for (k, v) in rows {
            let _ = writeln!(out, "{k:<width$}  {v}");
        }
        out
    }

    /// The JSON document for programs, services in document order.
    pub(crate) fn json(&self) -> String {
        serde_json::to_string(&JsonReport(self)).unwrap_or_else(|e| {
            serde_json::json!({ "error": { "kind": "json", "message": e.to_string() } }).to_string()
        })
    }
}

fn summarize(c: &OAuthClient) -> String {
    let url = |u: Option<&tfdisco_core::url::Url>| u.map_or("-".to_owned(), |u| u.to_string());
    format!(
        "OAuth client {:?}: authorize at {}, token at {}, ports {}-{}",
        c.client_id(),
        url(c.authorization_url()),
        url(c.token_url()),
        c.min_port(),
        c.max_port()
    )
}

/// `{"kind": …, "message": …}`
pub(crate) fn error_json(e: &Error) -> Value {
    serde_json::json!({ "kind": e.kind().as_str(), "message": e.to_string() })
}

struct JsonReport<'a, 'b>(&'a Report<'b>);

impl Serialize for JsonReport<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let s = r.services;
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("hostname", s.host().as_str())?;
        map.serialize_entry("display", &s.host().display())?;
        map.serialize_entry("discovery_url", s.discovery_url().as_str())?;
        map.serialize_entry("services", &InOrder(s))?;
        map.serialize_entry("resolved", &ResolvedMap(r))?;
        map.end()
    }
}

/// The document's entries in document order (`null` when it had none).
struct InOrder<'a>(&'a Services);

impl Serialize for InOrder<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.has_document() {
            return serializer.serialize_none();
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (id, value) in self.0.iter() {
            map.serialize_entry(id, value)?;
        }
        map.end()
    }
}

struct ResolvedMap<'a, 'b>(&'a Report<'b>);

impl Serialize for ResolvedMap<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ids = self.0.ids();
        let mut map = serializer.serialize_map(Some(ids.len()))?;
        for id in ids {
            let value = match self.0.services.resolve(id) {
                Ok(Resolved::Url(url)) => Value::String(url.into()),
                Ok(Resolved::OAuthClient(c)) => serde_json::json!({ "oauth_client": {
                    "client": c.client_id(),
                    "authz": c.authorization_url().map(|u| u.as_str()),
                    "token": c.token_url().map(|u| u.as_str()),
                    "ports": [c.min_port(), c.max_port()],
                    "grant_types": c.grant_types(),
                    "scopes": c.scopes(),
                }}),
                Err(e) => serde_json::json!({ "error": error_json(&e) }),
            };
            map.serialize_entry(id, &value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfdisco_core::{Dialect, Hostname};

    fn services() -> Services {
        let body = br#"{"z.v1": "/z/", "login.v1": {"client": "c", "authz": "/a", "token": "/t"}, "bad.v1": "ftp://x/"}"#;
        Services::from_json(
            Hostname::parse("Испытание.com").expect("valid"),
            "https://xn--80akhbyknj4f.com/.well-known/terraform.json"
                .parse()
                .expect("valid"),
            Dialect::OpenTofu,
            body,
        )
        .expect("valid")
    }

    #[test]
    fn json_keeps_document_order_and_resolves_each_kind_of_value() {
        let s = services();
        let report = Report {
            services: &s,
            ids: &[],
        };
        let text = report.json();
        let z = text.find("\"z.v1\"").expect("z");
        let login = text.find("\"login.v1\"").expect("login");
        assert!(z < login, "document order kept: {text}");
        let v: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(v["hostname"], "xn--80akhbyknj4f.com");
        assert_eq!(v["display"], "испытание.com");
        assert_eq!(v["resolved"]["z.v1"], "https://xn--80akhbyknj4f.com/z/");
        assert_eq!(
            v["resolved"]["login.v1"]["oauth_client"]["authz"],
            "https://xn--80akhbyknj4f.com/a"
        );
        assert_eq!(
            v["resolved"]["bad.v1"]["error"]["kind"],
            "invalid_service_url"
        );
        assert_eq!(v["services"]["login.v1"]["client"], "c");
        assert!(
            report.first_error().is_none(),
            "listing everything is not a failure"
        );
    }

    #[test]
    fn requested_ids_only_and_their_first_error() {
        let s = services();
        let ids = ["z.v1".to_owned(), "modules.v1".to_owned()];
        let report = Report {
            services: &s,
            ids: &ids,
        };
        let human = report.human();
        assert!(
            human.contains("z.v1           https://xn--80akhbyknj4f.com/z/"),
            "{human}"
        );
        assert!(
            human.contains(
                "modules.v1     error: host испытание.com does not provide a modules service"
            ),
            "{human}"
        );
        assert!(!human.contains("login.v1"));
        assert_eq!(
            report.first_error().map(|e| e.kind().as_str()),
            Some("service_not_provided")
        );
    }
}
