//! The `TF_TOKEN_*` table (conformance/token_env_vars.json) through the real
//! binary, and a credentials helper that hangs.

mod common;

use std::time::{Duration, Instant};

use common::{discover_terraform, install_helper, tfdisco};
use serde_json::Value;
use tfdisco_testkit::{Reply, TestServer};

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/token_env_vars.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
}

#[test]
fn every_variable_of_the_table_names_its_host() {
    let t = table();
    let home = tempfile::tempdir().expect("temp dir");
    let mut cases = 0;
    for case in t["anchor"].as_array().expect("array") {
        let var = case["variable"].as_str().expect("name");
        let value = case["value"].as_str().expect("value");
        let input = case["looked_up_hostname_input"]
            .as_str()
            .or(case["looked_up_hostname"].as_str())
            .expect("host");
        for dialect in ["opentofu", "terraform"] {
            let r = tfdisco(
                home.path(),
                &[(var, value)],
                &[
                    "credentials",
                    input,
                    "--json",
                    "--show-token",
                    "--dialect",
                    dialect,
                ],
            );
            assert_eq!(r.code, Some(0), "{var}: {}", r.stderr);
            let v = r.json();
            assert_eq!(v["hostname"], case["looked_up_hostname"], "{var}");
            assert_eq!(v["source"], format!("environment variable {var}"), "{var}");
            assert_eq!(v["token"], case["token"], "{var}");
            cases += 1;
        }
    }
    for case in t["docs"].as_array().expect("array") {
        let var = case["variable"].as_str().expect("name");
        let host = case["hostname_display"]
            .as_str()
            .or(case["hostname"].as_str())
            .expect("host");
        let r = tfdisco(
            home.path(),
            &[(var, "doc-token")],
            &["credentials", host, "--json"],
        );
        assert_eq!(r.json()["hostname"], case["hostname"], "{var}");
        assert_eq!(
            r.json()["source"],
            format!("environment variable {var}"),
            "{var}"
        );
        cases += 1;
    }
    assert!(cases >= 10, "only {cases} cases ran");
}

#[test]
fn a_hung_helper_is_stopped_and_discovery_goes_ahead_without_credentials() {
    let server = TestServer::start();
    server.route("/.well-known/terraform.json", Reply::json("{}"));
    let host = server.host().to_string();
    let home = tempfile::tempdir().expect("temp dir");
    install_helper(home.path(), "stuck", "#!/bin/sh\nexec sleep 60\n");

    let started = Instant::now();
    let r = discover_terraform(home.path(), &host);
    let took = started.elapsed();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(server.requests()[0].authorization(), None);
    assert!(
        took < Duration::from_secs(30),
        "the helper timeout (10 s) bounds the wait: {took:?}"
    );

    let r = tfdisco(
        home.path(),
        &[],
        &["credentials", &host, "--dialect", "terraform"],
    );
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("stuck") || r.stderr.contains("timed out"),
        "{}",
        r.stderr
    );
}
