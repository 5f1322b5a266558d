//! The CLI configuration's `provider_installation` block and the implied
//! configuration (docs/behaviour.md, INST-1, INST-2, INST-8 to INST-11,
//! CFG-12): the tables of `conformance/provider_installation.json` the
//! core does not run, as data, and the rules no upstream test covers.
//! Cases failed on purpose are listed under `provider_installation/` in
//! `expected_differences.txt`.

mod common;
#[path = "../../core/tests/common/results.rs"]
mod results;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use tfdisco_config::{
    CliConfig, Diagnostic, Dialect, Env, HostOs, ImpliedOrigin, InstallationBlock, Locations,
    Severity, app_data_dirs, download_retries, implied_mirror_dirs_for,
    implied_provider_installation, oci_repository,
};
use tfdisco_core::ProviderSource;
use tfdisco_provider::{MethodError, MethodKind, Reason};

use common::Home;
use results::{Results, table};

/// Tag: `hcl2` (an HCL 2 template error, worded by another HCL 2
/// implementation). Every position Go prints, tfdisco prints too.
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["hcl2"])
}

const TABLE: &str = "provider_installation.json";

fn dialect_of(name: &str) -> Dialect {
    if name.starts_with("terraform_") {
        Dialect::Terraform
    } else {
        Dialect::OpenTofu
    }
}

fn cases(t: &Value, name: &str) -> Vec<Value> {
    t[name].as_array().expect("a table").clone()
}

/// A block as the table writes it.
fn block_json(block: &InstallationBlock) -> Value {
    let methods: Vec<Value> = block
        .methods()
        .iter()
        .map(|m| {
            let mut o = Map::new();
            o.insert("kind".into(), json!(m.name()));
            match m.name() {
                "filesystem_mirror" => {
                    o.insert("path".into(), json!(m.location()));
                }
                "network_mirror" => {
                    o.insert("url".into(), json!(m.location()));
                }
                "oci_mirror" => {
                    o.insert("repository_template".into(), json!(m.location()));
                }
                _ => {}
            }
            if let Some(include) = m.include() {
                o.insert("include".into(), json!(include));
            }
            if let Some(exclude) = m.exclude() {
                o.insert("exclude".into(), json!(exclude));
            }
            if let Some(n) = m.download_retry_count() {
                o.insert("download_retry_count".into(), json!(n));
            }
            if let Some(b) = m.trust_all_hashes() {
                o.insert("trust_all_hashes".into(), json!(b));
            }
            Value::Object(o)
        })
        .collect();
    let mut out = json!({ "methods": methods });
    if !block.dev_overrides().is_empty() {
        let overrides: Map<String, Value> = block
            .dev_overrides()
            .iter()
            .map(|o| (o.provider.to_string(), json!(o.dir.to_string_lossy())))
            .collect();
        out["dev_overrides"] = Value::Object(overrides);
    }
    out
}

/// The decoding diagnostics of one file as Go's `diags.Err().Error()`
/// shows them (Validate's count of blocks is another table).
fn go_error(diags: &[Diagnostic]) -> Option<String> {
    let errors: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .filter(|d| d.summary() != "No more than one provider_installation block may be specified")
        .collect();
    match errors[..] {
        [] => None,
        [one] => Some(one.to_string()),
        _ => Some(
            std::iter::once(format!("{} problems:\n", errors.len()))
                .chain(errors.iter().map(|d| format!("\n- {d}")))
                .collect(),
        ),
    }
}

fn load(dialect: Dialect, text: &str) -> CliConfig {
    CliConfig::from_sources_in(dialect, &Env::empty(), [("/fixture", text)])
}

#[test]
fn load_config() {
    let t = table(TABLE);
    for name in ["terraform_load_config", "opentofu_load_config"] {
        let dialect = dialect_of(name);
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in cases(&t, name).iter().enumerate() {
            let config = load(dialect, case["input"].as_str().expect("input"));
            let error = go_error(config.diagnostics());
            let outcome = match (case.get("want"), case.get("error")) {
                (Some(want), _) => {
                    let got: Vec<Value> = config
                        .provider_installation_blocks()
                        .iter()
                        .map(block_json)
                        .collect();
                    if let Some(error) = error {
                        Err(format!("errors: {error}"))
                    } else if json!(got) != want["provider_installation"] {
                        Err(format!("got {}", json!(got)))
                    } else {
                        Ok(())
                    }
                }
                (None, Some(want)) if error.as_deref() == want.as_str() => Ok(()),
                (None, _) => Err(format!("error {error:?}")),
            };
            results.record(format!("provider_installation/{name}/{i}"), outcome);
        }
        results.finish();
    }
}

