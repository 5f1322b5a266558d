//! Discovery documents: a typical one and realistic large ones, and the
//! "resolve every service" work the benchmarks measure.

use std::fmt::Write as _;

use tfdisco_core::serde_json::Value;
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, Hostname, ProviderSource, Services};

use crate::rng::Rng;

/// A typical document, shaped like Terraform Cloud's: a `login.v1` OAuth
/// client and seven services with relative and absolute URLs (423 bytes).
pub const TYPICAL: &str = concat!(
    r#"{"login.v1":{"client":"terraform-cli","grant_types":["authz_code"],"#,
    r#""authz":"/app/settings/tokens?source=terraform-login","token":"/api/terraform/token","#,
    r#""ports":[10000,10010]},"modules.v1":"/api/registry/v1/modules/","#,
    r#""motd.v1":"/api/terraform/motd","providers.v1":"/api/registry/v1/providers/","#,
    r#""state.v2":"/api/v2/","tfe.v2":"/api/v2/","tfe.v2.1":"/api/v2/","#,
    r#""versions.v1":"https://checkpoint-api.hashicorp.com/v1/versions/"}"#
);

const NAMES: [&str; 12] = [
    "modules",
    "providers",
    "state",
    "tfe",
    "motd",
    "versions",
    "policies",
    "runs",
    "workspaces",
    "mirror",
    "audit",
    "notifications",
];
const HOSTS: [&str; 4] = [
    "registry.example.com",
    "cdn.example.net",
    "api.eu-west-1.example.io",
    "registry.example.com:8443",
];

/// What a provider versions request needs besides its answer: the
/// registry's services (`providers.v1` at `/v1/providers/`) and the source
/// `registry.example.com/hashicorp/aws`.
pub fn provider_versions_request() -> (Services, ProviderSource) {
    let services = Services::from_json(
        Hostname::parse("registry.example.com").expect("valid"),
        "https://registry.example.com/.well-known/terraform.json"
            .parse()
            .expect("valid"),
        Dialect::OpenTofu,
        br#"{"providers.v1": "/v1/providers/"}"#,
    )
    .expect("valid");
    let source = ProviderSource::parse("registry.example.com/hashicorp/aws", Dialect::OpenTofu)
        .expect("valid");
    (services, source)
}

