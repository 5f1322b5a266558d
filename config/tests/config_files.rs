//! CLI config files of both dialects, in both syntaxes, from fixtures copied
//! into temporary home directories (docs/behaviour.md, CFG-1 to CFG-8, CRED-6).

mod common;

use std::path::PathBuf;

use serde_json::json;
use tfdisco_config::{CliConfig, Dialect, Env, Origin, Severity};
use tfdisco_core::{Config, CredentialsSource, DiscoveryCache, Lookup};

use common::{Home, host};

fn token(config: &CliConfig, name: &str) -> Option<String> {
    let block = config.credentials_block(&host(name))?;
    Some(
        block
            .credentials()?
            .expect("valid token")
            .expose_token()
            .to_owned(),
    )
}

fn messages(config: &CliConfig) -> Vec<String> {
    config
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn names(config: &CliConfig, home: &Home) -> Vec<String> {
    config
        .files()
        .iter()
        .map(|f| {
            f.strip_prefix(home.path())
                .expect("in home")
                .display()
                .to_string()
        })
        .collect()
}

#[test]
fn terraform_main_file_and_config_dir_merge() {
    let home = Home::fixture("terraform-hcl");
    let config = CliConfig::load(Dialect::Terraform, &home.env());

    assert_eq!(
        names(&config, &home),
        [
            ".terraformrc",
            ".terraform.d/a.tfrc",
            ".terraform.d/b.tfrc.json",
            ".terraform.d/broken.tfrc",
            ".terraform.d/credentials.tfrc.json",
        ],
        "main file, then *.tfrc and *.tfrc.json in alphabetical order; notes.txt ignored"
    );
    assert_eq!(
        token(&config, "main.example.com").as_deref(),
        Some("from-main")
    );
    // Later files win: a.tfrc over the main file, b.tfrc.json over a.tfrc.
    assert_eq!(
        token(&config, "shared.example.com").as_deref(),
        Some("from-b")
    );
    assert_eq!(
        token(&config, "json.example.com").as_deref(),
        Some("from-json")
    );
    assert_eq!(
        token(&config, "login.example.com").as_deref(),
        Some("from-login")
    );
    assert_eq!(token(&config, "ignored.example.com"), None);
    // A file with a syntax error contributes nothing, not even its valid blocks.
    assert_eq!(token(&config, "broken.example.com"), None);
    // A block without a token is kept (it gives no credentials).
    let no_token = config
        .credentials_block(&host("no-token.example.com"))
        .expect("kept");
    assert!(no_token.credentials().is_none());

    let shared = config
        .credentials_block(&host("shared.example.com"))
        .expect("shared");
    assert_eq!(shared.file(), home.join(".terraform.d/b.tfrc.json"));
    assert_eq!(shared.line(), None, "JSON entries have no line");
    let main = config
        .credentials_block(&host("main.example.com"))
        .expect("main");
    assert_eq!(
        (main.file(), main.line()),
        (home.join(".terraformrc").as_path(), Some(5))
    );

    // A host block is replaced whole by a later one.
    let forced = &config.host_blocks()[0];
    assert_eq!(forced.host(), &host("forced.example.com"));
    assert_eq!(
        forced.services(),
        [(
            "modules.v1".to_owned(),
            json!("https://override.example.net/modules/")
        )]
    );
    assert_eq!(config.host_blocks().len(), 1);

    let broken = home.join(".terraform.d/broken.tfrc").display().to_string();
    let messages = messages(&config);
    assert_eq!(
        messages[..2],
        [
            format!(
                "Error parsing {broken}: line 6, column 10: invalid expression; expected `\"`, `[`, `{{`, `-`, `!`, `(`, `_`, `<`, letter or digit"
            ),
            r#"The host "http://nope.example.com" block has an invalid hostname: need just a hostname and optional port number, not a full URL"#.to_owned(),
        ],
        "{messages:#?}"
    );
    assert_eq!(
        messages[2],
        r#"The credentials "Bad_Host.example.com" block has an invalid hostname: idna: disallowed rune U+005F"#
    );
    assert_eq!(messages.len(), 3, "{messages:#?}");
    let parse_error = &config.diagnostics()[0];
    assert_eq!(parse_error.severity(), Severity::Error);
    assert_eq!(
        parse_error.file(),
        Some(home.join(".terraform.d/broken.tfrc").as_path())
    );
    assert_eq!(parse_error.line(), Some(6));
    let bad_host = &config.diagnostics()[2];
    assert_eq!(bad_host.file(), Some(home.join(".terraformrc").as_path()));
    assert_eq!(bad_host.line(), Some(13));

    let locations = config.locations().expect("loaded");
    assert_eq!(
        locations.main_file(),
        Some(home.join(".terraformrc").as_path())
    );
    assert_eq!(
        locations.config_dir(),
        Some(home.join(".terraform.d").as_path())
    );
    assert_eq!(
        locations.credentials_file(),
        Some(home.join(".terraform.d/credentials.tfrc.json"))
    );
    assert!(locations.scans_config_dir());
}

#[test]
fn opentofu_reads_the_legacy_terraformrc_only_without_tofurc() {
    let home = Home::fixture("terraform-hcl");
    let tofu = CliConfig::load(Dialect::OpenTofu, &home.env());
    assert_eq!(names(&tofu, &home)[0], ".terraformrc");
    assert_eq!(
        token(&tofu, "shared.example.com").as_deref(),
        Some("from-b")
    );

    let home = Home::fixture("opentofu-json");
    let tofu = CliConfig::load(Dialect::OpenTofu, &home.env());
    assert_eq!(names(&tofu, &home), [".tofurc", ".terraform.d/zz.tfrc"]);
    assert_eq!(token(&tofu, "legacy.example.com"), None);
    assert_eq!(
        token(&tofu, "café.example.com").as_deref(),
        Some("from-tofurc-idn")
    );
    // zz.tfrc spells the host differently; it is the same host, and it wins.
    assert_eq!(token(&tofu, "tofu.example.com").as_deref(), Some("from-zz"));
    assert!(tofu.diagnostics().is_empty(), "{:?}", messages(&tofu));

    // Terraform never reads .tofurc.
    let terraform = CliConfig::load(Dialect::Terraform, &home.env());
    assert_eq!(
        names(&terraform, &home),
        [".terraformrc", ".terraform.d/zz.tfrc"]
    );
    assert_eq!(
        token(&terraform, "legacy.example.com").as_deref(),
        Some("from-legacy-terraformrc")
    );
}

#[test]
fn json_syntax_is_recognised_by_content_and_keeps_service_order() {
    let home = Home::fixture("opentofu-json");
    let config = CliConfig::load(Dialect::OpenTofu, &home.env());
    let block = &config.host_blocks()[0];
    assert_eq!(block.host(), &host("registry.example.com"));
    let ids: Vec<_> = block.services().iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["providers.v1", "login.v1"],
        "document order, not sorted"
    );

    // host blocks become forced services: no discovery for that host.
    let mut cache = DiscoveryCache::new(Config::default());
    assert!(config.force_hosts(&mut cache).is_empty());
    let Lookup::Cached(services) = cache.lookup(&host("registry.example.com")) else {
        panic!("forced services are cached");
    };
    assert_eq!(
        services.service_url("providers.v1").expect("url").as_str(),
        "https://providers.example.net/v1/"
    );
    let client = services.oauth_client("login.v1").expect("login.v1");
    assert_eq!(
        client.authorization_url().expect("authz").as_str(),
        "https://registry.example.com/oauth/authorize"
    );
}

