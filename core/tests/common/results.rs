//! Running the Go implementations' tables (`conformance/`) as data: every
//! case has an id; a failing case must be listed in the crate's
//! `tests/expected_differences.txt`, and a listed case that passes fails the
//! run, so the list never goes stale.
//!
//! Shared by the crates that run tables (included with `#[path]`). The
//! including test crate defines, at its root,
//! `fn expected_differences(prefix: &str) -> BTreeMap<String, String>`,
//! usually with [`expected_differences_with`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The workspace's `conformance/` directory.
pub(crate) fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

/// One table, parsed.
pub(crate) fn table(name: &str) -> Value {
    let path = conformance_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The ids under `prefix` listed in `tests/expected_differences.txt`:
/// `id<TAB>tag<TAB>reason` lines, `tag` one of `tags` (each table's runner
/// names the tags its cases may have); `#` starts a comment.
pub(crate) fn expected_differences_with(prefix: &str, tags: &[&str]) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected_differences.txt");
    let text = std::fs::read_to_string(&path).expect("expected_differences.txt is checked in");
    let mut map = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut fields = line.split('\t');
        let (Some(id), Some(tag), Some(reason)) = (fields.next(), fields.next(), fields.next())
        else {
            panic!("malformed line (want id<TAB>tag<TAB>reason): {line}");
        };
        assert!(!reason.trim().is_empty(), "{id}: give a reason");
        if id.starts_with(prefix) {
            assert!(tags.contains(&tag), "{id}: {tag} is not one of {tags:?}");
            map.insert(id.to_owned(), tag.to_owned());
        }
    }
    map
}

pub(crate) struct Results {
    prefix: &'static str,
    failures: BTreeMap<String, String>,
    passes: BTreeSet<String>,
}

impl Results {
    pub(crate) fn new(prefix: &'static str) -> Results {
        Results {
            prefix,
            failures: BTreeMap::new(),
            passes: BTreeSet::new(),
        }
    }

    pub(crate) fn record(&mut self, id: String, outcome: Result<(), String>) {
        assert!(id.starts_with(self.prefix), "{id} outside {}", self.prefix);
        assert!(
            !self.failures.contains_key(&id) && !self.passes.contains(&id),
            "duplicate case id {id}"
        );
        match outcome {
            Ok(()) => {
                self.passes.insert(id);
            }
            Err(why) => {
                self.failures.insert(id, why);
            }
        }
    }

    pub(crate) fn finish(self) {
        let expected = crate::expected_differences(self.prefix);
        let mut problems = Vec::new();
        for (id, why) in &self.failures {
            if !expected.contains_key(id) {
                problems.push(format!("FAIL {id}: {why}"));
            }
        }
        for id in expected.keys() {
            if self.passes.contains(id) {
                problems.push(format!(
                    "UNEXPECTED PASS {id} (remove it from expected_differences.txt)"
                ));
            } else if !self.failures.contains_key(id) {
                problems.push(format!("UNKNOWN CASE {id} in expected_differences.txt"));
            }
        }
        let total = self.passes.len() + self.failures.len();
        assert!(total > 0, "{}: no cases ran", self.prefix);
        assert!(
            problems.is_empty(),
            "{} of {total} cases:\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
}
