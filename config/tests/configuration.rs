//! The providers a configuration requires, against Terraform 1.11.4's
//! `terraform providers` (docs/behaviour.md, TFCFG-1 to TFCFG-8). The
//! fixture `fixtures/configuration/modules/` holds Terraform's answer for it
//! in `providers.txt`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tfdisco_config::{Configuration, OriginKind};
use tfdisco_core::{Dialect, ProviderSource};

const T: Dialect = Dialect::Terraform;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/configuration")
        .join(name)
}

/// A configuration directory made of `(path, text)` files.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }
    dir
}

/// `address → [(module, constraints)]`, the shape of `terraform providers`.
fn summary(config: &Configuration) -> Vec<(String, Vec<(String, String)>)> {
    config
        .providers()
        .map(|p| {
            (
                p.source().to_string(),
                p.constraints()
                    .iter()
                    .map(|c| (c.module().to_owned(), c.constraints().to_owned()))
                    .collect(),
            )
        })
        .collect()
}

fn owned(items: &[(&str, &[(&str, &str)])]) -> Vec<(String, Vec<(String, String)>)> {
    items
        .iter()
        .map(|(a, cs)| {
            (
                a.to_string(),
                cs.iter()
                    .map(|(m, c)| (m.to_string(), c.to_string()))
                    .collect(),
            )
        })
        .collect()
}

/// TFCFG-1 to TFCFG-6: every provider `terraform providers` lists for the
/// fixture (see its `providers.txt`), with each module's constraints as
/// written: both `required_providers` forms, an override file replacing an
/// entry, a `provider` block's `version`, resources' prefixes and
/// `provider` arguments, `terraform_remote_state`, local modules, a
/// `.tf.json` module, and an installed module with a local module of its
/// own.
#[test]
fn the_providers_terraform_lists() {
    let config = Configuration::load(T, fixture("modules")).expect("valid");
    let expected: &[(&str, &[(&str, &str)])] = &[
        ("example.com/acme/acme", &[]),
        ("example.com/acme/beta", &[]),
        ("example.com/x/foo", &[("child.grand", "1.0")]),
        (
            "registry.terraform.io/hashicorp/aws",
            &[
                ("", "~> 5.0"),
                ("child", "< 6.0.0, != 5.2.0"),
                ("vpc", ">= 5.30"),
            ],
        ),
        (
            "registry.terraform.io/hashicorp/google",
            &[("", ">= 4.5"), ("", "< 6.0")],
        ),
        ("registry.terraform.io/hashicorp/kubernetes", &[]),
        ("registry.terraform.io/hashicorp/null", &[]),
        ("registry.terraform.io/hashicorp/random", &[]),
        ("terraform.io/builtin/terraform", &[]),
    ];
    assert_eq!(summary(&config), owned(expected));
    let modules: Vec<&str> = config.modules().iter().map(|m| m.path()).collect();
    assert_eq!(modules, ["", "child", "child.grand", "vpc", "vpc.sub"]);
    assert_eq!(
        config.modules()[4].dir(),
        fixture("modules").join(".terraform/modules/vpc/modules/sub")
    );
    assert!(config.uninstalled_modules().is_empty());
    config.require_installed().expect("installed");

    let builtin = config
        .providers()
        .find(|p| p.source().is_builtin())
        .expect("terraform_remote_state");
    assert!(!builtin.is_lockable());
    assert_eq!(config.providers().filter(|p| p.is_lockable()).count(), 8);
}

