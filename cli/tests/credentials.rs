//! `tfdisco credentials HOST`, run as a real process with its own home.

mod common;

use common::tfdisco;

#[test]
fn environment_variable_wins_and_the_token_stays_hidden() {
    let home = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        home.path().join(".tofurc"),
        "credentials \"registry.example.com\" {\n  token = \"from-file\"\n}\n",
    )
    .expect("write config");
    let vars = [("TF_TOKEN_registry_example_com", "from-env")];
    let o = tfdisco(home.path(), &vars, &["credentials", "Registry.Example.com"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr.clone());
    let out = o.stdout.clone();
    assert!(
        out.contains("environment variable TF_TOKEN_registry_example_com"),
        "{out}"
    );
    assert!(!out.contains("from-env"), "{out}");

    let o = tfdisco(
        home.path(),
        &vars,
        &["credentials", "registry.example.com", "--show-token"],
    );
    assert!(o.stdout.clone().contains("token   from-env"));

    let o = tfdisco(
        home.path(),
        &[],
        &["credentials", "registry.example.com", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    assert_eq!(v["hostname"], "registry.example.com");
    assert_eq!(v["has_token"], true);
    assert!(
        v["source"]
            .as_str()
            .expect("a source")
            .starts_with("credentials block in ")
    );
    assert!(v.get("token").is_none(), "no token without --show-token");
}

#[test]
fn config_problems_are_reported_but_not_fatal() {
    let home = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        home.path().join(".terraformrc"),
        "credentials \"a..b\" {\n  token = \"x\"\n}\n",
    )
    .expect("write config");
    let o = tfdisco(
        home.path(),
        &[],
        &["credentials", "example.com", "--dialect", "terraform"],
    );
    assert_eq!(o.code, Some(0));
    assert!(o.stdout.clone().contains("source  none"));
    let err = o.stderr.clone();
    assert!(
        err.contains("The credentials \"a..b\" block has an invalid hostname"),
        "{err}"
    );
}

#[test]
fn an_invalid_hostname_is_a_usage_error() {
    let home = tempfile::tempdir().expect("temp dir");
    let o = tfdisco(home.path(), &[], &["credentials", "xn--80akhbyknj4f.com"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr.clone(),
        "tfdisco: invalid hostname \"xn--80akhbyknj4f.com\": hostname label \"xn--80akhbyknj4f\" \
         specified in punycode format; service hostnames must be given in unicode\n"
    );
}
