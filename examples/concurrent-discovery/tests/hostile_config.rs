//! A CLI configuration built to make the HCL parser take exponential time,
//! loaded through the public API by a crate outside the tfdisco workspace.
//! Such a crate gets the published `hcl-edit` as it is, so this checks that
//! `tfdisco-config` itself refuses the file (docs/behaviour.md, CFG-9)
//! instead of leaving the parser to spend seconds to minutes on it.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tfdisco_config::{CliConfig, Dialect, Env};

/// Loads the CLI configuration from `TF_CLI_CONFIG_FILE` = `text`, with an
/// empty home, on a thread of its own so that a regression fails the test
/// instead of hanging it. Returns the configuration and how long it took.
fn load(text: &str) -> (CliConfig, Duration) {
    let home = tempfile::tempdir().expect("a home directory");
    let file: PathBuf = home.path().join("hostile.tfrc");
    std::fs::write(&file, text).expect("the file is written");
    let env = Env::empty()
        .with_var("HOME", home.path())
        .with_var("TF_CLI_CONFIG_FILE", &file);
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    thread::spawn(move || {
        let _ = tx.send(CliConfig::load(Dialect::Terraform, &env));
    });
    let config = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the configuration is loaded within a minute");
    (config, started.elapsed())
}

fn assert_refused_quickly(text: &str) {
    let (config, took) = load(text);
    // The check needs microseconds; the parser, given the text, seconds to
    // minutes.
    assert!(took < Duration::from_secs(2), "loading took {took:?}");
    let diagnostics = config.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let message = diagnostics[0].message();
    assert!(
        message.contains("hostile.tfrc: line 1, column "),
        "{message}"
    );
    assert!(message.contains("nesting limit"), "{message}");
    assert!(config.credentials_blocks().is_empty());
}

#[test]
fn objects_of_operands_twenty_deep_are_refused_quickly() {
    // 104 bytes: 2 s (optimised) or 42 s (debug) for the parser alone.
    assert_refused_quickly(&format!("a={}-a", "{a*a*".repeat(20)));
}

#[test]
fn the_fuzzer_input_is_refused_quickly() {
    // 283 bytes: 91 s (optimised) for the parser alone.
    assert_refused_quickly(include_str!(
        "../../../config/tests/fixtures/fuzz/nested-operands.tfrc"
    ));
}

#[test]
fn an_ordinary_configuration_still_loads() {
    let (config, _) = load(
        r#"
credentials "registry.example.com" {
  token = "s3cret"
}
provider_installation {
  network_mirror {
    url     = "https://mirror.example.com/providers/"
    include = ["registry.terraform.io/*/*"]
  }
  direct {
    exclude = ["registry.terraform.io/*/*"]
  }
}
"#,
    );
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
    assert_eq!(config.credentials_blocks().len(), 1);
}