#[test]
fn forced_relative_urls_resolve_against_the_host() {
    let home = Home::fixture("terraform-hcl");
    home.write(
        ".terraform.d/b.tfrc.json",
        r#"{"host": {"forced.example.com:8443": {"services": {"providers.v1": "/providers/v1/"}}}}"#,
    );
    let config = CliConfig::load(Dialect::Terraform, &home.env());
    let mut cache = DiscoveryCache::new(Config::default());
    assert!(config.force_hosts(&mut cache).is_empty());
    let Lookup::Cached(services) = cache.lookup(&host("forced.example.com:8443")) else {
        panic!("forced");
    };
    assert_eq!(
        services.service_url("providers.v1").expect("url").as_str(),
        "https://forced.example.com:8443/providers/v1/"
    );
}

#[test]
fn override_variables_replace_the_main_file_and_skip_the_config_dir() {
    let home = Home::fixture("terraform-hcl");
    let custom = home.write(
        "custom.tfrc",
        "credentials \"custom.example.com\" { token = \"from-custom\" }\n",
    );
    let other = home.write(
        "other.tfrc",
        "credentials \"other.example.com\" { token = \"from-other\" }\n",
    );

    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let config = CliConfig::load(dialect, &home.env().with_var("TF_CLI_CONFIG_FILE", &custom));
        assert_eq!(config.files(), std::slice::from_ref(&custom));
        assert_eq!(
            token(&config, "custom.example.com").as_deref(),
            Some("from-custom")
        );
        assert_eq!(
            token(&config, "login.example.com"),
            None,
            "config dir not read"
        );
        let locations = config.locations().expect("loaded");
        assert_eq!(locations.override_var(), Some("TF_CLI_CONFIG_FILE"));
        assert!(!locations.scans_config_dir());

        // TERRAFORM_CONFIG is the fallback; an empty TF_CLI_CONFIG_FILE is unset.
        let env = home
            .env()
            .with_var("TF_CLI_CONFIG_FILE", "")
            .with_var("TERRAFORM_CONFIG", &other);
        let config = CliConfig::load(dialect, &env);
        assert_eq!(config.files(), std::slice::from_ref(&other));
        assert_eq!(
            config.locations().expect("loaded").override_var(),
            Some("TERRAFORM_CONFIG")
        );

        let env = home
            .env()
            .with_var("TERRAFORM_CONFIG", &other)
            .with_var("TF_CLI_CONFIG_FILE", &custom);
        assert_eq!(
            CliConfig::load(dialect, &env).files(),
            std::slice::from_ref(&custom)
        );

        // A missing override file is a warning, and the config dir stays unread.
        let missing = home.join("missing.tfrc");
        let config = CliConfig::load(
            dialect,
            &home.env().with_var("TF_CLI_CONFIG_FILE", &missing),
        );
        assert!(config.files().is_empty());
        let [warning] = config.diagnostics() else {
            panic!("{:?}", messages(&config));
        };
        assert_eq!(warning.severity(), Severity::Warning);
        assert_eq!(warning.summary(), "Unable to open CLI configuration file");
        assert_eq!(warning.file(), Some(missing.as_path()));
        assert_eq!(
            warning.detail(),
            Some(
                format!(
                    "The CLI configuration file at \"{}\" does not exist.",
                    missing.display()
                )
                .as_str()
            )
        );
    }
}

