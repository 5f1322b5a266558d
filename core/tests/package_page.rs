//! A package page through the machine, without sockets (docs/behaviour.md,
//! MOD-7): `?terraform-get=1` added, no token, the `X-Terraform-Get`
//! header first, else the head's meta tag read from at most the first MiB
//! of the body, a status that is not 2xx an error.

mod common;

use tfdisco_core::url::Url;
use tfdisco_core::{Config, Error, Hostname, PAGE_LIMIT, Transfer};

use common::{Net, Reply};

const PAGE: &str = "https://pages.example.com/m/vpc?v=1";
const ASKED: &str = "https://pages.example.com/m/vpc?terraform-get=1&v=1";

fn page(net: &mut Net) -> Result<Option<String>, Error> {
    let url = Url::parse(PAGE).expect("valid");
    let about = Hostname::parse("pages.example.com").expect("valid");
    net.run(Transfer::package_page(
        &url,
        about,
        &Config::default(),
        net.now(),
    ))
}

#[test]
fn the_header_names_the_source_and_the_body_is_not_read() {
    let mut net = Net::new();
    net.on(
        ASKED,
        Reply::new(204).header("X-Terraform-Get", "https://h/vpc.zip"),
    );
    assert_eq!(
        page(&mut net).expect("a source").as_deref(),
        Some("https://h/vpc.zip")
    );
    assert_eq!(net.seen.len(), 1);
    assert_eq!(net.seen[0].url, ASKED);
    assert_eq!(net.seen[0].authorization(), None);

    // The header wins over the meta tag; an empty header is none.
    let mut net = Net::new();
    let body = br#"<head><meta name="terraform-get" content="https://h/meta.tgz"></head>"#;
    net.on(
        ASKED,
        Reply::new(200).header("X-Terraform-Get", "").body(body),
    );
    assert_eq!(
        page(&mut net).expect("a source").as_deref(),
        Some("https://h/meta.tgz")
    );
}

#[test]
fn the_meta_tag_is_read_from_the_first_mib_of_the_body() {
    let mut net = Net::new();
    let head = br#"<html><head><meta name="terraform-get" content="https://h/vpc.tar.gz">"#;
    let padding = vec![b' '; PAGE_LIMIT];
    net.on(
        ASKED,
        Reply::new(200).chunked(&[head, &padding, b"</head>"]),
    );
    assert_eq!(
        page(&mut net).expect("a source").as_deref(),
        Some("https://h/vpc.tar.gz")
    );
    // Past the first MiB nothing is read: a tag there is not seen.
    let mut net = Net::new();
    net.on(
        ASKED,
        Reply::new(200).chunked(&[b"<html><head>", &padding, head]),
    );
    assert_eq!(page(&mut net).expect("no source"), None);
}

#[test]
fn a_status_that_is_not_2xx_is_an_error_with_its_code() {
    for status in [404, 403, 300] {
        let mut net = Net::new();
        net.on(ASKED, Reply::new(status));
        let error = page(&mut net).expect_err("refused");
        assert_eq!(error.status().map(|s| s.as_u16()), Some(status), "{error}");
    }
}

#[test]
fn a_page_go_s_tokenizer_refuses_is_an_invalid_answer() {
    let mut net = Net::new();
    net.on(ASKED, Reply::new(200).body(b"<html><p>"));
    match page(&mut net).expect_err("refused") {
        Error::InvalidResponse { problem, .. } => {
            assert_eq!(problem, "XML syntax error on line 1: unexpected EOF");
        }
        other => panic!("{other}"),
    }
}
