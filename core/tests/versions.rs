//! `conformance/versions.json`: go-versions' own test tables (v1.0.2 for
//! Terraform, v1.0.3 for OpenTofu) and Terraform's and OpenTofu's
//! `getproviders` and installer tests, run as data (docs/behaviour.md,
//! VER-1 to VER-12). The scanner's table runs in
//! `core/src/version/scan.rs`. Cases this crate fails on purpose would be
//! listed under `versions/` in `expected_differences.txt`; there are none.

#[path = "common/results.rs"]
mod results;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tfdisco_core::{
    Constraint, Dialect, Operator, ProviderSource, Version, VersionConstraints, select,
};

use results::{Results, table};

fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["D14"])
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key} in {v}"))
}

/// The dialects a case runs in: its go-versions releases (v1.0.2 is
/// Terraform's, v1.0.3 OpenTofu's), or the CLIs it names.
fn dialects(case: &Value) -> Vec<Dialect> {
    if let Some(releases) = case.get("go_versions").and_then(Value::as_array) {
        return releases
            .iter()
            .map(|r| match r.as_str() {
                Some("v1.0.2") => Dialect::Terraform,
                Some("v1.0.3") => Dialect::OpenTofu,
                other => panic!("unknown release {other:?}"),
            })
            .collect();
    }
    case["dialects"]
        .as_array()
        .expect("go_versions or dialects")
        .iter()
        .map(|d| d.as_str().expect("a name").parse().expect("a dialect"))
        .collect()
}

/// Runs every case of one table in each of its dialects.
fn run(name: &'static str, check: impl Fn(&Value, Dialect) -> Result<(), String>) {
    let t = table("versions.json");
    let mut results = Results::new(format!("versions/{name}/").leak());
    let cases = t[name].as_array().expect("a table");
    for (i, case) in cases.iter().enumerate() {
        for dialect in dialects(case) {
            results.record(
                format!("versions/{name}/{i}/{}", dialect.name()),
                check(case, dialect),
            );
        }
    }
    results.finish();
}

/// `want` against `Ok`, `error` (Go's exact text) against `Err`.
fn outcome(case: &Value, got: Result<Value, String>) -> Result<(), String> {
    match (got, case.get("want"), case.get("error")) {
        (Ok(got), Some(want), None) if &got == want => Ok(()),
        (Ok(got), Some(want), None) => Err(format!("got {got}, want {want}")),
        (Ok(got), None, Some(error)) => Err(format!("accepted as {got}, want error {error}")),
        (Err(e), Some(want), None) => Err(format!("error {e:?}, want {want}")),
        (Err(e), None, Some(Value::String(want))) if &e == want => Ok(()),
        (Err(e), None, Some(want)) => Err(format!("error {e:?}, want {want}")),
        _ => panic!("a case has exactly one of want and error: {case}"),
    }
}

fn operator_name(op: Operator) -> &'static str {
    match op {
        Operator::Equal => "OpEqual",
        Operator::NotEqual => "OpNotEqual",
        Operator::GreaterThan => "OpGreaterThan",
        Operator::GreaterThanOrEqual => "OpGreaterThanOrEqual",
        Operator::LessThan => "OpLessThan",
        Operator::LessThanOrEqual => "OpLessThanOrEqual",
        Operator::PessimisticPatch => "OpGreaterThanOrEqualPatchOnly",
        Operator::PessimisticMinor => "OpGreaterThanOrEqualMinorOnly",
        _ => "unknown",
    }
}

/// A constraint as the tables write go-versions' `SelectionSpec`.
fn selection_spec(c: &Constraint) -> Value {
    json!({
        "operator": operator_name(c.operator()),
        "numbers": c.numbers(),
        "pre": c.pre(),
        "meta": c.build(),
    })
}

