//! `tfdisco provider source SOURCE`, run as a real process with its own
//! home, CLI configuration file and data directories (docs/behaviour.md,
//! INST-1 to INST-12).

mod common;

use std::fs;
use std::path::Path;

use common::tfdisco;

/// Variables that keep the implied directories inside the test's home.
fn sealed(home: &Path) -> Vec<(String, String)> {
    vec![
        (
            "XDG_DATA_HOME".into(),
            home.join("xdg").to_string_lossy().into_owned(),
        ),
        (
            "XDG_DATA_DIRS".into(),
            home.join("no-data-dirs").to_string_lossy().into_owned(),
        ),
    ]
}

fn run(home: &Path, extra: &[(&str, &str)], args: &[&str]) -> common::Run {
    let owned = sealed(home);
    let mut vars: Vec<(&str, &str)> = owned
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    vars.extend_from_slice(extra);
    tfdisco(home, &vars, args)
}

const CONFIG: &str = r#"provider_installation {
  dev_overrides {
    "hashicorp/null" = "/home/dev/null"
  }
  filesystem_mirror {
    path    = "/srv/mirror"
    include = ["example.com/*/*", "hashicorp/*"]
  }
  network_mirror {
    url     = "https://mirror.example.com/"
    exclude = ["hashicorp/aws"]
  }
  network_mirror {
    url     = "http://insecure.example.com/"
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"#;

#[test]
fn an_explicit_configuration_in_priority_order() {
    let home = tempfile::tempdir().expect("temp dir");
    let file = home.path().join("cli.tfrc");
    fs::write(&file, CONFIG).expect("write");
    let file = file.to_string_lossy().into_owned();
    let vars = [("TF_CLI_CONFIG_FILE", file.as_str())];

    let o = run(
        home.path(),
        &vars,
        &[
            "provider",
            "source",
            "hashicorp/aws",
            "--dialect",
            "terraform",
        ],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(
        o.stdout,
        format!(
            "provider  registry.terraform.io/hashicorp/aws\n\
             config    the provider_installation block at {file}:1\n\
             1. filesystem_mirror /srv/mirror\n   \
             may install it: include pattern \"hashicorp/*\" matches\n\
             2. network_mirror https://mirror.example.com/\n   \
             skipped: exclude pattern \"hashicorp/aws\" matches\n\
             3. direct registry.terraform.io\n   \
             may install it: no include patterns\n\
             versions come from every method that may install it; a version's package from the \
             first of them that has it\n"
        )
    );
    // The insecure mirror is left out, and said why.
    assert!(
        o.stderr.contains(&format!(
            "tfdisco: error: {file}:13: Invalid URL for provider installation source: Cannot use \
             \"http://insecure.example.com/\" as a URL for a network provider mirror: the mirror \
             must be at an https: URL."
        )),
        "{}",
        o.stderr
    );

    let o = run(
        home.path(),
        &vars,
        &[
            "provider",
            "source",
            "hashicorp/null",
            "--dialect",
            "terraform",
            "--json",
        ],
    );
    assert_eq!(o.code, Some(0));
    let v = o.json();
    assert_eq!(v["source"], "registry.terraform.io/hashicorp/null");
    assert_eq!(v["configuration"]["implied"], false);
    assert_eq!(v["configuration"]["line"], 1);
    let methods = v["methods"].as_array().expect("methods");
    assert_eq!(methods.len(), 4);
    assert_eq!(methods[0]["method"], "dev_overrides");
    assert_eq!(methods[0]["location"], "/home/dev/null");
    assert_eq!(methods[0]["priority"], serde_json::Value::Null);
    assert_eq!(methods[1]["priority"], 1);
    assert_eq!(methods[3]["method"], "direct");
    assert_eq!(methods[3]["may_install"], true);
    let diagnostics = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["severity"], "error");
    assert_eq!(diagnostics[0]["line"], 13);

    // Nothing may install it: exit 3.
    let o = run(
        home.path(),
        &vars,
        &[
            "provider",
            "source",
            "example.com/acme/widget",
            "--dialect",
            "terraform",
        ],
    );
    assert_eq!(o.code, Some(0), "the filesystem mirror includes it");
    fs::write(
        &file,
        "provider_installation {\n  filesystem_mirror {\n    path = \"/srv\"\n    include = [\"example.com/*/*\"]\n  }\n}\n",
    )
    .expect("write");
    let o = run(
        home.path(),
        &vars,
        &[
            "provider",
            "source",
            "hashicorp/aws",
            "--dialect",
            "terraform",
        ],
    );
    assert_eq!(o.code, Some(3), "{}", o.stdout);
    assert!(
        o.stdout
            .ends_with("no installation method may install it\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("skipped: no include pattern matches"),
        "{}",
        o.stdout
    );
}

#[test]
fn the_implied_configuration_excludes_what_local_mirrors_hold() {
    let home = tempfile::tempdir().expect("temp dir");
    let work = home.path().join("work");
    let null =
        work.join("terraform.d/plugins/registry.opentofu.org/hashicorp/null/3.2.1/linux_amd64");
    fs::create_dir_all(&null).expect("mkdir");
    fs::write(null.join("terraform-provider-null"), "").expect("write");
    fs::create_dir_all(
        home.path()
            .join(".terraform.d/plugins/registry.opentofu.org/Bad_NS/x"),
    )
    .expect("mkdir");
    let dir = work.to_string_lossy().into_owned();

    let o = run(
        home.path(),
        &[],
        &["provider", "source", "hashicorp/null", "--dir", &dir],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let plugins = work.join("terraform.d/plugins");
    let home_plugins = home.path().join(".terraform.d/plugins");
    assert_eq!(
        o.stdout,
        format!(
            "provider  registry.opentofu.org/hashicorp/null\n\
             config    implied (no provider_installation block), from {dir}\n\
             1. filesystem_mirror {}\n   may install it: no include patterns\n\
             2. filesystem_mirror {}\n   may install it: no include patterns\n\
             3. direct registry.opentofu.org\n   \
             skipped: excluded: found in the local mirror {}\n\
             versions come from every method that may install it; a version's package from the \
             first of them that has it\n",
            plugins.display(),
            home_plugins.display(),
            plugins.display(),
        )
    );
    // The mirrors' warnings are the configuration's diagnostics.
    assert!(
        o.stderr
            .contains("contains invalid namespace \"Bad_NS\"; ignoring"),
        "{}",
        o.stderr
    );
    let o = run(
        home.path(),
        &[],
        &[
            "provider",
            "source",
            "hashicorp/aws",
            "--dir",
            &dir,
            "--json",
        ],
    );
    let v = o.json();
    assert_eq!(v["configuration"]["implied"], true);
    assert_eq!(v["methods"][2]["may_install"], true);
    assert_eq!(v["methods"][2]["reason"], "no include patterns");
    assert_eq!(v["diagnostics"][0]["severity"], "warning");
}

#[test]
fn opentofus_oci_mirror_is_shown_with_its_repository() {
    let home = tempfile::tempdir().expect("temp dir");
    fs::write(
        home.path().join(".tofurc"),
        "provider_installation {\n  oci_mirror {\n    repository_template = \"example.net/mirror/${namespace}/${type}\"\n    include = [\"registry.opentofu.org/*/*\"]\n  }\n}\n",
    )
    .expect("write");
    let o = run(home.path(), &[], &["provider", "source", "opentofu/foo"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout.contains(
            "1. oci_mirror example.net/mirror/${namespace}/${type}\n   may install it: include \
             pattern \"registry.opentofu.org/*/*\" matches\n   OCI registry example.net, \
             repository mirror/opentofu/foo\n"
        ),
        "{}",
        o.stdout
    );
    let o = run(
        home.path(),
        &[],
        &["provider", "source", "opentofu/foo", "--json"],
    );
    let v = o.json();
    assert_eq!(v["methods"][0]["supported"], true);
    assert_eq!(v["methods"][0]["oci"]["repository"], "mirror/opentofu/foo");
    // Terraform has no such method.
    fs::write(
        home.path().join(".terraformrc"),
        "provider_installation {\n  oci_mirror {\n    repository_template = \"x/${namespace}/${type}\"\n  }\n}\n",
    )
    .expect("write");
    let o = run(
        home.path(),
        &[],
        &[
            "provider",
            "source",
            "opentofu/foo",
            "--dialect",
            "terraform",
        ],
    );
    assert_eq!(o.code, Some(3));
    assert!(
        o.stderr
            .contains("Unknown provider installation method \"oci_mirror\" at 2:3."),
        "{}",
        o.stderr
    );
}

#[test]
fn an_invalid_source_is_a_usage_error() {
    let home = tempfile::tempdir().expect("temp dir");
    let o = run(home.path(), &[], &["provider", "source", "a//b"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .starts_with("tfdisco: invalid source address \"a//b\""),
        "{}",
        o.stderr
    );
    let o = run(home.path(), &[], &["provider", "source", "aws", "--json"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(o.json()["error"]["kind"], "invalid_source");
}
