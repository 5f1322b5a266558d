//! Writing to an OCI repository over a client (OCI-8): a blob sent only
//! when the repository does not have it (`HEAD` first), mounted from
//! another repository of the registry when asked, else in chunks of
//! `UPLOAD_CHUNK` bytes, closed with its digest; a manifest put by tag or
//! digest. Each request an `Authorized` session with a push scope.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use tfdisco_core::Error;
use tfdisco_core::bytes::Bytes;
use tfdisco_oci::{
    Access, Algorithm, BlobExistsRequest, Digest, ManifestPutRequest, Reference, RepositoryAddress,
    Scope, UploadChunkRequest, UploadFinishRequest, UploadStartRequest, UploadStarted,
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
    /// False when the repository had it already, or mounted it, and
    /// nothing was sent.
    pub sent: bool,
    /// True when the registry mounted it from the repository named.
    pub mounted: bool,
}

/// A blob to push: bytes in memory, or a file read a chunk at a time as
/// it is sent (at most [`UPLOAD_CHUNK`] bytes of it held at once).
///
/// ```no_run
/// use tfdisco_transport::BlobSource;
/// use tfdisco_transport::reexports::tfdisco_core::bytes::Bytes;
///
/// let config = BlobSource::from(Bytes::from_static(b"{}"));
/// let zip = BlobSource::file("terraform-provider-acme_1.0.0_linux_amd64.zip")?;
/// assert!(zip.size() > config.size());
/// # Ok::<(), tfdisco_transport::reexports::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BlobSource {
    content: Content,
    digest: Digest,
    size: u64,
}

#[derive(Clone, Debug)]
enum Content {
    Bytes(Bytes),
    File(PathBuf),
}

impl BlobSource {
    /// The file at `path`, read once now for its digest and size.
    pub fn file(path: impl Into<PathBuf>) -> Result<BlobSource, Error> {
        let path = path.into();
        let (digest, size) = File::open(&path)
            .and_then(|file| Digest::of_reader(Algorithm::Sha256, file))
            .map_err(|e| Error::local_file(&path, e))?;
        Ok(BlobSource {
            content: Content::File(path),
            digest,
            size,
        })
    }

    /// The file at `path`, whose digest and size are known already (a
    /// package verified as it was downloaded): not read until it is sent.
    /// The registry checks the digest when the upload closes.
    pub fn verified_file(path: impl Into<PathBuf>, digest: Digest, size: u64) -> BlobSource {
        BlobSource {
            content: Content::File(path.into()),
            digest,
            size,
        }
    }

    /// The blob's digest.
    pub fn digest(&self) -> &Digest {
        &self.digest
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Its chunks, in order.
    fn chunks(&self) -> Result<Chunks<'_>, Error> {
        Ok(match &self.content {
            Content::Bytes(bytes) => Chunks::Bytes(bytes.clone()),
            Content::File(path) => Chunks::File {
                path,
                file: File::open(path).map_err(|e| Error::local_file(path, e))?,
                left: self.size,
            },
        })
    }
}

impl From<Bytes> for BlobSource {
    fn from(bytes: Bytes) -> BlobSource {
        BlobSource {
            digest: Digest::of(Algorithm::Sha256, &bytes),
            size: bytes.len() as u64,
            content: Content::Bytes(bytes),
        }
    }
}

/// A blob's chunks as they are sent.
enum Chunks<'a> {
    Bytes(Bytes),
    File {
        path: &'a Path,
        file: File,
        left: u64,
    },
}

impl Chunks<'_> {
    /// The next chunk of at most [`UPLOAD_CHUNK`] bytes; none at the end.
    fn next(&mut self) -> Result<Option<Bytes>, Error> {
        match self {
            Chunks::Bytes(bytes) if bytes.is_empty() => Ok(None),
            Chunks::Bytes(bytes) => Ok(Some(bytes.split_to(bytes.len().min(UPLOAD_CHUNK)))),
            Chunks::File { left: 0, .. } => Ok(None),
            Chunks::File { path, file, left } => {
                let len = usize::try_from(*left).map_or(UPLOAD_CHUNK, |l| l.min(UPLOAD_CHUNK));
                let mut chunk = vec![0; len];
                file.read_exact(&mut chunk).map_err(|e| {
                    let problem = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        "the file got shorter after its digest was taken".to_owned()
                    } else {
                        e.to_string()
                    };
                    Error::LocalFile {
                        path: path.to_path_buf(),
                        problem,
                    }
                })?;
                *left -= len as u64;
                Ok(Some(Bytes::from(chunk)))
            }
        }
    }
}

impl<T: Transport> AsyncClient<T> {
    /// Whether the repository at `address` has the blob `digest`.
    pub async fn oci_blob_exists(
        &self,
        address: &RepositoryAddress,
        digest: &Digest,
    ) -> Result<bool, Error> {
        let url = address.blob_url(digest);
        self.push_step(
            address,
            BlobExistsRequest::new(registry_host(address)?),
            url,
        )
        .await
    }

