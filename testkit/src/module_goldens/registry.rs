//! The module registry the cases install from, on a [`TestServer`]: its
//! discovery document (`modules.v1`), each module's versions, the download
//! answers (`204` with `X-Terraform-Get`) and the archives, all made here
//! ([`tar`](super::tar), [`stored_zip`]),
//! the same bytes at every run. Every other path is a `404`.
//!
//! The modules (namespace [`NAMESPACE`], system [`SYSTEM`]) and where their
//! downloads point:
//!
//! | module | versions | `X-Terraform-Get` |
//! |---|---|---|
//! | `net` | 1.0.0, 1.1.0, 2.0.0 (and 1.2.0 in [`Registry::Newer`]) | `./net.tar.gz` |
//! | `leaf` | 1.0.0 | `https://{SERVER}/archives/leaf-1.0.0.tar.gz` |
//! | `sub` | 1.0.0 | `./sub.tar.gz` |
//! | `located` | 1.0.0 | `./located.tar.gz//modules/x` |
//! | `zipped` | 1.0.0 | `https://{SERVER}/archives/zipped?archive=zip` |
//! | `gitloc` | 1.0.0 | `git::file://{GIT}/repo.git?ref=v1.0.0` |
//! | `gone` | 1.0.0 | (the download answers 404) |
//! | `missing` | 1.0.0 | `./missing.tar.gz` (a 404) |
//!
//! `net`'s package calls `leaf` (the registry) and `./modules/sub`; it has
//! a `0700` folder, a `0755` script, a symlink and a dot file. The direct
//! archives under `/archives/`: `direct.tar.gz`, `direct.tgz`,
//! `direct.zip` (with a symlink), `direct.tar.bz2`, `direct.tbz2`,
//! `direct.tar.xz`, `direct.txz`, `plain` (a zip, for `?archive=zip`),
//! `plain-xz` (a `.tar.xz`, for `?archive=tar.xz`), the checksum files
//! `SHA256SUMS` (GNU style) and `MD5SUMS` (BSD style),
//! `link-tf.zip` (a symlink named `link.tf`),
//! `dotdot.tar.gz` (an entry `../escape.txt`), `absolute.tar.gz` (an
//! entry `/absolute.txt`).

use std::path::Path;

use sha2::Digest as _;

use super::git;
use super::tar::{Entry, bzip2, gzip, tar, tar_gz, xz};
use crate::install_goldens::stored_zip;
use crate::{Reply, TestServer};

/// The registry's namespace.
pub const NAMESPACE: &str = "tfdisco";
/// The registry's target system.
pub const SYSTEM: &str = "test";
/// The registry's `modules.v1` path on the test server.
pub const MODULES_PATH: &str = "/v1/modules/";
/// Where the archives a download or a call names directly are.
pub const ARCHIVES_PATH: &str = "/archives/";

/// What the registry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    /// The modules of the table above, without `net` 1.2.0.
    Base,
    /// [`Registry::Base`] and `net` 1.2.0: the registry after it gained a
    /// newer version.
    Newer,
}

/// A module's name, versions, and where its downloads point (`None`: the
/// download itself is a 404), with `{SERVER}` and `{GIT}`.
const MODULES: &[(&str, &[&str], Option<&str>)] = &[
    ("net", &["1.0.0", "1.1.0", "2.0.0"], Some("./net.tar.gz")),
    (
        "leaf",
        &["1.0.0"],
        Some("https://{SERVER}/archives/leaf-1.0.0.tar.gz"),
    ),
    ("sub", &["1.0.0"], Some("./sub.tar.gz")),
    ("located", &["1.0.0"], Some("./located.tar.gz//modules/x")),
    (
        "zipped",
        &["1.0.0"],
        Some("https://{SERVER}/archives/zipped?archive=zip"),
    ),
    ("gitloc", &["1.0.0"], Some("git::{GIT_URL}?ref=v1.0.0")),
    ("gone", &["1.0.0"], None),
    ("missing", &["1.0.0"], Some("./missing.tar.gz")),
];

/// The version [`Registry::Newer`] adds to `net`.
pub const NEWER_NET: &str = "1.2.0";

const fn file<'a>(name: &'a str, text: &'a str) -> Entry<'a> {
    Entry::File(name, 0o644, text.as_bytes())
}

