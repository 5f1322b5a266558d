//! What every command that talks about hosts reads first: the environment and
//! the CLI configuration files of the chosen dialect, through the set-up the
//! Python and Node packages share (`tfdisco_runs::ClientOptions`).

use tfdisco_config::Severity;
use tfdisco_core::{Dialect, Hostname};
use tfdisco_runs::{ClientOptions, ClientSetup};

use crate::failure::Failure;

pub(crate) use tfdisco_cli_common::failure::option_failure;

/// Reads what `options` ask for; problems in the CLI configuration are
/// printed as warnings (they never stop a command, as in Terraform).
pub(crate) fn load(options: &ClientOptions) -> Result<ClientSetup, Failure> {
    let setup = options.load().map_err(option_failure)?;
    for d in setup.diagnostics() {
        let level = match d.severity() {
            Severity::Error => "error",
            _ => "warning",
        };
        eprintln!("tfdisco: {level}: {}", d.located());
    }
    Ok(setup)
}

/// The process environment and the CLI configuration of `dialect`.
pub(crate) fn load_dialect(dialect: Dialect) -> Result<ClientSetup, Failure> {
    load(&ClientOptions::new(dialect))
}

/// Parses a hostname argument; an invalid one is a usage error (exit 2).
pub(crate) fn hostname(input: &str) -> Result<Hostname, Failure> {
    Hostname::parse(input).map_err(|e| Failure::from(tfdisco_core::Error::from(e)))
}