#[test]
fn parse_exact_version() {
    run("parse_exact_version", |case, dialect| {
        let got = Version::parse(text(case, "input"), dialect).map(|v| {
            json!({"major": v.major(), "minor": v.minor(), "patch": v.patch(),
                   "pre": v.pre(), "meta": v.build()})
        });
        outcome(case, got.map_err(|e| e.to_string()))
    });
}

#[test]
fn version_string() {
    run("version_string", |case, dialect| {
        let got = Version::parse(text(case, "input"), dialect);
        match (got, case.get("string"), case.get("error")) {
            (Ok(v), Some(want), None) => {
                let printed = v.to_string();
                if Some(printed.as_str()) != want.as_str() {
                    return Err(format!("printed {printed}, want {want}"));
                }
                // And the printed form reads back as the same version.
                match Version::parse(&printed, dialect) {
                    Ok(back) if back == v => Ok(()),
                    other => Err(format!("read back as {other:?}")),
                }
            }
            (Err(e), None, Some(want)) if Some(e.message()) == want.as_str() => Ok(()),
            (got, _, _) => Err(format!("got {got:?}")),
        }
    });
}

#[test]
fn parse_ruby_style() {
    run("parse_ruby_style", |case, dialect| {
        let got = Constraint::parse(text(case, "input"), dialect);
        outcome(
            case,
            got.map(|c| selection_spec(&c)).map_err(|e| e.to_string()),
        )
    });
}

#[test]
fn parse_ruby_style_multi() {
    run("parse_ruby_style_multi", |case, dialect| {
        let got = VersionConstraints::parse(text(case, "input"), dialect)
            .map(|cs| Value::Array(cs.constraints().iter().map(selection_spec).collect()));
        outcome(case, got.map_err(|e| e.to_string()))
    });
}

/// go-versions' set expression, as its test table in
/// `conformance/versions.json` writes it (docs/behaviour.md, VER-4), on one
/// version (`Set.Has`, with its rule that only `All` holds `0.0.0`).
fn has(expr: &Value, v: &Version, top: bool) -> bool {
    let version = |x: &Value| {
        Version::parse(x.as_str().expect("a version"), Dialect::Terraform).expect("valid")
    };
    if top && v.is_unspecified() {
        return expr == "all";
    }
    match expr {
        Value::String(s) if s == "released" => !v.is_prerelease(),
        Value::String(s) if s == "all" => true,
        Value::String(s) if s == "none" => false,
        Value::Object(map) => {
            let (key, arg) = map.iter().next().expect("one key");
            let cmp = || v.cmp_precedence(&version(arg));
            let all = || arg.as_array().expect("a list").iter();
            match key.as_str() {
                "only" => *v == version(arg),
                "selection" => all().any(|x| *v == version(x)),
                "at_least" => cmp().is_ge(),
                "at_most" => cmp().is_le(),
                "older_than" => cmp().is_lt(),
                "newer_than" => cmp().is_gt(),
                "all_except" => !has(arg, v, false),
                "intersection" => all().len() > 0 && all().all(|x| has(x, v, false)),
                "union" => all().any(|x| has(x, v, false)),
                other => panic!("unknown set {other}"),
            }
        }
        other => panic!("unknown set {other}"),
    }
}

/// Versions near every version a text names: each, its neighbours, a
/// pre-release and build metadata of each, and `0.0.0`.
fn probes(texts: &[&str]) -> Vec<Version> {
    let mut out = vec![Version::new(0, 0, 0), Version::new(0, 0, 1)];
    for t in texts {
        for word in t.split(|c: char| !(c.is_ascii_alphanumeric() || ".-+".contains(c))) {
            let Ok(v) = Version::parse(word, Dialect::Terraform) else {
                continue;
            };
            let (a, b, c) = (v.major(), v.minor(), v.patch());
            for s in [
                v.to_string(),
                v.without_build().to_string(),
                format!("{a}.{b}.{c}"),
                format!("{a}.{b}.{c}-beta1"),
                format!("{a}.{b}.{c}-beta2"),
                format!("{a}.{b}.{c}+local"),
                format!("{a}.{b}.{}", c + 1),
                format!("{a}.{}.0", b + 1),
                format!("{}.0.0", a + 1),
                format!("{}.0.0-beta1", a + 1),
                format!("{}.99.99", a.saturating_sub(1)),
            ] {
                out.push(s.parse().expect("valid"));
            }
        }
    }
    out
}

