//! HCL 1, the syntax the CLI configuration is written in (docs/behaviour.md,
//! CFG-12): a small reader of its native syntax and of its JSON syntax into
//! one tree of items with their positions, as the `provider_installation`
//! block needs them (object keys may be quoted strings, items may repeat,
//! positions are `line:column` as HCL 1 counts them), and the JSON
//! flattening HCL 1 applies (INST-2).
//!
//! The rest of the configuration is read with `hcl-edit` (HCL 2 syntax);
//! this reader also takes over a file `hcl-edit` refuses, when HCL 1 reads
//! it (CFG-12).

use std::fmt;

use serde_json::Number;
use tfdisco_core::go_quote;

use crate::literal::Lit;

/// A position: line and column from 1, the column counted in characters,
/// as HCL 1 counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One key of an item: its text (unquoted) and where it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Key {
    pub(crate) text: String,
    /// The token as written (with its quotes, for a string).
    pub(crate) raw: String,
    pub(crate) pos: Pos,
}

/// An item: `key key … = value` or `key key … { … }`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Item {
    pub(crate) keys: Vec<Key>,
    /// Written with `=` (JSON: always).
    pub(crate) assign: bool,
    pub(crate) value: Node,
}

impl Item {
    /// Where the item is: its first key's position.
    pub(crate) fn pos(&self) -> Pos {
        self.keys.first().map(|k| k.pos).unwrap_or_default()
    }
}

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    Literal(Literal, Pos),
    List(Vec<Node>, Pos),
    /// An object and the position of its `{`.
    Object(Vec<Item>, Pos),
}

impl Node {
    #[cfg(test)]
    pub(crate) fn pos(&self) -> Pos {
        match self {
            Node::Literal(_, p) | Node::List(_, p) | Node::Object(_, p) => *p,
        }
    }

    /// What HCL 1 calls the node, for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Node::Literal(Literal::String(_) | Literal::Heredoc(_), _) => "a string",
            Node::Literal(Literal::Number(_), _) => "a number",
            Node::Literal(Literal::Bool(_), _) => "a bool",
            Node::Literal(Literal::Null, _) => "null",
            Node::List(..) => "a list",
            Node::Object(..) => "an object",
        }
    }

    /// The node as a literal value (objects keyed as HCL 1 nests keys).
    pub(crate) fn to_lit(&self) -> Lit {
        match self {
            Node::Literal(Literal::String(s) | Literal::Heredoc(s), _) => Lit::String(s.clone()),
            Node::Literal(Literal::Number(n), _) => number(n).map_or(Lit::Null, Lit::Number),
            Node::Literal(Literal::Bool(b), _) => Lit::Bool(*b),
            Node::Literal(Literal::Null, _) => Lit::Null,
            Node::List(items, _) => Lit::Array(items.iter().map(Node::to_lit).collect()),
            Node::Object(items, _) => Lit::Object(items.iter().map(Item::to_entry).collect()),
        }
    }
}

impl Item {
    /// `a "b" "c" = v` as the object entry `a: {b: {c: v}}`.
    pub(crate) fn to_entry(&self) -> (String, Lit) {
        let mut value = self.value.to_lit();
        for key in self.keys[1..].iter().rev() {
            value = Lit::Object(vec![(key.text.clone(), value)]);
        }
        (self.keys[0].text.clone(), value)
    }
}

fn number(text: &str) -> Option<Number> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok().map(Number::from);
    }
    if let Some(hex) = text
        .strip_prefix("-0x")
        .or_else(|| text.strip_prefix("-0X"))
    {
        return i64::from_str_radix(hex, 16)
            .ok()
            .and_then(i64::checked_neg)
            .map(Number::from);
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(u.into());
    }
    if let Ok(i) = text.parse::<i64>() {
        return Some(i.into());
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}

/// A literal: strings unquoted (escapes read, `${…}` kept as written).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Literal {
    String(String),
    Heredoc(String),
    /// A number as written.
    Number(String),
    Bool(bool),
    /// JSON's `null`.
    Null,
}

impl Literal {
    /// The text HCL 1 decodes into a string: strings as they are, numbers
    /// and bools as written.
    pub(crate) fn as_text(&self) -> Option<String> {
        match self {
            Literal::String(s) | Literal::Heredoc(s) | Literal::Number(s) => Some(s.clone()),
            Literal::Bool(b) => Some(b.to_string()),
            Literal::Null => None,
        }
    }

