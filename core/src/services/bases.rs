//! The URLs a document's service URLs are built on, each parsed once
//! (docs/behaviour.md, URL-8): the discovery URL, which relative references
//! resolve against, and the origin (`https://host[:port]`) of each absolute
//! URL the document names.
//!
//! Building a service URL then costs a copy of a parsed base and the parse of
//! the reference's path and query, instead of parsing scheme, host and port
//! again for every service. That shortcut is taken only for references whose
//! every byte is one Go's `net/url` and the `url` crate both read literally
//! ([`Plain::split`]); anything else goes through the full rules of
//! [`url_rules::resolve`], which the shortcut must always agree with (the
//! tests below compare both on generated references).

use std::sync::{Mutex, PoisonError};

use url::Url;

use crate::url_rules::{self, is_plain_byte};

/// How many origins of absolute URLs one document keeps parsed; further
/// origins are parsed again for each URL on them.
const ORIGINS: usize = 16;

/// The parsed bases of one document's service URLs.
pub(crate) struct Bases {
    discovery_url: Url,
    /// The discovery URL can take a relative reference's path: http or
    /// https with a host and without user info.
    relative_quickly: bool,
    /// The origins met so far, as the document writes them, and parsed.
    origins: Mutex<Vec<(Box<str>, Url)>>,
}

impl Bases {
    pub(crate) fn new(discovery_url: Url) -> Bases {
        let relative_quickly = matches!(discovery_url.scheme(), "http" | "https")
            && discovery_url.has_host()
            && discovery_url.username().is_empty()
            && discovery_url.password().is_none();
        Bases {
            discovery_url,
            relative_quickly,
            origins: Mutex::new(Vec::new()),
        }
    }

    /// The final discovery URL, the base of relative references.
    pub(crate) fn discovery_url(&self) -> &Url {
        &self.discovery_url
    }

    /// [`url_rules::resolve`] against the discovery URL, by a parsed base
    /// when `raw` is [`Plain`].
    pub(crate) fn resolve(&self, raw: &str) -> Result<Url, String> {
        let quick = match Plain::split(raw) {
            Some(Plain {
                origin: None,
                path,
                query,
            }) if self.relative_quickly => {
                Some(with_reference(self.discovery_url.clone(), path, query))
            }
            Some(Plain {
                origin: Some(origin),
                path,
                query,
            }) => self
                .origin(origin)
                .map(|base| with_reference(base, path, query)),
            _ => None,
        };
        match quick {
            Some(url) => {
                // Debug builds (the tests, the fuzz targets) check the
                // shortcut against the full rules on every URL.
                debug_assert_eq!(
                    Ok(&url),
                    url_rules::resolve(&self.discovery_url, raw).as_ref(),
                    "{raw:?}"
                );
                Ok(url)
            }
            None => url_rules::resolve(&self.discovery_url, raw),
        }
    }

    /// A copy of `origin` parsed (`https://host[:port]` gives
    /// `https://host[:port]/`), from the origins kept if it is one of them.
    /// `None` when the `url` crate refuses it (the full rules then give the
    /// error).
    fn origin(&self, origin: &str) -> Option<Url> {
        let mut kept = self.origins.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, url)) = kept.iter().find(|(text, _)| &**text == origin) {
            return Some(url.clone());
        }
        let url = Url::parse(origin).ok()?;
        if kept.len() < ORIGINS {
            kept.push((origin.into(), url.clone()));
        }
        Some(url)
    }
}

impl Clone for Bases {
    fn clone(&self) -> Bases {
        let origins = self
            .origins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Bases {
            discovery_url: self.discovery_url.clone(),
            relative_quickly: self.relative_quickly,
            origins: Mutex::new(origins),
        }
    }
}

/// A reference made only of bytes both Go and the `url` crate take
/// literally, so that resolving it means putting its path and query in place
/// of the base's: `/api/v1/`, `./v1/?format=json`,
/// `https://cdn.example.net:8443/v1/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plain<'a> {
    /// `http://` or `https://` and a host of letters, digits, `-` and `.`
    /// with an optional port; `None` for a reference to the base's origin.
    origin: Option<&'a str>,
    /// Not empty; relative to the base's directory unless it starts with
    /// `/`.
    path: &'a str,
    /// After the first `?`.
    query: Option<&'a str>,
}

impl Plain<'_> {
    /// `None` unless every byte of `raw` is plain: the path's letters,
    /// digits and `-._~!$&'()*+,;=:@/` (a colon only in an absolute path),
    /// the query's the same and `?`. No `%`, `#`, `\`, space, control or
    /// non-ASCII byte; no authority (`//`) in a relative reference, and not
    /// an empty path, which keeps the base's.
    fn split(raw: &str) -> Option<Plain<'_>> {
        let after_scheme = raw
            .strip_prefix("https://")
            .or_else(|| raw.strip_prefix("http://"));
        let Some(after_scheme) = after_scheme else {
            let (path, query) = path_and_query(raw)?;
            let colon_free = path.starts_with('/') || !path.contains(':');
            return colon_free.then_some(Plain {
                origin: None,
                path,
                query,
            });
        };
        let end = after_scheme.bytes().position(|b| b == b'/')?;
        let (authority, reference) = after_scheme.split_at(end);
        let (host, port) = authority.split_once(':').unwrap_or((authority, "0"));
        let host_ok = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
        let port_ok = !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
        let (path, query) = path_and_query(reference)?;
        (host_ok && port_ok).then_some(Plain {
            origin: Some(&raw[..raw.len() - reference.len()]),
            path,
            query,
        })
    }
}