#[test]
fn meeting_constraints_ruby() {
    run("meeting_constraints_ruby", |case, dialect| {
        let input = text(case, "input");
        let constraints = VersionConstraints::parse(input, dialect).map_err(|e| e.to_string())?;
        let want = &case["want"];
        let wanted = want.to_string();
        for v in probes(&[input, &wanted]) {
            let (got, want) = (constraints.allows(&v), has(want, &v, true));
            if got != want {
                return Err(format!("{v}: allowed {got}, want {want}"));
            }
        }
        Ok(())
    });
}

#[test]
fn set_has() {
    run("set_has", |case, dialect| {
        let constraints = VersionConstraints::parse(text(case, "constraints"), dialect)
            .map_err(|e| e.to_string())?;
        let version = Version::parse(text(case, "version"), dialect).map_err(|e| e.to_string())?;
        let want = case["want"].as_bool().expect("want");
        match constraints.allows(&version) {
            got if got == want => Ok(()),
            got => Err(format!("allowed {got}, want {want}")),
        }
    });
}

#[test]
fn constraints_string() {
    run("constraints_string", |case, dialect| {
        let constraints =
            VersionConstraints::parse(text(case, "input"), dialect).map_err(|e| e.to_string())?;
        let got = constraints.to_string();
        match text(case, "want") {
            want if want == got => Ok(()),
            want => Err(format!("got {got:?}, want {want:?}")),
        }
    });
}

#[test]
fn selection() {
    run("selection", |case, dialect| {
        let available: Vec<Version> = case["available"]
            .as_array()
            .expect("available")
            .iter()
            .map(|v| Version::parse(v.as_str().expect("a version"), dialect).expect("valid"))
            .collect();
        let constraints = VersionConstraints::parse(text(case, "constraints"), dialect)
            .map_err(|e| e.to_string())?;
        let locked = case["locked"]
            .as_str()
            .map(|v| Version::parse(v, dialect).expect("valid"));
        let provider = ProviderSource::parse(text(case, "provider"), dialect).expect("valid");
        let got = select(&available, &constraints, locked.as_ref())
            .map(|v| json!(v.to_string()))
            .map_err(|e| e.message(&provider, dialect));
        let mut case = case.clone();
        if let Some(by_dialect) = case.get("error_by_dialect").cloned() {
            case["error"] = by_dialect[dialect.name()].clone();
        }
        outcome(&case, got)
    });
}

// The rules one by one (docs/behaviour.md, VER-1 to VER-12). Where no
// upstream table covers a rule, the expectations were checked against
// go-versions v1.0.2 and v1.0.3 themselves.

fn v(s: &str) -> Version {
    Version::parse(s, Dialect::Terraform).expect("valid version")
}

fn vc(s: &str) -> VersionConstraints {
    VersionConstraints::parse(s, Dialect::Terraform).expect("valid constraints")
}

fn version_error(s: &str, dialect: Dialect) -> String {
    Version::parse(s, dialect).expect_err("refused").to_string()
}

fn constraints_error(s: &str, dialect: Dialect) -> String {
    VersionConstraints::parse(s, dialect)
        .expect_err("refused")
        .to_string()
}

