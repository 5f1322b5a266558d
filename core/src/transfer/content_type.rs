//! The `Content-Type` check (docs/behaviour.md, DISCO-6).

use http::HeaderMap;
use http::header::CONTENT_TYPE;

/// Why a response's `Content-Type` is refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Missing or unparseable; carries the raw value ("" when missing).
    Malformed(String),
    /// Parsed, but not `application/json`; carries the lower-cased media type.
    Unsupported(String),
}

/// Accepts `application/json` in any case, with any parameters and surrounding
/// whitespace, as Go's `mime.ParseMediaType` does; only the first header counts.
pub(crate) fn check(headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Err(Refusal::Malformed(String::new()));
    };
    // The usual value needs no parsing.
    if value.as_bytes().eq_ignore_ascii_case(b"application/json") {
        return Ok(());
    }
    let raw = String::from_utf8_lossy(value.as_bytes());
    let media: mime::Mime = raw
        .trim()
        .parse()
        .map_err(|_| Refusal::Malformed(raw.clone().into_owned()))?;
    if media.essence_str() == "application/json" {
        Ok(())
    } else {
        Err(Refusal::Unsupported(media.essence_str().to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn with(value: &str) -> Result<(), Refusal> {
        let mut h = HeaderMap::new();
        h.insert(
            CONTENT_TYPE,
            HeaderValue::from_str(value).expect("test header"),
        );
        check(&h)
    }

    #[test]
    fn go_verified_cases() {
        for ok in [
            "application/json",
            "application/json; charset=latin-1",
            "Application/JSON",
            " application/json ",
            "application/json;",
            "application/json; foo=\"bar\"",
        ] {
            assert_eq!(with(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "application/json; charset",
            "application/json, text/plain",
            "application/json;; charset=utf-8",
        ] {
            assert_eq!(with(bad), Err(Refusal::Malformed(bad.into())), "{bad}");
        }
        for (other, media) in [
            ("text/json", "text/json"),
            ("application/x-json", "application/x-json"),
            ("application/vnd.api+json", "application/vnd.api+json"),
            ("TEXT/Plain; charset=utf-8", "text/plain"),
            ("application/octet-stream", "application/octet-stream"),
        ] {
            assert_eq!(
                with(other),
                Err(Refusal::Unsupported(media.into())),
                "{other}"
            );
        }
        assert_eq!(
            check(&HeaderMap::new()),
            Err(Refusal::Malformed(String::new()))
        );
    }
}
