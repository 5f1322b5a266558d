//! A provider release pushed to an OCI repository in OpenTofu's layout
//! (OCI-8): each platform's zip and the empty config as blobs (sent only
//! when missing), each platform's image manifest by its digest, then the
//! index under the version's tag, last, so that a reader never sees half a
//! release.

use tfdisco_core::bytes::Bytes;
use tfdisco_core::{Error, Platform, Version};
use tfdisco_oci::{Descriptor, Digest, Reference, RepositoryAddress, media_type};
use tfdisco_provider::oci_mirror::{EMPTY_CONFIG, package_manifest, release_index, tag_for};

use crate::{AsyncClient, BlockingClient, Transport};

/// What pushing a release did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushedRelease {
    /// The repository.
    pub address: RepositoryAddress,
    /// The tag written (the version, `+` as `_`).
    pub tag: String,
    /// The index's digest.
    pub index: Digest,
    /// Each platform's zip digest, in the order given.
    pub packages: Vec<(Platform, Digest)>,
    /// How many blobs were sent (the others the repository had).
    pub blobs_sent: usize,
}

impl<T: Transport> AsyncClient<T> {
    /// Pushes a provider release, `version` for each platform's zip, to
    /// the repository at `address`, in OpenTofu's layout (OCI-8).
    pub async fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, Bytes)>,
    ) -> Result<PushedRelease, Error> {
        let tag = tag_for(version).map_err(|message| Error::InvalidArgument { message })?;
        let mut blobs_sent = 0;
        let config = self
            .oci_push_blob(address, Bytes::from_static(EMPTY_CONFIG))
            .await?;
        blobs_sent += usize::from(config.sent);
        let mut manifests = Vec::with_capacity(zips.len());
        let mut packages = Vec::with_capacity(zips.len());
        for (platform, zip) in zips {
            let pushed = self.oci_push_blob(address, zip).await?;
            blobs_sent += usize::from(pushed.sent);
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
        })
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::oci_push_provider`] for blocking code.
    pub fn oci_push_provider(
        &self,
        address: &RepositoryAddress,
        version: &Version,
        zips: Vec<(Platform, Bytes)>,
    ) -> Result<PushedRelease, Error> {
        self.block_on(self.as_async().oci_push_provider(address, version, zips))
    }
}
