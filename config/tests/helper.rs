//! The credentials helper protocol against a real program (`common/helper.sh`).

mod common;

use std::time::{Duration, Instant};

use tfdisco_config::{
    CachingCredentials, CliCredentials, CredentialsStore, EnvCredentials, Error, HelperProgram,
    Origin,
};
use tfdisco_core::{Credentials, CredentialsSource};

use common::{Home, host};

fn get_err(helper: &HelperProgram, name: &str) -> Error {
    match helper.get(&host(name)) {
        Err(e) => e,
        Ok(answer) => panic!("{name}: expected an error, got {answer:?}"),
    }
}

#[test]
fn get_store_forget() {
    let home = Home::new();
    let helper = home.helper();
    let creds = helper
        .get(&host("example.com"))
        .expect("ok")
        .expect("a token");
    assert_eq!(
        creds.authorization().to_str().expect("ascii"),
        "Bearer example-token"
    );
    for none in [
        "nothing.example.com",
        "other-cred-type.example.com",
        "null.example.com",
    ] {
        assert_eq!(helper.get(&host(none)).expect("ok"), None, "{none}");
    }
    // The hostname goes in comparison (punycode) form.
    let creds = helper.get(&host("café.fr")).expect("ok").expect("a token");
    assert_eq!(creds.expose_token(), "cafe-token");

    helper
        .store(
            &host("example.com"),
            &Credentials::token("example-token").expect("valid"),
        )
        .expect("stored");
    helper.forget(&host("example.com")).expect("forgotten");
    assert_eq!(
        home.log(),
        [
            "x get example.com",
            "x get nothing.example.com",
            "x get other-cred-type.example.com",
            "x get null.example.com",
            "x get xn--caf-dma.fr",
            r#"x store example.com {"token":"example-token"}"#,
            "x forget example.com",
        ]
    );
}

#[test]
fn failures_use_the_go_texts() {
    let home = Home::new();
    let helper = home.helper();
    let exe = helper.executable().display().to_string();

    let err = get_err(&helper, "fail.example.com");
    assert_eq!(
        err.to_string(),
        format!("error in {exe}: failing because you told me to fail")
    );
    assert!(matches!(err, Error::HelperFailed { .. }));
    assert_eq!(
        get_err(&helper, "silent-fail.example.com").to_string(),
        format!("error in {exe}, but it produced no error message")
    );
    let store = helper.store(
        &host("fail.example.com"),
        &Credentials::token("t").expect("valid"),
    );
    assert_eq!(
        store.expect_err("fails").to_string(),
        format!("error in {exe}: can't store credentials for fail.example.com")
    );
    let forget = helper.forget(&host("fail.example.com"));
    assert_eq!(
        forget.expect_err("fails").to_string(),
        format!("error in {exe}: can't forget credentials for fail.example.com")
    );
}

#[test]
fn malformed_output() {
    let home = Home::new();
    let helper = home.helper();
    let exe = helper.executable().display().to_string();
    let cases = [
        ("malformed.example.com", "expected ident at line 1 column 2"),
        (
            "array.example.com",
            "invalid type: sequence, expected a map at line 1 column 0",
        ),
        ("big.example.com", "output is larger than 1 MiB"),
        (
            "bad-token.example.com",
            "token contains characters that cannot be sent in an HTTP header",
        ),
    ];
    for (name, detail) in cases {
        let err = get_err(&helper, name);
        assert_eq!(
            err.to_string(),
            format!("malformed output from {exe}: {detail}"),
            "{name}"
        );
        assert!(!err.to_string().contains("a\nb"), "no token in the message");
    }
}

