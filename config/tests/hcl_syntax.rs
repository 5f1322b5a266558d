//! HCL native syntax against Terraform 1.11.4's own verdicts
//! (`conformance/hcl_native_syntax.json`, made by
//! `scripts/hcl-native-syntax-corpus.py`): every text is read or refused as
//! Terraform reads or refuses it, a refused text with the error Terraform
//! shows first, at the same line and column, in the same words
//! (docs/behaviour.md, TFCFG-8).
//!
//! A case that fails must be listed in `expected_differences.txt` with a
//! reason; a listed case that passes fails the run.

#[path = "../../core/tests/common/results.rs"]
mod results;

use std::collections::BTreeMap;

use serde_json::Value;
use tfdisco_config::hcl_syntax::{self, MAX_STEPS_EXTRA, MAX_STEPS_PER_BYTE};

use results::{Results, table};

/// Tags: `grapheme` (a column counted in grapheme clusters where Go's
/// `textseg` segments differently), `nesting` (deeper than
/// `hcl_syntax::MAX_NESTING`, D34).
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["grapheme", "nesting"])
}

/// A case's text: given whole, or made from a sample.
fn input(case: &Value, samples: &Value) -> String {
    if let Some(text) = case["input"].as_str() {
        return text.to_owned();
    }
    if let Some(nest) = case.get("nest") {
        let depth = nest["depth"].as_u64().expect("depth") as usize;
        let open = nest["open"].as_str().expect("open").repeat(depth);
        let close = nest["close"].as_str().expect("close").repeat(depth);
        return format!("a = {open}1{close}\n");
    }
    let sample = samples[case["of"].as_str().expect("of")]
        .as_str()
        .expect("a sample");
    if let Some(cut) = case["cut"].as_u64() {
        return sample[..cut as usize].to_owned();
    }
    let at = case["at"].as_u64().expect("at") as usize;
    let delete = case["delete"].as_u64().expect("delete") as usize;
    let insert = case["insert"].as_str().expect("insert");
    let chars: Vec<char> = sample.chars().collect();
    let mut text: String = chars[..at.min(chars.len())].iter().collect();
    text.push_str(insert);
    text.extend(chars[(at + delete).min(chars.len())..].iter());
    text
}

fn check(text: &str, want: &Value, details: &Value) -> Result<(), String> {
    let checked = hcl_syntax::check(text, "main.tf");
    let bound = MAX_STEPS_PER_BYTE * text.len() as u64 + MAX_STEPS_EXTRA;
    if checked.steps() > bound {
        return Err(format!(
            "{} steps for {} bytes",
            checked.steps(),
            text.len()
        ));
    }
    match (want["exit"].as_u64(), checked.error()) {
        (Some(0), None) => Ok(()),
        (Some(0), Some(error)) => Err(format!(
            "Terraform reads it, we refuse it: {}:{}: {}: {}",
            error.line(),
            error.column(),
            error.summary(),
            error.detail()
        )),
        (_, None) => Err(format!(
            "Terraform refuses it ({}:{}: {}), we read it",
            want["line"], want["column"], want["summary"]
        )),
        (_, Some(error)) => {
            let got = (
                error.summary(),
                error.line() as u64,
                error.column() as u64,
                error.detail(),
            );
            let expected = (
                want["summary"].as_str().unwrap_or_default(),
                want["line"].as_u64().unwrap_or_default(),
                want["column"].as_u64().unwrap_or_default(),
                want["detail"]
                    .as_u64()
                    .and_then(|i| details[i as usize].as_str())
                    .unwrap_or_default(),
            );
            if got == expected {
                Ok(())
            } else {
                Err(format!("got {got:?}, want {expected:?}"))
            }
        }
    }
}

#[test]
fn terraforms_verdicts() {
    let doc = table("hcl_native_syntax.json");
    let samples = &doc["samples"];
    let details = &doc["details"];
    let mut results = Results::new("hcl_native_syntax/");
    for case in doc["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let text = input(case, samples);
        results.record(
            format!("hcl_native_syntax/{name}"),
            check(&text, &case["terraform"], details),
        );
    }
    results.finish();
}