#[test]
fn opentofu_oci_mirror() {
    let t = table(TABLE);
    let name = "opentofu_oci_mirror";
    let mut results = Results::new(format!("provider_installation/{name}/").leak());
    for (i, case) in cases(&t, name).iter().enumerate() {
        let config = load(Dialect::OpenTofu, case["input"].as_str().expect("input"));
        let error = go_error(config.diagnostics());
        let blocks = config.provider_installation_blocks();
        let template = |index: &Value| {
            let index = index.as_u64().expect("an index") as usize;
            blocks[0].methods()[index]
                .location()
                .expect("a template")
                .to_owned()
        };
        let provider = |v: &Value| {
            ProviderSource::parse(v.as_str().expect("a provider"), Dialect::OpenTofu)
                .expect("valid")
        };
        let outcome = (|| {
            if let Some(want) = case.get("error_contains") {
                let want = want.as_str().expect("text");
                return match &error {
                    Some(e) if e.contains(want) => Ok(()),
                    other => Err(format!("error {other:?}, want {want:?}")),
                };
            }
            if let Some(e) = error {
                return Err(format!("errors: {e}"));
            }
            if let Some(want) = case.get("want") {
                let methods: usize = blocks.iter().map(|b| b.methods().len()).sum();
                if (blocks.len(), methods) != (1, 4) || want["method_count"] != 4 {
                    return Err(format!("{} blocks, {methods} methods", blocks.len()));
                }
                for m in want["mappings"].as_array().expect("mappings") {
                    let got =
                        oci_repository(&template(&m["method_index"]), &provider(&m["provider"]));
                    let expected = Ok((
                        m["registry"].as_str().expect("r").to_owned(),
                        m["repository"].as_str().expect("r").to_owned(),
                    ));
                    if got != expected {
                        return Err(format!("{}: got {got:?}", m["subtest"]));
                    }
                }
            }
            if let Some(m) = case.get("mapping") {
                let want = m["error_contains"].as_str().expect("text");
                return match oci_repository(
                    &template(&m["method_index"]),
                    &provider(&m["provider"]),
                ) {
                    Err(e) if e.contains(want) => Ok(()),
                    other => Err(format!("got {other:?}, want an error with {want:?}")),
                };
            }
            Ok(())
        })();
        results.record(format!("provider_installation/{name}/{i}"), outcome);
    }
    results.finish();
}

/// A file of these blocks, written as HCL.
fn blocks_text(blocks: &Value) -> String {
    let mut text = String::new();
    for block in blocks.as_array().expect("blocks") {
        text.push_str("provider_installation {\n");
        for m in block["methods"].as_array().expect("methods") {
            text.push_str(&format!(
                "  {} {{\n    path = {}\n  }}\n",
                m["kind"].as_str().expect("kind"),
                m["path"]
            ));
        }
        text.push_str("}\n");
    }
    text
}

#[test]
fn config_merge_and_validate() {
    let t = table(TABLE);
    for name in ["terraform_config_merge", "opentofu_config_merge"] {
        let dialect = dialect_of(name);
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in cases(&t, name).iter().enumerate() {
            let config = CliConfig::from_sources_in(
                dialect,
                &Env::empty(),
                [
                    ("/left.tfrc", blocks_text(&case["left"])),
                    ("/right.tfrc", blocks_text(&case["right"])),
                ],
            );
            let got: Vec<Value> = config
                .provider_installation_blocks()
                .iter()
                .map(block_json)
                .collect();
            let outcome = if json!(got) == case["want"] {
                Ok(())
            } else {
                Err(format!("got {}", json!(got)))
            };
            results.record(format!("provider_installation/{name}/{i}"), outcome);
        }
        results.finish();
    }
    for name in ["terraform_config_validate", "opentofu_config_validate"] {
        let dialect = dialect_of(name);
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in cases(&t, name).iter().enumerate() {
            let n = case["block_count"].as_u64().expect("n") as usize;
            let config = load(dialect, &"provider_installation {}\n".repeat(n));
            let count = config
                .diagnostics()
                .iter()
                .filter(|d| {
                    d.to_string() == "No more than one provider_installation block may be specified"
                })
                .count();
            let outcome = if count as u64 == case["diag_count"].as_u64().expect("n") {
                Ok(())
            } else {
                Err(format!("{count} diagnostics"))
            };
            results.record(format!("provider_installation/{name}/{i}"), outcome);
        }
        results.finish();
    }
}

