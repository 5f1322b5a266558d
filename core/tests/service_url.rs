//! `service_url` and `oauth_client` beyond the conformance tables
//! (docs/behaviour.md, URL-1 to URL-7, OAUTH-1 to OAUTH-8).

use serde_json::json;
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, Error, ErrorKind, Hostname, ServiceId, Services};

fn services(host: &str, doc: serde_json::Value, dialect: Dialect) -> Services {
    let host = Hostname::parse(host).expect("valid");
    let url = Url::parse(&format!("https://{host}/.well-known/terraform.json")).expect("valid");
    Services::from_json(host, url, dialect, doc.to_string().as_bytes()).expect("valid document")
}

#[test]
fn not_provided_and_version_not_supported_name_the_display_host() {
    let doc = json!({"modules.v1": "/m1/", "modules.v3": "/m3/", "login.v1": {"client": "x"}});
    let s = services("Испытание.com", doc.clone(), Dialect::OpenTofu);
    let e = s.service_url("providers.v1").expect_err("absent");
    assert_eq!(e.kind(), ErrorKind::ServiceNotProvided);
    assert_eq!(
        e.to_string(),
        "host испытание.com does not provide a providers service"
    );
    let e = s.service_url("modules.v2").expect_err("other versions");
    assert!(matches!(&e, Error::VersionNotSupported { version, .. } if version == "2"));
    assert_eq!(
        e.to_string(),
        "host испытание.com does not support modules version 2"
    );
    let e = s.service_url("modules.v02").expect_err("exact key lookup");
    assert_eq!(
        e.to_string(),
        "host испытание.com does not support modules version 2"
    );

    let s = services("Испытание.com", doc, Dialect::Terraform);
    let e = s.service_url("modules.v2.1").expect_err("other versions");
    assert_eq!(
        e.to_string(),
        "host испытание.com does not support modules version v2.1"
    );
}

#[test]
fn a_non_string_value_is_a_version_not_supported() {
    let s = services(
        "example.com",
        json!({"login.v1": {"client": "x"}, "n.v1": 1, "z.v1": null}),
        Dialect::OpenTofu,
    );
    for id in ["login.v1", "n.v1", "z.v1"] {
        assert_eq!(
            s.service_url(id).expect_err("not a string").kind(),
            ErrorKind::VersionNotSupported,
            "{id}"
        );
    }
}

#[test]
fn ids_are_checked_before_anything_else() {
    let none = Services::none(
        Hostname::parse("example.com").expect("valid"),
        Url::parse("https://example.com/.well-known/terraform.json").expect("valid"),
        Dialect::OpenTofu,
    );
    let e = none.service_url("nodot").expect_err("bad id");
    assert_eq!(e.kind(), ErrorKind::InvalidServiceId);
    assert!(e.is_caller_error());
    assert_eq!(
        e.to_string(),
        "invalid service ID format (i.e. service.vN): nodot"
    );
    assert_eq!(
        none.service_url("modules.v1").expect_err("none").kind(),
        ErrorKind::ServiceNotProvided
    );
    assert_eq!(
        none.oauth_client("login.v1").expect_err("none").kind(),
        ErrorKind::ServiceNotProvided
    );
}

#[test]
fn terraform_dialect_takes_go_versions() {
    let s = services(
        "example.com",
        json!({"modules.1": "/a/", "thing.v1-beta": "/b/", "x.v1.1": "/c/"}),
        Dialect::Terraform,
    );
    assert_eq!(s.service_url("modules.1").expect("ok").path(), "/a/");
    assert_eq!(s.service_url("thing.v1-beta").expect("ok").path(), "/b/");
    assert_eq!(s.service_url("x.v1.1").expect("ok").path(), "/c/");
    let s = services(
        "example.com",
        json!({"modules.1": "/a/"}),
        Dialect::OpenTofu,
    );
    assert_eq!(
        s.service_url("modules.1").expect_err("not v+int").kind(),
        ErrorKind::InvalidServiceId
    );
}