/// A provider versions document of the size of `hashicorp/aws`'s on the
/// public registries (about 700 versions with 13 or 14 platforms each;
/// here 700 × 14, 330 KiB).
pub fn provider_versions() -> Vec<u8> {
    const PLATFORMS: [(&str, &str); 14] = [
        ("darwin", "amd64"),
        ("darwin", "arm64"),
        ("freebsd", "386"),
        ("freebsd", "amd64"),
        ("freebsd", "arm"),
        ("linux", "386"),
        ("linux", "amd64"),
        ("linux", "arm"),
        ("linux", "arm64"),
        ("openbsd", "386"),
        ("openbsd", "amd64"),
        ("solaris", "amd64"),
        ("windows", "386"),
        ("windows", "amd64"),
    ];
    let platforms: Vec<String> = PLATFORMS
        .iter()
        .map(|(os, arch)| format!(r#"{{"os":"{os}","arch":"{arch}"}}"#))
        .collect();
    let platforms = platforms.join(",");
    let versions: Vec<String> = (0..700)
        .map(|i| {
            format!(
                r#"{{"version":"{}.{}.{}","protocols":["5.0"],"platforms":[{platforms}]}}"#,
                i / 100 + 1,
                (i / 10) % 10,
                i % 10
            )
        })
        .collect();
    format!(
        r#"{{"id":"hashicorp/aws","versions":[{}],"warnings":null}}"#,
        versions.join(",")
    )
    .into_bytes()
}

/// A document of at most `bytes` bytes (and close to it) with many service
/// entries, as a large private registry might serve: mostly relative and
/// absolute URL strings, one in twenty a `login`-style OAuth client object,
/// one entry per line; the last entry is `modules.v1`, the service discovery
/// for module installation looks up.
pub fn of_size(bytes: usize) -> Vec<u8> {
    const LAST: &str = ",\n  \"modules.v1\": \"/api/modules/v1/\"";
    let mut rng = Rng::new(0x5eed_d15c);
    let mut doc = String::with_capacity(bytes);
    doc.push('{');
    let mut entry = String::new();
    for i in 0.. {
        entry.clear();
        if i > 0 {
            entry.push(',');
        }
        let name = rng.pick(&NAMES);
        let version = 1 + rng.below(3);
        let _ = write!(entry, "\n  \"{name}-{i}.v{version}\": ");
        match rng.below(20) {
            0 => {
                let _ = write!(
                    entry,
                    r#"{{"client": "cli-{i}", "grant_types": ["authz_code", "password"], "authz": "/oauth/{i}/authorize", "token": "/oauth/{i}/token", "ports": [10000, 10010], "scopes": ["read", "write"]}}"#
                );
            }
            1..12 => {
                let _ = write!(entry, "\"/api/{name}/v{version}/{i}/\"");
            }
            12..18 => {
                let host = rng.pick(&HOSTS);
                let _ = write!(entry, "\"https://{host}/v{version}/{name}/{i}/\"");
            }
            _ => {
                let _ = write!(entry, "\"./{name}/{i}?format=json\"");
            }
        }
        if doc.len() + entry.len() + LAST.len() + "\n}".len() > bytes {
            break;
        }
        doc.push_str(&entry);
    }
    doc.push_str(LAST);
    doc.push_str("\n}");
    doc.into_bytes()
}

/// Resolves every service of `services` ([`Services::resolved`]: a base
/// URL for a URL, an OAuth client for a client definition). Returns how
/// many resolved, so the work cannot be optimized away.
pub fn resolve_all(services: &Services) -> usize {
    services.resolved().filter(|(_, r)| r.is_ok()).count()
}

/// [`resolve_all`] the way a client without [`Services::resolved`] would:
/// each id ([`Services::ids`]) looked up through [`Services::resolve`].
pub fn resolve_each(services: &Services) -> usize {
    services
        .ids()
        .filter(|id| services.resolve(id).is_ok())
        .count()
}

/// Reads `body` as `host`'s document fetched from `url`, then resolves every
/// service ([`resolve_all`]): the work the document target measures.
pub fn parse_and_resolve(host: &Hostname, url: &Url, body: &[u8]) -> usize {
    let services = Services::from_json(host.clone(), url.clone(), Dialect::OpenTofu, body)
        .expect("a valid document");
    resolve_all(&services)
}

/// [`parse_and_resolve`] with [`resolve_each`]: every id looked up.
pub fn parse_and_resolve_each(host: &Hostname, url: &Url, body: &[u8]) -> usize {
    let services = Services::from_json(host.clone(), url.clone(), Dialect::OpenTofu, body)
        .expect("a valid document");
    resolve_each(&services)
}

/// Reads `body` as `host`'s document fetched from `url`, then resolves
/// `modules.v1`: discovery's real work for a module installation, which the
/// first document target measures. Returns whether it resolved.
pub fn parse_and_find_modules(host: &Hostname, url: &Url, body: &[u8]) -> bool {
    let services = Services::from_json(host.clone(), url.clone(), Dialect::OpenTofu, body)
        .expect("a valid document");
    services.service_url("modules.v1").is_ok()
}

/// Every URL text `resolve_all` resolves: string entries, and the
/// endpoints of OAuth client objects.
pub fn url_texts(body: &[u8]) -> Vec<String> {
    let document: tfdisco_core::serde_json::Map<String, Value> =
        tfdisco_core::serde_json::from_slice(body).expect("valid");
    let mut texts = Vec::new();
    for value in document.values() {
        match value {
            Value::String(s) => texts.push(s.clone()),
            Value::Object(client) => {
                for endpoint in ["authz", "token"] {
                    if let Some(Value::String(s)) = client.get(endpoint) {
                        texts.push(s.clone());
                    }
                }
            }
            _ => {}
        }
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Services {
        let host = Hostname::parse("registry.example.com").expect("valid");
        let url = "https://registry.example.com/.well-known/terraform.json"
            .parse()
            .expect("valid");
        Services::from_json(host, url, Dialect::OpenTofu, body).expect("a valid document")
    }

    #[test]
    fn the_typical_document_resolves_completely() {
        assert_eq!(TYPICAL.len(), 423);
        let services = parse(TYPICAL.as_bytes());
        assert_eq!(services.len(), 8);
        assert_eq!(resolve_all(&services), 8);
        assert_eq!(resolve_each(&services), 8);
        assert!(parse_and_find_modules(
            services.host(),
            services.discovery_url(),
            TYPICAL.as_bytes()
        ));
    }

    #[test]
    fn large_documents_fill_their_size_and_resolve_completely() {
        for size in [64 * 1024, 1024 * 1024] {
            let doc = of_size(size);
            assert!(doc.len() <= size && doc.len() > size - 300, "{}", doc.len());
            let services = parse(&doc);
            assert!(services.len() > size / 100, "{} entries", services.len());
            assert_eq!(resolve_all(&services), services.len());
            assert_eq!(resolve_each(&services), services.len());
            let (last, _) = services.iter().last().expect("entries");
            assert_eq!(last, "modules.v1");
            assert!(parse_and_find_modules(
                services.host(),
                services.discovery_url(),
                &doc
            ));
        }
    }
}
