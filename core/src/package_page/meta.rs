//! The meta tag of a package page, found as go-getter's `parseMeta` finds
//! it: Go's `encoding/xml` tokenizer, not strict (attributes without a
//! value or quotes, unknown entities and mismatched end tags pass), read
//! until the first `<meta>` whose `name` is `terraform-get` with a
//! `content`, a `<body>` or a `</head>`.

/// The `content` of the page's first `<meta name="terraform-get">`;
/// `None` when it has none before its body. `cut`: the page went on past
/// `page`, which ends where it was cut. An error is the tokenizer's
/// (`XML syntax error on line N: …`).
pub fn terraform_get_meta(page: &[u8], cut: bool) -> Result<Option<String>, String> {
    let mut scanner = Scanner {
        page,
        at: 0,
        open: Vec::new(),
        pending: None,
    };
    loop {
        let token = match scanner.token() {
            Ok(Some(token)) => token,
            Ok(None) => return Ok(None),
            // What the cut left unread cannot be judged: no source.
            Err(Problem::Eof) if cut => return Ok(None),
            Err(Problem::Eof) => return Err(scanner.syntax("unexpected EOF")),
            Err(Problem::Syntax(message)) => return Err(scanner.syntax(&message)),
            Err(Problem::Other(message)) => return Err(message),
        };
        match token {
            Token::Start(name, _) if name.eq_ignore_ascii_case("body") => return Ok(None),
            Token::End(name) if name.eq_ignore_ascii_case("head") => return Ok(None),
            Token::Start(name, attributes) if name.eq_ignore_ascii_case("meta") => {
                let value = |key: &str| {
                    attributes
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(key))
                        .map_or("", |(_, v)| v.as_str())
                        .to_owned()
                };
                let content = value("content");
                if value("name") == "terraform-get" && !content.is_empty() {
                    return Ok(Some(content));
                }
            }
            _ => {}
        }
    }
}

/// A token the search looks at: a start tag's local name and attributes
/// (local names, values decoded), an end tag's local name; others.
#[derive(Debug)]
enum Token {
    Start(String, Vec<(String, String)>),
    End(String),
    Other,
}

enum Problem {
    /// The page ended inside a token.
    Eof,
    /// A syntax error, in Go's words.
    Syntax(String),
    /// Another error, whole.
    Other(String),
}

struct Scanner<'a> {
    page: &'a [u8],
    at: usize,
    /// The open elements' full names.
    open: Vec<String>,
    /// The end of a `<x/>` just read: the next token.
    pending: Option<String>,
}

type Step<T> = Result<T, Problem>;

