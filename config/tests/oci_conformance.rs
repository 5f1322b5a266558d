//! OpenTofu's OCI credentials tests (`conformance/oci_credentials.json`),
//! run as data: CLI configuration texts read as files, the policy's files
//! written under a temporary home, and credential helpers run as real
//! programs (docs/behaviour.md, OCICRED-1 to OCICRED-11).
//!
//! Every case has an id; a case that fails must be listed with a reason in
//! `expected_differences.txt`, and a listed case that passes fails the run
//! (the bookkeeping is core's, `core/tests/common/results.rs`).

mod oci_common;
#[path = "../../core/tests/common/results.rs"]
mod results;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use tfdisco_config::{
    CliConfig, Dialect, Env, OciBlockCredentials, OciCredentialsBlock, OciCredentialsPolicy,
    OciDefaultCredentialsBlock, OciHostOs, docker_style_search_locations,
    oci_auths_key_specificity,
};
use tfdisco_oci::OciCredentials;

use oci_common::Helpers;
use results::{Results, table};

/// `id<TAB>tag<TAB>reason` lines. Tag: `transport` (the case needs a
/// registry; the transports' tests cover it).
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["transport"])
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

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

fn os(name: &str) -> OciHostOs {
    match name {
        "linux" => OciHostOs::Linux,
        "darwin" => OciHostOs::MacOs,
        "windows" => OciHostOs::Windows,
        _ => OciHostOs::Other,
    }
}

/// A block as the table writes it: the label and every non-empty field.
fn credentials_json(block: &OciCredentialsBlock) -> Value {
    let mut o = Map::new();
    o.insert("repository_prefix".into(), block.label().into());
    match block.credentials() {
        OciBlockCredentials::Basic { username, password } => {
            o.insert("username".into(), username.as_str().into());
            o.insert("password".into(), password.as_str().into());
        }
        OciBlockCredentials::OAuth {
            access_token,
            refresh_token,
        } => {
            o.insert("access_token".into(), access_token.as_str().into());
            o.insert("refresh_token".into(), refresh_token.as_str().into());
        }
        OciBlockCredentials::DockerCredentialsHelper(name) => {
            o.insert("docker_credentials_helper".into(), name.as_str().into());
        }
        other => panic!("unknown {other:?}"),
    }
    // The table leaves empty strings out.
    o.retain(|_, v| v != "");
    Value::Object(o)
}

fn defaults_json(block: &OciDefaultCredentialsBlock) -> Value {
    json!({
        "discover_ambient_credentials": block.discover_ambient_credentials(),
        "docker_style_config_files": block.docker_style_config_files().map(|files| {
            files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>()
        }),
        "docker_credentials_helper": block.docker_credentials_helper().unwrap_or_default(),
    })
}

/// Reads `(path, text)` files as OpenTofu's CLI configuration.
fn load(files: Vec<(PathBuf, String)>, env: &Env) -> CliConfig {
    CliConfig::from_sources_in(Dialect::OpenTofu, env, files)
}

/// One fixture file as one CLI config file: its diagnostics' messages.
fn load_fixture(case: &Value) -> (CliConfig, Vec<String>, tempfile::TempDir) {
    let dir = tempdir();
    let name = s(case, "file").rsplit('/').next().expect("a name");
    let path = dir.path().join(name);
    write(&path, s(case, "input"));
    let config = load(vec![(path, s(case, "input").to_owned())], &Env::empty());
    let messages = config
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    (config, messages, dir)
}

/// `error_contains`: the one problem expected, and in the `validate`
/// phase, nothing else (loading alone found no error).
fn check_errors(case: &Value, messages: &[String]) -> Result<(), String> {
    match case.get("error_contains").and_then(Value::as_str) {
        None => check("diagnostics", messages, &[]),
        Some(want) => {
            if !messages.iter().any(|m| m.contains(want)) {
                return Err(format!("no diagnostic contains {want:?}: {messages:?}"));
            }
            if case["phase"] == "validate" {
                check("only the validation error", messages.len(), 1)?;
            }
            Ok(())
        }
    }
}