/// `net`'s package at `version`, calling `leaf` on the registry `host`.
pub fn net_package(version: &str, host: &str) -> Vec<u8> {
    let main = format!(
        "# net {version}\nmodule \"leaf\" {{\n  source  = \"{host}/{NAMESPACE}/leaf/{SYSTEM}\"\n  version = \"1.0.0\"\n}}\n\nmodule \"sub\" {{\n  source = \"./modules/sub\"\n}}\n"
    );
    tar_gz(&[
        Entry::File("main.tf", 0o644, main.as_bytes()),
        Entry::File(".hidden", 0o644, b"a dot file\n"),
        Entry::Dir("modules", 0o755),
        Entry::Dir("modules/sub", 0o755),
        file(
            "modules/sub/main.tf",
            "output \"name\" {\n  value = \"net/sub\"\n}\n",
        ),
        Entry::Dir("scripts", 0o755),
        Entry::File("scripts/run.sh", 0o755, b"#!/bin/sh\necho run\n"),
        Entry::Dir("private", 0o700),
        Entry::File("private/notes.txt", 0o600, b"private notes\n"),
        Entry::Link("README.link", "main.tf"),
    ])
}

fn leaf_package() -> Vec<u8> {
    tar_gz(&[file(
        "main.tf",
        "output \"leaf\" {\n  value = \"leaf\"\n}\n",
    )])
}

fn sub_package() -> Vec<u8> {
    tar_gz(&[
        file("main.tf", "# the package's root, not called\n"),
        Entry::Dir("modules", 0o755),
        Entry::Dir("modules/inner", 0o755),
        file(
            "modules/inner/main.tf",
            "module \"shared\" {\n  source = \"../shared\"\n}\n",
        ),
        Entry::Dir("modules/shared", 0o755),
        file(
            "modules/shared/main.tf",
            "output \"shared\" {\n  value = 1\n}\n",
        ),
    ])
}

fn located_package() -> Vec<u8> {
    tar_gz(&[
        file("main.tf", "# the package's root, not the module\n"),
        Entry::Dir("modules", 0o755),
        Entry::Dir("modules/x", 0o755),
        file("modules/x/main.tf", "output \"x\" {\n  value = \"x\"\n}\n"),
    ])
}

fn zipped_package() -> Vec<u8> {
    stored_zip(&[
        (
            "main.tf",
            0o100644,
            b"output \"zipped\" {\n  value = true\n}\n",
        ),
        ("bin/", 0o040755, b""),
        ("bin/tool.sh", 0o100755, b"#!/bin/sh\necho tool\n"),
        ("private/", 0o040700, b""),
        ("private/key.txt", 0o100600, b"not a key\n"),
        ("README.link", 0o120777, b"main.tf"),
    ])
}

/// A tarball of a module saying `kind`, compressed by `compress`.
fn direct_tar(kind: &str, compress: fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    let main = format!("output \"kind\" {{\n  value = \"{kind}\"\n}}\n");
    compress(&tar(&[
        Entry::File("main.tf", 0o644, main.as_bytes()),
        Entry::Dir("lib", 0o755),
        Entry::File("lib/tool.sh", 0o755, b"#!/bin/sh\n"),
        Entry::Link("lib/main.tf", "../main.tf"),
    ]))
}

fn direct_zip(kind: &str) -> Vec<u8> {
    let main = format!("output \"kind\" {{\n  value = \"{kind}\"\n}}\n");
    stored_zip(&[
        ("main.tf", 0o100644, main.as_bytes()),
        ("lib/tool.sh", 0o100755, b"#!/bin/sh\n"),
        ("lib/main.tf", 0o120777, b"../main.tf"),
    ])
}

/// A zip whose symlink is named `link.tf`: Terraform writes it as a file
/// holding `main.tf`, then reads it as configuration.
fn link_tf_zip() -> Vec<u8> {
    stored_zip(&[
        (
            "main.tf",
            0o100644,
            b"output \"linked\" {\n  value = true\n}\n",
        ),
        ("link.tf", 0o120777, b"main.tf"),
    ])
}

fn hostile(name: &str) -> Vec<u8> {
    tar_gz(&[
        file("main.tf", "output \"hostile\" {\n  value = true\n}\n"),
        Entry::File(name, 0o644, b"outside\n"),
    ])
}

