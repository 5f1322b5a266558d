//! The tokens of HCL native syntax, as hclsyntax's scanner
//! (`scan_tokens.rl`) makes them.

/// A byte range of the text: where a token, an expression or a
/// diagnostic's subject is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Span {
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span holding both, as `hcl.RangeBetween`.
    pub(crate) fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// What a token is. The names are hclsyntax's `TokenType`s without the
/// `Token` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    OQuote,
    CQuote,
    OHeredoc,
    CHeredoc,
    Star,
    Slash,
    Plus,
    Minus,
    Percent,
    Equal,
    EqualOp,
    NotEqual,
    LessThan,
    LessThanEq,
    GreaterThan,
    GreaterThanEq,
    And,
    Or,
    Bang,
    Dot,
    Comma,
    DoubleColon,
    Ellipsis,
    FatArrow,
    Question,
    Colon,
    TemplateInterp,
    TemplateControl,
    TemplateSeqEnd,
    /// Literal text of a quoted string, which may hold `\` escapes.
    QuotedLit,
    /// Literal text of a heredoc, without escapes.
    StringLit,
    NumberLit,
    Ident,
    /// A comment; a `#` or `//` comment holds the line break that ends it.
    Comment,
    Newline,
    Eof,
    BitwiseAnd,
    BitwiseOr,
    BitwiseNot,
    BitwiseXor,
    Apostrophe,
    Backtick,
    Semicolon,
    /// A character the language does not use, or the rest of a text the
    /// scanner could not read.
    Invalid,
    /// Line breaks in a quoted string.
    QuotedNewline,
}

impl Kind {
    /// The token that closes what this one opens, and the reverse, as
    /// hclsyntax's `oppositeBracket`.
    pub(crate) fn opposite(self) -> Option<Kind> {
        Some(match self {
            Kind::OBrace => Kind::CBrace,
            Kind::OBrack => Kind::CBrack,
            Kind::OParen => Kind::CParen,
            Kind::OQuote => Kind::CQuote,
            Kind::OHeredoc => Kind::CHeredoc,
            Kind::CBrace => Kind::OBrace,
            Kind::CBrack => Kind::OBrack,
            Kind::CParen => Kind::OParen,
            Kind::CQuote => Kind::OQuote,
            Kind::CHeredoc => Kind::OHeredoc,
            Kind::TemplateControl | Kind::TemplateInterp => Kind::TemplateSeqEnd,
            Kind::TemplateSeqEnd => Kind::TemplateInterp,
            _ => return None,
        })
    }

    /// Whether this is a binary operator (of any precedence).
    pub(crate) fn is_binary_operator(self) -> bool {
        matches!(
            self,
            Kind::Or
                | Kind::And
                | Kind::EqualOp
                | Kind::NotEqual
                | Kind::GreaterThan
                | Kind::GreaterThanEq
                | Kind::LessThan
                | Kind::LessThanEq
                | Kind::Plus
                | Kind::Minus
                | Kind::Star
                | Kind::Slash
                | Kind::Percent
        )
    }
}

/// One token: its kind and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    pub(crate) span: Span,
}

impl Token {
    pub(crate) fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.span.start..self.span.end]
    }
}
