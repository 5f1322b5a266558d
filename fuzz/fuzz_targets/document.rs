//! A discovery document from arbitrary bytes: parse it, then ask for every
//! service's URL and OAuth client, in both dialects.
//!
//! The first byte picks the dialect and the URL the document came from; the
//! rest is the body.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, Hostname, ServiceId, Services};

const BASES: [&str; 4] = [
    "https://example.com/.well-known/terraform.json",
    "https://example.com/disco/v1/",
    "http://localhost:8080/a/b.json",
    "https://[::1]:8443/x?y#z",
];

/// A resolved URL is usable: http(s), no userinfo, no fragment.
fn check_url(url: &Url) {
    assert!(matches!(url.scheme(), "http" | "https"), "{url}");
    assert!(
        url.username().is_empty() && url.password().is_none(),
        "{url}"
    );
    assert!(url.fragment().is_none(), "{url}");
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let dialect = if selector & 1 == 0 {
        Dialect::OpenTofu
    } else {
        Dialect::Terraform
    };
    let base = Url::parse(BASES[usize::from(selector >> 1) % BASES.len()]).expect("valid base");
    let host = Hostname::parse("example.com").expect("valid host");
    let services = match Services::from_json(host, base, dialect, body) {
        Ok(services) => services,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let mut ids = HashSet::new();
    for (id, value) in services.iter() {
        assert!(ids.insert(id), "duplicate key {id:?} kept");
        assert_eq!(services.get(id), Some(value));
        let _ = ServiceId::parse(id, Dialect::OpenTofu);
        let _ = ServiceId::parse(id, Dialect::Terraform);
        match services.service_url(id) {
            Ok(url) => {
                assert!(value.is_string(), "{id:?} resolved from {value:?}");
                check_url(&url);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        match services.oauth_client(id) {
            Ok(client) => {
                assert!(value.is_object(), "{id:?} read from {value:?}");
                client.authorization_url().into_iter().for_each(check_url);
                client.token_url().into_iter().for_each(check_url);
                assert!(client.min_port() >= 1024 && client.min_port() <= client.max_port());
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    assert_eq!(ids.len(), services.len());
    assert_eq!(
        services.has_document(),
        !matches!(body.trim_ascii(), b"null")
    );
    // Ids the document may not list take the not-provided paths.
    for id in ["modules.v1", "login.v1", "tfe.v2.1", "providers.v99", "x"] {
        if services.get(id).is_none() {
            assert!(services.service_url(id).is_err());
            assert!(services.oauth_client(id).is_err());
        }
    }
    let _ = format!("{services:?}");
});
