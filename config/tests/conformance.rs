//! The Go implementations' credentials tables (`conformance/token_env_vars.json`,
//! `conformance/credentials.json`), run as data against real files and a real
//! helper program.
//!
//! Every case has an id; a case that fails must be listed with a reason in
//! `expected_differences.txt`, and a listed case that passes fails the run
//! (the bookkeeping is core's, `core/tests/common/results.rs`).

mod common;
#[path = "../../core/tests/common/results.rs"]
mod results;

use std::collections::BTreeMap;

use serde_json::Value;
use tfdisco_config::{
    CliConfig, CliCredentials, CredentialsStore, Dialect, Env, EnvCredentials, Error,
    HelperProgram, Origin, to_store, token_var_host,
};
use tfdisco_core::{Credentials, CredentialsSource, Hostname, StaticCredentials};

use common::{Home, helper_script, host};
use results::{Results, table};

/// `id<TAB>tag<TAB>reason` lines. Tags: `no-panic` (Go panics, we return an
/// error), `no-such-error` (the Go error cannot happen in Rust).
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["no-panic", "no-such-error"])
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string {key} in {v}"))
}

fn authorization(creds: Option<Credentials>) -> Option<String> {
    creds.map(|c| c.authorization().to_str().expect("ASCII header").to_owned())
}

/// A home whose CLI config, for either dialect, has a credentials block for
/// configured.example.com and the test helper as `credentials_helper`.
fn configured_home() -> Home {
    let home = Home::new();
    let helper = home.install_helper(".terraform.d/plugins");
    let text = format!(
        "credentials \"configured.example.com\" {{\n  token = \"configured\"\n}}\n{helper}"
    );
    home.write(".terraformrc", &text);
    home.write(".tofurc", &text);
    home
}

fn cli_source(home: &Home, dialect: Dialect, env: &Env) -> CliCredentials {
    let config = CliConfig::load(dialect, env);
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
    let source = config.credentials_source(env);
    assert!(
        source.helper().is_some(),
        "helper found in {}",
        home.path().display()
    );
    source
}

const DIALECTS: [Dialect; 2] = [Dialect::Terraform, Dialect::OpenTofu];

#[test]
fn token_env_vars() {
    let t = table("token_env_vars.json");
    let mut results = Results::new("token_env_vars/");
    for (i, case) in t["anchor"].as_array().expect("anchor").iter().enumerate() {
        results.record(format!("token_env_vars/anchor/{i}"), run_token_anchor(case));
    }
    for (i, case) in t["docs"].as_array().expect("docs").iter().enumerate() {
        results.record(format!("token_env_vars/docs/{i}"), run_token_doc(case));
    }
    results.finish();
}

fn run_token_anchor(case: &Value) -> Result<(), String> {
    let lookup =
        Hostname::from_comparison(s(case, "looked_up_hostname")).map_err(|e| e.to_string())?;
    if let Some(input) = case.get("looked_up_hostname_input").and_then(Value::as_str) {
        check(
            "hostname input",
            Hostname::parse(input).map_err(|e| e.to_string()),
            Ok(lookup.clone()),
        )?;
    }
    let want = Some(format!("Bearer {}", s(case, "token")));
    let var = (s(case, "variable"), s(case, "value"));

    // The variable alone.
    let env = Env::new([var]);
    let got = EnvCredentials::new(&env)
        .credentials(&lookup)
        .map_err(|e| e.to_string())?;
    check("env alone", authorization(got), want.clone())?;

    // The whole CLI chain, with a credentials block and a helper that also
    // know configured.example.com: the variable wins.
    let home = configured_home();
    let env = home.env().with_var(var.0, var.1);
    for dialect in DIALECTS {
        let source = cli_source(&home, dialect, &env);
        let found = source
            .find(&lookup)
            .map_err(|e| e.to_string())?
            .ok_or("nothing found")?;
        check(
            "origin",
            found.origin(),
            &Origin::EnvVar {
                name: var.0.to_owned(),
            },
        )?;
        check(
            dialect.name(),
            authorization(found.into_credentials()),
            want.clone(),
        )?;
    }
    check("helper calls", home.log(), Vec::<String>::new())
}

fn run_token_doc(case: &Value) -> Result<(), String> {
    let decoded = token_var_host(s(case, "variable")).ok_or("variable ignored")?;
    check("hostname", decoded.as_str(), s(case, "hostname"))?;
    if let Some(display) = case.get("hostname_display").and_then(Value::as_str) {
        check("display", decoded.display().as_ref(), display)?;
    }
    Ok(())
}

