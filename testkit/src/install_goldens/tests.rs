//! The committed goldens against [`CASES`], without `terraform`.

use std::collections::BTreeSet;

use super::*;
use crate::lock_goldens;
use tfdisco_config::{Dialect, LockFile};

/// The providers' host the fixtures are read with here.
fn host_of(case: &Case) -> &'static str {
    case.host.unwrap_or("localhost:8443")
}

fn parses_as_lock_file(text: &str, what: &str) {
    LockFile::parse(text, what, Dialect::Terraform)
        .unwrap_or_else(|e| panic!("{what}: {e:?}\n{text}"));
}

#[test]
fn every_case_has_its_files_and_they_parse() {
    assert!(!CASES.is_empty());
    for case in CASES {
        let dir = case.dir();
        let host = host_of(case);
        for file in CASE_FILES {
            assert!(dir.join(file).is_file(), "{}: no {file}", case.name);
        }
        assert_eq!(case.terraform_exit(), case.exit, "{}", case.name);
        for (what, text) in [
            ("before.txt", case.before_tree(host)),
            ("tree.txt", case.expected_tree(host)),
        ] {
            for line in text.lines() {
                assert!(parse_line(line).is_some(), "{}: {what}: {line}", case.name);
            }
        }
        for request in case.terraform_requests(host) {
            let (method, path) = request
                .split_once(' ')
                .unwrap_or_else(|| panic!("{}: {request}", case.name));
            assert!(
                ["GET", "HEAD"].contains(&method) && path.starts_with('/'),
                "{}: {request}",
                case.name
            );
        }
        assert!(
            !case.terraform_output(host).trim().is_empty(),
            "{}: terraform.out is empty",
            case.name
        );
        if let Some(lock) = case.expected_lock(host) {
            parses_as_lock_file(&lock, &format!("{}/{LOCK_GOLDEN}", case.name));
        }
        assert_eq!(
            case.input_lock(host).is_some(),
            case.lock != LockInput::None,
            "{}: input/{LOCK_FILE}",
            case.name
        );
        if let Some(lock) = case.input_lock(host) {
            parses_as_lock_file(&lock, &format!("{}/input/{LOCK_FILE}", case.name));
        }
    }
}

#[test]
fn the_goldens_and_the_cases_agree() {
    let names: BTreeSet<String> = CASES.iter().map(|c| c.name.to_owned()).collect();
    assert_eq!(names.len(), CASES.len(), "a name used twice");
    let folders: BTreeSet<String> = fs::read_dir(goldens_dir())
        .expect("the goldens' folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        folders, names,
        "folders without a case or cases without files"
    );
    let known: BTreeSet<&str> = CASE_FILES
        .iter()
        .map(|f| f.split('/').next().expect("a name"))
        .chain([LOCK_GOLDEN])
        .collect();
    for case in CASES {
        for entry in fs::read_dir(case.dir()).expect("a case folder") {
            let name = entry.expect("an entry").file_name();
            let name = name.to_string_lossy();
            assert!(known.contains(&*name), "{}: stray {name}", case.name);
        }
        for entry in fs::read_dir(case.dir().join("input")).expect("input/") {
            let name = entry.expect("an entry").file_name();
            let name = name.to_string_lossy();
            assert!(
                name == "main.tf" || name == LOCK_FILE,
                "{}: stray input/{name}",
                case.name
            );
        }
    }
}

#[test]
fn input_lock_files_are_their_sources() {
    for case in CASES {
        let host = host_of(case);
        match case.lock {
            LockInput::Case(other) => {
                let other = super::case(other);
                let position = |name: &str| CASES.iter().position(|c| c.name == name);
                assert!(
                    position(other.name) < position(case.name),
                    "{}: {} is made after it",
                    case.name,
                    other.name
                );
                assert_eq!(
                    case.input_lock(host),
                    other.expected_lock(host),
                    "{}",
                    case.name
                );
            }
            LockInput::LockGolden(other) => {
                let golden = lock_goldens::CASES
                    .iter()
                    .find(|c| c.name == other)
                    .unwrap_or_else(|| panic!("{}: no lock golden {other}", case.name));
                assert_eq!(case.input_lock(host), golden.before(host), "{}", case.name);
            }
            LockInput::ProvidersLock { .. } | LockInput::None => {}
        }
    }
}