/// TFCFG-4: where each requirement comes from, with file and line.
#[test]
fn origins_name_the_file_and_line() {
    let config = Configuration::load(T, fixture("modules")).expect("valid");
    let acme = ProviderSource::parse("example.com/acme/acme", T).expect("source");
    let origins = config.provider(&acme).expect("acme").origins();
    assert_eq!(origins.len(), 2);
    assert_eq!(origins[1].module(), "child");
    assert_eq!(
        origins[1].kind(),
        &OriginKind::Resource {
            mode: "data",
            type_name: "tls_certificate".into(),
            name: "c".into()
        }
    );
    assert_eq!(origins[1].file(), fixture("modules").join("child/main.tf"));
    assert_eq!(origins[1].line(), Some(17));

    let google = ProviderSource::parse("hashicorp/google", T).expect("source");
    let constraints = config.provider(&google).expect("google").constraints();
    assert_eq!(
        constraints[0].file(),
        fixture("modules").join("override.tf")
    );
    assert_eq!(constraints[0].line(), Some(3));
    assert_eq!(constraints[1].line(), Some(29));
}

/// TFCFG-7: without the module manifest Terraform refuses: "Module not
/// installed" at each call it lacks (1.11.4 printed these two).
#[test]
fn module_calls_the_manifest_lacks_are_not_installed() {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture("modules"), dir.path());
    fs::remove_file(dir.path().join(".terraform/modules/modules.json")).expect("rm");
    let config = Configuration::load(T, dir.path()).expect("readable");
    let lines: Vec<_> = config
        .uninstalled_modules()
        .iter()
        .map(|d| (d.file().expect("file").to_owned(), d.line()))
        .collect();
    let main = dir.path().join("main.tf");
    let child = dir.path().join("child/main.tf");
    // A module's calls, then its children's.
    assert_eq!(
        lines,
        [
            (main.clone(), Some(14)),
            (main, Some(18)),
            (child, Some(13))
        ]
    );
    let err = config.require_installed().expect_err("not installed");
    assert_eq!(
        err.diagnostics()[0].to_string(),
        "Module not installed: This module is not yet installed. Run \"terraform init\" to install all modules required by this configuration."
    );
    // Local modules are still read; the installed one cannot be.
    let modules: Vec<&str> = config.modules().iter().map(|m| m.path()).collect();
    assert_eq!(modules, ["", "child", "child.grand"]);
    // So only the registry module's call keeps the providers unknown (D15).
    let err = config.require_complete().expect_err("vpc unread");
    let unread: Vec<_> = err.diagnostics().iter().map(|d| d.line()).collect();
    assert_eq!(unread, [Some(18)]);
}

