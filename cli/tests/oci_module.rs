//! `tfdisco module resolve` and `tfdisco module download` for `oci://`
//! sources (docs/behaviour.md, OCIMOD-1 to OCIMOD-8), the real binary
//! against a real registry (CNCF distribution 2.8) on loopback, anonymous:
//! JSON shapes, human output, exit codes, and what is left on disk.
#![cfg(unix)]

mod common;

use std::fs;
use std::path::Path;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry, PushedArtifact};

const REPOSITORY: &str = "modules/app";
const FILES: &[(&str, u32, &[u8])] = &[
    ("main.tf", 0o100_644, b"output \"ok\" { value = true }\n"),
    ("sub/variables.tf", 0o100_644, b"variable \"x\" {}\n"),
];

struct Fixture {
    registry: OciRegistry,
    pushed: PushedArtifact,
    home: tempfile::TempDir,
}

impl Fixture {
    fn start() -> Fixture {
        let registry = OciRegistry::start(OciAuth::Anonymous);
        let zip = stored_zip(FILES);
        let pushed = registry.push_module(REPOSITORY, "1.0.0", &zip);
        registry.push_module(REPOSITORY, "latest", &zip);
        Fixture {
            registry,
            pushed,
            home: tempfile::tempdir().expect("a home"),
        }
    }

    fn source(&self, rest: &str) -> String {
        format!("oci://{}/{REPOSITORY}{rest}", self.registry.host())
    }

    fn run(&self, args: &[&str]) -> Run {
        let ca = ca_file();
        let mut all = args.to_vec();
        all.extend_from_slice(&["--ca-file", ca.as_str()]);
        tfdisco(self.home.path(), &[], &all)
    }
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, _, _) in FILES {
        out.push((
            (*name).to_owned(),
            fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")),
        ));
    }
    out
}

fn expected() -> Vec<(String, Vec<u8>)> {
    FILES
        .iter()
        .map(|(n, _, d)| ((*n).to_owned(), d.to_vec()))
        .collect()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("a folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn resolve_prints_the_pinned_source_and_its_digest() {
    let f = Fixture::start();
    let digest = &f.pushed.manifest_digest;
    let pinned = f.source(&format!("?digest={digest}"));

    let r = f.run(&["module", "resolve", &f.source("?tag=1.0.0"), "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["source"], f.source("?tag=1.0.0"));
    assert_eq!(v["registry"], f.registry.host());
    assert_eq!(v["repository"], REPOSITORY);
    assert_eq!(v["tag"], "1.0.0");
    assert_eq!(v["digest"], digest.as_str());
    assert_eq!(
        v["media_type"],
        "application/vnd.oci.image.manifest.v1+json"
    );
    assert_eq!(v["size"], f.pushed.manifest.len());
    assert_eq!(v["pinned"], pinned);
    assert_eq!(v["package"]["digest"], f.pushed.zip_digest.as_str());
    assert_eq!(v["package"]["media_type"], "archive/zip");

    // For people: the pinned source first, then the digest.
    let r = f.run(&["module", "resolve", &f.source("")]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], pinned);
    assert!(
        lines
            .iter()
            .any(|l| l.contains(digest.as_str()) && l.contains("digest"))
    );

    // By the digest: no tag.
    let r = f.run(&["module", "resolve", &pinned, "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["tag"], serde_json::Value::Null);
    assert_eq!(v["digest"], digest.as_str());
}

#[test]
fn download_unpacks_the_package_into_the_folder() {
    let f = Fixture::start();
    let work = tempfile::tempdir().expect("a folder");
    let into = work.path().join(".terraform/modules/app");
    let into_text = into.to_string_lossy().into_owned();
    let r = f.run(&[
        "module",
        "download",
        &f.source("//sub?tag=1.0.0"),
        "--into",
        &into_text,
        "--json",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(files(&into), expected());
    let v = r.json();
    assert_eq!(v["into"], into_text);
    assert_eq!(v["module_dir"], into.join("sub").to_string_lossy().as_ref());
    assert_eq!(v["files"], 2);
    assert_eq!(v["digest"], f.pushed.manifest_digest.as_str());
    assert_eq!(
        v["pinned"],
        f.source(&format!("//sub?digest={}", f.pushed.manifest_digest))
    );

    // By the pinned digest, for people.
    let again = work.path().join("again");
    let pinned = f.source(&format!("?digest={}", f.pushed.manifest_digest));
    let r = f.run(&[
        "module",
        "download",
        &pinned,
        "--into",
        &again.to_string_lossy(),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(files(&again), expected());
    assert!(r.stdout.starts_with(&pinned), "{}", r.stdout);

    // The folder now holds the package: a second download refuses it.
    let r = f.run(&[
        "module",
        "download",
        &pinned,
        "--into",
        &again.to_string_lossy(),
    ]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
    assert_eq!(entries(work.path()), [".terraform", "again"]);
}

#[test]
fn refusals_and_their_exit_codes() {
    let f = Fixture::start();
    let work = tempfile::tempdir().expect("a folder");
    let into = work.path().join("into");
    let into = into.to_string_lossy().into_owned();

    // No such tag: 3, OpenTofu's words, JSON on stdout.
    let r = f.run(&[
        "module",
        "download",
        &f.source("?tag=9.9.9"),
        "--into",
        &into,
        "--json",
    ]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["error"]["kind"], "not_found");
    let message = v["error"]["message"].as_str().expect("a message");
    assert!(
        message.starts_with(&format!(
            "resolving tag: {}/{REPOSITORY}:9.9.9: not found",
            f.registry.host()
        )),
        "{message}"
    );

    // An index where a module's manifest should be: 1.
    f.registry.push_provider(
        REPOSITORY,
        "2.0.0",
        &[("linux", "amd64", b"PK\x05\x06 no zip")],
    );
    let r = f.run(&[
        "module",
        "download",
        &f.source("?tag=2.0.0"),
        "--into",
        &into,
    ]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("selected object is not an OCI image manifest"),
        "{}",
        r.stderr
    );
    assert!(entries(work.path()).is_empty(), "nothing left behind");

    // Sources that never reach the registry: 2.
    for (args, words) in [
        (
            vec!["module", "resolve", "oci://h.example/app?tag="],
            "tag argument must not be empty",
        ),
        (
            vec![
                "module",
                "resolve",
                "oci://h.example/app",
                "--dialect",
                "terraform",
            ],
            "OpenTofu's only",
        ),
        (
            vec![
                "module",
                "download",
                "oci://h.example/app",
                "1.0.0",
                "--into",
                &into,
            ],
            "takes no VERSION",
        ),
        (
            vec!["module", "download", "oci://h.example/app"],
            "give --into DIR",
        ),
        (
            vec!["module", "download", "hashicorp/consul/aws"],
            "needs a VERSION",
        ),
        (
            vec![
                "module",
                "download",
                "hashicorp/consul/aws",
                "1.0.0",
                "--into",
                &into,
            ],
            "--into is for oci:// sources",
        ),
    ] {
        let r = f.run(&args);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(words), "{args:?}: {}", r.stderr);
    }
    assert!(entries(work.path()).is_empty());
}