impl Scanner<'_> {
    fn syntax(&self, message: &str) -> String {
        let line = 1 + self.page[..self.at.min(self.page.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        format!("XML syntax error on line {line}: {message}")
    }

    fn peek(&self) -> Option<u8> {
        self.page.get(self.at).copied()
    }

    fn byte(&mut self) -> Step<u8> {
        let b = self.peek().ok_or(Problem::Eof)?;
        self.at += 1;
        Ok(b)
    }

    fn eat(&mut self, s: &[u8]) -> bool {
        if self.page[self.at..].starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// The next token; `None` at the end of the page.
    fn token(&mut self) -> Step<Option<Token>> {
        if let Some(name) = self.pending.take() {
            return Ok(Some(Token::End(name)));
        }
        if self.at >= self.page.len() {
            // Go: the end with elements open is an error.
            return if self.open.is_empty() {
                Ok(None)
            } else {
                Err(Problem::Eof)
            };
        }
        if self.peek() != Some(b'<') {
            self.text(None)?;
            return Ok(Some(Token::Other));
        }
        let begin = self.at;
        self.at += 1;
        match self.byte()? {
            b'/' => self.end_tag(begin).map(Some),
            b'?' => self.instruction().map(|()| Some(Token::Other)),
            b'!' => self.bang().map(|()| Some(Token::Other)),
            _ => {
                self.at -= 1;
                self.start_tag().map(Some)
            }
        }
    }

    fn end_tag(&mut self, begin: usize) -> Step<Token> {
        let name = self
            .name()?
            .ok_or_else(|| Problem::Syntax("expected element name after </".into()))?;
        self.space();
        if self.byte()? != b'>' {
            return Err(Problem::Syntax(format!(
                "invalid characters between </{name} and >"
            )));
        }
        // Not strict: an end tag that is not the open element's closes it
        // (and its own comes next); with none open, it is an error.
        match self.open.pop() {
            None => Err(Problem::Syntax(format!("unexpected end element </{name}>"))),
            Some(open) if local(&open) != local(&name) => {
                self.at = begin;
                Ok(Token::End(local(&open).to_owned()))
            }
            Some(_) => Ok(Token::End(local(&name).to_owned())),
        }
    }

    /// `<?target …?>`; an `xml` declaration's version and encoding are
    /// checked as Go checks them (go-getter's charset reader takes
    /// `ascii` only).
    fn instruction(&mut self) -> Step<()> {
        let target = self
            .name()?
            .ok_or_else(|| Problem::Syntax("expected target name after <?".into()))?;
        let start = self.at;
        while !self.eat(b"?>") {
            self.byte()?;
        }
        let content = String::from_utf8_lossy(&self.page[start..self.at - 2]).into_owned();
        if target == "xml" {
            let version = instruction_value("version", &content);
            if !version.is_empty() && version != "1.0" {
                return Err(Problem::Other(format!(
                    "xml: unsupported version {version:?}; only version 1.0 is supported"
                )));
            }
            let encoding = instruction_value("encoding", &content);
            if !encoding.is_empty()
                && !encoding.eq_ignore_ascii_case("utf-8")
                && !encoding.eq_ignore_ascii_case("ascii")
            {
                return Err(Problem::Other(format!(
                    "xml: opening charset {encoding:?}: can't decode XML document using \
                     charset {encoding:?}"
                )));
            }
        }
        Ok(())
    }

    /// `<!--…-->`, `<![CDATA[…]]>` or a directive (`<!DOCTYPE …>`).
    fn bang(&mut self) -> Step<()> {
        if self.eat(b"--") {
            loop {
                if self.eat(b"--") {
                    return if self.byte()? == b'>' {
                        Ok(())
                    } else {
                        Err(Problem::Syntax(
                            "invalid sequence \"--\" not allowed in comments".into(),
                        ))
                    };
                }
                self.byte()?;
            }
        }
        if self.eat(b"[CDATA[") {
            return self.text(Some(b"]]>"));
        }
        match self.peek() {
            Some(b'-') => {
                return Err(Problem::Syntax(
                    "invalid sequence <!- not part of <!--".into(),
                ));
            }
            Some(b'[') => return Err(Problem::Syntax("invalid <![ sequence".into())),
            _ => {}
        }
        // A directive: to its `>`, over quoted text and nested `<…>`.
        let mut depth = 0usize;
        let mut quote = None;
        loop {
            let b = self.byte()?;
            match (quote, b) {
                (Some(q), b) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(b),
                (None, b'<') => depth += 1,
                (None, b'>') if depth == 0 => return Ok(()),
                (None, b'>') => depth -= 1,
                _ => {}
            }
        }
    }

    fn start_tag(&mut self) -> Step<Token> {
        let name = self
            .name()?
            .ok_or_else(|| Problem::Syntax("expected element name after <".into()))?;
        let mut attributes = Vec::new();
        loop {
            self.space();
            match self.byte()? {
                b'/' => {
                    if self.byte()? != b'>' {
                        return Err(Problem::Syntax("expected /> in element".into()));
                    }
                    // `<x/>`: its end follows at once.
                    self.pending = Some(local(&name).to_owned());
                    return Ok(Token::Start(local(&name).to_owned(), attributes));
                }
                b'>' => {
                    self.open.push(name.clone());
                    return Ok(Token::Start(local(&name).to_owned(), attributes));
                }
                _ => self.at -= 1,
            }
            let key = self
                .name()?
                .ok_or_else(|| Problem::Syntax("expected attribute name in element".into()))?;
            self.space();
            if self.peek() != Some(b'=') {
                // Not strict: an attribute without a value is its name.
                attributes.push((local(&key).to_owned(), local(&key).to_owned()));
                continue;
            }
            self.at += 1;
            self.space();
            let value = match self.byte()? {
                q @ (b'"' | b'\'') => self.quoted(q)?,
                _ => {
                    // Not strict: unquoted, `[a-zA-Z0-9_:-]*`.
                    self.at -= 1;
                    let start = self.at;
                    while self
                        .peek()
                        .is_some_and(|b| b.is_ascii_alphanumeric() || b"_:-".contains(&b))
                    {
                        self.at += 1;
                    }
                    String::from_utf8_lossy(&self.page[start..self.at]).into_owned()
                }
            };
            attributes.push((local(&key).to_owned(), value));
        }
    }

    /// A quoted attribute value, entities decoded.
    fn quoted(&mut self, quote: u8) -> Step<String> {
        let mut raw = Vec::new();
        loop {
            let b = self.byte()?;
            if b == quote {
                break;
            }
            if b == b'<' {
                return Err(Problem::Syntax("unescaped < inside quoted string".into()));
            }
            raw.push(b);
        }
        decode(&raw).map_err(Problem::Syntax)
    }

    /// Character data up to the next `<` (or, in a CDATA section, to its
    /// end `]]>`), checked as Go checks it.
    fn text(&mut self, end: Option<&[u8]>) -> Step<()> {
        let start = self.at;
        let raw = match end {
            Some(end) => {
                while !self.eat(end) {
                    self.byte()?;
                }
                &self.page[start..self.at - end.len()]
            }
            None => {
                while self.peek().is_some_and(|b| b != b'<') {
                    self.at += 1;
                }
                let raw = &self.page[start..self.at];
                if raw.windows(3).any(|w| w == b"]]>") {
                    return Err(Problem::Syntax("unescaped ]]> not in CDATA section".into()));
                }
                raw
            }
        };
        let decoded = if end.is_some() {
            check(raw).map(|()| String::new())
        } else {
            decode(raw)
        };
        decoded.map(|_| ()).map_err(Problem::Syntax)
    }

    /// An XML name (`None` when none starts here).
    fn name(&mut self) -> Step<Option<String>> {
        let first = self.peek().ok_or(Problem::Eof)?;
        if !(first.is_ascii_alphabetic() || first == b'_' || first == b':' || first >= 0x80) {
            return Ok(None);
        }
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b"_:.-".contains(&b) || b >= 0x80)
        {
            self.at += 1;
        }
        if self.at == self.page.len() {
            return Err(Problem::Eof);
        }
        Ok(Some(
            String::from_utf8_lossy(&self.page[start..self.at]).into_owned(),
        ))
    }
}

/// Go's `nsname`: `space:local` gives `local`; a name with more than one
/// colon, or an empty side, is all local.
fn local(name: &str) -> &str {
    match name.split_once(':') {
        Some((space, local)) if !space.is_empty() && !local.is_empty() && !local.contains(':') => {
            local
        }
        _ => name,
    }
}

/// The value of `key='…'` or `key="…"` in an instruction's content.
fn instruction_value(key: &str, content: &str) -> String {
    let Some(at) = content.find(key) else {
        return String::new();
    };
    let rest = content[at + key.len()..].trim_start();
    let Some(rest) = rest.strip_prefix('=') else {
        return String::new();
    };
    let rest = rest.trim_start();
    let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
        return String::new();
    };
    rest[1..]
        .split_once(quote)
        .map_or(String::new(), |(value, _)| value.to_owned())
}

