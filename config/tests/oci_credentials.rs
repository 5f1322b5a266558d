//! OCI credentials as OpenTofu reads them (docs/behaviour.md, OCICRED-1 to
//! OCICRED-11): diagnostics, the policy's files, and credential helpers run
//! as real programs. OpenTofu's own cases are in `oci_conformance.rs`.

mod oci_common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use tfdisco_config::{
    CliConfig, Dialect, Env, HelperProblem, OciCredentialsError, OciCredentialsPolicy, OciHostOs,
    OciSpecificity,
};
use tfdisco_oci::OciCredentials;

use oci_common::Helpers;

fn messages(path: &str, text: &str) -> Vec<String> {
    CliConfig::from_sources([(path, text)])
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[test]
fn diagnostics_are_opentofus_texts() {
    let one = |text: &str| messages("/home/me/.tofurc", text);
    let credentials = |detail: &str| vec![format!("Invalid oci_credentials block: {detail}")];
    let defaults = |detail: &str| vec![format!("Invalid oci_default_credentials block: {detail}")];
    assert_eq!(
        one("oci_credentials \"example.com\" {\n}\n"),
        credentials(
            "The oci_credentials block at 1:31 must set either username+password, \
             access_token+refresh_token, or docker_credentials_helper."
        )
    );
    assert_eq!(
        one("\noci_credentials \"example.com/Foo\" {\n  username = \"u\"\n  password = \"p\"\n}\n"),
        credentials(
            "The oci_credentials block at 2:35 has an invalid block label: invalid reference: \
             invalid repository \"Foo\"."
        )
    );
    assert_eq!(
        one("oci_credentials \"example.com/foo:v1\" { username = \"u\"\npassword = \"p\" }"),
        credentials(
            "The oci_credentials block at 1:38 has an invalid block label: invalid reference: \
             artifact tag or digest not allowed."
        )
    );
    assert_eq!(
        one("oci_credentials { username = \"u\" }"),
        credentials(
            "The oci_credentials block at 1:1 must have one label, giving an OCI repository \
             address prefix."
        )
    );
    assert_eq!(
        one("oci_credentials \"example.com\" { username = [\"u\"] }"),
        credentials(
            "Invalid oci_credentials block at 1:31: username must be a string, not a list."
        )
    );
    assert_eq!(
        one("oci_credentials \"example.com\" {\n  docker_credentials_helper = \"\"\n}"),
        credentials(
            "The oci_credentials block at 1:31 specifies the invalid Docker credential helper \
             name \"\". Must be a non-empty string that could be used as part of an executable \
             filename."
        )
    );
    assert_eq!(
        one("oci_default_credentials \"x\" {}"),
        defaults("The oci_default_credentials block at 1:1 must not have any labels.")
    );
    assert_eq!(
        one("oci_default_credentials = {}"),
        defaults(
            "The oci_default_credentials block at 1:1 must not be introduced with an equals sign."
        )
    );
    assert_eq!(
        one("oci_default_credentials {\n  discover_ambient_credentials = \"maybe\"\n}"),
        defaults(
            "Invalid oci_default_credentials block at 1:25: discover_ambient_credentials must \
             be a bool."
        )
    );
    // A refused global helper name: reported, the block kept without it.
    let config = CliConfig::from_sources([(
        "/home/me/.tofurc",
        "oci_default_credentials {\n  docker_credentials_helper = \"a/b\"\n}",
    )]);
    assert_eq!(
        config.diagnostics()[0].to_string(),
        "Invalid oci_default_credentials block: The oci_default_credentials block at 1:25 \
         specifies the invalid Docker credential helper name \"a/b\". Must be a non-empty \
         string that could be used as part of an executable filename."
    );
    assert_eq!(config.oci_default_credentials_blocks().len(), 1);
    assert_eq!(
        config.oci_default_credentials_blocks()[0].docker_credentials_helper(),
        None
    );
    assert_eq!(config.diagnostics()[0].line(), Some(1));

    // JSON: deeper objects are folded back into a body without a position.
    let json = |text: &str| messages("/home/me/.tofurc.json", text);
    assert_eq!(
        json(r#"{"oci_credentials": {"example.com": {"x": {"y": {}}}}}"#),
        credentials(
            "The oci_credentials block at - must set either username+password, \
             access_token+refresh_token, or docker_credentials_helper."
        )
    );
    assert_eq!(
        json(r#"{"oci_default_credentials": []}"#),
        defaults("The oci_default_credentials block at 1:2 must be represented by a JSON object.")
    );
    assert_eq!(
        json(r#"{"oci_credentials": {"example.com": {"username": "u", "password": 7}}}"#),
        Vec::<String>::new(),
        "a number is read as its text, as HCL 1 does"
    );

    // Across files: the second default block and a repeated label.
    let config = CliConfig::from_sources([
        (
            "/a.tfrc",
            "oci_default_credentials {}\noci_credentials \"example.com\" { docker_credentials_helper = \"x\" }\n",
        ),
        (
            "/b.tfrc",
            "\n\noci_default_credentials {}\noci_credentials \"example.com\" { username = \"u\"\npassword = \"p\" }\n",
        ),
    ]);
    let texts: Vec<String> = config.diagnostics().iter().map(|d| d.located()).collect();
    assert_eq!(
        texts,
        [
            "/b.tfrc:3: No more than one oci_default_credentials block may be specified",
            "/b.tfrc:4: Duplicate oci_credentials block for \"example.com\"",
        ]
    );
    assert_eq!(config.oci_credentials_blocks().len(), 2);
}

#[test]
fn terraform_has_no_oci_blocks() {
    let text = "oci_credentials \"example.com\" {}\noci_default_credentials \"x\" {}\n";
    let config = CliConfig::from_sources_in(
        Dialect::Terraform,
        &Env::empty(),
        [("/home/me/.terraformrc", text)],
    );
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
    assert!(config.oci_credentials_blocks().is_empty());
    assert!(config.oci_default_credentials_blocks().is_empty());
}

#[test]
fn listed_files_are_resolved_against_the_file_holding_the_block() {
    let config = CliConfig::from_sources([(
        "/etc/tofu/cli.tfrc",
        r#"oci_default_credentials {
             docker_style_config_files = ["./a.json", "../b/c.json", "/abs/x/../y.json", "d.json"]
           }"#,
    )]);
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
    let files = config.oci_default_credentials_blocks()[0]
        .docker_style_config_files()
        .expect("set");
    assert_eq!(
        files,
        [
            "/etc/tofu/a.json",
            "/etc/b/c.json",
            "/abs/y.json",
            "/etc/tofu/d.json"
        ]
        .map(PathBuf::from)
    );
}

/// A policy whose only source is the global helper `tfdiscotest`.
fn global_helper_policy(helpers: &Helpers) -> OciCredentialsPolicy {
    let config = CliConfig::from_sources([(
        "/cli.tfrc",
        "oci_default_credentials {\n  discover_ambient_credentials = false\n  docker_credentials_helper = \"tfdiscotest\"\n}\n",
    )]);
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
    let env = Env::empty().with_var("PATH", helpers.search_path());
    config.oci_credentials_policy(&env).expect("a policy")
}

#[test]
fn docker_credential_helpers_run_as_real_programs() {
    let helpers = Helpers::new();
    helpers.install(
        "tfdiscotest",
        &[
            (
                "https://ok.example.com",
                0,
                r#"{"ServerURL":"https://ok.example.com","Username":"alice","Secret":"s3cret"}"#,
            ),
            (
                "https://localhost:5000",
                0,
                r#"{"username":"bob","secret":"pw"}"#,
            ),
            (
                "https://token.example.com",
                0,
                r#"{"Username":"<token>","Secret":"t"}"#,
            ),
            ("https://fail.example.com", 1, "something went wrong"),
            ("https://silent.example.com", 3, ""),
            ("https://bad.example.com", 0, "not json"),
            (
                "https://empty.example.com",
                0,
                r#"{"Username":"","Secret":""}"#,
            ),
            ("https://big.example.com", 0, "@big"),
        ],
    );
    let policy = global_helper_policy(&helpers);

    // Choosing the source runs nothing.
    let source = policy
        .source_for("ok.example.com", "team/app")
        .expect("no error")
        .expect("the global helper");
    assert_eq!(source.specificity(), OciSpecificity::Global);
    assert_eq!(source.helper(), Some("tfdiscotest"));
    assert_eq!(source.location(), "oci_default_credentials block");
    assert!(helpers.log().is_empty());

    let get = |registry: &str| policy.credentials_for(registry, "team/app");
    assert_eq!(
        get("ok.example.com").expect("ok"),
        Some(OciCredentials::basic("alice", "s3cret"))
    );
    // The server URL keeps the port; stdin has no newline.
    assert_eq!(
        get("localhost:5000").expect("ok"),
        Some(OciCredentials::basic("bob", "pw"))
    );
    assert_eq!(
        helpers.log(),
        [
            "tfdiscotest [https://ok.example.com]",
            "tfdiscotest [https://localhost:5000]"
        ]
    );
    // "credentials not found in native keychain", or an empty answer:
    // anonymous.
    assert_eq!(get("unknown.example.com").expect("ok"), None);
    assert_eq!(get("empty.example.com").expect("ok"), None);

    let error = |registry: &str| get(registry).expect_err(registry).to_string();
    assert_eq!(
        error("token.example.com"),
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper returned \
         OAuth-style credentials, but only username/password-style is allowed from a \
         credential helper"
    );
    assert_eq!(
        error("fail.example.com"),
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper failed: \
         something went wrong"
    );
    assert_eq!(
        error("silent.example.com"),
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper failed: \
         exit status 3"
    );
    assert!(error("bad.example.com").starts_with(
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper failed: "
    ));
    assert_eq!(
        error("big.example.com"),
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper failed: \
         the output is larger than 1 MiB"
    );
    assert!(matches!(
        get("bad.example.com"),
        Err(OciCredentialsError::Helper {
            problem: HelperProblem::MalformedOutput(_),
            ..
        })
    ));
}

#[test]
fn a_missing_helper_is_an_error_naming_the_program() {
    let helpers = Helpers::new();
    let policy = global_helper_policy(&helpers);
    assert_eq!(
        policy
            .credentials_for("example.com", "x")
            .expect_err("missing")
            .to_string(),
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper failed: \
         exec: \"docker-credential-tfdiscotest\": executable file not found in $PATH"
    );
    // No PATH at all.
    let config = CliConfig::from_sources([(
        "/cli.tfrc",
        "oci_credentials \"example.com\" { docker_credentials_helper = \"tfdiscotest\" }\n\
         oci_default_credentials { discover_ambient_credentials = false }",
    )]);
    let policy = config
        .oci_credentials_policy(&Env::empty())
        .expect("a policy");
    assert!(matches!(
        policy.credentials_for("example.com", ""),
        Err(OciCredentialsError::Helper {
            problem: HelperProblem::NotFound,
            ..
        })
    ));
}

#[test]
fn a_hung_helper_is_killed_at_the_timeout() {
    let helpers = Helpers::new();
    helpers.install("tfdiscotest", &[("*", 0, "@hang")]);
    let policy = global_helper_policy(&helpers).with_helper_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let err = policy
        .credentials_for("example.com", "x")
        .expect_err("timed out");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(
        err,
        OciCredentialsError::Helper {
            problem: HelperProblem::TimedOut(_),
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "from \"tfdiscotest\" credential helper: \"tfdiscotest\" credential helper failed: \
         \"docker-credential-tfdiscotest\" did not finish within 300ms and was stopped"
    );
}

#[test]
fn listed_files_must_all_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.json");
    write(&bad, "{\"auths\": ");
    let missing = dir.path().join("missing.json");
    let text = format!(
        "oci_default_credentials {{\n  docker_style_config_files = [{:?}, {:?}]\n}}\n",
        missing.display().to_string(),
        bad.display().to_string()
    );
    let config = CliConfig::from_sources([(dir.path().join("cli.tfrc"), text)]);
    let err = config
        .oci_credentials_policy(&Env::empty())
        .expect_err("refused")
        .to_string();
    let want = format!(
        "discovering ambient OCI registry credentials: failed to read Docker-style config \
         files: reading {}: ",
        missing.display()
    );
    assert!(err.starts_with(&want), "{err}");
    assert!(
        err.contains(&format!(
            "\nparsing {}: invalid JSON syntax: ",
            bad.display()
        )),
        "{err}"
    );
}

#[test]
fn the_default_search_skips_what_it_cannot_read() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    write(&h.join(".docker/config.json"), "{not json");
    write(
        &h.join(".dockercfg"),
        &format!(
            r#"{{"auths": {{"example.com": {{"auth": "{}"}}}}}}"#,
            b64("u:p")
        ),
    );
    let env = Env::empty().with_var("HOME", h);
    let config = CliConfig::from_sources([("/cli.tfrc", "")]);
    let policy = config
        .oci_credentials_policy_for(OciHostOs::MacOs, &env)
        .expect("not fatal");
    assert_eq!(
        policy.config_locations(),
        [h.join(".dockercfg").display().to_string()]
    );
    assert_eq!(policy.ignored_files().len(), 1);
    assert!(
        policy.ignored_files()[0].starts_with(&format!(
            "parsing {}: invalid JSON syntax: ",
            h.join(".docker/config.json").display()
        )),
        "{:?}",
        policy.ignored_files()
    );
    // macOS without XDG_CONFIG_HOME names ~/.config/containers/auth.json
    // twice; it is tried once.
    assert_eq!(
        policy.searched_files(),
        [
            h.join(".config/containers/auth.json"),
            h.join(".docker/config.json"),
            h.join(".dockercfg"),
        ]
    );
    assert_eq!(
        policy.credentials_for("example.com", "x").expect("ok"),
        Some(OciCredentials::basic("u", "p"))
    );
}

#[test]
fn an_auth_without_a_colon_fails_a_lookup_that_found_a_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("auth.json");
    write(
        &file,
        &format!(
            r#"{{"auths": {{"example.com/foo": {{"auth": "{}"}}, "example.com": {{"auth": "{}"}},
                "lonely.example.com": {{"auth": "{}"}}}}}}"#,
            b64("no-colon"),
            b64("u:p:with:colons"),
            b64("no-colon")
        ),
    );
    let text = format!(
        "oci_default_credentials {{ docker_style_config_files = [{:?}] }}",
        file.display().to_string()
    );
    let policy = CliConfig::from_sources([(dir.path().join("cli.tfrc"), text)])
        .oci_credentials_policy(&Env::empty())
        .expect("a policy");
    // Split at the first colon.
    assert_eq!(
        policy.credentials_for("example.com", "bar").expect("ok"),
        Some(OciCredentials::basic("u", "p:with:colons"))
    );
    let path = file.display();
    assert_eq!(
        policy
            .credentials_for("example.com", "foo/x")
            .expect_err("refused")
            .to_string(),
        format!(
            "finding credentials for \"example.com\": from {path}: auth object for \
             \"example.com/foo\" in {path} does not have base64-encoded username:password pair"
        )
    );
    // Nothing chosen: the problem is dropped and requests go anonymous.
    assert_eq!(
        policy
            .credentials_for("lonely.example.com", "x")
            .expect("ok"),
        None
    );
}

