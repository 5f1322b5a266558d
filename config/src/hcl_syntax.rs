//! HCL native syntax, read as Terraform reads it (hclsyntax of HCL v2.23.0,
//! in Terraform 1.11.4), in time linear in the text and without deep
//! recursion (docs/behaviour.md, TFCFG-8).
//!
//! The configuration and lock-file readers parse every `.tf` and `.tofu`
//! file and every lock file with it. The whole syntax is checked: bodies of
//! attributes and blocks (labels quoted or bare, one-line blocks),
//! comments, numbers, quoted strings with escapes, templates with `${ }`
//! interpolations, `%{ if }` and `%{ for }` directives and `~` strip
//! markers, heredocs (`<<EOF`, `<<-EOF`), every operator at its precedence,
//! conditionals, `for` expressions, splats, attribute, index and legacy
//! (`.0`) traversals, function calls (with `...` and `provider::ns::f()`),
//! tuples, objects, parentheses, and line breaks where they end
//! arguments. A text Terraform refuses is refused with the error Terraform
//! shows first (it sorts its diagnostics by position), in hclsyntax's
//! words, at the same line and column; `conformance/hcl_native_syntax.json`
//! holds Terraform's verdicts on three thousand texts, checked by
//! `config/tests/hcl_syntax.rs`.
//!
//! Of the text, only what the readers need is kept: attributes and blocks
//! (type, labels, body), and of expressions literal strings (and templates
//! without interpolations), numbers, bools, `null`, tuples, objects and
//! references such as `aws.west`; anything else is kept as "other" with its
//! place.
//!
//! How it stays linear: the scanner looks at each byte a bounded number of
//! times (it remembers what a failed look-ahead found, where hclsyntax's
//! Ragel scanner backs up and scans again), the parser never backtracks
//! (each step reads a token or enters or leaves a frame), and looking ahead
//! over skipped line breaks and comments remembers where it stopped. The
//! parser keeps its frames in a vector, not on the call stack, so no
//! nesting can overflow the stack; text nesting more than [`MAX_NESTING`]
//! levels is refused, which keeps those frames to a few megabytes
//! (docs/behaviour.md, D34). [`check`] reports the number of steps taken,
//! which tests and the `hcl_syntax` fuzz target hold under a constant
//! times the length.

mod ast;
mod body;
mod error;
mod expr;
mod frame;
mod lexer;
mod literal;
mod parser;
mod peeker;
mod position;
mod state;
mod template;
mod token;
mod unicode;

pub(crate) use ast::{Attribute, Block, Body, Expr, ExprKind, Item, ObjectKey, Reference};
pub use error::SyntaxError;
pub(crate) use literal::number_text;
pub use parser::MAX_NESTING;
pub(crate) use token::Span;

/// Whether `name` is an HCL identifier, as the lexer reads one: a letter
/// (Unicode's ID_Start) or `_`, then letters, digits (ID_Continue), `_`
/// and `-`. A module call's name must be one (it names a folder).
///
/// ```
/// use tfdisco_config::hcl_syntax::is_identifier;
///
/// assert!(is_identifier("vpc-2_a"));
/// assert!(!is_identifier("../x") && !is_identifier("2a") && !is_identifier(""));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || lexer::is_id_start(c))
        && chars.all(|c| c == '-' || lexer::is_id_continue(c))
}

/// A text checked: its first syntax error, if any, and the work it took.
#[derive(Debug, Clone)]
pub struct Checked {
    error: Option<SyntaxError>,
    steps: u64,
}

impl Checked {
    /// The first error in Terraform's order, or `None` when Terraform reads
    /// the text.
    pub fn error(&self) -> Option<&SyntaxError> {
        self.error.as_ref()
    }