/// D15: a configuration whose only uninstalled calls are local is
/// complete: every provider it requires is known without `init`.
#[test]
fn local_modules_need_no_manifest() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(
        dir.path().join("main.tf"),
        "module \"child\" {\n  source = \"./child\"\n}\n",
    )
    .expect("main.tf");
    fs::create_dir(dir.path().join("child")).expect("child");
    fs::write(
        dir.path().join("child/main.tf"),
        "terraform {\n  required_providers {\n    null = {\n      source = \"hashicorp/null\"\n    }\n  }\n}\n",
    )
    .expect("child/main.tf");
    let config = Configuration::load(T, dir.path()).expect("readable");
    assert_eq!(config.uninstalled_modules().len(), 1);
    config.require_complete().expect("complete");
    let null = ProviderSource::parse("hashicorp/null", T).expect("source");
    assert!(config.provider(&null).is_some());
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// TFCFG-8: what Terraform 1.11.4 refuses (`terraform providers` on each),
/// in its words, with the line.
#[test]
fn invalid_configurations_are_refused_as_terraform_refuses_them() {
    let rp = |body: &str| format!("terraform {{\n  required_providers {{\n{body}\n  }}\n}}\n");
    // (files, the first problem, its line)
    type Case<'a> = (Vec<(&'a str, String)>, &'a str, Option<usize>);
    let cases: Vec<Case<'_>> = vec![
        (
            vec![(
                "main.tf",
                rp(
                    "    aws = { source = \"hashicorp/aws\" }\n    aws = { source = \"hashicorp/aws\", version = \"1.0\" }",
                ),
            )],
            "Attribute redefined: The argument \"aws\" was already set at {dir}/main.tf:3,5-8. Each argument may be set only once.",
            Some(4),
        ),
        (
            vec![
                ("a.tf", rp("    aws = { source = \"hashicorp/aws\" }")),
                ("b.tf", rp("    google = { source = \"hashicorp/google\" }")),
            ],
            "Duplicate required providers configuration: A module may have only one required providers configuration. The required providers were previously configured at {dir}/a.tf:2.",
            Some(2),
        ),
        (
            vec![("main.tf", rp("    aws = { source = \"a/b/c/d\" }"))],
            "Invalid provider source string: The \"source\" attribute must be in the format \"[hostname/][namespace/]name\"",
            Some(3),
        ),
        (
            vec![(
                "main.tf",
                rp("    aws = { source = \"hashicorp/aws\", version = \"~> foo\" }"),
            )],
            "Invalid version constraint: This string does not use correct version constraint syntax.",
            Some(3),
        ),
        (
            vec![(
                "main.tf",
                rp("    aws = { source = \"hashicorp/aws\", foo = 1 }"),
            )],
            "Invalid required_providers object: required_providers objects can only contain \"version\", \"source\" and \"configuration_aliases\" attributes. To configure a provider, use a \"provider\" block.",
            Some(3),
        ),
        (
            vec![("main.tf", rp("    AWS = { source = \"hashicorp/aws\" }"))],
            "Invalid provider local name: Provider names must be normalized. Replace \"AWS\" with \"aws\" to fix this error.",
            Some(3),
        ),
        (
            vec![("main.tf.json", "[1,2]".into())],
            "Incorrect JSON value type: A JSON object is required here, to define arguments and child blocks.",
            Some(1),
        ),
    ];
    for (files, expected, line) in cases {
        let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let dir = dir_with(&refs);
        let err = Configuration::load(T, dir.path()).expect_err(expected);
        let first = &err.diagnostics()[0];
        let expected = expected.replace("{dir}", &dir.path().display().to_string());
        assert_eq!(first.to_string(), expected);
        assert_eq!(first.line(), line, "{expected}");
    }
    // A syntax error names the file, line and column, in hclsyntax's
    // words.
    let dir = dir_with(&[(
        "main.tf",
        "terraform {\n  required_providers {\n    aws = { source = \n  }\n}\n",
    )]);
    let err = Configuration::load(T, dir.path()).expect_err("syntax");
    let first = &err.diagnostics()[0];
    assert_eq!(first.summary(), "Invalid expression");
    assert_eq!(first.file(), Some(dir.path().join("main.tf").as_path()));
    assert_eq!((first.line(), first.column()), (Some(3), Some(22)));
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:22: Invalid expression: Expected the start of an expression, but found an invalid expression token.",
            dir.path().join("main.tf").display()
        )
    );
}

/// TFCFG-2, TFCFG-5: the legacy string form (a number is its text); a
/// resource type's prefix is lower-cased; `terraform_remote_state` is the
/// built-in provider.
#[test]
fn legacy_forms_and_implied_providers() {
    let dir = dir_with(&[(
        "main.tf",
        "terraform {\n  required_providers {\n    aws = 5\n    google = \"= 1.0\"\n  }\n}\n\
         resource \"tls_private_key\" \"k\" {}\n\
         data \"terraform_remote_state\" \"s\" {}\n\
         resource \"Bad_thing\" \"x\" {}\n\
         check \"c\" {\n  data \"http\" \"h\" {}\n}\n",
    )]);
    let config = Configuration::load(T, dir.path()).expect("valid");
    let expected: &[(&str, &[(&str, &str)])] = &[
        ("registry.terraform.io/hashicorp/aws", &[("", "5")]),
        ("registry.terraform.io/hashicorp/bad", &[]),
        ("registry.terraform.io/hashicorp/google", &[("", "= 1.0")]),
        ("registry.terraform.io/hashicorp/http", &[]),
        ("registry.terraform.io/hashicorp/tls", &[]),
        ("terraform.io/builtin/terraform", &[]),
    ];
    assert_eq!(summary(&config), owned(expected));
}

