//! A one-pass check of a CLI configuration file's HCL text before the HCL
//! parser sees it (docs/behaviour.md, CFG-9). Configurations and lock
//! files are read by [`crate::hcl_syntax`] instead, which needs no such
//! check.
//!
//! The HCL parser, `hcl-edit` 0.10.0 (through `hcl-rs`), reads a chain of
//! binary operations (`a * b * …`) by trying the operand after each
//! operator; when that operand fails in a way the parser may recover from,
//! it ends the chain, looks at the same operator again and parses the same
//! operand a second time, which fails the same way. When that operand holds
//! another such chain, every level doubles the work: `a=` followed by
//! `{a*a*` twenty times and `-a` (104 bytes) takes the parser 2 s to reject
//! in an optimised build and 42 s in a debug build, and each further level
//! doubles that; a 283-byte file found by fuzzing took 91 s (optimised).
//! Nothing but a bound on the input helps a user of the published crate, so
//! this module scans the text once, in time linear in its length, and
//! refuses text the parser could not read in a few milliseconds:
//!
//! - brackets (`{`, `[`, `(`, and `${` / `%{` in strings and heredocs)
//!   nested more than [`MAX_DEPTH`] levels deep. A Terraform or OpenTofu CLI
//!   configuration nests four levels at most (`host` → `services` → an OAuth
//!   client object → its `ports` list), so a real file is never refused.
//! - brackets opened after an operator character in the same brackets
//!   nested more than [`MAX_OPERAND_DEPTH`] levels deep. Only the operand of
//!   an operator is parsed twice, so only these levels double the work.
//!   Configuration values are literals, without operators, so real files
//!   have none of these levels.
//! - an estimate of the work the parser could need beyond one reading of the
//!   text above [`MAX_EXTRA_WORK`]: every byte inside such operand levels
//!   counts once per extra time it could be read, and every object or block
//!   with `k` attributes counts `k²/32` (the parser compares each key with
//!   all earlier ones, so 16 000 keys take seconds) times the reads of the
//!   object. This bounds the cost of long text at the allowed depth, and of
//!   huge objects at any depth.
//! - a heredoc whose first line already ends it (`<<EOF` followed directly by
//!   `EOF`). The parser first reads such a heredoc as running up to a later
//!   `EOF` line, or to the end of the text, and only then as empty, so
//!   every such heredoc costs a reading of the rest of the text (a file of
//!   4 000 of them, 85 kB, took 17 s), and which text it holds depends on
//!   what follows. `""` says the same thing.
//!
//! The scan follows the parser's lexical structure closely enough that
//! brackets in quoted strings (with `\` escapes), heredocs and comments
//! (`#`, `//`, `/* */`) do not count, and those in template interpolations
//! (`${ }`) and directives (`%{ }`) do. It matches the parser where a
//! difference could hide brackets from the count: the end line of a heredoc
//! (the delimiter, alone after spaces or tabs, must be followed by a
//! character that cannot continue an identifier), and the bodies of `%{if}`
//! and `%{for}` directives, in which neither `"` nor a heredoc's end line
//! ends the enclosing string or heredoc. Where the parser would stop with an
//! error anyway, the scan may count more than the parser reads, never less.

use std::fmt;

/// How deep brackets may nest. Four times what a CLI configuration needs,
/// and a quarter of the parser's own limit of 64.
pub(crate) const MAX_DEPTH: usize = 16;

/// How deep brackets opened after an operator may nest (see the module
/// documentation). At this depth the parser reads the innermost operand at
/// most 2⁹ times: the slowest 283-byte text that passes takes 16 ms
/// (optimised build), and [`MAX_EXTRA_WORK`] bounds longer ones. One level
/// more doubles that.
pub(crate) const MAX_OPERAND_DEPTH: usize = 8;