#[test]
fn a_hung_helper_is_killed_at_the_timeout() {
    let home = Home::new();
    let helper = home.helper().with_timeout(Duration::from_millis(300));
    let exe = helper.executable().display().to_string();
    let started = Instant::now();
    let err = get_err(&helper, "hang.example.com");
    let took = started.elapsed();
    assert!(matches!(err, Error::HelperTimeout { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{exe} did not finish within 300ms and was killed")
    );
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(5), "took {took:?}");

    let started = Instant::now();
    let err = helper
        .store(
            &host("hang.example.com"),
            &Credentials::token("t").expect("valid"),
        )
        .expect_err("times out");
    assert!(matches!(err, Error::HelperTimeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // The timeout also reaches the helper of the CLI chain.
    let source = CliCredentials::new(EnvCredentials::default())
        .with_helper("test", home.helper())
        .with_helper_timeout(Duration::from_millis(200));
    assert_eq!(
        source.helper().expect("helper").1.timeout(),
        Duration::from_millis(200)
    );
    let started = Instant::now();
    let err = source
        .credentials(&host("hang.example.com"))
        .expect_err("times out");
    assert!(
        matches!(
            err.downcast_ref::<Error>(),
            Some(Error::HelperTimeout { .. })
        ),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn programs_that_cannot_run() {
    let home = Home::new();
    let relative = HelperProgram::new("terraform-credentials-test", ["x"]).expect_err("relative");
    assert!(matches!(relative, Error::HelperPathNotAbsolute { .. }));
    assert_eq!(
        relative.to_string(),
        "credentials helper requires absolute path to executable, not terraform-credentials-test"
    );

    let missing = home.join("missing");
    let err = HelperProgram::new(&missing, Vec::<String>::new())
        .expect("absolute")
        .get(&host("example.com"))
        .expect_err("cannot start");
    assert!(matches!(err, Error::HelperStart { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "failed to run {}: No such file or directory (os error 2)",
            missing.display()
        )
    );

    let not_executable = home.write("plain-file", "#!/bin/sh\necho '{}'\n");
    let err = HelperProgram::new(&not_executable, Vec::<String>::new())
        .expect("absolute")
        .forget(&host("example.com"))
        .expect_err("cannot start");
    assert_eq!(
        err.to_string(),
        format!(
            "failed to run {}: Permission denied (os error 13)",
            not_executable.display()
        )
    );
}

#[test]
fn the_cache_keeps_hits_and_misses_not_errors() {
    let home = Home::new();
    let cached = CachingCredentials::new(home.helper());
    for _ in 0..2 {
        assert!(
            cached
                .credentials(&host("example.com"))
                .expect("ok")
                .is_some()
        );
        assert!(
            cached
                .credentials(&host("nothing.example.com"))
                .expect("ok")
                .is_none()
        );
        assert!(cached.credentials(&host("fail.example.com")).is_err());
    }
    assert_eq!(cached.cached(&host("example.com")), Some(true));
    assert_eq!(cached.cached(&host("nothing.example.com")), Some(false));
    assert_eq!(cached.cached(&host("fail.example.com")), None);
    assert_eq!(
        home.log(),
        [
            "x get example.com",
            "x get nothing.example.com",
            "x get fail.example.com",
            "x get fail.example.com",
        ]
    );

    // Store and forget drop the entry first.
    let token = Credentials::token("example-token").expect("valid");
    CredentialsStore::store(&cached, &host("example.com"), &token).expect("stored");
    assert_eq!(cached.cached(&host("example.com")), None);
    assert!(
        cached
            .credentials(&host("example.com"))
            .expect("ok")
            .is_some()
    );
    CredentialsStore::forget(&cached, &host("nothing.example.com")).expect("forgotten");
    assert_eq!(cached.cached(&host("nothing.example.com")), None);
    cached.clear();
    assert_eq!(cached.cached(&host("example.com")), None);
    assert_eq!(home.log().len(), 7);
}

#[test]
fn the_cli_chain_reports_the_helper_as_origin() {
    let home = Home::new();
    let source = CliCredentials::new(EnvCredentials::default()).with_helper("test", home.helper());
    let found = source
        .find(&host("example.com"))
        .expect("ok")
        .expect("found");
    let exe = home.helper().executable().to_owned();
    assert_eq!(
        found.origin(),
        &Origin::Helper {
            kind: "test".into(),
            executable: exe.clone()
        }
    );
    assert_eq!(
        found.origin().to_string(),
        format!("credentials helper \"test\" ({})", exe.display())
    );
    // A helper that knows nothing still is the source that answered.
    let found = source
        .find(&host("nothing.example.com"))
        .expect("ok")
        .expect("asked");
    assert!(found.credentials().is_none());
    // Looked up once: the chain caches the helper.
    source.find(&host("example.com")).expect("ok");
    assert_eq!(
        home.log(),
        ["x get example.com", "x get nothing.example.com"]
    );
}
