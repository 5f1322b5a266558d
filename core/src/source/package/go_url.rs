//! The part of Go's `net/url` that module package detection runs on
//! (docs/behaviour.md, PKG-9): `Parse`, `URL.String`, `EscapedPath`,
//! `ParseQuery`, `Values.Encode` and the escaping rules, as Go 1.23 has them
//! (the Go of Terraform 1.11). Go strings are bytes, so everything here is
//! bytes: an escape such as `%ff` decodes to a byte that is not UTF-8.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::go_quote;

/// Which part of a URL a byte is escaped or unescaped for (Go's `encoding`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// A parsed URL, Go's `url.URL` with the fields detection reads or writes.
#[derive(Clone, Debug, Default)]
pub(super) struct GoUrl {
    /// Lower-case.
    pub(super) scheme: String,
    pub(super) opaque: Vec<u8>,
    /// Username and, when set, password (decoded).
    pub(super) user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    /// Decoded.
    pub(super) host: Vec<u8>,
    /// Decoded.
    pub(super) path: Vec<u8>,
    /// The path as given when its default escaping differs.
    pub(super) raw_path: Vec<u8>,
    omit_host: bool,
    force_query: bool,
    /// As given, without the `?`.
    pub(super) raw_query: Vec<u8>,
    fragment: Vec<u8>,
    raw_fragment: Vec<u8>,
}

/// Go's `strconv.Quote` of a byte string: bytes that are not UTF-8 become
/// `\xNN`.
pub(super) fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in s.utf8_chunks() {
        let valid = go_quote(chunk.valid());
        out.push_str(&valid[1..valid.len() - 1]);
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

/// The value of an ASCII hex digit, either case.
fn unhex(c: u8) -> Option<u8> {
    char::from(c)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    !(mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let escape_error = |at: usize| {
        let end = (at + 3).min(s.len());
        format!("invalid URL escape {}", quote(&s[at..end]))
    };
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                let (Some(hi), Some(lo)) = (
                    s.get(i + 1).copied().and_then(unhex),
                    s.get(i + 2).copied().and_then(unhex),
                ) else {
                    return Err(escape_error(i));
                };
                let escaped = &s[i..i + 3];
                if mode == Mode::Host && hi < 8 && escaped != b"%25" {
                    return Err(escape_error(i));
                }
                let v = (hi << 4) | lo;
                if mode == Mode::Zone
                    && escaped != b"%25"
                    && v != b' '
                    && should_escape(v, Mode::Host)
                {
                    return Err(escape_error(i));
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote(&s[i..=i])
                    ));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                let hi = unhex(s[i + 1]).unwrap_or(0);
                let lo = unhex(s[i + 2]).unwrap_or(0);
                out.push((hi << 4) | lo);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

fn escape(s: &[u8], mode: Mode) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push(b'+');
        } else if should_escape(c, mode) {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        } else {
            out.push(c);
        }
    }
    out
}

/// Go's `strings.Cut` on bytes.
fn cut(s: &[u8], sep: u8) -> (&[u8], Option<&[u8]>) {
    match s.iter().position(|&b| b == sep) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

fn get_scheme(raw: &[u8]) -> Result<(&[u8], &[u8]), String> {
    for (i, &c) in raw.iter().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok((b"", raw)),
        }
    }
    Ok((b"", raw))
}

fn parse_host(host: &[u8]) -> Result<Vec<u8>, String> {
    let invalid_port = |port: &[u8]| format!("invalid port {} after host", quote(port));
    if host.first() == Some(&b'[') {
        let Some(close) = host.iter().rposition(|&b| b == b']') else {
            return Err("missing ']' in host".to_owned());
        };
        let colon_port = &host[close + 1..];
        if !valid_optional_port(colon_port) {
            return Err(invalid_port(colon_port));
        }
        if let Some(zone) = host[..close].windows(3).position(|w| w == b"%25") {
            let mut out = unescape(&host[..zone], Mode::Host)?;
            out.extend(unescape(&host[zone..close], Mode::Zone)?);
            out.extend(unescape(&host[close..], Mode::Host)?);
            return Ok(out);
        }
    } else if let Some(i) = host.iter().rposition(|&b| b == b':')
        && !valid_optional_port(&host[i..])
    {
        return Err(invalid_port(&host[i..]));
    }
    unescape(host, Mode::Host)
}

type Authority = (Option<(Vec<u8>, Option<Vec<u8>>)>, Vec<u8>);