/// An environment for implied directories that reach nothing of this
/// machine's.
fn sealed_env(home: &Path) -> Env {
    Env::empty()
        .with_var("HOME", home)
        .with_var("XDG_DATA_DIRS", home.join("no-such-data-dir"))
}

#[test]
fn opentofu_implicit_source() {
    let t = table(TABLE);
    let name = "opentofu_implicit_source";
    let mut results = Results::new(format!("provider_installation/{name}/").leak());
    for (i, case) in cases(&t, name).iter().enumerate() {
        let launch = Home::new();
        for file in case["files"].as_array().expect("files") {
            launch.write(file.as_str().expect("a path"), "");
        }
        if let Some(sub) = case["chdir"].as_str() {
            fs::create_dir_all(launch.join(sub)).expect("mkdir");
        }
        let provider =
            ProviderSource::parse(case["provider"].as_str().expect("p"), Dialect::OpenTofu)
                .expect("valid");
        // tfdisco looks in the directory it is given: the launch directory.
        let env = sealed_env(&launch.join("home"));
        let (installation, mirrors) =
            implied_provider_installation(Dialect::OpenTofu, &env, launch.path());
        let versions = installation.available_versions(&provider, |method| {
            let MethodKind::FilesystemMirror { path } = &method.kind else {
                return Err(MethodError::<String>::ProviderNotFound);
            };
            let mirror = mirrors
                .iter()
                .find(|m| &m.dir.path == path)
                .and_then(|m| m.mirror.as_ref().ok())
                .ok_or(MethodError::ProviderNotFound)?;
            Ok((mirror.packages().versions(&provider), Vec::new()))
        });
        let outcome = match versions {
            Ok(v) if !v.versions.is_empty() => Ok(()),
            other => Err(format!("{other:?}")),
        };
        results.record(format!("provider_installation/{name}/{i}"), outcome);
    }
    results.finish();
}

#[test]
fn opentofu_download_retry() {
    let t = table(TABLE);
    let name = "opentofu_download_retry";
    let mut results = Results::new(format!("provider_installation/{name}/").leak());
    for (i, case) in cases(&t, name).iter().enumerate() {
        let mut env = Env::empty();
        for (k, v) in case["env"].as_object().expect("env") {
            env = env.with_var(k, v.as_str().expect("a value"));
        }
        let configured = case["download_retry_count"].as_u64().map(|n| n as u32);
        let retries = download_retries(configured, &env);
        let outcome = if let Some(text) = case.get("error_contains") {
            let attempts = format!("giving up after {} attempt(s)", retries + 1);
            if text.as_str().expect("text").ends_with(&attempts) {
                Ok(())
            } else {
                Err(format!("{attempts}, want {text}"))
            }
        } else if case["want"]["provider_download_retries"] == retries
            && case["want"]["trust_all_hashes"] == false
        {
            Ok(())
        } else {
            Err(format!("{retries} retries"))
        };
        results.record(format!("provider_installation/{name}/{i}"), outcome);
    }
    results.finish();
}

fn os_of(case: &Value) -> HostOs {
    match case["os"].as_str().expect("os") {
        "windows" => HostOs::Windows,
        "darwin" => HostOs::MacOs,
        _ => HostOs::Unix,
    }
}

/// `$HOME` in a table's text is the test's home.
fn with_home(text: &str, home: &Path) -> String {
    text.replace("$HOME", &home.to_string_lossy())
}

fn table_env(case: &Value, home: &Path) -> Env {
    let mut env = Env::empty().with_var("HOME", home);
    for (k, v) in case["env"].as_object().expect("env") {
        env = env.with_var(k, with_home(v.as_str().expect("a value"), home));
    }
    if os_of(case) == HostOs::Windows {
        env = env.with_var("APPDATA", "%APPDATA%");
    }
    env
}

