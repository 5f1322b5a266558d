//! `TF_TOKEN_*` decoding beyond the table: the rules of docs/behaviour.md, CRED-5.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use tfdisco_config::{Env, EnvCredentials, Error, Origin, token_var_host};
use tfdisco_core::{CredentialsSource, Hostname};

fn decoded(name: &str) -> Option<String> {
    token_var_host(name).map(|h| h.as_str().to_owned())
}

#[test]
fn name_decoding() {
    let cases = [
        // `__` is a hyphen, `_` a period; hyphens and periods work too.
        (
            "TF_TOKEN_my__registry_example_com",
            Some("my-registry.example.com"),
        ),
        (
            "TF_TOKEN_my-registry.example.com",
            Some("my-registry.example.com"),
        ),
        // Case-insensitive host part, raw UTF-8 and punycode.
        ("TF_TOKEN_EXAMPLE_COM", Some("example.com")),
        ("TF_TOKEN_café_fr", Some("xn--caf-dma.fr")),
        ("TF_TOKEN_xn--caf-dma_fr", Some("xn--caf-dma.fr")),
        // A port only with a literal colon; :443 is dropped.
        ("TF_TOKEN_localhost:8080", Some("localhost:8080")),
        ("TF_TOKEN_example_com:443", Some("example.com")),
        ("TF_TOKEN_localhost_8080", Some("localhost.8080")),
        // A trailing underscore is a trailing dot: a different host.
        ("TF_TOKEN_example_com_", Some("example.com.")),
        // `___` is `-` then `.`: an invalid label.
        ("TF_TOKEN_a___b_com", None),
        // The prefix is case-sensitive and must be followed by a host.
        ("tf_token_example_com", None),
        ("TF_Token_example_com", None),
        ("TF_TOKEN_", None),
        ("TF_TOKEN__example_com", None),
        ("TF_TOKENS_example_com", None),
        ("TF_TOKEN_exa mple_com", None),
    ];
    for (name, want) in cases {
        assert_eq!(decoded(name).as_deref(), want, "{name}");
    }
}

#[test]
fn later_variables_win_and_others_are_ignored() {
    let env = Env::new([
        ("TF_TOKEN_example_com", "first"),
        ("PATH", "/bin"),
        ("TF_TOKEN_invalid__", "ignored"),
        ("TF_TOKEN_EXAMPLE.COM", "second"),
        ("TF_TOKEN_other_com", ""),
    ]);
    let source = EnvCredentials::new(&env);
    let example = Hostname::parse("example.com").expect("valid");
    let creds = source.credentials(&example).expect("ok").expect("token");
    assert_eq!(creds.expose_token(), "second");
    assert_eq!(source.variable(&example), Some("TF_TOKEN_EXAMPLE.COM"));
    // An empty value is an empty token, as in Go.
    let other = Hostname::parse("other.com").expect("valid");
    assert_eq!(
        source
            .credentials(&other)
            .expect("ok")
            .expect("token")
            .expose_token(),
        ""
    );
    let mut hosts: Vec<_> = source.hosts().map(Hostname::as_str).collect();
    hosts.sort();
    assert_eq!(hosts, ["example.com", "other.com"]);
    assert!(
        !format!("{source:?}").contains("second"),
        "Debug shows no token"
    );
}

#[test]
fn tokens_that_cannot_be_sent_are_errors_without_the_token() {
    let bad = OsString::from_vec(b"caf\xe9".to_vec());
    let env = Env::new([
        (
            OsString::from("TF_TOKEN_a_com"),
            OsString::from("line\nbreak"),
        ),
        (OsString::from("TF_TOKEN_b_com"), bad),
        (
            OsString::from_vec(b"TF_TOKEN_\xff_com".to_vec()),
            OsString::from("x"),
        ),
    ]);
    let source = EnvCredentials::new(&env);
    for (name, var) in [("a.com", "TF_TOKEN_a_com"), ("b.com", "TF_TOKEN_b_com")] {
        let err = source
            .credentials(&Hostname::parse(name).expect("valid"))
            .expect_err("invalid token");
        let typed = err.downcast_ref::<Error>().expect("our error");
        assert!(
            matches!(typed, Error::InvalidToken { origin: Origin::EnvVar { name } } if name == var)
        );
        assert_eq!(
            err.to_string(),
            format!(
                "the token from environment variable {var} contains characters that cannot be sent in an HTTP header"
            )
        );
        assert!(!err.to_string().contains("line"));
    }
    assert_eq!(
        source.hosts().count(),
        2,
        "a name that is not UTF-8 is ignored"
    );
}
