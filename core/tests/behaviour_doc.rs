//! docs/behaviour.md names, for every rule, the tests that pin it: each one
//! it names must exist, so a renamed or deleted test cannot leave a rule
//! pinned by nothing.

use std::path::Path;

#[test]
fn every_test_the_rules_name_exists() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(repo.join("docs/behaviour.md")).expect("docs/behaviour.md");
    let mut named = 0;
    let mut missing = Vec::new();
    // References look like `path/to/file.rs::name`.
    for piece in doc.split('`') {
        let Some((path, name)) = piece.split_once(".rs::") else {
            continue;
        };
        if path.contains(' ') || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        named += 1;
        let file = repo.join(format!("{path}.rs"));
        let found = std::fs::read_to_string(&file).is_ok_and(|text| {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|word| word == name)
        });
        if !found {
            missing.push(format!("{path}.rs::{name}"));
        }
    }
    assert!(
        named > 250,
        "only {named} references found: has the format changed?"
    );
    assert!(
        missing.is_empty(),
        "named in docs/behaviour.md but not found: {missing:#?}"
    );
}