#[test]
fn opentofu_data_dirs() {
    let t = table(TABLE);
    let name = "opentofu_data_dirs";
    let mut results = Results::new(format!("provider_installation/{name}/").leak());
    for (i, case) in cases(&t, name).iter().enumerate() {
        let home = Path::new("/home/placeholder");
        let os = os_of(case);
        let env = table_env(case, home);
        let sep = if os == HostOs::Windows { "\\" } else { "/" };
        let got: Vec<String> =
            implied_mirror_dirs_for(os, Dialect::OpenTofu, &env, Path::new("/launch"))
                .into_iter()
                .filter(|d| d.origin == ImpliedOrigin::CliDirectory)
                .map(|d| {
                    let path = d.path.to_string_lossy().into_owned();
                    path.strip_suffix(&format!("{sep}plugins"))
                        .expect("…/plugins")
                        .to_owned()
                })
                .collect();
        let want: Vec<String> = case["want"]
            .as_array()
            .expect("want")
            .iter()
            .map(|w| with_home(w.as_str().expect("a path"), home))
            .collect();
        let outcome = if got == want {
            Ok(())
        } else {
            Err(format!("got {got:?}, want {want:?}"))
        };
        results.record(format!("provider_installation/{name}/{i}"), outcome);
    }
    results.finish();
}

/// OpenTofu's main file and config directory (CFG-2), on the system each
/// case is for: `Locations` looks at this system's files.
#[test]
fn opentofu_config_dir_and_file() {
    let t = table(TABLE);
    for name in ["opentofu_config_dir", "opentofu_config_file"] {
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in cases(&t, name).iter().enumerate() {
            let runs_here = match os_of(case) {
                HostOs::Windows => cfg!(windows),
                _ => !cfg!(windows),
            };
            if !runs_here {
                continue;
            }
            let home = Home::new();
            for existing in case["existing"].as_array().expect("existing") {
                let path = with_home(existing.as_str().expect("a path"), home.path());
                if let Some(dir) = path.strip_suffix('/') {
                    fs::create_dir_all(dir).expect("mkdir");
                } else {
                    fs::create_dir_all(Path::new(&path).parent().expect("parent")).expect("mkdir");
                    fs::write(&path, "").expect("write");
                }
            }
            let env = table_env(case, home.path());
            let locations = Locations::resolve(Dialect::OpenTofu, &env);
            let got = if name.ends_with("_dir") {
                locations.config_dir()
            } else {
                locations.main_file()
            };
            let want = PathBuf::from(with_home(
                case["want"].as_str().expect("a path"),
                home.path(),
            ));
            let outcome = if got == Some(want.as_path()) {
                Ok(())
            } else {
                Err(format!("got {got:?}, want {want:?}"))
            };
            results.record(format!("provider_installation/{name}/{i}"), outcome);
        }
        results.finish();
    }
}

#[test]
fn go_userdirs_for_app() {
    let t = table(TABLE);
    let name = "go_userdirs_for_app";
    let mut results = Results::new(format!("provider_installation/{name}/").leak());
    for (i, case) in cases(&t, name).iter().enumerate() {
        let os = os_of(case);
        let mut env = Env::empty();
        for (k, v) in case["env"].as_object().expect("env") {
            env = env.with_var(k, v.as_str().expect("a value"));
        }
        if os == HostOs::Windows {
            // The known folder, which the CLIs ask the system for.
            env = env.with_var("APPDATA", r"C:\Users\travis\AppData\Roaming");
        }
        let app: Vec<&str> = case["for_app"]
            .as_array()
            .expect("for_app")
            .iter()
            .map(|v| v.as_str().expect("a name"))
            .collect();
        // Only the data directories are implied mirrors.
        let got: Vec<String> = app_data_dirs(os, &env, app[0], app[1], app[2])
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let want: Vec<String> = case["want"]["data_dirs"]
            .as_array()
            .expect("data_dirs")
            .iter()
            .map(|v| v.as_str().expect("a path").to_owned())
            .collect();
        let outcome = if got == want {
            Ok(())
        } else {
            Err(format!("got {got:?}, want {want:?}"))
        };
        results.record(format!("provider_installation/{name}/{i}"), outcome);
    }
    results.finish();
}

fn messages(config: &CliConfig) -> Vec<String> {
    config.diagnostics().iter().map(|d| d.to_string()).collect()
}