/// The estimated work beyond one reading of the text, in bytes read again,
/// that a file may need. The parser rereads such text at 4 to 6 MB a second
/// in an optimised build: the slowest texts that pass, of 400 to 800 bytes
/// at the operand limit, take 20 to 25 ms. A file without operators and
/// without objects of thousands of attributes needs none of it, whatever its
/// length.
pub(crate) const MAX_EXTRA_WORK: u64 = 1 << 17;

/// Why the text was refused, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// The line (from 1) of the offending byte.
    pub(crate) line: usize,
    /// The column (from 1, in characters) of the offending byte.
    pub(crate) column: usize,
    /// What is wrong, as a sentence fragment.
    pub(crate) reason: Reason,
}

/// What is wrong with the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// Brackets nest more than [`MAX_DEPTH`] levels deep.
    Depth,
    /// Brackets after operators nest more than [`MAX_OPERAND_DEPTH`] deep.
    OperandDepth,
    /// The work estimate exceeds [`MAX_EXTRA_WORK`].
    Work,
    /// A heredoc ends on its first line.
    EmptyHeredoc,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Depth => write!(
                f,
                "brackets are nested more than {MAX_DEPTH} levels deep, the nesting limit for CLI configuration files"
            ),
            Reason::OperandDepth => write!(
                f,
                "operands of operators are nested more than {MAX_OPERAND_DEPTH} levels deep, the nesting limit for them in CLI configuration files"
            ),
            Reason::Work => f.write_str(
                "the text would take the HCL parser too long (operators nested in brackets, or objects with thousands of attributes)",
            ),
            Reason::EmptyHeredoc => f.write_str(
                "a heredoc that ends on its first line is not supported; write \"\" instead",
            ),
        }
    }
}

/// Scans `text` (HCL syntax) once and refuses it if the parser could need
/// far more time than one reading of it.
pub(crate) fn check(text: &str) -> Result<(), Rejection> {
    let mut scan = Scan {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        stack: vec![Frame::code(Opener::Top, 0, 0, 0)],
        extra: 0,
    };
    scan.run().map_err(|(offset, reason)| {
        let (line, column) = line_column(text, offset);
        Rejection {
            line,
            column,
            reason,
        }
    })
}

/// What opened a frame of code.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Opener {
    /// The text itself.
    Top,
    Brace,
    Bracket,
    Paren,
    /// `${` in a string or heredoc.
    Interpolation,
    /// `%{` in a string or heredoc, and the keyword after it.
    Directive(Keyword),
}

/// The keyword of a template directive.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Keyword {
    If,
    For,
    Else,
    EndIf,
    EndFor,
    Other,
}

/// The last word read in code: `-` continues an identifier (`foo-bar` is
/// one name in HCL) but is an operator after a number or anything else.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Word {
    None,
    Ident,
    Number,
}

#[derive(Clone, Debug)]
enum Kind {
    Code {
        opener: Opener,
        /// An operator character was read directly in this frame.
        operator: bool,
        /// `=` and `:` read directly in this frame: at least one per
        /// attribute of an object or block.
        assignments: u64,
        word: Word,
    },
    /// A quoted string (template).
    Quoted,
    /// A heredoc; its delimiter is `text[delim.0..delim.1]`.
    Heredoc { delim: (usize, usize) },
    /// The body of a `%{if}` (`true`) or `%{for}` (`false`) directive.
    DirectiveBody { is_if: bool },
}

#[derive(Clone, Debug)]
struct Frame {
    kind: Kind,
    /// Brackets around this frame (the frame's own included).
    depth: usize,
    /// Brackets around it opened after an operator (its own included).
    operands: usize,
    /// Where its text starts.
    start: usize,
}

impl Frame {
    fn code(opener: Opener, depth: usize, operands: usize, start: usize) -> Frame {
        Frame {
            kind: Kind::Code {
                opener,
                operator: false,
                assignments: 0,
                word: Word::None,
            },
            depth,
            operands,
            start,
        }
    }

    /// How many extra times each byte of this frame may be read.
    fn weight(&self) -> u64 {
        (1u64 << self.operands) - 1
    }
}

type Failure = (usize, Reason);

struct Scan<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    stack: Vec<Frame>,
    extra: u64,
}