    /// Puts `blob` (bytes, or a `BlobSource::file`) in the repository at
    /// `address`, unless it has it: `HEAD`, then `POST` an upload, `PATCH`
    /// it in chunks of `UPLOAD_CHUNK` bytes and `PUT` its digest, which
    /// the registry checks. A file is read a chunk at a time, on the
    /// calling task, as the chunks go.
    ///
    /// With `mount_from`, another repository of the same registry that may
    /// have the blob, the upload first asks the registry to mount it from
    /// there (`?mount=&from=`, with a token scope that may pull from it):
    /// nothing is sent when it does; a registry that cannot answers with an
    /// ordinary upload.
    pub async fn oci_push_blob(
        &self,
        address: &RepositoryAddress,
        blob: impl Into<BlobSource>,
        mount_from: Option<&RepositoryAddress>,
    ) -> Result<PushedBlob, Error> {
        if let Some(from) = mount_from {
            check_mount(address, from)?;
        }
        let blob = blob.into();
        let pushed = |sent, mounted| PushedBlob {
            digest: blob.digest.clone(),
            size: blob.size,
            sent,
            mounted,
        };
        if self.oci_blob_exists(address, &blob.digest).await? {
            return Ok(pushed(false, false));
        }
        let host = registry_host(address)?;
        let started = match mount_from {
            Some(from) => {
                let url = address.mount_url(&blob.digest, from);
                let scope = Scope::mount(address.repository(), from.repository());
                self.oci_request(address, UploadStartRequest::new(host.clone()), url, scope)
                    .await?
            }
            None => {
                self.push_step(
                    address,
                    UploadStartRequest::new(host.clone()),
                    address.upload_url(),
                )
                .await?
            }
        };
        let mut session = match started {
            UploadStarted::Session(url) => url,
            UploadStarted::Mounted => return Ok(pushed(false, true)),
        };
        let mut chunks = blob.chunks()?;
        let mut offset = 0;
        while let Some(chunk) = chunks.next()? {
            let len = chunk.len() as u64;
            let goal = UploadChunkRequest::new(host.clone(), chunk, offset);
            session = self.push_step(address, goal, session).await?;
            offset += len;
        }
        let finish = UploadFinishRequest::url(&session, &blob.digest);
        self.push_step(address, UploadFinishRequest::new(host), finish)
            .await?;
        Ok(pushed(true, false))
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
        let url = address.manifest_url(reference);
        let goal = ManifestPutRequest::new(registry_host(address)?, media_type, manifest)?;
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
        let scope = Scope::new(address.repository(), Access::Push);
        self.oci_request(address, goal, url, scope).await
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::oci_blob_exists`] for blocking code.
    pub fn oci_blob_exists(
        &self,
        address: &RepositoryAddress,
        digest: &Digest,
    ) -> Result<bool, Error> {
        self.wait(self.as_async().oci_blob_exists(address, digest))
    }

    /// [`AsyncClient::oci_push_blob`] for blocking code.
    pub fn oci_push_blob(
        &self,
        address: &RepositoryAddress,
        blob: impl Into<BlobSource>,
        mount_from: Option<&RepositoryAddress>,
    ) -> Result<PushedBlob, Error> {
        self.wait(self.as_async().oci_push_blob(address, blob, mount_from))
    }

    /// [`AsyncClient::oci_push_manifest`] for blocking code.
    pub fn oci_push_manifest(
        &self,
        address: &RepositoryAddress,
        reference: &Reference,
        media_type: &str,
        manifest: Bytes,
    ) -> Result<Digest, Error> {
        self.wait(
            self.as_async()
                .oci_push_manifest(address, reference, media_type, manifest),
        )
    }
}

/// A mount into `address` may come only from a repository of its registry.
pub fn check_mount(address: &RepositoryAddress, from: &RepositoryAddress) -> Result<(), Error> {
    if from.registry() == address.registry() {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        message: format!(
            "a blob can only be mounted from a repository of the same registry: {from} is not \
             on {}",
            address.registry()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_chunks(blob: &BlobSource) -> Result<Vec<Bytes>, Error> {
        let mut chunks = blob.chunks()?;
        let mut all = Vec::new();
        while let Some(chunk) = chunks.next()? {
            all.push(chunk);
        }
        Ok(all)
    }

    #[test]
    fn a_file_is_read_a_chunk_at_a_time_as_bytes_are_split() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("blob");
        let bytes: Vec<u8> = (0..UPLOAD_CHUNK * 2 + 3).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).expect("a file");
        let file = BlobSource::file(&path).expect("readable");
        let memory = BlobSource::from(Bytes::from(bytes.clone()));
        assert_eq!(file.digest(), memory.digest());
        assert_eq!(
            (file.size(), memory.size()),
            (bytes.len() as u64, bytes.len() as u64)
        );
        for blob in [&file, &memory] {
            let chunks = all_chunks(blob).expect("chunks");
            let sizes: Vec<usize> = chunks.iter().map(Bytes::len).collect();
            assert_eq!(sizes, [UPLOAD_CHUNK, UPLOAD_CHUNK, 3]);
            assert_eq!(chunks.concat(), bytes);
        }
        // An empty blob has no chunk: the upload is closed at once.
        let empty = BlobSource::from(Bytes::new());
        assert!(all_chunks(&empty).expect("chunks").is_empty());
    }

    #[test]
    fn a_file_that_changes_after_its_digest_is_a_local_file_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("blob");
        std::fs::write(&path, b"0123456789").expect("a file");
        let blob = BlobSource::file(&path).expect("readable");
        std::fs::write(&path, b"01234").expect("shorter");
        let err = all_chunks(&blob).expect_err("shorter");
        assert!(
            matches!(&err, Error::LocalFile { problem, .. } if problem.contains("got shorter")),
            "{err}"
        );
        std::fs::remove_file(&path).expect("removed");
        let err = all_chunks(&blob).expect_err("gone");
        assert!(matches!(err, Error::LocalFile { .. }), "{err}");
        assert!(matches!(
            BlobSource::file(dir.path().join("none")),
            Err(Error::LocalFile { .. })
        ));
    }
}
