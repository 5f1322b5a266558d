//! The scanner: text to tokens, as hclsyntax's `scan_tokens.rl` cuts them
//! (a Ragel longest-match scanner with three modes: code, quoted strings
//! and heredocs, called into one another as brackets and templates open).
//!
//! It runs on demand, one token at a time, and looks at each byte a bounded
//! number of times: where Ragel backs up after a failed longer match (an
//! unterminated `/*`, `<<` not followed by an identifier and a line break,
//! a number's trailing dots), the scanner looks ahead once and remembers
//! what it found.

use super::token::{Kind, Span, Token};
use super::unicode::{ID_CONTINUE, ID_START};

/// What the scanner is reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Code,
    Quoted,
    Heredoc,
}

#[derive(Debug, Clone)]
struct Heredoc {
    /// The delimiter, as a byte range of the text.
    marker: Span,
    start_of_line: bool,
}

pub(crate) struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    modes: Vec<Mode>,
    braces: i64,
    /// The brace levels at which a `}` ends a template sequence.
    ret_braces: Vec<i64>,
    heredocs: Vec<Heredoc>,
    /// The scanner met text no pattern matches: the rest is one invalid
    /// token.
    failed: bool,
    /// Where a search for `*/` found none: none is after this either.
    no_comment_end_from: Option<usize>,
    /// The line break after a heredoc's end marker, its own token.
    pending_newline: Option<Span>,
    /// Bytes looked at, for the linear-time bound.
    pub(crate) steps: u64,
}

/// Whether `c` may start an identifier (besides `_`).
pub(crate) fn is_id_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_table(ID_START, c)
}

/// Whether `c` may continue an identifier (besides `-`).
pub(crate) fn is_id_continue(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_table(ID_CONTINUE, c)
}

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    let i = table.partition_point(|&(_, hi)| hi < c);
    table.get(i).is_some_and(|&(lo, _)| lo <= c)
}

