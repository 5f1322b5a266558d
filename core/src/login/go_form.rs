//! Go's `net/url` form encoding, as `golang.org/x/oauth2` writes and
//! `net/http` reads it: `url.QueryEscape`, `url.Values.Encode` and
//! `url.ParseQuery` (LOGIN-1, LOGIN-4, LOGIN-8).

/// Go's `url.QueryEscape` of `bytes`, appended to `out`: letters, digits and
/// `-_.~` kept, a space as `+`, every other byte as `%XX` (upper-case hex).
pub(super) fn query_escape_into(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
    }
}

/// Go's `url.Values.Encode` of one value per name: sorted by name (byte
/// order), `name=value` pairs joined by `&`, both query-escaped.
pub(super) fn encode(pairs: &[(&str, &[u8])]) -> String {
    let mut sorted: Vec<&(&str, &[u8])> = pairs.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = String::new();
    for (name, value) in sorted {
        if !out.is_empty() {
            out.push('&');
        }
        query_escape_into(&mut out, name.as_bytes());
        out.push('=');
        query_escape_into(&mut out, value);
    }
    out
}

/// A query's `(name, value)` pairs, unescaped, in order.
pub(super) type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// Go's `url.ParseQuery`: `&`-separated `name=value` pairs, each
/// unescaped (`+` a space, `%XX` a byte), in order. A pair with a `;`, or
/// with a bad `%` escape, is skipped and makes the whole result an error,
/// as Go returns the map with the first error (`http.Request.ParseForm`
/// then fails). Values are bytes: Go does not check them for UTF-8.
pub(super) fn parse_query(query: &[u8]) -> (Pairs, Option<&'static str>) {
    let mut pairs = Vec::new();
    let mut error = None;
    for pair in query.split(|&b| b == b'&') {
        if pair.contains(&b';') {
            error.get_or_insert("invalid semicolon separator in query");
            continue;
        }
        if pair.is_empty() {
            continue;
        }
        let (name, value) = match pair.iter().position(|&b| b == b'=') {
            Some(i) => (&pair[..i], &pair[i + 1..]),
            None => (pair, &b""[..]),
        };
        match (unescape(name), unescape(value)) {
            (Some(name), Some(value)) => pairs.push((name, value)),
            _ => {
                error.get_or_insert("invalid URL escape");
            }
        }
    }
    (pairs, error)
}

/// The first value of `name` in `pairs` (Go's `url.Values.Get`): empty when
/// there is none.
pub(super) fn first<'a>(pairs: &'a Pairs, name: &str) -> &'a [u8] {
    pairs
        .iter()
        .find(|(n, _)| n == name.as_bytes())
        .map_or(&[][..], |(_, v)| v.as_slice())
}

/// Go's `url.QueryUnescape`: `+` is a space, `%XX` a byte; `None` for a `%`
/// without two hex digits.
fn unescape(text: &[u8]) -> Option<Vec<u8>> {
    let hex = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'%' => {
                let high = hex(*text.get(i + 1)?)?;
                let low = hex(*text.get(i + 2)?)?;
                out.push(high << 4 | low);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs of Go 1.23's `url.QueryEscape`.
    #[test]
    fn query_escape_is_go_s() {
        let escape = |s: &str| {
            let mut out = String::new();
            query_escape_into(&mut out, s.as_bytes());
            out
        };
        assert_eq!(
            escape("http://localhost:1234/login"),
            "http%3A%2F%2Flocalhost%3A1234%2Flogin"
        );
        assert_eq!(escape("a b+c*d~e'f!g(h)"), "a+b%2Bc%2Ad~e%27f%21g%28h%29");
        assert_eq!(escape("é/?#&="), "%C3%A9%2F%3F%23%26%3D");
    }

    #[test]
    fn encode_sorts_by_name() {
        assert_eq!(
            encode(&[("b", b"2"), ("a", b"x y"), ("A", b"")]),
            "A=&a=x+y&b=2"
        );
    }

    #[test]
    fn parse_query_is_go_s() {
        let (pairs, error) = parse_query(b"code=a%2Fb+c&state=s&&x&state=t");
        assert_eq!(error, None);
        assert_eq!(first(&pairs, "code"), b"a/b c");
        assert_eq!(first(&pairs, "state"), b"s", "the first value");
        assert_eq!(first(&pairs, "x"), b"");
        assert_eq!(first(&pairs, "missing"), b"");
        let (pairs, error) = parse_query(b"a=1;b=2&code=c");
        assert_eq!(error, Some("invalid semicolon separator in query"));
        assert_eq!(first(&pairs, "code"), b"c", "the other pairs are kept");
        assert_eq!(parse_query(b"code=%zz").1, Some("invalid URL escape"));
        assert_eq!(parse_query(b"code=%4").1, Some("invalid URL escape"));
        assert_eq!(first(&parse_query(b"c=%ff").0, "c"), [0xff]);
    }
}