#[test]
fn oci_credentials() {
    let t = table("oci_credentials.json");
    let mut results = Results::new("oci_credentials/");
    let cases = |name: &str| {
        t[name]
            .as_array()
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };

    for case in cases("opentofu_cliconfig_oci_credentials") {
        let id = format!(
            "oci_credentials/opentofu_cliconfig_oci_credentials/{}",
            s(&case, "name")
        );
        results.record(id, run_credentials_block(&case));
    }
    for case in cases("opentofu_cliconfig_oci_default_credentials") {
        let id = format!(
            "oci_credentials/opentofu_cliconfig_oci_default_credentials/{}",
            s(&case, "name")
        );
        results.record(id, run_default_block(&case));
    }
    for (i, case) in cases("opentofu_cliconfig_config_merge").iter().enumerate() {
        results.record(
            format!("oci_credentials/opentofu_cliconfig_config_merge/{i}"),
            run_merge(case),
        );
    }
    for case in cases("opentofu_credentials_policy") {
        run_policy_case(&case, &mut results);
    }
    run_docker_cli_style(&t["opentofu_docker_cli_style_auth"], &mut results);
    for (i, case) in cases("opentofu_auth_file_search_locations")
        .iter()
        .enumerate()
    {
        results.record(
            format!("oci_credentials/opentofu_auth_file_search_locations/{i}"),
            run_search_locations(case),
        );
    }
    for (i, case) in cases("opentofu_containers_auth_property_name_match")
        .iter()
        .enumerate()
    {
        results.record(
            format!("oci_credentials/opentofu_containers_auth_property_name_match/{i}"),
            run_name_match(case),
        );
    }
    for (i, case) in cases("opentofu_oci_client").iter().enumerate() {
        results.record(
            format!("oci_credentials/opentofu_oci_client/{i}"),
            run_client_case(case),
        );
    }
    results.finish();
}

fn run_credentials_block(case: &Value) -> Result<(), String> {
    let (config, messages, _dir) = load_fixture(case);
    check_errors(case, &messages)?;
    if case["phase"] == "validate" {
        return check("both blocks kept", config.oci_credentials_blocks().len(), 2);
    }
    let got: Vec<Value> = config
        .oci_credentials_blocks()
        .iter()
        .map(credentials_json)
        .collect();
    let want = match &case["want"] {
        Value::Null => Vec::new(),
        Value::Array(items) => items.clone(),
        other => return Err(format!("want {other}")),
    };
    check("blocks", got, want)
}

fn run_default_block(case: &Value) -> Result<(), String> {
    let (config, messages, _dir) = load_fixture(case);
    check_errors(case, &messages)?;
    let blocks = config.oci_default_credentials_blocks();
    if case["phase"] == "validate" {
        return check("both blocks kept", blocks.len(), 2);
    }
    check("blocks", blocks.len(), 1)?;
    check("block", defaults_json(&blocks[0]), case["want"].clone())
}

/// The table's structs as CLI configuration text.
fn config_text(side: &Value) -> String {
    let mut text = String::new();
    for block in side["oci_default_credentials"]
        .as_array()
        .expect("defaults")
    {
        text.push_str("oci_default_credentials {\n");
        text.push_str(&format!(
            "  discover_ambient_credentials = {}\n",
            block["discover_ambient_credentials"]
        ));
        if let Some(files) = block["docker_style_config_files"].as_array() {
            text.push_str(&format!(
                "  docker_style_config_files = {}\n",
                Value::from(files.clone())
            ));
        }
        if let Some(helper) = block["docker_credentials_helper"]
            .as_str()
            .filter(|h| !h.is_empty())
        {
            text.push_str(&format!("  docker_credentials_helper = {helper:?}\n"));
        }
        text.push_str("}\n");
    }
    for block in side["oci_credentials"].as_array().expect("credentials") {
        text.push_str(&format!(
            "oci_credentials {} {{\n",
            block["repository_prefix"]
        ));
        for (key, value) in block.as_object().expect("an object") {
            if key != "repository_prefix" {
                text.push_str(&format!("  {key} = {value}\n"));
            }
        }
        text.push_str("}\n");
    }
    text
}