#[test]
fn versions_read_as_go_versions_reads_them() {
    // Missing numbers are zero, leading zeros are dropped.
    assert_eq!(v("1").to_string(), "1.0.0");
    assert_eq!(v("01.02.03").to_string(), "1.2.3");
    assert_eq!(v("1.2-beta.1+build.5").to_string(), "1.2.0-beta.1+build.5");
    // What the scanner stops at without reading is dropped silently.
    assert_eq!(v("1.0.0-").to_string(), "1.0.0");
    assert_eq!(v("1.0.").to_string(), "1.0.0");
    assert_eq!(v("1.0.0+").to_string(), "1.0.0");
    // Odd but accepted pre-releases.
    assert_eq!(v("1.0.0-a..b").pre(), "a..b");
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        assert_eq!(
            version_error("v1.0.0", dialect),
            r#"a "v" prefix should not be used"#
        );
        assert_eq!(
            version_error(" 1.0.0", dialect),
            "extraneous spaces at start of specification"
        );
        assert_eq!(
            version_error("1.0.0 ", dialect),
            "extraneous spaces at end of specification"
        );
        assert_eq!(
            version_error(">= 1.0", dialect),
            r#"can't use constraint operator ">="; an exact version is required"#
        );
    }
    // v1.0.3 reads a `v` after leading spaces as a prefix.
    assert_eq!(
        version_error(" v1", Dialect::Terraform),
        "extraneous spaces at start of specification"
    );
    assert_eq!(
        version_error(" v1", Dialect::OpenTofu),
        r#"a "v" prefix should not be used"#
    );
}

#[test]
fn numbers_past_u64_are_errors() {
    // go-versions panics here (strconv.ParseUint's range error); D14.
    let max = u64::MAX;
    assert_eq!(v(&format!("{max}.0.0")).major(), max);
    let message = version_error("18446744073709551616.0.0", Dialect::Terraform);
    assert_eq!(
        message,
        r#"version number "18446744073709551616" is too large; the largest is 18446744073709551615"#
    );
    assert_eq!(
        constraints_error(">= 1.0, < 18446744073709551616", Dialect::OpenTofu),
        r#"invalid specification "< 18446744073709551616": version number "18446744073709551616" is too large; the largest is 18446744073709551615"#
    );
    // The upper bound of `~>` wraps as Go's uint64 does: nothing is allowed.
    assert!(!vc(&format!("~> {max}.0")).allows(&v(&format!("{max}.1.0"))));
}

#[test]
fn precedence_orders_pre_releases_as_go_versions() {
    // go-versions' order (checked by sorting with it): a pre-release of
    // fewer parts is lower whenever the parts before its last are equal,
    // so `beta` is below `alpha.1`, unlike semantic versioning.
    let order = [
        "0.0.1",
        "1.0.0-1",
        "1.0.0-alpha",
        "1.0.0-beta",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0",
        "1.0.1",
        "1.10.0",
    ];
    for pair in order.windows(2) {
        assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
    }
    // Build metadata: no precedence, but a total order for `Ord`.
    assert!(v("1.0.0+a").cmp_precedence(&v("1.0.0+b")).is_eq());
    assert!(v("1.0.0+a") < v("1.0.0+b"));
    assert_ne!(v("1.0.0+a"), v("1.0.0"));
}

#[test]
fn constraint_syntax_and_errors() {
    let parsed = vc(" ~> 5.0, >= 5.1.2 ,!= 5.3.0, ");
    let ops: Vec<Operator> = parsed
        .constraints()
        .iter()
        .map(Constraint::operator)
        .collect();
    assert_eq!(
        ops,
        [
            Operator::PessimisticMinor,
            Operator::GreaterThanOrEqual,
            Operator::NotEqual
        ]
    );
    assert!(vc("").is_empty());
    assert!(vc(">=1.0,<2").allows(&v("1.5.0")));
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        assert_eq!(
            constraints_error(">= 1.0 < 2", dialect),
            r#"missing comma after ">= 1.0""#
        );
        assert_eq!(
            constraints_error(">=  1.0", dialect),
            r#"invalid specification ">=  1.0": only one space is expected after the operator ">=""#
        );
        assert_eq!(
            constraints_error("=> 1.0", dialect),
            r#"invalid specification "=> 1.0": invalid constraint operator "=>"; did you mean ">="?"#
        );
        assert_eq!(
            constraints_error("1.*", dialect),
            r#"invalid specification "1.*": can't use wildcard for minor number; omit segments that should be unconstrained"#
        );
        assert_eq!(
            constraints_error(">=", dialect),
            r#"invalid specification ">=": only one space is expected after the operator ">=""#
        );
    }
    // go-versions' quirk: an operator with no version before a comma is
    // read with every number left out (all versions for `>=`).
    assert_eq!(vc(">= ,1.0").to_string(), ">= 0.0.0, 1.0.0");
    assert_eq!(
        constraints_error("~> v1.1", Dialect::Terraform),
        r#"a "v" prefix should not be used"#
    );
    assert_eq!(
        constraints_error("~> v1.1", Dialect::OpenTofu),
        r#"invalid specification "~> v1.1": a "v" prefix should not be used when specifying versions"#
    );
}

