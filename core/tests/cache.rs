//! The cache: cache, aliases, forced services, forgetting
//! (docs/behaviour.md, CACHE-1 to CACHE-5).

mod common;

use common::{Net, Reply, disco};
use serde_json::json;
use tfdisco_core::{
    Config, Credentials, Dialect, DiscoveryCache, ErrorKind, Hostname, Lookup, NoCredentials,
    StaticCredentials,
};

fn host(s: &str) -> Hostname {
    Hostname::parse(s).expect("valid")
}

const DOC: &str = r#"{"modules.v1": "/m/"}"#;

#[test]
fn successes_are_cached_and_errors_are_not() {
    let mut net = Net::new();
    net.on(&disco("example.com"), Reply::new(500));
    net.on(&disco("example.com"), Reply::json(DOC));
    let mut cache = DiscoveryCache::new(Config::default());
    let h = host("example.com");
    assert_eq!(
        net.discover(&mut cache, &NoCredentials, &h)
            .expect_err("500")
            .kind(),
        ErrorKind::Status
    );
    assert!(cache.cached(&h).is_none());
    net.discover(&mut cache, &NoCredentials, &h).expect("200");
    net.discover(&mut cache, &NoCredentials, &h)
        .expect("cached");
    assert_eq!(net.seen.len(), 2, "the third call is a cache hit");
    assert!(matches!(cache.lookup(&h), Lookup::Cached(_)));
}

#[test]
fn an_alias_fetches_the_target_with_its_credentials_and_caches_under_the_alias() {
    let mut net = Net::new();
    net.on(&disco("real.example.com"), Reply::json(DOC));
    let mut cache = DiscoveryCache::new(Config::default());
    cache.alias(host("localterraform.com"), host("real.example.com"));
    let creds = StaticCredentials::new()
        .with(
            host("real.example.com"),
            Credentials::token("real-token").expect("valid"),
        )
        .with(
            host("localterraform.com"),
            Credentials::token("alias-token").expect("valid"),
        );

    let s = net
        .discover(&mut cache, &creds, &host("localterraform.com"))
        .expect("ok");
    assert_eq!(
        s.host(),
        &host("real.example.com"),
        "services belong to the target"
    );
    assert_eq!(
        s.service_url("modules.v1").expect("url").as_str(),
        "https://real.example.com/m/"
    );
    assert_eq!(net.seen[0].authorization(), Some("Bearer real-token"));
    assert!(cache.cached(&host("localterraform.com")).is_some());
    assert!(cache.cached(&host("real.example.com")).is_none());

    net.discover(&mut cache, &creds, &host("real.example.com"))
        .expect("ok");
    assert_eq!(net.seen.len(), 2, "the target is a separate cache entry");
    assert_eq!(
        cache.credentials_host(&host("localterraform.com")),
        &host("real.example.com")
    );
    assert_eq!(
        cache.credentials_host(&host("other.example")),
        &host("other.example")
    );

    cache.forget_alias(&host("localterraform.com"));
    assert!(cache.cached(&host("localterraform.com")).is_none());
    let e = net
        .discover(&mut cache, &creds, &host("localterraform.com"))
        .expect_err("no server");
    assert_eq!(e.kind(), ErrorKind::Network);
}

#[test]
fn forced_services_need_no_network_and_resolve_against_https() {
    let mut net = Net::new();
    let mut cache = DiscoveryCache::new(Config::new(Dialect::Terraform));
    let h = host("Example.com:8443");
    let services = [
        ("modules.v1".to_owned(), json!("rel/")),
        (
            "providers.v1".to_owned(),
            json!("https://cdn.example.net/p/"),
        ),
        (
            "login.v1".to_owned(),
            json!([{"client": "c", "grant_types": []}]),
        ),
    ];
    cache.force(h.clone(), services).expect("valid");
    let s = net
        .discover(&mut cache, &NoCredentials, &h)
        .expect("forced");
    assert_eq!(net.seen.len(), 0);
    assert!(s.is_forced());
    assert_eq!(
        s.service_url("modules.v1").expect("url").as_str(),
        "https://example.com:8443/.well-known/rel/"
    );
    assert_eq!(
        s.service_url("providers.v1").expect("url").as_str(),
        "https://cdn.example.net/p/"
    );
    assert!(
        s.oauth_client("login.v1").is_ok(),
        "the legacy list shape is accepted for forced services"
    );
    let ids: Vec<&str> = s.iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        ["modules.v1", "providers.v1", "login.v1"],
        "caller's order kept"
    );

    cache.forget(&h);
    net.on(&disco("example.com:8443"), Reply::new(404));
    let s = net
        .discover(&mut cache, &NoCredentials, &h)
        .expect("404 is fine");
    assert!(!s.has_document());
}

#[test]
fn forget_all_keeps_aliases() {
    let mut cache = DiscoveryCache::new(Config::default());
    cache.alias(host("a.example"), host("b.example"));
    cache.force(host("c.example"), []).expect("valid");
    cache.forget_all();
    assert!(cache.cached(&host("c.example")).is_none());
    assert_eq!(
        cache.credentials_host(&host("a.example")),
        &host("b.example")
    );
}

#[test]
fn a_result_that_arrives_after_a_forget_is_not_cached() {
    let mut net = Net::new();
    net.on(&disco("example.com"), Reply::json(DOC));
    let mut cache = DiscoveryCache::new(Config::default());
    let h = host("example.com");
    let Lookup::Discover(ticket) = cache.lookup(&h) else {
        panic!("an empty cache")
    };
    assert_eq!(ticket.key(), &h);
    let mut d = cache.start(&ticket, None, net.now()).expect("starts");
    cache.forget(&h);
    let result = net.drive(&mut d);
    assert!(
        cache.complete(ticket, result).is_ok(),
        "the caller still gets the result"
    );
    assert!(
        cache.cached(&h).is_none(),
        "but it does not resurrect what was forgotten"
    );
}

#[test]
fn a_forced_entry_is_not_overwritten_by_a_discovery_in_flight() {
    let mut net = Net::new();
    net.on(&disco("example.com"), Reply::json(DOC));
    let mut cache = DiscoveryCache::new(Config::default());
    let h = host("example.com");
    let Lookup::Discover(ticket) = cache.lookup(&h) else {
        panic!("an empty cache")
    };
    let mut d = cache.start(&ticket, None, net.now()).expect("starts");
    cache
        .force(h.clone(), [("modules.v1".to_owned(), json!("/forced/"))])
        .expect("valid");
    let result = net.drive(&mut d);
    let _ = cache.complete(ticket, result);
    assert!(cache.cached(&h).expect("forced").is_forced());
}

#[test]
fn hosts_that_no_url_can_carry_fail_cleanly() {
    let mut cache = DiscoveryCache::new(Config::default());
    let e = cache
        .force(host("foo.123"), [])
        .expect_err("ends in a number");
    assert_eq!(e.kind(), ErrorKind::InvalidHostname);
    assert!(
        e.to_string()
            .starts_with("cannot build a discovery URL for host foo.123"),
        "{e}"
    );
}
