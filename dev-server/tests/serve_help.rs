//! `tfdisco-dev serve --help` lists the sample registry from the data it is
//! served from, and the README shows the same list.

mod common;

use common::tfdisco_dev;
use tfdisco_testkit::sample::{MODULES, PROVIDERS};

fn help() -> String {
    let home = tempfile::tempdir().expect("temp dir");
    let r = tfdisco_dev(home.path(), &[], &["serve", "--help"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    r.stdout
}

/// The help's account of the sample registry, from its heading on.
fn sample_section(help: &str) -> &str {
    let start = help
        .find("The sample registry (")
        .unwrap_or_else(|| panic!("no sample registry in the help:\n{help}"));
    &help[start..]
}

#[test]
fn the_help_lists_every_provider_and_module_the_sample_serves() {
    let help = help();
    let section = sample_section(&help);
    for provider in PROVIDERS {
        let line = section
            .lines()
            .find(|l| l.trim_start().starts_with(provider.source))
            .unwrap_or_else(|| panic!("{} is not listed:\n{section}", provider.source));
        for version in provider.versions {
            assert!(line.contains(version), "{line}");
        }
        for (os, arch) in provider.platforms {
            assert!(line.contains(&format!("{os}_{arch}")), "{line}");
        }
    }
    for module in MODULES {
        let line = section
            .lines()
            .find(|l| l.trim_start().starts_with(module.source))
            .unwrap_or_else(|| panic!("{} is not listed:\n{section}", module.source));
        for version in module.versions {
            assert!(line.contains(version), "{line}");
        }
    }
    // The discovery document, and what the rest answers.
    assert!(
        section.contains(r#""providers.v1": "/v1/providers/","#),
        "{section}"
    );
    assert!(section.contains(r#"{"errors":["Not Found"]}"#), "{section}");
    // `-h` points at it.
    let home = tempfile::tempdir().expect("temp dir");
    let short = tfdisco_dev(home.path(), &[], &["serve", "-h"]).stdout;
    assert!(
        short.contains("The sample registry: see --help."),
        "{short}"
    );
}

#[test]
fn the_readme_shows_the_same_list() {
    let help = help();
    let section = sample_section(&help);
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    // A code block in the `serve` item of the command list: indented by two.
    let block: Vec<String> = section
        .trim_end()
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("  {l}")
            }
        })
        .collect();
    assert!(
        readme.contains(&block.join("\n")),
        "README.md's `serve` item should hold `tfdisco-dev serve --help`'s sample registry \
         text as it is now, indented by two:\n{section}"
    );
}