fn parse_authority(authority: &[u8]) -> Result<Authority, String> {
    let at = authority.iter().rposition(|&b| b == b'@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    let valid = userinfo
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c));
    if !valid {
        return Err("net/url: invalid userinfo".to_owned());
    }
    let user = match cut(userinfo, b':') {
        (name, None) => (unescape(name, Mode::UserPassword)?, None),
        (name, Some(password)) => (
            unescape(name, Mode::UserPassword)?,
            Some(unescape(password, Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// RFC 3986 sub-delimiters and the rest `validEncoded` lets through.
fn valid_encoded(s: &[u8], mode: Mode) -> bool {
    s.iter()
        .all(|&c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, mode))
}

impl GoUrl {
    /// Go's `url.Parse`; the error is `url.Error`'s text
    /// (`parse "…": …`).
    pub(super) fn parse(raw: &[u8]) -> Result<GoUrl, String> {
        let (before, fragment) = cut(raw, b'#');
        let mut url =
            GoUrl::parse_reference(before).map_err(|e| format!("parse {}: {e}", quote(before)))?;
        if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
            url.fragment = unescape(fragment, Mode::Fragment)
                .map_err(|e| format!("parse {}: {e}", quote(raw)))?;
            if escape(&url.fragment, Mode::Fragment) != fragment {
                url.raw_fragment = fragment.to_vec();
            }
        }
        Ok(url)
    }

    /// `url.URL{Scheme: scheme, User: url.User(user), Host: host, Path:
    /// path}`, fields set as given (no parsing, no unescaping).
    pub(super) fn from_parts(scheme: &str, user: &str, host: &str, path: &str) -> GoUrl {
        GoUrl {
            scheme: scheme.to_owned(),
            user: Some((user.as_bytes().to_vec(), None)),
            host: host.as_bytes().to_vec(),
            path: path.as_bytes().to_vec(),
            ..GoUrl::default()
        }
    }

    /// Go's unexported `parse(rawURL, false)`.
    fn parse_reference(raw: &[u8]) -> Result<GoUrl, String> {
        if raw.iter().any(|&b| b < b' ' || b == 0x7f) {
            return Err("net/url: invalid control character in URL".to_owned());
        }
        let mut url = GoUrl::default();
        if raw == b"*" {
            url.path = b"*".to_vec();
            return Ok(url);
        }
        let (scheme, mut rest) = get_scheme(raw)?;
        url.scheme = String::from_utf8_lossy(scheme).to_ascii_lowercase();
        if rest.last() == Some(&b'?') && rest.iter().filter(|&&b| b == b'?').count() == 1 {
            url.force_query = true;
            rest = &rest[..rest.len() - 1];
        } else if let (before, Some(query)) = cut(rest, b'?') {
            url.raw_query = query.to_vec();
            rest = before;
        }
        if rest.first() != Some(&b'/') {
            if !url.scheme.is_empty() {
                url.opaque = rest.to_vec();
                return Ok(url);
            }
            if cut(rest, b'/').0.contains(&b':') {
                return Err("first path segment in URL cannot contain colon".to_owned());
            }
        }
        if (!url.scheme.is_empty() || !rest.starts_with(b"///")) && rest.starts_with(b"//") {
            let authority = &rest[2..];
            let (authority, path) = match authority.iter().position(|&b| b == b'/') {
                Some(i) => (&authority[..i], &authority[i..]),
                None => (authority, &b""[..]),
            };
            (url.user, url.host) = parse_authority(authority)?;
            rest = path;
        } else if !url.scheme.is_empty() && rest.first() == Some(&b'/') {
            url.omit_host = true;
        }
        url.set_path(rest)?;
        Ok(url)
    }

    fn set_path(&mut self, p: &[u8]) -> Result<(), String> {
        self.path = unescape(p, Mode::Path)?;
        self.raw_path = if escape(&self.path, Mode::Path) == p {
            Vec::new()
        } else {
            p.to_vec()
        };
        Ok(())
    }

    /// Go's `EscapedPath`: the raw path when it still says the same as the
    /// path, else the path escaped.
    fn escaped_path(&self) -> Vec<u8> {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return b"*".to_vec();
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> Vec<u8> {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// Go's `URL.String`.
    pub(super) fn to_text(&self) -> String {
        let mut buf: Vec<u8> = Vec::new();
        if !self.scheme.is_empty() {
            buf.extend_from_slice(self.scheme.as_bytes());
            buf.push(b':');
        }
        if !self.opaque.is_empty() {
            buf.extend_from_slice(&self.opaque);
        } else {
            let authority = !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if authority && !omitted {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.extend_from_slice(b"//");
                }
                if let Some((name, password)) = &self.user {
                    buf.extend(escape(name, Mode::UserPassword));
                    if let Some(password) = password {
                        buf.push(b':');
                        buf.extend(escape(password, Mode::UserPassword));
                    }
                    buf.push(b'@');
                }
                buf.extend(escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if path.first().is_some_and(|&b| b != b'/') && !self.host.is_empty() {
                buf.push(b'/');
            }
            if buf.is_empty() && cut(&path, b'/').0.contains(&b':') {
                buf.extend_from_slice(b"./");
            }
            buf.extend(path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push(b'?');
            buf.extend_from_slice(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push(b'#');
            buf.extend(self.escaped_fragment());
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// Go's `URL.Query`: malformed pairs dropped.
    pub(super) fn query(&self) -> Query {
        parse_query(&self.raw_query).0
    }
}

/// Go's `url.Values`: keys in byte order (as `Encode` sorts them), values
/// in the order given.
pub(super) type Query = BTreeMap<Vec<u8>, Vec<Vec<u8>>>;

/// Go's `url.ParseQuery`: every pair that decodes, and the error Go
/// reports (a `;` anywhere wins over a bad escape).
pub(super) fn parse_query(query: &[u8]) -> (Query, Option<String>) {
    let mut values = Query::new();
    let mut error = None;
    for pair in query.split(|&b| b == b'&') {
        if pair.contains(&b';') {
            error = Some("invalid semicolon separator in query".to_owned());
            continue;
        }
        if pair.is_empty() {
            continue;
        }
        let (key, value) = cut(pair, b'=');
        let decoded = unescape(key, Mode::QueryComponent)
            .and_then(|k| Ok((k, unescape(value.unwrap_or(b""), Mode::QueryComponent)?)));
        match decoded {
            Ok((key, value)) => values.entry(key).or_default().push(value),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    (values, error)
}

/// Go's `Values.Encode`: sorted by key, each part query-escaped.
pub(super) fn encode_query(values: &Query) -> Vec<u8> {
    let mut out = Vec::new();
    for (key, list) in values {
        for value in list {
            if !out.is_empty() {
                out.push(b'&');
            }
            out.extend(escape(key, Mode::QueryComponent));
            out.push(b'=');
            out.extend(escape(value, Mode::QueryComponent));
        }
    }
    out
}

/// Go's `Values.Get`: the first value, as text.
pub(super) fn query_get(values: &Query, key: &str) -> Option<String> {
    values
        .get(key.as_bytes())
        .and_then(|list| list.first())
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(s: &str) -> String {
        GoUrl::parse(s.as_bytes()).map_or_else(|e| format!("error: {e}"), |u| u.to_text())
    }

    #[test]
    fn parse_and_string_as_go() {
        for (given, want) in [
            ("https://example.com/a b", "https://example.com/a%20b"),
            ("https://example.com/a%2Fb", "https://example.com/a%2Fb"),
            ("HTTPS://Example.com/x?y#z", "https://Example.com/x?y#z"),
            ("git::https://x/y", "git::https://x/y"),
            ("s3:bucket/key", "s3:bucket/key"),
            ("file:///tmp/x", "file:///tmp/x"),
            ("x?", "x?"),
            ("https://u:p@h:1/p", "https://u:p@h:1/p"),
            ("/a:b/c", "/a:b/c"),
            (
                "https://example.com/%zz",
                "error: parse \"https://example.com/%zz\": invalid URL escape \"%zz\"",
            ),
            (
                "https://h:x/",
                "error: parse \"https://h:x/\": invalid port \":x\" after host",
            ),
            ("a:b/c", "a:b/c"),
            (
                "1a:b",
                "error: parse \"1a:b\": first path segment in URL cannot contain colon",
            ),
            (":x", "error: parse \":x\": missing protocol scheme"),
            (
                "https://h/\n",
                "error: parse \"https://h/\\n\": net/url: invalid control character in URL",
            ),
            ("https://[::1%25en0]:80/x", "https://[::1%25en0]:80/x"),
            (
                "https://a{b}/",
                "error: parse \"https://a{b}/\": invalid character \"{\" in host name",
            ),
            (
                "https://ü@h/",
                "error: parse \"https://ü@h/\": net/url: invalid userinfo",
            ),
            (
                "https://h/x#a%zz",
                "error: parse \"https://h/x#a%zz\": invalid URL escape \"%zz\"",
            ),
            ("https://h/%e2%82", "https://h/%e2%82"),
            ("https://h/a%2fb c", "https://h/a/b%20c"),
        ] {
            assert_eq!(round_trip(given), want, "{given}");
        }
    }

    #[test]
    fn queries_as_go() {
        let (values, error) = parse_query(b"b=2&a=1+1&a=%41&&c");
        assert_eq!(error, None);
        assert_eq!(encode_query(&values), b"a=1+1&a=A&b=2&c=");
        assert_eq!(query_get(&values, "a").as_deref(), Some("1 1"));
        assert_eq!(
            parse_query(b"a=%zz&b;c").1.as_deref(),
            Some("invalid semicolon separator in query")
        );
        assert_eq!(
            parse_query(b"a=%zz&b=%").1.as_deref(),
            Some("invalid URL escape \"%zz\"")
        );
    }

    #[test]
    fn quoting_bytes() {
        assert_eq!(quote(b"%z\xc3"), "\"%z\\xc3\"");
        assert_eq!(quote("é\n".as_bytes()), "\"é\\n\"");
    }
}
