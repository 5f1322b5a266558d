//! `tfdisco lock`: `terraform providers lock` without Terraform.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;
use tfdisco_core::{Dialect, Error, Platform, ProviderSource};
use tfdisco_runs::{BlockingRuns, LockOptions, LockReport, RunError};

use crate::exit;
use crate::failure::{Failure, json_text};
use crate::net::{self, NetOpts};
use crate::setup;

/// `tfdisco lock …`
#[derive(Args, Debug)]
pub(crate) struct LockOpts {
    /// Lock only these providers (source addresses).
    ///
    /// Each must be one the configuration requires; without any, every
    /// provider it requires is locked.
    #[arg(value_name = "PROVIDER")]
    providers: Vec<String>,
    /// A platform to lock for, as OS_ARCH (repeatable) [default: the current platform].
    #[arg(long = "platform", value_name = "OS_ARCH")]
    platforms: Vec<String>,
    /// The configuration's directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    chdir: PathBuf,
    /// Take every provider from this network mirror (an https: URL).
    ///
    /// Instead of each provider's registry, as `providers lock -net-mirror`:
    /// the archives are checked against the hashes the mirror lists.
    #[arg(long, value_name = "URL", conflicts_with_all = ["fs_mirror", "oci_mirror"])]
    net_mirror: Option<String>,
    /// Take every provider from this filesystem mirror folder.
    ///
    /// Instead of each provider's registry, as `providers lock -fs-mirror`.
    /// The folder may hold the packed or the unpacked layout; its packages
    /// are not authenticated.
    #[arg(long, value_name = "DIR", conflicts_with = "oci_mirror")]
    fs_mirror: Option<PathBuf>,
    /// Take every provider from an OCI registry mirror (OpenTofu).
    ///
    /// As OpenTofu's `providers lock -oci-mirror`: TEMPLATE is a URI template
    /// naming each provider's repository with {hostname}, {namespace} and
    /// {type} (`ghcr.io/example/{namespace}/{type}`); the archives are
    /// checked against their layers' digests, with the OCI credentials of
    /// the CLI configuration.
    #[arg(long, value_name = "TEMPLATE")]
    oci_mirror: Option<String>,
    /// Use the plugin cache, as `providers lock -enable-plugin-cache`.
    ///
    /// For each platform, a cache entry the lock file vouches for (or any,
    /// with plugin_cache_may_break_dependency_lock_file) is used without a
    /// download; every other package is downloaded, verified and unpacked
    /// into the cache. Without a cache configured, nothing changes.
    #[arg(long)]
    enable_plugin_cache: bool,
    /// The plugin cache folder, with --enable-plugin-cache.
    ///
    /// [default: TF_PLUGIN_CACHE_DIR, or the CLI configuration's
    /// plugin_cache_dir]
    #[arg(long, value_name = "DIR", requires = "enable_plugin_cache")]
    plugin_cache: Option<PathBuf>,
    /// JSON output.
    ///
    /// One object: lock_file, changed, platforms, and per provider source,
    /// version, constraints, hashes_added, trust, key_id; on failure error
    /// and failures (source, version, platform, kind, message, exit_code).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunOpts,
}

pub(crate) fn run(opts: &LockOpts) -> Result<u8, Failure> {
    let choice = opts.run.net.dialect_choice_in(&opts.chdir).clone();
    let mut options = LockOptions::new()
        .jobs(opts.run.jobs)
        .dialect_choice(choice)
        .platforms_from(platform_args(&opts.platforms)?)
        .mirrors(
            opts.net_mirror.as_deref(),
            opts.fs_mirror.clone(),
            opts.oci_mirror.as_deref(),
        )?;
    for source in provider_args(&opts.providers, opts.run.net.dialect())? {
        options = options.provider(source);
    }
    let setup = setup::load(&opts.run.net.client_options()?)?;
    let client = net::client_with(opts.run.net.transport, &setup, |b| b)?;
    if opts.enable_plugin_cache {
        options = options.enable_plugin_cache(&setup);
        if let Some(dir) = &opts.plugin_cache {
            options = options.plugin_cache_dir(dir);
        }
        warn_unopened_cache(
            options.plugin_cache().as_ref().and_then(|c| c.dir()),
            "locking",
        );
    }
    let result = client.lock(&opts.chdir, &options);
    finish(result, opts.json, "lock", human)
}

