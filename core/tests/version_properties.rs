//! Properties of versions and constraints (docs/behaviour.md, VER-2, VER-3,
//! VER-9): the order is total and consistent, strings read back as they
//! were, and the parsers never panic.

use proptest::prelude::*;
use tfdisco_core::{Constraint, Dialect, Version, VersionConstraints};

fn extra() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[0-9A-Za-z-]{1,6}(\\.[0-9A-Za-z-]{0,6}){0,3}",
    ]
}

fn version() -> impl Strategy<Value = Version> {
    (0u64..4, 0u64..4, 0u64..4, extra(), extra(), any::<bool>()).prop_map(
        |(a, b, c, pre, build, huge)| {
            let a = if huge { u64::MAX - a } else { a };
            let mut s = format!("{a}.{b}.{c}");
            if !pre.is_empty() {
                s.push('-');
                s.push_str(&pre);
            }
            if !build.is_empty() {
                s.push('+');
                s.push_str(&build);
            }
            Version::parse(&s, Dialect::Terraform).expect("built valid")
        },
    )
}

fn constraint_text() -> impl Strategy<Value = String> {
    let one = (
        prop::sample::select(vec!["", "=", "!=", ">", ">=", "<", "<=", "~>"]),
        any::<bool>(),
        prop::collection::vec(0u64..4, 1..=3),
        extra(),
        extra(),
    )
        .prop_map(|(op, space, nums, pre, build)| {
            let sep = if space && !op.is_empty() { " " } else { "" };
            let nums: Vec<String> = nums.iter().map(u64::to_string).collect();
            let mut s = format!("{op}{sep}{}", nums.join("."));
            if !pre.is_empty() {
                s = format!("{s}-{pre}");
            }
            if !build.is_empty() {
                s = format!("{s}+{build}");
            }
            s
        });
    prop::collection::vec(one, 0..5).prop_map(|all| all.join(", "))
}

proptest! {
    #[test]
    fn order_is_total_and_consistent(a in version(), b in version(), c in version()) {
        prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        prop_assert_eq!(a.cmp(&b).is_eq(), a == b);
        if a <= b && b <= c {
            prop_assert!(a <= c);
        }
        // Precedence ignores build metadata only.
        prop_assert_eq!(
            a.cmp_precedence(&b).is_eq(),
            a.without_build() == b.without_build()
        );
        if a.cmp_precedence(&b).is_lt() {
            prop_assert!(a < b);
        }
    }

    #[test]
    fn versions_read_back(a in version()) {
        for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
            prop_assert_eq!(Version::parse(&a.to_string(), dialect), Ok(a.clone()));
        }
    }

    #[test]
    fn constraint_strings_read_back(text in constraint_text(), probes in prop::collection::vec(version(), 8)) {
        let parsed = VersionConstraints::parse(&text, Dialect::OpenTofu).expect("built valid");
        let written = parsed.to_string();
        let back = VersionConstraints::parse(&written, Dialect::Terraform).expect("written valid");
        // Normalised once is normalised.
        prop_assert_eq!(back.to_string(), written.clone());
        // Each constraint's own string reads back to one that matches alike.
        for c in parsed.constraints() {
            let again = Constraint::parse(&c.to_string(), Dialect::Terraform).expect("valid");
            for v in &probes {
                prop_assert_eq!(again.matches(v), c.matches(v));
            }
        }
        // And the set of allowed versions is the same.
        for v in &probes {
            prop_assert_eq!(back.allows(v), parsed.allows(v), "{} in {:?} / {:?}", v, text, written);
        }
    }

    #[test]
    fn parsers_never_panic(s in "[0-9 .,<>=!~vxX*+|^a-z\t\u{a0}-]{0,24}") {
        for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
            let _ = Version::parse(&s, dialect);
            let _ = Constraint::parse(&s, dialect);
            if let Ok(c) = VersionConstraints::parse(&s, dialect) {
                let written = c.to_string();
                prop_assert!(VersionConstraints::parse(&written, dialect).is_ok(), "{:?}", written);
            }
        }
    }
}
