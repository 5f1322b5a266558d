//! The parser's view of the tokens, as hclsyntax's `peeker`: comments are
//! skipped (a `#` or `//` comment counts as the line break it ends with
//! where line breaks count), and line breaks are skipped inside brackets
//! (a stack of "line breaks count here" settings the parser pushes and
//! pops).
//!
//! Tokens are scanned on demand into a queue. Looking ahead past skipped
//! tokens remembers where it stopped, for either setting, so a run of line
//! breaks is scanned once however often the parser peeks across it.

use std::collections::VecDeque;

use super::error::Errors;
use super::lexer::Lexer;
use super::token::{Kind, Span, Token};

pub(crate) struct Peeker<'t> {
    text: &'t str,
    lexer: Lexer<'t>,
    /// Tokens scanned and not yet read; `queue[0]` has number `front`.
    queue: VecDeque<Token>,
    front: u64,
    /// Where the next token is for each setting (line breaks skipped,
    /// counted), by number, while that token is still ahead.
    next: [Option<u64>; 2],
    newlines: Vec<bool>,
    /// The last answer of `next_token`: for the front and setting it was
    /// asked for.
    last: Option<(u64, bool, u64, Token)>,
    prev: Option<Token>,
    /// Tokens looked at, for the linear-time bound.
    pub(crate) steps: u64,
}

impl<'t> Peeker<'t> {
    pub(crate) fn new(text: &'t str) -> Peeker<'t> {
        Peeker {
            text,
            lexer: Lexer::new(text),
            queue: VecDeque::new(),
            front: 0,
            next: [None, None],
            newlines: vec![true],
            last: None,
            prev: None,
            steps: 0,
        }
    }

    pub(crate) fn text(&self) -> &'t str {
        self.text
    }

    pub(crate) fn lexer_steps(&self) -> u64 {
        self.lexer.steps
    }

    fn including_newlines(&self) -> bool {
        self.newlines.last().copied().unwrap_or(true)
    }

    pub(crate) fn push_newlines(&mut self, include: bool) {
        self.newlines.push(include);
    }

    pub(crate) fn pop_newlines(&mut self) {
        self.newlines.pop();
    }

    /// Token number `n` (at or after the front), scanning as needed; the
    /// scanner's errors go to `errors`.
    fn at(&mut self, n: u64, errors: &mut Errors) -> Token {
        let i = (n - self.front) as usize;
        while self.queue.len() <= i {
            let token = self.lexer.next_token();
            check_token(self.text, token, errors);
            self.queue.push_back(token);
            if token.kind == Kind::Eof {
                break;
            }
        }
        match self.queue.get(i) {
            Some(token) => *token,
            None => self.queue.back().copied().expect("the queue ends with Eof"),
        }
    }

    /// The next token for the current setting: its number, and the token
    /// (a line comment seen as its line break where those count).
    fn next_token(&mut self, errors: &mut Errors) -> (u64, Token) {
        let include = self.including_newlines();
        if let Some((front, setting, n, token)) = self.last
            && front == self.front
            && setting == include
        {
            self.steps += 1;
            return (n, token);
        }
        let (n, token) = self.scan_next(include, errors);
        self.last = Some((self.front, include, n, token));
        (n, token)
    }

    fn scan_next(&mut self, include: bool, errors: &mut Errors) -> (u64, Token) {
        let slot = usize::from(include);
        let mut n = match self.next[slot] {
            Some(n) if n >= self.front => n,
            _ => self.front,
        };
        loop {
            self.steps += 1;
            let token = self.at(n, errors);
            let skip = match token.kind {
                Kind::Comment => {
                    if include && token.text(self.text).ends_with('\n') {
                        self.next[slot] = Some(n);
                        return (n, newline_of(token));
                    }
                    true
                }
                Kind::Newline => !include,
                Kind::Eof => false,
                _ => false,
            };
            if !skip || token.kind == Kind::Eof {
                self.next[slot] = Some(n);
                return (n, token);
            }
            n += 1;
        }
    }

    pub(crate) fn peek(&mut self, errors: &mut Errors) -> Token {
        self.next_token(errors).1
    }

    pub(crate) fn read(&mut self, errors: &mut Errors) -> Token {
        let (n, token) = self.next_token(errors);
        if token.kind != Kind::Eof {
            let consumed = n + 1 - self.front;
            for _ in 0..consumed {
                self.queue.pop_front();
            }
            self.front = n + 1;
        }
        self.prev = Some(token);
        token
    }

    /// The range of the last token read (or of the next one, when none was
    /// read yet), as `PrevRange`.
    pub(crate) fn prev_span(&mut self, errors: &mut Errors) -> Span {
        match self.prev {
            Some(token) => token.span,
            None => self.peek(errors).span,
        }
    }
}

fn newline_of(comment: Token) -> Token {
    Token {
        kind: Kind::Newline,
        span: comment.span,
    }
}

/// hclsyntax's `checkInvalidTokens`: tokens that are never valid. Only the
/// first error of each kind can be the one shown, so hclsyntax's limits on
/// repeats do not matter here.
fn check_token(text: &str, token: Token, errors: &mut Errors) {
    let (summary, detail) = match token.kind {
        Kind::BitwiseAnd => (
            "Unsupported operator",
            "Bitwise operators are not supported. Did you mean boolean AND (\"&&\")?",
        ),
        Kind::BitwiseOr => (
            "Unsupported operator",
            "Bitwise operators are not supported. Did you mean boolean OR (\"||\")?",
        ),
        Kind::BitwiseNot => (
            "Unsupported operator",
            "Bitwise operators are not supported. Did you mean boolean NOT (\"!\")?",
        ),
        Kind::BitwiseXor => (
            "Unsupported operator",
            "Bitwise operators are not supported.",
        ),
        Kind::Backtick => (
            "Invalid character",
            "The \"`\" character is not valid. To create a multi-line string, use the \"heredoc\" syntax, like \"<<EOT\".",
        ),
        Kind::Apostrophe => (
            "Invalid character",
            "Single quotes are not valid. Use double quotes (\") to enclose strings.",
        ),
        Kind::Semicolon => (
            "Invalid character",
            "The \";\" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.",
        ),
        Kind::QuotedNewline => (
            "Invalid multi-line string",
            "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
        ),
        Kind::Invalid => match token.text(text) {
            "\u{201c}" | "\u{201d}" => (
                "Invalid character",
                "\"Curly quotes\" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a \"straight quote\".",
            ),
            _ => (
                "Invalid character",
                "This character is not used within the language.",
            ),
        },
        _ => return,
    };
    errors.lexical(summary, detail, token.span);
}
