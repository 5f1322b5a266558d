//! The dependency lock file against files Terraform 1.11.4 wrote
//! (docs/behaviour.md, LOCK-1 to LOCK-8). The fixtures under
//! `fixtures/lock/` are Terraform's own output: `init -plugin-dir` and
//! `providers lock -fs-mirror` over a local mirror of stand-in packages
//! (`before.hcl` is what the directory held, `after.hcl` what Terraform
//! left).

use std::fs;
use std::path::{Path, PathBuf};

use tfdisco_config::{LockFile, LockFileError, LockedProvider};
use tfdisco_core::{Dialect, ProviderSource};

const T: Dialect = Dialect::Terraform;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lock")
        .join(path)
}

fn text(path: &str) -> String {
    fs::read_to_string(fixture(path)).expect("fixture")
}

fn source(s: &str) -> ProviderSource {
    ProviderSource::parse(s, T).expect("a provider source")
}

fn lock(addr: &str, version: &str, constraints: Option<&str>, hashes: &[&str]) -> LockedProvider {
    LockedProvider::new(source(addr), version, constraints, hashes.iter().copied())
        .expect("a valid lock")
}

fn written(lock: &LockFile) -> String {
    String::from_utf8(lock.to_bytes()).expect("UTF-8")
}

fn problems(text: &str) -> Vec<String> {
    match LockFile::parse(text, ".terraform.lock.hcl", T) {
        Err(LockFileError::Invalid { diagnostics, .. }) => {
            diagnostics.iter().map(|d| d.to_string()).collect()
        }
        other => panic!("expected an invalid lock file, got {other:?}"),
    }
}

/// LOCK-4: a lock file built from what `init` installed is the file
/// `init` wrote, byte for byte: header, blocks sorted by address, the
/// address lower-cased (`example.com/ACME/Beta`), `=` aligned only when
/// `constraints` is there, hashes one per line with a trailing comma.
#[test]
fn a_new_lock_file_is_written_as_init_writes_it() {
    let mut file = LockFile::new(T);
    file.merge(lock(
        "hashicorp/null",
        "3.2.1",
        Some(">= 3.0.0, != 3.1.0, < 4.0.0"),
        &["h1:58VgvQlc6DBQAljUgyFou4gB3JSK1nAafXvDmtGKRd8="],
    ));
    file.merge(lock(
        "hashicorp/random",
        "3.6.0",
        None,
        &["h1:n6UcXyyHmk/qZTiladDNjyVXoLV+kYcX1duvWw/ksQw="],
    ));
    file.merge(lock(
        "example.com/ACME/Beta",
        "1.0.0",
        Some(""),
        &["h1:NCauj6PRR98DMschLQw8saDGkDCQX/veZHayTXVv7so="],
    ));
    file.merge(lock(
        "example.com/acme/alpha",
        "0.10.0-beta1",
        Some("0.10.0-beta1"),
        &["h1:3M5U7vAuV2kL96G2rjQY1ECP3cv8gpHmIf7+vNfSd8k="],
    ));
    assert_eq!(written(&file), text("init-modules/.terraform.lock.hcl"));
}

/// LOCK-4: every file Terraform wrote reads and writes back unchanged.
#[test]
fn terraforms_files_round_trip_byte_for_byte() {
    for name in [
        "init-modules/.terraform.lock.hcl",
        "providers-lock-merge/before.hcl",
        "providers-lock-merge/after.hcl",
        "init-upgrade/before.hcl",
        "init-upgrade/after.hcl",
        "init-reuse/after.hcl",
    ] {
        let original = text(name);
        let file = LockFile::read(fixture(name), T).expect(name);
        assert_eq!(written(&file), original, "{name}");
    }
}