impl<'t> Lexer<'t> {
    pub(crate) fn new(text: &'t str) -> Lexer<'t> {
        // A byte order mark is skipped, as hclsyntax's `stripUTF8BOM` does;
        // offsets still count it.
        let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos,
            modes: vec![Mode::Code],
            braces: 0,
            ret_braces: Vec::new(),
            heredocs: Vec::new(),
            failed: false,
            no_comment_end_from: None,
            pending_newline: None,
            steps: 0,
        }
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|rest| rest.chars().next())
    }

    fn token(&mut self, kind: Kind, start: usize, end: usize) -> Token {
        self.steps += (end - start) as u64 + 1;
        self.pos = end;
        Token {
            kind,
            span: Span::new(start, end),
        }
    }

    /// The next token; at the end, `Eof` (again and again).
    pub(crate) fn next_token(&mut self) -> Token {
        if let Some(span) = self.pending_newline.take() {
            return self.token(Kind::Newline, span.start, span.end);
        }
        if self.failed {
            let end = self.bytes.len();
            return self.token(Kind::Eof, end, end);
        }
        match self.modes.last().copied().unwrap_or(Mode::Code) {
            Mode::Code => self.code(),
            Mode::Quoted => self.quoted(),
            Mode::Heredoc => self.heredoc(),
        }
    }

    /// What Ragel does when no pattern matches: the rest of the text is one
    /// invalid token.
    fn fail(&mut self, start: usize) -> Token {
        self.failed = true;
        let end = self.bytes.len();
        self.token(Kind::Invalid, start, end)
    }

    fn code(&mut self) -> Token {
        while let Some(b' ' | b'\t') = self.byte(self.pos) {
            self.pos += 1;
            self.steps += 1;
        }
        let start = self.pos;
        let Some(b) = self.byte(start) else {
            return self.token(Kind::Eof, start, start);
        };
        let next = self.byte(start + 1);
        let one = |kind| (kind, start + 1);
        let two = |kind| (kind, start + 2);
        let (kind, end) = match b {
            b'0'..=b'9' => (Kind::NumberLit, self.number_end(start)),
            b'#' => (Kind::Comment, self.line_comment_end(start)),
            b'/' if next == Some(b'/') => (Kind::Comment, self.line_comment_end(start)),
            b'/' if next == Some(b'*') => match self.comment_end(start + 2) {
                Some(end) => (Kind::Comment, end),
                None => one(Kind::Slash),
            },
            b'\n' => one(Kind::Newline),
            b'\r' if next == Some(b'\n') => two(Kind::Newline),
            b'=' if next == Some(b'=') => two(Kind::EqualOp),
            b'=' if next == Some(b'>') => two(Kind::FatArrow),
            b'!' if next == Some(b'=') => two(Kind::NotEqual),
            b'>' if next == Some(b'=') => two(Kind::GreaterThanEq),
            b'<' if next == Some(b'=') => two(Kind::LessThanEq),
            b'<' if next == Some(b'<') => match self.heredoc_intro(start) {
                Some((end, marker)) => {
                    self.heredocs.push(Heredoc {
                        marker,
                        start_of_line: true,
                    });
                    self.modes.push(Mode::Heredoc);
                    (Kind::OHeredoc, end)
                }
                None => one(Kind::LessThan),
            },
            b'&' if next == Some(b'&') => two(Kind::And),
            b'|' if next == Some(b'|') => two(Kind::Or),
            b':' if next == Some(b':') => two(Kind::DoubleColon),
            b'.' if next == Some(b'.') && self.byte(start + 2) == Some(b'.') => {
                (Kind::Ellipsis, start + 3)
            }
            b'~' if next == Some(b'}') => {
                // `~}` always ends a template sequence, even when it does
                // not close one: the parser then refuses it.
                if self.ret_braces.last() == Some(&self.braces) {
                    self.ret_braces.pop();
                    self.modes.pop();
                }
                self.braces -= 1;
                two(Kind::TemplateSeqEnd)
            }
            b'{' => {
                self.braces += 1;
                one(Kind::OBrace)
            }
            b'}' => {
                let kind = if self.ret_braces.last() == Some(&self.braces) {
                    self.ret_braces.pop();
                    self.modes.pop();
                    Kind::TemplateSeqEnd
                } else {
                    Kind::CBrace
                };
                self.braces -= 1;
                one(kind)
            }
            b'"' => {
                self.modes.push(Mode::Quoted);
                one(Kind::OQuote)
            }
            b'[' => one(Kind::OBrack),
            b']' => one(Kind::CBrack),
            b'(' => one(Kind::OParen),
            b')' => one(Kind::CParen),
            b'.' => one(Kind::Dot),
            b',' => one(Kind::Comma),
            b'*' => one(Kind::Star),
            b'/' => one(Kind::Slash),
            b'%' => one(Kind::Percent),
            b'+' => one(Kind::Plus),
            b'-' => one(Kind::Minus),
            b'=' => one(Kind::Equal),
            b'<' => one(Kind::LessThan),
            b'>' => one(Kind::GreaterThan),
            b'!' => one(Kind::Bang),
            b'?' => one(Kind::Question),
            b':' => one(Kind::Colon),
            b'&' => one(Kind::BitwiseAnd),
            b'|' => one(Kind::BitwiseOr),
            b'~' => one(Kind::BitwiseNot),
            b'^' => one(Kind::BitwiseXor),
            b';' => one(Kind::Semicolon),
            b'`' => one(Kind::Backtick),
            b'\'' => one(Kind::Apostrophe),
            _ => {
                let c = self.char_at(start).unwrap_or('\u{fffd}');
                if c == '_' || is_id_start(c) {
                    (Kind::Ident, self.ident_end(start + c.len_utf8()))
                } else {
                    (Kind::Invalid, start + c.len_utf8())
                }
            }
        };
        self.token(kind, start, end)
    }

    /// The end of an identifier's continuation characters from `at`.
    fn ident_end(&mut self, mut at: usize) -> usize {
        while let Some(c) = self.char_at(at) {
            if c == '-' || is_id_continue(c) {
                at += c.len_utf8();
                self.steps += 1;
            } else {
                break;
            }
        }
        at
    }

    /// The end of a number from the digit at `start`: digits, `.` and
    /// exponents (`e5`, `E+5`), not ending with `.`.
    fn number_end(&mut self, start: usize) -> usize {
        let mut at = start + 1;
        let mut end = at;
        loop {
            self.steps += 1;
            match self.byte(at) {
                Some(b'0'..=b'9') => {
                    at += 1;
                    end = at;
                }
                Some(b'.') => at += 1,
                Some(b'e' | b'E') => {
                    let digit = match self.byte(at + 1) {
                        Some(b'+' | b'-') => at + 2,
                        _ => at + 1,
                    };
                    if matches!(self.byte(digit), Some(b'0'..=b'9')) {
                        at = digit + 1;
                        end = at;
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        end
    }

    /// A `#` or `//` comment ends after its line break, or at the end.
    fn line_comment_end(&mut self, start: usize) -> usize {
        let end = memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i + 1);
        self.steps += (end - start) as u64;
        end
    }

    /// The end of a `/* */` comment whose text starts at `from`, if it has
    /// one.
    fn comment_end(&mut self, from: usize) -> Option<usize> {
        if self.no_comment_end_from.is_some_and(|none| none <= from) {
            return None;
        }
        let rest = &self.bytes[from..];
        let found = rest.windows(2).position(|w| w == b"*/");
        match found {
            Some(i) => {
                self.steps += i as u64;
                Some(from + i + 2)
            }
            None => {
                self.steps += rest.len() as u64;
                self.no_comment_end_from = Some(from);
                None
            }
        }
    }

    /// `<<`, an optional `-`, an identifier and a line break: the end of
    /// the introducer and the delimiter.
    fn heredoc_intro(&mut self, start: usize) -> Option<(usize, Span)> {
        let mut at = start + 2;
        if self.byte(at) == Some(b'-') {
            at += 1;
        }
        let first = self.char_at(at)?;
        if !(first == '_' || is_id_start(first)) {
            return None;
        }
        let marker_start = at;
        let marker_end = self.ident_end(at + first.len_utf8());
        let end = match (self.byte(marker_end), self.byte(marker_end + 1)) {
            (Some(b'\n'), _) => marker_end + 1,
            (Some(b'\r'), Some(b'\n')) => marker_end + 2,
            _ => return None,
        };
        Some((end, Span::new(marker_start, marker_end)))
    }

    /// `${` or `%{`, with an optional `~`, at `start`: the sequence opens
    /// code.
    fn open_sequence(&mut self, start: usize, kind: Kind) -> Token {
        let end = if self.byte(start + 2) == Some(b'~') {
            start + 3
        } else {
            start + 2
        };
        self.braces += 1;
        self.ret_braces.push(self.braces);
        if let Some(heredoc) = self.heredocs.last_mut() {
            heredoc.start_of_line = false;
        }
        self.modes.push(Mode::Code);
        self.token(kind, start, end)
    }

    /// `$` or `%` in literal text not followed by `{`: `$${` (and `$${~`)
    /// are one escape, anything else leaves the sign alone; `None` at the
    /// end of the text, which no pattern matches.
    fn sign_literal_end(&self, start: usize) -> Option<usize> {
        let sign = self.bytes[start];
        match (self.byte(start + 1), self.byte(start + 2)) {
            (Some(b), Some(b'{')) if b == sign => Some(if self.byte(start + 3) == Some(b'~') {
                start + 4
            } else {
                start + 3
            }),
            (Some(_), _) => Some(start + 1),
            (None, _) => None,
        }
    }

    /// What quoted strings and heredocs scan alike at `start`: the end of
    /// the text, and `${` or `%{`; `None` for anything else.
    fn template_start(&mut self, start: usize) -> Option<Token> {
        let Some(b) = self.byte(start) else {
            return Some(self.token(Kind::Eof, start, start));
        };
        match (b, self.byte(start + 1)) {
            (b'$', Some(b'{')) => Some(self.open_sequence(start, Kind::TemplateInterp)),
            (b'%', Some(b'{')) => Some(self.open_sequence(start, Kind::TemplateControl)),
            _ => None,
        }
    }

    fn quoted(&mut self) -> Token {
        let start = self.pos;
        if let Some(token) = self.template_start(start) {
            return token;
        }
        match self.bytes[start] {
            b'$' | b'%' => match self.sign_literal_end(start) {
                Some(end) => self.token(Kind::QuotedLit, start, end),
                None => self.token(Kind::Invalid, start, start + 1),
            },
            b'"' => {
                self.modes.pop();
                self.token(Kind::CQuote, start, start + 1)
            }
            b'\r' | b'\n' => {
                let mut end = start;
                while let Some(b'\r' | b'\n') = self.byte(end) {
                    end += 1;
                }
                self.token(Kind::QuotedNewline, start, end)
            }
            _ => {
                let mut at = start;
                loop {
                    match self.byte(at) {
                        None | Some(b'$' | b'%' | b'"' | b'\r' | b'\n') => break,
                        Some(b'\\') => match self.char_at(at + 1) {
                            Some(c) if c != '\r' && c != '\n' => at += 1 + c.len_utf8(),
                            _ => break,
                        },
                        Some(_) => {
                            let c = self.char_at(at).unwrap_or('\u{fffd}');
                            at += c.len_utf8();
                        }
                    }
                }
                if at == start {
                    // A `\` before a line break or the end.
                    self.token(Kind::Invalid, start, start + 1)
                } else {
                    self.token(Kind::QuotedLit, start, at)
                }
            }
        }
    }

    fn heredoc(&mut self) -> Token {
        let start = self.pos;
        if let Some(token) = self.template_start(start) {
            return token;
        }
        match self.bytes[start] {
            b'$' | b'%' => {
                return match self.sign_literal_end(start) {
                    Some(end) => {
                        self.set_start_of_line(false);
                        self.token(Kind::StringLit, start, end)
                    }
                    None => self.fail(start),
                };
            }
            _ => {}
        }
        let run = memchr3(b'$', b'%', b'\n', &self.bytes[start..])
            .map_or(self.bytes.len(), |i| start + i);
        // A `\r` ends the run too; only `\r\n` may follow it.
        let run = memchr(b'\r', &self.bytes[start..run]).map_or(run, |i| start + i);
        self.steps += (run - start) as u64;
        let eol = match (self.byte(run), self.byte(run + 1)) {
            (Some(b'\n'), _) => Some(run + 1),
            (Some(b'\r'), Some(b'\n')) => Some(run + 2),
            _ => None,
        };
        match eol {
            Some(end) => self.heredoc_line_end(start, run, end),
            None if run > start => {
                self.set_start_of_line(false);
                self.token(Kind::StringLit, start, run)
            }
            // A `\r` not followed by `\n`.
            None => self.fail(start),
        }
    }

    fn set_start_of_line(&mut self, value: bool) {
        if let Some(heredoc) = self.heredocs.last_mut() {
            heredoc.start_of_line = value;
        }
    }

    /// A heredoc line `start..end` (its line break from `newline`): the
    /// heredoc's end marker, or literal text.
    fn heredoc_line_end(&mut self, start: usize, newline: usize, end: usize) -> Token {
        let Some(heredoc) = self.heredocs.last() else {
            return self.token(Kind::StringLit, start, end);
        };
        if heredoc.start_of_line {
            let marker = &self.text[heredoc.marker.start..heredoc.marker.end];
            if self.text[start..end].trim_matches(char::is_whitespace) == marker {
                // The end marker, then the line break as its own token.
                self.heredocs.pop();
                self.modes.pop();
                let token = self.token(Kind::CHeredoc, start, newline);
                self.pending_newline = Some(Span::new(newline, end));
                return token;
            }
        }
        self.set_start_of_line(true);
        self.token(Kind::StringLit, start, end)
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

fn memchr3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&x| x == a || x == b || x == c)
}
