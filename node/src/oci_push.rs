//! Publishing provider releases to OCI repositories: what
//! `client.pushProvider` takes (a repository, a version, the release's
//! zips, a repository to mount from), read as `tfdisco oci push-provider`
//! reads its arguments. What it gives is the library's `PushedRelease`
//! document (`crate::report`), what `tfdisco oci push-provider --json`
//! prints.

use std::path::PathBuf;

use napi::bindgen_prelude::spawn_blocking;
use tfdisco_core::{Dialect, Error, Platform, Version};
use tfdisco_provider::package_file_platform;
use tfdisco_transport::BlobSource;
use tfdisco_transport::reexports::tfdisco_oci::RepositoryAddress;

use crate::errors::Failure;
use crate::report;

/// `pushProvider`'s arguments, checked: nothing read yet but the names.
pub(crate) struct PushArgs {
    address: RepositoryAddress,
    version: Version,
    /// Each zip's platform (from its name) and path.
    zips: Vec<(Platform, PathBuf)>,
    mount_from: Option<RepositoryAddress>,
}

/// Reads `pushProvider(repository, version, zips, { mountFrom })` as
/// `tfdisco oci push-provider REPOSITORY VERSION ZIP… [--mount-from
/// REPOSITORY]` reads its arguments: the repository (`REGISTRY/NAME`), the
/// version, each zip's platform from its name
/// (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`, of that version), the
/// repository to mount from. A bad one is an `InvalidArgumentError` with
/// the CLI's message, before anything is read or sent; so is no zip.
pub(crate) fn push_args(
    repository: &str,
    version: &str,
    zips: Vec<String>,
    mount_from: Option<&str>,
) -> Result<PushArgs, Failure> {
    let invalid = |message: String| Failure::from(Error::InvalidArgument { message });
    let address = RepositoryAddress::parse(repository).map_err(|e| invalid(e.to_string()))?;
    let version = Version::parse(version, Dialect::OpenTofu)
        .map_err(|e| invalid(format!("{version:?} is no version: {e}")))?;
    let mut checked = Vec::with_capacity(zips.len());
    for path in zips.into_iter().map(PathBuf::from) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let platform = package_file_platform(name, &version).map_err(invalid)?;
        checked.push((platform, path));
    }
    if checked.is_empty() {
        return Err(invalid(
            "pushProvider: give the release's zips, one per platform".to_owned(),
        ));
    }
    let mount_from = mount_from
        .map(RepositoryAddress::parse)
        .transpose()
        .map_err(|e| invalid(e.to_string()))?;
    Ok(PushArgs {
        address,
        version,
        zips: checked,
        mount_from,
    })
}

/// Pushes the release `args` describes: each zip read for its digest on
/// the runtime's blocking pool (`BlobSource::file`), then
/// `oci_push_provider` over `client`; the library's report.
pub(crate) async fn push(client: tfdisco_tokio::Client, args: PushArgs) -> Result<String, Failure> {
    let PushArgs {
        address,
        version,
        zips,
        mount_from,
    } = args;
    let read = spawn_blocking(move || {
        zips.into_iter()
            .map(|(platform, path)| Ok((platform, BlobSource::file(path)?)))
            .collect::<Result<Vec<_>, Error>>()
    });
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
        .oci_push_provider(&address, &version, zips, mount_from.as_ref())
        .await?;
    report::json(&pushed)
}
