//! Hostname parsing and display beyond the anchor table: D1–D3 and IDNA.

use tfdisco_core::hostname::{for_display, is_valid};
use tfdisco_core::{Hostname, HostnameErrorKind};

/// The comparison form, or Go's error text.
fn parse(s: &str) -> Result<String, String> {
    Hostname::parse(s)
        .map(|h| h.to_string())
        .map_err(|e| e.kind().to_string())
}

/// The hostname, or why not.
fn kind(s: &str) -> Result<Hostname, HostnameErrorKind> {
    Hostname::parse(s).map_err(|e| {
        assert_eq!(e.input(), s, "the error keeps the input");
        e.kind().clone()
    })
}

#[test]
fn d1_ports_are_one_to_five_digits_from_1_to_65535() {
    assert_eq!(parse("example.com:081").as_deref(), Ok("example.com:81"));
    assert_eq!(parse("example.com:0443").as_deref(), Ok("example.com"));
    assert_eq!(
        parse("example.com:65535").as_deref(),
        Ok("example.com:65535")
    );
    for (input, error) in [
        ("example.com:+80", HostnameErrorKind::PortNotDigits),
        ("example.com:-1", HostnameErrorKind::PortNotDigits),
        ("example.com:", HostnameErrorKind::PortNotDigits),
        ("example.com: 80", HostnameErrorKind::PortNotDigits),
        ("example.com:0", HostnameErrorKind::PortZero),
        ("example.com:65536", HostnameErrorKind::PortTooLarge),
        (
            "example.com:99999999999999999999999",
            HostnameErrorKind::PortTooLarge,
        ),
        ("example.com:000080", HostnameErrorKind::PortTooLong),
        ("https://example.com", HostnameErrorKind::FullUrl),
        ("HTTP:boo", HostnameErrorKind::FullUrl),
    ] {
        assert_eq!(kind(input), Err(error), "{input}");
    }
    assert_eq!(
        parse("ftp://x"),
        Err("port portion contains non-digit characters".into())
    );
    assert_eq!(parse("http:80").as_deref(), Ok("http:80"));
}

#[test]
fn d2_punycode_ban_is_case_insensitive_and_sees_mapped_separators() {
    for input in [
        "xn--80akhbyknj4f.com",
        "XN--80AKHBYKNJ4F.com",
        "Xn--80akhbyknj4f.com",
        "a。xn--80akhbyknj4f",
        "a．XN--80akhbyknj4f",
        "a｡xn--80akhbyknj4f",
        "www.xn--mnchen-3ya.de:8443",
    ] {
        assert!(
            matches!(kind(input), Err(HostnameErrorKind::PunycodeLabel { .. })),
            "{input} should be refused as punycode"
        );
    }
    assert_eq!(
        parse("XN--80AKHBYKNJ4F.com"),
        Err(
            "hostname label \"XN--80AKHBYKNJ4F\" specified in punycode format; \
             service hostnames must be given in unicode"
                .into()
        )
    );
    // Not a punycode prefix.
    assert_eq!(parse("xn-x.com").as_deref(), Ok("xn-x.com"));
}

#[test]
fn d3_empty_labels_are_refused_but_one_trailing_dot_is_kept() {
    assert_eq!(parse("example.com.").as_deref(), Ok("example.com."));
    assert_eq!(
        parse("example.com.:8080").as_deref(),
        Ok("example.com.:8080")
    );
    for input in [
        "example.com..",
        "a...",
        ".",
        "..",
        ".example.com",
        "a..b",
        "a。。b",
        "a.\u{ad}.b",
    ] {
        assert_eq!(kind(input), Err(HostnameErrorKind::EmptyLabel), "{input}");
    }
    assert_ne!(
        Hostname::parse("example.com."),
        Hostname::parse("example.com")
    );
}

