use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::*;
use crate::module_goldens::git::{MAIN_COMMIT, TAG_COMMIT, make_repo};

/// `git ARGS` in `dir` with a clean environment: no configuration, the
/// test CA as git's trust (`ca`), nothing asked at a terminal.
fn git_with(dir: &Path, ca: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_SSL_CAINFO", ca)
        .stdin(Stdio::null())
        .output()
        .expect("git runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

/// `repo.git` served from a new folder, and a folder to work in.
fn served() -> (tempfile::TempDir, GitHttpServer, tempfile::TempDir) {
    let root = tempfile::tempdir().expect("a folder");
    make_repo(root.path());
    let server = GitHttpServer::start(root.path());
    (root, server, tempfile::tempdir().expect("a folder"))
}

#[test]
fn a_clone_over_https_trusts_the_test_ca_and_reaches_the_real_backend() {
    let (_root, server, work) = served();
    let ca = pki().ca_file();
    let cloned = git_with(
        work.path(),
        ca,
        &["clone", "-q", "--", &server.url("repo.git"), "copy"],
    );
    assert!(cloned.status.success(), "{}", text(&cloned.stderr));
    let copy = work.path().join("copy");
    let head = git_with(&copy, ca, &["rev-parse", "HEAD"]);
    assert_eq!(text(&head.stdout), MAIN_COMMIT);
    let tag = git_with(&copy, ca, &["rev-parse", "v1.0.0^{commit}"]);
    assert_eq!(text(&tag.stdout), TAG_COMMIT);
    let requests = server.requests();
    assert!(
        requests.iter().any(|r| r.method == "GET"
            && r.path == "/repo.git/info/refs"
            && r.query.as_deref() == Some("service=git-upload-pack")
            && r.status == 200),
        "{requests:#?}"
    );
    assert!(
        requests.iter().any(|r| r.method == "POST"
            && r.path == "/repo.git/git-upload-pack"
            && r.status == 200),
        "{requests:#?}"
    );
    // A repository that is not there is the backend's 404.
    let missing = git_with(
        work.path(),
        ca,
        &["ls-remote", "--", &server.url("nothing.git")],
    );
    assert!(!missing.status.success());
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.path == "/nothing.git/info/refs" && r.status == 404),
        "{:#?}",
        server.requests()
    );
}

#[test]
fn git_without_the_test_ca_refuses_the_server() {
    let (_root, server, work) = served();
    let other = work.path().join("other-ca.pem");
    std::fs::write(&other, crate::chain().root_pem.as_bytes()).expect("a CA file");
    let refused = git_with(
        work.path(),
        &other,
        &["ls-remote", "--", &server.url("repo.git")],
    );
    assert!(!refused.status.success());
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("certificate"), "{stderr}");
    assert!(server.requests().is_empty(), "{:#?}", server.requests());
}

#[test]
fn a_gzip_request_body_reaches_the_backend_inflated() {
    // git gzips an upload-pack request over 1 KiB: 40 branches on commits
    // of their own make the clone's wants that long.
    let (root, server, work) = served();
    let repo = root.path().join("repo.git");
    let date = "2026-01-05T03:04:05Z";
    for n in 0..40 {
        crate::module_goldens::git::git(
            &repo,
            date,
            &["commit", "-q", "--allow-empty", "-m", &format!("c{n}")],
        );
        crate::module_goldens::git::git(&repo, date, &["branch", &format!("b{n}")]);
    }
    let ca = pki().ca_file();
    let cloned = git_with(
        work.path(),
        ca,
        &[
            "clone",
            "-q",
            "--mirror",
            "--",
            &server.url("repo.git"),
            "copy",
        ],
    );
    assert!(cloned.status.success(), "{}", text(&cloned.stderr));
    let requests = server.requests();
    assert!(
        requests.iter().any(|r| r.method == "POST"
            && r.content_encoding.as_deref() == Some("gzip")
            && r.status == 200),
        "{requests:#?}"
    );
    let copy = work.path().join("copy");
    let branches = git_with(&copy, ca, &["branch", "--list", "b*"]);
    assert_eq!(text(&branches.stdout).lines().count(), 40);
}

#[test]
fn cgi_output_becomes_a_response() {
    let response = cgi_response(b"Status: 404 Not Found\r\nContent-Type: text/plain\r\n\r\nnone\n")
        .expect("a response");
    assert_eq!(response.status(), 404);
    assert_eq!(response.headers()["content-type"], "text/plain");
    let response = cgi_response(b"Content-Type: a/b\n\nbody").expect("a response");
    assert_eq!(response.status(), 200);
    for bad in [
        &b"Content-Type: a/b\r\n"[..],
        b"Status: none\n\n",
        b"no colon\n\n",
    ] {
        assert!(
            cgi_response(bad).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}
