//! `tfdisco install`: `terraform init`'s provider installation without
//! Terraform, into `.terraform/providers` and the plugin cache.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use tfdisco_runs::{BlockingRuns, Cancel, InstallEvent, InstallOptions, InstallReport};

use crate::failure::{Failure, json_text};
use crate::interrupt;
use crate::lock::{
    RunOpts, finish, key_id_suffix, lock_file_line, provider_args, warn_unopened_cache,
};
use crate::net;
use crate::setup;

/// `--lockfile MODE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LockfileMode {
    /// The lock file must not change: a run that would change it installs
    /// nothing and exits 3.
    Readonly,
}

/// `tfdisco install …`
#[derive(Args, Debug)]
pub(crate) struct InstallOpts {
    /// Install only these providers (source addresses).
    ///
    /// Each must be one the configuration requires; without any, every
    /// provider it requires is installed.
    #[arg(value_name = "PROVIDER")]
    providers: Vec<String>,
    /// The configuration's directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    chdir: PathBuf,
    /// Take the newest versions the constraints allow (`init -upgrade`).
    ///
    /// Each provider's newest version the constraints allow is selected,
    /// whatever version the lock file holds.
    #[arg(long, conflicts_with = "lockfile")]
    upgrade: bool,
    /// `readonly`: refuse to change the lock file (`init -lockfile=readonly`).
    #[arg(long, value_enum, value_name = "MODE")]
    lockfile: Option<LockfileMode>,
    /// The plugin cache folder.
    ///
    /// [default: TF_PLUGIN_CACHE_DIR, or the CLI configuration's
    /// plugin_cache_dir]
    #[arg(long, value_name = "DIR")]
    plugin_cache: Option<PathBuf>,
    /// The shared module cache folder (as for get).
    ///
    /// [default: TF_MODULE_CACHE_DIR, or the CLI configuration's
    /// module_cache_dir]
    #[arg(long, value_name = "DIR")]
    module_cache: Option<PathBuf>,
    /// JSON output.
    ///
    /// One object: lock_file, changed, platform, and per provider source,
    /// version, installed (reused, cached, downloaded), from, bytes,
    /// hashes_added, trust, key_id; on failure error and failures.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunOpts,
}

pub(crate) fn run(opts: &InstallOpts) -> Result<u8, Failure> {
    let choice = opts.run.net.dialect_choice_in(&opts.chdir).clone();
    let setup = setup::load(&opts.run.net.client_options()?)?;
    let client = net::client_with(opts.run.net.transport, &setup, |b| b)?;
    let mut options = InstallOptions::new()
        .with_setup(&setup, &opts.chdir)
        .upgrade(opts.upgrade)
        .readonly(opts.lockfile == Some(LockfileMode::Readonly))
        .jobs(opts.run.jobs)
        .dialect_choice(choice);
    if let Some(dir) = &opts.plugin_cache {
        options = options.plugin_cache_dir(dir);
    }
    if let Some(dir) = &opts.module_cache {
        options = options.module_cache_dir(dir);
    }
    let json = opts.json;
    options = options.on_event(Arc::new(move |event| progress(event, json)));
    let cancel = Cancel::new();
    interrupt::cancel_on_interrupt(cancel.clone());
    options = options.cancel_on(cancel);
    for source in provider_args(&opts.providers, opts.run.net.dialect())? {
        options = options.provider(source);
    }
    warn_unopened_cache(options.plugin_cache().dir(), "installing");
    let result = client.install(&opts.chdir, &options);
    finish(result, opts.json, "install", human)
}

/// A line per package as its download starts and ends (stdout; `--json`
/// prints none), and a line on stderr when the run waits for a plugin cache
/// entry another run holds (with `--json`, a JSON object on a line).
fn progress(event: InstallEvent<'_>, json: bool) {
    match event {
        InstallEvent::Downloading { source, version } if !json => {
            println!("- Installing {source} v{version}...");
        }
        InstallEvent::Downloaded {
            source,
            version,
            bytes,
        } if !json => println!("- Downloaded {source} v{version} ({bytes} bytes)"),
        InstallEvent::WaitingForCache {
            source,
            version,
            platform,
            lock_file,
            ..
        } => {
            if json {
                eprintln!("{}", json_text(&event));
            } else {
                eprintln!(
                    "- Waiting for the plugin cache entry of {source} v{version} for {platform}: \
                     another run holds its lock {} (Ctrl-C stops)",
                    lock_file.display()
                );
            }
        }
        _ => {}
    }
}

fn human(report: &InstallReport) -> String {
    for warning in &report.warnings {
        eprintln!("tfdisco: warning: {warning}");
    }
    let mut out = String::new();
    for provider in &report.providers {
        let how = match tfdisco_runs::install_word(provider.installed) {
            "reused" => "using the one already installed".to_owned(),
            "cached" => "from the plugin cache".to_owned(),
            _ => format!(
                "downloaded from {}, {} bytes ({}{})",
                provider.from,
                provider.bytes,
                provider.trust,
                key_id_suffix(provider.key_id.as_deref())
            ),
        };
        out.push_str(&format!(
            "- {} {} for {}: {how}\n",
            provider.source, provider.version, report.platform
        ));
    }
    out.push_str(&lock_file_line(report.changed, &report.path));
    out
}
