//! Redirects: which are followed, where to, how many (docs/behaviour.md,
//! REDIR-1 to REDIR-6; D5 is REDIR-5).

mod common;

use common::{Reply, Scenario, disco};
use tfdisco_core::{Error, ErrorKind, Hostname};

const DOC: &str = r#"{"modules.v1": "modules/"}"#;

#[test]
fn every_followed_status_with_relative_and_absolute_locations() {
    for status in [301, 302, 303, 307, 308] {
        for (location, final_url) in [
            ("api/", "https://example.com/.well-known/api/"),
            ("/api/", "https://example.com/api/"),
            ("../api/", "https://example.com/api/"),
            (
                "https://example.com/v1/disco.json?x=1#frag",
                "https://example.com/v1/disco.json?x=1",
            ),
        ] {
            let out = Scenario::new("example.com")
                .reply(Reply::redirect(status, location))
                .reply_at(final_url, Reply::json(DOC))
                .run();
            let services = out.services();
            assert_eq!(
                services.discovery_url().as_str(),
                final_url,
                "{status} {location}"
            );
            assert_eq!(out.urls(), [&disco("example.com"), final_url]);
        }
    }
}

#[test]
fn relative_service_urls_resolve_against_the_final_url() {
    let out = Scenario::new("example.com")
        .reply(Reply::redirect(
            302,
            "https://other.example:8443/tf/disco.json",
        ))
        .reply_at("https://other.example:8443/tf/disco.json", Reply::json(DOC))
        .run();
    assert_eq!(
        out.services()
            .service_url("modules.v1")
            .expect("resolves")
            .as_str(),
        "https://other.example:8443/tf/modules/"
    );
    // The services still belong to the host that was asked.
    assert_eq!(out.services().host().as_str(), "example.com");
}

#[test]
fn statuses_that_are_not_followed_are_status_errors() {
    for status in [300, 304, 305, 306] {
        let out = Scenario::new("example.com")
            .reply(Reply::redirect(status, "/elsewhere"))
            .run();
        assert_eq!(out.error().kind(), ErrorKind::Status, "{status}");
        assert_eq!(out.seen.len(), 1);
    }
}

#[test]
fn three_redirects_are_followed_and_the_fourth_is_refused() {
    let chain = |hops: usize| {
        let mut s = Scenario::new("example.com");
        let mut from = disco("example.com");
        for i in 1..=hops {
            let to = format!("https://example.com/hop{i}");
            s = s.reply_at(&from, Reply::redirect(302, &to));
            from = to;
        }
        s.reply_at(&from, Reply::json(DOC)).run()
    };
    let out = chain(3);
    assert_eq!(
        out.services().discovery_url().as_str(),
        "https://example.com/hop3"
    );
    assert_eq!(out.seen.len(), 4);

    let out = chain(4);
    assert_eq!(out.seen.len(), 4, "the fourth redirect is not followed");
    match out.error() {
        Error::TooManyRedirects { url, location, max } => {
            assert_eq!(url.as_str(), "https://example.com/hop3");
            assert_eq!(location, "https://example.com/hop4");
            assert_eq!(*max, 3);
        }
        other => panic!("want TooManyRedirects, got {other:?}"),
    }
    assert_eq!(
        out.error().to_string(),
        "failed to request discovery document: Get \"https://example.com/hop4\": too many redirects \
         (stopped after 3; redirected from https://example.com/hop3)"
    );
}

#[test]
fn the_limit_is_configurable() {
    let out = Scenario::new("example.com")
        .config(|c| c.with_max_redirects(0))
        .reply(Reply::redirect(301, "/x"))
        .run();
    assert_eq!(out.error().kind(), ErrorKind::Redirect);
    assert_eq!(out.seen.len(), 1);

    let out = Scenario::new("example.com")
        .config(|c| c.with_max_redirects(10))
        .reply(Reply::redirect(301, "/a"))
        .reply_at("https://example.com/a", Reply::redirect(301, "/b"))
        .reply_at("https://example.com/b", Reply::redirect(301, "/c"))
        .reply_at("https://example.com/c", Reply::redirect(301, "/d"))
        .reply_at("https://example.com/d", Reply::json(DOC))
        .run();
    assert_eq!(out.seen.len(), 5);
    assert!(out.result.is_ok());
}

