//! The URL rules for service URLs and redirect targets (docs/behaviour.md,
//! URL-2 to URL-6, REDIR-2).
//!
//! Go parses with `net/url` and resolves relative references with RFC 3986; we
//! resolve with the `url` crate (WHATWG), which gives the same answer for
//! every reference Go accepts that servers send in practice. What Go refuses,
//! though, the `url` crate often repairs silently (`***not a URL:/<@>***`
//! becomes a path), so [`go_parse`] first applies `net/url.Parse`'s syntax
//! checks, with its error texts, and only then is the reference resolved.

use url::Url;

use crate::go_quote::go_quote;

/// What `net/url.Parse` learned about a reference that it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GoUrl {
    /// The reference has an authority with `user@` or `user:pass@`.
    pub(crate) has_userinfo: bool,
}

/// Resolves `raw` against `base` as a service URL: Go's syntax checks, then
/// http or https only, no userinfo, fragment dropped. (Service URLs come
/// through `services::bases`, which builds the usual ones from parsed bases
/// and hands the rest here.)
pub(crate) fn resolve(base: &Url, raw: &str) -> Result<Url, String> {
    let go = go_parse(raw)?;
    let mut url = base
        .join(raw)
        .map_err(|e| format!("parse {}: {e}", go_quote(raw)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("unsupported scheme {}", url.scheme()));
    }
    if go.has_userinfo || !url.username().is_empty() || url.password().is_some() {
        return Err("embedded username/password information is not permitted".to_owned());
    }
    url.set_fragment(None);
    Ok(url)
}

/// `net/url.Parse(raw)`: `Ok` where Go accepts the reference, else Go's error
/// text (`parse "<raw>": first path segment in URL cannot contain colon`).
pub(crate) fn go_parse(raw: &str) -> Result<GoUrl, String> {
    if is_plain(raw) {
        return Ok(GoUrl {
            has_userinfo: false,
        });
    }
    go_parse_in_full(raw)
}

/// True for the usual service URL, a path such as `/api/v1/` or `./v1/`,
/// that holds nothing Go's checks look at: only letters, digits and
/// `-._~!$&'()*+,;=:@/` (no `%`, `?`, `#`, controls, spaces or non-ASCII),
/// no `//` to start an authority, and a colon only after a leading `/` (no
/// scheme, no colon in a first segment).
fn is_plain(raw: &str) -> bool {
    let b = raw.as_bytes();
    !b.starts_with(b"//")
        && (b.first() == Some(&b'/') || !b.contains(&b':'))
        && b.iter().all(|&c| is_plain_byte(c))
}

/// The bytes of a plain path: `a`–`z`, `A`–`Z`, `0`–`9` and
/// `-._~!$&'()*+,;=:@/`, which Go's `net/url` and the `url` crate both keep
/// as they are in a path.
#[inline]
pub(crate) fn is_plain_byte(c: u8) -> bool {
    PLAIN[usize::from(c)]
}

static PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = matches!(c as u8,
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9'
            | b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+'
            | b',' | b';' | b'=' | b':' | b'@' | b'/');
        c += 1;
    }
    table
};

/// [`go_parse`] without the shortcut for plain paths.
fn go_parse_in_full(raw: &str) -> Result<GoUrl, String> {
    let (without_fragment, fragment) = match split_once(raw, b'#') {
        Some((u, f)) => (u, Some(f)),
        None => (raw, None),
    };
    let parsed = parse_reference(without_fragment)
        .map_err(|e| format!("parse {}: {e}", go_quote(without_fragment)))?;
    if let Some(fragment) = fragment {
        unescape_check(fragment, Mode::Other)
            .map_err(|e| format!("parse {}: {e}", go_quote(raw)))?;
    }
    Ok(parsed)
}

/// `s.split_once(c)` for an ASCII `c`, by a plain byte loop: faster than
/// `str`'s searcher on the short texts of service URLs.
fn split_once(s: &str, c: u8) -> Option<(&str, &str)> {
    let i = s.bytes().position(|b| b == c)?;
    Some((&s[..i], &s[i + 1..]))
}

fn parse_reference(u: &str) -> Result<GoUrl, String> {
    let accept = GoUrl {
        has_userinfo: false,
    };
    if u.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if u == "*" {
        return Ok(accept);
    }
    let (scheme, rest) = scheme(u)?;
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        split_once(rest, b'?').map_or(rest, |(r, _)| r)
    };
    if !rest.starts_with('/') {
        if !scheme.is_empty() {
            // A rootless path after a scheme is opaque; Go checks no further.
            return Ok(accept);
        }
        let first_segment = rest.split('/').next().unwrap_or("");
        if first_segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    let mut path = rest;
    let mut has_userinfo = false;
    if (!scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let end = after.bytes().position(|b| b == b'/').unwrap_or(after.len());
        let (authority, p) = after.split_at(end);
        has_userinfo = parse_authority(authority)?;
        path = p;
    }
    unescape_check(path, Mode::Other)?;
    Ok(GoUrl { has_userinfo })
}

/// Go's `getScheme`: letters, then digits `+ - .` after the first character,
/// up to a colon. Anything else means "no scheme".
fn scheme(u: &str) -> Result<(&str, &str), String> {
    for (i, c) in u.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => return Ok((&u[..i], &u[i + 1..])),
            _ => return Ok(("", u)),
        }
    }
    Ok(("", u))
}

/// Returns whether the authority carries userinfo.
fn parse_authority(authority: &str) -> Result<bool, String> {
    let at = authority.bytes().rposition(|b| b == b'@');
    let host = at.map_or(authority, |i| &authority[i + 1..]);
    parse_host(host)?;
    let Some(i) = at else {
        return Ok(false);
    };
    let userinfo = &authority[..i];
    let valid = userinfo
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c));
    if !valid {
        return Err("net/url: invalid userinfo".to_owned());
    }
    for part in userinfo.splitn(2, ':') {
        unescape_check(part, Mode::Other)?;
    }
    Ok(true)
}