/// LOCK-6: `providers lock` adds the hashes it obtained to those already
/// locked for the same version, and keeps providers the configuration no
/// longer names.
#[test]
fn providers_lock_merges_hashes_and_keeps_other_providers() {
    let mut file = LockFile::read(fixture("providers-lock-merge/before.hcl"), T).expect("before");
    file.merge(lock(
        "hashicorp/null",
        "3.2.1",
        Some("3.2.1"),
        &[
            "h1:Rm/e9J8G5usI95pXSKHE6PTGiQWImNAngQmYQSCXVk0=",
            "h1:19DllCeSvmYaJ74HTxaWfalPi0Bvz2TyXNVb6rkUXpU=",
        ],
    ));
    file.merge(lock(
        "hashicorp/random",
        "3.6.0",
        None,
        &[
            "h1:aGfMtmzAirOdyYtq5K0gXCYxFXsVFomElnZOX8mmSko=",
            "h1:GRqA1M1e0kwFXaySzSEwewVxfHQwFaahWi8Z/N4voMw=",
        ],
    ));
    assert_eq!(written(&file), text("providers-lock-merge/after.hcl"));
}

/// LOCK-6: a new version replaces the hashes (`init -upgrade`); `init`
/// also drops the providers the configuration no longer requires, which is
/// the caller's [`LockFile::remove`].
#[test]
fn a_new_version_replaces_the_hashes() {
    let mut file = LockFile::read(fixture("init-upgrade/before.hcl"), T).expect("before");
    let now = file
        .merge(lock(
            "hashicorp/null",
            "3.2.1",
            Some(">= 3.0.0"),
            &["h1:58VgvQlc6DBQAljUgyFou4gB3JSK1nAafXvDmtGKRd8="],
        ))
        .clone();
    assert_eq!(now.hashes().len(), 1);
    assert!(file.remove(&source("hashicorp/old")).is_some());
    assert_eq!(written(&file), text("init-upgrade/after.hcl"));
}

/// LOCK-6, LOCK-2: the same version keeps the hashes already locked, new
/// constraints replace the old; a file without the header and with
/// unsorted hashes is read, and written in the normal form.
#[test]
fn the_same_version_keeps_old_hashes_and_takes_new_constraints() {
    let mut file = LockFile::read(fixture("init-reuse/before.hcl"), T).expect("before");
    file.merge(lock(
        "hashicorp/null",
        "3.2.1",
        Some(">= 3.0.0"),
        &["h1:58VgvQlc6DBQAljUgyFou4gB3JSK1nAafXvDmtGKRd8="],
    ));
    assert_eq!(written(&file), text("init-reuse/after.hcl"));
}

/// LOCK-4: OpenTofu's header names `tofu init`; a provider without hashes
/// has no `hashes` attribute; an empty file is the header alone.
#[test]
fn opentofu_header_and_edge_forms() {
    let empty = LockFile::new(Dialect::OpenTofu);
    assert_eq!(
        written(&empty),
        "# This file is maintained automatically by \"tofu init\".\n\
         # Manual edits may be lost in future updates.\n"
    );
    let mut file = LockFile::new(Dialect::OpenTofu);
    let aws = ProviderSource::parse("hashicorp/aws", Dialect::OpenTofu).expect("source");
    file.set(LockedProvider::new(aws.clone(), "5.0.0", None, Vec::<String>::new()).expect("lock"));
    let text = written(&file);
    assert!(
        text.ends_with(
            "\nprovider \"registry.opentofu.org/hashicorp/aws\" {\n  version = \"5.0.0\"\n}\n"
        ),
        "{text}"
    );
    let reread = LockFile::parse(&text, "x", Dialect::OpenTofu).expect("reread");
    assert_eq!(reread, file);
}