#[test]
fn a_redirect_loop_stops_at_the_limit() {
    let out = Scenario::new("example.com")
        .reply(Reply::redirect(302, "/loop"))
        .reply_at(
            "https://example.com/loop",
            Reply::redirect(302, "/.well-known/terraform.json"),
        )
        .run();
    assert_eq!(out.seen.len(), 4);
    assert!(matches!(out.error(), Error::TooManyRedirects { .. }));
}

#[test]
fn a_redirect_without_location_is_a_clear_error() {
    let out = Scenario::new("example.com").reply(Reply::new(301)).run();
    assert!(matches!(out.error(), Error::MissingLocation { .. }));
    assert_eq!(
        out.error().to_string(),
        "failed to request discovery document: 301 Moved Permanently without a Location header \
         (GET https://example.com/.well-known/terraform.json)"
    );
}

#[test]
fn an_empty_location_counts_as_missing() {
    let out = Scenario::new("example.com")
        .reply(Reply::redirect(302, ""))
        .run();
    assert!(matches!(out.error(), Error::MissingLocation { .. }));
    assert_eq!(out.seen.len(), 1);
}

#[test]
fn garbage_locations_are_clear_errors() {
    for location in [
        "***not A URL at all!:/<@@@@>***",
        "https://exa mple.com/",
        "https://example.com:99999/",
        "ftp://example.com/doc.json",
        "https://example.com:abc/",
        "https://[::1/",
    ] {
        let out = Scenario::new("example.com")
            .reply(Reply::redirect(302, location))
            .run();
        match out.error() {
            Error::InvalidLocation { location: got, .. } => assert_eq!(&**got, location),
            other => panic!("{location}: want InvalidLocation, got {other:?}"),
        }
        assert!(
            out.error().to_string().contains(location),
            "{}",
            out.error()
        );
        assert_eq!(out.seen.len(), 1);
    }
}

#[test]
fn d5_https_to_http_is_refused() {
    let out = Scenario::new("example.com")
        .reply(Reply::redirect(
            302,
            "http://example.com/.well-known/terraform.json",
        ))
        .reply_at(
            "http://example.com/.well-known/terraform.json",
            Reply::json(DOC),
        )
        .run();
    assert_eq!(out.seen.len(), 1, "the http URL is never requested");
    assert!(matches!(out.error(), Error::InsecureRedirect { .. }));
    assert!(
        out.error()
            .to_string()
            .contains("plain http is only allowed for development hosts")
    );
}

#[test]
fn d5_plain_http_for_named_development_hosts() {
    let dev = Hostname::parse("localhost:8080").expect("valid");
    // The development host itself is fetched over http.
    let out = Scenario::new("localhost:8080")
        .config(|c| c.with_plain_http_host(dev.clone()))
        .reply_at(
            "http://localhost:8080/.well-known/terraform.json",
            Reply::json(DOC),
        )
        .run();
    assert_eq!(out.services().discovery_url().scheme(), "http");

    // And a redirect to it from https is followed.
    let out = Scenario::new("example.com")
        .config(|c| c.with_plain_http_host(dev))
        .reply(Reply::redirect(307, "http://localhost:8080/disco"))
        .reply_at("http://localhost:8080/disco", Reply::json(DOC))
        .run();
    assert_eq!(
        out.services().discovery_url().as_str(),
        "http://localhost:8080/disco"
    );
}

#[test]
fn userinfo_in_a_location_is_never_sent() {
    let out = Scenario::new("example.com")
        .reply(Reply::redirect(302, "https://user:pw@example.com/d"))
        .reply_at("https://example.com/d", Reply::json(DOC))
        .run();
    assert_eq!(out.urls()[1], "https://example.com/d");
    assert!(out.result.is_ok());
}
