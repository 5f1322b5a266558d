//! Storing and forgetting credentials in `credentials.tfrc.json`
//! (docs/behaviour.md, CRED-7), on real files in temporary home directories.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};
use tfdisco_config::{CliConfig, CredentialsLocation, CredentialsStore, Dialect, Env, Error};
use tfdisco_core::{Credentials, CredentialsSource};

use common::{Home, host};

const FILE: &str = ".terraform.d/credentials.tfrc.json";

fn token(value: &str) -> Credentials {
    Credentials::token(value).expect("valid")
}

fn mode(path: &std::path::Path) -> u32 {
    fs::metadata(path).expect("exists").permissions().mode() & 0o777
}

fn json_file(home: &Home, rel: &str) -> Value {
    serde_json::from_str(&home.read(rel)).expect("JSON")
}

#[test]
fn store_rewrites_the_file_atomically_and_privately() {
    let home = Home::new();
    home.write(
        FILE,
        r#"{"comment": {"keep": [1, 2.5, "x"]}, "credentials": {"CAFÉ.example.com": {"token": "old"}, "café.example.com:443": {"token": "older"}, "other.example.com": {"token": "other"}, "not a host": {"token": "kept"}}}"#,
    );
    let path = home.join(FILE);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
    let env = home.env();
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let cafe = host("café.example.com");
    assert_eq!(source.location(&cafe), CredentialsLocation::InPrimaryFile);

    source.store(&cafe, &token("new")).expect("stored");
    assert_eq!(
        json_file(&home, FILE),
        json!({
            "comment": {"keep": [1, 2.5, "x"]},
            "credentials": {
                "café.example.com": {"token": "new"},
                "other.example.com": {"token": "other"},
                "not a host": {"token": "kept"}
            }
        })
    );
    assert_eq!(mode(&path), 0o600);
    let names: Vec<_> = fs::read_dir(home.join(".terraform.d"))
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(
        names,
        ["credentials.tfrc.json"],
        "no temporary file left behind"
    );
    assert_eq!(
        source
            .credentials(&cafe)
            .expect("ok")
            .expect("token")
            .expose_token(),
        "new"
    );

    source.forget(&cafe).expect("forgotten");
    assert!(
        json_file(&home, FILE)["credentials"]
            .get("café.example.com")
            .is_none()
    );
    assert_eq!(source.credentials(&cafe).expect("ok"), None);
    assert_eq!(source.location(&cafe), CredentialsLocation::NotAvailable);
}

#[test]
fn store_creates_the_config_directory() {
    let home = Home::new();
    let env = home.env();
    let source = CliConfig::load(Dialect::OpenTofu, &env).credentials_source(&env);
    source
        .store(&host("example.com:8443"), &token("t"))
        .expect("stored");
    assert_eq!(
        json_file(&home, FILE),
        json!({"credentials": {"example.com:8443": {"token": "t"}}})
    );
    assert_eq!(mode(&home.join(".terraform.d")), 0o700);
    assert_eq!(mode(&home.join(FILE)), 0o600);
    // Forgetting a host that has nothing is fine.
    source
        .forget(&host("unknown.example.com"))
        .expect("nothing to forget");
}

#[test]
fn a_broken_file_is_not_overwritten() {
    let home = Home::new();
    let path = home.write(FILE, "{not json");
    let env = home.env();
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let err = source
        .store(&host("example.com"), &token("t"))
        .expect_err("unreadable");
    assert!(matches!(
        err.downcast_ref::<Error>(),
        Some(Error::CredentialsFile { .. })
    ));
    assert_eq!(
        err.to_string(),
        format!(
            "cannot read {}: key must be a string at line 1 column 2",
            path.display()
        )
    );
    assert_eq!(home.read(FILE), "{not json");

    home.write(FILE, r#"{"credentials": ["a"]}"#);
    let err = source
        .store(&host("example.com"), &token("t"))
        .expect_err("bad shape");
    assert_eq!(
        err.to_string(),
        format!(
            "credentials file {} has invalid value for \"credentials\" property: must be a JSON object",
            path.display()
        )
    );
}

#[test]
fn without_a_home_there_is_no_store() {
    let env = Env::empty();
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let err = source
        .store(&host("example.com"), &token("t"))
        .expect_err("nowhere");
    assert!(matches!(err.downcast_ref::<Error>(), Some(Error::NoStore)));
    assert_eq!(err.to_string(), "no credentials store is available");
}

#[test]
fn an_override_file_hides_credentials_tfrc_json_from_lookups_not_from_stores() {
    // As in Go: with TF_CLI_CONFIG_FILE the config dir, and with it
    // credentials.tfrc.json, is not read; login still writes there, and what
    // it writes is used for the rest of the process.
    let home = Home::new();
    home.write(
        FILE,
        r#"{"credentials": {"example.com": {"token": "on-disk"}}}"#,
    );
    let custom = home.write("custom.tfrc", "");
    let env = home.env().with_var("TF_CLI_CONFIG_FILE", &custom);
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let example = host("example.com");
    assert_eq!(source.credentials(&example).expect("ok"), None);
    assert_eq!(source.credentials_file(), Some(home.join(FILE).as_path()));
    source.store(&example, &token("stored")).expect("stored");
    assert_eq!(
        source
            .credentials(&example)
            .expect("ok")
            .expect("token")
            .expose_token(),
        "stored"
    );
    assert_eq!(
        json_file(&home, FILE),
        json!({"credentials": {"example.com": {"token": "stored"}}})
    );
}

#[test]
fn token_variables_are_never_written_and_keep_precedence() {
    let home = Home::new();
    let env = home.env().with_var("TF_TOKEN_example_com", "from-env");
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let example = host("example.com");
    source.store(&example, &token("stored")).expect("stored");
    assert_eq!(
        json_file(&home, FILE),
        json!({"credentials": {"example.com": {"token": "stored"}}})
    );
    assert_eq!(
        source
            .credentials(&example)
            .expect("ok")
            .expect("token")
            .expose_token(),
        "from-env"
    );
}

#[test]
fn debug_output_never_shows_tokens() {
    let home = Home::new();
    home.write(
        ".terraformrc",
        "credentials \"a.example.com\" { token = \"s3cret-a\" }\n",
    );
    home.write(
        FILE,
        r#"{"credentials": {"b.example.com": {"token": "s3cret-b"}}}"#,
    );
    let env = home.env().with_var("TF_TOKEN_c_example_com", "s3cret-c");
    let config = CliConfig::load(Dialect::Terraform, &env);
    let source = config.credentials_source(&env);
    for name in ["a.example.com", "b.example.com", "c.example.com"] {
        let found = source.find(&host(name)).expect("ok").expect("found");
        assert!(found.credentials().is_some());
        assert!(!format!("{found:?}").contains("s3cret"));
    }
    for text in [
        format!("{config:?}"),
        format!("{source:?}"),
        format!("{env:?}"),
    ] {
        assert!(!text.contains("s3cret"), "{text}");
    }
}