#[test]
fn credentials() {
    let t = table("credentials.json");
    let mut results = Results::new("credentials/");
    for (i, case) in t["helper_program"]
        .as_array()
        .expect("helper_program")
        .iter()
        .enumerate()
    {
        results.record(
            format!("credentials/helper_program/{i}"),
            run_helper_case(case),
        );
    }
    let messages = t["helper_error_messages"]
        .as_object()
        .expect("helper_error_messages");
    for (key, format) in messages {
        let format = format.as_str().expect("a string");
        results.record(
            format!("credentials/helper_error_messages/{key}"),
            run_helper_message(key, format),
        );
    }
    results.record("credentials/token".into(), run_token(&t["token"]));
    for (i, case) in t["static"].as_array().expect("static").iter().enumerate() {
        results.record(format!("credentials/static/{i}"), run_static(case));
    }
    for (i, case) in t["cli_precedence"]
        .as_array()
        .expect("cli_precedence")
        .iter()
        .enumerate()
    {
        results.record(
            format!("credentials/cli_precedence/{i}"),
            run_precedence(i, case),
        );
    }
    results.finish();
}

fn run_helper_case(case: &Value) -> Result<(), String> {
    let home = Home::new();
    let helper = home.helper();
    let exe = helper.executable().display().to_string();
    let hostname = host(s(case, "hostname"));
    let verb = s(case, "verb");
    let outcome: Result<Option<Credentials>, Error> = match verb {
        "get" => helper.get(&hostname),
        "store" => {
            let sent: Value =
                serde_json::from_str(s(case, "stdin_sent")).map_err(|e| e.to_string())?;
            let creds = Credentials::token(sent["token"].as_str().ok_or("no token")?)
                .map_err(|e| e.to_string())?;
            check("stdin", to_store(&creds), sent)?;
            helper.store(&hostname, &creds).map(|()| None)
        }
        "forget" => helper.forget(&hostname).map(|()| None),
        other => return Err(format!("unknown verb {other}")),
    };
    let expect = &case["expect"];
    match (expect, outcome) {
        (Value::String(e), Err(err)) if e == "error" => {
            let stderr = case["helper_behaviour"]["stderr"]
                .as_str()
                .ok_or("no stderr")?;
            check(
                "message",
                err.to_string(),
                format!("error in {exe}: {}", stderr.trim_end()),
            )?;
        }
        (Value::String(e), Ok(None)) if e == "ok" => {}
        (Value::Null, Ok(None)) => {}
        (Value::Object(want), Ok(Some(creds))) => {
            check(
                "token",
                Some(creds.expose_token()),
                want.get("token").and_then(Value::as_str),
            )?;
        }
        (expect, got) => return Err(format!("expected {expect}, got {got:?}")),
    }
    // argv = [exe, args..., verb, hostname]: the helper logs "args verb hostname".
    let logged = home.log().first().cloned().unwrap_or_default();
    let want = format!("x {verb} {}", hostname.as_str());
    check("argv", logged.starts_with(&want), true).map_err(|e| format!("{e}: {logged:?}"))
}

fn run_helper_message(key: &str, format: &str) -> Result<(), String> {
    let home = Home::new();
    let helper = home.helper();
    let exe = helper.executable().display().to_string();
    match key {
        "non_zero_exit_with_stderr" => {
            let err = helper
                .get(&host("fail.example.com"))
                .err()
                .ok_or("no error")?;
            let want = format
                .replace("<executable>", &exe)
                .replace("<stderr>", "failing because you told me to fail");
            check("message", err.to_string(), want)
        }
        "non_zero_exit_no_stderr" => {
            let err = helper
                .get(&host("silent-fail.example.com"))
                .err()
                .ok_or("no error")?;
            check(
                "message",
                err.to_string(),
                format.replace("<executable>", &exe),
            )
        }
        "could_not_start" => {
            let missing = home.join("no-such-helper");
            let err = HelperProgram::new(&missing, Vec::<String>::new())
                .map_err(|e| e.to_string())?
                .get(&host("example.com"))
                .err()
                .ok_or("no error")?;
            let prefix = format
                .replace("<executable>", &missing.display().to_string())
                .replace("<os error>", "");
            let message = err.to_string();
            check("message starts", message.starts_with(&prefix), true)
                .map_err(|e| format!("{e}: {message}"))?;
            check("has the OS error", message.len() > prefix.len(), true)
        }
        "get_stdout_not_json_object" => {
            for name in ["malformed.example.com", "array.example.com"] {
                let err = helper.get(&host(name)).err().ok_or("no error")?;
                let prefix = format
                    .replace("<executable>", &exe)
                    .replace("<json error>", "");
                let message = err.to_string();
                check("message starts", message.starts_with(&prefix), true)
                    .map_err(|e| format!("{e}: {message}"))?;
            }
            Ok(())
        }
        "relative_executable_path" => {
            // Go panics; we return an error. Listed as an expected difference.
            match HelperProgram::new("relative/helper", Vec::<String>::new()) {
                Err(Error::HelperPathNotAbsolute { .. }) => {
                    Err("returns an error instead of panicking".into())
                }
                other => Err(format!("unexpected {other:?}")),
            }
        }
        "store_serialize_failure" => Err(
            "serializing {\"token\": <string>} cannot fail in Rust; there is no such error".into(),
        ),
        other => Err(format!("unknown message {other}")),
    }
}

