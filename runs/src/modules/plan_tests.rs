//! The module plan driven by hand: real module folders on disk, the
//! registry's and the getters' answers given by the test (no socket, no
//! `git`).

use std::fs;
use std::path::Path;

use tfdisco_config::{ModuleCall, ModuleManifest, ModuleRecord};
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, ModuleLocation, ModulePackage, ModuleVersions};

use super::failure::FailureKind;
use super::plan::{Finished, Job, ModulePlan, Output, Peeked};
use crate::plan_jobs::JobPlan;

const T: Dialect = Dialect::Terraform;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    fs::write(path, text).expect("a file");
}

/// What the test's registry and getters answer, and what they were asked.
#[derive(Default)]
struct World {
    /// (package `HOST/NS/NAME/SYSTEM`, versions).
    versions: Vec<(&'static str, &'static [&'static str])>,
    /// (package, version) → location.
    locations: Vec<(&'static str, &'static str, &'static str)>,
    /// package address → files (name, text) it holds.
    packages: Vec<(&'static str, &'static [(&'static str, &'static str)])>,
    asked: Vec<String>,
}

impl World {
    fn answer(&mut self, job: Job) -> Output {
        match job {
            Job::Calls { key, dir } => Output::Calls(ModuleCall::read_all(T, &key, dir)),
            Job::Versions { source } => {
                self.asked.push(format!("versions {source}"));
                let found = self.versions.iter().find(|(p, _)| *p == source.to_string());
                Output::Versions(match found {
                    Some((_, versions)) => Ok(ModuleVersions {
                        source: source.clone(),
                        url: Url::parse("https://registry.test/v1/modules/x/versions")
                            .expect("a URL"),
                        versions: versions.iter().map(|v| (*v).to_owned()).collect(),
                    }),
                    None => Err(tfdisco_core::Error::NotFound {
                        url: Box::new(Url::parse("https://registry.test/").expect("a URL")),
                        message: "no such module".into(),
                    }),
                })
            }
            Job::Location { source, version } => {
                self.asked.push(format!("location {source} {version}"));
                let Some((_, _, location)) = self
                    .locations
                    .iter()
                    .find(|(p, v, _)| *p == source.to_string() && *v == version)
                else {
                    return Output::Location(Err(tfdisco_core::Error::NotFound {
                        url: Box::new(Url::parse("https://registry.test/").expect("a URL")),
                        message: "no such version".into(),
                    }));
                };
                Output::Location(Ok(ModuleLocation {
                    source,
                    version,
                    location: (*location).to_owned(),
                    use_registry_credentials: None,
                    package: Some(ModulePackage::parse(location, T).expect("a package")),
                }))
            }
            Job::Fetch { package, into, .. } => {
                self.asked.push(format!("fetch {}", package.address()));
                let (_, files) = self
                    .packages
                    .iter()
                    .find(|(a, _)| *a == package.address())
                    .expect("a package the test gives");
                fs::create_dir(&into).expect("a new folder");
                for (name, text) in *files {
                    write(&into, name, text);
                }
                Output::Fetch(Ok(format!("h1:{}", package.address())))
            }
        }
    }

    /// Runs the plan to its end, one job at a time, but the fetch of
    /// `package` as a download still streaming: when it is asked, its
    /// fetch first tells the calls of `peeked` (a file's text), and it
    /// ends only once no other job is left.
    fn run_peeking(
        &mut self,
        mut plan: ModulePlan,
        package: &str,
        peeked: &str,
    ) -> Result<Finished, Vec<super::ModuleFailure>> {
        let scratch = tempfile::tempdir().expect("a folder");
        let mut streaming = None;
        loop {
            let Some((id, job)) = plan.next_job() else {
                match streaming.take() {
                    Some((id, job)) => {
                        let output = self.answer(job);
                        plan.complete(id, Ok(output));
                        continue;
                    }
                    None => break,
                }
            };
            if let Job::Fetch {
                package: p, watch, ..
            } = &job
                && p.address() == package
                && streaming.is_none()
            {
                self.asked.push(format!("streaming {package}"));
                write(scratch.path(), "peeked.tf", peeked);
                let calls =
                    ModuleCall::read_file(T, scratch.path().join("peeked.tf")).expect("calls");
                plan.noted(Peeked {
                    package: watch.package,
                    calls,
                });
                streaming = Some((id, job));
                continue;
            }
            let output = self.answer(job);
            plan.complete(id, Ok(output));
        }
        assert!(plan.is_finished());
        plan.finish()
    }

    /// Runs the plan to its end, one job at a time.
    fn run(&mut self, mut plan: ModulePlan) -> Result<Finished, Vec<super::ModuleFailure>> {
        while let Some((id, job)) = plan.next_job() {
            let output = self.answer(job);
            plan.complete(id, Ok(output));
        }
        assert!(plan.is_finished());
        plan.finish()
    }
}

/// The plan for the configuration in `root` with no manifest, fetching
/// into `staging`.
fn fresh_plan(root: &Path, staging: &Path) -> ModulePlan {
    ModulePlan::new(T, root, ModuleManifest::default(), staging, false)
}

fn keys_and_dirs(manifest: &ModuleManifest) -> Vec<(String, String, Option<String>)> {
    manifest
        .records()
        .map(|r| (r.key.clone(), r.dir.clone(), r.version.clone()))
        .collect()
}

#[test]
fn a_registry_module_gets_the_newest_version_its_constraint_allows() {
    let root = tempfile::tempdir().expect("a folder");
    let staging = tempfile::tempdir().expect("a folder");
    write(
        root.path(),
        "main.tf",
        r#"module "vpc" {
  source  = "registry.test/acme/vpc/aws//modules/net"
  version = "~> 1.1"
}
module "app" { source = "./app" }
"#,
    );
    write(root.path(), "app/main.tf", "");
    let mut world = World {
        versions: vec![(
            "registry.test/acme/vpc/aws",
            &["1.0.0", "1.2.0", "1.1.5", "2.0.0", "1.3.0-beta"],
        )],
        locations: vec![(
            "registry.test/acme/vpc/aws",
            "1.2.0",
            "https://files.test/vpc-1.2.0.zip//pkg",
        )],
        packages: vec![(
            "https://files.test/vpc-1.2.0.zip",
            &[
                (
                    "pkg/modules/net/main.tf",
                    r#"module "shared" { source = "../shared" }"#,
                ),
                ("pkg/modules/shared/main.tf", ""),
            ],
        )],
        ..World::default()
    };
    let plan = fresh_plan(root.path(), staging.path());
    let finished = world.run(plan).expect("installed");
    assert_eq!(
        keys_and_dirs(&finished.manifest),
        [
            ("".into(), ".".into(), None),
            ("app".into(), "app".into(), None),
            (
                "vpc".into(),
                ".terraform/modules/vpc/pkg/modules/net".into(),
                Some("1.2.0".into())
            ),
            (
                "vpc.shared".into(),
                ".terraform/modules/vpc/pkg/modules/shared".into(),
                None
            ),
        ]
    );
    let vpc = finished.manifest.get("vpc").expect("vpc");
    assert_eq!(vpc.source, "registry.test/acme/vpc/aws//modules/net");
    assert_eq!(
        world.asked,
        [
            "versions registry.test/acme/vpc/aws",
            "location registry.test/acme/vpc/aws 1.2.0",
            "fetch https://files.test/vpc-1.2.0.zip",
        ]
    );
    assert_eq!(finished.placements.len(), 1);
}

#[test]
fn two_calls_of_one_package_fetch_it_once_and_the_first_in_walk_order_keeps_it() {
    let root = tempfile::tempdir().expect("a folder");
    let staging = tempfile::tempdir().expect("a folder");
    write(
        root.path(),
        "main.tf",
        r#"module "b" { source = "git::https://git.test/net.git?ref=v1" }
module "a" { source = "./a" }
"#,
    );
    write(
        root.path(),
        "a/main.tf",
        r#"module "x" { source = "git::https://git.test/net.git//sub?ref=v1" }"#,
    );
    let mut world = World {
        packages: vec![(
            "git::https://git.test/net.git?ref=v1",
            &[("main.tf", ""), ("sub/main.tf", "")],
        )],
        ..World::default()
    };
    let plan = fresh_plan(root.path(), staging.path());
    let finished = world.run(plan).expect("installed");
    assert_eq!(world.asked, ["fetch git::https://git.test/net.git?ref=v1"]);
    // `a.x` comes before `b` in the walk: depth first, names sorted.
    let firsts: Vec<(String, bool)> = finished
        .placements
        .iter()
        .map(|p| (p.key.clone(), p.first))
        .collect();
    assert_eq!(firsts, [("a.x".into(), true), ("b".into(), false)]);
    assert_eq!(
        finished.manifest.get("a.x").map(|r| r.dir.as_str()),
        Some(".terraform/modules/a.x/sub")
    );
}

#[test]
fn what_the_manifest_lists_is_kept_without_a_request_unless_upgrading() {
    let root = tempfile::tempdir().expect("a folder");
    let staging = tempfile::tempdir().expect("a folder");
    write(
        root.path(),
        "main.tf",
        r#"module "vpc" {
  source  = "registry.test/acme/vpc/aws"
  version = ">= 1.0"
}"#,
    );
    write(root.path(), ".terraform/modules/vpc/main.tf", "");
    let mut old = ModuleManifest::new();
    old.insert(ModuleRecord {
        key: "vpc".into(),
        source: "registry.test/acme/vpc/aws".into(),
        version: Some("1.0.0".into()),
        dir: ".terraform/modules/vpc".into(),
    });
    let mut world = World {
        versions: vec![("registry.test/acme/vpc/aws", &["1.0.0", "1.1.0"])],
        locations: vec![(
            "registry.test/acme/vpc/aws",
            "1.1.0",
            "https://files.test/v.zip",
        )],
        packages: vec![("https://files.test/v.zip", &[("main.tf", "")])],
        ..World::default()
    };
    let kept = ModulePlan::new(T, root.path(), old.clone(), staging.path(), false);
    let finished = world.run(kept).expect("kept");
    assert!(world.asked.is_empty(), "{:?}", world.asked);
    assert_eq!(finished.manifest, old);
    assert!(finished.placements.is_empty());

    let upgraded = ModulePlan::new(T, root.path(), old, staging.path(), true);
    let finished = world.run(upgraded).expect("upgraded");
    assert_eq!(world.asked.len(), 3, "{:?}", world.asked);
    assert_eq!(
        finished
            .manifest
            .get("vpc")
            .and_then(|r| r.version.as_deref()),
        Some("1.1.0")
    );
}

#[test]
fn failures_are_all_said_and_nothing_is_placed() {
    let root = tempfile::tempdir().expect("a folder");
    let staging = tempfile::tempdir().expect("a folder");
    write(
        root.path(),
        "main.tf",
        r#"module "old" {
  source  = "registry.test/acme/vpc/aws"
  version = "> 5.0"
}
module "local" {
  source  = "./l"
  version = "1.0"
}
module "nosource" {}
module "bad" { source = "?archive=zip" }
"#,
    );
    write(root.path(), "l/main.tf", "");
    let mut world = World {
        versions: vec![("registry.test/acme/vpc/aws", &["1.0.0", "2.0.0"])],
        ..World::default()
    };
    let plan = fresh_plan(root.path(), staging.path());
    let failures = world.run(plan).expect_err("failures");
    let mut kinds: Vec<(String, FailureKind)> =
        failures.iter().map(|f| (f.key.clone(), f.kind)).collect();
    kinds.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        kinds,
        [
            ("bad".into(), FailureKind::InvalidSource),
            ("local".into(), FailureKind::Configuration),
            ("nosource".into(), FailureKind::Configuration),
            ("old".into(), FailureKind::NoVersion),
        ]
    );
    let old = failures.iter().find(|f| f.key == "old").expect("old");
    assert_eq!(
        old.diagnostic.summary(),
        "Unresolvable module version constraint"
    );
    assert!(
        old.diagnostic
            .detail()
            .is_some_and(|d| d.ends_with("The newest available version is 2.0.0.")),
        "{:?}",
        old.diagnostic.detail()
    );
}