/// A plain reference's path and query (after the first `?`), or `None` when
/// it is not plain or its path is empty or starts an authority.
fn path_and_query(reference: &str) -> Option<(&str, Option<&str>)> {
    let b = reference.as_bytes();
    let path_end = b.iter().position(|&c| !is_plain_byte(c)).unwrap_or(b.len());
    let query = match b.get(path_end) {
        None => None,
        Some(b'?') => {
            let query = &b[path_end + 1..];
            if !query.iter().all(|&c| c == b'?' || is_plain_byte(c)) {
                return None;
            }
            Some(&reference[path_end + 1..])
        }
        Some(_) => return None,
    };
    let path = &reference[..path_end];
    (!path.is_empty() && !path.starts_with("//")).then_some((path, query))
}

/// `base` (http or https, a host, no user info) with a plain reference's
/// path and query in place of its own, and no fragment: what RFC 3986
/// resolution gives. A relative path is put after the base's directory; the
/// `url` crate's path parser removes dot segments as resolution does.
fn with_reference(mut url: Url, path: &str, query: Option<&str>) -> Url {
    if url.fragment().is_some() {
        url.set_fragment(None);
    }
    if url.query().is_some() {
        url.set_query(None);
    }
    if path.starts_with('/') {
        url.set_path(path);
    } else {
        let base_path = url.path();
        let directory = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
        let joined = [directory, path].concat();
        url.set_path(&joined);
    }
    if query.is_some() {
        url.set_query(query);
    }
    url
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const BASES: [&str; 6] = [
        "https://example.com/disco/foo.json",
        "https://example.com:8443/.well-known/terraform.json?a=b#c",
        "http://EXAMPLE.com/",
        "https://xn--mnchen-3ya.de/x/y/z",
        "https://user@example.com/a/b",
        "https://example.com",
    ];

    /// The shortcut and the full rules give the same URL or the same error.
    fn agree(base: &str, raw: &str) -> Result<(), TestCaseError> {
        let bases = Bases::new(Url::parse(base).expect("valid base"));
        let quick = bases.resolve(raw);
        let full = url_rules::resolve(bases.discovery_url(), raw);
        prop_assert_eq!(&quick, &full, "{} {:?}", base, raw);
        if let (Ok(quick), Ok(full)) = (quick, full) {
            prop_assert_eq!(
                (quick.path(), quick.query(), quick.host_str(), quick.port()),
                (full.path(), full.query(), full.host_str(), full.port())
            );
        }
        // Again, from the kept origin.
        prop_assert_eq!(
            bases.resolve(raw),
            url_rules::resolve(&bases.discovery_url, raw)
        );
        Ok(())
    }

    #[test]
    fn what_goes_quickly() {
        let plain = |origin, path, query| {
            Some(Plain {
                origin,
                path,
                query,
            })
        };
        assert_eq!(Plain::split("/api/v1/"), plain(None, "/api/v1/", None));
        assert_eq!(
            Plain::split("./v1/?f=json?"),
            plain(None, "./v1/", Some("f=json?"))
        );
        assert_eq!(Plain::split("/a:b@c/"), plain(None, "/a:b@c/", None));
        assert_eq!(
            Plain::split("https://cdn.example.net:8443/v1/?q"),
            plain(Some("https://cdn.example.net:8443"), "/v1/", Some("q"))
        );
        for slow in [
            "",
            "?a=b",
            "#f",
            "/a#f",
            "//example.net/",
            "/a%41",
            "/a b",
            "/é",
            "a:b/",
            "https://example.net",
            "https://u@example.net/",
            "https://example.net:/",
            "https://example.net:x/",
            "https://[::1]/",
            "https://example.net//x",
            "HTTPS://example.net/",
            "ftp://example.net/",
        ] {
            assert_eq!(Plain::split(slow), None, "{slow:?}");
        }
    }

    #[test]
    fn chosen_references_agree() {
        let raws = [
            "/",
            "/api/registry/v1/modules/",
            "./stu/",
            "../up/",
            "..",
            ".",
            "./",
            "v1/relative",
            "/a/./b/../c",
            "/..",
            "/a/../../b/.",
            "/x?",
            "/x??y",
            "./x?format=json",
            "/a:b@c/d?e:f@g/h",
            "/a(b)*c+d,e;f=g!h$i&j'k~l",
            "https://cdn.example.net/v1/",
            "https://CDN.Example.NET:443/v1/?q=1",
            "http://example.net:80/",
            "https://example.net:99999/",
            "https://1.2.3.4/x",
            "https://1.2.3.256/x",
            "https://0x7f.1/x",
            "https://a..b/x",
            "https://-a-/x",
            "https://xn--/x",
            "https://xn--mnchen-3ya.de/x",
            "http://example.net:08080/x",
        ];
        for base in BASES {
            for raw in raws {
                agree(base, raw).expect("agree");
            }
        }
    }

    proptest! {
        #[test]
        fn generated_references_agree(
            base in 0..BASES.len(),
            prefix in prop::sample::select(vec![
                "", "/", "./", "../", "https://", "http://", "https://example.net",
                "http://a.b:8080", "https://a.B", "//",
            ]),
            rest in "[a-zA-Z0-9./?#%:@!$&'()*+,;=~_ -]{0,24}",
        ) {
            agree(BASES[base], &format!("{prefix}{rest}"))?;
        }
    }

    #[test]
    fn origins_kept_are_bounded() {
        let bases = Bases::new(Url::parse(BASES[0]).expect("valid"));
        for i in 0..ORIGINS + 4 {
            let url = bases
                .resolve(&format!("https://h{i}.example.net/x"))
                .expect("valid");
            assert_eq!(url.as_str(), format!("https://h{i}.example.net/x"));
        }
        let kept = bases.origins.lock().expect("not poisoned").len();
        assert_eq!(kept, ORIGINS);
    }
}