#[test]
fn load_reads_the_blocks_and_the_home_directorys_files() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    write(
        &h.join(".tofurc"),
        "oci_credentials \"ghcr.io/team\" {\n  username = \"me\"\n  password = \"pw\"\n}\n",
    );
    write(
        &h.join(".terraform.d/oci.tfrc.json"),
        r#"{"oci_default_credentials": {"docker_credentials_helper": "desktop"}}"#,
    );
    write(
        &h.join(".docker/config.json"),
        r#"{"credHelpers": {"ghcr.io": "gh"}}"#,
    );
    let env = Env::empty().with_var("HOME", h);
    let config = CliConfig::load(Dialect::OpenTofu, &env);
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
    let policy = config
        .oci_credentials_policy_for(OciHostOs::Linux, &env)
        .expect("a policy");
    assert_eq!(
        policy.config_locations(),
        [
            "explicit oci_credentials \"ghcr.io/team\" block".to_owned(),
            "oci_default_credentials block".to_owned(),
            h.join(".docker/config.json").display().to_string(),
        ]
    );
    let source = |repo: &str| {
        let s = policy
            .source_for("ghcr.io", repo)
            .expect("ok")
            .expect("found");
        (s.specificity(), s.helper().map(str::to_owned))
    };
    assert_eq!(source("team/app"), (OciSpecificity::Repository(1), None));
    assert_eq!(
        source("other"),
        (OciSpecificity::Domain, Some("gh".to_owned()))
    );
    let s = policy
        .source_for("quay.io", "x")
        .expect("ok")
        .expect("found");
    assert_eq!(
        (s.specificity(), s.helper()),
        (OciSpecificity::Global, Some("desktop"))
    );

    // Terraform reads none of it.
    let terraform = CliConfig::load(Dialect::Terraform, &env);
    assert!(terraform.oci_credentials_blocks().is_empty());
}

