//! `conformance/module_packages.json`: the module package detector tables
//! of Terraform, OpenTofu and go-getter (the file's `_format` names where
//! each comes from), run as data (docs/behaviour.md, PKG-1 to PKG-8). go-getter's tables run in both dialects: they describe the
//! library both CLIs build their detection from. Cases this crate fails on
//! purpose are listed in `expected_differences.txt` under
//! `module_packages/`: D11, or `init` where go-getter's own test expects what
//! neither CLI's `init` does.

#[path = "common/results.rs"]
mod results;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tfdisco_core::{Dialect, ModuleAddress, ModulePackage, PackageDetector};

use results::{Results, table};

fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["D11", "init"])
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key} in {v}"))
}

/// `want` (compared field by field) against `Ok`, `error` (a string, or
/// `true` for any error) against `Err`.
fn outcome(case: &Value, got: Result<Value, String>) -> Result<(), String> {
    match (got, case.get("want"), case.get("error")) {
        (Ok(got), Some(want), None) => {
            for (key, want_value) in want.as_object().expect("want is an object") {
                if got.get(key) != Some(want_value) {
                    return Err(format!("{key}: got {:?}, want {want_value}", got.get(key)));
                }
            }
            Ok(())
        }
        (Ok(got), None, Some(error)) => Err(format!("accepted as {got}, want error {error}")),
        (Err(e), Some(want), None) => Err(format!("error {e:?}, want {want}")),
        (Err(e), None, Some(Value::String(want))) if &e != want => {
            Err(format!("error {e:?}, want {want:?}"))
        }
        (Err(_), None, Some(_)) => Ok(()),
        _ => panic!("a case has exactly one of want and error: {case}"),
    }
}

fn detected(address: &str, dialect: Dialect) -> Result<Value, String> {
    ModulePackage::detect(address, dialect)
        .map(|d| json!({ "detected": d }))
        .map_err(|e| e.to_string())
}

fn parse_module_source(input: &str, dialect: Dialect) -> Result<Value, String> {
    Ok(
        match ModuleAddress::parse(input, dialect).map_err(|e| e.to_string())? {
            ModuleAddress::Local(path) => json!({ "local": path }),
            ModuleAddress::Registry(m) => json!({"registry": {
                "hostname": m.host().as_str(),
                "namespace": m.namespace(),
                "name": m.name(),
                "target_system": m.target_system(),
                "subdir": m.subdir(),
            }}),
            ModuleAddress::Remote(p) => json!({"package": p.address(), "subdir": p.subdir()}),
        },
    )
}

/// One detector alone, as go-getter's per-detector tests call it. The
/// `*_MalformedDetectHTTP` tests require an output and, only if there is an
/// error, its text.
fn detector_case(case: &Value, dialect: Dialect) -> Result<(), String> {
    let input = text(case, "input");
    let detector = match text(case, "detector") {
        "github" => PackageDetector::GitHub,
        "bitbucket" => PackageDetector::BitBucket,
        "s3" => PackageDetector::S3,
        "gcs" => PackageDetector::Gcs,
        "file" => PackageDetector::AbsolutePath,
        // go-getter's test runs the whole detection with this detector.
        "git" => return outcome(case, detected(input, dialect)),
        // Neither CLI has a GitLab detector: the whole detection says what
        // `init` makes of these.
        "gitlab" => return outcome(case, detected(input, dialect)),
        other => panic!("no detector {other}"),
    };
    let got = detector.detect(input, dialect).map_err(|e| e.to_string());
    let want = &case["want"];
    if let Some(output) = want.get("output") {
        let (out, error) = match got {
            Ok(out) => (out.unwrap_or_default(), None),
            Err(e) => (String::new(), Some(e)),
        };
        if output.as_str() != Some(out.as_str()) {
            return Err(format!("output {out:?}, want {output}"));
        }
        return match error {
            Some(e) if e != text(want, "error_if_any") => Err(format!("error {e:?}, want {want}")),
            _ => Ok(()),
        };
    }
    outcome(
        case,
        got.and_then(|d| d.ok_or_else(|| "not detected".to_owned()))
            .map(|d| json!({ "detected": d })),
    )
}

fn run_case(table_name: &str, case: &Value, dialect: Dialect) -> Result<(), String> {
    let input = &case["input"];
    let kind = table_name
        .strip_prefix("terraform_")
        .or_else(|| table_name.strip_prefix("opentofu_"))
        .unwrap_or(table_name);
    match kind {
        "detect" | "go_getter_detect" => outcome(case, detected(text(case, "input"), dialect)),
        "parse_module_source" => outcome(case, parse_module_source(text(case, "input"), dialect)),
        "parse_module_source_remote" => outcome(
            case,
            ModulePackage::parse(text(case, "input"), dialect)
                .map(|p| json!({"string": p.to_string(), "display": p.to_string()}))
                .map_err(|e| e.to_string()),
        ),
        "from_registry" => {
            // FromRegistry reads only the two subdirectories; the Go test's
            // package ("boop") stands for any, so a parseable one stands in.
            let subdir = text(input, "package_subdir");
            let stand_in = if subdir.is_empty() {
                "https://example.com/boop".to_owned()
            } else {
                format!("https://example.com/boop//{subdir}")
            };
            let package = ModulePackage::parse(&stand_in, dialect).expect("a package");
            outcome(
                case,
                Ok(json!({"subdir": package.join_subdir(text(input, "registry_subdir"))})),
            )
        }
        "go_getter_detector" | "go_getter_file_detector" => detector_case(case, dialect),
        "go_getter_source_dir_subdir" => {
            let (package, subdir) = ModulePackage::split_subdir(text(case, "input"));
            outcome(case, Ok(json!({"package": package, "subdir": subdir})))
        }
        other => panic!("no runner for {table_name} ({other})"),
    }
}

#[test]
fn module_packages() {
    let t = table("module_packages.json");
    let mut results = Results::new("module_packages/");
    let mut ran = 0;
    for (name, cases) in t.as_object().expect("object") {
        if name.starts_with('_') {
            continue;
        }
        let dialects: &[Dialect] = match name.split('_').next() {
            Some("terraform") => &[Dialect::Terraform],
            Some("opentofu") => &[Dialect::OpenTofu],
            Some("go") => &[Dialect::Terraform, Dialect::OpenTofu],
            _ => panic!("table {name} names no dialect"),
        };
        for (i, case) in cases.as_array().expect("an array").iter().enumerate() {
            for &dialect in dialects {
                let id = if dialects.len() == 1 {
                    format!("module_packages/{name}/{i}")
                } else {
                    format!("module_packages/{name}/{i}/{dialect}")
                };
                results.record(id, run_case(name, case, dialect));
                ran += 1;
            }
        }
    }
    assert!(ran >= 280, "only {ran} cases ran");
    results.finish();
}
