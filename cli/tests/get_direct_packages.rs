//! OpenTofu's direct module packages (docs/behaviour.md, MOD-4): a
//! registry whose download answer is `{"location", "use_registry_credentials"}`
//! names a plain URL; `tfdisco get --dialect opentofu` downloads it (with
//! the registry's token only when the flag is `true`), tells its format by
//! its first bytes (the URLs here have no extension) and unpacks it. The
//! real binary on every transport against a registry on loopback.
#![cfg(unix)]

mod common;

use std::fs;

use common::{Run, TRANSPORTS, Workspace, mode};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::module_goldens::tar::{Entry, bzip2, tar, xz};
use tfdisco_testkit::{Reply, TestServer};

const TOKEN: &str = "direct-token-not-to-be-printed";

/// A registry with `acme/xz/aws` (a `.tar.xz` with the registry's
/// credentials), `acme/zip/aws` (a zip without them, on an absolute URL)
/// and `acme/bz/aws` (a `.tar.bz2`, `//sub` in the call).
fn registry() -> TestServer {
    let server = TestServer::start();
    server.route(
        "/.well-known/terraform.json",
        Reply::json(r#"{"modules.v1": "/v1/modules/"}"#),
    );
    for name in ["xz", "zip", "bz", "html"] {
        server.route(
            &format!("/v1/modules/acme/{name}/aws/versions"),
            Reply::json(r#"{"modules": [{"versions": [{"version": "1.0.0"}]}]}"#),
        );
    }
    let download = |name: &str, location: &str, credentials: bool| {
        server.route(
            &format!("/v1/modules/acme/{name}/aws/1.0.0/download"),
            Reply::json(&format!(
                r#"{{"location": "{location}", "use_registry_credentials": {credentials}}}"#
            )),
        );
    };
    download("xz", "./package", true);
    download(
        "zip",
        &format!("https://127.0.0.1:{}/files/zip-package", server.port()),
        false,
    );
    download("bz", "/files/bz-package", true);
    download("html", "./page", false);
    let tarball = |kind: &str| {
        let main = format!("output \"kind\" {{\n  value = \"{kind}\"\n}}\n");
        tar(&[
            Entry::File("main.tf", 0o644, main.as_bytes()),
            Entry::Dir("sub", 0o750),
            Entry::File("sub/main.tf", 0o600, b"# sub\n"),
            Entry::Link("link.tf", "main.tf"),
        ])
    };
    server.route(
        "/v1/modules/acme/xz/aws/1.0.0/package",
        Reply::new(200).body(&xz(&tarball("xz"))),
    );
    server.route(
        "/files/zip-package",
        Reply::new(200).body(&stored_zip(&[
            ("main.tf", 0o100_644, b"# zip\n"),
            ("bin/run.sh", 0o100_755, b"#!/bin/sh\n"),
        ])),
    );
    server.route(
        "/files/bz-package",
        Reply::new(200).body(&bzip2(&tarball("bz"))),
    );
    server.route(
        "/v1/modules/acme/html/aws/1.0.0/page",
        Reply::new(200).body(b"<html>not a package</html>"),
    );
    server
}

fn setup(server: &TestServer, calls: &[(&str, &str)]) -> Workspace {
    let host = format!("127.0.0.1:{}", server.port());
    let main: String = calls
        .iter()
        .map(|(name, source)| {
            format!(
                "module \"{name}\" {{\n  source  = \"{host}/{source}\"\n  version = \"1.0.0\"\n}}\n"
            )
        })
        .collect();
    let setup = Workspace::new(&main);
    fs::write(
        setup.home.join(".tofurc"),
        format!("credentials \"{host}\" {{\n  token = \"{TOKEN}\"\n}}\n"),
    )
    .expect("a CLI configuration");
    setup
}

fn get(setup: &Workspace, transport: &str) -> Run {
    setup.get("opentofu", transport)
}

#[test]
fn direct_packages_are_sniffed_unpacked_and_sent_the_token_only_when_asked() {
    for transport in TRANSPORTS {
        let server = registry();
        let setup = setup(
            &server,
            &[
                ("viaxz", "acme/xz/aws"),
                ("viazip", "acme/zip/aws"),
                ("viabz", "acme/bz/aws//sub"),
            ],
        );
        let run = get(&setup, transport);
        assert_eq!(run.code, Some(0), "{transport}: {}", run.stderr);
        assert!(
            !run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN),
            "{transport}: the token printed"
        );
        let modules = setup.dir.join(".terraform/modules");
        let host = format!("127.0.0.1:{}", server.port());
        assert_eq!(
            fs::read_to_string(modules.join("modules.json")).expect("a manifest"),
            format!(
                r#"{{"Modules":[{{"Key":"","Source":"","Dir":"."}},{{"Key":"viabz","Source":"{host}/acme/bz/aws//sub","Version":"1.0.0","Dir":".terraform/modules/viabz/sub"}},{{"Key":"viaxz","Source":"{host}/acme/xz/aws","Version":"1.0.0","Dir":".terraform/modules/viaxz"}},{{"Key":"viazip","Source":"{host}/acme/zip/aws","Version":"1.0.0","Dir":".terraform/modules/viazip"}}]}}"#
            ),
            "{transport}"
        );
        assert_eq!(
            fs::read_to_string(modules.join("viaxz/main.tf")).expect("unpacked"),
            "output \"kind\" {\n  value = \"xz\"\n}\n"
        );
        assert_eq!(mode(&modules.join("viaxz/sub")), 0o750, "{transport}");
        assert_eq!(mode(&modules.join("viaxz/sub/main.tf")), 0o600);
        // A tar's symbolic link is an empty file of mode 0777 (TAR-7).
        assert_eq!(
            fs::read(modules.join("viabz/link.tf")).expect("a file"),
            b""
        );
        assert_eq!(mode(&modules.join("viabz/link.tf")), 0o777);
        assert_eq!(mode(&modules.join("viazip/bin/run.sh")), 0o755);

        let requests = server.requests();
        let auth = |path: &str| {
            let seen: Vec<_> = requests.iter().filter(|r| r.path == path).collect();
            assert_eq!(seen.len(), 1, "{transport}: {path} once");
            seen[0].header("authorization").map(str::to_owned)
        };
        let bearer = Some(format!("Bearer {TOKEN}"));
        assert_eq!(
            auth("/v1/modules/acme/xz/aws/1.0.0/package"),
            bearer,
            "{transport}"
        );
        assert_eq!(auth("/files/bz-package"), bearer, "{transport}");
        assert_eq!(auth("/files/zip-package"), None, "{transport}");
    }
}

#[test]
fn a_direct_package_of_no_known_format_places_nothing() {
    let server = registry();
    let setup = setup(
        &server,
        &[("page", "acme/html/aws"), ("viaxz", "acme/xz/aws")],
    );
    let run = get(&setup, "tokio");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "module package is not zip archive, or tar archive with gz, xz, or bzip2 compression"
        ),
        "{}",
        run.stderr
    );
    let modules = setup.dir.join(".terraform/modules");
    assert!(
        !modules.join("modules.json").exists() && !modules.join("viaxz").exists(),
        "nothing placed"
    );
}