/// TFCFG-1: OpenTofu's default registry, `.tofu` files, and a `.tf` file
/// skipped for its `.tofu` twin; hidden and editor files skipped by both.
#[test]
fn opentofu_reads_tofu_files() {
    let dir = dir_with(&[
        ("main.tf", "resource \"aws_instance\" \"a\" {}\n"),
        ("main.tofu", "resource \"google_thing\" \"a\" {}\n"),
        (
            "extra.tofu.json",
            "{\"resource\": {\"null_resource\": {\"n\": {}}}}",
        ),
        (".hidden.tf", "resource \"hidden_x\" \"a\" {}\n"),
        ("backup.tf~", "resource \"backup_x\" \"a\" {}\n"),
        ("#edit.tf#", "resource \"edit_x\" \"a\" {}\n"),
        ("test.tftest.hcl", "run \"x\" {}\n"),
    ]);
    let tofu = Configuration::load(Dialect::OpenTofu, dir.path()).expect("valid");
    let found: Vec<String> = tofu.providers().map(|p| p.source().to_string()).collect();
    assert_eq!(
        found,
        [
            "registry.opentofu.org/hashicorp/google",
            "registry.opentofu.org/hashicorp/null"
        ]
    );
    let terraform = Configuration::load(T, dir.path()).expect("valid");
    let found: Vec<String> = terraform
        .providers()
        .map(|p| p.source().to_string())
        .collect();
    assert_eq!(found, ["registry.terraform.io/hashicorp/aws"]);
}

/// TFCFG-8: text that nests deeply, or whose operators nest in brackets
/// (which took the previous parser time exponential in the nesting), is
/// read quickly: accepted when Terraform accepts it, refused with
/// Terraform's first error otherwise. A module that calls itself stops at
/// the module limit (TFCFG-6).
#[test]
fn hostile_input_is_read_in_bounded_time() {
    let deep = format!(
        "locals {{\n  a = {}1{}\n}}\n",
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    let operands = format!(
        "locals {{\n  a = {}1{}\n}}\n",
        "1*(".repeat(3_000),
        ")".repeat(3_000)
    );
    let blocks = format!("{}{}\n", "a {\n".repeat(3_000), "}\n".repeat(3_000));
    for text in [deep, operands, blocks] {
        let dir = dir_with(&[("main.tf", &text)]);
        let started = Instant::now();
        Configuration::load(T, dir.path()).expect("valid");
        assert!(started.elapsed() < Duration::from_secs(2));
    }
    // `nesting.rs`'s worst case for hcl-edit: operands whose objects never
    // close, twenty deep; Terraform shows the innermost first (the outer
    // ones are found in recovery, and not reported).
    let refused = format!("a={}-a", "{a*a*".repeat(20));
    let dir = dir_with(&[("main.tf", &refused)]);
    let started = Instant::now();
    let err = Configuration::load(T, dir.path()).expect_err("refused");
    assert!(started.elapsed() < Duration::from_secs(2));
    let first = &err.diagnostics()[0];
    assert_eq!(
        first.summary(),
        "Unterminated object constructor expression"
    );
    assert_eq!((first.line(), first.column()), (Some(1), Some(98)));
    let dir = dir_with(&[("main.tf", "module \"again\" {\n  source = \"./\"\n}\n")]);
    let started = Instant::now();
    let err = Configuration::load(T, dir.path()).expect_err("loops");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(err.diagnostics()[0].summary(), "Too many modules");
}

/// TFCFG-1: a directory that is not there.
#[test]
fn a_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = Configuration::load(T, dir.path().join("nope")).expect_err("missing");
    assert_eq!(
        err.diagnostics()[0].summary(),
        "Failed to read module directory"
    );
}