#[test]
fn pessimistic_bounds() {
    let allows = |c: &str, x: &str| vc(c).allows(&v(x));
    assert!(allows("~> 1.2", "1.9.0") && !allows("~> 1.2", "2.0.0"));
    assert!(allows("~> 1", "1.9.0") && !allows("~> 1", "2.0.0"));
    assert!(allows("~> 1.2.3", "1.2.9") && !allows("~> 1.2.3", "1.3.0"));
    assert!(!allows("~> 1.2.3", "1.2.2"));
}

#[test]
fn prereleases_only_when_named_exactly() {
    let allows = |c: &str, x: &str| vc(c).allows(&v(x));
    // The reference's observation: `>= 0.9.0` skips 0.10.0-beta1.
    assert!(!allows(">= 0.9.0", "0.10.0-beta1"));
    assert!(allows("0.10.0-beta1", "0.10.0-beta1"));
    assert!(allows("= 0.10.0-beta1", "0.10.0-beta1"));
    assert!(!allows("= 0.10.0-beta1", "0.10.0-beta2"));
    // Named by another operator is not named.
    assert!(!allows(">= 0.10.0-beta1", "0.10.0-beta1"));
    assert!(!allows("~> 0.10.0-beta1", "0.10.0-beta2"));
    // Named, but another constraint excludes it.
    assert!(!allows("0.10.0-beta1, < 0.9", "0.10.0-beta1"));
    assert!(allows("0.10.0-beta1, >= 0.9", "0.10.0-beta1"));
}

#[test]
fn build_metadata_counts_for_equal_only() {
    let allows = |c: &str, x: &str| vc(c).allows(&v(x));
    assert!(!allows("= 1.0.0", "1.0.0+abc"));
    assert!(allows("= 1.0.0+abc", "1.0.0+abc"));
    assert!(allows("!= 1.0.0", "1.0.0+abc"));
    assert!(allows(">= 1.0.0+abc", "1.0.0"));
}

#[test]
fn zero_is_never_allowed() {
    assert!(!vc("").allows(&v("0.0.0")));
    assert!(!vc(">= 0.0.0").allows(&v("0.0.0")));
    assert!(!vc("0.0.0").allows(&v("0.0.0")));
    assert!(vc("").allows(&v("0.0.1")));
    assert!(vc("0.0.0+x").allows(&v("0.0.0+x")));
    assert!(vc("0.0.0-x").allows(&v("0.0.0-x")));
}

#[test]
fn lock_file_string_merges_modules() {
    // The reference's observation: root `>= 1.0`, child `< 2.0.0, != 1.2.0`.
    let mut constraints = vc(">= 1.0");
    constraints.merge(&vc("< 2.0.0, != 1.2.0"));
    assert_eq!(constraints.to_string(), ">= 1.0.0, != 1.2.0, < 2.0.0");
    assert_eq!(vc("= 1.0.0").to_string(), "1.0.0");
    assert_eq!(vc(">= 1.0").to_string(), ">= 1.0.0");
    // Duplicates from several modules are written once.
    let mut constraints = vc("~> 5.0");
    constraints.merge(&vc("~> 5"));
    constraints.merge(&vc("~> 5.0.0"));
    assert_eq!(constraints.constraints().len(), 3);
    assert_eq!(constraints.to_string(), "~> 5.0.0, ~> 5.0");
    assert_eq!(VersionConstraints::new().to_string(), "");
}

