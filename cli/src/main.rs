//! `tfdisco`: Terraform/OpenTofu remote service discovery from the command line.

#![forbid(unsafe_code)]

mod credentials;
mod exit;
mod failure;
mod normalize;
mod setup;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tfdisco_core::Dialect;

use failure::Failure;

/// Terraform/OpenTofu remote service discovery.
#[derive(Parser)]
#[command(name = "tfdisco", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the comparison and display forms of hostnames (stdin when none are given).
    Normalize {
        /// Hostnames as users write them.
        hosts: Vec<String>,
        /// One JSON object per input: input, comparison, error, display.
        #[arg(long)]
        json: bool,
    },
    /// Say which source supplies credentials for a host (TF_TOKEN_* variables,
    /// CLI config files, credentials.tfrc.json, the credentials helper).
    Credentials {
        /// The host, as users write it.
        host: String,
        /// Which CLI's configuration files to read.
        #[arg(long, value_parser = parse_dialect, default_value = "opentofu")]
        dialect: Dialect,
        /// Print the token itself.
        #[arg(long)]
        show_token: bool,
        /// One JSON object: hostname, display, source, has_token (and token with --show-token).
        #[arg(long)]
        json: bool,
    },
}

fn parse_dialect(s: &str) -> Result<Dialect, String> {
    s.parse()
        .map_err(|e: tfdisco_core::UnknownDialect| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Normalize { hosts, json } => normalize::run(&hosts, json).map_err(Failure::from),
        Command::Credentials {
            host,
            dialect,
            show_token,
            json,
        } => credentials::run(&host, dialect, show_token, json),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) if f.kind == failure::BROKEN_PIPE => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("tfdisco: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