/// INST-1: blocks of several files are concatenated; more than one is an
/// error and the first is used.
#[test]
fn the_first_block_of_the_first_file_is_used() {
    let home = Home::new();
    home.write(
        ".terraformrc",
        "provider_installation {\n  filesystem_mirror {\n    path = \"/main\"\n  }\n}\n",
    );
    home.write(
        ".terraform.d/extra.tfrc",
        "provider_installation {\n  direct {}\n}\n",
    );
    let config = CliConfig::load(Dialect::Terraform, &home.env());
    assert_eq!(config.provider_installation_blocks().len(), 2);
    let diag = &config.diagnostics()[0];
    assert_eq!(
        diag.to_string(),
        "No more than one provider_installation block may be specified"
    );
    assert_eq!(
        diag.file(),
        Some(home.join(".terraform.d/extra.tfrc").as_path())
    );
    let installation = config.provider_installation(home.path()).installation;
    assert!(!installation.implied);
    assert_eq!(installation.methods.len(), 1);
    assert_eq!(
        installation.methods[0].kind,
        MethodKind::FilesystemMirror {
            path: "/main".into()
        }
    );
}

/// INST-1: a method whose URL or patterns are invalid is left out, with
/// Go's words; the others stay.
#[test]
fn invalid_methods_are_left_out_with_gos_words() {
    let config = load(
        Dialect::Terraform,
        r#"provider_installation {
  network_mirror {
    url = "http://mirror.example.com/"
  }
  network_mirror {
    url = "https://mirror.example.com/"
    include = ["hashicorp/*", "a"]
  }
  filesystem_mirror {
    path = "/srv"
    exclude = ["*/aws"]
  }
  network_mirror {
    url = "::"
  }
  direct {}
}
"#,
    );
    assert_eq!(
        messages(&config),
        [
            r#"Invalid URL for provider installation source: Cannot use "http://mirror.example.com/" as a URL for a network provider mirror: the mirror must be at an https: URL."#,
            r#"Invalid provider source inclusion patterns: CLI config specifies invalid provider inclusion patterns: invalid provider matching pattern "a": must have either two or three slash-separated segments."#,
            r#"Invalid provider source exclusion patterns: CLI config specifies invalid provider exclusion patterns: invalid provider matching pattern "*/aws": namespace can be a wildcard only if the provider type is also a wildcard."#,
            r#"Invalid URL for provider installation source: Cannot parse "::" as a URL for a network provider mirror: relative URL without a base."#,
        ]
    );
    assert_eq!(config.diagnostics()[0].line(), Some(2));
    let installation = config.explicit_provider_installation().expect("a block");
    let kinds: Vec<&str> = installation.methods.iter().map(|m| m.kind.name()).collect();
    assert_eq!(kinds, ["direct"]);
}

