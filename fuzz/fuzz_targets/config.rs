//! CLI configuration text (HCL and JSON syntax) and `TF_TOKEN_*` variable
//! names.
//!
//! An input is `CONFIG [NUL NAMES]`, read as UTF-8 (invalid bytes become
//! U+FFFD): the part before the first NUL byte is configuration text, cut at
//! each form feed (U+000C) into files merged in order; the part after it
//! holds variable names, one per line. Each name is decoded as given and, when
//! it lacks the `TF_TOKEN_` prefix, once more with the prefix.
//!
//! Every `@@` in the configuration text becomes a known token, written as a
//! string literal's content (`tok\"en.fuzz-secret`), and every variable
//! gets that token as its value. The token contains a `"` and a `.`, so no
//! echo of a block label can contain it as it is: labels are shown quoted
//! with `"` escaped, or (punycode labels) as one label, without dots. If a
//! diagnostic, an error or a `Debug` form shows it, a token leaked.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use tfdisco_config::{CliConfig, Env, TOKEN_VAR_PREFIX, token_var_host};
use tfdisco_core::{Config, DiscoveryCache, Hostname};

/// The known token, as parsed.
const SECRET: &str = "tok\"en.fuzz-secret";
/// The same as written inside a string literal in either syntax, and as the
/// `Debug` form of a string shows it.
const SECRET_ESCAPED: &str = r#"tok\"en.fuzz-secret"#;
/// What stands for the token in an input.
const PLACEHOLDER: &str = "@@";

/// A `kind` block labelled `name` for `host`: the host is valid, the label
/// names it, and no block of that kind in `seen` had it before.
fn check_label<'a>(seen: &mut HashSet<&'a Hostname>, kind: &str, host: &'a Hostname, name: &str) {
    check_host(host);
    assert_eq!(Hostname::parse(name).as_ref(), Ok(host));
    assert!(seen.insert(host), "two {kind} blocks for {host:?}");
}

/// A valid host comes back from its comparison form unchanged.
fn check_host(host: &Hostname) {
    assert_eq!(
        Hostname::from_comparison(host.as_str()).as_ref(),
        Ok(host),
        "{host:?}"
    );
}

/// Neither the `Display` nor the `Debug` form of `shown` gives the token
/// away. (A `Debug` form escapes every `"`, so it can only show the token
/// escaped; a `Display` form may show the escaped text legitimately, as a
/// label quoted by `go_quote`.)
fn check_hidden(shown: &(impl std::fmt::Display + std::fmt::Debug), what: &str) {
    let display = shown.to_string();
    assert!(
        !display.contains(SECRET),
        "the token shows in {what}: {display}"
    );
    let debug = format!("{shown:?}");
    assert!(
        !debug.contains(SECRET_ESCAPED),
        "the token shows in {what}: {debug}"
    );
}

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let (text, names) = input.split_once('\0').unwrap_or((&input, ""));
    let text = text.replace(PLACEHOLDER, SECRET_ESCAPED);
    let files: Vec<(String, &str)> = text
        .split('\u{c}')
        .enumerate()
        .map(|(i, part)| (format!("/fuzz/config{i}.tfrc"), part))
        .collect();
    let config = CliConfig::from_sources(files.iter().map(|(p, t)| (p.as_str(), *t)));

    for d in config.diagnostics() {
        assert!(!d.summary().is_empty(), "{d:?}");
        assert!(!d.message().is_empty(), "{d:?}");
        let file = d
            .file()
            .expect("every configuration problem names its file");
        assert!(
            files.iter().any(|(p, _)| file.as_os_str() == p.as_str()),
            "{d:?}"
        );
        assert!(d.line().is_none_or(|line| line >= 1), "{d:?}");
        check_hidden(d, "a diagnostic");
    }

    let mut seen = HashSet::new();
    for block in config.credentials_blocks() {
        check_label(&mut seen, "credentials", block.host(), block.name());
        assert!(block.line().is_none_or(|line| line >= 1));
        let _ = block.credentials();
        // Labels cannot hold the token (they are valid hostnames), so only
        // the token attribute could show it.
        let debug = format!("{block:?}");
        assert!(
            !debug.contains(SECRET_ESCAPED),
            "the token shows in {debug}"
        );
    }
    let mut seen = HashSet::new();
    for block in config.host_blocks() {
        check_label(&mut seen, "host", block.host(), block.name());
    }
    if let Some(helper) = config.credentials_helper() {
        // Only `CliConfig::load` looks for the program: nothing here runs one.
        assert!(helper.executable().is_none());
    }
    let _ = config.force_hosts(&mut DiscoveryCache::new(Config::default()));

    // Token variables, each with the token as its value.
    let mut vars = Vec::new();
    let mut hosts = Vec::new();
    for line in names.lines() {
        let mut candidates = vec![line.to_owned()];
        if !line.starts_with(TOKEN_VAR_PREFIX) {
            candidates.push(format!("{TOKEN_VAR_PREFIX}{line}"));
        }
        for name in candidates {
            if let Some(host) = token_var_host(&name) {
                assert!(name.starts_with(TOKEN_VAR_PREFIX), "{name:?}");
                check_host(&host);
                hosts.push(host);
            }
            vars.push(name);
        }
    }
    // A variable's name may hold the token itself; only check the rest then.
    let names_hold_secret = vars
        .iter()
        .any(|name| name.contains(SECRET) || format!("{name:?}").contains(SECRET_ESCAPED));
    let env = Env::new(vars.iter().map(|name| (name.as_str(), SECRET)));
    let source = config.credentials_source(&env);
    if !names_hold_secret {
        let debug = format!("{source:?}");
        assert!(
            !debug.contains(SECRET_ESCAPED),
            "the token shows in {debug}"
        );
    }
    hosts.extend(config.credentials_blocks().iter().map(|b| b.host().clone()));
    for host in &hosts {
        let variable = source.env().variable(host);
        match source.find(host) {
            Ok(Some(found)) => {
                if let Some(variable) = variable {
                    // The variable that answers decodes to the host asked for.
                    assert_eq!(token_var_host(variable).as_ref(), Some(host));
                    let token = found
                        .credentials()
                        .expect("a variable always gives a token");
                    assert_eq!(token.expose_token(), SECRET);
                } else {
                    let block = config.credentials_block(host).expect("a block answered");
                    assert_eq!(
                        found.origin().to_string(),
                        format!("credentials block in {}", block.file().display())
                    );
                }
                if !names_hold_secret {
                    check_hidden(found.origin(), "a credentials origin");
                }
            }
            Ok(None) => panic!("{host:?} has a variable or a block, yet no source knows it"),
            Err(e) => {
                if !names_hold_secret {
                    check_hidden(&e, "a credentials error");
                }
            }
        }
    }
});