/// Text with its entities decoded as Go decodes them not strictly: the
/// five named ones and numeric ones; any other `&` stays as it is.
fn decode(raw: &[u8]) -> Result<String, String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'&'
            && let Some((text, len)) = entity(&raw[i + 1..])
        {
            out.extend_from_slice(text.encode_utf8(&mut [0; 4]).as_bytes());
            i += 1 + len;
            continue;
        }
        match raw[i] {
            b'\r' if raw.get(i + 1) == Some(&b'\n') => {}
            b'\r' => out.push(b'\n'),
            b => out.push(b),
        }
        i += 1;
    }
    check(&out)?;
    String::from_utf8(out).map_err(|_| "invalid UTF-8".to_owned())
}

/// The entity at the start of `s` (after its `&`), and how many bytes it
/// takes with its `;`.
fn entity(s: &[u8]) -> Option<(char, usize)> {
    let end = s.iter().position(|&b| b == b';')?;
    let body = std::str::from_utf8(&s[..end]).ok()?;
    let text = match body {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "apos" => '\'',
        "quot" => '"',
        _ => {
            let number = body.strip_prefix('#')?;
            let (digits, radix) = match number.strip_prefix('x') {
                Some(hex) => (hex, 16),
                None => (number, 10),
            };
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return None;
            }
            char::from_u32(u32::from_str_radix(digits, radix).ok()?)?
        }
    };
    Some((text, end + 1))
}

/// Go's check of character data: UTF-8, of XML's characters.
fn check(text: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(text).map_err(|_| "invalid UTF-8".to_owned())?;
    match text.chars().find(|&c| {
        !matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
    }) {
        Some(c) => Err(format!("illegal character code U+{:04X}", c as u32)),
        None => Ok(()),
    }
}