/// LOCK-2, LOCK-3: what `loadLocks` refuses, in Terraform 1.11.4's words
/// (seen with `terraform init` on each file).
#[test]
fn invalid_lock_files_are_refused_with_terraforms_messages() {
    let p =
        |body: &str| format!("provider \"registry.terraform.io/hashicorp/null\" {{\n{body}\n}}\n");
    let null = "registry.terraform.io/hashicorp/null";
    let cases: Vec<(String, Vec<String>)> = vec![
        (
            p("  version = \"3.2\""),
            vec![format!("Invalid provider version number: The selected version number for provider {null} must be written in normalized form: \"3.2.0\".")],
        ),
        (
            p("  version = 3"),
            vec![format!("Invalid provider version number: The selected version number for provider {null} must be written in normalized form: \"3.0.0\".")],
        ),
        (
            p("  version = \"v3.2.1\""),
            vec![format!("Invalid provider version number: The selected version number for provider {null} is invalid: a \"v\" prefix should not be used.")],
        ),
        (
            p("  constraints = \">= 3.0.0\""),
            vec!["Missing required argument: The argument \"version\" is required, but no definition was found.".into()],
        ),
        (
            "provider \"hashicorp/null\" {\n  version = \"3.2.1\"\n}\n".into(),
            vec![format!("Non-normalized provider source address: The provider source address for this provider lock must be written as \"{null}\", the fully-qualified and normalized form.")],
        ),
        (
            "provider \"registry.terraform.io/HashiCorp/null\" {\n  version = \"3.2.1\"\n}\n".into(),
            vec![format!("Non-normalized provider source address: The provider source address for this provider lock must be written as \"{null}\", the fully-qualified and normalized form.")],
        ),
        (
            "provider \"terraform.io/builtin/terraform\" {\n  version = \"3.2.1\"\n}\n".into(),
            vec!["Invalid provider source address: Cannot lock a version for built-in provider terraform.io/builtin/terraform. Built-in providers are bundled inside Terraform itself, so you can't select a version for them independently of the Terraform release you are currently running.".into()],
        ),
        (
            "provider \"registry.terraform.io/-/null\" {\n  version = \"3.2.1\"\n}\n".into(),
            vec!["Invalid provider source address: Provider source address registry.terraform.io/-/null is a special provider that is not eligible for dependency locking.".into()],
        ),
        (
            "provider \"a/b/c/d\" {\n  version = \"3.2.1\"\n}\n".into(),
            vec!["Invalid provider source address: The provider source address for a provider lock must be a valid, fully-qualified address of the form \"hostname/namespace/type\".".into()],
        ),
        (
            format!("{}{}", p("  version = \"3.2.1\""), p("  version = \"3.2.1\"")),
            vec![format!("Duplicate provider lock: This lockfile already declared a lock for provider {null} at .terraform.lock.hcl:1.")],
        ),
        (
            p("  version = \"3.2.1\"\n  hashes = []"),
            vec!["Invalid provider hash set: The \"hashes\" argument must either be omitted or contain at least one hash value.".into()],
        ),
        (
            p("  version = \"3.2.1\"\n  hashes = [\"nocolon\", \":x\", 5, \"zz:b\"]"),
            ["nocolon", ":x", "5"]
                .iter()
                .map(|h| format!("Invalid provider hash string: Cannot interpret \"{h}\" as a provider hash: hash string must start with a scheme keyword followed by a colon."))
                .collect(),
        ),
        (
            p("  version = \"3.2.1\"\n  constraints = null"),
            vec!["Unsuitable value type: Unsuitable value: null value is not allowed".into()],
        ),
        (
            "provider {\n  version = \"3.2.1\"\n}\nprovider \"a\" \"b\" {\n  version = \"3.2.1\"\n}\n".into(),
            vec![
                "Missing source_addr for provider: All provider blocks must have 1 labels (source_addr).".into(),
                "Extraneous label for provider: Only 1 labels (source_addr) are expected for provider blocks.".into(),
            ],
        ),
        (
            format!("foo = 1\n{}other {{}}\n", p("  version = \"3.2.1\"\n  foo = \"bar\"\n  thing {}")),
            vec![
                "Unsupported argument: An argument named \"foo\" is not expected here.".into(),
                "Unsupported block type: Blocks of type \"other\" are not expected here.".into(),
                "Unsupported argument: An argument named \"foo\" is not expected here.".into(),
                "Unsupported block type: Blocks of type \"thing\" are not expected here.".into(),
            ],
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(problems(&text), expected, "{text}");
    }
}

/// LOCK-2: a `module` block is only a warning; problems carry their line.
#[test]
fn module_blocks_warn_and_problems_have_lines() {
    let file = LockFile::parse("module \"x\" {}\nmodule \"y\" {}\n", "l.hcl", T).expect("valid");
    assert_eq!(file.warnings().len(), 1);
    assert_eq!(
        file.warnings()[0].summary(),
        "Dependency locks for modules are not yet supported"
    );
    assert!(file.is_empty());

    let err = LockFile::parse("\n\nprovider \"x/y\" {\n}\n", "l.hcl", T).expect_err("invalid");
    let LockFileError::Invalid { diagnostics, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(diagnostics[0].line(), Some(3));
    assert!(
        err.to_string()
            .starts_with("failed to read dependency lock file l.hcl:\n- l.hcl:3: "),
        "{err}"
    );

    let syntax = LockFile::parse("provider \"x\" {", "l.hcl", T).expect_err("syntax");
    assert!(
        matches!(syntax, LockFileError::Invalid { .. }),
        "{syntax:?}"
    );
}

/// LOCK-3: values that no lock file may hold are refused when set.
#[test]
fn locks_are_checked_when_made() {
    let bad = |r: Result<LockedProvider, LockFileError>| match r {
        Err(LockFileError::InvalidValue { message }) => message,
        other => panic!("{other:?}"),
    };
    let none: [&str; 0] = [];
    assert!(
        bad(LockedProvider::new(
            source("hashicorp/null"),
            "3.2",
            None,
            none
        ))
        .contains("\"3.2.0\"")
    );
    assert!(
        bad(LockedProvider::new(
            source("hashicorp/null"),
            "3.2.1",
            None,
            ["x"]
        ))
        .contains("\"x\"")
    );
    assert!(
        bad(LockedProvider::new(source("null"), "3.2.1", None, none)).contains("fully qualified")
    );
    let builtin =
        ProviderSource::from_parts("terraform.io", "builtin", "terraform", T).expect("builtin");
    assert!(bad(LockedProvider::new(builtin, "1.0.0", None, none)).contains("built-in"));
}

/// LOCK-5: the file is replaced whole, with mode 0644 and no temporary
/// file left; a failed write leaves the old file as it was.
#[test]
fn writes_replace_the_file_atomically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(".terraform.lock.hcl");
    fs::write(&path, "old").expect("write");
    let mut file = LockFile::new(T);
    file.set(lock("hashicorp/null", "3.2.1", None, &["h1:x="]));
    file.write_atomically(&path).expect("written");
    assert_eq!(fs::read(&path).expect("read"), file.to_bytes());
    let names: Vec<_> = fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, [".terraform.lock.hcl"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
    }

    // A directory that does not exist: an error, nothing written.
    let missing = dir.path().join("nope/.terraform.lock.hcl");
    let err = file.write_atomically(&missing).expect_err("no directory");
    assert!(
        err.to_string()
            .starts_with("Failed to update dependency lock file"),
        "{err}"
    );
    // The target is a directory: the rename fails, the directory stays.
    let target = dir.path().join("locked");
    fs::create_dir(&target).expect("mkdir");
    fs::write(target.join("inside"), "x").expect("write");
    assert!(file.write_atomically(&target).is_err());
    assert_eq!(fs::read(target.join("inside")).expect("kept"), b"x");
    assert_eq!(fs::read_dir(dir.path()).expect("list").count(), 2);
}

/// LOCK-1: a missing file is an empty lock file, as for the CLIs.
#[test]
fn a_missing_file_is_an_empty_lock_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = LockFile::read(dir.path().join(".terraform.lock.hcl"), T).expect("empty");
    assert!(file.is_empty());
}

/// LOCK-4: strings the writer escapes read back as they were.
#[test]
fn escaped_strings_read_back() {
    let mut file = LockFile::new(T);
    let odd = ["h1:${x}%{y}", "zh:\"q\"\\\n\t\u{200b}é", "x:$$%%"];
    file.set(lock(
        "hashicorp/null",
        "1.0.0-rc.1+b",
        Some(">= 1.0.0, \"${x}\""),
        &odd,
    ));
    let text = written(&file);
    let reread = LockFile::parse(&text, "x", T).expect(&text);
    assert_eq!(reread, file, "{text}");
    assert_eq!(written(&reread), text);
}