/// A GNU-style checksum file (`sha256sum`'s) of two direct archives, one
/// named with `*`.
fn sha256sums() -> String {
    format!(
        "{}  direct.tar.gz\n{} *direct.tgz\n",
        sha256_hex(&direct_tar("tar.gz", gzip)),
        sha256_hex(&direct_tar("tgz", gzip))
    )
}

/// A BSD-style checksum file (`md5sum --tag`'s) of a direct archive.
fn md5sums() -> String {
    format!(
        "MD5 (direct.tar.bz2) = {:x}\n",
        md5::Md5::digest(direct_tar("tar.bz2", bzip2))
    )
}

fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", sha2::Sha256::digest(bytes))
}

fn archive(bytes: Vec<u8>, kind: &str) -> Reply {
    Reply::new(200).header("Content-Type", kind).body(&bytes)
}

/// Serves `registry` on `server` for the registry host `host` (what the
/// packages' calls name), with the git repository in `git_folder`.
pub fn serve(server: &TestServer, registry: Registry, host: &str, git_folder: &Path) {
    let server_host = server.host().to_string();
    server.route_prefix("/", Reply::new(404).body(b"not found"));
    server.route(
        "/.well-known/terraform.json",
        Reply::json(&format!("{{\"modules.v1\":\"{MODULES_PATH}\"}}")),
    );
    let gz = "application/x-gzip";
    for (name, versions, location) in MODULES {
        let mut versions: Vec<&str> = versions.to_vec();
        if *name == "net" && registry == Registry::Newer {
            versions.push(NEWER_NET);
        }
        let listed: Vec<String> = versions
            .iter()
            .map(|v| format!("{{\"version\":\"{v}\"}}"))
            .collect();
        let base = format!("{MODULES_PATH}{NAMESPACE}/{name}/{SYSTEM}");
        server.route(
            &format!("{base}/versions"),
            Reply::json(&format!(
                "{{\"modules\":[{{\"versions\":[{}]}}]}}",
                listed.join(",")
            )),
        );
        for version in &versions {
            let download = format!("{base}/{version}/download");
            let Some(location) = location else {
                server.route(&download, Reply::new(404).body(b"not found"));
                continue;
            };
            let location = location
                .replace("{SERVER}", &server_host)
                .replace("{GIT_URL}", &git::file_url(git_folder));
            server.route(
                &download,
                Reply::new(204).header("X-Terraform-Get", &location),
            );
            let folder = format!("{base}/{version}/");
            match *name {
                "net" => {
                    server.route(
                        &format!("{folder}net.tar.gz"),
                        archive(net_package(version, host), gz),
                    );
                }
                "sub" => {
                    server.route(&format!("{folder}sub.tar.gz"), archive(sub_package(), gz));
                }
                "located" => {
                    server.route(
                        &format!("{folder}located.tar.gz"),
                        archive(located_package(), gz),
                    );
                }
                _ => {}
            }
        }
    }
    let zip = "application/zip";
    let bz2 = "application/x-bzip2";
    let xzt = "application/x-xz";
    for (path, reply) in [
        ("leaf-1.0.0.tar.gz", archive(leaf_package(), gz)),
        ("zipped", archive(zipped_package(), zip)),
        ("direct.tar.gz", archive(direct_tar("tar.gz", gzip), gz)),
        ("direct.tgz", archive(direct_tar("tgz", gzip), gz)),
        ("direct.tar.bz2", archive(direct_tar("tar.bz2", bzip2), bz2)),
        ("direct.tbz2", archive(direct_tar("tbz2", bzip2), bz2)),
        ("direct.tar.xz", archive(direct_tar("tar.xz", xz), xzt)),
        ("direct.txz", archive(direct_tar("txz", xz), xzt)),
        ("plain-xz", archive(direct_tar("archive=tar.xz", xz), xzt)),
        ("SHA256SUMS", Reply::new(200).body(sha256sums().as_bytes())),
        ("MD5SUMS", Reply::new(200).body(md5sums().as_bytes())),
        ("direct.zip", archive(direct_zip("zip"), zip)),
        ("plain", archive(direct_zip("archive=zip"), zip)),
        ("link-tf.zip", archive(link_tf_zip(), zip)),
        ("dotdot.tar.gz", archive(hostile("../escape.txt"), gz)),
        ("absolute.tar.gz", archive(hostile("/absolute.txt"), gz)),
    ] {
        server.route(&format!("{ARCHIVES_PATH}{path}"), reply);
    }
}
