//! How the CLIs' users tune registry requests (docs/behaviour.md, CFG-11):
//! `TF_REGISTRY_DISCOVERY_RETRY` and `TF_REGISTRY_CLIENT_TIMEOUT` in both
//! dialects, and OpenTofu's `registry_protocols` block in the main CLI
//! configuration file, the environment winning.

use std::path::Path;
use std::time::Duration;

use tfdisco_core::Env;

use crate::Diagnostic;
use crate::literal::Lit;

/// The number of retries of a failed registry request.
pub const REGISTRY_RETRY_VAR: &str = "TF_REGISTRY_DISCOVERY_RETRY";
/// The seconds each attempt of a registry request may take.
pub const REGISTRY_TIMEOUT_VAR: &str = "TF_REGISTRY_CLIENT_TIMEOUT";

/// What the user's settings say about registry requests; `None` leaves the
/// CLI's default (one retry, 10 s per attempt).
///
/// ```
/// use std::time::Duration;
/// use tfdisco_config::{CliConfig, Dialect, Env};
///
/// let env = Env::empty()
///     .with_var("TF_REGISTRY_DISCOVERY_RETRY", "3")
///     .with_var("TF_REGISTRY_CLIENT_TIMEOUT", "0"); // not positive: ignored
/// let settings = CliConfig::load(Dialect::Terraform, &env).registry_settings(&env);
/// assert_eq!(settings.retries, Some(3));
/// assert_eq!(settings.attempt_timeout, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegistrySettings {
    /// How many times a failed request is retried.
    pub retries: Option<u32>,
    /// How long each attempt may take: `Some(None)` is no limit of its own
    /// (OpenTofu's `request_timeout_seconds = 0`).
    pub attempt_timeout: Option<Option<Duration>>,
}

impl RegistrySettings {
    /// The variables' settings: each only when it is an integer above 0, as
    /// Go's `strconv.Atoi` reads it (an optional sign, decimal digits);
    /// anything else is ignored, as both CLIs ignore it.
    pub fn from_env(env: &Env) -> RegistrySettings {
        let positive = |name| {
            env.var(name)
                .and_then(|v| v.to_str())
                .and_then(go_atoi)
                .filter(|&n| n > 0)
        };
        RegistrySettings {
            retries: positive(REGISTRY_RETRY_VAR).map(saturating_u32),
            attempt_timeout: positive(REGISTRY_TIMEOUT_VAR)
                .map(|secs| Some(Duration::from_secs(secs.unsigned_abs()))),
        }
    }

    /// These settings, with `fallback`'s where these have none.
    pub(crate) fn or(self, fallback: RegistrySettings) -> RegistrySettings {
        RegistrySettings {
            retries: self.retries.or(fallback.retries),
            attempt_timeout: self.attempt_timeout.or(fallback.attempt_timeout),
        }
    }
}

/// Go's `strconv.Atoi`: an optional `+` or `-`, then decimal digits, within
/// an `i64`.
pub(crate) fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.strip_prefix('+').unwrap_or(text).parse().ok()
}

pub(crate) fn saturating_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

/// A `registry_protocols` block as a file writes it, before it is read.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) line: Option<usize>,
    pub(crate) body: Lit,
}

/// Reads OpenTofu's `registry_protocols` block: `retry_count` and
/// `request_timeout_seconds`, integers that are not checked (0 or less: no
/// retries, or no limit on an attempt). Anything else in the block is
/// ignored; a value that is not an integer makes the block a diagnostic.
pub(crate) fn read_block(
    path: &Path,
    block: &Block,
    diags: &mut Vec<Diagnostic>,
) -> RegistrySettings {
    let integer = |key: &str| -> Result<Option<i64>, String> {
        match block.body.get(key) {
            None => Ok(None),
            Some(Lit::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64()),
            Some(other) => Err(format!(
                "{key} must be a whole number, not {}",
                other.kind()
            )),
        }
    };
    match (integer("retry_count"), integer("request_timeout_seconds")) {
        (Ok(retries), Ok(timeout)) => RegistrySettings {
            retries: retries.map(saturating_u32),
            attempt_timeout: timeout
                .map(|secs| (secs > 0).then(|| Duration::from_secs(secs.unsigned_abs()))),
        },
        (Err(problem), _) | (_, Err(problem)) => {
            diags.push(
                Diagnostic::error(format!(
                    "Invalid registry_protocols block: Invalid registry protocol settings in \
                     {}: {problem}",
                    path.display()
                ))
                .at(path, block.line),
            );
            RegistrySettings::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_atoi_semantics() {
        for (text, want) in [
            ("3", Some(3)),
            ("+2", Some(2)),
            ("03", Some(3)),
            ("-1", Some(-1)),
            ("0", Some(0)),
            (" 2", None),
            ("2.0", None),
            ("abc", None),
            ("", None),
            ("+", None),
            ("99999999999999999999", None),
        ] {
            assert_eq!(go_atoi(text), want, "{text:?}");
        }
    }

    #[test]
    fn only_positive_values_count_in_the_environment() {
        let read = |retry: &str, timeout: &str| {
            RegistrySettings::from_env(
                &Env::empty()
                    .with_var(REGISTRY_RETRY_VAR, retry)
                    .with_var(REGISTRY_TIMEOUT_VAR, timeout),
            )
        };
        assert_eq!(
            read("3", "15"),
            RegistrySettings {
                retries: Some(3),
                attempt_timeout: Some(Some(Duration::from_secs(15))),
            }
        );
        // Retries cannot be turned off with the variable, nor the timeout.
        assert_eq!(read("0", "0"), RegistrySettings::default());
        assert_eq!(read("-1", "abc"), RegistrySettings::default());
        assert_eq!(read("+2", "03").retries, Some(2));
    }
}