fn run_merge(case: &Value) -> Result<(), String> {
    let dir = tempdir();
    let files = ["left", "right"]
        .into_iter()
        .map(|side| {
            (
                dir.path().join(format!("{side}.tfrc")),
                config_text(&case[side]),
            )
        })
        .collect();
    let config = load(files, &Env::empty());
    let messages: Vec<String> = config
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    check(
        "diagnostics",
        messages,
        vec!["No more than one oci_default_credentials block may be specified".to_owned()],
    )?;
    let want = &case["want"];
    let defaults: Vec<Value> = config
        .oci_default_credentials_blocks()
        .iter()
        .map(defaults_json)
        .collect();
    check(
        "oci_default_credentials",
        Value::from(defaults),
        want["oci_default_credentials"].clone(),
    )?;
    let blocks: Vec<Value> = config
        .oci_credentials_blocks()
        .iter()
        .map(credentials_json)
        .collect();
    check(
        "oci_credentials",
        Value::from(blocks),
        want["oci_credentials"].clone(),
    )
}

/// A `<case>` text made real.
fn at_case(text: &str, case_dir: &Path) -> String {
    text.replace("<case>", &case_dir.display().to_string())
}

/// The policy of a case directory: its `*.tfrc[.json]` files in name order,
/// with the case's home and variables, helpers on the `PATH`.
fn case_policy(
    case: &Value,
    dir: &Path,
    helpers: &Helpers,
) -> Result<(CliConfig, OciCredentialsPolicy), String> {
    let os_name = s(case, "os");
    let mut configs = Vec::new();
    for (name, text) in case["files"].as_object().expect("files") {
        let text = text.as_str().expect("a text");
        let path = dir.join(name);
        write(&path, text);
        if !name.contains('/') && (name.ends_with(".tfrc") || name.ends_with(".tfrc.json")) {
            configs.push((path, text.to_owned()));
        }
    }
    configs.sort();
    let home = at_case(s(case, "home"), dir);
    let home_var = if os_name == "windows" {
        "USERPROFILE"
    } else {
        "HOME"
    };
    let mut env = Env::empty()
        .with_var(home_var, &home)
        .with_var("PATH", helpers.search_path());
    for (name, value) in case["env"].as_object().expect("env") {
        env = env.with_var(name, at_case(value.as_str().expect("a value"), dir));
    }
    let config = load(configs, &env);
    check("diagnostics", config.diagnostics(), &[])?;
    let policy = config
        .oci_credentials_policy_for(os(os_name), &env)
        .map_err(|e| e.to_string())?;
    Ok((config, policy))
}

/// `want_credentials` against what the policy gives. OAuth-style
/// credentials come back as the access token alone (ORAS never uses the
/// refresh token beside one, OCICRED-11); the block chosen must still hold
/// the refresh token.
fn check_credentials(
    got: Option<OciCredentials>,
    want: &Value,
    config: Option<&CliConfig>,
) -> Result<(), String> {
    let want_creds = match want {
        Value::Null => None,
        w if w.get("username").is_some() => {
            Some(OciCredentials::basic(s(w, "username"), s(w, "password")))
        }
        w => {
            let refresh = s(w, "refresh_token");
            let config = config.ok_or("OAuth credentials outside a CLI configuration")?;
            let held = config.oci_credentials_blocks().iter().any(|b| {
                matches!(b.credentials(), OciBlockCredentials::OAuth { access_token, refresh_token }
                    if access_token == s(w, "access_token") && refresh_token == refresh)
            });
            check("the block holds both tokens", held, true)?;
            Some(OciCredentials::access_token(s(w, "access_token")))
        }
    };
    check("credentials", got, want_creds)
}