#[test]
fn selection_keeps_the_lock_and_picks_the_newest() {
    let list = |s: &[&str]| s.iter().map(|x| v(x)).collect::<Vec<_>>();
    let available = list(&["1.0.0", "2.1.0", "2.0.0", "2.2.0-beta1", "0.0.0"]);
    let any = VersionConstraints::new();
    assert_eq!(select(&available, &any, None), Ok(v("2.1.0")));
    assert_eq!(
        select(&available, &vc("2.2.0-beta1"), None),
        Ok(v("2.2.0-beta1"))
    );
    assert_eq!(
        select(&available, &vc("< 1"), None).map_err(|e| e.to_string()),
        Err("no available releases match the given constraints < 1.0.0".to_owned())
    );
    // The lock is kept while it is allowed, even with newer versions.
    assert_eq!(
        select(&available, &vc(">= 1.0"), Some(&v("2.0.0"))),
        Ok(v("2.0.0"))
    );
    let provider = ProviderSource::parse("hashicorp/aws", Dialect::Terraform).expect("valid");
    let err = select(&available, &vc("~> 2.0"), Some(&v("1.0.0"))).expect_err("refused");
    assert_eq!(
        err.message(&provider, Dialect::Terraform),
        "locked provider registry.terraform.io/hashicorp/aws 1.0.0 does not match configured \
         version constraint ~> 2.0; must use terraform init -upgrade to allow selection of new \
         versions"
    );
    let provider = ProviderSource::parse("hashicorp/aws", Dialect::OpenTofu).expect("valid");
    assert!(err.message(&provider, Dialect::OpenTofu).contains(
        "locked provider registry.opentofu.org/hashicorp/aws 1.0.0 does not match configured \
         version constraint ~> 2.0; must use tofu init -upgrade"
    ));
    // Equal precedence: the one listed last wins.
    let tied = list(&["1.0.0+a", "1.0.0+b", "0.9.0"]);
    assert_eq!(select(&tied, &any, None), Ok(v("1.0.0+b")));
    assert_eq!(tfdisco_core::newest(&tied), Some(&v("1.0.0+b")));
    assert_eq!(tfdisco_core::newest(&list(&["0.0.0", "0.0.0-rc1"])), None);
    // A locked version must be listed exactly, build metadata included.
    assert_eq!(
        select(&tied, &any, Some(&v("1.0.0"))).map_err(|e| e.to_string()),
        Err("the previously-selected version 1.0.0 is no longer available".to_owned())
    );
}

#[test]
fn long_inputs_take_linear_time() {
    // A quadratic parser would take hours on these (a megabyte each).
    let many = ">= 1.0, ".repeat(125_000);
    let parsed = vc(&many);
    assert_eq!(parsed.constraints().len(), 125_000);
    assert_eq!(parsed.to_string(), ">= 1.0.0");
    let operator = ">".repeat(1 << 20);
    assert!(VersionConstraints::parse(&operator, Dialect::OpenTofu).is_err());
    let digits = format!("1.{}", "0.".repeat(1 << 19));
    assert!(Version::parse(&digits, Dialect::Terraform).is_err());
    let spaces = format!("1.0{}", " ".repeat(1 << 20));
    assert!(Version::parse(&spaces, Dialect::Terraform).is_err());
    let pre = format!("1.0.0-{}", "a.".repeat(1 << 19));
    assert!(select(&[v(&pre)], &VersionConstraints::new(), None).is_err());
}
