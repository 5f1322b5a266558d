//! `tfdisco normalize`, run as a real process.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn tfdisco(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfdisco"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin.as_bytes())
        .expect("stdin accepts input");
    child.wait_with_output().expect("the binary exits")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn arguments_in_human_form() {
    let o = tfdisco(&["normalize", "Example.COM:443", "faß.de:8443"], "");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "Example.COM:443\texample.com\texample.com\nfaß.de:8443\txn--fa-hia.de:8443\tfaß.de:8443\n"
    );
}

#[test]
fn an_invalid_input_is_reported_and_exits_2() {
    let o = tfdisco(&["normalize", "ok.example", "a..b"], "");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "ok.example\tok.example\tok.example\n\
         a..b\terror: hostname contains empty label (two consecutive periods)\n"
    );
}

#[test]
fn stdin_as_json_lines() {
    let o = tfdisco(
        &["normalize", "--json"],
        "münchen.de\r\nxn--80akhbyknj4f.com\n",
    );
    assert_eq!(o.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(
        lines,
        [
            serde_json::json!({"input": "münchen.de", "comparison": "xn--mnchen-3ya.de", "error": null, "display": "münchen.de"}),
            serde_json::json!({
                "input": "xn--80akhbyknj4f.com",
                "comparison": null,
                "error": "hostname label \"xn--80akhbyknj4f\" specified in punycode format; service hostnames must be given in unicode",
                "display": "испытание.com"
            }),
        ]
    );
}

#[test]
fn usage_errors_exit_2() {
    let o = tfdisco(&["no-such-command"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unrecognized subcommand"));
}
