//! Publishing provider releases to OCI repositories (issue 27): what
//! `Client.push_provider` takes (a repository, a version, the release's
//! zips, a repository to mount from), read as `tfdisco oci push-provider`
//! reads its arguments, and what it gives (`PushedRelease`, whose
//! `to_json()` is the library's one serialization, the document `tfdisco
//! oci push-provider --json` prints). `OciMirroredProvider.release` is a
//! `PushedRelease` too.

use std::path::PathBuf;

use pyo3::prelude::*;
use tfdisco_core::{Dialect, Error, Platform, Version};
use tfdisco_provider::package_file_platform;
use tfdisco_transport::reexports::tfdisco_oci::RepositoryAddress;
use tfdisco_transport::{BlobSource, PushedRelease};

use crate::errors::IntoPyResult;
use crate::lock::items;
use crate::record::record_methods;
use crate::sources::PyPlatform;

/// What pushing a provider release did (`Client.push_provider`, and each
/// provider of an `OciMirrorReport`): the repository, the tag, the index's
/// digest, each platform's zip digest and how many blobs were sent or
/// mounted.
#[pyo3::pyclass(frozen, eq, module = "tfdisco", name = "PushedRelease")]
#[derive(PartialEq)]
pub(crate) struct PyPushedRelease(pub(crate) PushedRelease);

record_methods! {
    PyPushedRelease as "PushedRelease" {
        /// The repository, `REGISTRY/NAME` (`ghcr.io/acme/providers/aws`).
        repository => |r| r.address.to_string(),
        /// The tag written: the version, its `+` as `_`.
        tag => |r| r.tag.as_str(),
        /// The digest of the release's index (`sha256:…`), the manifest the
        /// tag names.
        index => |r| r.index.to_string(),
        /// Each platform's zip digest, in the order given: `(Platform,
        /// "sha256:…")` tuples.
        packages => |r| r
            .packages
            .iter()
            .map(|(platform, digest)| (PyPlatform(platform.clone()), digest.to_string()))
            .collect::<Vec<_>>(),
        /// How many blobs were sent (the others the repository had, or
        /// the registry mounted).
        blobs_sent => |r| r.blobs_sent,
        /// How many blobs the registry mounted from `mount_from`.
        blobs_mounted => |r| r.blobs_mounted,
    }

    /// The report as one JSON document, the one `tfdisco oci push-provider
    /// --json` prints and the Node package's `JSON.stringify` gives (a
    /// `str`): `repository`, `tag`, `index`, `packages` (`platform`,
    /// `digest`), `blobs_sent`, `blobs_mounted`.
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

/// `push_provider`'s arguments, checked: nothing read yet but the names.
pub(crate) struct PushArgs {
    address: RepositoryAddress,
    version: Version,
    /// Each zip's platform (from its name) and path.
    zips: Vec<(Platform, PathBuf)>,
    mount_from: Option<RepositoryAddress>,
}

/// Reads `push_provider(repository, version, zips, *, mount_from=None)`'s
/// arguments as `tfdisco oci push-provider REPOSITORY VERSION ZIP…
/// [--mount-from REPOSITORY]` reads its own: the repository
/// (`REGISTRY/NAME`), the version, each zip's platform from its name
/// (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`, of that version), the
/// repository to mount from. A bad one is `InvalidArgument` with the CLI's
/// message, before anything is read or sent; `zips` must be a list (of
/// `str` or `os.PathLike`), not a `str`, and not empty.
pub(crate) fn push_args(
    py: Python<'_>,
    repository: &str,
    version: &str,
    zips: &Bound<'_, PyAny>,
    mount_from: Option<&str>,
) -> PyResult<PushArgs> {
    let invalid = |message: String| Err(Error::InvalidArgument { message }).or_raise(py);
    let address = match RepositoryAddress::parse(repository) {
        Ok(address) => address,
        Err(e) => return invalid(e.to_string()),
    };
    let version = match Version::parse(version, Dialect::OpenTofu) {
        Ok(version) => version,
        Err(e) => return invalid(format!("{version:?} is no version: {e}")),
    };
    let mut checked = Vec::new();
    for zip in items(zips, "zips", "paths of zips")? {
        let path: PathBuf = zip.extract()?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match package_file_platform(name, &version) {
            Ok(platform) => checked.push((platform, path)),
            Err(message) => return invalid(message),
        }
    }
    if checked.is_empty() {
        return invalid("push_provider: give the release's zips, one per platform".to_owned());
    }
    let mount_from = match mount_from.map(RepositoryAddress::parse).transpose() {
        Ok(mount_from) => mount_from,
        Err(e) => return invalid(e.to_string()),
    };
    Ok(PushArgs {
        address,
        version,
        zips: checked,
        mount_from,
    })
}

/// Pushes the release `args` describes: each zip read for its digest on
/// the runtime's blocking pool (`BlobSource::file`), then
/// `oci_push_provider` over `client`.
pub(crate) async fn push(
    client: tfdisco_tokio::Client,
    args: PushArgs,
) -> Result<PyPushedRelease, Error> {
    let PushArgs {
        address,
        version,
        zips,
        mount_from,
    } = args;
    let read = tokio::task::spawn_blocking(move || {
        zips.into_iter()
            .map(|(platform, path)| Ok((platform, BlobSource::file(path)?)))
            .collect::<Result<Vec<_>, Error>>()
    });
    // The reading task ends only by returning, or by a panic, passed on.
    let zips = match read.await {
        Ok(zips) => zips?,
        Err(stopped) => std::panic::resume_unwind(stopped.into_panic()),
    };
    client
        .oci_push_provider(&address, &version, zips, mount_from.as_ref())
        .await
        .map(PyPushedRelease)
}