#[test]
fn a_module_that_calls_itself_stops_at_the_module_limit() {
    let root = tempfile::tempdir().expect("a folder");
    let staging = tempfile::tempdir().expect("a folder");
    write(root.path(), "main.tf", r#"module "me" { source = "./" }"#);
    let plan = fresh_plan(root.path(), staging.path());
    let failures = World::default().run(plan).expect_err("too many");
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].diagnostic.summary(), "Too many modules");
    // The root module and 999 calls are the 1000 module instances: the
    // 1000th call, 999 dots deep, is refused.
    assert_eq!(
        failures[0].key.matches('.').count(),
        tfdisco_config::MAX_MODULES - 1
    );
}

#[test]
fn a_call_name_that_is_a_path_is_refused() {
    let root = tempfile::tempdir().expect("a folder");
    let staging = tempfile::tempdir().expect("a folder");
    write(
        root.path(),
        "main.tf.json",
        r#"{"module": {"../../escape": {"source": "./a"}, "fine-name_1": {"source": "./a"}}}"#,
    );
    write(root.path(), "a/main.tf", "");
    let plan = fresh_plan(root.path(), staging.path());
    let failures = World::default().run(plan).expect_err("refused");
    assert_eq!(failures.len(), 1);
    assert_eq!(
        failures[0].diagnostic.summary(),
        "Invalid module instance name"
    );
}

