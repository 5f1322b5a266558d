//! `tfdisco mirror`: `terraform providers mirror` without Terraform.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::Args;
use tfdisco_core::Platform;
use tfdisco_transport::{MirrorOptions, MirrorReport};

use crate::failure::Failure;
use crate::lock::{finish, jobs_arg};
use crate::net::{self, NetOpts};

/// `tfdisco mirror …`
#[derive(Args, Debug)]
pub(crate) struct MirrorOpts {
    /// The mirror folder to write into (made when missing); what it holds
    /// already stays, and is indexed too.
    #[arg(value_name = "DIR")]
    folder: PathBuf,
    /// A platform to mirror for, as OS_ARCH (repeatable) [default: the
    /// platform tfdisco runs on].
    #[arg(long = "platform", value_name = "OS_ARCH")]
    platforms: Vec<String>,
    /// The configuration's directory [default: the current directory].
    #[arg(long, value_name = "DIR", default_value = ".")]
    chdir: PathBuf,
    /// Whether the lock file decides the versions (as `-lock-file`;
    /// OpenTofu always reads it).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    lock_file: bool,
    /// How many requests to make at once (at least 1).
    #[arg(long, value_name = "N", default_value_t = tfdisco_transport::DEFAULT_JOBS, value_parser = jobs_arg)]
    jobs: NonZeroUsize,
    /// JSON output: folder, platforms, indexes, and per provider source,
    /// version, constraints, locked, trust, key_id, archives; on failure
    /// error and failures (source, version, platform, kind, message,
    /// exit_code).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    net: NetOpts,
}

pub(crate) fn run(opts: &MirrorOpts) -> Result<u8, Failure> {
    let mut options = MirrorOptions::new()
        .jobs(opts.jobs)
        .lock_file(opts.lock_file);
    for given in &opts.platforms {
        options = options.platform(Platform::parse(given)?);
    }
    let client = net::client(&opts.net)?;
    let result = client.mirror(&opts.chdir, &opts.folder, &options);
    if let Ok(report) = &result {
        for warning in &report.warnings {
            eprintln!("tfdisco: warning: {warning}");
        }
        for (path, why) in &report.skipped {
            eprintln!(
                "tfdisco: warning: {} left out of the indexes: {why}",
                path.display()
            );
        }
    }
    finish(result, opts.json, "mirror", human)
}

/// Terraform's lines, after the run (the downloads ran concurrently).
fn human(report: &MirrorReport) -> String {
    let mut out = String::new();
    for provider in &report.providers {
        out.push_str(&format!("- Mirrored {}\n", provider.source));
        let why = if provider.locked {
            "to match dependency lock file".to_owned()
        } else if provider.constraints.is_empty() {
            "with no constraints".to_owned()
        } else {
            format!("to meet constraints {}", provider.constraints)
        };
        out.push_str(&format!("  - Selected v{} {why}\n", provider.version));
        let trust = match &provider.key_id {
            Some(id) if provider.trust.shows_key_id() => format!("{}, key ID {id}", provider.trust),
            _ => provider.trust.to_string(),
        };
        for archive in &provider.archives {
            out.push_str(&format!("  - {} ({trust})\n", archive.display()));
        }
    }
    out.push_str(&format!(
        "\n{} indexes written in {}.\n",
        report.indexes.len(),
        report.folder.display()
    ));
    out
}