#[test]
fn opentofu_xdg_config_home() {
    let home = Home::fixture("opentofu-xdg");
    let xdg = home.join("xdg");
    let env = home.env().with_var("XDG_CONFIG_HOME", &xdg);
    let config = CliConfig::load(Dialect::OpenTofu, &env);
    assert_eq!(
        names(&config, &home),
        ["xdg/opentofu/tofurc", "xdg/opentofu/extra.tfrc.json"],
        "main file and config dir under XDG_CONFIG_HOME when ~/.tofurc, ~/.terraformrc and ~/.terraform.d do not exist"
    );
    assert_eq!(
        token(&config, "xdg.example.com").as_deref(),
        Some("from-xdg-tofurc")
    );
    assert_eq!(
        token(&config, "xdg-dir.example.com").as_deref(),
        Some("from-xdg-dir")
    );
    assert_eq!(
        config.locations().expect("loaded").credentials_file(),
        Some(xdg.join("opentofu/credentials.tfrc.json"))
    );

    // Terraform does not know XDG.
    let terraform = CliConfig::load(Dialect::Terraform, &env);
    assert!(terraform.files().is_empty());

    // Once ~/.terraformrc or ~/.terraform.d exist, they are used instead.
    home.write(
        ".terraformrc",
        "credentials \"home.example.com\" { token = \"from-home\" }\n",
    );
    home.write(
        ".terraform.d/home.tfrc",
        "credentials \"home-dir.example.com\" { token = \"from-home-dir\" }\n",
    );
    let config = CliConfig::load(Dialect::OpenTofu, &env);
    assert_eq!(
        names(&config, &home),
        [".terraformrc", ".terraform.d/home.tfrc"]
    );

    // Without XDG_CONFIG_HOME, ~/.tofurc is the (missing) main file.
    let home = Home::new();
    let config = CliConfig::load(Dialect::OpenTofu, &home.env());
    assert_eq!(
        config.locations().expect("loaded").main_file(),
        Some(home.join(".tofurc").as_path())
    );
    assert!(config.files().is_empty());
    assert!(
        config.diagnostics().is_empty(),
        "missing default files are not a problem"
    );
}

#[test]
fn without_a_home_there_is_nothing_to_read_or_write() {
    let config = CliConfig::load(Dialect::OpenTofu, &Env::empty());
    assert!(config.files().is_empty() && config.diagnostics().is_empty());
    let locations = config.locations().expect("loaded");
    assert_eq!(locations.main_file(), None);
    assert_eq!(locations.credentials_file(), None);

    // The OS user's home is the fallback when HOME is unset or empty.
    let home = Home::fixture("opentofu-json");
    let env = Env::empty()
        .with_var("HOME", "")
        .with_home_fallback(home.path());
    let config = CliConfig::load(Dialect::OpenTofu, &env);
    assert_eq!(config.files()[0], home.join(".tofurc"));
}

