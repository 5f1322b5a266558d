//! Which environment [`ClientBuilder::build`] reads (docs/behaviour.md,
//! CFG-10): the one given to `environment`, else the one the CLI
//! configuration was loaded with, else the process's; and the check that an
//! explicit environment agrees with the configuration's.

use tfdisco_core::Env;

use super::{BuildError, ClientBuilder};

impl<C> ClientBuilder<C> {
    /// The environment `build` reads, or [`BuildError::EnvironmentMismatch`]
    /// when an explicit one disagrees with the CLI configuration's.
    pub(super) fn take_environment(&mut self) -> Result<Env, BuildError> {
        let explicit = self.environment.take();
        #[cfg(feature = "cli-config")]
        if let Some(loaded) = self.cli.as_ref().and_then(|cli| cli.env()) {
            let Some(explicit) = explicit else {
                return Ok(loaded.clone());
            };
            let variables =
                cli_config::disagreements(loaded, &explicit, self.credentials.is_none());
            if !variables.is_empty() {
                return Err(BuildError::EnvironmentMismatch { variables });
            }
            return Ok(explicit);
        }
        Ok(explicit.unwrap_or_else(Env::from_process))
    }
}

#[cfg(feature = "cli-config")]
mod cli_config {
    use std::collections::BTreeSet;

    use tfdisco_config::{APPEND_USER_AGENT_VAR, EnvCredentials, appended_user_agent};
    use tfdisco_core::{Credentials, CredentialsSource, Env, Hostname};

    /// The variables on which `a` and `b` give a client other settings: the
    /// `TF_APPEND_USER_AGENT` text (trimmed, as applied), and when `tokens`
    /// the `TF_TOKEN_*` credentials of each host (compared by the token
    /// they give, so two spellings of one host's variable agree). Names only,
    /// sorted: never a value.
    pub(super) fn disagreements(a: &Env, b: &Env, tokens: bool) -> Vec<String> {
        let mut names = BTreeSet::new();
        if appended_user_agent(a) != appended_user_agent(b) {
            names.insert(APPEND_USER_AGENT_VAR.to_owned());
        }
        if tokens {
            let (a, b) = (EnvCredentials::new(a), EnvCredentials::new(b));
            let hosts: BTreeSet<&Hostname> = a.hosts().chain(b.hosts()).collect();
            for host in hosts {
                if token(&a, host) != token(&b, host) {
                    names.extend(a.variable(host).map(str::to_owned));
                    names.extend(b.variable(host).map(str::to_owned));
                }
            }
        }
        names.into_iter().collect()
    }

    /// What a lookup for `host` gives; a failure (a token that cannot be
    /// sent, CRED-5) as `Err(())`.
    fn token(source: &EnvCredentials, host: &Hostname) -> Result<Option<Credentials>, ()> {
        source.credentials(host).map_err(drop)
    }
}
