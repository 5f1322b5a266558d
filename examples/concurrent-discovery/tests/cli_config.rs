//! The example against loopback HTTPS servers, with a CLI configuration in
//! its own home directory: credentials and `host` blocks applied, as the
//! real CLI would.

use std::process::Command;

use tfdisco_testkit::{Reply, TestServer, pki};

const WELL_KNOWN: &str = "/.well-known/terraform.json";

fn run(home: &std::path::Path, args: &[String]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_concurrent-discovery"))
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("SSL_CERT_FILE", pki().ca_file())
        .env("TF_APPEND_USER_AGENT", "example/1.0")
        .output()
        .expect("the example runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn credentials_and_host_blocks_from_the_cli_configuration() {
    let servers: Vec<TestServer> = (0..3)
        .map(|i| {
            let server = TestServer::start();
            let doc = format!(r#"{{"modules.v1": "/modules{i}/"}}"#);
            server.route(WELL_KNOWN, Reply::json(&doc));
            server
        })
        .collect();
    let home = tempfile::tempdir().expect("a home");
    std::fs::write(
        home.path().join(".tofurc"),
        format!(
            r#"
            credentials "{}" {{
              token = "example-token"
            }}
            host "forced.example" {{
              services = {{
                "providers.v1" = "https://providers.example.net/v1/"
              }}
            }}
            "#,
            servers[0].host().display()
        ),
    )
    .expect("a config file");

    let mut args: Vec<String> = servers.iter().map(|s| s.host().to_string()).collect();
    args.push("forced.example".to_owned());
    let (code, stdout, stderr) = run(home.path(), &args);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    for (i, server) in servers.iter().enumerate() {
        let line = format!(
            "{}\tmodules.v1\thttps://{}/modules{i}/",
            server.host(),
            server.host()
        );
        assert!(stdout.contains(&line), "{line:?} in {stdout}");
        let seen = server.requests();
        assert_eq!(seen.len(), 1);
        let token = (i == 0).then_some("Bearer example-token");
        assert_eq!(seen[0].authorization(), token, "server {i}");
        assert_eq!(
            seen[0].header("user-agent"),
            Some("OpenTofu/1.12.6 example/1.0")
        );
    }
    assert!(
        stdout.contains("forced.example\tproviders.v1\thttps://providers.example.net/v1/"),
        "{stdout}"
    );
}
