//! `tfdisco get`: `terraform get` without Terraform, the configuration's
//! modules into `.terraform/modules`.

use std::path::PathBuf;

use clap::Args;
use tfdisco_runs::{BlockingRuns, GetOptions, GetReport};

use crate::failure::Failure;
use crate::lock::{RunOpts, finish};
use crate::net;
use crate::setup;

/// `tfdisco get …`
#[derive(Args, Debug)]
pub(crate) struct GetOpts {
    /// The configuration's directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    chdir: PathBuf,
    /// Install every module again (`get -update`, `init -upgrade`).
    ///
    /// Registry modules get the newest version their constraint allows,
    /// whatever the manifest lists; every package is fetched again.
    #[arg(long)]
    upgrade: bool,
    /// Write the module lock, .tfdisco.modules.lock.json (tfdisco's own).
    ///
    /// Each module's source, version and package hash (h1: of an archive's
    /// files, git: and the commit, an OCI digest). A lock that is there is
    /// read and checked on every run: its versions are kept and a package
    /// that does not match it is refused.
    #[arg(long)]
    lock: bool,
    /// The shared module cache folder (tfdisco's own).
    ///
    /// Each package is fetched once for every run that shares the folder,
    /// under its entry's lock; an entry is used only for a package the
    /// module lock identifies, once its copy matches it.
    ///
    /// [default: TF_MODULE_CACHE_DIR, or the CLI configuration's
    /// module_cache_dir]
    #[arg(long, value_name = "DIR")]
    module_cache: Option<PathBuf>,
    /// JSON output.
    ///
    /// One object: manifest, changed, and per module key, source, version,
    /// dir, installed (kept, local, fetched); on failure error and
    /// failures (key, kind, message, exit_code).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunOpts,
}

pub(crate) fn run(opts: &GetOpts) -> Result<u8, Failure> {
    let setup = setup::load(&opts.run.net.client_options()?)?;
    let client = net::client_with(opts.run.net.transport, &setup, |b| b)?;
    let mut options = GetOptions::new()
        .with_setup(&setup)
        .upgrade(opts.upgrade)
        .lock(opts.lock)
        .jobs(opts.run.jobs);
    if let Some(dir) = &opts.module_cache {
        options = options.module_cache(dir);
    }
    let result = client.get(&opts.chdir, &options);
    finish(result, opts.json, "get", human)
}

fn human(report: &GetReport) -> String {
    let mut out = String::new();
    for module in &report.modules {
        let version = module
            .version
            .as_deref()
            .map_or(String::new(), |v| format!(" {v}"));
        out.push_str(&format!(
            "- {} ({}{version}): {} in {}\n",
            module.key,
            tfdisco_core::without_ssh_key(&module.source),
            module.installed,
            module.dir
        ));
    }
    if report.modules.is_empty() {
        out.push_str("The configuration calls no modules.\n");
    }
    out
}
