//! Versions and version constraints: the parsers in both dialects, the
//! normalised string, matching and selection never panic, and what they
//! write reads back alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_core::{Constraint, Dialect, Version, VersionConstraints, newest, select};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // `constraints NUL versions`: versions are `|`-separated.
    let (constraints, versions) = text.split_once('\0').unwrap_or((&text, ""));
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let listed: Vec<Version> = versions
            .split('|')
            .filter_map(|v| Version::parse(v, dialect).ok())
            .collect();
        for v in &listed {
            // A version's string reads back as the same version.
            assert_eq!(Version::parse(&v.to_string(), dialect).as_ref(), Ok(v));
        }
        if let Ok(v) = Version::parse(constraints, dialect) {
            assert_eq!(Version::parse(&v.to_string(), dialect), Ok(v));
        }
        if let Ok(c) = Constraint::parse(constraints, dialect) {
            let again = Constraint::parse(&c.to_string(), dialect).expect("written form reads");
            for v in &listed {
                assert_eq!(again.matches(v), c.matches(v));
            }
        }
        let Ok(parsed) = VersionConstraints::parse(constraints, dialect) else {
            continue;
        };
        let written = parsed.to_string();
        let back = VersionConstraints::parse(&written, dialect).expect("written form reads");
        assert_eq!(back.to_string(), written);
        for v in &listed {
            assert_eq!(back.allows(v), parsed.allows(v), "{v} in {written}");
        }
        let _ = newest(&listed);
        if let Ok(chosen) = select(&listed, &parsed, None) {
            assert!(parsed.allows(&chosen));
            assert!(listed.contains(&chosen));
            let kept = select(&listed, &parsed, Some(&chosen));
            assert_eq!(kept.as_ref(), Ok(&chosen));
        }
    }
});
