//! Invariants, checked on generated input (proptest).

mod common;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Action, Config, Credentials, Dialect, Error, Hostname, Services, Transfer, TransportError,
    TransportErrorKind,
};

/// Hostname-like text: mostly valid pieces, with the characters that matter
/// for the rules (case, separators, hyphens, ports, IDN, joiners).
fn hostnames() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z0-9]{1,8}",
        "[A-Za-z0-9-]{1,8}",
        Just("xn--".to_owned()),
        Just("Xn--80ak".to_owned()),
        Just("münchen".to_owned()),
        Just("Испытание".to_owned()),
        Just("faß".to_owned()),
        Just("ＥＸＡ".to_owned()),
        Just("\u{200d}".to_owned()),
        Just("\u{ad}".to_owned()),
        Just("\u{0627}\u{0644}".to_owned()),
        Just("_".to_owned()),
        "\\PC{1,3}",
    ];
    let sep = prop_oneof![Just("."), Just("."), Just("。"), Just(""), Just("..")];
    let port = prop_oneof![
        Just(String::new()),
        Just(":443".to_owned()),
        "[:][0-9]{1,6}",
        Just(":+80".to_owned())
    ];
    (prop::collection::vec((piece, sep), 1..5), port).prop_map(|(parts, port)| {
        let mut s: String = parts.into_iter().map(|(p, s)| p + s).collect();
        s.push_str(&port);
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn display_form_parses_back_to_the_same_hostname(input in hostnames()) {
        if let Ok(h) = Hostname::parse(&input) {
            let again = Hostname::parse(&h.display());
            prop_assert_eq!(again.as_ref(), Ok(&h), "display {:?}", h.display());
            // The comparison form is accepted back from storage unchanged.
            let stored = Hostname::from_comparison(h.as_str());
            prop_assert_eq!(stored.as_ref(), Ok(&h));
            prop_assert!(h.as_str().is_ascii());
        }
    }

    #[test]
    fn parsing_and_display_never_panic(input in "\\PC{0,40}") {
        let _ = Hostname::parse(&input);
        let _ = Hostname::from_comparison(&input);
        let _ = tfdisco_core::hostname::for_display(&input);
    }

    #[test]
    fn resolved_service_urls_are_plain_http_or_https(
        base in prop_oneof![Just("https://example.com/disco/x.json"), Just("http://h:8080/a/b/")],
        raw in prop_oneof![
            "\\PC{0,30}",
            "(https?|ftp|HTTPS|file|javascript)://([a-z]{1,5}(:[a-z]{0,3})?@)?[a-z.]{1,10}(:[0-9]{1,6})?/[a-z/#?@:]{0,10}",
            "(//|/|\\.\\./|\\./|\\?|#)[a-z@:#/%]{0,12}",
        ],
    ) {
        let base = Url::parse(base).expect("valid base");
        let host = Hostname::parse("example.com").expect("valid");
        let body = serde_json::json!({ "s.v1": raw }).to_string();
        let services = Services::from_json(host, base, Dialect::OpenTofu, body.as_bytes()).expect("valid");
        if let Ok(url) = services.service_url("s.v1") {
            prop_assert!(matches!(url.scheme(), "http" | "https"), "{url}");
            prop_assert!(url.username().is_empty() && url.password().is_none(), "{url}");
            prop_assert!(url.fragment().is_none(), "{url}");
        }
    }
}

/// One scripted reaction of a server to a request.
#[derive(Clone, Debug)]
enum Step {
    Respond {
        status: u16,
        headers: Vec<(&'static str, String)>,
        chunks: Vec<Vec<u8>>,
        end: bool,
        delay_ms: u64,
    },
    Fail,
    Timeout,
}

fn steps() -> impl Strategy<Value = Step> {
    let status = prop_oneof![
        Just(200u16),
        Just(404),
        Just(500),
        Just(204),
        Just(300),
        Just(301),
        Just(302),
        Just(303),
        Just(307),
        Just(308),
    ];
    let location = prop_oneof![
        Just("/next".to_owned()),
        Just("next".to_owned()),
        Just("https://example.com:8443/x".to_owned()),
        Just("https://sub.example.com/y".to_owned()),
        Just("https://example.net/z".to_owned()),
        Just("https://example.com/back".to_owned()),
        Just("http://example.com/plain".to_owned()),
        Just("http://localhost:8080/dev".to_owned()),
        Just("::garbage".to_owned()),
        "\\PC{0,12}",
    ];
    let content_type = prop_oneof![
        Just("application/json".to_owned()),
        Just("Application/JSON; charset=utf-8".to_owned()),
        Just("text/plain".to_owned()),
        Just("application/json;;".to_owned()),
    ];
    let length = prop_oneof![Just(None), (0u64..200).prop_map(Some), Just(Some(u64::MAX))];
    let body = prop_oneof![
        Just(br#"{"modules.v1": "/m/"}"#.to_vec()),
        Just(b"null".to_vec()),
        prop::collection::vec(any::<u8>(), 0..120),
    ];
    let respond = (
        status,
        prop::option::of(location),
        prop::option::of(content_type),
        length,
        body,
        1usize..4,
        any::<bool>(),
        0u64..4000,
    )
        .prop_map(
            |(status, location, ct, length, body, pieces, end, delay_ms)| {
                let mut headers = Vec::new();
                if let Some(l) = location {
                    headers.push(("location", l));
                }
                if let Some(c) = ct {
                    headers.push(("content-type", c));
                }
                if let Some(n) = length {
                    headers.push(("content-length", n.to_string()));
                }
                let size = body.len().div_ceil(pieces).max(1);
                let chunks = body.chunks(size).map(<[u8]>::to_vec).collect();
                Step::Respond {
                    status,
                    headers,
                    chunks,
                    end,
                    delay_ms,
                }
            },
        );
    prop_oneof![8 => respond, 1 => Just(Step::Fail), 1 => Just(Step::Timeout)]
}

fn header_map(headers: &[(&'static str, String)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        if let Ok(v) = HeaderValue::from_str(value) {
            map.append(HeaderName::from_static(name), v);
        }
    }
    map
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// On any response sequence the machine finishes within max_redirects + 1
    /// requests, accepts no more body than the limit, and sends credentials
    /// only over https to example.com or its subdomains (D4, D5).
    #[test]
    fn the_machine_always_finishes_within_its_bounds(
        script in prop::collection::vec(steps(), 1..8),
        max_redirects in 0u32..5,
        limit in 0u64..150,
    ) {
        let dev = Hostname::parse("localhost:8080").expect("valid");
        let config = Config::default()
            .with_max_redirects(max_redirects)
            .with_body_limit(limit)
            .with_timeout(Duration::from_secs(11))
            .with_plain_http_host(dev);
        let start = Instant::now();
        let mut now = start;
        let creds = Credentials::token("secret").expect("valid");
        let mut d = Transfer::discovery(Hostname::parse("example.com").expect("valid"), &config, Some(creds), now).expect("starts");
        let mut requests = 0u32;
        let mut script = script.iter().cycle();
        let result = loop {
            match d.poll() {
                Action::Done(result) => break result,
                Action::Wait(until) => {
                    now = now.max(until);
                    d.handle_timeout(now);
                }
                Action::Receive => {
                    // A driver whose script left the body open gives up at the deadline.
                    now = d.poll_timeout().expect("a deadline while receiving");
                    d.handle_timeout(now);
                }
                Action::Send(request) => {
                    requests += 1;
                    prop_assert!(requests <= max_redirects + 1, "request {requests} with max {max_redirects}");
                    let url = Url::parse(&request.uri().to_string()).expect("requests have absolute URIs");
                    if url.scheme() == "http" {
                        prop_assert_eq!(url.host_str(), Some("localhost"), "plain http only to the dev host");
                    }
                    if request.headers().contains_key("authorization") {
                        prop_assert_eq!(url.scheme(), "https");
                        let host = url.host_str().unwrap_or("");
                        prop_assert!(host == "example.com" || host.ends_with(".example.com"), "token sent to {host}");
                    }
                    match script.next().expect("cycle never ends") {
                        Step::Fail => d.handle_error(TransportError::new(TransportErrorKind::Io, "reset"), now),
                        Step::Timeout => {
                            now = d.poll_timeout().expect("a deadline while sending");
                            d.handle_timeout(now);
                        }
                        Step::Respond { status, headers, chunks, end, delay_ms } => {
                            now += Duration::from_millis(*delay_ms);
                            let status = StatusCode::from_u16(*status).expect("valid");
                            d.handle_head(status, &header_map(headers), now);
                            let mut accepted = 0u64;
                            for chunk in chunks {
                                if !matches!(d.poll(), Action::Receive) { break; }
                                d.handle_body(chunk, now);
                                if !matches!(d.poll(), Action::Done(Err(Error::BodyTooLarge { .. }))) {
                                    accepted += chunk.len() as u64;
                                }
                            }
                            prop_assert!(accepted <= limit, "accepted {accepted} of limit {limit}");
                            if *end && matches!(d.poll(), Action::Receive) {
                                d.handle_end(now);
                            }
                        }
                    }
                }
                other => prop_assert!(false, "unknown action {other:?}"),
            }
        };
        prop_assert!(now <= start + Duration::from_secs(11) + Duration::from_secs(4));
        if let Err(e) = &result {
            prop_assert!(!e.to_string().contains("secret"));
        }
    }
}
