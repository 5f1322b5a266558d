//! The shared module cache with `oci://` packages (docs/behaviour.md,
//! MOD-13): the entry holds the manifest and the blob, so a second working
//! directory whose module lock records the manifest's digest installs
//! without a request to the registry, and an entry whose blob or manifest
//! someone changed is not taken: fetched again and replaced. The real
//! binary against a real registry (CNCF distribution 2.8) on loopback.
#![cfg(unix)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{Run, get_in};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry};

const FILES: &[(&str, u32, &[u8])] = &[
    ("main.tf", 0o100_644, b"output \"ok\" { value = true }\n"),
    ("sub/variables.tf", 0o100_644, b"variable \"x\" {}\n"),
];

fn get(home: &Path, dir: &Path, cache: &Path, extra: &[&str]) -> Run {
    let cache = cache.to_string_lossy();
    let mut args = vec!["--module-cache", &cache];
    args.extend_from_slice(extra);
    get_in(home, dir, "opentofu", &args)
}

/// How many requests for the package the registry's access log shows
/// whose line holds `what`.
fn logged(registry: &OciRegistry, what: &str) -> usize {
    registry
        .log()
        .lines()
        .filter(|line| line.contains("/v2/modules/app/") && line.contains(what))
        .count()
}

/// How many times the registry served the package's blob.
fn blob_gets(registry: &OciRegistry) -> usize {
    logged(registry, "\"GET /v2/modules/app/blobs/")
}

/// A working directory `name` calling the package, with `lock` (the
/// module lock's text) beside it when given.
fn workdir(scratch: &Path, name: &str, source: &str, lock: Option<&str>) -> PathBuf {
    let dir = scratch.join(name);
    fs::create_dir_all(&dir).expect("a folder");
    fs::write(
        dir.join("main.tf"),
        format!("module \"app\" {{\n  source = \"{source}\"\n}}\n"),
    )
    .expect("a configuration");
    if let Some(lock) = lock {
        fs::write(dir.join(".tfdisco.modules.lock.json"), lock).expect("a lock");
    }
    dir
}

fn installed(dir: &Path) -> Vec<(String, Vec<u8>)> {
    FILES
        .iter()
        .map(|(name, _, _)| {
            let path = dir.join(".terraform/modules/app").join(name);
            ((*name).to_owned(), fs::read(&path).expect("installed"))
        })
        .collect()
}

#[test]
fn an_oci_package_comes_from_the_cache_only_when_its_manifest_and_blob_are_the_locked_ones() {
    let registry = OciRegistry::start(OciAuth::Anonymous);
    let pushed = registry.push_module("modules/app", "1.0.0", &stored_zip(FILES));
    let source = format!("oci://{}/modules/app?tag=1.0.0", registry.host());
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir_all(&home).expect("a home");
    let cache = scratch.path().join("cache");
    let want: Vec<(String, Vec<u8>)> = FILES
        .iter()
        .map(|(n, _, d)| ((*n).to_owned(), d.to_vec()))
        .collect();

    let first = workdir(scratch.path(), "first", &source, None);
    let run = get(&home, &first, &cache, &["--lock"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(blob_gets(&registry), 1);
    let lock = fs::read_to_string(first.join(".tfdisco.modules.lock.json")).expect("a lock");
    assert!(lock.contains(&pushed.manifest_digest), "{lock}");
    let entries: Vec<PathBuf> = fs::read_dir(cache.join("v1"))
        .expect("entries")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    let mut held: Vec<String> = fs::read_dir(entry)
        .expect("the entry")
        .map(|e| {
            e.expect("a file")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    held.sort();
    assert_eq!(
        held,
        ["blob", "manifest", "media-type"],
        "the manifest and blob, no files"
    );

    // A second working directory with the lock: no request at all.
    let before = logged(&registry, "HTTP/");
    assert!(
        before >= 2,
        "the access log shows the manifest and blob requests"
    );
    let second = workdir(scratch.path(), "second", &source, Some(&lock));
    let run = get(&home, &second, &cache, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(installed(&second), want);
    assert_eq!(
        logged(&registry, "HTTP/"),
        before,
        "the registry is not asked"
    );

    // A changed blob, then a changed manifest: not taken, fetched again,
    // the entry replaced by what the registry gives.
    let blob = fs::read(entry.join("blob")).expect("the blob");
    let mut planted = blob.clone();
    let last = planted.len() - 30;
    planted[last] ^= 0x20;
    fs::write(entry.join("blob"), &planted).expect("planted");
    let third = workdir(scratch.path(), "third", &source, Some(&lock));
    let run = get(&home, &third, &cache, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(installed(&third), want);
    assert_eq!(blob_gets(&registry), 2, "fetched again");
    assert_eq!(
        fs::read(entry.join("blob")).expect("the blob"),
        blob,
        "replaced"
    );

    let manifest = fs::read_to_string(entry.join("manifest")).expect("the manifest");
    fs::write(entry.join("manifest"), manifest.replacen('{', "{ ", 1)).expect("planted");
    let fourth = workdir(scratch.path(), "fourth", &source, Some(&lock));
    let run = get(&home, &fourth, &cache, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(installed(&fourth), want);
    assert_eq!(blob_gets(&registry), 3, "fetched again");
    assert_eq!(
        fs::read_to_string(entry.join("manifest")).expect("the manifest"),
        manifest,
        "replaced"
    );
}
