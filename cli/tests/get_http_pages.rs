//! A module package URL that is no archive (docs/behaviour.md, MOD-7): the
//! page is asked with `?terraform-get=1`, names the package in its
//! `X-Terraform-Get` header or its head's meta tag, and that package is
//! fetched as any (an archive, another page), a `//subdir` of it keeping
//! only that folder; a failing page says why in go-getter's words. The real
//! binary against pages and archives on loopback.
#![cfg(unix)]

mod common;

use std::fs;
use std::path::Path;

use common::{Run, TRANSPORTS, Workspace, mode};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::module_goldens::tar::{Entry, tar_gz};
use tfdisco_testkit::{Reply, TestServer};

/// Pages and the archives they name.
fn server() -> TestServer {
    let server = TestServer::start();
    let url = |path: &str| format!("https://127.0.0.1:{}{path}", server.port());
    server.route(
        "/files/m.zip",
        Reply::new(200).body(&stored_zip(&[
            ("main.tf", 0o100_644, b"# zip\n"),
            ("modules/inner/main.tf", 0o100_644, b"# inner\n"),
            ("modules/inner/run.sh", 0o100_755, b"#!/bin/sh\n"),
        ])),
    );
    server.route(
        "/files/m.tar.gz",
        Reply::new(200).body(&tar_gz(&[Entry::File("main.tf", 0o644, b"# tar.gz\n")])),
    );
    let header = |path: &str, to: &str| {
        server.route(path, Reply::new(200).header("X-Terraform-Get", &url(to)));
    };
    header("/pages/zip", "/files/m.zip");
    header("/pages/first", "/pages/second?archive=false");
    header("/pages/second", "/files/m.zip");
    header("/pages/sub", "/files/m.zip//modules/inner");
    header("/pages/loop", "/pages/loop");
    let meta = format!(
        "<!DOCTYPE html>\n<html><head><title>vpc</title>\n\
         <meta name=\"terraform-get\" content=\"{}\">\n</head><body></body></html>",
        url("/files/m.tar.gz")
    );
    server.route("/pages/meta", Reply::new(200).body(meta.as_bytes()));
    server.route(
        "/pages/none",
        Reply::new(200).body(b"<html><head><title>none</title></head><body></body></html>"),
    );
    server.route("/pages/missing", Reply::new(404));
    server.route(
        "/pages/shorthand",
        Reply::new(200).header("X-Terraform-Get", "github.com/acme/vpc"),
    );
    server.route(
        "/pages/ftp",
        Reply::new(200).header("X-Terraform-Get", "ftp://h/vpc.zip"),
    );
    server
}

/// A configuration calling each `(name, path)` of `server`.
fn setup(server: &TestServer, calls: &[(&str, &str)]) -> Workspace {
    let main: String = calls
        .iter()
        .map(|(name, path)| {
            format!(
                "module \"{name}\" {{\n  source = \"https://127.0.0.1:{}{path}\"\n}}\n",
                server.port()
            )
        })
        .collect();
    Workspace::new(&main)
}

fn get(setup: &Workspace, transport: &str) -> Run {
    setup.get("terraform", transport)
}

