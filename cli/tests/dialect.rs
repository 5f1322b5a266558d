//! The dialect a command follows when `--dialect` is not given (CFG-14):
//! `TFDISCO_DIALECT`, the working folder's lock file, its `.tofu` files,
//! the one of `terraform` and `tofu` on the PATH, else OpenTofu; said on
//! `-v` and in `--json`.

mod common;

use std::fs;
use std::path::Path;

use common::tfdisco;

const TERRAFORM_HEADER: &str = "# This file is maintained automatically by \"terraform init\".\n\
     # Manual edits may be lost in future updates.\n";

/// `tfdisco provider source hashicorp/aws --dir DIR --json`'s source.
fn source_in(home: &Path, dir: &Path, vars: &[(&str, &str)]) -> String {
    let dir = dir.to_string_lossy();
    let run = tfdisco(
        home,
        vars,
        &[
            "provider",
            "source",
            "hashicorp/aws",
            "--dir",
            &dir,
            "--json",
        ],
    );
    run.json()["source"]
        .as_str()
        .unwrap_or_else(|| panic!("{}\n{}", run.stdout, run.stderr))
        .to_owned()
}

#[test]
fn the_working_folder_tells_the_dialect() {
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    let dir = scratch.path().join("work");
    fs::create_dir_all(&home).expect("a home");
    fs::create_dir_all(&dir).expect("a folder");

    // Nothing tells: OpenTofu (PATH is /usr/bin:/bin, without either CLI).
    assert_eq!(
        source_in(&home, &dir, &[]),
        "registry.opentofu.org/hashicorp/aws"
    );

    // A lock file written by terraform init.
    fs::write(dir.join(".terraform.lock.hcl"), TERRAFORM_HEADER).expect("a lock file");
    assert_eq!(
        source_in(&home, &dir, &[]),
        "registry.terraform.io/hashicorp/aws"
    );

    // TFDISCO_DIALECT before it; --dialect before both.
    let opentofu = [("TFDISCO_DIALECT", "opentofu")];
    assert_eq!(
        source_in(&home, &dir, &opentofu),
        "registry.opentofu.org/hashicorp/aws"
    );
    let run = tfdisco(
        &home,
        &opentofu,
        &[
            "provider",
            "source",
            "hashicorp/aws",
            "--dialect",
            "terraform",
        ],
    );
    assert!(
        run.stdout.contains("registry.terraform.io/hashicorp/aws"),
        "{}",
        run.stdout
    );

    // A TFDISCO_DIALECT that names no dialect is a usage error.
    let run = tfdisco(
        &home,
        &[("TFDISCO_DIALECT", "terraformish")],
        &["normalize", "example.com"],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("TFDISCO_DIALECT"), "{}", run.stderr);
}

/// `tfdisco lock --json` says the dialect and what chose it; `-v` says it
/// on stderr.
#[test]
fn lock_says_which_dialect_and_why() {
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    let dir = scratch.path().join("work");
    fs::create_dir_all(&home).expect("a home");
    fs::create_dir_all(&dir).expect("a folder");
    // No provider required: no request is made.
    fs::write(dir.join("main.tofu"), "variable \"x\" {}\n").expect("a .tofu file");
    let chdir = dir.to_string_lossy().into_owned();
    let run = tfdisco(&home, &[], &["lock", "--chdir", &chdir, "--json", "-v"]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let dialect = &run.json()["dialect"];
    assert_eq!(dialect["name"], "opentofu", "{dialect}");
    assert_eq!(dialect["chosen_by"], "tofu_file", "{dialect}");
    assert!(
        dialect["why"]
            .as_str()
            .is_some_and(|why| why.contains("main.tofu")),
        "{dialect}"
    );
    assert!(run.stderr.contains("dialect"), "{}", run.stderr);
    let lock = fs::read_to_string(dir.join(".terraform.lock.hcl")).expect("a lock file");
    assert!(lock.starts_with("# This file is maintained automatically by \"tofu init\"."));

    // Given: chosen_by "given".
    let run = tfdisco(
        &home,
        &[],
        &[
            "lock",
            "--chdir",
            &chdir,
            "--json",
            "--dialect",
            "terraform",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.json()["dialect"]["chosen_by"], "given");
}
