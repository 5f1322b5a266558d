//! A provider release pushed to an OCI repository in OpenTofu's layout
//! (OCI-8): each platform's zip and the empty config as blobs (sent only
//! when missing), each platform's image manifest by its digest, then the
//! index under the version's tag, last, so that a reader never sees half a
//! release.

use serde::Serialize;
use serde::Serializer;
use std::path::PathBuf;
use tfdisco_core::bytes::Bytes;

use tfdisco_core::{Dialect, Error, Platform, Version};
use tfdisco_oci::{Descriptor, Digest, Reference, RepositoryAddress, media_type};
use tfdisco_provider::oci_mirror::{EMPTY_CONFIG, package_manifest, release_index, tag_for};
use tfdisco_provider::package_file_platform;

use crate::On;
use crate::report_text::text;
use crate::{BlobSource, PushedBlob, Transport};
use tfdisco_transport::check_mount;

/// What pushing a release did: `{"repository", "tag", "index",
/// "packages": [{"platform", "digest"}], "blobs_sent", "blobs_mounted"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PushedRelease {
    /// The repository.
    #[serde(rename = "repository", serialize_with = "text")]
    pub address: RepositoryAddress,
    /// The tag written (the version, `+` as `_`).
    pub tag: String,
    /// The index's digest.
    pub index: Digest,
    /// Each platform's zip digest, in the order given.
    #[serde(serialize_with = "platform_digests")]
    pub packages: Vec<(Platform, Digest)>,
    /// How many blobs were sent (the others the repository had, or
    /// mounted).
    pub blobs_sent: usize,
    /// How many blobs the registry mounted from the repository named.
    pub blobs_mounted: usize,
}

/// A provider release given as files, read from a front end's arguments
/// as `tfdisco oci push-provider REPOSITORY VERSION ZIP… [--mount-from
/// REPOSITORY]` reads them (the Python and Node packages too): the
/// repository (`REGISTRY/NAME`), the version (OpenTofu's grammar), each
/// zip's platform from its name (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`,
/// of that version: `tfdisco_provider::package_file_platform`), at least
/// one zip, and the repository to mount from (of the same registry).
/// Nothing is read but the names.
///
/// ```
/// use tfdisco_runs::ReleaseFiles;
///
/// let release = ReleaseFiles::parse(
///     "ghcr.io/acme/providers/null",
///     "3.2.1",
///     ["dist/terraform-provider-null_3.2.1_linux_amd64.zip".into()],
///     None,
/// )?;
/// assert_eq!(release.zips[0].0.to_string(), "linux_amd64");
/// assert!(ReleaseFiles::parse("ghcr.io/acme/null", "3.2.0", release.paths(), None).is_err());
/// # Ok::<(), tfdisco_transport::reexports::Error>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReleaseFiles {
    /// The repository.
    pub address: RepositoryAddress,
    /// The version.
    pub version: Version,
    /// Each zip's platform (from its name) and path, in the order given.
    pub zips: Vec<(Platform, PathBuf)>,
    /// The repository of the same registry to mount blobs from.
    pub mount_from: Option<RepositoryAddress>,
}

impl ReleaseFiles {
    /// The release the arguments describe; a bad one is
    /// [`Error::InvalidArgument`](tfdisco_core::Error::InvalidArgument), with the CLI's message.
    pub fn parse(
        repository: &str,
        version: &str,
        zips: impl IntoIterator<Item = PathBuf>,
        mount_from: Option<&str>,
    ) -> Result<ReleaseFiles, Error> {
        let invalid = |message: String| Error::InvalidArgument { message };
        let address = RepositoryAddress::parse(repository).map_err(|e| invalid(e.to_string()))?;
        let version = Version::parse(version, Dialect::OpenTofu)
            .map_err(|e| invalid(format!("{version:?} is no version: {e}")))?;
        let mut checked = Vec::new();
        for path in zips {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let platform = package_file_platform(name, &version).map_err(invalid)?;
            checked.push((platform, path));
        }
        if checked.is_empty() {
            return Err(invalid(
                "give the release's zips, one per platform".to_owned(),
            ));
        }
        let mount_from = mount_from
            .map(RepositoryAddress::parse)
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        if let Some(from) = &mount_from {
            check_mount(&address, from)?;
        }
        Ok(ReleaseFiles {
            address,
            version,
            zips: checked,
            mount_from,
        })
    }

    /// The zips' paths.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.zips.iter().map(|(_, path)| path.clone()).collect()
    }

    /// Each zip as a [`BlobSource::file`](tfdisco_transport::BlobSource::file): every file read once for its
    /// digest, here (blocking: an async caller runs this on a blocking
    /// pool). A file that cannot be read is [`Error::LocalFile`](tfdisco_core::Error::LocalFile).
    pub fn blobs(&self) -> Result<Vec<(Platform, BlobSource)>, Error> {
        self.zips
            .iter()
            .map(|(platform, path)| Ok((platform.clone(), BlobSource::file(path)?)))
            .collect()
    }
}

/// A release's packages, for `#[serde(serialize_with)]`: `[{"platform",
/// "digest"}]`.
fn platform_digests<S: Serializer>(
    packages: &[(Platform, Digest)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Package<'a> {
        platform: String,
        digest: &'a Digest,
    }
    serializer.collect_seq(packages.iter().map(|(platform, digest)| Package {
        platform: platform.to_string(),
        digest,
    }))
}

impl<T: Transport> On<'_, T> {
    /// [`Runs::oci_push_provider`](crate::Runs::oci_push_provider).
    pub(crate) async fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, BlobSource)>,
        mount_from: Option<&RepositoryAddress>,
    ) -> Result<PushedRelease, Error> {
        let tag = tag_for(version).map_err(|message| Error::InvalidArgument { message })?;
        let (mut blobs_sent, mut blobs_mounted) = (0, 0);
        let mut count = |pushed: &PushedBlob| {
            blobs_sent += usize::from(pushed.sent);
            blobs_mounted += usize::from(pushed.mounted);
        };
        let config = Bytes::from_static(EMPTY_CONFIG);
        count(&self.oci_push_blob(address, config, mount_from).await?);
        let mut manifests = Vec::with_capacity(zips.len());
        let mut packages = Vec::with_capacity(zips.len());
        for (platform, zip) in zips {
            let pushed = self.oci_push_blob(address, zip, mount_from).await?;
            count(&pushed);
            let layer = Descriptor {
                media_type: media_type::ZIP.to_owned(),
                digest: pushed.digest.clone(),
                size: pushed.size,
                artifact_type: None,
                platform: None,
                annotations: Default::default(),
            };
            let manifest = package_manifest(&layer);
            let size = manifest.len() as u64;
            let digest = Digest::of(tfdisco_oci::Algorithm::Sha256, &manifest);
            self.oci_push_manifest(
                address,
                &Reference::Digest(digest.clone()),
                media_type::IMAGE_MANIFEST,
                Bytes::from(manifest),
            )
            .await?;
            manifests.push((platform.clone(), digest, size));
            packages.push((platform, pushed.digest));
        }
        let index = self
            .oci_push_manifest(
                address,
                &Reference::Tag(tag.clone()),
                media_type::IMAGE_INDEX,
                Bytes::from(release_index(&manifests)),
            )
            .await?;
        Ok(PushedRelease {
            address: address.clone(),
            tag: tag.to_string(),
            index,
            packages,
            blobs_sent,
            blobs_mounted,
        })
    }
}
