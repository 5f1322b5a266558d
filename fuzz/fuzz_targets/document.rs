//! A discovery document from arbitrary bytes: parse it, then ask for every
//! service's URL and OAuth client, in both dialects, and resolve them all in
//! one pass (`Services::resolved`) as one by one.
//!
//! The first byte picks the dialect and the URL the document came from; the
//! rest is the body. With the selector's top bit set, the body is wrapped in
//! nesting as deep as its first two bytes say (up to 65 535 levels, past Go's
//! limit of 10 000), which a fuzzer's short inputs could not reach: the
//! document is accepted or refused, never a stack overflow.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, Hostname, JsonType, ServiceId, Services};

const BASES: [&str; 5] = [
    "https://example.com/.well-known/terraform.json",
    "https://example.com/disco/v1/",
    "http://localhost:8080/a/b.json",
    "https://[::1]:8443/x?y#z",
    "https://u:p@example.com/x/y",
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
    let dialect = tfdisco_fuzz::dialect(selector);
    let base = Url::parse(BASES[usize::from(selector >> 1) % BASES.len()]).expect("valid base");
    let deep;
    let body = match body {
        [hi, lo, rest @ ..] if selector & 0x80 != 0 => {
            let depth = usize::from(u16::from_be_bytes([*hi, *lo]));
            let mut wrapped = b"{\"deep.v1\": ".to_vec();
            wrapped.extend(std::iter::repeat_n(b'[', depth));
            wrapped.extend_from_slice(rest);
            wrapped.extend(std::iter::repeat_n(b']', depth));
            wrapped.push(b'}');
            deep = wrapped;
            &deep[..]
        }
        _ => body,
    };
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
        assert_eq!(services.get(id).map(|v| v.get()), Some(value.get()));
        let _ = ServiceId::parse(id, Dialect::OpenTofu);
        let _ = ServiceId::parse(id, Dialect::Terraform);
        match services.service_url(id) {
            Ok(url) => {
                assert_eq!(JsonType::of(value), JsonType::String, "{id:?}: {value:?}");
                check_url(&url);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        match services.oauth_client(id) {
            Ok(client) => {
                assert_eq!(JsonType::of(value), JsonType::Object, "{id:?}: {value:?}");
                client.authorization_url().into_iter().for_each(check_url);
                client.token_url().into_iter().for_each(check_url);
                assert!(client.min_port() >= 1024 && client.min_port() <= client.max_port());
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    assert_eq!(ids.len(), services.len());
    // One pass over the entries resolves each as looking it up does.
    let shown = |r: Result<_, tfdisco_core::Error>| r.map_err(|e| e.to_string());
    let in_one_pass: Vec<_> = services.resolved().map(|(id, r)| (id, shown(r))).collect();
    let one_by_one: Vec<_> = services
        .ids()
        .map(|id| (id, shown(services.resolve(id))))
        .collect();
    assert_eq!(in_one_pass, one_by_one);
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
    // Copies and drops are as flat as reading.
    drop(services.with_dialect(Dialect::Terraform));
});
