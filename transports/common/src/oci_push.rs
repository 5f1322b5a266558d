//! Writing to an OCI repository over a client (OCI-8): a blob sent only
//! when the repository does not have it (`HEAD` first), in chunks of
//! `UPLOAD_CHUNK` bytes, closed with its digest; a manifest put by tag or
//! digest. Each request an `Authorized` session with a push scope.

use tfdisco_core::Error;
use tfdisco_core::bytes::Bytes;
use tfdisco_oci::{
    Access, Algorithm, Authorized, BlobExists, Digest, ManifestPut, Reference, RepositoryAddress,
    Scope, UploadChunk, UploadFinish, UploadStart, UploadStarted,
};

use crate::oci::registry_host;
use crate::{AsyncClient, BlockingClient, Transport};

/// The largest chunk of a blob one `PATCH` sends: 8 MiB.
pub const UPLOAD_CHUNK: usize = 8 * 1024 * 1024;

/// What pushing a blob did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushedBlob {
    /// The blob's digest.
    pub digest: Digest,
    /// Its size.
    pub size: u64,
    /// False when the repository had it already and nothing was sent.
    pub sent: bool,
}

impl<T: Transport> AsyncClient<T> {
    /// Whether the repository at `address` has the blob `digest`.
    pub async fn oci_blob_exists(
        &self,
        address: &RepositoryAddress,
        digest: &Digest,
    ) -> Result<bool, Error> {
        let url = blob_url(address, digest)?;
        self.push_step(address, BlobExists::new(registry_host(address)?), url)
            .await
    }

    /// Puts `blob` in the repository at `address`, unless it has it: `HEAD`,
    /// then `POST` an upload, `PATCH` it in chunks of `UPLOAD_CHUNK` bytes
    /// and `PUT` its digest, which the registry checks.
    pub async fn oci_push_blob(
        &self,
        address: &RepositoryAddress,
        blob: Bytes,
    ) -> Result<PushedBlob, Error> {
        let digest = Digest::of(Algorithm::Sha256, &blob);
        let size = blob.len() as u64;
        if self.oci_blob_exists(address, &digest).await? {
            return Ok(PushedBlob {
                digest,
                size,
                sent: false,
            });
        }
        let host = registry_host(address)?;
        let start = address
            .api_root()
            .join(&format!("{}/blobs/uploads/", address.repository()))
            .map_err(|e| invalid(address, e))?;
        let mut session = match self
            .push_step(address, UploadStart::new(host.clone()), start)
            .await?
        {
            UploadStarted::Session(url) => url,
            UploadStarted::Mounted => {
                return Ok(PushedBlob {
                    digest,
                    size,
                    sent: false,
                });
            }
        };
        let mut offset = 0;
        while offset < blob.len() {
            let end = blob.len().min(offset + UPLOAD_CHUNK);
            let chunk = UploadChunk::new(host.clone(), blob.slice(offset..end), offset as u64);
            session = self.push_step(address, chunk, session).await?;
            offset = end;
        }
        let finish = UploadFinish::url(&session, &digest);
        self.push_step(address, UploadFinish::new(host), finish)
            .await?;
        Ok(PushedBlob {
            digest,
            size,
            sent: true,
        })
    }

    /// Puts `manifest` (an index or image manifest of `media_type`) in the
    /// repository at `address` under `reference`; gives its digest.
    pub async fn oci_push_manifest(
        &self,
        address: &RepositoryAddress,
        reference: &Reference,
        media_type: &str,
        manifest: Bytes,
    ) -> Result<Digest, Error> {
        let digest = Digest::of(Algorithm::Sha256, &manifest);
        let url = address
            .api_root()
            .join(&format!("{}/manifests/{reference}", address.repository()))
            .map_err(|e| invalid(address, e))?;
        let goal = ManifestPut::new(registry_host(address)?, media_type, manifest)?;
        self.push_step(address, goal, url).await?;
        Ok(digest)
    }

    /// One write of a push, with the repository's credentials and a push
    /// scope.
    async fn push_step<G>(
        &self,
        address: &RepositoryAddress,
        goal: G,
        url: tfdisco_core::url::Url,
    ) -> Result<G::Output, Error>
    where
        G: tfdisco_core::Goal + Send,
        G::Output: Send,
    {
        let credentials = self.cache().oci_credentials(address)?;
        let scope = Scope::new(address.repository(), Access::Push);
        self.oci_run(Authorized::new(goal, url, address, scope, credentials))
            .await
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::oci_blob_exists`] for blocking code.
    pub fn oci_blob_exists(
        &self,
        address: &RepositoryAddress,
        digest: &Digest,
    ) -> Result<bool, Error> {
        self.block_on(self.as_async().oci_blob_exists(address, digest))
    }

    /// [`AsyncClient::oci_push_blob`] for blocking code.
    pub fn oci_push_blob(
        &self,
        address: &RepositoryAddress,
        blob: Bytes,
    ) -> Result<PushedBlob, Error> {
        self.block_on(self.as_async().oci_push_blob(address, blob))
    }

    /// [`AsyncClient::oci_push_manifest`] for blocking code.
    pub fn oci_push_manifest(
        &self,
        address: &RepositoryAddress,
        reference: &Reference,
        media_type: &str,
        manifest: Bytes,
    ) -> Result<Digest, Error> {
        self.block_on(
            self.as_async()
                .oci_push_manifest(address, reference, media_type, manifest),
        )
    }
}

fn blob_url(address: &RepositoryAddress, digest: &Digest) -> Result<tfdisco_core::url::Url, Error> {
    address
        .api_root()
        .join(&format!("{}/blobs/{digest}", address.repository()))
        .map_err(|e| invalid(address, e))
}

fn invalid(address: &RepositoryAddress, e: impl std::fmt::Display) -> Error {
    Error::InvalidArgument {
        message: format!("the OCI repository {address}: {e}"),
    }
}