fn run_token(case: &Value) -> Result<(), String> {
    let creds = Credentials::token(s(case, "token")).map_err(|e| e.to_string())?;
    check(
        "header",
        creds.authorization().to_str().map_err(|e| e.to_string())?,
        s(case, "authorization_header"),
    )?;
    check("to_store", &to_store(&creds), &case["to_store"])
}

fn run_static(case: &Value) -> Result<(), String> {
    let source: StaticCredentials = case["map"]
        .as_object()
        .ok_or("map")?
        .iter()
        .filter_map(|(name, entry)| {
            let token = entry.get("token")?.as_str()?;
            Some((host(name), Credentials::token(token).ok()?))
        })
        .collect();
    let got = source
        .credentials(&host(s(case, "lookup")))
        .map_err(|e| e.to_string())?;
    let want = case["expect"].get("token").and_then(Value::as_str);
    check("token", got.as_ref().map(Credentials::expose_token), want)
}

fn run_precedence(i: usize, case: &Value) -> Result<(), String> {
    let text = s(case, "case");
    let expect = &case["expect"];
    for dialect in DIALECTS {
        run_precedence_in(i, text, expect, dialect)
            .map_err(|e| format!("{}: {e}", dialect.name()))?;
    }
    Ok(())
}

fn run_precedence_in(i: usize, text: &str, expect: &Value, dialect: Dialect) -> Result<(), String> {
    let expect_str = expect.as_str();
    let lookup = |source: &CliCredentials, name: &str| {
        source
            .credentials(&host(name))
            .map(authorization)
            .map_err(|e| e.to_string())
    };
    match i {
        0..=3 => {
            let home = configured_home();
            let mut env = home.env();
            let name = match i {
                0 => "configured.example.com",
                1 => "from-helper.example.com",
                2 => "unavailable.example.com",
                _ => {
                    env = env.with_var("TF_TOKEN_configured_example_com", "configured-by-env");
                    "configured.example.com"
                }
            };
            check(
                "case text",
                text.contains(name.split('.').next().unwrap_or(name)),
                true,
            )?;
            let source = cli_source(&home, dialect, &env);
            check(
                "credentials",
                lookup(&source, name)?,
                expect_str.map(str::to_owned),
            )
        }
        4 => {
            check(
                "case text",
                text.starts_with("StoreForHost / ForgetForHost"),
                true,
            )?;
            let home = configured_home();
            let source = cli_source(&home, dialect, &home.env());
            let h = host("configured.example.com");
            let want = "cannot change credentials for configured.example.com: existing manually-configured credentials in a CLI config file";
            let from_table = expect_str
                .and_then(|e| e.split('\'').nth(1))
                .map(|e| e.replace("<display host>", &h.display()));
            check("expected text", from_table.as_deref(), Some(want))?;
            let creds = Credentials::token("new").map_err(|e| e.to_string())?;
            let err = source.store(&h, &creds).err().ok_or("store succeeded")?;
            check("store", err.to_string(), want.to_owned())?;
            check(
                "typed",
                matches!(err.downcast_ref::<Error>(), Some(Error::Unwritable { .. })),
                true,
            )?;
            let err = source.forget(&h).err().ok_or("forget succeeded")?;
            check("forget", err.to_string(), want.to_owned())?;
            check("helper calls", home.log(), Vec::<String>::new())
        }
        5 => {
            check(
                "case text",
                text.starts_with("StoreForHost with no helper"),
                true,
            )?;
            let home = Home::new();
            let env = home.env();
            let source = CliConfig::load(dialect, &env).credentials_source(&env);
            let h = host("Stored-Locally.Example.COM");
            let creds = Credentials::token("stored-locally").map_err(|e| e.to_string())?;
            source.store(&h, &creds).map_err(|e| e.to_string())?;
            let path = home.join(".terraform.d/credentials.tfrc.json");
            let written: Value =
                serde_json::from_str(&home.read(".terraform.d/credentials.tfrc.json"))
                    .map_err(|e| e.to_string())?;
            check(
                "file",
                written,
                serde_json::json!({"credentials": {"stored-locally.example.com": {"token": "stored-locally"}}}),
            )?;
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path)
                .map_err(|e| e.to_string())?
                .permissions()
                .mode();
            check("mode", mode & 0o777, 0o600)?;
            let found = source
                .find(&h)
                .map_err(|e| e.to_string())?
                .ok_or("not readable back")?;
            check(
                "origin",
                found.origin(),
                &Origin::CredentialsFile { path: path.clone() },
            )?;
            check(
                "read back",
                authorization(found.into_credentials()),
                Some("Bearer stored-locally".to_owned()),
            )?;
            // A fresh load reads it back too.
            let again = CliConfig::load(dialect, &env).credentials_source(&env);
            check(
                "fresh load",
                lookup(&again, "stored-locally.example.com")?,
                Some("Bearer stored-locally".to_owned()),
            )
        }
        6 => {
            check(
                "case text",
                text.contains("not in credentials.tfrc.json"),
                true,
            )?;
            let home = configured_home();
            let source = cli_source(&home, dialect, &home.env());
            let creds = Credentials::token("example-token").map_err(|e| e.to_string())?;
            source
                .store(&host("example.com"), &creds)
                .map_err(|e| e.to_string())?;
            check(
                "helper calls",
                home.log(),
                vec![r#"x store example.com {"token":"example-token"}"#.to_owned()],
            )?;
            check(
                "file unchanged",
                home.join(".terraform.d/credentials.tfrc.json").exists(),
                false,
            )
        }
        7 => {
            check(
                "case text",
                text.contains("already in credentials.tfrc.json"),
                true,
            )?;
            let home = configured_home();
            home.write(
                ".terraform.d/credentials.tfrc.json",
                r#"{"credentials": {"Local.Example.com": {"token": "old"}}}"#,
            );
            let source = cli_source(&home, dialect, &home.env());
            check(
                "before",
                lookup(&source, "local.example.com")?,
                Some("Bearer old".to_owned()),
            )?;
            let creds = Credentials::token("new").map_err(|e| e.to_string())?;
            source
                .store(&host("local.example.com"), &creds)
                .map_err(|e| e.to_string())?;
            let written: Value =
                serde_json::from_str(&home.read(".terraform.d/credentials.tfrc.json"))
                    .map_err(|e| e.to_string())?;
            check(
                "updated",
                written,
                serde_json::json!({"credentials": {"local.example.com": {"token": "new"}}}),
            )?;
            check(
                "after store",
                lookup(&source, "local.example.com")?,
                Some("Bearer new".to_owned()),
            )?;
            source
                .forget(&host("local.example.com"))
                .map_err(|e| e.to_string())?;
            let written: Value =
                serde_json::from_str(&home.read(".terraform.d/credentials.tfrc.json"))
                    .map_err(|e| e.to_string())?;
            check("removed", written, serde_json::json!({"credentials": {}}))?;
            check("helper calls", home.log(), Vec::<String>::new())
        }
        8 => {
            check(
                "case text",
                text.contains("ForgetForHost for a helper-managed host"),
                true,
            )?;
            let home = configured_home();
            let source = cli_source(&home, dialect, &home.env());
            check(
                "before",
                lookup(&source, "from-helper.example.com")?,
                Some("Bearer from-helper".to_owned()),
            )?;
            source
                .forget(&host("from-helper.example.com"))
                .map_err(|e| e.to_string())?;
            check(
                "helper calls",
                home.log(),
                vec![
                    "x get from-helper.example.com".to_owned(),
                    "x forget from-helper.example.com".to_owned(),
                ],
            )
        }
        _ => Err(format!("no runner for case {i}: {text}")),
    }
}

#[test]
fn helper_script_is_absolute() {
    assert!(helper_script().is_absolute());
}