#[test]
fn secrets_never_appear_in_errors_diagnostics_or_debug() {
    let secrets = [
        "PASSWORD-SECRET",
        "ACCESS-SECRET",
        "REFRESH-SECRET",
        "MIXED-SECRET",
        "LONELY-SECRET",
        "AUTH-SECRET",
        "NOCOLON-SECRET",
        "HELPER-SECRET",
        "TOKEN-HELPER-SECRET",
        "HIDDEN-SECRET",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let good = d.join("good.json");
    write(
        &good,
        &format!(
            r#"{{"auths": {{"e.example.com": {{"auth": "{}"}}, "f.example.com": {{"auth": "{}"}}}},
                "credHelpers": {{"g.example.com": "tfdiscotest", "t.example.com": "tfdiscotest"}}}}"#,
            b64("euser:AUTH-SECRET"),
            b64("NOCOLON-SECRET")
        ),
    );
    let broken = d.join("broken.json");
    write(
        &broken,
        r#"{"auths": {"h.example.com": {"auth": "HIDDEN-SECRET!!"}}}"#,
    );
    let cli = |files: &[&Path]| {
        let listed: Vec<String> = files
            .iter()
            .map(|f| format!("{:?}", f.display().to_string()))
            .collect();
        format!(
            r#"
            oci_credentials "a.example.com" {{ username = "user" password = "PASSWORD-SECRET" }}
            oci_credentials "b.example.com" {{ access_token = "ACCESS-SECRET" refresh_token = "REFRESH-SECRET" }}
            oci_credentials "c.example.com" {{ username = "u" password = "MIXED-SECRET" access_token = "MIXED-SECRET" }}
            oci_credentials "d.example.com" {{ password = "LONELY-SECRET" }}
            oci_credentials "d.example.com/x" {{ docker_credentials_helper = "tfdiscotest" password = "LONELY-SECRET" }}
            oci_default_credentials {{ docker_style_config_files = [{}] }}
            "#,
            listed.join(", ")
        )
    };
    let helpers = Helpers::new();
    helpers.install(
        "tfdiscotest",
        &[
            (
                "https://g.example.com",
                0,
                r#"{"Username":"guser","Secret":"HELPER-SECRET"}"#,
            ),
            (
                "https://t.example.com",
                0,
                r#"{"Username":"<token>","Secret":"TOKEN-HELPER-SECRET"}"#,
            ),
        ],
    );
    let env = Env::empty().with_var("PATH", helpers.search_path());
    let mut texts = Vec::new();

    let config = CliConfig::from_sources([(d.join("cli.tfrc"), cli(&[&good]))]);
    assert_eq!(config.diagnostics().len(), 3, "{:?}", config.diagnostics());
    texts.push(format!("{config:?}"));
    for diag in config.diagnostics() {
        texts.push(diag.to_string());
        texts.push(format!("{diag:?}"));
    }
    for block in config.oci_credentials_blocks() {
        texts.push(format!("{block:?} {:?}", block.credentials()));
    }
    let policy = config.oci_credentials_policy(&env).expect("a policy");
    texts.push(format!("{policy:?}"));
    for registry in ["a", "b", "e", "f", "g", "t"].map(|r| format!("{r}.example.com")) {
        texts.push(format!("{:?}", policy.source_for(&registry, "x")));
        let got = policy.credentials_for(&registry, "x");
        if let Err(e) = &got {
            texts.push(e.to_string());
        }
        texts.push(format!("{got:?}"));
    }
    // The helper's secret did arrive.
    assert_eq!(
        policy.credentials_for("g.example.com", "x").expect("ok"),
        Some(OciCredentials::basic("guser", "HELPER-SECRET"))
    );

    let config = CliConfig::from_sources([(d.join("cli.tfrc"), cli(&[&good, &broken]))]);
    let err = config.oci_credentials_policy(&env).expect_err("broken");
    texts.push(err.to_string());
    texts.push(format!("{err:?}"));

    for text in &texts {
        for secret in secrets {
            assert!(!text.contains(secret), "{secret} in {text}");
            assert!(!text.contains(&b64(secret)), "base64 of {secret} in {text}");
        }
        assert!(!text.contains(&b64("euser:AUTH-SECRET")), "{text}");
    }
}