/// The steps the scanner and parser take, at most `MAX_STEPS_PER_BYTE`
/// per byte (plus `MAX_STEPS_EXTRA`), on the texts that took the previous
/// parser (`hcl-edit` 0.10) time exponential in their nesting or quadratic
/// in their length (`config/src/nesting.rs`), on deep nesting of every
/// bracket, on texts that make a backtracking scanner rescan (unterminated
/// `/*`, `<<` without a heredoc, numbers with trailing dots), and on the
/// fuzz seeds. The bound is what the `hcl_syntax` fuzz target checks too.
#[test]
fn steps_are_linear_in_the_length() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, text: String| texts.push((name.to_owned(), text));
    for n in [1, 5, 20, 200, 2_000] {
        add("object operands", format!("a={}-a", "{a*a*".repeat(n)));
        add(
            "paren operands",
            format!("a = {}1{}\n", "1*(".repeat(n), ")".repeat(n)),
        );
        add("unclosed operands", format!("a = {}1\n", "1*(".repeat(n)));
        add(
            "brackets",
            format!("a = {}1{}\n", "[".repeat(n), "]".repeat(n)),
        );
        add("unclosed brackets", format!("a = {}", "[{(".repeat(n)));
        add(
            "interpolations",
            format!("a = {}1{}\n", "\"${".repeat(n), "}\"".repeat(n)),
        );
        add(
            "heredocs",
            format!("a = {}1{}\n", "<<EOF\n${".repeat(n), "}\nEOF\n".repeat(n)),
        );
        add(
            "blocks",
            format!("{}{}", "a {\n".repeat(n), "}\n".repeat(n)),
        );
        add("unclosed blocks", "a \"b\" {\n".repeat(n));
        add(
            "directives",
            format!(
                "a = \"{}x{}\"\n",
                "%{ if x }".repeat(n),
                "%{ endif }".repeat(n)
            ),
        );
        add(
            "stray endifs",
            format!("a = \"{}\"\n", "%{ endif }".repeat(n)),
        );
        add("empty heredocs", "a = <<EOF\nEOF\n".repeat(n));
        add(
            "object keys",
            format!(
                "a = {{\n{}}}\n",
                (0..n).map(|i| format!("k{i} = 1\n")).collect::<String>()
            ),
        );
        add(
            "attributes",
            (0..n).map(|i| format!("k{i} = 1\n")).collect(),
        );
        add("same attribute", "k = 1\n".repeat(n));
        add("unterminated comments", "/*".repeat(n));
        add("heredoc introducers", "a = <<EOF".repeat(n));
        add("number dots", format!("a = 1{}\n", ".".repeat(n)));
        add(
            "newlines in brackets",
            format!("a = [{}1]\n", "\n".repeat(n)),
        );
        add(
            "comments in brackets",
            format!("a = [{}1]\n", "# c\n".repeat(n)),
        );
        add("unary", format!("a = {}1\n", "-!".repeat(n)));
        add("splats", format!("a = b{}\n", "[*].c.*.d".repeat(n)));
        add(
            "calls",
            format!("a = {}1{}\n", "f(".repeat(n), ")".repeat(n)),
        );
        add(
            "for",
            format!("a = {}1{}\n", "[for x in y : ".repeat(n), "]".repeat(n)),
        );
        add("conditionals", format!("a = {}1\n", "x ? y : ".repeat(n)));
        add("stray tokens", "] ) } ~} ,".repeat(n));
    }
    add(
        "nested-operands.tfrc",
        include_str!("fixtures/fuzz/nested-operands.tfrc").to_owned(),
    );
    for corpus in ["config", "configuration", "lock_file", "hcl_syntax"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(corpus)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            let bytes = std::fs::read(&path).expect("seed");
            add(
                &path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            );
        }
    }
    let mut worst = (0.0f64, "");
    for (name, text) in &texts {
        let steps = hcl_syntax::check(text, "main.tf").steps();
        let bound = MAX_STEPS_PER_BYTE * text.len() as u64 + MAX_STEPS_EXTRA;
        assert!(
            steps <= bound,
            "{name} ({} bytes): {steps} steps, more than {bound}",
            text.len()
        );
        let ratio = steps as f64 / text.len() as f64;
        if text.len() >= 1000 && ratio > worst.0 {
            worst = (ratio, name);
        }
    }
    println!(
        "worst steps per byte (texts of 1000 bytes or more): {:.2}, {}",
        worst.0, worst.1
    );
}

/// The corpus of real configurations (`TFDISCO_REAL_CONFIGURATIONS`, else
/// `shared/real-configurations/` beside the workspace; not part of the
/// repository: public modules' code is not committed here), when it is
/// there.
fn real_corpus() -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("TFDISCO_REAL_CONFIGURATIONS") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/real-configurations"),
    };
    dir.is_dir().then_some(dir)
}

/// Google's Kubernetes Engine module, which the nesting check of CLI
/// configuration files refused when it also guarded configurations, is
/// read as a configuration (when the corpus of real configurations is
/// there; `cli/tests/real_configurations.rs` locks all of it).
#[test]
fn real_modules_are_read() {
    let Some(corpus) = real_corpus() else {
        eprintln!("skipped: no corpus of real configurations (TFDISCO_REAL_CONFIGURATIONS)");
        return;
    };
    let dir = corpus.join("terraform-google-kubernetes-engine");
    for file in ["cluster.tf", "variables.tf"] {
        let text = std::fs::read_to_string(dir.join(file)).expect("the corpus's file");
        let checked = hcl_syntax::check(&text, file);
        assert!(checked.error().is_none(), "{file}: {:?}", checked.error());
    }
    let config = tfdisco_config::Configuration::load(tfdisco_config::Dialect::Terraform, &dir)
        .expect("read as Terraform reads it");
    let found: Vec<String> = config.providers().map(|p| p.source().to_string()).collect();
    assert!(
        found.contains(&"registry.terraform.io/hashicorp/google".to_owned()),
        "{found:?}"
    );
}