/// What every run takes besides its own options: how many requests at
/// once, and the network options.
#[derive(Args, Debug)]
pub(crate) struct RunOpts {
    /// How many requests to make at once (at least 1).
    #[arg(long, value_name = "N", default_value_t = tfdisco_runs::DEFAULT_JOBS, value_parser = jobs_arg)]
    pub(crate) jobs: NonZeroUsize,
    #[command(flatten)]
    pub(crate) net: NetOpts,
}

/// The `--platform` arguments of a run, in their order.
pub(crate) fn platform_args(given: &[String]) -> Result<Vec<Platform>, Error> {
    given.iter().map(|given| Platform::parse(given)).collect()
}

/// The provider arguments of a run, in their order, read as `dialect`
/// reads a provider source given on its command line.
pub(crate) fn provider_args(
    given: &[String],
    dialect: Dialect,
) -> Result<Vec<ProviderSource>, Error> {
    given
        .iter()
        .map(|given| ProviderSource::parse_argument(given, dialect))
        .collect()
}

/// The warning for a plugin cache folder that is not there: the run goes
/// on without the cache (`doing` says which run: `installing`, `locking`).
pub(crate) fn warn_unopened_cache(dir: Option<&Path>, doing: &str) {
    if let Some(dir) = dir
        && !dir.is_dir()
    {
        eprintln!(
            "tfdisco: warning: the plugin cache folder {} cannot be opened: {doing} without it",
            dir.display()
        );
    }
}

/// A key's id as the human lines add it to a trust word (`, key ID ID`);
/// nothing without one.
pub(crate) fn key_id_suffix(key_id: Option<&str>) -> String {
    key_id.map_or(String::new(), |id| format!(", key ID {id}"))
}

/// The last line of a run that writes the lock file at `path`.
pub(crate) fn lock_file_line(changed: bool, path: &Path) -> String {
    if changed {
        format!("\nUpdated {}.\n", path.display())
    } else {
        format!("\n{} needs no changes.\n", path.display())
    }
}

/// `--jobs N`, read by the rule every front end shares.
pub(crate) fn jobs_arg(given: &str) -> Result<NonZeroUsize, String> {
    let n: u64 = given
        .parse()
        .map_err(|_| format!("{given:?} is not a number"))?;
    tfdisco_runs::jobs(n).map_err(|e| e.to_string())
}

/// How a lock or mirror run ends: its report on stdout (`--json` or for
/// people) and exit 0, or its failure and exit code (as JSON on stdout with
/// `--json`).
pub(crate) fn finish<R: Serialize>(
    result: Result<R, RunError>,
    json: bool,
    kind: &'static str,
    human: impl FnOnce(&R) -> String,
) -> Result<u8, Failure> {
    match result {
        Ok(report) => {
            if json {
                println!("{}", json_text(&report));
            } else {
                print!("{}", human(&report));
            }
            Ok(exit::SUCCESS)
        }
        Err(error) => {
            let code = u8::try_from(error.exit_code()).unwrap_or(exit::FAILED);
            if json {
                println!("{}", json_text(&error));
                Ok(code)
            } else {
                Err(Failure::new(code, kind, &error))
            }
        }
    }
}

fn human(report: &LockReport) -> String {
    let platforms: Vec<String> = report.platforms.iter().map(Platform::to_string).collect();
    let mut out = String::new();
    for provider in &report.providers {
        out.push_str(&format!(
            "- {} {} for {} ({}{}): {}\n",
            provider.source,
            provider.version,
            platforms.join(", "),
            provider.trust,
            key_id_suffix(provider.key_id.as_deref()),
            match provider.hashes_added.len() {
                0 => "no new hashes".to_owned(),
                1 => "1 hash added".to_owned(),
                n => format!("{n} hashes added"),
            }
        ));
    }
    out.push_str(&lock_file_line(report.changed, &report.path));
    out
}
