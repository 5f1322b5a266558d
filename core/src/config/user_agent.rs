//! The `User-Agent` each request sends: what each CLI sends for each kind of
//! request, the text `TF_APPEND_USER_AGENT` adds, or the caller's own
//! (docs/behaviour.md, DISCO-3, API-2).

use http::HeaderValue;

use super::RequestKind;
use crate::Dialect;

/// The `User-Agent` of each kind of request, worked out once whenever what
/// it depends on changes.
#[derive(Clone, Debug)]
pub(super) struct Agents {
    pub(super) discovery: HeaderValue,
    pub(super) registry: HeaderValue,
}

impl Agents {
    /// The headers for `dialect` and CLI `version` (a valid version, so the
    /// text is a valid header), or the caller's `custom` one for every kind,
    /// each followed by a space and `appended` when there is such text.
    pub(super) fn new(
        dialect: Dialect,
        version: &str,
        custom: Option<&HeaderValue>,
        appended: Option<&str>,
    ) -> Agents {
        let value = |kind| {
            let base = match custom {
                Some(custom) => String::from_utf8_lossy(custom.as_bytes()).into_owned(),
                None => cli_agent(dialect, kind, version),
            };
            let text = match appended {
                Some(extra) => format!("{base} {extra}"),
                None => base,
            };
            // Both parts were checked as header values on their way in.
            HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("tfdisco"))
        };
        Agents {
            discovery: value(RequestKind::Discovery),
            registry: value(RequestKind::Registry),
        }
    }

    pub(super) fn get(&self, kind: RequestKind) -> &HeaderValue {
        match kind {
            RequestKind::Discovery => &self.discovery,
            // The CLIs fetch packages and their checksums with the registry
            // client's User-Agent.
            RequestKind::Registry
            | RequestKind::Download
            | RequestKind::Mirror
            | RequestKind::Oci
            // Terraform's `httpclient.New`, which `terraform login` posts
            // its token request with.
            | RequestKind::Login => &self.registry,
        }
    }
}

/// What `terraform` and `tofu` send: Terraform's discovery client
/// `HashiCorp Terraform/<version> (+https://www.terraform.io)`, its
/// registry clients `Terraform/<major.minor.patch>`; OpenTofu
/// `OpenTofu/<major.minor.patch>` for both. The full version, with its
/// pre-release, goes in `X-Terraform-Version`.
pub(super) fn cli_agent(dialect: Dialect, kind: RequestKind, version: &str) -> String {
    let release = version.split(['-', '+']).next().unwrap_or(version);
    match (dialect, kind) {
        (Dialect::Terraform, RequestKind::Discovery) => {
            format!("HashiCorp Terraform/{version} (+https://www.terraform.io)")
        }
        (
            Dialect::Terraform,
            RequestKind::Registry
            | RequestKind::Download
            | RequestKind::Mirror
            | RequestKind::Oci
            | RequestKind::Login,
        ) => {
            format!("Terraform/{release}")
        }
        (Dialect::OpenTofu, _) => format!("OpenTofu/{release}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_each_cli_sends() {
        use RequestKind::{Discovery, Registry};
        assert_eq!(
            cli_agent(Dialect::Terraform, Discovery, "1.11.4"),
            "HashiCorp Terraform/1.11.4 (+https://www.terraform.io)"
        );
        assert_eq!(
            cli_agent(Dialect::Terraform, Registry, "1.16.0-rc2"),
            "Terraform/1.16.0",
            "the registry clients leave the pre-release out"
        );
        assert_eq!(
            cli_agent(Dialect::Terraform, Discovery, "1.16.0-rc2"),
            "HashiCorp Terraform/1.16.0-rc2 (+https://www.terraform.io)"
        );
        assert_eq!(
            cli_agent(Dialect::OpenTofu, Discovery, "1.12.6"),
            "OpenTofu/1.12.6"
        );
        assert_eq!(
            cli_agent(Dialect::OpenTofu, Registry, "1.13.0-beta1"),
            "OpenTofu/1.13.0"
        );
        let custom = HeaderValue::from_static("my-mirror/2.0");
        let agents = Agents::new(Dialect::Terraform, "1.11.4", Some(&custom), Some("ci/1"));
        assert_eq!(agents.get(Discovery), "my-mirror/2.0 ci/1");
        assert_eq!(agents.get(Registry), "my-mirror/2.0 ci/1");
    }
}