/// The registry of the hint tests: `app`, whose package calls `lib` (and
/// a module of another host, and a local folder), `lib` in two versions.
fn hinted_world() -> World {
    World {
        versions: vec![
            ("registry.test/acme/app/aws", &["1.0.0"]),
            ("registry.test/acme/lib/aws", &["1.0.0", "1.1.0", "2.0.0"]),
        ],
        locations: vec![
            (
                "registry.test/acme/app/aws",
                "1.0.0",
                "https://registry.test/files/app.zip",
            ),
            (
                "registry.test/acme/lib/aws",
                "1.1.0",
                "https://registry.test/files/lib-1.1.0.zip",
            ),
            (
                "registry.test/acme/lib/aws",
                "2.0.0",
                "https://registry.test/files/lib-2.0.0.zip",
            ),
        ],
        packages: vec![
            (
                "https://registry.test/files/app.zip",
                &[
                    (
                        "main.tf",
                        r#"module "lib" {
  source  = "registry.test/acme/lib/aws"
  version = "~> 1.0"
}
module "far" { source = "elsewhere.test/acme/far/aws" }
module "sub" { source = "./sub" }
"#,
                    ),
                    ("sub/main.tf", ""),
                ],
            ),
            (
                "https://registry.test/files/lib-1.1.0.zip",
                &[("main.tf", "")],
            ),
            (
                "https://registry.test/files/lib-2.0.0.zip",
                &[("main.tf", "")],
            ),
        ],
        ..World::default()
    }
}

