//! Publishing provider releases to OCI repositories: what
//! `client.pushProvider` takes (a repository, a version, the release's
//! zips, a repository to mount from), read as `tfdisco oci push-provider`
//! reads its arguments. What it gives is the library's `PushedRelease`
//! document (`crate::report`), what `tfdisco oci push-provider --json`
//! prints.

use std::path::PathBuf;

use napi::bindgen_prelude::spawn_blocking;
use tfdisco_runs::{ReleaseFiles, Runs};

use crate::errors::Failure;
use crate::report;

/// Reads `pushProvider(repository, version, zips, { mountFrom })` as
/// `tfdisco oci push-provider REPOSITORY VERSION ZIP… [--mount-from
/// REPOSITORY]` reads its arguments: the repository (`REGISTRY/NAME`), the
/// version, each zip's platform from its name
/// (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`, of that version), the
/// repository to mount from (the library's `ReleaseFiles::parse`). A bad
/// one is an `InvalidArgumentError` with the CLI's message, before anything
/// is read or sent; so is no zip.
pub(crate) fn push_args(
    repository: &str,
    version: &str,
    zips: Vec<String>,
    mount_from: Option<&str>,
) -> Result<ReleaseFiles, Failure> {
    Ok(ReleaseFiles::parse(
        repository,
        version,
        zips.into_iter().map(PathBuf::from),
        mount_from,
    )?)
}

/// Pushes `release`: each zip read for its digest on the runtime's
/// blocking pool (`ReleaseFiles::blobs`), then `oci_push_provider` over
/// `client`; the library's report.
pub(crate) async fn push(
    client: tfdisco_tokio::Client,
    release: ReleaseFiles,
) -> Result<String, Failure> {
    let files = release.clone();
    let read = spawn_blocking(move || files.blobs());
    let zips = match read.await {
        Ok(zips) => zips?,
        Err(e) => {
            return Err(Failure::new(
                "internal",
                format!("reading the zips stopped: {e}"),
            ));
        }
    };
    let pushed = client
        .oci_push_provider(
            &release.address,
            &release.version,
            zips,
            release.mount_from.as_ref(),
        )
        .await?;
    report::json(&pushed)
}
