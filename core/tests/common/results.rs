//! Bookkeeping for running the Go implementations' tables (`conformance/`)
//! as data: every case has an id; a failing case must be listed as an
//! expected difference, and a listed case that passes fails the run, so the
//! list never goes stale.
//!
//! Shared by the crates that run tables (included with `#[path]`). The
//! including test crate defines, at its root,
//! `fn expected_differences(prefix: &str) -> BTreeMap<String, String>`: the
//! listed case ids under `prefix`, each with its reason.

use std::collections::{BTreeMap, BTreeSet};

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