#[test]
fn unreadable_files_are_diagnostics() {
    let home = Home::new();
    home.write(
        ".terraformrc",
        "credentials \"ok.example.com\" { token = \"ok\" }\n",
    );
    std::fs::create_dir_all(home.join(".terraform.d/dir.tfrc")).expect("mkdir");
    std::fs::write(
        home.join(".terraform.d/latin1.tfrc"),
        b"credentials \"x\" { token = \"\xe9\" }\n",
    )
    .expect("write");
    home.write(".terraform.d/top.tfrc.json", "[1, 2]");
    let config = CliConfig::load(Dialect::Terraform, &home.env());
    let dir = home.join(".terraform.d");
    assert_eq!(
        messages(&config),
        [
            format!(
                "Error reading {}: Is a directory (os error 21)",
                dir.join("dir.tfrc").display()
            ),
            format!(
                "Error reading {}: file is not valid UTF-8",
                dir.join("latin1.tfrc").display()
            ),
            // Only text starting with `{` is JSON (as in HCL 1), so this is HCL.
            format!(
                "Error parsing {}: line 1, column 1: unexpected token",
                dir.join("top.tfrc.json").display()
            ),
        ]
    );
    assert_eq!(token(&config, "ok.example.com").as_deref(), Some("ok"));
}

#[test]
fn malformed_blocks_are_skipped_with_a_diagnostic() {
    let config = CliConfig::from_sources([(
        "/etc/tfrc",
        r#"
credentials {
  token = "no label"
}
credentials "a.example.com" "b" {
  token = "two labels"
}
credentials "ref.example.com" {
  token = var.token
}
credentials "template.example.com" {
  token = "kept as ${written}"
}
host "h.example.com" {
  services = "not an object"
}
credentials_helper "x" {
  args = ["ok", 1]
}
credentials "good.example.com" {
  token = "good"
}
"#,
    )]);
    assert_eq!(
        messages(&config),
        [
            "Error parsing /etc/tfrc: line 2: a credentials block needs exactly one label, the hostname",
            "Error parsing /etc/tfrc: line 5: a credentials block needs exactly one label, the hostname",
            "Error parsing /etc/tfrc: line 8: the value of credentials.token is not a literal value",
            r#"Error parsing /etc/tfrc: services of the host "h.example.com" block must be an object"#,
            r#"Error parsing /etc/tfrc: args of the credentials_helper "x" block must be a list of strings"#,
        ]
    );
    let hosts: Vec<_> = config
        .credentials_blocks()
        .iter()
        .map(|b| b.host().as_str())
        .collect();
    assert_eq!(hosts, ["template.example.com", "good.example.com"]);
    assert_eq!(
        token(&config, "template.example.com").as_deref(),
        Some("kept as ${written}")
    );
    assert!(config.credentials_helper().is_none());
    assert_eq!(config.diagnostics()[3].line(), Some(14));
}

#[test]
fn one_credentials_helper_at_most() {
    let home = Home::new();
    home.write(
        ".terraformrc",
        "credentials_helper \"first\" {\n  args = [\"a\"]\n}\n",
    );
    home.write(
        ".terraform.d/more.tfrc",
        "credentials_helper \"second\" {}\n",
    );
    let config = CliConfig::load(Dialect::Terraform, &home.env());
    let ours: Vec<_> = messages(&config)
        .into_iter()
        .filter(|m| !m.starts_with("Unable to find credentials helper"))
        .collect();
    assert_eq!(
        ours,
        ["No more than one credentials_helper block may be specified"]
    );
    let helper = config.credentials_helper().expect("the first is used");
    assert_eq!(
        (helper.kind(), helper.args()),
        ("first", &["a".to_owned()][..])
    );

    // The same type again replaces the block; that is not a second helper.
    home.write(
        ".terraform.d/more.tfrc",
        "credentials_helper \"first\" {\n  args = [\"b\"]\n}\n",
    );
    let config = CliConfig::load(Dialect::Terraform, &home.env());
    assert_eq!(config.credentials_helper().expect("one").args(), ["b"]);
    assert_eq!(
        messages(&config),
        [format!(
            "Unable to find credentials helper \"first\"; ignoring: no terraform-credentials-first program in {0}, {0}/{1}",
            home.join(".terraform.d/plugins").display(),
            machine()
        )]
    );
}

fn machine() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}_{arch}", std::env::consts::OS)
}