#[test]
fn url_problems_name_host_and_service() {
    let s = services(
        "example.com",
        json!({"modules.v1": "ftp://x/", "p.v1": "https://u@x/"}),
        Dialect::OpenTofu,
    );
    assert_eq!(
        s.service_url("modules.v1").expect_err("ftp").to_string(),
        "host example.com: service modules.v1: failed to parse service URL: unsupported scheme ftp"
    );
    assert_eq!(
        s.service_url("p.v1").expect_err("userinfo").to_string(),
        "host example.com: service p.v1: failed to parse service URL: \
         embedded username/password information is not permitted"
    );
}

#[test]
fn service_id_type() {
    let id = ServiceId::parse("modules.v1", Dialect::OpenTofu).expect("valid");
    assert_eq!(
        (id.as_str(), id.name(), id.version().as_ref()),
        ("modules.v1", "modules", "1")
    );
    assert_eq!(id.to_string(), "modules.v1");
}

#[test]
fn oauth_client_rules_beyond_the_table() {
    let s = services(
        "example.com",
        json!({
            "login.v1": {"client": "c", "grant_types": ["authz_code", 7, "authz_code"], "authz": "/a", "token": "/t",
                          "ports": [10000, 10010], "scopes": ["a", "b"]},
            "empty.v1": {"client": "", "grant_types": []},
            "str.v1": "https://example.com/",
            "gt.v1": {"client": "c", "grant_types": "authz_code"},
            "noclient.v1": {"authz": "/a", "token": "/t"},
            "ports.v1": {"client": "c", "authz": "/a", "token": "/t", "ports": "1-2"},
            "portsnum.v1": {"client": "c", "authz": "/a", "token": "/t", "ports": [1024.5, 2000]},
        }),
        Dialect::OpenTofu,
    );
    let c = s.oauth_client("login.v1").expect("valid");
    assert_eq!(c.grant_types().len(), 1);
    assert_eq!((c.min_port(), c.max_port()), (10000, 10010));
    assert_eq!(c.scopes(), ["a", "b"]);
    let c = s
        .oauth_client("empty.v1")
        .expect("no grant types means no endpoints needed");
    assert!(
        c.grant_types().is_empty() && c.authorization_url().is_none() && c.token_url().is_none()
    );
    let msg = |id: &str| s.oauth_client(id).expect_err(id).to_string();
    assert_eq!(
        msg("str.v1"),
        "host example.com: service str.v1 must be declared with an object value in the service discovery document"
    );
    assert_eq!(
        msg("gt.v1"),
        "host example.com: service gt.v1 is defined with invalid grant_types property: must be an array of grant type strings"
    );
    assert_eq!(
        msg("noclient.v1"),
        "host example.com: service noclient.v1 definition is missing required property \"client\""
    );
    assert!(
        s.oauth_client("ports.v1").is_ok(),
        "non-array ports are ignored"
    );
    assert!(msg("portsnum.v1").contains("both ports must be whole numbers between 1024 and 65535"));
    assert_eq!(
        s.oauth_client("login.v2").expect_err("absent").kind(),
        ErrorKind::VersionNotSupported
    );
}

#[test]
fn the_same_document_under_the_other_dialect() {
    let s = services(
        "example.com",
        json!({"modules.1": "/a/", "tfe.v2.1": "/t/"}),
        Dialect::OpenTofu,
    );
    assert_eq!(
        s.service_url("modules.1").expect_err("not v+int").kind(),
        ErrorKind::InvalidServiceId
    );
    let t = s.with_dialect(Dialect::Terraform);
    assert_eq!(t.dialect(), Dialect::Terraform);
    assert_eq!(
        t.service_url("modules.1").expect("go-version").path(),
        "/a/"
    );
    assert_eq!(t.service_url("tfe.v2.1").expect("exact key").path(), "/t/");
    assert_eq!(t.len(), 2);
}