    /// Go's `strconv.ParseBool`, as HCL 1 decodes a string into a bool.
    pub(crate) fn parse_bool(text: &str) -> Option<bool> {
        match text {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
            "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
            _ => None,
        }
    }
}

/// The last of `items` whose first key is `name`, compared without case,
/// as HCL 1's decoder picks the item that sets a field.
pub(crate) fn last_named<'a>(
    items: impl DoubleEndedIterator<Item = &'a Item>,
    name: &str,
) -> Option<&'a Item> {
    items
        .rev()
        .find(|i| i.keys[0].text.eq_ignore_ascii_case(name))
}

/// A list's items as HCL 1 decodes them into a list of strings (see
/// [`Literal::as_text`]); `None` when one is not a string, number or bool.
pub(crate) fn strings(items: &[Node]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|i| match i {
            Node::Literal(lit, _) => lit.as_text(),
            _ => None,
        })
        .collect()
}

/// Why the text is not HCL 1, and where. The message names the kind of
/// token at fault, as Go's HCL 1 parser does, never its text: a token may
/// be a secret, or a piece of one that broken syntax cut out of a string
/// (docs/behaviour.md, CFG-13). Only a key of an item that was read whole
/// (OpenTofu's argument set twice) is named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// Where, unless the message says it.
    pub(crate) pos: Option<Pos>,
    pub(crate) message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(pos) => write!(f, "At {pos}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// How deep lists and objects may nest: deeper text is refused (HCL 1 has
/// no limit; nothing real comes near it).
const MAX_DEPTH: usize = 64;

/// Reads HCL 1 native syntax. `unique_arguments`: refuse an argument set
/// twice in one object, as OpenTofu's HCL 1 does (INST-2).
pub(crate) fn parse(text: &str, unique_arguments: bool) -> Result<Vec<Item>, SyntaxError> {
    let tokens = lex(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        unique_arguments,
        depth: 0,
    };
    parser.object_list(false)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A quoted string: its value and its text as written.
    Str(String, String),
    Heredoc(String),
    Number(String),
    Bool(bool),
    LBrace,
    RBrace,
    LBrack,
    RBrack,
    Comma,
    Assign,
    Eof,
}

impl Tok {
    /// The token's type as Go's HCL 1 names it in messages; never its text.
    fn name(&self) -> &'static str {
        match self {
            Tok::Ident(_) => "IDENT",
            Tok::Str(..) => "STRING",
            Tok::Heredoc(_) => "HEREDOC",
            Tok::Number(n) if is_float(n) => "FLOAT",
            Tok::Number(_) => "NUMBER",
            Tok::Bool(_) => "BOOL",
            Tok::LBrace => "LBRACE",
            Tok::RBrace => "RBRACE",
            Tok::LBrack => "LBRACK",
            Tok::RBrack => "RBRACK",
            Tok::Comma => "COMMA",
            Tok::Assign => "ASSIGN",
            Tok::Eof => "EOF",
        }
    }
}