    /// How many steps the scanner and parser took: bytes scanned, tokens
    /// looked at, frames entered. At most [`MAX_STEPS_PER_BYTE`] times the
    /// text's length, plus [`MAX_STEPS_EXTRA`].
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

/// The bound on [`Checked::steps`] per byte of text.
pub const MAX_STEPS_PER_BYTE: u64 = 24;
/// The bound on [`Checked::steps`] beyond [`MAX_STEPS_PER_BYTE`] per byte.
pub const MAX_STEPS_EXTRA: u64 = 64;

/// Checks `text` as HCL native syntax, as Terraform parses a `.tf` file.
/// `filename` names the file in errors that point at another place
/// (`The argument "a" was already set at main.tf:1,1-2.`).
///
/// ```
/// use tfdisco_config::hcl_syntax;
///
/// assert!(hcl_syntax::check("a = { b = [1, \"two\"] }\n", "main.tf").error().is_none());
/// let checked = hcl_syntax::check("a = 1 +\n", "main.tf");
/// let error = checked.error().expect("refused");
/// assert_eq!(error.summary(), "Invalid expression");
/// assert_eq!((error.line(), error.column()), (1, 8));
/// ```
pub fn check(text: &str, filename: &str) -> Checked {
    let (result, steps) = run(text, filename);
    Checked {
        error: result.err(),
        steps,
    }
}

/// Parses `text` into the body the readers use, or its first error.
pub(crate) fn parse(text: &str, filename: &str) -> Result<Body, SyntaxError> {
    run(text, filename).0
}

fn run(text: &str, filename: &str) -> (Result<Body, SyntaxError>, u64) {
    let mut parser = state::Parser::new(text);
    let body = parser.parse();
    let steps = parser.steps();
    match parser.errors.into_first(text, filename) {
        Some(error) => (Err(error), steps),
        None => (Ok(body), steps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Expr {
        let body = parse(&format!("a = {text}\n"), "main.tf").expect("valid");
        match body.items.into_iter().next() {
            Some(Item::Attribute(a)) => a.value,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bodies_keep_attributes_and_blocks_in_order() {
        let text = "a = 1\nb \"c\" d {\n  e = 2\n}\none { f = 3 }\n";
        let body = parse(text, "main.tf").expect("valid");
        let kinds: Vec<&str> = body
            .items
            .iter()
            .map(|item| match item {
                Item::Attribute(a) => a.name.as_str(),
                Item::Block(b) => b.kind.as_str(),
            })
            .collect();
        assert_eq!(kinds, ["a", "b", "one"]);
        let b = body.blocks().next().expect("b");
        assert_eq!(b.labels, ["c", "d"]);
        assert_eq!(b.kind_span, Span::new(6, 7));
        assert_eq!(
            b.body.attribute("e").map(|a| a.name_span),
            Some(Span::new(18, 19))
        );
        let one = body.blocks().nth(1).expect("one");
        assert!(one.body.attribute("f").is_some());
    }

    #[test]
    fn expressions_keep_what_the_readers_ask() {
        assert_eq!(value("\"x\"").kind, ExprKind::String("x".into()));
        assert_eq!(value("\"x${y}\"").kind, ExprKind::Template);
        assert_eq!(value("null").kind, ExprKind::Null);
        assert_eq!(value("07").kind, ExprKind::Number("07".into()));
        let ExprKind::Object(items) =
            value("{ a = 1, \"b\" = 2, (c) = 3, null = 4, true = 5 }").kind
        else {
            panic!("an object");
        };
        let keys: Vec<String> = items
            .iter()
            .map(|(k, _)| match k {
                ObjectKey::Name(n) => format!("name {n}"),
                ObjectKey::Expr(e) => format!("expr {:?}", e.kind),
            })
            .collect();
        assert_eq!(
            keys,
            [
                "name a",
                "expr String(\"b\")",
                "expr Reference(Reference { root: Some(\"c\"), attrs: [], only_attrs: true, parenthesized: true })",
                "name null",
                "name true"
            ]
        );
        let ExprKind::Tuple(items) = value("[1, \"two\"]").kind else {
            panic!("a tuple");
        };
        assert_eq!(items.len(), 2);
        assert_eq!(
            value("aws.west").kind,
            ExprKind::Reference(Box::new(Reference {
                root: Some("aws".into()),
                attrs: vec!["west".into()],
                only_attrs: true,
                parenthesized: false,
            }))
        );
        assert_eq!(value("[for x in y : x]").kind, ExprKind::For);
        assert_eq!(value("f(1)").kind, ExprKind::Call);
        assert_eq!(value("1 + 2").kind, ExprKind::Other);
        assert_eq!(value("1 + 2").span, Span::new(4, 9));
    }

    #[test]
    fn values_below_the_kept_depth_are_other() {
        let depth = ast::MAX_KEPT_DEPTH;
        let mut expr = value(&format!(
            "{}1{}",
            "[".repeat(depth + 1),
            "]".repeat(depth + 1)
        ));
        for _ in 0..depth {
            let ExprKind::Tuple(mut items) = expr.kind else {
                panic!("a kept tuple");
            };
            expr = items.remove(0);
        }
        assert_eq!(expr.kind, ExprKind::Other);
    }

    #[test]
    fn nesting_is_bounded_by_max_nesting() {
        // The attribute's expression is one level, each bracket's item one
        // more.
        let deepest = MAX_NESTING - 1;
        let text = format!("a = {}1{}\n", "[".repeat(deepest), "]".repeat(deepest));
        let checked = check(&text, "main.tf");
        assert!(checked.error().is_none(), "{:?}", checked.error());
        assert!(checked.steps() <= MAX_STEPS_PER_BYTE * text.len() as u64 + MAX_STEPS_EXTRA);
        let text = format!(
            "a = {}1{}\n",
            "[".repeat(deepest + 1),
            "]".repeat(deepest + 1)
        );
        let error = check(&text, "main.tf").error().cloned().expect("too deep");
        assert_eq!(error.summary(), "Too deeply nested");
        assert_eq!((error.line(), error.column()), (1, 5 + MAX_NESTING));
        assert!(
            error.detail().contains("more than 65536 levels"),
            "{}",
            error.detail()
        );
        // Blocks: each body is one level.
        let blocks = |n: usize| format!("{}{}", "a {\n".repeat(n), "}\n".repeat(n));
        assert!(check(&blocks(MAX_NESTING), "main.tf").error().is_none());
        let error = check(&blocks(MAX_NESTING + 1), "main.tf").error().cloned();
        assert_eq!(error.map(|e| e.line()), Some(MAX_NESTING + 1));
        // An unclosed text stops at the limit, whatever comes after.
        let unclosed = format!("a = {}", "[{(".repeat(MAX_NESTING));
        let checked = check(&unclosed, "main.tf");
        assert_eq!(
            checked.error().map(SyntaxError::summary),
            Some("Too deeply nested")
        );
    }
}