#[test]
fn prepare_makes_before_txt() {
    let umask = process_umask();
    for case in CASES {
        let host = host_of(case);
        let scratch = tempfile::tempdir().expect("temp dir");
        let dir = scratch.path().join("work");
        let cache = scratch.path().join("cache");
        let cache = case.uses_cache().then_some(cache.as_path());
        case.prepare(&dir, cache, host);
        assert_eq!(
            tree_manifest(&dir, cache),
            with_umask(&case.before_tree(host), umask),
            "{}",
            case.name
        );
        assert!(dir.join("main.tf").is_file(), "{}", case.name);
        match case.source {
            Source::FsMirror(_) | Source::FsMirrorZip(_) => {
                assert!(dir.join(FS_MIRROR_DIR).join(host).is_dir(), "{}", case.name)
            }
            Source::Registry | Source::NetMirror(_) => {
                assert!(!dir.join(FS_MIRROR_DIR).exists(), "{}", case.name)
            }
            Source::Methods(methods) => {
                for method in methods {
                    if let Via::FsMirror { folder, .. } = method.via {
                        assert!(dir.join(folder).join(host).is_dir(), "{}", case.name)
                    }
                }
            }
        }
    }
}

/// The lines of a manifest whose path starts with `prefix`.
fn under(manifest: &str, prefix: &str) -> String {
    manifest
        .lines()
        .filter(|l| parse_line(l).is_some_and(|e| e.path.starts_with(prefix)))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn prepared_installs_are_what_terraform_installed() {
    let host = "localhost:8443";
    // An install unpacked by the testkit is the one `init` made.
    assert_eq!(
        case("kept").before_tree(host),
        case("fresh").expected_tree(host)
    );
    // A cache filled by the testkit is the one `init` filled.
    let filled = under(&case("cache-fill").expected_tree(host), CACHE);
    assert!(!filled.is_empty());
    for name in ["cache-hit", "cache-no-lock", "cache-may-break"] {
        assert_eq!(case(name).before_tree(host), filled, "{name}");
    }
    // The changed ones differ from fresh's in the one file.
    let fresh = case("fresh").expected_tree(host);
    for (name, changed) in [("modified", 1), ("extra-file", 1)] {
        let before = case(name).before_tree(host);
        let fresh_lines: BTreeSet<&str> = fresh.lines().collect();
        let before_lines: BTreeSet<&str> = before.lines().collect();
        assert_eq!(
            before_lines.difference(&fresh_lines).count(),
            changed,
            "{name}"
        );
    }
}

#[test]
fn every_expectation_resolves() {
    for case in CASES {
        let host = host_of(case);
        let expected = case.expected_for_tfdisco(host);
        if let Expect::Differs {
            why, tree, lock, ..
        } = case.tfdisco
        {
            assert!(!why.is_empty(), "{}", case.name);
            if let Tree::Case(other) = tree {
                assert!(CASES.iter().any(|c| c.name == other), "{}", case.name);
            }
            if lock == Lock::Before {
                assert_eq!(expected.lock, case.input_lock(host), "{}", case.name);
            }
        }
        for line in expected.tree.lines() {
            assert!(parse_line(line).is_some(), "{}: {line}", case.name);
        }
    }
}

/// Terraform's own result, as an observation.
fn terraform_observation(case: &Case, host: &str) -> Observed {
    Observed {
        exit: case.terraform_exit(),
        tree: case.expected_tree(host),
        lock: case.expected_lock(host),
        requests: case.terraform_requests(host),
    }
}

#[test]
fn terraform_passes_the_checks_of_the_cases_it_shares() {
    for case in CASES {
        let host = host_of(case);
        let result = case
            .expected_for_tfdisco(host)
            .check(&terraform_observation(case, host));
        match case.tfdisco {
            Expect::Same => {
                result.unwrap_or_else(|e| panic!("{}: {e}", case.name));
            }
            Expect::Differs { .. } => {
                assert!(result.is_err(), "{}: no difference", case.name);
            }
        }
    }
}

#[test]
fn checks_say_what_differs() {
    let host = "localhost:8443";
    let kept = case("kept");
    let expected = kept.expected_for_tfdisco(host);
    assert_eq!(expected.requests, ExpectedRequests::None);
    let mut observed = terraform_observation(kept, host);
    observed.requests.clear();
    assert_eq!(expected.check(&observed), Ok(()));

    // A lock file beside a cache entry is tfdisco's own; anything else in
    // the tree is a difference.
    let mut with_side_file = observed.clone();
    with_side_file.tree = format!(
        "{}file 0644 {{CACHE}}/{host}/ns/alpha/1.1.0/linux_amd64.lock {}\n",
        observed.tree,
        "0".repeat(64)
    );
    let (tree, side) = split_cache_lock_files(&with_side_file.tree);
    assert_eq!(tree, observed.tree);
    assert_eq!(side.len(), 1);
    // Any other file beside it is one Terraform does not write.
    let mut with_metadata = observed.clone();
    with_metadata.tree = format!(
        "{}file 0644 {{CACHE}}/{host}/ns/alpha/1.1.0/linux_amd64.metadata.json {}\n",
        observed.tree,
        "0".repeat(64)
    );
    let error = expected.check(&with_metadata).expect_err("a file too many");
    assert!(error.contains("the tree differs"), "{error}");
    let mut wrong = observed.clone();
    wrong.exit = 3;
    wrong.tree.push_str("dir 0755 .terraform/providers/x\n");
    wrong.lock = None;
    wrong.requests.push("GET /files/a.zip".into());
    let error = expected.check(&wrong).expect_err("four differences");
    for words in [
        "exit code 3",
        "the tree differs",
        "the lock file differs",
        "requests were made",
    ] {
        assert!(error.contains(words), "{words:?} in {error}");
    }

    // Downloads: the same archives, each once.
    let fresh = case("fresh");
    let expected = fresh.expected_for_tfdisco(host);
    let ExpectedRequests::Downloads(archives) = &expected.requests else {
        panic!("fresh downloads");
    };
    assert_eq!(archives.len(), 2, "{archives:?}");
    let mut twice = terraform_observation(fresh, host);
    twice.requests.push(format!("GET {}", archives[0]));
    let error = expected.check(&twice).expect_err("a second download");
    assert!(error.contains("downloads"), "{error}");
}

#[test]
fn masking_clears_only_the_special_bits_of_files() {
    let sum = "b".repeat(64);
    let manifest = format!("dir 0755 a\nfile 4755 a/x {sum}\nfile 0600 a/y {sum}\n");
    assert_eq!(
        masked(&manifest),
        format!("dir 0755 a\nfile 0755 a/x {sum}\nfile 0600 a/y {sum}\n")
    );
}

#[test]
fn cli_configurations_parse() {
    let server = TestServer::start();
    let dir = Path::new("/work/dir");
    for case in CASES {
        let text = case.cli_config(dir, &server);
        let config = tfdisco_config::CliConfig::from_sources_in(
            Dialect::Terraform,
            &tfdisco_config::Env::empty(),
            [("terraformrc", text.as_str())],
        );
        let errors: Vec<String> = config
            .diagnostics()
            .iter()
            .filter(|d| d.severity() == tfdisco_config::Severity::Error)
            .map(|d| d.message())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}\n{text}", case.name);
        assert_eq!(
            config.explicit_provider_installation().is_some(),
            !matches!(case.source, Source::Registry),
            "{}: {text}",
            case.name
        );
        match case.source {
            Source::Registry => assert!(!text.contains("provider_installation")),
            Source::FsMirror(_) | Source::FsMirrorZip(_) => {
                assert!(text.contains("\"/work/dir/fs-mirror\""), "{text}")
            }
            Source::NetMirror(_) => assert!(text.contains(&server.url(MIRROR_PATH)), "{text}"),
            Source::Methods(methods) => {
                let installation = config
                    .explicit_provider_installation()
                    .expect("a provider_installation block");
                assert_eq!(installation.methods.len(), methods.len(), "{text}");
                for (method, read) in methods.iter().zip(&installation.methods) {
                    let name = match method.via {
                        Via::Direct => "direct",
                        Via::FsMirror { .. } => "filesystem_mirror",
                        Via::NetMirror { .. } => "network_mirror",
                    };
                    assert_eq!(read.kind.name(), name, "{text}");
                    assert_eq!(read.include.len(), method.include.len(), "{text}");
                    assert_eq!(read.exclude.len(), method.exclude.len(), "{text}");
                }
                if case.host.is_some() && methods.iter().any(|m| matches!(m.via, Via::Direct)) {
                    assert!(text.contains(&server.url("/v1/providers/")), "{text}");
                }
            }
        }
    }
}

