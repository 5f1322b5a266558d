//! The registry: cache, aliases, forced services, forgetting
//! (docs/behaviour.md, REG-1 to REG-5).

mod common;

use common::{Net, Reply, disco};
use serde_json::json;
use tfdisco_core::{
    Config, Credentials, Dialect, ErrorKind, Hostname, Lookup, NoCredentials, Registry,
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
    let mut registry = Registry::new(Config::default());
    let h = host("example.com");
    assert_eq!(
        net.discover(&mut registry, &NoCredentials, &h)
            .expect_err("500")
            .kind(),
        ErrorKind::Status
    );
    assert!(registry.cached(&h).is_none());
    net.discover(&mut registry, &NoCredentials, &h)
        .expect("200");
    net.discover(&mut registry, &NoCredentials, &h)
        .expect("cached");
    assert_eq!(net.seen.len(), 2, "the third call is a cache hit");
    assert!(matches!(registry.lookup(&h), Lookup::Cached(_)));
}

#[test]
fn an_alias_fetches_the_target_with_its_credentials_and_caches_under_the_alias() {
    let mut net = Net::new();
    net.on(&disco("real.example.com"), Reply::json(DOC));
    let mut registry = Registry::new(Config::default());
    registry.alias(host("localterraform.com"), host("real.example.com"));
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
        .discover(&mut registry, &creds, &host("localterraform.com"))
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
    assert!(registry.cached(&host("localterraform.com")).is_some());
    assert!(registry.cached(&host("real.example.com")).is_none());

    net.discover(&mut registry, &creds, &host("real.example.com"))
        .expect("ok");
    assert_eq!(net.seen.len(), 2, "the target is a separate cache entry");
    assert_eq!(
        registry.credentials_host(&host("localterraform.com")),
        &host("real.example.com")
    );
    assert_eq!(
        registry.credentials_host(&host("other.example")),
        &host("other.example")
    );

    registry.forget_alias(&host("localterraform.com"));
    assert!(registry.cached(&host("localterraform.com")).is_none());
    let e = net
        .discover(&mut registry, &creds, &host("localterraform.com"))
        .expect_err("no server");
    assert_eq!(e.kind(), ErrorKind::Network);
}

#[test]
fn forced_services_need_no_network_and_resolve_against_https() {
    let mut net = Net::new();
    let mut registry = Registry::new(Config::new(Dialect::Terraform));
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
    registry.force(h.clone(), services).expect("valid");
    let s = net
        .discover(&mut registry, &NoCredentials, &h)
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

    registry.forget(&h);
    net.on(&disco("example.com:8443"), Reply::new(404));
    let s = net
        .discover(&mut registry, &NoCredentials, &h)
        .expect("404 is fine");
    assert!(!s.has_document());
}

#[test]
fn forget_all_keeps_aliases() {
    let mut registry = Registry::new(Config::default());
    registry.alias(host("a.example"), host("b.example"));
    registry.force(host("c.example"), []).expect("valid");
    registry.forget_all();
    assert!(registry.cached(&host("c.example")).is_none());
    assert_eq!(
        registry.credentials_host(&host("a.example")),
        &host("b.example")
    );
}

#[test]
fn a_result_that_arrives_after_a_forget_is_not_cached() {
    let mut net = Net::new();
    net.on(&disco("example.com"), Reply::json(DOC));
    let mut registry = Registry::new(Config::default());
    let h = host("example.com");
    let Lookup::Discover(ticket) = registry.lookup(&h) else {
        panic!("empty registry")
    };
    assert_eq!(ticket.key(), &h);
    let mut d = registry.start(&ticket, None, net.now());
    registry.forget(&h);
    let result = net.drive(&mut d);
    assert!(
        registry.complete(ticket, result).is_ok(),
        "the caller still gets the result"
    );
    assert!(
        registry.cached(&h).is_none(),
        "but it does not resurrect what was forgotten"
    );
}

#[test]
fn a_forced_entry_is_not_overwritten_by_a_discovery_in_flight() {
    let mut net = Net::new();
    net.on(&disco("example.com"), Reply::json(DOC));
    let mut registry = Registry::new(Config::default());
    let h = host("example.com");
    let Lookup::Discover(ticket) = registry.lookup(&h) else {
        panic!("empty registry")
    };
    let mut d = registry.start(&ticket, None, net.now());
    registry
        .force(h.clone(), [("modules.v1".to_owned(), json!("/forced/"))])
        .expect("valid");
    let result = net.drive(&mut d);
    let _ = registry.complete(ticket, result);
    assert!(registry.cached(&h).expect("forced").is_forced());
}

#[test]
fn hosts_that_no_url_can_carry_fail_cleanly() {
    let mut registry = Registry::new(Config::default());
    let e = registry
        .force(host("foo.123"), [])
        .expect_err("ends in a number");
    assert_eq!(e.kind(), ErrorKind::InvalidHostname);
    assert!(
        e.to_string()
            .starts_with("cannot build a discovery URL for host foo.123"),
        "{e}"
    );
}
