//! What `tfdisco-dev serve` prints to reach it works as printed (the address it
//! listens on, the CA to trust), and each `serve` has a CA of its own.

mod common;

use common::{Serve, tfdisco};

#[test]
fn the_printed_commands_reach_it_with_the_ca_it_made() {
    let home = tempfile::tempdir().expect("temp dir");
    let ca = home.path().join("ca.pem").to_string_lossy().into_owned();
    let serve = Serve::start(home.path(), &["--ca-out", &ca]);
    let port = serve.port();
    assert_ne!(port, 0);
    let host = format!("127.0.0.1:{port}");
    assert_eq!(
        serve.printed[0],
        format!("serving https://{host}/.well-known/terraform.json")
    );
    let discover = serve.command("discover");
    assert_eq!(discover, ["discover", &host, "--ca-file", &ca]);
    for command in [discover, serve.command("provider"), serve.command("module")] {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let r = tfdisco(home.path(), &[], &args);
        assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
    }
    assert!(
        serve
            .printed
            .contains(&format!("  SSL_CERT_FILE={ca} tofu init")),
        "{:?}",
        serve.printed
    );
}

#[test]
fn with_their_certificate_it_says_to_add_their_ca() {
    let home = tempfile::tempdir().expect("temp dir");
    let pki = tfdisco_testkit::dev_pki(&["127.0.0.1"]).expect("a PKI");
    let file = |name: &str, text: &str| {
        let path = home.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.to_string_lossy().into_owned()
    };
    let their_ca = file("their-ca.pem", &pki.ca_pem);
    let cert = file("cert.pem", &pki.cert_pem);
    let key = file("key.pem", &pki.key_pem);
    let serve = Serve::start(home.path(), &["--cert", &cert, "--key", &key]);
    let host = format!("127.0.0.1:{}", serve.port());
    let discover = serve.command("discover");
    assert_eq!(discover, ["discover", &host, "--ca-file", "YOUR-CA.pem"]);
    assert!(
        serve
            .printed
            .iter()
            .any(|l| l.starts_with("YOUR-CA.pem below stands for")),
        "{:?}",
        serve.printed
    );
    // With their CA file in place of the placeholder, it works.
    let args: Vec<&str> = discover
        .iter()
        .map(|a| {
            if a == "YOUR-CA.pem" {
                &their_ca
            } else {
                a.as_str()
            }
        })
        .collect();
    let r = tfdisco(home.path(), &[], &args);
    assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
}

/// Trusting another `serve`'s CA: the server's certificate has an unknown
/// issuer, and every transport says so (two CAs of the same name made
/// rustls report `BadSignature`).
#[test]
fn another_serves_ca_is_an_unknown_issuer() {
    let home = tempfile::tempdir().expect("temp dir");
    let other_ca = home.path().join("other-ca.pem");
    let other_ca = other_ca.to_string_lossy();
    drop(Serve::start(home.path(), &["--ca-out", &other_ca]));
    let ca = home.path().join("ca.pem");
    let serve = Serve::start(home.path(), &["--ca-out", &ca.to_string_lossy()]);
    let host = format!("127.0.0.1:{}", serve.port());
    for (transport, says) in [
        ("tokio", "invalid peer certificate: UnknownIssuer"),
        ("async-std", "invalid peer certificate: UnknownIssuer"),
        ("curl", "unable to get local issuer certificate"),
    ] {
        let r = tfdisco(
            home.path(),
            &[],
            &[
                "discover",
                &host,
                "--ca-file",
                &other_ca,
                "--transport",
                transport,
                "--json",
            ],
        );
        assert_eq!(r.code, Some(1), "{transport}: {}", r.stderr);
        let error = &r.json()["error"];
        assert_eq!(error["kind"], "tls", "{transport}: {error}");
        let message = error["message"].as_str().expect("a message");
        assert!(message.contains(says), "{transport}: {message}");
    }
}
