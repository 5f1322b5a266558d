//! `conformance/source_addresses.json`: the source-address tables of
//! terraform-registry-address and opentofu/registry-address, run as data
//! (docs/behaviour.md, SRC-1 to SRC-9). Cases this crate fails on purpose
//! are listed in `expected_differences.txt` under `source_addresses/`.

#[path = "common/results.rs"]
mod results;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tfdisco_core::{Dialect, ModuleSource, ProviderSource};

use results::{Results, table};

fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["D1", "D2", "D3", "D4", "D5", "D6", "D7"])
}

/// Tables of the file this test does not run, and why.
const NOT_RUN: [(&str, &str); 1] = [(
    "terraform_component_source",
    "Terraform Stacks component addresses: no registry request of tfdisco uses them",
)];

fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key} in {v}"))
}

fn provider_json(p: &ProviderSource) -> Value {
    json!({"hostname": p.host().display(), "namespace": p.namespace(), "type": p.type_name()})
}

/// A provider built from its fields, as the Go tests build `Provider{…}`.
fn from_fields(input: &Value, dialect: Dialect) -> Result<ProviderSource, String> {
    ProviderSource::from_parts(
        &tfdisco_core::Hostname::parse(field(input, "hostname"))
            .map(|h| h.as_str().to_owned())
            .unwrap_or_default(),
        field(input, "namespace"),
        field(input, "type"),
        dialect,
    )
    .map_err(|e| e.to_string())
}

/// Compares only the fields `want` holds, as the Go tests do.
fn compare_fields(got: &Value, want: &Value) -> Result<(), String> {
    for (key, want_value) in want.as_object().expect("want is an object") {
        if got.get(key) != Some(want_value) {
            return Err(format!("{key}: got {:?}, want {want_value}", got.get(key)));
        }
    }
    Ok(())
}

/// `want` against `Ok`, `error` (a string or `true`) against `Err`.
fn outcome<T>(
    case: &Value,
    got: Result<T, String>,
    view: impl Fn(&T) -> Value,
) -> Result<(), String> {
    match (got, case.get("want"), case.get("error")) {
        (Ok(value), Some(want), None) => compare_fields(&view(&value), want),
        (Ok(value), None, Some(error)) => {
            Err(format!("accepted as {}, want error {error}", view(&value)))
        }
        (Err(e), Some(want), None) => Err(format!("error {e:?}, want {want}")),
        (Err(e), None, Some(Value::String(want))) if &e != want => {
            Err(format!("error {e:?}, want {want:?}"))
        }
        (Err(_), None, Some(_)) => Ok(()),
        _ => panic!("a case has exactly one of want and error: {case}"),
    }
}

fn run_case(table_name: &str, case: &Value, dialect: Dialect) -> Result<(), String> {
    let input = &case["input"];
    let kind = table_name.split_once('_').expect("dialect prefix").1;
    match kind {
        "provider_source" => outcome(
            case,
            ProviderSource::parse(input.as_str().expect("text"), dialect)
                .map_err(|e| e.to_string()),
            provider_json,
        ),
        "provider_part" => outcome(
            case,
            ProviderSource::normalize_part(input.as_str().expect("text"))
                .map_err(|e| e.to_string()),
            |part| json!({ "part": part }),
        ),
        "provider_string" => outcome(
            case,
            from_fields(input, dialect),
            |p| json!({"string": p.to_string()}),
        ),
        "provider_display" => outcome(
            case,
            from_fields(input, dialect),
            |p| json!({"display": p.for_display()}),
        ),
        "provider_legacy_string" => outcome(
            case,
            from_fields(input, dialect),
            |p| json!({ "legacy_string": p.legacy_string() }),
        ),
        "provider_is_builtin" => outcome(
            case,
            from_fields(input, dialect),
            |p| json!({"is_builtin": p.is_builtin()}),
        ),
        "provider_is_legacy" => outcome(
            case,
            from_fields(input, dialect),
            |p| json!({"is_legacy": p.is_legacy()}),
        ),
        "provider_equals" => {
            let other = from_fields(&case["other"], dialect);
            outcome(
                case,
                from_fields(input, dialect),
                |p| json!({"equals": other.as_ref().is_ok_and(|o| o == p)}),
            )
        }
        "provider_validate" => {
            let source = match input.get("from_source") {
                Some(text) => ProviderSource::parse(text.as_str().expect("text"), dialect)
                    .map_err(|e| e.to_string()),
                None => from_fields(input, dialect),
            };
            let valid = source.and_then(|s| s.validate().map_err(|e| e.to_string()));
            outcome(case, valid, |()| json!({"valid": true}))
        }
        "validate_provider_address" => outcome(
            case,
            ProviderSource::parse_qualified(input.as_str().expect("text"), dialect)
                .map_err(|e| e.to_string()),
            |_| json!({"valid": true}),
        ),
        "provider_text" => match input {
            // Unmarshal: JSON text to a provider.
            Value::String(text) => {
                let decoded: String = serde_json::from_str(text).expect("JSON text");
                outcome(
                    case,
                    ProviderSource::parse(&decoded, dialect).map_err(|e| e.to_string()),
                    provider_json,
                )
            }
            // Marshal: validate, then the string form as JSON text.
            _ => outcome(
                case,
                from_fields(input, dialect)
                    .and_then(|p| p.validate().map(|()| p).map_err(|e| e.to_string())),
                |p| json!({"json": serde_json::to_string(&p.to_string()).expect("a string")}),
            ),
        },
        "module_source" => outcome(
            case,
            ModuleSource::parse(input.as_str().expect("text"), dialect).map_err(|e| e.to_string()),
            |m| {
                json!({
                    "hostname": m.host().display(),
                    "namespace": m.namespace(),
                    "name": m.name(),
                    "target_system": m.target_system(),
                    "subdir": m.subdir(),
                    "string": m.to_string(),
                    "display": m.for_display(),
                    "for_registry_protocol": m.package_path(),
                })
            },
        ),
        other => panic!("no runner for {table_name} ({other})"),
    }
}

#[test]
fn source_addresses() {
    let t = table("source_addresses.json");
    let mut results = Results::new("source_addresses/");
    let mut ran = 0;
    for (name, cases) in t.as_object().expect("object") {
        if name.starts_with('_') || NOT_RUN.iter().any(|(n, _)| n == name) {
            continue;
        }
        let dialect = match name.split('_').next() {
            Some("terraform") => Dialect::Terraform,
            Some("opentofu") => Dialect::OpenTofu,
            _ => panic!("table {name} names no dialect"),
        };
        for (i, case) in cases
            .as_array()
            .expect("a table is an array")
            .iter()
            .enumerate()
        {
            results.record(
                format!("source_addresses/{name}/{i}"),
                run_case(name, case, dialect),
            );
            ran += 1;
        }
    }
    assert!(ran >= 201, "only {ran} cases ran");
    results.finish();
}

#[test]
fn tables_not_run_exist() {
    let t = table("source_addresses.json");
    for (name, why) in NOT_RUN {
        assert!(
            t.get(name).is_some(),
            "{name} ({why}) is not in the file any more"
        );
    }
}