#[test]
fn helper_plugins_newest_version_wins() {
    let home = Home::new();
    let block = home.install_helper(".terraform.d/plugins");
    home.write(".terraformrc", &block);
    let plugins = home.join(".terraform.d/plugins");
    let machine_dir = plugins.join(machine());
    std::fs::create_dir_all(&machine_dir).expect("mkdir");
    let link = |dir: &PathBuf, name: &str| {
        std::os::unix::fs::symlink(common::helper_script(), dir.join(name)).expect("symlink");
        dir.join(name)
    };
    link(&plugins, "terraform-credentials-test_v1.2.0");
    let newest = link(&machine_dir, "terraform-credentials-test_v1.10.0_x5");
    link(&plugins, "terraform-credentials-test_vjunk");
    link(&plugins, "terraform-credentials-other_v9.0.0");
    std::fs::create_dir(plugins.join("terraform-credentials-test_v99.0.0"))
        .expect("a directory is not a plugin");

    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let config = CliConfig::load(dialect, &home.env());
        assert!(config.diagnostics().is_empty(), "{:?}", messages(&config));
        let helper = config.credentials_helper().expect("block");
        assert_eq!(helper.executable(), Some(newest.as_path()));
        let source = config.credentials_source(&home.env());
        let (kind, program) = source.helper().expect("helper");
        assert_eq!((kind, program.executable()), ("test", newest.as_path()));
        let creds = source
            .credentials(&host("example.com"))
            .expect("ok")
            .expect("token");
        assert_eq!(creds.expose_token(), "example-token");
    }
}

#[test]
fn opentofu_plugins_under_xdg_data_home() {
    let home = Home::new();
    let xdg = home.join("data");
    let block = home.install_helper("data/opentofu/plugins");
    home.write(".tofurc", &block);
    let env = home.env().with_var("XDG_DATA_HOME", &xdg);
    let config = CliConfig::load(Dialect::OpenTofu, &env);
    assert!(config.diagnostics().is_empty(), "{:?}", messages(&config));
    assert_eq!(
        config.credentials_helper().and_then(|h| h.executable()),
        Some(
            xdg.join("opentofu/plugins/terraform-credentials-test")
                .as_path()
        )
    );
    assert_eq!(
        config.locations().expect("loaded").plugin_dirs()[0],
        xdg.join("opentofu/plugins")
    );
}

#[test]
fn a_credentials_block_without_token_hides_the_helper() {
    let home = Home::new();
    let block = home.install_helper(".terraform.d/plugins");
    home.write(
        ".terraformrc",
        &format!("{block}\ncredentials \"example.com\" {{\n  username = \"alfred\"\n}}\n"),
    );
    let env = home.env();
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let found = source
        .find(&host("example.com"))
        .expect("ok")
        .expect("found");
    assert_eq!(
        found.origin(),
        &Origin::ConfigFile {
            path: home.join(".terraformrc")
        }
    );
    assert!(found.credentials().is_none());
    assert!(home.log().is_empty(), "helper not asked");
}

#[test]
fn credentials_file_origin_and_priority_over_the_main_file() {
    // A host in both .terraformrc and credentials.tfrc.json: the config dir
    // is merged after the main file, so credentials.tfrc.json wins, and the
    // host can be changed (it is in credentials.tfrc.json).
    let home = Home::fixture("terraform-hcl");
    home.write(
        ".terraform.d/credentials.tfrc.json",
        r#"{"credentials": {"main.example.com": {"token": "from-login"}}}"#,
    );
    let env = home.env();
    let source = CliConfig::load(Dialect::Terraform, &env).credentials_source(&env);
    let found = source
        .find(&host("main.example.com"))
        .expect("ok")
        .expect("found");
    let file = home.join(".terraform.d/credentials.tfrc.json");
    assert_eq!(
        found.origin(),
        &Origin::CredentialsFile { path: file.clone() }
    );
    assert_eq!(
        found.origin().to_string(),
        format!("credentials file {}", file.display())
    );
    assert_eq!(
        found.credentials().expect("token").expose_token(),
        "from-login"
    );
    assert_eq!(
        source.location(&host("main.example.com")),
        tfdisco_config::CredentialsLocation::InPrimaryFile
    );
    assert_eq!(
        source.location(&host("json.example.com")),
        tfdisco_config::CredentialsLocation::InOtherFile
    );
}

#[test]
fn debug_forms_never_show_a_block_token() {
    let config = CliConfig::from_sources([(
        "/cfg/main.tfrc",
        "credentials \"example.com\" {\n  token = \"s3cret.atlasv1.token\"\n}\n",
    )]);
    let block = &config.credentials_blocks()[0];
    assert_eq!(
        block
            .credentials()
            .expect("a token")
            .expect("valid")
            .expose_token(),
        "s3cret.atlasv1.token"
    );
    for shown in [format!("{block:?}"), format!("{config:?}")] {
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("example.com"), "{shown}");
    }
}
