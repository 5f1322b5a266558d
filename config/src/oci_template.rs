//! OpenTofu's `oci_mirror { repository_template = "…" }` (docs/behaviour.md,
//! INST-10): the template read and checked as OpenTofu checks it when it
//! loads the configuration, and the repository it gives a provider (where
//! `tfdisco lock --oci-mirror` and `tfdisco install` look, as OpenTofu
//! does).

use std::collections::BTreeSet;

use hcl::eval::{Context, Evaluate};
use hcl::expr::{Expression, ObjectKey, Operation, TraversalOperator};
use hcl::template::{Directive, Element, Template};
use tfdisco_core::{ProviderSource, go_quote};
use tfdisco_oci::RepositoryAddress;
use tfdisco_provider::ProviderPattern;

const SYMBOLS: [&str; 3] = ["hostname", "namespace", "type"];

/// One part of a pattern, `None` for the wildcard.
type Part = fn(&ProviderPattern) -> Option<String>;

/// The checks OpenTofu makes of a template when it loads the
/// configuration: it parses (HCL 2 template syntax), names no symbol but
/// `hostname`, `namespace` and `type`, names each of those the `include`
/// patterns do not fix to exactly one value (skipped when a pattern does
/// not parse: that is reported elsewhere), and gives a repository for an
/// example provider. The error is the detail after `Invalid oci_mirror
/// block at <pos>: `.
pub(crate) fn check(
    template: &str,
    include: &[String],
    dialect: tfdisco_core::Dialect,
) -> Result<(), String> {
    let parsed: Template = template
        .parse()
        .map_err(|e: hcl::Error| format!("the template does not parse: {e}"))?;
    let mut names = BTreeSet::new();
    template_vars(&parsed, &[], &mut names);
    if let Some(other) = names.iter().find(|n| !SYMBOLS.contains(&n.as_str())) {
        return Err(format!(
            "the symbol {} is not available for an OCI mirror repository address template. \
             Only \"hostname\", \"namespace\", and \"type\" are available",
            go_quote(other)
        ));
    }
    if let Ok(patterns) = ProviderPattern::parse_all(include, dialect) {
        let distinct = |part: Part| {
            patterns
                .iter()
                .filter_map(part)
                .collect::<BTreeSet<String>>()
                .len()
        };
        // Wildcards do not count: one literal value among the patterns is
        // enough, as in OpenTofu.
        let fixed = |part: Part| distinct(part) == 1;
        let checks: [(&str, Part, &str); 3] = [
            (
                "hostname",
                |p| p.host().map(|h| h.as_str().to_owned()),
                "selects exactly one registry hostname",
            ),
            (
                "namespace",
                |p| p.namespace().map(str::to_owned),
                "selects exactly one provider namespace",
            ),
            (
                "type",
                |p| p.type_name().map(str::to_owned),
                "selects exactly one provider",
            ),
        ];
        for (symbol, part, selects) in checks {
            if !fixed(part) && !names.contains(symbol) {
                return Err(format!(
                    "template must refer to the {} symbol unless the \"include\" argument {selects}",
                    go_quote(symbol)
                ));
            }
        }
    }
    let example = evaluate(&parsed, "example.com", "example-namespace", "example-type")
        .map_err(|e| format!("the template cannot be evaluated: {e}"))?;
    if example.split('/').next().is_none_or(str::is_empty) {
        return Err(
            "template must generate a valid OCI repository address, including a \
                    registry hostname followed by a slash and then a repository name"
                .to_owned(),
        );
    }
    Ok(())
}

fn evaluate(
    template: &Template,
    host: &str,
    namespace: &str,
    type_name: &str,
) -> Result<String, String> {
    let mut ctx = Context::new();
    ctx.declare_var("hostname", host);
    ctx.declare_var("namespace", namespace);
    ctx.declare_var("type", type_name);
    template.evaluate(&ctx).map_err(|e| e.to_string())
}

