//! Configuration text that takes the HCL parser (`hcl-edit` 0.10.0) time
//! exponential in its nesting, found by the `config` fuzz target: each is
//! refused by the check that runs before the parser (docs/behaviour.md,
//! CFG-9) with one diagnostic naming the limit, in microseconds. The parser
//! itself would need from 42 s (the 104-byte input, debug build) to far
//! longer, so each load runs on its own thread and the test fails, rather
//! than hangs, if the check lets the text through; and it fails if loading
//! takes more than two seconds, which no build of the check comes near but
//! an exponential parse does.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tfdisco_config::{CliConfig, Severity};

/// Only there so that a regression fails instead of hanging the suite.
const BOUND: Duration = Duration::from_secs(60);

/// Far beyond what the check and the parser need even in a debug build.
const QUICK: Duration = Duration::from_secs(2);

/// Loads `text` as one HCL file, on a thread of its own.
fn load(text: String) -> CliConfig {
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    thread::spawn(move || {
        let _ = tx.send(CliConfig::from_sources([("/fuzz/config0.tfrc", text)]));
    });
    let config = rx
        .recv_timeout(BOUND)
        .expect("the configuration is loaded well within the bound");
    let took = started.elapsed();
    assert!(took < QUICK, "loading took {took:?}");
    config
}

/// The one diagnostic, which says the file is nested too deeply.
fn assert_refused(config: &CliConfig, limit: &str) {
    let diagnostics = config.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].severity(), Severity::Error);
    let message = diagnostics[0].message();
    assert!(
        message.starts_with("Error parsing /fuzz/config0.tfrc: line 1, column "),
        "{message}"
    );
    assert!(message.contains(limit), "{message}");
    assert!(message.contains("nesting limit"), "{message}");
    assert!(config.credentials_blocks().is_empty());
}

fn assert_clean(config: &CliConfig) {
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
}

const OPERANDS: &str = "more than 8 levels";
const BRACKETS: &str = "more than 16 levels";

#[test]
fn the_fuzzer_input_is_refused() {
    // 283 bytes; the parser takes 91 s (optimised) to reject them.
    let text = include_str!("fixtures/fuzz/nested-operands.tfrc");
    assert_refused(&load(text.to_owned()), OPERANDS);
}

#[test]
fn objects_of_operands_twenty_deep_are_refused() {
    // 104 bytes; the parser takes 2 s (optimised) or 42 s (debug) to reject
    // them.
    let text = format!("a={}-a", "{a*a*".repeat(20));
    assert_eq!(text.len(), 104);
    assert_refused(&load(text), OPERANDS);
}

#[test]
fn operands_nested_sixty_deep_are_refused() {
    // 2^60 operand parses for the parser. The end of the text inside the
    // innermost object, a newline before it, or an unfinished string or
    // interpolation each end a chain with an error the parser recovers from.
    for tail in ["-a", "{2=a\n", "{", "\"", "{a"] {
        for unit in [
            "{a*a*",
            "(a*a*",
            "\"${a*a*",
            "a*a[a*a*",
            "{a*a*(a*a*",
            "\"%{if a*a*",
        ] {
            let text = format!("a={}{tail}", unit.repeat(60));
            let config = load(text);
            let message = config.diagnostics()[0].message();
            assert!(
                message.contains(OPERANDS) || message.contains(BRACKETS),
                "{unit} {tail}: {message}"
            );
            assert_refused(
                &config,
                if message.contains(OPERANDS) {
                    OPERANDS
                } else {
                    BRACKETS
                },
            );
        }
    }
}

#[test]
fn operands_nested_up_to_the_limit_still_parse() {
    // The first object is no operand: eight levels of operands.
    let text = format!("a={}1{}\n", "{k=a*a*".repeat(9), "}".repeat(9));
    assert_clean(&load(text));
    let text = format!("a={}1{}\n", "{k=a*a*".repeat(10), "}".repeat(10));
    assert_refused(&load(text), OPERANDS);
}

#[test]
fn brackets_nested_up_to_the_limit_still_parse() {
    let text = format!("a = {}{{k=1}}{}\n", "{k=[(".repeat(5), ")]}".repeat(5));
    assert_clean(&load(text));
    let text = format!("a = {}{{k=[1]}}{}\n", "{k=[(".repeat(5), ")]}".repeat(5));
    assert_refused(&load(text), BRACKETS);
}

#[test]
fn brackets_in_strings_heredocs_and_comments_do_not_count() {
    let deep = "{[(".repeat(20);
    let text = format!(
        r#"
# {deep}
credentials "app.example.com" {{
  token = "{deep}\"{deep}$${{" // {deep}
}}
/* {deep} */
host "example.com" {{
  services = {{
    "modules.v1" = <<-EOT
      {deep}
      EOT
  }}
}}
"#
    );
    let config = load(text);
    assert_clean(&config);
    assert_eq!(config.credentials_blocks().len(), 1);
    assert_eq!(config.host_blocks().len(), 1);
}

#[test]
fn a_real_terraformrc_passes() {
    let text = r#"
# Terraform CLI configuration, as in the Terraform documentation.
plugin_cache_dir                            = "$HOME/.terraform.d/plugin-cache"
plugin_cache_may_break_dependency_lock_file = true
disable_checkpoint                          = true

credentials "app.terraform.io" {
  token = "xxxxxx.atlasv1.zzzzzzzzzzzzz"
}

credentials "registry.example.com" {
  token = "s3cret"
}

credentials_helper "example" {
  args = ["--host=app.terraform.io", "--verbose"]
}

host "modules.example.com" {
  services = {
    "modules.v1"   = "https://modules.example.com/api/v1/"
    "providers.v1" = "/providers/v1/"
    "login.v1" = {
      client      = "terraform-cli"
      grant_types = ["authz_code", "token"]
      authz       = "https://modules.example.com/oauth/authorize"
      token       = "https://modules.example.com/oauth/token"
      ports       = [10000, 10010]
    }
  }
}

provider_installation {
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url     = "https://terraform.example.com/providers/"
    include = ["registry.terraform.io/hashicorp/*"]
    exclude = ["registry.terraform.io/hashicorp/azurerm"]
  }
  direct {
    exclude = ["example.com/*/*", "registry.terraform.io/hashicorp/*"]
  }
}
"#;
    let config = load(text.to_owned());
    assert_clean(&config);
    assert_eq!(config.credentials_blocks().len(), 2);
    assert_eq!(config.host_blocks().len(), 1);
    assert_eq!(config.host_blocks()[0].services().len(), 3);
    let helper = config.credentials_helper().expect("a helper block");
    assert_eq!(helper.kind(), "example");
}

#[test]
fn many_blocks_load_in_linear_time() {
    // A file of 20 000 blocks: counting lines from the start for each block,
    // or searching the merged blocks for each, took seconds.
    let text: String = (0..20_000)
        .map(|i| format!("credentials \"h{i}.example.com\" {{\n  token = \"t{i}\"\n}}\n"))
        .collect();
    let started = Instant::now();
    let config = CliConfig::from_sources([("/home/me/.terraformrc", text)]);
    assert_clean(&config);
    assert_eq!(config.credentials_blocks().len(), 20_000);
    let last = config.credentials_blocks().last().expect("blocks");
    assert_eq!(last.line(), Some(3 * 19_999 + 1));
    assert!(started.elapsed() < Duration::from_secs(20));
}
