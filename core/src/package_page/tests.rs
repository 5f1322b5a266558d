use super::*;

fn meta(page: &str) -> Result<Option<String>, String> {
    terraform_get_meta(page.as_bytes(), false)
}

#[test]
fn the_page_url_adds_terraform_get_and_sorts_the_query() {
    let url = |s| Url::parse(s).expect("a URL");
    assert_eq!(
        package_page_url(&url("https://h/m/x")).as_str(),
        "https://h/m/x?terraform-get=1"
    );
    assert_eq!(
        package_page_url(&url("https://h/m/x?z=1&a=2&a=1&u=v+w")).as_str(),
        "https://h/m/x?a=2&a=1&terraform-get=1&u=v+w&z=1"
    );
}

#[test]
fn the_first_terraform_get_meta_in_the_head_names_the_source() {
    let page = r#"<!DOCTYPE html>
<html><head>
<!-- a comment, <meta name="terraform-get" content="no"> -->
<meta charset="utf-8">
<meta name="other" content="https://h/other.zip">
<meta name="terraform-get" content="">
<meta NAME="terraform-get" Content="https://h/m.zip?a=1&amp;b=2&#x26;c=&#51;&bogus;">
<meta name="terraform-get" content="https://h/second.zip">
</head><body></body></html>"#;
    assert_eq!(
        meta(page).expect("parsed").as_deref(),
        Some("https://h/m.zip?a=1&b=2&c=3&bogus;")
    );
    // HTML as it is written: attributes without quotes or values, tags
    // left open, a namespace prefix, a self-closed tag, single quotes.
    let page = "<html><head><link rel=icon><input checked>\
                <x:meta name='terraform-get' content='git::https://h/r.git?ref=v1'/></head>";
    assert_eq!(
        meta(page).expect("parsed").as_deref(),
        Some("git::https://h/r.git?ref=v1")
    );
    assert_eq!(
        meta(r#"<?xml version="1.0" encoding="ASCII"?><meta name="terraform-get" content="s3::https://h/b"/>"#)
            .expect("parsed")
            .as_deref(),
        Some("s3::https://h/b")
    );
}

#[test]
fn the_search_stops_at_the_body_or_the_end_of_the_head() {
    for page in [
        r#"<html><head></head><meta name="terraform-get" content="https://h/x.zip">"#,
        r#"<html><BODY><meta name="terraform-get" content="https://h/x.zip"></BODY></html>"#,
        r#"<head/><meta name="terraform-get" content="https://h/x.zip">"#,
        "just some text",
        "",
        "<html><head><title>No source</title></head></html>",
    ] {
        assert_eq!(meta(page), Ok(None), "{page}");
    }
}

#[test]
fn what_go_s_tokenizer_refuses_is_an_error_in_its_words() {
    for (page, error) in [
        (
            "<html><p>open",
            "XML syntax error on line 1: unexpected EOF",
        ),
        (
            "</div>",
            "XML syntax error on line 1: unexpected end element </div>",
        ),
        (
            "\n<head><script>if (a < b)</script>",
            "XML syntax error on line 2: expected element name after <",
        ),
        (
            "<a href=\"x<y\">",
            "XML syntax error on line 1: unescaped < inside quoted string",
        ),
        (
            "<!-- a -- b -->",
            "XML syntax error on line 1: invalid sequence \"--\" not allowed in comments",
        ),
        (
            "a ]]> b",
            "XML syntax error on line 1: unescaped ]]> not in CDATA section",
        ),
        (
            "bell \u{7}",
            "XML syntax error on line 1: illegal character code U+0007",
        ),
        (
            r#"<?xml version="1.0" encoding="latin1"?><head>"#,
            "xml: opening charset \"latin1\": can't decode XML document using charset \"latin1\"",
        ),
    ] {
        assert_eq!(meta(page), Err(error.to_owned()), "{page}");
    }
    assert_eq!(
        terraform_get_meta(b"caf\xe9", false),
        Err("XML syntax error on line 1: invalid UTF-8".to_owned())
    );
}

#[test]
fn a_page_cut_at_the_limit_is_read_as_far_as_it_goes() {
    // Cut inside a tag, with elements open: no source, not an error.
    assert_eq!(
        terraform_get_meta(b"<html><head><meta name=\"terra", true),
        Ok(None)
    );
    assert_eq!(
        terraform_get_meta(
            b"<head><meta name=\"terraform-get\" content=\"https://h/x.zip\"><meta",
            true
        ),
        Ok(Some("https://h/x.zip".to_owned()))
    );
}
