//! `tfdisco oci push-provider REPOSITORY VERSION ZIP…`: a provider release
//! published to an OCI repository in OpenTofu's layout (OCI-8), with the
//! CLI configuration's OCI credentials.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use tfdisco_runs::{BlockingRuns, ReleaseFiles};

use crate::exit;
use crate::failure::{self, Failure};
use crate::net::{self, NetOpts};

/// `tfdisco oci …`
#[derive(Subcommand, Debug)]
pub(crate) enum OciCommand {
    /// Publish a provider release to an OCI repository.
    ///
    /// As OpenTofu's `oci_mirror` reads it: each zip (named
    /// terraform-provider-TYPE_VERSION_OS_ARCH.zip, as registries name
    /// them) as the layer of its platform's manifest, the index tagged with
    /// the version, last. Blobs the repository has are not sent again.
    PushProvider(PushOpts),
}

/// `tfdisco oci push-provider …`
#[derive(Args, Debug)]
pub(crate) struct PushOpts {
    /// The repository, REGISTRY/NAME (`ghcr.io/acme/providers/aws`).
    repository: String,
    /// The version (`5.31.0`).
    #[arg(value_name = "VERSION")]
    provider_version: String,
    /// The release's zips, one per platform.
    #[arg(required = true, value_name = "ZIP")]
    zips: Vec<PathBuf>,
    /// Another repository of the same registry that may hold these zips.
    ///
    /// A release promoted from staging, say: the registry is asked to mount
    /// each blob from it before any is sent.
    #[arg(long, value_name = "REPOSITORY")]
    mount_from: Option<String>,
    /// JSON output.
    ///
    /// One object: repository, tag, index, packages (platform, digest),
    /// blobs_sent, blobs_mounted.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    net: NetOpts,
}

pub(crate) fn run(command: &OciCommand) -> Result<u8, Failure> {
    match command {
        OciCommand::PushProvider(opts) => failure::report(opts.json, push(opts)),
    }
}

fn push(opts: &PushOpts) -> Result<u8, Failure> {
    let release = ReleaseFiles::parse(
        &opts.repository,
        &opts.provider_version,
        opts.zips.iter().cloned(),
        opts.mount_from.as_deref(),
    )?;
    let zips = release.blobs()?;
    let client = net::client(&opts.net)?;
    let pushed = client.oci_push_provider(
        &release.address,
        &release.version,
        zips,
        release.mount_from.as_ref(),
    )?;
    if opts.json {
        println!("{}", failure::json_text(&pushed));
    } else {
        println!(
            "{}:{} {} ({} platforms, {} blobs sent, {} mounted)",
            pushed.address,
            pushed.tag,
            pushed.index,
            pushed.packages.len(),
            pushed.blobs_sent,
            pushed.blobs_mounted
        );
    }
    Ok(exit::SUCCESS)
}