#[test]
fn uts46_lookup_profile() {
    let cases = [
        ("faß.de", "xn--fa-hia.de"),
        ("ＥＸＡＭＰＬＥ.com", "example.com"),
        ("Ⅻ.com", "xii.com"),
        ("a--b.com", "a--b.com"),
        ("127.0.0.1:8080", "127.0.0.1:8080"),
        ("bücher。example", "xn--bcher-kva.example"),
        ("ab\u{ad}c.com", "abc.com"),
        (
            "\u{0627}\u{0644}\u{0639}\u{0631}\u{0628}\u{064a}\u{0629}.example",
            "xn--mgbcd4a2b0d2b.example",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(parse(input).as_deref(), Ok(want), "{input}");
    }
    for (input, want) in [
        ("foo_bar.com", "idna: disallowed rune U+005F"),
        ("foo bar.com", "idna: disallowed rune U+0020"),
        ("bü_cher.de", "idna: disallowed rune U+005F"),
        ("-leading.com", "idna: invalid label \"-leading\""),
        ("Trailing-.com", "idna: invalid label \"trailing-\""),
        ("ab--cd.com", "idna: invalid label \"ab--cd\""),
        ("a\u{200d}b.com", "idna: invalid label \"a\\u200db\""),
        ("", "empty string is not a valid hostname"),
        (":8080", "empty string is not a valid hostname"),
    ] {
        assert_eq!(parse(input), Err(want.into()), "{input}");
    }
}

#[test]
fn liberal_display_is_transitional_and_never_fails() {
    assert_eq!(for_display("faß.de"), "fass.de");
    assert_eq!(for_display("Faß.de:0443"), "fass.de");
    assert_eq!(for_display("xn--fa-hia.de"), "xn--fa-hia.de");
    assert_eq!(for_display("a\u{200d}b.com"), "ab.com");
    assert_eq!(
        for_display("XN--80AKHBYKNJ4F.COM:8080"),
        "испытание.com:8080"
    );
    assert_eq!(for_display(":443"), "");
    assert_eq!(for_display("foo_bar:+80"), "foo_bar:+80");
    assert_eq!(for_display("example.com:99999"), "example.com:99999");
}

#[test]
fn strict_display_decodes_punycode_and_keeps_the_port() {
    let h = Hostname::parse("faß.de:8443").expect("valid");
    assert_eq!(h.as_str(), "xn--fa-hia.de:8443");
    assert_eq!(h.display(), "faß.de:8443");
    assert_eq!(h.host(), "xn--fa-hia.de");
    assert_eq!(h.port(), Some(8443));
    assert_eq!(Hostname::parse("example.com").expect("valid").port(), None);
}

#[test]
fn from_comparison_accepts_exactly_the_comparison_forms() {
    for ok in [
        "example.com",
        "xn--80akhbyknj4f.com:8080",
        "example.com.",
        "localhost:1",
    ] {
        let h = Hostname::from_comparison(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert_eq!(h.as_str(), ok);
    }
    for bad in [
        "Example.com",
        "example.com:443",
        "example.com:081",
        "example.com:0",
        "испытание.com",
        "xn--zz.com",
        "xn--80AKHBYKNJ4F.com",
        "a..b",
        "",
        ":80",
        "-a.com",
        "a_b.com",
    ] {
        assert_eq!(
            Hostname::from_comparison(bad).map_err(|e| e.kind().clone()),
            Err(HostnameErrorKind::NotComparisonForm),
            "{bad}"
        );
    }
}

#[test]
fn long_names_work_like_short_ones() {
    let label = "a".repeat(63);
    let long = format!("{label}.{label}.{label}.example.com:8443");
    let h = Hostname::parse(&long.to_uppercase()).expect("valid");
    assert_eq!(h.as_str(), long);
    assert_eq!(
        h,
        Hostname::from_comparison(&long).expect("comparison form")
    );
    assert_eq!(h.port(), Some(8443));
}

#[test]
fn serde_round_trip() {
    let h = Hostname::parse("München.de:8443").expect("valid");
    let json = serde_json::to_string(&h).expect("serializes");
    assert_eq!(json, "\"xn--mnchen-3ya.de:8443\"");
    let back: Hostname = serde_json::from_str(&json).expect("comparison form reads back");
    assert_eq!(back, h);
    let typed: Hostname = serde_json::from_str("\"MÜNCHEN.de:8443\"").expect("user form");
    assert_eq!(typed, h);
    let err = serde_json::from_str::<Hostname>("\"a..b\"").expect_err("invalid");
    assert!(err.to_string().contains("two consecutive periods"), "{err}");
}

#[test]
fn is_valid_matches_parse() {
    assert!(is_valid("example.com"));
    assert!(!is_valid("example..com"));
}

#[test]
fn equality_ordering_and_hashing_use_the_comparison_form() {
    use std::collections::HashSet;
    let a = Hostname::parse("Example.COM:443").expect("valid");
    let b = Hostname::parse("example.com").expect("valid");
    assert_eq!(a, b);
    assert_eq!(a, "example.com");
    let set: HashSet<Hostname> = [a, b].into_iter().collect();
    assert_eq!(set.len(), 1);
    let mut v = [
        Hostname::parse("b.com").expect("valid"),
        Hostname::parse("a.com").expect("valid"),
    ];
    v.sort();
    assert_eq!(v[0], "a.com");
    assert_eq!(format!("{:?}", v[0]), "Hostname(\"a.com\")");
}