fn run_policy_case(case: &Value, results: &mut Results) {
    let name = s(case, "name");
    let prefix = format!("oci_credentials/opentofu_credentials_policy/{name}");
    let dir = tempdir();
    let dir = dir.path().canonicalize().expect("canonical");
    let helpers = Helpers::new();
    helpers.install("fake", &[("*", 0, "@fake")]);
    let built = case_policy(case, &dir, &helpers);
    let locations = built
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|(_, policy)| {
            let case_prefix = format!("{}/", dir.display());
            let got: Vec<String> = policy
                .config_locations()
                .into_iter()
                .map(|l| {
                    l.strip_prefix(&case_prefix)
                        .map_or(l.clone(), str::to_owned)
                })
                .collect();
            let want: Vec<String> = match &case["want_config_locations"] {
                Value::Null => Vec::new(),
                v => serde_json::from_value(v.clone()).map_err(|e| e.to_string())?,
            };
            check("locations", got, want)
        });
    results.record(format!("{prefix}/locations"), locations);
    for (j, lookup) in case["lookups"]
        .as_array()
        .expect("lookups")
        .iter()
        .enumerate()
    {
        let outcome = built
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|(config, policy)| {
                let repository = s(lookup, "repository");
                let (registry, path) = repository.split_once('/').unwrap_or((repository, ""));
                run_lookup(policy, Some(config), registry, path, lookup)
            });
        results.record(format!("{prefix}/lookup/{j}"), outcome);
    }
}

fn run_lookup(
    policy: &OciCredentialsPolicy,
    config: Option<&CliConfig>,
    registry: &str,
    repository: &str,
    lookup: &Value,
) -> Result<(), String> {
    let source = policy
        .source_for(registry, repository)
        .map_err(|e| e.to_string())?;
    check(
        "specificity",
        source.as_ref().map(|s| s.specificity().to_string()),
        lookup["want_specificity"].as_str().map(str::to_owned),
    )?;
    let got = policy
        .credentials_for(registry, repository)
        .map_err(|e| e.to_string())?;
    check_credentials(got, &lookup["want_credentials"], config)
}

fn run_docker_cli_style(case: &Value, results: &mut Results) {
    let dir = tempdir();
    let dir = dir.path().canonicalize().expect("canonical");
    let helpers = Helpers::new();
    for (name, answers) in case["helper_results"].as_object().expect("helper_results") {
        let answers: Vec<(String, String)> = answers
            .as_object()
            .expect("answers")
            .iter()
            .map(|(url, answer)| {
                let mut answer = answer.clone();
                answer["ServerURL"] = url.as_str().into();
                (url.clone(), answer.to_string())
            })
            .collect();
        let answers: Vec<(&str, i32, &str)> = answers
            .iter()
            .map(|(u, a)| (u.as_str(), 0, a.as_str()))
            .collect();
        helpers.install(name, &answers);
    }
    let mut listed = Vec::new();
    for path in case["docker_style_config_files"].as_array().expect("files") {
        let path = s_value(path);
        let real = dir.join(path.trim_start_matches('/'));
        write(&real, s(&case["files"], path));
        listed.push(Value::from(real.display().to_string()));
    }
    let text = format!(
        "oci_default_credentials {{\n  docker_style_config_files = {}\n}}\n",
        Value::from(listed)
    );
    let env = Env::empty()
        .with_var("HOME", s(case, "home"))
        .with_var("PATH", helpers.search_path());
    let config = load(vec![(dir.join("cli.tfrc"), text)], &env);
    let built = if config.diagnostics().is_empty() {
        config
            .oci_credentials_policy_for(os(s(case, "os")), &env)
            .map_err(|e| e.to_string())
    } else {
        Err(format!("{:?}", config.diagnostics()))
    };
    for (j, lookup) in case["lookups"]
        .as_array()
        .expect("lookups")
        .iter()
        .enumerate()
    {
        let outcome = built.as_ref().map_err(Clone::clone).and_then(|policy| {
            run_lookup(
                policy,
                None,
                s(lookup, "registry_domain"),
                s(lookup, "repository_path"),
                lookup,
            )
        });
        results.record(
            format!("oci_credentials/opentofu_docker_cli_style_auth/{j}"),
            outcome,
        );
    }
}

