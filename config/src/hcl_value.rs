//! Static values of HCL expressions, as Go's HCL evaluates an expression
//! with no variables or functions (`expr.Value(nil)`, `gohcl.DecodeExpression`
//! with a nil context): literals, literal-only templates and parentheses.

use hcl::edit::expr::{Expression, TraversalOperator};
use hcl::edit::template::{Element, Template};

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
/// bools become their text); `Ok(None)` for `null`.
pub(crate) fn string_or_null(expr: &Expression) -> Result<Option<String>, NotStatic> {
    match expr {
        Expression::Null(_) => Ok(None),
        Expression::String(s) => Ok(Some(s.value().clone())),
        Expression::Number(n) => Ok(Some(n.value().to_string())),
        Expression::Bool(b) => Ok(Some(b.value().to_string())),
        Expression::Parenthesis(p) => string_or_null(p.inner()),
        Expression::StringTemplate(t) => literal_template(t).map(Some),
        Expression::HeredocTemplate(h) => literal_template(&h.template).map(Some),
        Expression::Array(_) | Expression::Object(_) | Expression::ForExpr(_) => Err(NOT_STRING),
        Expression::Variable(_) | Expression::Traversal(_) => Err(VARIABLES),
        Expression::FuncCall(_) => Err(FUNCTIONS),
        _ => Err(NOT_STATIC),
    }
}

/// A string value; `null` is refused as gohcl refuses it for a `string`.
pub(crate) fn string(expr: &Expression) -> Result<String, NotStatic> {
    string_or_null(expr)?.ok_or(NULL)
}

/// A template without interpolations or directives.
fn literal_template(template: &Template) -> Result<String, NotStatic> {
    let mut text = String::new();
    for element in template.iter() {
        match element {
            Element::Literal(literal) => text.push_str(literal.value()),
            _ => return Err(VARIABLES),
        }
    }
    Ok(text)
}

/// A reference such as `aws` or `aws.west`: the root name and the
/// attribute names after it (`hcl.AbsTraversalForExpr`). `None` for any
/// other expression.
pub(crate) fn traversal(expr: &Expression) -> Option<(String, Vec<String>)> {
    match expr {
        Expression::Variable(name) => Some((name.as_str().to_owned(), Vec::new())),
        Expression::Traversal(t) => {
            let Expression::Variable(root) = &t.expr else {
                return None;
            };
            let mut attrs = Vec::new();
            for op in &t.operators {
                match op.value() {
                    TraversalOperator::GetAttr(name) => attrs.push(name.as_str().to_owned()),
                    _ => return None,
                }
            }
            Some((root.as_str().to_owned(), attrs))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(text: &str) -> Expression {
        text.parse().expect("an expression")
    }

    #[test]
    fn static_strings_as_go_converts_them() {
        assert_eq!(string(&expr("\"a\"")), Ok("a".into()));
        assert_eq!(string(&expr("3")), Ok("3".into()));
        assert_eq!(string(&expr("true")), Ok("true".into()));
        assert_eq!(string(&expr("(\"x\")")), Ok("x".into()));
        assert_eq!(string(&expr("null")), Err(NULL));
        assert_eq!(string_or_null(&expr("null")), Ok(None));
        assert_eq!(string(&expr("[\"a\"]")), Err(NOT_STRING));
        assert_eq!(string(&expr("var.x")), Err(VARIABLES));
        assert_eq!(string(&expr("\"${var.x}\"")), Err(VARIABLES));
        assert_eq!(string(&expr("f(1)")), Err(FUNCTIONS));
        assert_eq!(string(&expr("1 + 2")), Err(NOT_STATIC));
    }

    #[test]
    fn references() {
        assert_eq!(
            traversal(&expr("aws.west")),
            Some(("aws".into(), vec!["west".into()]))
        );
        assert_eq!(traversal(&expr("aws")), Some(("aws".into(), vec![])));
        assert_eq!(traversal(&expr("aws[0]")), None);
        assert_eq!(traversal(&expr("\"aws\"")), None);
    }
}