/// What the hint tests' registry is asked first: `app`, its package
/// streaming, `lib` asked ahead (its archive too), then `app`'s package
/// whole.
const AHEAD: [&str; 7] = [
    "versions registry.test/acme/app/aws",
    "location registry.test/acme/app/aws 1.0.0",
    "streaming https://registry.test/files/app.zip",
    "versions registry.test/acme/lib/aws",
    "location registry.test/acme/lib/aws 1.1.0",
    "fetch https://registry.test/files/lib-1.1.0.zip",
    "fetch https://registry.test/files/app.zip",
];

/// The root of the hint tests: one call of `app`.
fn app_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("a folder");
    write(
        root.path(),
        "main.tf",
        r#"module "app" { source = "registry.test/acme/app/aws" }"#,
    );
    root
}

/// A package's file told while it streams (MOD-16): the call it names on
/// the run's host is asked, and its archive fetched, before the package is
/// whole; once it is, the call read finds them and asks nothing twice. The
/// call on another host waits for the read, as without the hint.
#[test]
fn a_call_told_while_its_package_streams_is_asked_before_the_package_is_whole() {
    let root = app_root();
    let staging = tempfile::tempdir().expect("a folder");
    let mut world = hinted_world();
    world
        .versions
        .push(("elsewhere.test/acme/far/aws", &["3.0.0"]));
    world.locations.push((
        "elsewhere.test/acme/far/aws",
        "3.0.0",
        "https://elsewhere.test/far.zip",
    ));
    world
        .packages
        .push(("https://elsewhere.test/far.zip", &[("main.tf", "")]));
    let told = world.packages[0].1[0].1;
    let plan = fresh_plan(root.path(), staging.path());
    let finished = world
        .run_peeking(plan, "https://registry.test/files/app.zip", told)
        .expect("installed");
    let far = [
        "versions elsewhere.test/acme/far/aws",
        "location elsewhere.test/acme/far/aws 3.0.0",
        "fetch https://elsewhere.test/far.zip",
    ];
    assert_eq!(world.asked, [&AHEAD[..], &far].concat());
    let mut unhinted = World {
        versions: world.versions.clone(),
        locations: world.locations.clone(),
        packages: world.packages.clone(),
        ..World::default()
    };
    let staging = tempfile::tempdir().expect("a folder");
    let plan = fresh_plan(root.path(), staging.path());
    let without = unhinted.run(plan).expect("installed");
    assert_eq!(
        keys_and_dirs(&finished.manifest),
        keys_and_dirs(&without.manifest)
    );
    assert_eq!(
        finished
            .manifest
            .get("app.lib")
            .and_then(|r| r.version.as_deref()),
        Some("1.1.0")
    );
    let keys: Vec<&str> = finished.placements.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["app", "app.far", "app.lib"]);
}

