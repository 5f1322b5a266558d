//! A registry's `WWW-Authenticate` challenge (OCI-5): `Basic realm="…"` or
//! `Bearer realm="…",service="…",scope="…"`. As ORAS, only the first
//! challenge of the header is read.

/// The authentication scheme a registry asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scheme {
    /// `Basic`: the username and password in every request.
    Basic,
    /// `Bearer`: a token from the realm's token service.
    Bearer,
    /// Another scheme, which tfdisco cannot answer (lower-cased).
    Other(String),
}

/// A parsed challenge: its scheme and parameters (names lower-cased,
/// values unquoted).
///
/// ```
/// use tfdisco_oci::{Challenge, Scheme};
/// let c = Challenge::parse(
///     r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull""#,
/// ).expect("a challenge");
/// assert_eq!(c.scheme(), &Scheme::Bearer);
/// assert_eq!(c.param("realm"), Some("https://auth.example/token"));
/// assert_eq!(c.param("scope"), Some("repository:a/b:pull"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    scheme: Scheme,
    params: Vec<(String, String)>,
}

impl Challenge {
    /// The first challenge of a `WWW-Authenticate` value; `None` when it
    /// has no scheme or its parameters do not parse.
    pub fn parse(header: &str) -> Option<Challenge> {
        let mut p = Parser {
            rest: header.trim_start(),
        };
        let scheme = p.token()?.to_ascii_lowercase();
        let scheme = match scheme.as_str() {
            "basic" => Scheme::Basic,
            "bearer" => Scheme::Bearer,
            _ => Scheme::Other(scheme),
        };
        let mut params = Vec::new();
        p.spaces();
        while !p.rest.is_empty() {
            let Some(name) = p.token() else { break };
            p.spaces();
            if !p.eat('=') {
                // A token without '=': the next challenge begins (or a
                // token68, which no registry scheme uses).
                break;
            }
            p.spaces();
            let value = if p.rest.starts_with('"') {
                p.quoted()?
            } else {
                p.token()?.to_owned()
            };
            params.push((name.to_ascii_lowercase(), value));
            p.spaces();
            if !p.eat(',') {
                break;
            }
            p.spaces();
        }
        Some(Challenge { scheme, params })
    }

    /// The scheme.
    pub fn scheme(&self) -> &Scheme {
        &self.scheme
    }

    /// A parameter's value (`realm`, `service`, `scope`, …), by its name in
    /// any case.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Parser<'a> {
    rest: &'a str,
}

impl<'a> Parser<'a> {
    /// RFC 9110's `token`.
    fn token(&mut self) -> Option<&'a str> {
        let end = self
            .rest
            .find(|c: char| !is_tchar(c))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return None;
        }
        let (token, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(token)
    }

    /// A `quoted-string`, its escapes undone.
    fn quoted(&mut self) -> Option<String> {
        let mut chars = self.rest.char_indices();
        chars.next(); // the opening quote
        let mut value = String::new();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &self.rest[i + 1..];
                    return Some(value);
                }
                '\\' => value.push(chars.next()?.1),
                c => value.push(c),
            }
        }
        None
    }

    fn spaces(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges() {
        let c = Challenge::parse(r#"Basic realm="Registry Realm""#).expect("basic");
        assert_eq!(c.scheme(), &Scheme::Basic);
        assert_eq!(c.param("realm"), Some("Registry Realm"));

        let c = Challenge::parse(
            "bearer  Realm = \"https://t.example/token?x=1\" , service=reg.example,scope=\"repository:a:pull,push\"",
        )
        .expect("bearer");
        assert_eq!(c.scheme(), &Scheme::Bearer);
        assert_eq!(c.param("realm"), Some("https://t.example/token?x=1"));
        assert_eq!(c.param("SERVICE"), Some("reg.example"));
        assert_eq!(c.param("scope"), Some("repository:a:pull,push"));

        let c = Challenge::parse(r#"Bearer realm="a\"b\\c""#).expect("escapes");
        assert_eq!(c.param("realm"), Some("a\"b\\c"));

        // Only the first of two challenges.
        let c = Challenge::parse(r#"Bearer realm="r", Basic realm="s""#).expect("two");
        assert_eq!(c.scheme(), &Scheme::Bearer);
        assert_eq!(c.param("realm"), Some("r"));

        let c = Challenge::parse("Negotiate").expect("other");
        assert_eq!(c.scheme(), &Scheme::Other("negotiate".to_owned()));
        assert_eq!(c.param("realm"), None);
    }

    #[test]
    fn what_does_not_parse() {
        assert_eq!(Challenge::parse(""), None);
        assert_eq!(Challenge::parse("  "), None);
        assert_eq!(Challenge::parse("=x"), None);
        assert_eq!(Challenge::parse(r#"Bearer realm="unterminated"#), None);
        assert_eq!(Challenge::parse(r#"Bearer realm="x\"#), None);
    }
}