/// INST-2: every decoding problem, with the positions Go gives; OpenTofu's
/// doubled "at at".
#[test]
fn decoding_problems_in_gos_words() {
    let text = r#"provider_installation {
  direct {
    include = "hashicorp/*"
  }
  filesystem_mirror {
    path = ""
  }
  "direct" {
    exclude = ["a/b"]
  }
  dev_overrides {
    "hashicorp/null" = "/dev/null"
  }
}
Provider_Installation {}
"#;
    let terraform = load(Dialect::Terraform, text);
    assert_eq!(
        messages(&terraform),
        [
            "Invalid provider_installation method block: Invalid direct block at 1:1: include must be a list of strings, not a string.",
            r#"Invalid provider_installation method block: Invalid filesystem_mirror block at 1:1: "path" argument is required."#,
            "Invalid provider_installation method block: The dev_overrides block at 11:3 must appear before all other installation methods, because development overrides always have the highest priority.",
        ]
    );
    let tofu = load(Dialect::OpenTofu, text);
    assert!(messages(&tofu)[2].contains("The dev_overrides block at at 11:3 must appear"));
    // A quoted method name is a method; the block's name is compared with
    // its case. A dev_overrides block after a method that failed is fine.
    let block = &terraform.provider_installation_blocks()[0];
    assert_eq!(block.methods().len(), 1);
    assert_eq!(block.methods()[0].exclude(), Some(&["a/b".to_owned()][..]));
    assert!(block.dev_overrides().is_empty());
    assert_eq!(terraform.provider_installation_blocks().len(), 1);

    // Terraform has no oci_mirror, and no OpenTofu arguments.
    let oci = "provider_installation {\n  oci_mirror {\n    repository_template = \"x/${namespace}/${type}\"\n  }\n  direct {\n    download_retry_count = \"many\"\n  }\n}\n";
    assert_eq!(
        messages(&load(Dialect::Terraform, oci)),
        [
            r#"Invalid provider_installation method block: Unknown provider installation method "oci_mirror" at 2:3."#
        ]
    );
    let tofu = load(Dialect::OpenTofu, oci);
    assert_eq!(
        messages(&tofu),
        [
            r#"Invalid oci_mirror repository template: Invalid oci_mirror block at 2:14: template must refer to the "hostname" symbol unless the "include" argument selects exactly one registry hostname."#,
            "Invalid provider_installation method block: Invalid direct block at 1:1: download_retry_count must be a whole number, 0 or more.",
        ]
    );
    let missing = load(
        Dialect::OpenTofu,
        "provider_installation {\n  oci_mirror {}\n}\n",
    );
    assert_eq!(
        messages(&missing),
        [
            r#"Invalid provider_installation method block: Invalid oci_mirror block at 2:14: "repository_template" argument is required."#
        ]
    );
    let symbol = load(
        Dialect::OpenTofu,
        "provider_installation {\n  oci_mirror {\n    repository_template = \"${hostname}/${namespace}/${type}/${version}\"\n  }\n}\n",
    );
    assert!(messages(&symbol)[0].contains(
        r#"the symbol "version" is not available for an OCI mirror repository address template. Only "hostname", "namespace", and "type" are available."#
    ));
}

