//! `tfdisco mirror`: `terraform providers mirror` without Terraform.

use std::path::PathBuf;

use clap::Args;
use tfdisco_core::{Error, ProviderSource, Version};
use tfdisco_runs::Trust;
use tfdisco_runs::tfdisco_provider::oci_mirror::OciMirrorTemplate;
use tfdisco_runs::{BlockingRuns, MirrorOptions, MirrorReport, OciMirrorReport};

use crate::failure::Failure;
use crate::lock::{RunOpts, finish, platform_args};
use crate::net;

/// `tfdisco mirror …`
#[derive(Args, Debug)]
pub(crate) struct MirrorOpts {
    /// The mirror folder to write into (made when missing).
    ///
    /// What it holds already stays, and is indexed too.
    #[arg(value_name = "DIR", required_unless_present = "to_oci")]
    folder: Option<PathBuf>,
    /// Push the providers to OCI repositories instead of a folder.
    ///
    /// In the layout OpenTofu's `oci_mirror` reads: TEMPLATE names each
    /// provider's repository with {hostname}, {namespace} and {type}
    /// (`ghcr.io/example/{namespace}/{type}`), as `lock --oci-mirror` reads
    /// it; with the OCI credentials of the CLI configuration. Blobs a
    /// repository has are not sent again; each version's tag is written
    /// last.
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "folder")]
    to_oci: Option<String>,
    /// A platform to mirror for, as OS_ARCH (repeatable) [default: the current platform].
    #[arg(long = "platform", value_name = "OS_ARCH")]
    platforms: Vec<String>,
    /// The configuration's directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    chdir: PathBuf,
    /// Whether the lock file decides the versions (as `-lock-file`).
    ///
    /// OpenTofu always reads it.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    lock_file: bool,
    /// JSON output.
    ///
    /// One object: folder, platforms, indexes, and per provider source,
    /// version, constraints, locked, trust, key_id, archives; on failure
    /// error and failures (source, version, platform, kind, message,
    /// exit_code).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunOpts,
}

pub(crate) fn run(opts: &MirrorOpts) -> Result<u8, Failure> {
    let choice = opts.run.net.dialect_choice_in(&opts.chdir).clone();
    let options = MirrorOptions::new()
        .jobs(opts.run.jobs)
        .lock_file(opts.lock_file)
        .dialect_choice(choice)
        .platforms_from(platform_args(&opts.platforms)?);
    let client = net::client(&opts.run.net)?;
    let folder = match (&opts.folder, &opts.to_oci) {
        (_, Some(template)) => {
            let template = OciMirrorTemplate::parse_as(template, "--to-oci")
                .map_err(|message| Error::InvalidArgument { message })?;
            let result = client.mirror_to_oci(&opts.chdir, &template, &options);
            return finish(result, opts.json, "mirror", human_oci);
        }
        (Some(folder), None) => folder,
        (None, None) => {
            let message = "give a mirror folder or --to-oci TEMPLATE".to_owned();
            return Err(Error::InvalidArgument { message }.into());
        }
    };
    let result = client.mirror(&opts.chdir, folder, &options);
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
        out.push_str(&selected(
            &provider.source,
            &provider.version,
            provider.locked,
            &provider.constraints,
        ));
        let trust = trust(provider.trust, provider.key_id.as_deref());
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

/// `tfdisco mirror --to-oci`'s lines: each provider as the folder's, then
/// where its release went.
fn human_oci(report: &OciMirrorReport) -> String {
    let mut out = String::new();
    for provider in &report.providers {
        out.push_str(&selected(
            &provider.source,
            &provider.version,
            provider.locked,
            &provider.constraints,
        ));
        let release = &provider.release;
        out.push_str(&format!(
            "  - {}:{} {} ({} platforms, {}; {} blobs sent, {} mounted)\n",
            release.address,
            release.tag,
            release.index,
            release.packages.len(),
            trust(provider.trust, provider.key_id.as_deref()),
            release.blobs_sent,
            release.blobs_mounted
        ));
    }
    out.push_str(&format!(
        "\n{} releases pushed to {}.\n",
        report.providers.len(),
        report.template
    ));
    out
}

/// `- Mirrored SOURCE` and the version selected, and why.
fn selected(source: &ProviderSource, version: &Version, locked: bool, constraints: &str) -> String {
    let why = if locked {
        "to match dependency lock file".to_owned()
    } else if constraints.is_empty() {
        "with no constraints".to_owned()
    } else {
        format!("to meet constraints {constraints}")
    };
    format!("- Mirrored {source}\n  - Selected v{version} {why}\n")
}

/// How a provider's signing key is trusted, with its id where Terraform
/// shows it.
fn trust(trust: Trust, key_id: Option<&str>) -> String {
    match key_id {
        Some(id) if trust.shows_key_id() => format!("{trust}, key ID {id}"),
        _ => trust.to_string(),
    }
}
