//! Publishing provider releases to OCI repositories: what
//! `Client.push_provider` takes (a repository, a version, the release's
//! zips, a repository to mount from), read as `tfdisco oci push-provider`
//! reads its arguments, and what it gives (`PushedRelease`, whose
//! `to_json()` is the library's one serialization, the document `tfdisco
//! oci push-provider --json` prints). `OciMirroredProvider.release` is a
//! `PushedRelease` too.

use std::path::PathBuf;

use pyo3::prelude::*;
use tfdisco_core::Error;
use tfdisco_runs::{PushedRelease, ReleaseFiles, Runs};

use crate::errors::IntoPyResult;
use crate::options::items;
use crate::record::record_class;
use crate::sources::PyPlatform;

record_class! {
    /// What pushing a provider release did (`Client.push_provider`, and each
    /// provider of an `OciMirrorReport`): the repository, the tag, the index's
    /// digest, each platform's zip digest and how many blobs were sent or
    /// mounted.
    PyPushedRelease(PushedRelease) as "PushedRelease", eq {
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

/// Reads `push_provider(repository, version, zips, *, mount_from=None)`'s
/// arguments as `tfdisco oci push-provider REPOSITORY VERSION ZIP…
/// [--mount-from REPOSITORY]` reads its own: the repository
/// (`REGISTRY/NAME`), the version, each zip's platform from its name
/// (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`, of that version), the
/// repository to mount from (the library's `ReleaseFiles::parse`). A bad
/// one is `InvalidArgument` with the CLI's message, before anything is read
/// or sent; `zips` must be a list (of `str` or `os.PathLike`), not a `str`,
/// and not empty.
pub(crate) fn push_args(
    py: Python<'_>,
    repository: &str,
    version: &str,
    zips: &Bound<'_, PyAny>,
    mount_from: Option<&str>,
) -> PyResult<ReleaseFiles> {
    let mut paths = Vec::new();
    for zip in items(zips, "zips", "paths of zips")? {
        paths.push(zip.extract::<PathBuf>()?);
    }
    ReleaseFiles::parse(repository, version, paths, mount_from).or_raise(py)
}

/// Pushes `release`: each zip read for its digest on the runtime's
/// blocking pool (`ReleaseFiles::blobs`), then
/// `oci_push_provider` over `client`.
pub(crate) async fn push(
    client: tfdisco_tokio::Client,
    release: ReleaseFiles,
) -> Result<PyPushedRelease, Error> {
    let files = release.clone();
    let read = tokio::task::spawn_blocking(move || files.blobs());
    // The reading task ends only by returning, or by a panic, passed on.
    let zips = match read.await {
        Ok(zips) => zips?,
        Err(stopped) => std::panic::resume_unwind(stopped.into_panic()),
    };
    client
        .oci_push_provider(
            &release.address,
            &release.version,
            zips,
            release.mount_from.as_ref(),
        )
        .await
        .map(PyPushedRelease)
}
