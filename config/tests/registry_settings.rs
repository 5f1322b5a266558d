//! How users tune registry requests (docs/behaviour.md, CFG-11): the two
//! `TF_REGISTRY_*` variables in both dialects, OpenTofu's
//! `registry_protocols` block in the main file only, the environment first.

use std::path::Path;
use std::time::Duration;

use tfdisco_config::{CliConfig, Dialect, Env, RegistrySettings};

fn home(files: &[(&str, &str)]) -> (tempfile::TempDir, Env) {
    let home = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        let path = home.path().join(name);
        std::fs::create_dir_all(path.parent().expect("in the home")).expect("created");
        std::fs::write(path, text).expect("written");
    }
    let env = Env::empty().with_var("HOME", home.path());
    (home, env)
}

fn settings(dialect: Dialect, env: &Env) -> (RegistrySettings, Vec<String>) {
    let config = CliConfig::load(dialect, env);
    let messages = config.diagnostics().iter().map(|d| d.to_string()).collect();
    (config.registry_settings(env), messages)
}

fn read(retries: Option<u32>, timeout: Option<Option<u64>>) -> RegistrySettings {
    let mut settings = RegistrySettings::default();
    settings.retries = retries;
    settings.attempt_timeout = timeout.map(|t| t.map(Duration::from_secs));
    settings
}

#[test]
fn opentofus_block_in_the_main_file() {
    let (_home, env) = home(&[(
        ".tofurc",
        "registry_protocols {\n  retry_count = 4\n  request_timeout_seconds = 30\n}\n",
    )]);
    assert_eq!(
        settings(Dialect::OpenTofu, &env),
        (read(Some(4), Some(Some(30))), vec![])
    );
    // Terraform does not know the block, and says nothing of it.
    let (_home, env) = home(&[(
        ".terraformrc",
        "registry_protocols {\n  retry_count = 4\n}\n",
    )]);
    assert_eq!(
        settings(Dialect::Terraform, &env),
        (read(None, None), vec![])
    );
}

#[test]
fn the_block_is_not_checked_and_zero_turns_things_off() {
    let (_home, env) = home(&[(
        ".tofurc",
        r#"{"registry_protocols": {"retry_count": 0, "request_timeout_seconds": -5}}"#,
    )]);
    assert_eq!(
        settings(Dialect::OpenTofu, &env).0,
        read(Some(0), Some(None)),
        "no retries, no limit on an attempt"
    );
}

#[test]
fn the_environment_wins_and_directory_files_do_not_count() {
    let (_home, env) = home(&[
        (
            ".tofurc",
            "registry_protocols {\n  retry_count = 4\n  request_timeout_seconds = 30\n}\n",
        ),
        (
            ".terraform.d/more.tfrc",
            "registry_protocols {\n  retry_count = 9\n}\n",
        ),
    ]);
    let env = env.with_var("TF_REGISTRY_CLIENT_TIMEOUT", "7");
    assert_eq!(
        settings(Dialect::OpenTofu, &env).0,
        read(Some(4), Some(Some(7)))
    );
    // Only in the directory: OpenTofu merges it under its built-in settings.
    let (_home, env) = home(&[(
        ".terraform.d/more.tfrc",
        "registry_protocols {\n  retry_count = 9\n}\n",
    )]);
    assert_eq!(settings(Dialect::OpenTofu, &env).0, read(None, None));
}

#[test]
fn the_override_file_is_the_main_file() {
    let (home, env) = home(&[(
        "elsewhere.tfrc",
        "registry_protocols {\n  retry_count = 2\n}\n",
    )]);
    let env = env.with_var(
        "TF_CLI_CONFIG_FILE",
        Path::new(home.path()).join("elsewhere.tfrc"),
    );
    assert_eq!(settings(Dialect::OpenTofu, &env).0, read(Some(2), None));
}

#[test]
fn bad_blocks_are_diagnostics() {
    let (_home, env) = home(&[(
        ".tofurc",
        "registry_protocols {\n  retry_count = \"many\"\n}\n",
    )]);
    let (read_back, messages) = settings(Dialect::OpenTofu, &env);
    assert_eq!(read_back, read(None, None));
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("retry_count must be a whole number, not a string"),
        "{messages:?}"
    );
    let (_home, env) = home(&[(
        ".tofurc",
        "registry_protocols {\n  retry_count = 2\n}\nregistry_protocols {\n  retry_count = 3\n}\n",
    )]);
    let (read_back, messages) = settings(Dialect::OpenTofu, &env);
    assert_eq!(read_back, read(Some(2), None), "the first block counts");
    assert!(
        messages[0].starts_with("Duplicate registry_protocols block"),
        "{messages:?}"
    );
}