/// A number with a fraction or an exponent, which Go's HCL 1 calls a FLOAT.
fn is_float(n: &str) -> bool {
    let digits = n.strip_prefix('-').unwrap_or(n);
    !digits.starts_with("0x") && !digits.starts_with("0X") && digits.contains(['.', 'e', 'E'])
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    line: usize,
    column: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            chars: text.char_indices().peekable(),
            text,
            line: 1,
            column: 0,
        }
    }

    /// Every token of the text, each read by `token` from its first
    /// character and position (`None` for a comment), then `eof`. White
    /// space between tokens is skipped.
    fn tokens<T>(
        mut self,
        eof: T,
        token: fn(&mut Lexer<'a>, char, Pos) -> Result<Option<T>, SyntaxError>,
    ) -> Result<Vec<(T, Pos)>, SyntaxError> {
        let mut tokens = Vec::new();
        loop {
            while self.peek().is_some_and(char::is_whitespace) {
                self.next();
            }
            let pos = self.pos();
            let Some(c) = self.peek() else {
                tokens.push((eof, pos));
                return Ok(tokens);
            };
            if let Some(tok) = token(&mut self, c, pos)? {
                tokens.push((tok, pos));
            }
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column + 1,
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn peek2(&self) -> Option<char> {
        let mut it = self.chars.clone();
        it.next();
        it.next().map(|(_, c)| c)
    }

    fn offset(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |&(i, _)| i)
    }

    fn next(&mut self) -> Option<char> {
        let (_, c) = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
        Some(c)
    }
}

fn err<T>(pos: Pos, message: impl Into<String>) -> Result<T, SyntaxError> {
    Err(SyntaxError {
        pos: Some(pos),
        message: message.into(),
    })
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '.'
}

fn lex(text: &str) -> Result<Vec<(Tok, Pos)>, SyntaxError> {
    Lexer::new(text).tokens(Tok::Eof, hcl_token)
}

/// The HCL 1 token starting with `c` at `pos`; `None` for a comment.
fn hcl_token(lx: &mut Lexer<'_>, c: char, pos: Pos) -> Result<Option<Tok>, SyntaxError> {
    let tok = match c {
        '#' => {
            skip_line(lx);
            return Ok(None);
        }
        '/' if lx.peek2() == Some('/') => {
            skip_line(lx);
            return Ok(None);
        }
        '/' if lx.peek2() == Some('*') => {
            lx.next();
            lx.next();
            loop {
                match lx.next() {
                    None => return err(pos, "comment not terminated"),
                    Some('*') if lx.peek() == Some('/') => {
                        lx.next();
                        break;
                    }
                    Some(_) => {}
                }
            }
            return Ok(None);
        }
        '{' | '}' | '[' | ']' | ',' | '=' => {
            lx.next();
            match c {
                '{' => Tok::LBrace,
                '}' => Tok::RBrace,
                '[' => Tok::LBrack,
                ']' => Tok::RBrack,
                ',' => Tok::Comma,
                _ => Tok::Assign,
            }
        }
        '"' => string(lx, pos)?,
        '<' if lx.peek2() == Some('<') => heredoc(lx, pos)?,
        c if c.is_ascii_digit() || (c == '-' && lx.peek2().is_some_and(|d| d.is_ascii_digit())) => {
            let start = lx.offset();
            lx.next();
            while lx
                .peek()
                .is_some_and(|d| d.is_ascii_alphanumeric() || d == '.')
                || (lx.peek().is_some_and(|d| d == '+' || d == '-')
                    && lx.text[start..lx.offset()].ends_with(['e', 'E']))
            {
                lx.next();
            }
            let end = lx.offset();
            let word = &lx.text[start..end];
            if number(word).is_none() {
                return err(pos, "invalid number");
            }
            Tok::Number(word.to_owned())
        }
        c if is_ident_start(c) => {
            let start = lx.offset();
            while lx.peek().is_some_and(is_ident) {
                lx.next();
            }
            let end = lx.offset();
            match &lx.text[start..end] {
                "true" => Tok::Bool(true),
                "false" => Tok::Bool(false),
                word => Tok::Ident(word.to_owned()),
            }
        }
        _ => return err(pos, "illegal char"),
    };
    Ok(Some(tok))
}

fn skip_line(lx: &mut Lexer<'_>) {
    while lx.peek().is_some_and(|c| c != '\n') {
        lx.next();
    }
}

/// A quoted string: up to the closing quote outside `${…}`, not across a
/// line end outside `${…}`.
fn string(lx: &mut Lexer<'_>, pos: Pos) -> Result<Tok, SyntaxError> {
    let start = lx.offset();
    lx.next();
    let mut braces = 0usize;
    loop {
        let Some(c) = lx.next() else {
            return err(pos, "literal not terminated");
        };
        match c {
            '\n' if braces == 0 => return err(pos, "literal not terminated"),
            '"' if braces == 0 => break,
            '$' if braces == 0 && lx.peek() == Some('{') => {
                lx.next();
                braces += 1;
            }
            '{' if braces > 0 => braces += 1,
            '}' if braces > 0 => braces -= 1,
            '\\' if lx.next().is_none() => return err(pos, "literal not terminated"),
            _ => {}
        }
    }
    let raw = &lx.text[start..lx.offset()];
    let value = unquote(&raw[1..raw.len() - 1]).ok_or(SyntaxError {
        pos: Some(pos),
        message: "illegal char escape in a string".to_owned(),
    })?;
    Ok(Tok::Str(value, raw.to_owned()))
}

/// The value of a quoted string's inside: escapes read outside `${…}`,
/// which is kept as written.
fn unquote(inside: &str) -> Option<String> {
    let mut out = String::with_capacity(inside.len());
    let mut chars = inside.chars().peekable();
    let mut braces = 0usize;
    while let Some(c) = chars.next() {
        if braces > 0 {
            match c {
                '{' => braces += 1,
                '}' => braces -= 1,
                _ => {}
            }
            out.push(c);
            continue;
        }
        match c {
            '$' if chars.peek() == Some(&'{') => {
                chars.next();
                braces = 1;
                out.push_str("${");
            }
            '\\' => {
                let e = chars.next()?;
                match e {
                    'a' => out.push('\x07'),
                    'b' => out.push('\x08'),
                    'f' => out.push('\x0c'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'v' => out.push('\x0b'),
                    '\\' | '"' | '\'' => out.push(e),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let digits: String = (0..n).filter_map(|_| chars.next()).collect();
                        let code = u32::from_str_radix(&digits, 16).ok()?;
                        if digits.len() != n {
                            return None;
                        }
                        out.push(char::from_u32(code)?);
                    }
                    '0'..='7' => {
                        let mut code = e.to_digit(8)?;
                        for _ in 0..2 {
                            code = code * 8 + chars.next()?.to_digit(8)?;
                        }
                        out.push(char::from_u32(code)?);
                    }
                    _ => return None,
                }
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// `<<ANCHOR` or `<<-ANCHOR`, a line end, lines, and a line holding only
/// the anchor; `<<-` takes the lines' common indentation off.
fn heredoc(lx: &mut Lexer<'_>, pos: Pos) -> Result<Tok, SyntaxError> {
    lx.next();
    lx.next();
    let indented = lx.peek() == Some('-');
    if indented {
        lx.next();
    }
    let start = lx.offset();
    while lx.peek().is_some_and(is_ident) {
        lx.next();
    }
    let anchor = lx.text[start..lx.offset()].to_owned();
    if anchor.is_empty() || lx.peek().is_some_and(|c| c != '\n' && c != '\r') {
        return err(pos, "zero-length heredoc anchor");
    }
    skip_line(lx);
    lx.next();
    let mut lines = Vec::new();
    loop {
        if lx.peek().is_none() {
            return err(pos, "heredoc not terminated");
        }
        let start = lx.offset();
        skip_line(lx);
        let line = lx.text[start..lx.offset()].trim_end_matches('\r');
        lx.next();
        if line.trim() == anchor {
            break;
        }
        lines.push(line);
    }
    let indent = if indented {
        lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0)
    } else {
        0
    };
    let mut value = String::new();
    for line in lines {
        value.push_str(line.get(indent..).unwrap_or_else(|| line.trim_start()));
        value.push('\n');
    }
    Ok(Tok::Heredoc(value))
}

struct Parser {
    tokens: Vec<(Tok, Pos)>,
    at: usize,
    unique_arguments: bool,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &(Tok, Pos) {
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> (Tok, Pos) {
        let tok = self.peek().clone();
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        tok
    }

    fn deeper(&mut self, pos: Pos) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(pos, format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }

    /// Items up to the end of the text, or (in an object) up to `}`.
    fn object_list(&mut self, in_object: bool) -> Result<Vec<Item>, SyntaxError> {
        let mut items: Vec<Item> = Vec::new();
        loop {
            match self.peek().0 {
                Tok::Eof if !in_object => return Ok(items),
                Tok::RBrace if in_object => return Ok(items),
                _ => {}
            }
            let item = self.object_item()?;
            if self.unique_arguments
                && item.assign
                && let Some(key) = item.keys.first()
                && items
                    .iter()
                    .any(|seen| seen.assign && seen.keys.first().is_some_and(|k| k.raw == key.raw))
            {
                return err(
                    key.pos,
                    format!(
                        "The argument {} at {} was already set. Each argument can only be \
                         defined once",
                        go_quote(&key.raw),
                        key.pos
                    ),
                )
                .map_err(|mut e: SyntaxError| {
                    // OpenTofu's HCL 1 says where in the message.
                    e.pos = None;
                    e
                });
            }
            items.push(item);
            if self.peek().0 == Tok::Comma {
                self.next();
            }
        }
    }

    fn object_item(&mut self) -> Result<Item, SyntaxError> {
        let mut keys = Vec::new();
        loop {
            let (tok, pos) = self.next();
            match tok {
                Tok::Ident(text) => keys.push(Key {
                    raw: text.clone(),
                    text,
                    pos,
                }),
                Tok::Str(text, raw) => keys.push(Key { text, raw, pos }),
                Tok::Assign if keys.len() == 1 => {
                    let value = self.value()?;
                    return Ok(Item {
                        keys,
                        assign: true,
                        value,
                    });
                }
                Tok::Assign if keys.len() > 1 => {
                    return err(pos, "nested object expected: LBRACE got: ASSIGN");
                }
                Tok::LBrace if !keys.is_empty() => {
                    let value = self.object(pos)?;
                    return Ok(Item {
                        keys,
                        assign: false,
                        value,
                    });
                }
                Tok::Eof if !keys.is_empty() => {
                    // Go names the keys; they are not named here, since
                    // with broken syntax a value can be read as a key.
                    return err(
                        pos,
                        format!(
                            "key at {} expected start of object ('{{') or assignment ('=')",
                            keys[0].pos
                        ),
                    );
                }
                other => {
                    return err(
                        pos,
                        format!(
                            "expected: IDENT | STRING | ASSIGN | LBRACE got: {}",
                            other.name()
                        ),
                    );
                }
            }
        }
    }

    /// An object after its `{`.
    fn object(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        self.deeper(open)?;
        let items = self.object_list(true)?;
        let (tok, pos) = self.next();
        if tok != Tok::RBrace {
            return err(
                pos,
                format!("object expected closing RBRACE got: {}", tok.name()),
            );
        }
        self.depth -= 1;
        Ok(Node::Object(items, open))
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let (tok, pos) = self.next();
        match tok {
            Tok::LBrace => self.object(pos),
            Tok::LBrack => self.list(pos),
            other => match literal(other) {
                Ok(lit) => Ok(Node::Literal(lit, pos)),
                Err(other) => err(pos, format!("Unknown token: {}", other.name())),
            },
        }
    }

    /// A list after its `[`.
    fn list(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        self.deeper(open)?;
        let mut items = Vec::new();
        let mut need_comma = false;
        loop {
            let (tok, pos) = self.next();
            if need_comma && !matches!(tok, Tok::Comma | Tok::RBrack) {
                return err(
                    pos,
                    format!(
                        "error parsing list, expected comma or list end, got: {}",
                        tok.name()
                    ),
                );
            }
            match tok {
                Tok::RBrack => break,
                Tok::Comma if need_comma => need_comma = false,
                Tok::LBrace => {
                    items.push(self.object(pos)?);
                    need_comma = true;
                }
                Tok::LBrack => {
                    items.push(self.list(pos)?);
                    need_comma = true;
                }
                other => match literal(other) {
                    Ok(lit) => {
                        items.push(Node::Literal(lit, pos));
                        need_comma = true;
                    }
                    Err(other) => {
                        return err(
                            pos,
                            format!("unexpected token while parsing list: {}", other.name()),
                        );
                    }
                },
            }
        }
        self.depth -= 1;
        Ok(Node::List(items, open))
    }
}

fn literal(tok: Tok) -> Result<Literal, Tok> {
    match tok {
        Tok::Str(s, _) => Ok(Literal::String(s)),
        Tok::Heredoc(s) => Ok(Literal::Heredoc(s)),
        Tok::Number(n) => Ok(Literal::Number(n)),
        Tok::Bool(b) => Ok(Literal::Bool(b)),
        other => Err(other),
    }
}

/// Reads JSON into the same tree (every member an item with one key and
/// `=`), then flattens it as HCL 1's JSON parser does (INST-2): a member
/// whose value is a non-empty object of objects becomes one item per inner
/// member, with both keys; one whose value is a non-empty list of objects
/// becomes one item per element; at every level, the outer first.
/// `text` must be valid JSON (read with `serde_json` first).
pub(crate) fn parse_json(text: &str) -> Result<Vec<Item>, SyntaxError> {
    let tokens = json_lex(text)?;
    let mut parser = JsonParser {
        tokens,
        at: 0,
        depth: 0,
    };
    let (tok, pos) = parser.next();
    if tok != JTok::LBrace {
        return err(pos, "the top level is not an object");
    }
    let Node::Object(items, _) = parser.object(pos)? else {
        unreachable!("an object")
    };
    Ok(flatten_items(items))
}

fn flatten_items(items: Vec<Item>) -> Vec<Item> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        expand(item, &mut out);
    }
    for item in &mut out {
        flatten_node(&mut item.value);
    }
    out
}

fn flatten_node(node: &mut Node) {
    match node {
        Node::Object(items, _) => *items = flatten_items(std::mem::take(items)),
        Node::List(elements, _) => elements.iter_mut().for_each(flatten_node),
        Node::Literal(..) => {}
    }
}

fn expand(item: Item, out: &mut Vec<Item>) {
    match item.value {
        Node::Object(inner, _)
            if !inner.is_empty() && inner.iter().all(|i| matches!(i.value, Node::Object(..))) =>
        {
            for sub in inner {
                let mut keys = item.keys.clone();
                keys.extend(sub.keys);
                expand(
                    Item {
                        keys,
                        assign: item.assign,
                        value: sub.value,
                    },
                    out,
                );
            }
        }
        Node::List(elements, _)
            if !elements.is_empty() && elements.iter().all(|e| matches!(e, Node::Object(..))) =>
        {
            for element in elements {
                expand(
                    Item {
                        keys: item.keys.clone(),
                        assign: item.assign,
                        value: element,
                    },
                    out,
                );
            }
        }
        value => out.push(Item { value, ..item }),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum JTok {
    LBrace,
    RBrace,
    LBrack,
    RBrack,
    Colon,
    Comma,
    Str(String, String),
    Number(String),
    Bool(bool),
    Null,
    Eof,
}

fn json_lex(text: &str) -> Result<Vec<(JTok, Pos)>, SyntaxError> {
    Lexer::new(text).tokens(JTok::Eof, json_token)
}

/// The JSON token starting with `c` at `pos`.
fn json_token(lx: &mut Lexer<'_>, c: char, pos: Pos) -> Result<Option<JTok>, SyntaxError> {
    let tok = match c {
        '{' | '}' | '[' | ']' | ':' | ',' => {
            lx.next();
            match c {
                '{' => JTok::LBrace,
                '}' => JTok::RBrace,
                '[' => JTok::LBrack,
                ']' => JTok::RBrack,
                ':' => JTok::Colon,
                _ => JTok::Comma,
            }
        }
        '"' => {
            let start = lx.offset();
            lx.next();
            loop {
                match lx.next() {
                    None => return err(pos, "literal not terminated"),
                    Some('"') => break,
                    Some('\\') => {
                        lx.next();
                    }
                    Some(_) => {}
                }
            }
            let raw = &lx.text[start..lx.offset()];
            // Not serde_json's message, whose position counts from the
            // string's start: the token's own position says where.
            let value: String = serde_json::from_str(raw).map_err(|_| SyntaxError {
                pos: Some(pos),
                message: "invalid string literal".to_owned(),
            })?;
            JTok::Str(value, raw.to_owned())
        }
        _ => {
            let start = lx.offset();
            while lx
                .peek()
                .is_some_and(|d| d.is_ascii_alphanumeric() || matches!(d, '.' | '-' | '+'))
            {
                lx.next();
            }
            match &lx.text[start..lx.offset()] {
                "true" => JTok::Bool(true),
                "false" => JTok::Bool(false),
                "null" => JTok::Null,
                "" => return err(pos, "illegal char"),
                word => JTok::Number(word.to_owned()),
            }
        }
    };
    Ok(Some(tok))
}

struct JsonParser {
    tokens: Vec<(JTok, Pos)>,
    at: usize,
    depth: usize,
}

impl JsonParser {
    fn next(&mut self) -> (JTok, Pos) {
        let tok = self.tokens[self.at.min(self.tokens.len() - 1)].clone();
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        tok
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let (tok, pos) = self.next();
        Ok(match tok {
            JTok::LBrace => self.object(pos)?,
            JTok::LBrack => {
                self.depth += 1;
                if self.depth > MAX_DEPTH * 2 {
                    return err(pos, "nested too deep");
                }
                let mut items = Vec::new();
                loop {
                    if self.tokens[self.at.min(self.tokens.len() - 1)].0 == JTok::RBrack {
                        self.next();
                        break;
                    }
                    items.push(self.value()?);
                    match self.next() {
                        (JTok::Comma, _) => {}
                        (JTok::RBrack, _) => break,
                        (_, at) => return err(at, "expected comma or list end"),
                    }
                }
                self.depth -= 1;
                Node::List(items, pos)
            }
            JTok::Str(s, _) => Node::Literal(Literal::String(s), pos),
            JTok::Number(n) => Node::Literal(Literal::Number(n), pos),
            JTok::Bool(b) => Node::Literal(Literal::Bool(b), pos),
            JTok::Null => Node::Literal(Literal::Null, pos),
            _ => return err(pos, "unexpected token"),
        })
    }

    /// An object after its `{`.
    fn object(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH * 2 {
            return err(open, "nested too deep");
        }
        let mut items = Vec::new();
        loop {
            let (tok, pos) = self.next();
            let (text, raw) = match tok {
                JTok::RBrace if items.is_empty() => break,
                JTok::Str(text, raw) => (text, raw),
                _ => return err(pos, "expected a member name"),
            };
            if self.next().0 != JTok::Colon {
                return err(pos, "expected a colon");
            }
            let value = self.value()?;
            items.push(Item {
                keys: vec![Key { text, raw, pos }],
                assign: true,
                value,
            });
            match self.next() {
                (JTok::Comma, _) => {}
                (JTok::RBrace, _) => break,
                (_, at) => return err(at, "expected comma or object end"),
            }
        }
        self.depth -= 1;
        Ok(Node::Object(items, open))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(item: &Item) -> Vec<&str> {
        item.keys.iter().map(|k| k.text.as_str()).collect()
    }

    #[test]
    fn native_syntax_with_positions_and_quoted_keys() {
        let text = "provider_installation {\n  dev_overrides {\n    \"hashicorp/boop\" = \"/tmp/bloop/../boop\"\n  }\n  direct \"what\" {}\n  x = [1, \"a\", {b = true},]\n}\n";
        let items = parse(text, false).expect("HCL 1");
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].pos(), Pos { line: 1, column: 1 });
        let Node::Object(methods, open) = &items[0].value else {
            panic!()
        };
        assert_eq!(
            *open,
            Pos {
                line: 1,
                column: 23
            }
        );
        assert_eq!(keys(&methods[0]), ["dev_overrides"]);
        assert_eq!(methods[0].pos(), Pos { line: 2, column: 3 });
        let Node::Object(overrides, _) = &methods[0].value else {
            panic!()
        };
        assert_eq!(overrides[0].keys[0].raw, "\"hashicorp/boop\"");
        assert_eq!(overrides[0].keys[0].text, "hashicorp/boop");
        assert_eq!(keys(&methods[1]), ["direct", "what"]);
        assert!(methods[2].assign);
        assert_eq!(
            methods[2].value.to_lit(),
            Lit::Array(vec![
                Lit::Number(1.into()),
                Lit::String("a".into()),
                Lit::Object(vec![("b".into(), Lit::Bool(true))])
            ])
        );
    }

    #[test]
    fn strings_comments_and_heredocs() {
        let text = "# c\n// c\n/* c\n */ a = \"x\\ty ${\"q\"} \\u00e9\" b = <<-EOT\n    one\n      two\n    EOT\nc = -1.5e3\n";
        let items = parse(text, false).expect("HCL 1");
        let lit: Vec<Lit> = items.iter().map(|i| i.value.to_lit()).collect();
        assert_eq!(lit[0], Lit::String("x\ty ${\"q\"} é".into()));
        assert_eq!(lit[1], Lit::String("one\n  two\n".into()));
        assert_eq!(items[2].pos(), Pos { line: 8, column: 1 });
        assert!(matches!(&items[2].value, Node::Literal(Literal::Number(n), _) if n == "-1.5e3"));
        assert!(parse("a = \"x\ny\"", false).is_err());
        assert!(parse("a = b", false).is_err());
        assert!(parse("a b = 1", false).is_err());
        assert!(parse("a = [1 2]", false).is_err());
        assert!(parse(&"a = [".repeat(100), false).is_err());
    }

    #[test]
    fn opentofus_hcl_refuses_an_argument_set_twice() {
        let text = "a {\n  \"k\" = 1\n  \"k\" = 2\n}\n";
        assert!(parse(text, false).is_ok());
        let e = parse(text, true).expect_err("refused");
        assert_eq!(
            e.message,
            r#"The argument "\"k\"" at 3:3 was already set. Each argument can only be defined once"#
        );
        // Blocks may repeat.
        assert!(parse("a {}\na {}\n", true).is_ok());
    }

    /// The text cut at every byte, without each character, and with each of
    /// a few characters inserted at every place.
    fn mutations(doc: &str) -> Vec<String> {
        let mut out: Vec<String> = (0..doc.len()).map(|end| doc[..end].to_owned()).collect();
        out.extend((0..doc.len()).map(|at| format!("{}{}", &doc[..at], &doc[at + 1..])));
        for insert in ["\"", "{", "}", "=", "\n", "\\", "$", "<<", ",", "["] {
            out.extend((0..=doc.len()).map(|at| format!("{}{insert}{}", &doc[..at], &doc[at..])));
        }
        out
    }

    /// Messages say what kind of token is wrong and where, never a piece of
    /// a value (docs/behaviour.md, CFG-13).
    #[test]
    fn no_message_holds_a_piece_of_a_value() {
        const TOKEN: &str = "Q7wErT9yUi3oPaS5dFgH2jKl";
        let pieces: Vec<String> = TOKEN
            .to_lowercase()
            .as_bytes()
            .windows(8)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        let native = [
            "credentials \"app.terraform.io\" {\n  token = \"@T@\"\n}\n",
            "credentials \"app.terraform.io\" { token = \"9@T@\" }\n",
            "credentials \"app.terraform.io\" {\n  token = <<EOT\n@T@\nEOT\n}\n",
            "oci_credentials \"ghcr.io\" {\n  username = \"me\"\n  password = \"@T@\"\n}\n",
            "credentials_helper \"x\" {\n  args = [\"--token\", \"@T@\"]\n}\n",
        ];
        let json = [
            r#"{"credentials": {"app.terraform.io": {"token": "@T@"}}}"#,
            r#"{"oci_credentials": {"ghcr.io": {"password": ["@T@"]}}}"#,
        ];
        let mut failed = 0;
        let mut leaks = Vec::new();
        let mut check = |input: &str, result: Result<Vec<Item>, SyntaxError>| {
            let Err(e) = result else { return };
            failed += 1;
            for text in [e.to_string(), format!("{e:?}")] {
                let lower = text.to_lowercase();
                if pieces.iter().any(|p| lower.contains(p.as_str())) {
                    leaks.push(format!("{input:?}: {text}"));
                }
            }
        };
        for doc in native {
            for input in mutations(&doc.replace("@T@", TOKEN)) {
                check(&input, parse(&input, false));
                check(&input, parse(&input, true));
            }
        }
        for doc in json {
            for input in mutations(&doc.replace("@T@", TOKEN)) {
                check(&input, parse_json(&input));
            }
        }
        // The unquoted token, a second string, a token where a key goes.
        for doc in [
            "a = @T@\n",
            "a = 9@T@\n",
            "a = \"x\" \"@T@\"\n",
            "a { \"@T@\" }\n",
            "a = [\"x\" \"@T@\"]\n",
            "a = \"@T@\\q\"\n",
        ] {
            let input = doc.replace("@T@", TOKEN);
            check(&input, parse(&input, true));
        }
        assert!(failed > 5000, "only {failed} inputs failed");
        assert!(
            leaks.is_empty(),
            "{} leaks, such as:\n{}",
            leaks.len(),
            leaks[..leaks.len().min(20)].join("\n")
        );
    }

    #[test]
    fn json_is_flattened_as_hcl_1_flattens_it() {
        let items = parse_json(r#"{"a": {"direct": {}}, "b": {"x": {"y": 1}}, "c": [{"d": 1}, {"e": 2}], "f": {"g": [], "h": 1}}"#)
            .expect("JSON");
        let shown: Vec<Vec<&str>> = items.iter().map(keys).collect();
        assert_eq!(
            shown,
            [
                vec!["a", "direct"],
                vec!["b", "x"],
                vec!["c"],
                vec!["c"],
                vec!["f"]
            ]
        );
        assert_eq!(items[0].value, Node::Object(vec![], items[0].value.pos()));
        assert_eq!(items[0].pos(), Pos { line: 1, column: 2 });
    }
}
