//! `tfdisco-dev serve` and `tfdisco-dev demo`, end to end.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{tfdisco, tfdisco_dev};

#[test]
fn demo_discovers_through_every_transport() {
    let home = tempfile::tempdir().expect("temp dir");
    let r = tfdisco_dev(home.path(), &[], &["demo"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.matches("<- 301 Moved Permanently").count(),
        3,
        "{}",
        r.stdout
    );
    assert_eq!(r.stdout.matches("<- 200 OK").count(), 3);
    assert!(
        r.stdout
            .contains("login.v1       OAuth client \"tfdisco-dev\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .ends_with("All three transports gave the same answer.\n")
    );
}

/// Kills the server when the test ends, however it ends.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_prints_how_to_discover_it_and_serves_the_document() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = dir.path().join("doc.json");
    std::fs::write(&doc, r#"{"modules.v1": "/my/modules/"}"#).expect("write doc");
    let ca = dir.path().join("ca.pem");
    let mut child = Child(
        Command::new(env!("CARGO_BIN_EXE_tfdisco-dev"))
            .args(["serve", "--listen", "127.0.0.1:0", "--doc"])
            .arg(&doc)
            .arg("--ca-out")
            .arg(&ca)
            .env_clear()
            .env("HOME", dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts"),
    );
    let mut lines = BufReader::new(child.0.stdout.take().expect("piped")).lines();
    let mut command = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    while command.is_none() && Instant::now() < deadline {
        let line = lines.next().expect("a line").expect("text");
        if let Some(cmd) = line.trim().strip_prefix("tfdisco discover ") {
            command = Some(cmd.to_owned());
        }
    }
    let command = command.expect("serve prints the discover command");
    let args: Vec<&str> = std::iter::once("discover")
        .chain(command.split(' '))
        .chain(["--json"])
        .collect();
    assert!(args.contains(&"--ca-file"), "{command}");
    let r = tfdisco(dir.path(), &[], &args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v = r.json();
    assert!(
        v["resolved"]["modules.v1"]
            .as_str()
            .expect("a URL")
            .ends_with("/my/modules/")
    );
    let logged = lines
        .map_while(Result::ok)
        .find(|l| l.starts_with("GET "))
        .expect("the request is logged");
    assert_eq!(logged, "GET /.well-known/terraform.json");
}

#[test]
fn serve_refuses_a_busy_address() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = taken.local_addr().expect("bound").to_string();
    let home = tempfile::tempdir().expect("temp dir");
    let ca = home.path().join("ca.pem");
    let r = tfdisco_dev(
        home.path(),
        &[],
        &[
            "serve",
            "--listen",
            &addr,
            "--ca-out",
            ca.to_str().expect("UTF-8"),
        ],
    );
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("cannot listen on"), "{}", r.stderr);
}