/// The OCI registry and repository OpenTofu's `oci_mirror` with this
/// `repository_template` looks in for `provider` (OpenTofu's
/// `RepositoryMapping`), as two texts: see [`oci_repository_address`].
///
/// ```
/// use tfdisco_config::oci_repository;
/// use tfdisco_core::{Dialect, ProviderSource};
///
/// let foo = ProviderSource::parse("opentofu/foo", Dialect::OpenTofu)?;
/// assert_eq!(
///     oci_repository("example.net/opentofu-registry/${namespace}/${type}", &foo),
///     Ok(("example.net".to_owned(), "opentofu-registry/opentofu/foo".to_owned()))
/// );
/// # Ok::<(), tfdisco_core::SourceError>(())
/// ```
pub fn oci_repository(
    template: &str,
    provider: &ProviderSource,
) -> Result<(String, String), String> {
    oci_repository_address(template, provider)
        .map(|a| (a.registry().to_owned(), a.repository().to_owned()))
}

/// The repository OpenTofu's `oci_mirror` with this `repository_template`
/// looks in for `provider`: the template evaluated with `hostname`,
/// `namespace` and `type`, split at its first `/` into the registry's
/// domain and the repository (`tfdisco_oci::RepositoryAddress::parse`, the
/// distribution specification's grammar).
pub fn oci_repository_address(
    template: &str,
    provider: &ProviderSource,
) -> Result<RepositoryAddress, String> {
    let parsed: Template = template.parse().map_err(|e: hcl::Error| e.to_string())?;
    let address = evaluate(
        &parsed,
        &provider.host().display(),
        provider.namespace(),
        provider.type_name(),
    )?;
    RepositoryAddress::parse(&address).map_err(|e| e.to_string())
}

/// The root names a template refers to, without the ones its `for`
/// directives and expressions bind.
fn template_vars(template: &Template, bound: &[String], out: &mut BTreeSet<String>) {
    for element in template.elements() {
        match element {
            Element::Literal(_) => {}
            Element::Interpolation(i) => expr_vars(&i.expr, bound, out),
            Element::Directive(d) => match &**d {
                Directive::If(d) => {
                    expr_vars(&d.cond_expr, bound, out);
                    template_vars(&d.true_template, bound, out);
                    if let Some(f) = &d.false_template {
                        template_vars(f, bound, out);
                    }
                }
                Directive::For(d) => {
                    expr_vars(&d.collection_expr, bound, out);
                    let mut inner = bound.to_vec();
                    inner.push(d.value_var.to_string());
                    inner.extend(d.key_var.iter().map(ToString::to_string));
                    template_vars(&d.template, &inner, out);
                }
            },
        }
    }
}

fn expr_vars(expr: &Expression, bound: &[String], out: &mut BTreeSet<String>) {
    match expr {
        Expression::Variable(v) => {
            let name = v.to_string();
            if !bound.contains(&name) {
                out.insert(name);
            }
        }
        Expression::Traversal(t) => {
            expr_vars(&t.expr, bound, out);
            for op in &t.operators {
                if let TraversalOperator::Index(e) = op {
                    expr_vars(e, bound, out);
                }
            }
        }
        Expression::Array(items) => items.iter().for_each(|e| expr_vars(e, bound, out)),
        Expression::Object(object) => {
            for (k, v) in object {
                if let ObjectKey::Expression(k) = k {
                    expr_vars(k, bound, out);
                }
                expr_vars(v, bound, out);
            }
        }
        Expression::TemplateExpr(t) => {
            if let Ok(t) = Template::from_expr(t) {
                template_vars(&t, bound, out);
            }
        }
        Expression::FuncCall(f) => f.args.iter().for_each(|e| expr_vars(e, bound, out)),
        Expression::Parenthesis(e) => expr_vars(e, bound, out),
        Expression::Conditional(c) => {
            expr_vars(&c.cond_expr, bound, out);
            expr_vars(&c.true_expr, bound, out);
            expr_vars(&c.false_expr, bound, out);
        }
        Expression::Operation(op) => match &**op {
            Operation::Unary(u) => expr_vars(&u.expr, bound, out),
            Operation::Binary(b) => {
                expr_vars(&b.lhs_expr, bound, out);
                expr_vars(&b.rhs_expr, bound, out);
            }
        },
        Expression::ForExpr(f) => {
            expr_vars(&f.collection_expr, bound, out);
            let mut inner = bound.to_vec();
            inner.push(f.value_var.to_string());
            inner.extend(f.key_var.iter().map(ToString::to_string));
            if let Some(k) = &f.key_expr {
                expr_vars(k, &inner, out);
            }
            expr_vars(&f.value_expr, &inner, out);
            if let Some(c) = &f.cond_expr {
                expr_vars(c, &inner, out);
            }
        }
        _ => {}
    }
}