fn parse_host(host: &str) -> Result<(), String> {
    let port_portion = if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        &host[i + 1..]
    } else {
        host.bytes()
            .rposition(|b| b == b':')
            .map_or("", |i| &host[i..])
    };
    let valid_port = port_portion.is_empty()
        || port_portion
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if !valid_port {
        return Err(format!(
            "invalid port {} after host",
            go_quote(port_portion)
        ));
    }
    unescape_check(host, Mode::Host)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Host,
    Other,
}

/// Go's `unescape` errors: bad `%` escapes everywhere; in hosts also
/// percent-encoded ASCII other than `%25` and characters hosts cannot contain.
fn unescape_check(s: &str, mode: Mode) -> Result<(), String> {
    let b = s.as_bytes();
    if mode == Mode::Other && !b.contains(&b'%') {
        return Ok(());
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                let end = (i + 3).min(b.len());
                return Err(format!(
                    "invalid URL escape {}",
                    go_quote(&lossy(&b[i..end]))
                ));
            }
            if mode == Mode::Host && b[i + 1] < b'8' && &b[i..i + 3] != b"%25" {
                return Err(format!(
                    "invalid URL escape {}",
                    go_quote(&lossy(&b[i..i + 3]))
                ));
            }
            i += 3;
            continue;
        }
        if mode == Mode::Host && b[i] < 0x80 && !host_char(b[i]) {
            return Err(format!(
                "invalid character {} in host name",
                go_quote(&lossy(&b[i..=i]))
            ));
        }
        i += 1;
    }
    Ok(())
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// ASCII that Go's `shouldEscape` lets through unescaped in a host.
fn host_char(c: u8) -> bool {
    matches!(c,
        b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9'
        | b'-' | b'_' | b'.' | b'~' | b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+'
        | b',' | b';' | b'=' | b':' | b'[' | b']' | b'<' | b'>' | b'"')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/disco/foo.json").expect("valid base")
    }

    fn ok(raw: &str) -> String {
        resolve(&base(), raw)
            .map(String::from)
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn resolution_per_go_anchors() {
        assert_eq!(ok("./stu/"), "https://example.com/disco/stu/");
        assert_eq!(ok("/baz"), "https://example.com/baz");
        assert_eq!(ok("//example.net/"), "https://example.net/");
        assert_eq!(ok(""), "https://example.com/disco/foo.json");
        assert_eq!(ok("?a=b"), "https://example.com/disco/foo.json?a=b");
        assert_eq!(ok("#frag"), "https://example.com/disco/foo.json");
        assert_eq!(ok("../up/"), "https://example.com/up/");
        assert_eq!(ok("v1/relative"), "https://example.com/disco/v1/relative");
        assert_eq!(ok("http://example.org/#foo"), "http://example.org/");
        assert_eq!(ok("HTTPS://example.net/x"), "https://example.net/x");
    }

    #[test]
    fn plain_paths_are_what_go_accepts_without_userinfo() {
        for raw in [
            "/api/v1/",
            "./stu/",
            "../up/",
            "v1/relative",
            "",
            "*",
            "/",
            "/a:b@c/",
            "/a(b)*c+d,e;f=g!h$i&j'k~l",
            "a:b/",
            ":foo",
            "//example.net/",
            "///x",
            "/x?y",
            "/x#y",
            "/a%41",
            "/a%zz",
            "/a b",
            "/a\tb",
            "/é",
            "https://example.com/",
            "mailto:x",
        ] {
            let plain = is_plain(raw);
            let full = go_parse_in_full(raw);
            assert_eq!(go_parse(raw), full, "{raw:?}");
            if plain {
                assert_eq!(
                    full,
                    Ok(GoUrl {
                        has_userinfo: false
                    }),
                    "{raw:?}"
                );
            }
        }
        assert!(is_plain("/api/registry/v1/modules/") && is_plain("./x.json"));
        assert!(!is_plain("a:b/") && !is_plain("//h/") && !is_plain("/x?y"));
    }

    #[test]
    fn go_refusals_keep_go_texts() {
        assert_eq!(
            ok("***not A URL at all!:/<@@@@>***"),
            "ERR parse \"***not A URL at all!:/<@@@@>***\": first path segment in URL cannot contain colon"
        );
        assert_eq!(ok("ftp://127.0.0.1/pub/"), "ERR unsupported scheme ftp");
        assert_eq!(
            ok("https://user@example.com/"),
            "ERR embedded username/password information is not permitted"
        );
        assert_eq!(
            ok("//@example.com/"),
            "ERR embedded username/password information is not permitted"
        );
        assert_eq!(
            ok("https://example.com:abc/"),
            "ERR parse \"https://example.com:abc/\": invalid port \":abc\" after host"
        );
        assert_eq!(
            ok("https://exa mple.com/"),
            "ERR parse \"https://exa mple.com/\": invalid character \" \" in host name"
        );
        assert_eq!(
            ok("/a%zzb"),
            "ERR parse \"/a%zzb\": invalid URL escape \"%zz\""
        );
        assert_eq!(
            ok("/a\nb"),
            "ERR parse \"/a\\nb\": net/url: invalid control character in URL"
        );
        assert_eq!(ok(":foo"), "ERR parse \":foo\": missing protocol scheme");
        assert_eq!(
            ok("/x#%zz"),
            "ERR parse \"/x#%zz\": invalid URL escape \"%zz\""
        );
    }
}