impl Scan<'_> {
    fn run(&mut self) -> Result<(), Failure> {
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let weight = self.top().weight();
            match self.top().kind {
                Kind::Code { .. } => self.code()?,
                Kind::Quoted => self.template(true, None)?,
                Kind::Heredoc { delim } => self.template(false, Some(delim))?,
                Kind::DirectiveBody { .. } => self.template(false, None)?,
            }
            self.add_work(start, (self.pos - start) as u64 * weight)?;
        }
        while let Some(frame) = self.stack.pop() {
            self.charge_object(&frame)?;
        }
        Ok(())
    }

    fn top(&self) -> &Frame {
        self.stack
            .last()
            .expect("the top frame is never popped while scanning")
    }

    fn peek(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.pos + offset).copied()
    }

    fn add_work(&mut self, at: usize, work: u64) -> Result<(), Failure> {
        self.extra = self.extra.saturating_add(work);
        if self.extra > MAX_EXTRA_WORK {
            return Err((at, Reason::Work));
        }
        Ok(())
    }

    /// One step in code: a comment, string, heredoc, bracket or character.
    fn code(&mut self) -> Result<(), Failure> {
        let frame = self.stack.len() - 1;
        let b = self.bytes[self.pos];
        let next = self.peek(1);
        let mut word = Word::None;
        match b {
            b'#' => self.skip_line(),
            b'/' if next == Some(b'/') => self.skip_line(),
            b'/' if next == Some(b'*') => {
                self.pos =
                    find(self.bytes, self.pos + 2, b"*/").map_or(self.bytes.len(), |end| end + 2);
            }
            b'"' => {
                self.pos += 1;
                self.push(Kind::Quoted, false)?;
            }
            b'<' if next == Some(b'<') && self.heredoc()? => {}
            b'{' | b'[' | b'(' => {
                let opener = match b {
                    b'{' => Opener::Brace,
                    b'[' => Opener::Bracket,
                    _ => Opener::Paren,
                };
                self.pos += 1;
                self.push_code(opener, true)?;
            }
            b'}' | b']' | b')' => {
                self.pos += 1;
                self.close(b)?;
            }
            b'=' if next == Some(b'=') => {
                self.pos += 2;
                self.operator();
            }
            b'=' | b':' => {
                self.pos += 1;
                if let Kind::Code { assignments, .. } = &mut self.top_mut().kind {
                    *assignments += 1;
                }
            }
            // `=>` in a `for` expression is no operator.
            b'>' if self.pos > 0 && self.bytes[self.pos - 1] == b'=' => self.pos += 1,
            b'-' if self.word() == Word::Ident => {
                self.pos += 1;
                word = Word::Ident;
            }
            b'*' | b'/' | b'%' | b'+' | b'-' | b'<' | b'>' | b'!' | b'&' | b'|' => {
                self.pos += 1;
                self.operator();
            }
            b'0'..=b'9' => {
                self.pos += 1;
                word = match self.word() {
                    Word::None => Word::Number,
                    w => w,
                };
            }
            b'_' | b'a'..=b'z' | b'A'..=b'Z' | 0x80..=0xff => {
                self.pos += 1;
                word = match self.word() {
                    Word::Number => Word::Number,
                    _ => Word::Ident,
                };
            }
            _ => self.pos += 1,
        }
        // The word goes to this frame, or, when a bracket closed it, to the
        // one around it; a frame that has just been opened leaves its
        // enclosing frame with no word, as after any other character.
        let frame = frame.min(self.stack.len() - 1);
        if let Kind::Code { word: w, .. } = &mut self.stack[frame].kind {
            *w = word;
        }
        Ok(())
    }

    fn top_mut(&mut self) -> &mut Frame {
        self.stack
            .last_mut()
            .expect("the top frame is never popped while scanning")
    }

    fn word(&self) -> Word {
        match self.top().kind {
            Kind::Code { word, .. } => word,
            _ => Word::None,
        }
    }

    fn operator(&mut self) {
        if let Kind::Code { operator, .. } = &mut self.top_mut().kind {
            *operator = true;
        }
    }

    fn skip_line(&mut self) {
        self.pos = self.bytes[self.pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |i| self.pos + i);
    }

    /// Pushes a frame for text nested in the current one. Brackets and
    /// templates opened in code after an operator are one operand level
    /// deeper; `${` and `%{` are on the level of their string or heredoc.
    fn push(&mut self, kind: Kind, bracket: bool) -> Result<(), Failure> {
        let at = self.pos.saturating_sub(1);
        let top = self.top();
        let after_operator = matches!(top.kind, Kind::Code { operator: true, .. });
        let frame = Frame {
            kind,
            depth: top.depth + usize::from(bracket),
            operands: top.operands + usize::from(after_operator),
            start: self.pos,
        };
        if frame.depth > MAX_DEPTH {
            return Err((at, Reason::Depth));
        }
        if frame.operands > MAX_OPERAND_DEPTH {
            return Err((at, Reason::OperandDepth));
        }
        self.stack.push(frame);
        Ok(())
    }

    fn push_code(&mut self, opener: Opener, bracket: bool) -> Result<(), Failure> {
        self.push(
            Kind::Code {
                opener,
                operator: false,
                assignments: 0,
                word: Word::None,
            },
            bracket,
        )
    }

    /// A closing bracket in code. One that does not match the innermost
    /// opening bracket is ignored: the parser stops there with an error,
    /// and ignoring it can only overstate the depth of what follows.
    fn close(&mut self, b: u8) -> Result<(), Failure> {
        let Kind::Code { opener, .. } = self.top().kind else {
            return Ok(());
        };
        let matches = match opener {
            Opener::Brace | Opener::Interpolation | Opener::Directive(_) => b == b'}',
            Opener::Bracket => b == b']',
            Opener::Paren => b == b')',
            Opener::Top => false,
        };
        if !matches {
            return Ok(());
        }
        let frame = self.stack.pop().expect("a code frame");
        self.charge_object(&frame)?;
        if let Opener::Directive(keyword) = opener {
            // The directive is in a string, heredoc or directive body.
            let template = self.top();
            let (depth, operands) = (template.depth, template.operands);
            let body = match template.kind {
                Kind::DirectiveBody { is_if } => Some(is_if),
                _ => None,
            };
            match (keyword, body) {
                (Keyword::If | Keyword::For, _) => self.stack.push(Frame {
                    kind: Kind::DirectiveBody {
                        is_if: keyword == Keyword::If,
                    },
                    depth,
                    operands,
                    start: self.pos,
                }),
                (Keyword::EndIf, Some(true)) | (Keyword::EndFor, Some(false)) => {
                    self.stack.pop();
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The parser compares each key of an object with the keys before it.
    fn charge_object(&mut self, frame: &Frame) -> Result<(), Failure> {
        if let Kind::Code {
            opener: Opener::Brace,
            assignments: k,
            ..
        } = frame.kind
        {
            let reads = frame.weight() + 1;
            self.add_work(frame.start, k.saturating_mul(k) / 32 * reads)?;
        }
        Ok(())
    }

    /// `<<` in code: a heredoc if followed by an optional `-`, an identifier
    /// and a line break, as the parser requires. Returns whether it was one.
    fn heredoc(&mut self) -> Result<bool, Failure> {
        let start = self.pos + 2 + usize::from(self.peek(2) == Some(b'-'));
        let end = self.bytes[start..]
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80))
            .map_or(self.bytes.len(), |i| start + i);
        let body = match &self.bytes[end..] {
            [b'\n', ..] => end + 1,
            [b'\r', b'\n', ..] => end + 2,
            _ => return Ok(false),
        };
        let delim = &self.text[start..end];
        if hcl::edit::Ident::try_new(delim).is_err() {
            // Not a heredoc to the parser either: it stops here.
            return Ok(false);
        }
        if self.ends_heredoc(body, delim).is_some() {
            return Err((self.pos, Reason::EmptyHeredoc));
        }
        self.pos = body;
        self.push(
            Kind::Heredoc {
                delim: (start, end),
            },
            false,
        )?;
        Ok(true)
    }

    /// Whether the line starting at `at` ends a heredoc with delimiter
    /// `delim`: spaces or tabs, the delimiter, and then no character that
    /// could continue an identifier. Returns where that line's delimiter
    /// ends.
    fn ends_heredoc(&self, at: usize, delim: &str) -> Option<usize> {
        let rest = &self.text[at..];
        let indented = rest.trim_start_matches([' ', '\t']);
        let after = indented.strip_prefix(delim)?;
        match after.chars().next() {
            Some(c) if is_id_continue(c) => None,
            _ => Some(self.bytes.len() - after.len()),
        }
    }

    /// One step in a quoted string (`quoted`), a heredoc (`delim`) or a
    /// directive body (neither): text up to the next interpolation,
    /// directive or end.
    fn template(&mut self, quoted: bool, delim: Option<(usize, usize)>) -> Result<(), Failure> {
        let b = self.bytes[self.pos];
        let next = self.peek(1);
        match b {
            b'$' | b'%' if next == Some(b) && self.peek(2) == Some(b'{') => self.pos += 3,
            b'$' if next == Some(b'{') => {
                self.pos += 2;
                self.push_code(Opener::Interpolation, true)?;
            }
            b'%' if next == Some(b'{') => {
                self.pos += 2;
                let keyword = self.keyword();
                self.push_code(Opener::Directive(keyword), true)?;
            }
            b'\\' if quoted => self.pos = (self.pos + 2).min(self.bytes.len()),
            b'"' if quoted => {
                self.pos += 1;
                self.stack.pop();
            }
            b'\n' if delim.is_some() => {
                let (s, e) = delim.unwrap_or_default();
                match self.ends_heredoc(self.pos + 1, &self.text[s..e]) {
                    Some(end) => {
                        self.pos = end;
                        self.stack.pop();
                    }
                    None => self.pos += 1,
                }
            }
            _ => self.pos += 1,
        }
        Ok(())
    }

    /// The keyword of the directive whose `%{` was just read: after an
    /// optional `~`, white space and comments.
    fn keyword(&self) -> Keyword {
        let mut at = self.pos + usize::from(self.peek(0) == Some(b'~'));
        loop {
            match &self.bytes[at.min(self.bytes.len())..] {
                [b' ' | b'\t' | b'\r' | b'\n', ..] => at += 1,
                [b'#', ..] | [b'/', b'/', ..] => {
                    match self.bytes[at..].iter().position(|&b| b == b'\n') {
                        Some(i) => at += i,
                        None => return Keyword::Other,
                    }
                }
                [b'/', b'*', ..] => match find(self.bytes, at + 2, b"*/") {
                    Some(end) => at = end + 2,
                    None => return Keyword::Other,
                },
                rest => {
                    // The parser takes the keyword as a prefix: `%{iffy}` is
                    // `%{if fy}`.
                    return [
                        (&b"if"[..], Keyword::If),
                        (b"for", Keyword::For),
                        (b"else", Keyword::Else),
                        (b"endif", Keyword::EndIf),
                        (b"endfor", Keyword::EndFor),
                    ]
                    .into_iter()
                    .find(|(word, _)| rest.starts_with(word))
                    .map_or(Keyword::Other, |(_, keyword)| keyword);
                }
            }
        }
    }
}

/// The parser's own test for a character that continues an identifier
/// (letters, digits, `_`, `-` and Unicode's identifier characters), through
/// the identifier type it exports.
fn is_id_continue(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_' || c == '-'
    } else {
        hcl::edit::Ident::try_new(format!("a{c}")).is_ok()
    }
}