/// INST-8: dev_overrides: keys are provider addresses of the dialect's
/// default registry; Terraform expands `$VAR` in the environment given
/// (an unset one is reported), OpenTofu does not; paths are cleaned.
#[test]
fn dev_overrides() {
    let text = "provider_installation {\n  dev_overrides {\n    \"hashicorp/null\" = \"$DEV/null/../bin\"\n    \"example.com/acme/widget\" = \"${UNSET}/w\"\n    \"bad//x\" = \"/x\"\n  }\n}\n";
    let env = Env::empty().with_var("DEV", "/home/dev");
    let terraform = CliConfig::from_sources_in(Dialect::Terraform, &env, [("/f", text)]);
    let block = &terraform.provider_installation_blocks()[0];
    let shown: Vec<(String, String)> = block
        .dev_overrides()
        .iter()
        .map(|o| (o.provider.to_string(), o.dir.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(
        shown,
        [
            (
                "registry.terraform.io/hashicorp/null".to_owned(),
                "/home/dev/bin".to_owned()
            ),
            ("example.com/acme/widget".to_owned(), "/w".to_owned()),
        ]
    );
    assert_eq!(
        messages(&terraform),
        [
            "Interpolated environment variable not set: The environment variable UNSET is not set or empty and can result in undesired behavior",
            "Invalid provider installation dev overrides: The entry \"bad//x\" in 1:1 is not a valid provider source string.\n\nInvalid provider source string: The \"source\" attribute must be in the format \"[hostname/][namespace/]name\"",
        ]
    );
    let tofu = CliConfig::from_sources_in(Dialect::OpenTofu, &env, [("/f", text)]);
    let dirs: Vec<String> = tofu.provider_installation_blocks()[0]
        .dev_overrides()
        .iter()
        .map(|o| format!("{} {}", o.provider, o.dir.display()))
        .collect();
    assert_eq!(
        dirs,
        [
            "registry.opentofu.org/hashicorp/null $DEV/bin",
            "example.com/acme/widget ${UNSET}/w"
        ]
    );
    // They come first among the methods a provider would use.
    let installation = terraform
        .provider_installation(Path::new("/work"))
        .installation;
    let null = ProviderSource::parse("hashicorp/null", Dialect::Terraform).expect("valid");
    let choices = installation.methods_for(&null);
    assert!(matches!(choices[0].reason, Reason::DevOverride { .. }));
}

/// INST-2: OpenTofu's HCL 1 refuses an argument set twice in one object,
/// and the whole file with it; Terraform's takes the last.
#[test]
fn an_argument_set_twice() {
    let text = "credentials \"example.com\" {\n  token = \"t\"\n}\nprovider_installation {\n  dev_overrides {\n    \"hashicorp/null\" = \"/a\"\n    \"hashicorp/null\" = \"/b\"\n  }\n}\n";
    let terraform = load(Dialect::Terraform, text);
    assert!(
        terraform.diagnostics().is_empty(),
        "{:?}",
        messages(&terraform)
    );
    assert_eq!(
        terraform.provider_installation_blocks()[0].dev_overrides()[0].dir,
        PathBuf::from("/b")
    );
    assert_eq!(terraform.credentials_blocks().len(), 1);
    let tofu = load(Dialect::OpenTofu, text);
    assert_eq!(
        messages(&tofu),
        [
            r#"Error parsing /fixture: The argument "\"hashicorp/null\"" at 7:5 was already set. Each argument can only be defined once"#
        ]
    );
    assert!(tofu.provider_installation_blocks().is_empty());
    assert!(tofu.credentials_blocks().is_empty());
}

/// CFG-12: a file only HCL 1 reads (quoted keys) is read, all of it.
#[test]
fn files_only_hcl_1_reads_are_read() {
    let text = "credentials \"app.example.com\" { token = \"s3cret\" }\nhost \"example.com\" {\n  services = {\n    \"modules.v1\" = \"https://example.com/m/\"\n  }\n}\nprovider_installation {\n  dev_overrides {\n    \"hashicorp/null\" = \"/dev\"\n  }\n  direct {}\n}\n";
    let config = load(Dialect::Terraform, text);
    assert!(config.diagnostics().is_empty(), "{:?}", messages(&config));
    assert_eq!(config.credentials_blocks().len(), 1);
    assert_eq!(config.credentials_blocks()[0].line(), Some(1));
    assert_eq!(config.host_blocks()[0].services()[0].0, "modules.v1");
    assert_eq!(config.provider_installation_blocks()[0].methods().len(), 1);
    // Neither parser reads it: hcl-edit's message.
    let broken = load(Dialect::Terraform, "credentials \"x\" {\n  token = \n}\n");
    assert!(
        messages(&broken)[0].starts_with("Error parsing /fixture: line 2, column 11:"),
        "{:?}",
        messages(&broken)
    );
}

/// INST-2: HCL 1's JSON flattening, copied: methods written as bare objects
/// next to nothing but objects disappear into the block's labels.
#[test]
fn json_is_flattened_as_the_clis_flatten_it() {
    let flattened = load(
        Dialect::Terraform,
        r#"{"provider_installation": {"direct": {}, "filesystem_mirror": {"path": "/x"}}}"#,
    );
    // `{"direct": {}, "filesystem_mirror": {…}}` is all objects: two
    // blocks, labelled "direct" and "filesystem_mirror" (JSON labels are
    // not checked); the second one's body holds `path`, no method.
    let blocks = flattened.provider_installation_blocks();
    assert_eq!(blocks.len(), 2);
    assert!(blocks[0].methods().is_empty());
    assert_eq!(
        messages(&flattened),
        [
            r#"A provider_installation method was read as a label: The provider_installation member at 1:2 holds nothing but objects, so HCL 1, as Terraform and OpenTofu use it, reads "direct" as a label of the block, not as an installation method. Write each method as a list of objects, such as "direct": [{}]."#,
            r#"A provider_installation method was read as a label: The provider_installation member at 1:2 holds nothing but objects, so HCL 1, as Terraform and OpenTofu use it, reads "filesystem_mirror" as a label of the block, not as an installation method. Write each method as a list of objects, such as "direct": [{}]."#,
            "Invalid provider_installation method block: The items inside the provider_installation block at 1:2 must all be blocks.",
            "No more than one provider_installation block may be specified",
        ]
    );
    assert_eq!(flattened.diagnostics()[0].severity(), Severity::Warning);
    // Arrays, as the CLIs' own fixtures write them, keep the methods.
    let arrays = load(
        Dialect::Terraform,
        r#"{"provider_installation": {"direct": [{}], "filesystem_mirror": [{"path": "/x"}]}}"#,
    );
    let kinds: Vec<&str> = arrays.provider_installation_blocks()[0]
        .methods()
        .iter()
        .map(|m| m.name())
        .collect();
    assert_eq!(kinds, ["direct", "filesystem_mirror"]);
    // dev_overrides, an object of strings, is flattened too when every
    // method beside it is a bare object: two blocks again.
    let mixed = load(
        Dialect::Terraform,
        r#"{"provider_installation": {"dev_overrides": {"hashicorp/null": "/d"}, "direct": {"exclude": ["a/b"]}}}"#,
    );
    assert_eq!(mixed.provider_installation_blocks().len(), 2);
    assert!(
        mixed.provider_installation_blocks()[0]
            .dev_overrides()
            .is_empty()
    );
}

/// INST-9: without a block, the implied configuration: the directories
/// that exist, then `direct` without what they hold.
#[test]
fn the_implied_configuration() {
    let home = Home::new();
    home.write(
        "work/terraform.d/plugins/registry.terraform.io/hashicorp/null/3.2.1/linux_amd64/terraform-provider-null",
        "",
    );
    home.write(
        "home/.terraform.d/plugins/example.com/acme/widget/terraform-provider-widget_1.0.0_linux_amd64.zip",
        "",
    );
    fs::create_dir_all(home.join("xdg/terraform/plugins")).expect("mkdir");
    let env = sealed_env(&home.join("home")).with_var("XDG_DATA_HOME", home.join("xdg"));
    let cwd = home.join("work");
    let config = CliConfig::load(Dialect::Terraform, &env);
    let installation = config.provider_installation(&cwd).installation;
    assert!(installation.implied);
    let kinds: Vec<String> = installation
        .methods
        .iter()
        .map(|m| m.kind.to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            format!(
                "filesystem_mirror {}",
                cwd.join("terraform.d/plugins").display()
            ),
            format!(
                "filesystem_mirror {}",
                home.join("home/.terraform.d/plugins").display()
            ),
            format!(
                "filesystem_mirror {}",
                home.join("xdg/terraform/plugins").display()
            ),
            "direct".to_owned(),
        ]
    );
    let excluded: Vec<&str> = installation.methods[3]
        .exclude
        .iter()
        .map(|p| p.as_str())
        .collect();
    assert_eq!(
        excluded,
        [
            "registry.terraform.io/hashicorp/null",
            "example.com/acme/widget"
        ]
    );
    let widget = ProviderSource::parse("example.com/acme/widget", Dialect::Terraform).expect("ok");
    assert_eq!(
        installation.methods_for(&widget)[3].reason.to_string(),
        format!(
            "excluded: found in the local mirror {}",
            home.join("home/.terraform.d/plugins").display()
        )
    );
    // The candidates, which need not exist: OpenTofu adds its XDG one.
    let dirs: Vec<PathBuf> = implied_mirror_dirs_for(HostOs::Unix, Dialect::OpenTofu, &env, &cwd)
        .into_iter()
        .map(|d| d.path)
        .collect();
    assert_eq!(
        dirs,
        [
            cwd.join("terraform.d/plugins"),
            home.join("home/.terraform.d/plugins"),
            home.join("xdg/opentofu/plugins"),
            home.join("xdg/terraform/plugins"),
            home.join("home/no-such-data-dir/terraform/plugins"),
        ]
    );
    let mac: Vec<PathBuf> = implied_mirror_dirs_for(HostOs::MacOs, Dialect::Terraform, &env, &cwd)
        .into_iter()
        .map(|d| d.path)
        .collect();
    assert_eq!(
        mac[2..],
        [
            home.join("home/Library/Application Support/io.terraform/plugins"),
            PathBuf::from("/Library/Application Support/io.terraform/plugins"),
        ]
    );
    let windows = Env::empty().with_var("APPDATA", r"C:\Users\me\AppData\Roaming");
    let win: Vec<String> = implied_mirror_dirs_for(
        HostOs::Windows,
        Dialect::Terraform,
        &windows,
        Path::new(r"C:\work"),
    )
    .into_iter()
    .map(|d| d.path.to_string_lossy().into_owned())
    .collect();
    assert_eq!(
        win[1..],
        [
            r"C:\Users\me\AppData\Roaming\terraform.d\plugins".to_owned(),
            r"C:\Users\me\AppData\Roaming\HashiCorp\Terraform\plugins".to_owned(),
        ]
    );
    let (_, mirrors) = implied_provider_installation(Dialect::Terraform, &env, &cwd);
    assert_eq!(mirrors.len(), 3);
}
