//! Static values of HCL expressions, as Go's HCL evaluates an expression
//! with no variables or functions (`expr.Value(nil)`, `gohcl.DecodeExpression`
//! with a nil context): literals, literal-only templates and parentheses.

use crate::hcl_syntax::{Expr, ExprKind, Reference};

/// Why an expression has no static string value: a summary and detail in
/// Go's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotStatic {
    pub(crate) summary: &'static str,
    pub(crate) detail: &'static str,
}

const VARIABLES: NotStatic = NotStatic {
    summary: "Variables not allowed",
    detail: "Variables may not be used here.",
};
const FUNCTIONS: NotStatic = NotStatic {
    summary: "Function calls not allowed",
    detail: "Functions may not be called here.",
};
const NOT_STRING: NotStatic = NotStatic {
    summary: "Unsuitable value type",
    detail: "Unsuitable value: string required",
};
const NULL: NotStatic = NotStatic {
    summary: "Unsuitable value type",
    detail: "Unsuitable value: null value is not allowed",
};
const NOT_STATIC: NotStatic = NotStatic {
    summary: "Invalid expression",
    detail: "A static value is required here.",
};

/// A primitive value converted to a string as cty converts it (numbers and
/// bools become their text, numbers in plain decimal notation: `1.50` is
/// `1.5`); `Ok(None)` for `null`. Parentheses around a value change
/// nothing.
pub(crate) fn string_or_null(expr: &Expr) -> Result<Option<String>, NotStatic> {
    match &expr.kind {
        ExprKind::Null => Ok(None),
        ExprKind::String(s) => Ok(Some(s.clone())),
        ExprKind::Number(n) => Ok(Some(crate::hcl_syntax::number_text(n))),
        ExprKind::Bool(b) => Ok(Some(b.to_string())),
        ExprKind::Template | ExprKind::Reference(_) => Err(VARIABLES),
        ExprKind::Tuple(_) | ExprKind::Object(_) | ExprKind::For => Err(NOT_STRING),
        ExprKind::Call => Err(FUNCTIONS),
        ExprKind::Other => Err(NOT_STATIC),
    }
}

/// A string value; `null` is refused as gohcl refuses it for a `string`.
pub(crate) fn string(expr: &Expr) -> Result<String, NotStatic> {
    string_or_null(expr)?.ok_or(NULL)
}

/// A reference such as `aws` or `aws.west`: the root name and the
/// attribute names after it (`hcl.AbsTraversalForExpr`). `None` for any
/// other expression.
pub(crate) fn traversal(expr: &Expr) -> Option<(String, Vec<String>)> {
    match &expr.kind {
        ExprKind::Reference(reference) => match &**reference {
            Reference {
                root: Some(root),
                attrs,
                only_attrs: true,
                parenthesized: false,
            } => Some((root.clone(), attrs.clone())),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hcl_syntax::Item;

    fn expr(text: &str) -> Expr {
        let body = crate::hcl_syntax::parse(&format!("a = {text}\n"), "x.tf").expect("valid");
        match body.items.into_iter().next() {
            Some(Item::Attribute(a)) => a.value,
            _ => panic!("an attribute"),
        }
    }

    #[test]
    fn static_strings_as_go_converts_them() {
        assert_eq!(string(&expr("\"a\"")), Ok("a".into()));
        assert_eq!(string(&expr("3")), Ok("3".into()));
        assert_eq!(string(&expr("1.50")), Ok("1.5".into()));
        assert_eq!(string(&expr("true")), Ok("true".into()));
        assert_eq!(string(&expr("(\"x\")")), Ok("x".into()));
        assert_eq!(string(&expr("<<EOF\nx\nEOF\n")), Ok("x\n".into()));
        assert_eq!(
            string(&expr("<<-EOF\n    x\n      y\n    EOF\n")),
            Ok("x\n  y\n".into())
        );
        assert_eq!(string(&expr("\"a $${b} %%{c}\"")), Ok("a ${b} %{c}".into()));
        // As `terraform console` (1.11.4) gives them.
        assert_eq!(string(&expr("\"$$${x}\"")), Ok("$${x}".into()));
        assert_eq!(
            string(&expr("<<-EOT\n    a\n\n      b\n    EOT\n")),
            Ok("a\n\n  b\n".into())
        );
        assert_eq!(string(&expr("1e3")), Ok("1000".into()));
        assert_eq!(string(&expr("null")), Err(NULL));
        assert_eq!(string_or_null(&expr("null")), Ok(None));
        assert_eq!(string(&expr("[\"a\"]")), Err(NOT_STRING));
        assert_eq!(string(&expr("var.x")), Err(VARIABLES));
        assert_eq!(string(&expr("\"${var.x}\"")), Err(VARIABLES));
        assert_eq!(string(&expr("\"%{if true}x%{endif}\"")), Err(VARIABLES));
        assert_eq!(string(&expr("f(1)")), Err(FUNCTIONS));
        assert_eq!(string(&expr("1 + 2")), Err(NOT_STATIC));
        assert_eq!(string(&expr("[for x in y : x]")), Err(NOT_STRING));
    }

    #[test]
    fn references() {
        assert_eq!(
            traversal(&expr("aws.west")),
            Some(("aws".into(), vec!["west".into()]))
        );
        assert_eq!(traversal(&expr("aws")), Some(("aws".into(), vec![])));
        assert_eq!(traversal(&expr("aws[0]")), None);
        assert_eq!(traversal(&expr("aws[0].b")), None);
        assert_eq!(traversal(&expr("(aws)")), None);
        assert_eq!(traversal(&expr("\"aws\"")), None);
        assert_eq!(traversal(&expr("\"aws\".x")), None);
    }
}
