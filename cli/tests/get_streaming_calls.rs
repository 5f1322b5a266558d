//! A package's calls asked while it streams in (docs/behaviour.md,
//! MOD-16): the registry's `app` package calls `lib`, and its archive
//! sends its first part (`main.tf`, whole) and then holds the rest until
//! the test releases it. `tfdisco get`, the real binary on every
//! transport, must ask `lib`'s versions, location and archive while
//! `app`'s archive is still held; once released, both are installed as
//! the calls say.
#![cfg(unix)]

mod common;

use std::fs;
use std::time::{Duration, Instant};

use common::{TRANSPORTS, Workspace};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::{Reply, TestServer};

/// How long the test waits for `lib`'s archive to be asked.
const PATIENCE: Duration = Duration::from_secs(20);

const LIB_ARCHIVE: &str = "/v1/modules/acme/lib/aws/1.1.0/pkg.zip";
const APP_ARCHIVE: &str = "/v1/modules/acme/app/aws/1.0.0/pkg.zip";

/// The registry: `app` 1.0.0, whose archive is held after its first
/// part; `lib` 1.0.0 and 1.1.0 (the call's `~> 1.0` takes 1.1.0).
fn registry() -> TestServer {
    let server = TestServer::start();
    let host = format!("127.0.0.1:{}", server.port());
    server.route(
        "/.well-known/terraform.json",
        Reply::json(r#"{"modules.v1": "/v1/modules/"}"#),
    );
    for (name, versions) in [
        ("app", r#"[{"version": "1.0.0"}]"#),
        ("lib", r#"[{"version": "1.0.0"}, {"version": "1.1.0"}]"#),
    ] {
        server.route(
            &format!("/v1/modules/acme/{name}/aws/versions"),
            Reply::json(&format!(r#"{{"modules": [{{"versions": {versions}}}]}}"#)),
        );
    }
    for (name, version) in [("app", "1.0.0"), ("lib", "1.1.0")] {
        server.route(
            &format!("/v1/modules/acme/{name}/aws/{version}/download"),
            Reply::new(204).header("X-Terraform-Get", "./pkg.zip"),
        );
    }
    let main = format!(
        "module \"lib\" {{\n  source  = \"{host}/acme/lib/aws\"\n  version = \"~> 1.0\"\n}}\n"
    );
    let blob = vec![7u8; 256 << 10];
    let app = stored_zip(&[
        ("main.tf", 0o100_644, main.as_bytes()),
        ("files/blob.bin", 0o100_644, &blob),
    ]);
    // The first part holds `main.tf` whole and the blob's start.
    let (first, rest) = app.split_at(4096);
    server.route(
        APP_ARCHIVE,
        Reply::new(200)
            .chunked([first.to_vec(), rest.to_vec()])
            .hold_rest(),
    );
    server.route(
        LIB_ARCHIVE,
        Reply::new(200).body(&stored_zip(&[("main.tf", 0o100_644, b"# lib\n")])),
    );
    server
}

#[test]
fn a_packages_calls_are_asked_while_it_streams_in() {
    for transport in TRANSPORTS {
        let server = registry();
        let host = format!("127.0.0.1:{}", server.port());
        let setup = Workspace::new(&format!(
            "module \"app\" {{\n  source = \"{host}/acme/app/aws\"\n}}\n"
        ));
        let (run, early) = std::thread::scope(|scope| {
            let get = scope.spawn(|| setup.get("terraform", transport));
            let start = Instant::now();
            // What the server saw when `lib`'s archive was asked: whether
            // `app`'s archive was still being sent.
            let early = loop {
                let seen = server.requests();
                if seen.iter().any(|r| r.path == LIB_ARCHIVE) {
                    let app = seen.iter().find(|r| r.path == APP_ARCHIVE);
                    break app.map(|app| !app.finished());
                }
                if start.elapsed() > PATIENCE || get.is_finished() {
                    break None;
                }
                std::thread::sleep(Duration::from_millis(10));
            };
            server.release();
            (get.join().expect("the run"), early)
        });
        assert_eq!(run.code, Some(0), "{transport}: {}", run.stderr);
        assert_eq!(
            early,
            Some(true),
            "{transport}: lib's archive must be asked while app's is held; the server saw {:?}",
            server.paths()
        );
        let modules = setup.dir.join(".terraform/modules");
        assert_eq!(
            fs::read(modules.join("app.lib/main.tf")).expect("lib installed"),
            b"# lib\n"
        );
        assert_eq!(
            fs::read(modules.join("app/files/blob.bin"))
                .expect("app installed whole")
                .len(),
            256 << 10
        );
        let manifest = fs::read_to_string(modules.join("modules.json")).expect("a manifest");
        assert!(
            manifest.contains(r#""Key":"app.lib""#) && manifest.contains(r#""Version":"1.1.0""#),
            "{transport}: {manifest}"
        );
        let asked = |path: &str| server.paths().iter().filter(|p| *p == path).count();
        for path in [
            "/v1/modules/acme/lib/aws/versions",
            "/v1/modules/acme/lib/aws/1.1.0/download",
            LIB_ARCHIVE,
            APP_ARCHIVE,
        ] {
            assert_eq!(asked(path), 1, "{transport}: {path} asked once");
        }
    }
}