/// The files under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).expect("inside");
                out.push(name.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn pages_name_their_package_by_header_or_meta_tag_through_hops_and_subdirs() {
    for transport in TRANSPORTS {
        let server = server();
        let setup = setup(
            &server,
            &[
                ("header", "/pages/zip?v=1"),
                ("meta", "/pages/meta"),
                ("hops", "/pages/first"),
                ("sub", "/pages/sub"),
            ],
        );
        let run = get(&setup, transport);
        assert_eq!(run.code, Some(0), "{transport}: {}", run.stderr);
        let modules = setup.dir.join(".terraform/modules");
        let read = |p: &str| fs::read_to_string(modules.join(p)).expect(p);
        assert_eq!(read("header/main.tf"), "# zip\n", "{transport}");
        assert_eq!(read("meta/main.tf"), "# tar.gz\n", "{transport}");
        assert_eq!(read("hops/main.tf"), "# zip\n", "{transport}");
        // Only the subdirectory the page named is installed.
        assert_eq!(
            files(&modules.join("sub")),
            ["main.tf", "run.sh"],
            "{transport}"
        );
        assert_eq!(read("sub/main.tf"), "# inner\n");
        assert_eq!(mode(&modules.join("sub/run.sh")), 0o755);
        assert_eq!(mode(&modules.join("sub")), 0o755);

        let requests = server.requests();
        let asked = |path: &str| -> Vec<Option<String>> {
            requests
                .iter()
                .filter(|r| r.path == path)
                .map(|r| r.query.clone())
                .collect()
        };
        // `terraform-get=1` added, the query sorted.
        assert_eq!(
            asked("/pages/zip"),
            [Some("terraform-get=1&v=1".to_owned())]
        );
        assert_eq!(asked("/pages/meta"), [Some("terraform-get=1".to_owned())]);
        assert_eq!(asked("/pages/second"), [Some("terraform-get=1".to_owned())]);
        assert_eq!(asked("/files/m.tar.gz"), [None]);
        assert!(
            requests.iter().all(|r| r.header("authorization").is_none()),
            "{transport}: no token"
        );
    }
}

/// The one module's failure, with nothing installed.
fn failure(path: &str) -> (String, Vec<String>) {
    let server = server();
    let setup = setup(&server, &[("m", path)]);
    let run = get(&setup, "tokio");
    assert_eq!(run.code, Some(1), "{path}: {}", run.stderr);
    assert!(
        !setup.dir.join(".terraform/modules/m").exists(),
        "{path}: nothing placed"
    );
    let paths = server.requests().into_iter().map(|r| r.path).collect();
    (
        run.stderr.split_whitespace().collect::<Vec<_>>().join(" "),
        paths,
    )
}

#[test]
fn a_page_that_fails_says_why_in_go_getter_s_words() {
    let server_url = |stderr: &str, page: &str| {
        // The port is the test server's: read it back from the message.
        let start = stderr
            .find("error downloading 'https://127.0.0.1:")
            .expect(stderr);
        let rest = &stderr[start..];
        let end = rest.find(page).expect(stderr);
        rest[..end].to_owned()
    };
    let (stderr, _) = failure("/pages/missing");
    let prefix = server_url(&stderr, "/pages/missing");
    assert!(
        stderr.contains(&format!("{prefix}/pages/missing': bad response code: 404")),
        "{stderr}"
    );
    let (stderr, _) = failure("/pages/none");
    assert!(
        stderr.contains("/pages/none': no source URL was returned"),
        "{stderr}"
    );
    let (stderr, _) = failure("/pages/shorthand");
    assert!(
        stderr.contains("/pages/shorthand': invalid source string: github.com/acme/vpc"),
        "{stderr}"
    );
    let (stderr, _) = failure("/pages/ftp");
    assert!(
        stderr.contains(
            "/pages/ftp': no getter available for X-Terraform-Get source protocol: \"ftp\""
        ),
        "{stderr}"
    );
    // A checksum is refused before the page is asked.
    let sum = "0".repeat(64);
    let (stderr, paths) = failure(&format!("/pages/zip?checksum=sha256:{sum}"));
    assert!(
        stderr.contains("checksum cannot be specified for directory download"),
        "{stderr}"
    );
    assert!(paths.is_empty(), "{paths:?}");
    // Ten pages are asked; the eleventh is refused, each wrapping the next.
    let (stderr, paths) = failure("/pages/loop");
    assert_eq!(
        paths.iter().filter(|p| *p == "/pages/loop").count(),
        10,
        "{paths:?}"
    );
    assert_eq!(
        stderr.matches("error downloading '").count(),
        11,
        "{stderr}"
    );
    assert!(
        stderr.contains("/pages/loop': too many X-Terraform-Get redirects: 11"),
        "{stderr}"
    );
}
