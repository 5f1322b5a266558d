//! How `tfdisco discover` shows a result to people: a table. Programs get
//! the library's JSON document (`Services::report`).

use std::fmt::Write as _;

use tfdisco_core::{Error, OAuthClient, Resolved, ServicesReport};

/// The services of one discovery, restricted to the ids asked for when
/// any are given (the library's report, shown to people).
pub struct Report<'a>(pub ServicesReport<'a>);

impl Report<'_> {
    /// The first error among the requested ids, which decides the exit code.
    pub fn first_error(&self) -> Option<Error> {
        if !self.0.is_restricted() {
            return None;
        }
        let services = self.0.services();
        self.0
            .ids()
            .into_iter()
            .find_map(|id| services.resolve(id).err())
    }

    /// The table for people.
    pub fn human(&self) -> String {
        let s = self.0.services();
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
        for id in self.0.ids() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tfdisco_core::{Dialect, Hostname, Services};

    #[test]
    fn requested_ids_only_and_their_first_error() {
        let body = br#"{"z.v1": "/z/", "login.v1": {"client": "c"}}"#;
        let s = Services::from_json(
            Hostname::parse("Испытание.com").expect("valid"),
            "https://xn--80akhbyknj4f.com/.well-known/terraform.json"
                .parse()
                .expect("valid"),
            Dialect::OpenTofu,
            body,
        )
        .expect("valid");
        let ids = ["z.v1".to_owned(), "modules.v1".to_owned()];
        assert!(
            Report(s.report(&[])).first_error().is_none(),
            "listing everything is not a failure"
        );
        let report = Report(s.report(&ids));
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
