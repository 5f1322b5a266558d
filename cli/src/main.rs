//! `tfdisco`: Terraform/OpenTofu remote service discovery from the command line.

#![forbid(unsafe_code)]

mod exit;
mod normalize;

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Normalize { hosts, json } => normalize::run(&hosts, json),
    };
    match result {
        Ok(code) => exit::code(code),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit::code(exit::SUCCESS),
        Err(e) => {
            eprintln!("tfdisco: {e}");
            exit::code(exit::DISCOVERY_FAILED)
        }
    }
}
