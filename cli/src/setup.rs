//! What every command that talks about hosts reads first: the environment and
//! the CLI configuration files of the chosen dialect.

use tfdisco_config::{CliConfig, Env, Severity};
use tfdisco_core::{Dialect, Hostname};

use crate::failure::Failure;

/// The environment and the merged CLI configuration.
pub(crate) struct Setup {
    pub(crate) env: Env,
    pub(crate) config: CliConfig,
}

impl Setup {
    /// No environment and no configuration files at all (`tfdisco demo`).
    pub(crate) fn empty() -> Setup {
        let env = Env::empty();
        let config = CliConfig::from_sources(std::iter::empty::<(std::path::PathBuf, String)>());
        Setup { env, config }
    }

    /// Reads the CLI configuration of `dialect`; problems in it are printed as
    /// warnings (they never stop a command, as in Terraform).
    pub(crate) fn load(dialect: Dialect) -> Setup {
        let env = Env::from_process();
        let config = CliConfig::load(dialect, &env);
        for d in config.diagnostics() {
            let level = match d.severity() {
                Severity::Error => "error",
                _ => "warning",
            };
            match (d.file(), d.line()) {
                (Some(file), Some(line)) => {
                    eprintln!("tfdisco: {level}: {}:{line}: {d}", file.display())
                }
                (Some(file), None) => eprintln!("tfdisco: {level}: {}: {d}", file.display()),
                _ => eprintln!("tfdisco: {level}: {d}"),
            }
        }
        Setup { env, config }
    }
}

/// Parses a hostname argument; an invalid one is a usage error (exit 2).
pub(crate) fn hostname(input: &str) -> Result<Hostname, Failure> {
    Hostname::parse(input).map_err(|e| Failure::from(tfdisco_core::Error::from(e)))
}