/// Where `needle` next occurs in `haystack` at or after `from`.
fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| from + i)
}

/// The line and column (from 1; the column in characters) of `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(text: &str) -> Option<Reason> {
        check(text).err().map(|r| r.reason)
    }

    fn nested(open: &str, close: &str, levels: usize) -> String {
        format!("a = {}1{}\n", open.repeat(levels), close.repeat(levels))
    }

    #[test]
    fn a_real_configuration_passes() {
        let text = r#"
# ~/.terraformrc
plugin_cache_dir   = "$HOME/.terraform.d/plugin-cache"
disable_checkpoint = true

credentials "app.terraform.io" {
  token = "xxxxxx.atlasv1.zzzzzzzzzzzzz"
}

credentials_helper "example" {
  args = ["--host=app.terraform.io", "-v"]
}

host "example.com" {
  services = {
    "modules.v1" = "https://modules.example.com/v1/",
    "login.v1" = {
      client      = "terraform-cli"
      grant_types = ["authz_code", "token"]
      authz       = "https://example.com/oauth/authorize"
      token       = "https://example.com/oauth/token"
      ports       = [10000, 10010]
    }
  }
}

provider_installation {
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url     = "https://terraform.example.com/providers/"
    exclude = ["registry.terraform.io/hashicorp/*", "example.com/*/*"]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"#;
        assert_eq!(check(text), Ok(()));
    }

    #[test]
    fn brackets_in_strings_heredocs_and_comments_do_not_count() {
        let deep = "{[(".repeat(10);
        for text in [
            format!("a = \"{deep}\"\n"),
            format!("a = \"\\\"{deep}\\\\\"\n"),
            format!("a = \"$${{{deep}%%{{\"\n"),
            format!("a = <<EOF\n{deep}\nEOF\n"),
            format!("a = <<-EOF\n  {deep}\n  EOF\nb = 1\n"),
            format!("a = <<EOF\r\n{deep}\r\nEOF\r\n"),
            format!("# {deep}\na = 1 // {deep}\nb = /* {deep} */ 2\n"),
            format!("a = \"${{\"{deep}\"}}\"\n"),
            format!("a = \"%{{if true}}\"{deep}\"%{{endif}}\"\n"),
            format!("a = <<EOF\n%{{ for x in y }}\nEOF\n{deep}\n%{{ endfor }}\nEOF\n"),
        ] {
            assert_eq!(check(&text), Ok(()), "{text}");
        }
    }

    #[test]
    fn brackets_in_interpolations_and_directives_count() {
        let interpolations = format!("a = {}1{}\n", "\"${".repeat(17), "}\"".repeat(17));
        assert_eq!(reason(&interpolations), Some(Reason::Depth));
        let directives = format!(
            "a = \"%{{ if {}1{} }}x%{{ endif }}\"\n",
            "[".repeat(16),
            "]".repeat(16)
        );
        assert_eq!(reason(&directives), Some(Reason::Depth));
        // Code after a heredoc's end line counts again; `EOFX` and `EOF-1`
        // do not end it, and neither does a line in a directive body.
        for text in [
            "a = <<EOF\nx\n  EOF\nb = ",
            "a = <<EOF\nEOFX\nEOF-1\nEOF\nb = ",
            "a = <<EOF\n%{if x}\nEOF\n%{endif}\nEOF\nb = ",
            "a = \"%{for x in y}\"\"%{endfor}\"\nb = ",
            "a = \"%{ if x }%{ else }\"%{~ endif ~}\"\nb = ",
        ] {
            assert_eq!(
                check(&format!("{text}{}", "{".repeat(16))),
                Ok(()),
                "{text}"
            );
            assert_eq!(
                reason(&format!("{text}{}", "{".repeat(17))),
                Some(Reason::Depth),
                "{text}"
            );
        }
    }

    #[test]
    fn a_heredoc_ends_where_the_parser_ends_it() {
        // U+00B7 may continue an identifier, U+2192 may not.
        let after = |end: &str| format!("a = <<EOF\nx\n{end}\n{}", "(".repeat(17));
        assert_eq!(reason(&after("EOF\u{b7}")), None);
        assert_eq!(reason(&after("EOF\u{2192}")), Some(Reason::Depth));
        assert_eq!(reason(&after("\tEOF")), Some(Reason::Depth));
    }

    #[test]
    fn nesting_up_to_the_limit_passes() {
        for (open, close) in [("{", "}"), ("[", "]"), ("(", ")"), ("{a=", "}")] {
            assert_eq!(check(&nested(open, close, MAX_DEPTH)), Ok(()), "{open}");
            let rejected = check(&nested(open, close, MAX_DEPTH + 1)).expect_err(open);
            assert_eq!(rejected.reason, Reason::Depth);
            assert_eq!(rejected.line, 1);
            assert_eq!(rejected.column, 5 + MAX_DEPTH * open.len());
        }
        let message = Reason::Depth.to_string();
        assert!(message.contains("more than 16 levels"), "{message}");
    }

    #[test]
    fn operands_nest_up_to_their_limit() {
        assert_eq!(check(&nested("1*(", ")", MAX_OPERAND_DEPTH)), Ok(()));
        assert_eq!(
            reason(&nested("1*(", ")", MAX_OPERAND_DEPTH + 1)),
            Some(Reason::OperandDepth)
        );
        for op in ["+", "-", "/", "%", "<", ">", "==", "!=", "&&", "||", "!"] {
            let text = nested(&format!("a {op}{{"), "}", MAX_OPERAND_DEPTH + 1);
            assert_eq!(reason(&text), Some(Reason::OperandDepth), "{op}");
        }
        // Not operators: `-` in names, `=>`, `<<` of a heredoc, comments.
        for text in [
            nested("{foo-bar = ", "}", MAX_DEPTH),
            nested("{for k, v in x : k => ", "}", MAX_DEPTH),
            nested("{ /* * */ a = ", "}", MAX_DEPTH),
            format!(
                "a = <<EOF\nx\nEOF\nb = {}1{}",
                "{".repeat(16),
                "}".repeat(16)
            ),
        ] {
            assert_eq!(check(&text), Ok(()), "{text}");
        }
        // After a number, `-` is an operator.
        assert_eq!(
            reason(&nested("1e5-(", ")", MAX_OPERAND_DEPTH + 1)),
            Some(Reason::OperandDepth)
        );
    }

    #[test]
    fn long_operands_and_huge_objects_are_too_much_work() {
        let operands = |filler: usize| {
            format!(
                "a = {}{}1{}\n",
                "1*(".repeat(MAX_OPERAND_DEPTH),
                "1+".repeat(filler),
                ")".repeat(MAX_OPERAND_DEPTH)
            )
        };
        assert_eq!(check(&operands(100)), Ok(()));
        assert_eq!(reason(&operands(300)), Some(Reason::Work));

        let object = |keys: usize| {
            let items: String = (0..keys).map(|i| format!("k{i} = 1\n")).collect();
            format!("a = {{\n{items}}}\n")
        };
        assert_eq!(check(&object(1000)), Ok(()));
        assert_eq!(reason(&object(3000)), Some(Reason::Work));

        // Long text without operators is fine.
        let blocks: String = (0..20_000)
            .map(|i| format!("credentials \"h{i}.example.com\" {{\n  token = \"t\"\n}}\n"))
            .collect();
        assert_eq!(check(&blocks), Ok(()));
    }

    #[test]
    fn a_heredoc_that_ends_on_its_first_line_is_refused() {
        assert_eq!(reason("a = <<EOF\nEOF\n"), Some(Reason::EmptyHeredoc));
        assert_eq!(reason("a = <<-EOF\n  EOF"), Some(Reason::EmptyHeredoc));
        assert_eq!(check("a = <<EOF\n\nEOF\n"), Ok(()));
        assert_eq!(check("a = <<EOF\nEOFX\nEOF\n"), Ok(()));
    }

    #[test]
    fn positions_count_characters() {
        let rejected = check(&format!("é = \"ü\"\n  b = {}", "[".repeat(17))).expect_err("deep");
        assert_eq!((rejected.line, rejected.column), (2, 7 + 16));
    }
}
