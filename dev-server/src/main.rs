//! `tfdisco-dev`: a development discovery server on loopback, and the demo
//! of every transport against it, on the test kit (`tfdisco-testkit`).
//! The `tfdisco` command-line tool is shipped without either.

#![forbid(unsafe_code)]

mod demo;
mod serve;

use std::process::ExitCode;

use clap::{ArgAction, Parser, Subcommand};
use tfdisco_cli_common::{exit, failure, verbose};

use serve::ServeOpts;

/// tfdisco's development server: a discovery document and sample
/// registries over HTTPS on loopback, and the demo of every transport.
#[derive(Parser)]
#[command(
    name = "tfdisco-dev",
    version,
    about = "tfdisco's development server: sample registries on loopback HTTPS, and the demo",
    propagate_version = true
)]
struct Cli {
    /// Show what happens (-v: discovery steps, -vv: transport details).
    #[arg(short, long, global = true, action = ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve a discovery document over HTTPS on loopback, for development.
    ///
    /// Without --doc it serves a sample document whose module and provider
    /// registries it serves too (listed below); without --cert it makes a CA
    /// and a certificate. It prints the commands that reach it.
    #[command(
        after_help = format!("{}: see --help.", serve::HELP_HEADING),
        after_long_help = serve::sample_registry_help(),
    )]
    Serve(Box<ServeOpts>),
    /// Discover a built-in sample server, step by step, offline.
    ///
    /// Starts the built-in server with a sample document and discovers it
    /// through every transport, step by step. Works offline.
    Demo,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    verbose::init(cli.verbose);
    let result = match &cli.command {
        Command::Serve(opts) => serve::run(opts),
        Command::Demo => demo::run(),
    };
    failure::exit_code("tfdisco-dev", result)
}