/// The mirrors a case of several methods serves are what `providers
/// mirror` would have written for the same packages: the network mirror's
/// documents list each archive's `h1:` of the signed registry's zip.
#[test]
fn mirrors_of_several_methods_serve_their_packages() {
    let case = case("net-mirror-then-direct");
    let server = TestServer::start();
    case.serve(&server);
    let host = case.host(&server);
    let get = |path: String| {
        use std::io::{Read as _, Write as _};
        let mut tcp =
            std::net::TcpStream::connect(("127.0.0.1", server.http_port())).expect("connect");
        write!(
            tcp,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut response = String::new();
        tcp.read_to_string(&mut response).expect("read");
        let (head, body) = response.split_once("\r\n\r\n").expect("a head");
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        (status, body.to_owned())
    };
    let index = get(format!("{MIRROR_PATH}{host}/ns/alpha/index.json"));
    assert_eq!(index.0, 200);
    assert!(index.1.contains("\"1.1.0\": {}"), "{}", index.1);
    let (status, listed) = get(format!("{MIRROR_PATH}{host}/ns/alpha/1.1.0.json"));
    assert_eq!(status, 200);
    // The linux_amd64 archive's h1:, as the lock golden made from
    // `providers mirror`'s tree records it.
    assert!(
        listed.contains("h1:7deXbkEF87oCZkxr6uceFLhqOwpYAj2wydqVdQSwDWs="),
        "{listed}"
    );
    assert_eq!(
        get(format!("{MIRROR_PATH}{host}/ns/beta/index.json")).0,
        404
    );
}

/// Whether the Terraform the goldens were made with runs here, and this
/// process has their umask (the installs [`Case::prepare`] makes have
/// it).
fn golden_terraform() -> bool {
    if process_umask() != UMASK {
        eprintln!("skipped: the umask is not {UMASK:03o}");
        return false;
    }
    match terraform_version() {
        Some(version) if version == TERRAFORM_VERSION => true,
        found => {
            eprintln!("skipped: no Terraform {TERRAFORM_VERSION} here ({found:?})");
            false
        }
    }
}

/// What `terraform init ARGS` does with the case's input now: the
/// providers' host, what it left, what it printed.
fn run_case(case: &Case, args: &[&str]) -> (String, Observed, String) {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("temp dir");
    let setup = case.setup(&server, scratch.path());
    server.take_requests();
    let (exit, output) = run_terraform_init(&setup.dir, &setup.env(), args);
    let observed = setup.observe(exit, &server.take_requests());
    (setup.host, observed, output)
}

/// `terraform init -lockfile=readonly` after an install accepts it and
/// downloads nothing: what a test does after `tfdisco install`, here after
/// the testkit's own (`Case::prepare`) installs.
#[test]
fn terraform_accepts_the_prepared_installs() {
    if !golden_terraform() {
        return;
    }
    for name in ["kept", "cache-hit"] {
        let case = case(name);
        let (host, observed, output) = run_case(case, &["-lockfile=readonly"]);
        assert_eq!(observed.exit, 0, "{name}: {output}");
        assert_eq!(
            downloads(&observed.requests),
            Vec::<String>::new(),
            "{name}"
        );
        // Linked from the cache for cache-hit; nothing changed for kept.
        assert_eq!(observed.tree, case.expected_tree(&host), "{name}");
        assert_eq!(observed.lock, case.input_lock(&host), "{name}");
    }
}

/// With the Terraform they were made with, every case ends as committed
/// (exit code, tree, lock file, the requests as a set: Terraform's order
/// of providers is Go's map order).
#[test]
fn the_goldens_are_current() {
    if !golden_terraform() {
        return;
    }
    for case in CASES {
        let (host, observed, output) = run_case(case, case.args);
        let host = &host;
        assert_eq!(observed.exit, case.exit, "{}: {output}", case.name);
        assert_eq!(observed.tree, case.expected_tree(host), "{}", case.name);
        assert_eq!(observed.lock, case.expected_lock(host), "{}", case.name);
        let sorted = |mut lines: Vec<String>| {
            lines.sort();
            lines
        };
        assert_eq!(
            sorted(observed.requests),
            sorted(case.terraform_requests(host)),
            "{}",
            case.name
        );
    }
}
