//! What a parsed file keeps: its bodies' attributes and blocks, and of
//! each attribute's expression only what the readers ask (literal strings,
//! `null`, objects, tuples, references); everything else is
//! [`ExprKind::Other`] with its place.
//!
//! Nothing is kept below [`MAX_KEPT_DEPTH`] levels of blocks, tuples and
//! objects (the text is still checked): no reader looks that deep, and the
//! tree stays shallow enough to drop, clone and print without deep
//! recursion.

use super::token::Span;

/// How many levels of nested blocks, tuples and objects are kept.
pub(crate) const MAX_KEPT_DEPTH: usize = 32;

/// A body: the top level of a file, or a block's content.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Body {
    /// Attributes and blocks, in the file's order.
    pub(crate) items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Attribute(Attribute),
    Block(Block),
}

/// `name = expression`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attribute {
    pub(crate) name: String,
    /// Where the name is.
    pub(crate) name_span: Span,
    pub(crate) value: Expr,
}

/// `type "label" label { … }`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block {
    pub(crate) kind: String,
    /// Where the type name is.
    pub(crate) kind_span: Span,
    pub(crate) labels: Vec<String>,
    pub(crate) body: Body,
}

/// An expression: what it is, as far as the readers care, and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprKind {
    Null,
    Bool(bool),
    /// A number literal as written (it is a valid number).
    Number(String),
    /// A quoted string or heredoc without interpolations or directives,
    /// its escapes resolved (and a flush heredoc's indentation removed).
    String(String),
    /// A quoted string or heredoc with interpolations or directives.
    Template,
    Tuple(Vec<Expr>),
    Object(Vec<(ObjectKey, Expr)>),
    /// A `for` expression.
    For,
    /// A name and what follows it: `aws`, `aws.west`, `var.x[0]`, or any
    /// traversal of another expression.
    Reference(Box<Reference>),
    /// A function call.
    Call,
    /// Anything else: operators, conditionals, splats of literals, and
    /// values nested too deep to keep.
    Other,
}

/// A reference: its root name (`None` for a traversal of an expression
/// that is not a name); `attrs` are the attribute names after the root
/// while only attribute names follow it; `only_attrs` says whether that is
/// all that follows. `parenthesized`: written in parentheses (`(aws)`),
/// which are no reference to hcl's `AbsTraversalForExpr`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reference {
    pub(crate) root: Option<String>,
    pub(crate) attrs: Vec<String>,
    pub(crate) only_attrs: bool,
    pub(crate) parenthesized: bool,
}

/// An object's key: a bare name (`a = 1`), or an expression (`"a" = 1`,
/// `(a) = 1`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ObjectKey {
    Name(String),
    Expr(Expr),
}

impl Body {
    /// The attributes named `name`.
    pub(crate) fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes().find(|a| a.name == name)
    }

    pub(crate) fn attributes(&self) -> impl Iterator<Item = &Attribute> {
        self.items.iter().filter_map(|item| match item {
            Item::Attribute(a) => Some(a),
            Item::Block(_) => None,
        })
    }

    pub(crate) fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.items.iter().filter_map(|item| match item {
            Item::Block(b) => Some(b),
            Item::Attribute(_) => None,
        })
    }
}

impl Expr {
    pub(crate) fn other(span: Span) -> Expr {
        Expr {
            kind: ExprKind::Other,
            span,
        }
    }
}
