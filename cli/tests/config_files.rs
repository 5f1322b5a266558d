//! CLI configuration files of both dialects, in both syntaxes, through the
//! real binary: `host` blocks, `credentials` blocks, a credentials helper.

mod common;

use std::path::Path;

use common::{ca_file, discover_terraform, install_helper, tfdisco};
use tfdisco_testkit::{Reply, TestServer};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn host_blocks_replace_discovery_in_both_dialects() {
    let home = tempfile::tempdir().expect("temp dir");
    // OpenTofu's own file, HCL: only OpenTofu reads it.
    write(
        &home.path().join(".tofurc"),
        r#"host "tofu-mirror.example.test" {
  services = {
    "modules.v1" = "https://tofu-mirror.example.test/modules/"
  }
}
"#,
    );
    // The shared config directory, JSON syntax: both read it.
    write(
        &home.path().join(".terraform.d/mirror.tfrc.json"),
        r#"{"host": {"mirror.example.test": {"services": {"modules.v1": "/tf/modules/"}}}}"#,
    );
    let discover = |host: &str, dialect: &str| {
        tfdisco(
            home.path(),
            &[],
            &[
                "discover",
                host,
                "modules.v1",
                "--json",
                "--dialect",
                dialect,
                "--timeout",
                "2",
            ],
        )
    };
    for dialect in ["opentofu", "terraform"] {
        let r = discover("mirror.example.test", dialect);
        assert_eq!(r.code, Some(0), "{dialect}: {}", r.stderr);
        assert_eq!(
            r.json()["resolved"]["modules.v1"],
            "https://mirror.example.test/tf/modules/",
            "relative URLs of host blocks resolve against https://<host>/.well-known/terraform.json"
        );
    }
    let r = discover("tofu-mirror.example.test", "opentofu");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.json()["resolved"]["modules.v1"],
        "https://tofu-mirror.example.test/modules/"
    );
    // Terraform does not read .tofurc, so it tries the network (which has no such host).
    let r = discover("tofu-mirror.example.test", "terraform");
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["kind"], "network");
}

#[test]
fn credentials_blocks_and_the_legacy_file() {
    let server = TestServer::start();
    server.route("/.well-known/terraform.json", Reply::json("{}"));
    let host = server.host().to_string();
    let home = tempfile::tempdir().expect("temp dir");
    // Only the legacy file: OpenTofu reads it when there is no .tofurc.
    write(
        &home.path().join(".terraformrc"),
        &format!("credentials \"{host}\" {{\n  token = \"legacy-token\"\n}}\n"),
    );
    let ca = ca_file();
    let r = tfdisco(home.path(), &[], &["discover", &host, "--ca-file", &ca]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        server.requests()[0].authorization(),
        Some("Bearer legacy-token")
    );
    // With a .tofurc the legacy file is ignored.
    write(&home.path().join(".tofurc"), "");
    tfdisco(home.path(), &[], &["discover", &host, "--ca-file", &ca]);
    assert_eq!(server.requests()[1].authorization(), None);
    // Terraform still reads it.
    discover_terraform(home.path(), &host);
    assert_eq!(
        server.requests()[2].authorization(),
        Some("Bearer legacy-token")
    );
}

#[test]
fn a_credentials_helper_supplies_the_token() {
    let server = TestServer::start();
    server.route("/.well-known/terraform.json", Reply::json("{}"));
    let host = server.host().to_string();
    let home = tempfile::tempdir().expect("temp dir");
    install_helper(
        home.path(),
        "demo",
        "#!/bin/sh\n# get <host>: print a token for the host asked about\n\
         [ \"$1\" = get ] && printf '{\"token\":\"helper-token-for-%s\"}' \"$2\"\n",
    );

    let r = tfdisco(
        home.path(),
        &[],
        &["credentials", &host, "--dialect", "terraform"],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains("credentials helper \"demo\""),
        "{}",
        r.stdout
    );

    let r = discover_terraform(home.path(), &host);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let want = format!("Bearer helper-token-for-{host}");
    assert_eq!(server.requests()[0].authorization(), Some(want.as_str()));
}
