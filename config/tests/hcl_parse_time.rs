//! Configuration text that once took the HCL parser time exponential in its
//! nesting (found by the `config` fuzz target; fixed in the patched
//! `vendor/hcl-edit`). Each must be rejected with one parse diagnostic. The
//! unpatched parser needs minutes for the fixture and far longer for the
//! built inputs, so each parse runs on its own thread and the test fails,
//! rather than hangs, if it is not done within a generous bound.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use tfdisco_config::CliConfig;

/// Far beyond the milliseconds these take; only there so that a regression
/// fails instead of hanging the suite.
const BOUND: Duration = Duration::from_secs(60);

fn parse_within_bound(text: String) -> CliConfig {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(CliConfig::from_sources([("/fuzz/config0.tfrc", text)]));
    });
    rx.recv_timeout(BOUND)
        .expect("the configuration is parsed well within the bound")
}

fn assert_one_parse_error(config: &CliConfig) {
    let diagnostics = config.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let message = diagnostics[0].message();
    assert!(
        message.starts_with("Error parsing /fuzz/config0.tfrc: line 1, column "),
        "{message}"
    );
    assert!(config.credentials_blocks().is_empty());
}

#[test]
fn the_fuzzer_input_is_rejected() {
    let text = include_str!("fixtures/fuzz/nested-operands.tfrc");
    assert_one_parse_error(&parse_within_bound(text.to_owned()));
}

#[test]
fn operands_nested_sixty_objects_deep_are_rejected() {
    // 2^60 operand parses before the fix. Both the end of input inside the
    // innermost object and a newline before it ended each chain with a
    // recoverable error.
    for tail in ["-a", "{2=a\n"] {
        let text = format!("a={}{tail}", "{a*a*".repeat(60));
        assert_one_parse_error(&parse_within_bound(text));
    }
}

#[test]
fn valid_operands_nested_in_objects_still_parse() {
    let text = format!("a={}1{}\n", "{k=a*a*".repeat(20), "}".repeat(20));
    let config = parse_within_bound(text);
    assert!(
        config.diagnostics().is_empty(),
        "{:?}",
        config.diagnostics()
    );
}