fn s_value(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn run_search_locations(case: &Value) -> Result<(), String> {
    let os_name = s(case, "os");
    let home_var = if os_name == "windows" {
        "USERPROFILE"
    } else {
        "HOME"
    };
    let mut env = Env::empty().with_var(home_var, s(case, "home"));
    for (name, value) in case["env"].as_object().expect("env") {
        env = env.with_var(name, s_value(value));
    }
    let got: Vec<String> = docker_style_search_locations(os(os_name), &env)
        .iter()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    let want: Vec<String> =
        serde_json::from_value(case["want_paths"].clone()).map_err(|e| e.to_string())?;
    check("paths", got, want)
}

fn run_name_match(case: &Value) -> Result<(), String> {
    let got = oci_auths_key_specificity(
        s(case, "auths_property_name"),
        s(case, "registry_domain"),
        s(case, "repository_path"),
    )
    .map_or_else(|| "none".to_owned(), |rank| rank.to_string());
    check("specificity", got.as_str(), s(case, "want_specificity"))
}

fn run_client_case(case: &Value) -> Result<(), String> {
    match s(case, "test") {
        "TestGetOCIRepositoryORASClient_PerRepositoryCredentials" => {
            // The Go test's config covers exactly the named repositories
            // of one registry at repository(1): blocks labelled with each
            // repository do the same for these lookups.
            let config_def = &case["policy"]["configs"][0];
            check("kind", s(config_def, "kind"), "per-repository test config")?;
            let registry = s(config_def, "registry_domain");
            let mut text =
                String::from("oci_default_credentials { discover_ambient_credentials = false }\n");
            for (repo, creds) in config_def["repositories"]
                .as_object()
                .expect("repositories")
            {
                text.push_str(&format!(
                    "oci_credentials \"{registry}/{repo}\" {{\n  username = {}\n  password = {}\n}}\n",
                    creds["username"], creds["password"]
                ));
            }
            let config = CliConfig::from_sources([("/cli.tfrc", text)]);
            check("diagnostics", config.diagnostics(), &[])?;
            let policy = config
                .oci_credentials_policy(&Env::empty())
                .map_err(|e| e.to_string())?;
            let wanted = &case["client_for"];
            // ORAS asks for the registry the client was built for; any
            // other host gets nothing, which is the transport's check.
            check(
                "host asked",
                s(case, "credential_asked_for_host"),
                s(wanted, "registry_domain"),
            )?;
            let source = policy
                .source_for(s(wanted, "registry_domain"), s(wanted, "repository"))
                .map_err(|e| e.to_string())?
                .ok_or("no source")?;
            check(
                "specificity",
                source.specificity().to_string().as_str(),
                s(config_def, "specificity"),
            )?;
            let got = policy
                .credentials_for(s(wanted, "registry_domain"), s(wanted, "repository"))
                .map_err(|e| e.to_string())?;
            check_credentials(got, &case["want_credentials"], None)
        }
        "TestOCICredentialsLookupEnv_DockerCredHelper" => {
            let empty = tempdir();
            let query = &case["query"];
            let url = s(query, "server_url");
            let registry = url.strip_prefix("https://").ok_or("an https URL")?;
            let text = format!(
                "oci_default_credentials {{ discover_ambient_credentials = false }}\n\
                 oci_credentials {registry:?} {{ docker_credentials_helper = {:?} }}\n",
                s(query, "helper")
            );
            let config = CliConfig::from_sources([("/cli.tfrc", text)]);
            check("diagnostics", config.diagnostics(), &[])?;
            let env = Env::empty().with_var("PATH", empty.path());
            let policy = config
                .oci_credentials_policy(&env)
                .map_err(|e| e.to_string())?;
            let err = policy
                .credentials_for(registry, "")
                .err()
                .ok_or("no error")?
                .to_string();
            let want = s(case, "error_contains");
            check("error names the program", err.contains(want), true)
                .map_err(|e| format!("{e}: {err}"))
        }
        "TestGetOciRepositoryNoPing" => Err(
            "needs a registry: building a client makes no request, which the transports' OCI \
             tests check"
                .into(),
        ),
        other => Err(format!("no runner for {other}")),
    }
}