/// A wrong guess (an override file the package streams later changes the
/// constraint) costs requests, never the result: what is installed is
/// what the package's calls say, and nothing the guess asked fails the
/// run, not even a version the registry cannot locate.
#[test]
fn a_wrong_guess_changes_nothing_installed_and_fails_nothing() {
    let root = app_root();
    for locatable in [true, false] {
        let staging = tempfile::tempdir().expect("a folder");
        let mut world = hinted_world();
        world.packages[0].1 = &[
            (
                "main.tf",
                r#"module "lib" {
  source  = "registry.test/acme/lib/aws"
  version = "~> 1.0"
}
"#,
            ),
            ("override.tf", r#"module "lib" { version = "2.0.0" }"#),
        ];
        if !locatable {
            world.locations.retain(|(_, v, _)| *v != "1.1.0");
        }
        let told = world.packages[0].1[0].1;
        let plan = fresh_plan(root.path(), staging.path());
        let finished = world
            .run_peeking(plan, "https://registry.test/files/app.zip", told)
            .expect("installed");
        assert_eq!(
            finished
                .manifest
                .get("app.lib")
                .and_then(|r| r.version.as_deref()),
            Some("2.0.0")
        );
        let read = [
            "location registry.test/acme/lib/aws 2.0.0",
            "fetch https://registry.test/files/lib-2.0.0.zip",
        ];
        let mut asked = [&AHEAD[..], &read].concat();
        if !locatable {
            asked.remove(5);
        }
        assert_eq!(world.asked, asked);
        let lib = finished
            .placements
            .iter()
            .find(|p| p.key == "app.lib")
            .expect("placed");
        assert_eq!(
            fs::read_dir(&lib.from).expect("its package").count(),
            1,
            "lib-2.0.0.zip's one file"
        );
        assert_ne!(lib.from, finished.placements[0].from);
    }
}
