//! Mirror runs against the signed registry, compared with the folders
//! Terraform 1.11.4's `providers mirror` wrote for the same input
//! ([`mirror_goldens`](crate::mirror_goldens)).

use std::collections::BTreeMap;
use std::path::Path;

use tfdisco_core::{Dialect, Platform};
use tfdisco_runs::{BlockingRuns, MirrorOptions, MirrorReport, RunError};

use super::lock::Scratch;
use super::{Subject, build, builder};
use crate::mirror_goldens::{CASES, Case, read_tree};
use crate::{TestServer, signed_registry};

/// A folder's files by path.
type Tree = BTreeMap<String, Vec<u8>>;

/// Runs `case` as `tfdisco mirror` would on a fresh server, the registry
/// spoiled by `spoil`: its input, its seeded folder, its platforms. Returns
/// the result, the folder before and after, and the server's host.
fn run_case<T: Subject>(
    case: &Case,
    spoil: impl FnOnce(&signed_registry::SignedRegistry<'_>),
) -> (Result<MirrorReport, RunError>, Tree, Tree, String) {
    let server = TestServer::start();
    let registry = signed_registry::install(&server);
    spoil(&registry);
    let host = server.host().to_string();
    let scratch = Scratch::new(case.name);
    let dir = scratch.path().join("run");
    case.prepare(&dir, &host);
    let out = scratch.path().join("out");
    case.seed(&out, &host);
    let before = read_tree(&out);
    let client = build::<T>(builder::<T>().dialect(Dialect::Terraform));
    let mut options = MirrorOptions::new();
    for platform in case.platforms {
        options = options.platform(Platform::parse(platform).expect("a platform"));
    }
    let result = client.mirror(&dir, &out, &options);
    (result, before, read_tree(&out), host)
}

/// MIRROR-9 to MIRROR-12: for every case, the folder holds what Terraform
/// wrote there, byte for byte: the archives under their names, each
/// provider's `index.json` and `<version>.json` (also listing what the
/// folder held before).
pub fn mirror_folders_as_terraform_writes_them<T: Subject>() {
    for case in CASES {
        let (result, _, after, host) = run_case::<T>(case, |_| {});
        let report = match result {
            Ok(report) => report,
            Err(e) => panic!("{}: {}: {e}", T::NAME, case.name),
        };
        let expected = case.expected(&host);
        let paths = |tree: &Tree| tree.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            paths(&after),
            paths(&expected),
            "{}: {}",
            T::NAME,
            case.name
        );
        for (path, bytes) in &expected {
            assert!(
                after.get(path) == Some(bytes),
                "{}: {}: {path} differs:\n{}\nexpected:\n{}",
                T::NAME,
                case.name,
                String::from_utf8_lossy(&after[path]),
                String::from_utf8_lossy(bytes)
            );
        }
        let locked = !case.before_platforms.is_empty();
        for provider in &report.providers {
            assert_eq!(provider.locked, locked, "{}: {}", T::NAME, case.name);
            assert_eq!(provider.key_id, Some(signed_registry::key_id()));
            assert_eq!(provider.archives.len(), case.platforms.len());
        }
    }
}

/// MIRROR-11: a package that fails verification leaves the folder as it
/// was: no archive under a final name, no staging file, no index changed.
pub fn a_failed_mirror_leaves_the_folder_as_it_was<T: Subject>() {
    let case = CASES
        .iter()
        .find(|c| c.name == "mirror-locked")
        .expect("mirror-locked");
    let (result, before, after, _) = run_case::<T>(case, |registry| {
        registry.corrupt("alpha", "1.0.0", "linux_amd64");
    });
    let Err(RunError::Failed(failures)) = result else {
        panic!(
            "{}: mirrored despite a corrupt archive: {result:?}",
            T::NAME
        );
    };
    assert_eq!(
        failures[0].kind(),
        "checksum",
        "{}: {}",
        T::NAME,
        failures[0]
    );
    assert_eq!(after, before, "{}", T::NAME);
    assert!(
        !after.keys().any(|p| Path::new(p)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))),
        "{}: a staging file was left: {:?}",
        T::NAME,
        after.keys()
    );
}
