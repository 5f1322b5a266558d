//! go-getter's `checksum=` on an http(s) archive (docs/behaviour.md,
//! MOD-15): the hash read from the value or from the checksum file it
//! names (fetched through the client's one engine), and the archive's
//! bytes hashed as they stream into the unpacking sink, compared when the
//! archive is whole. The rules are the provider crate's
//! (`ArchiveChecksum`); this is their I/O.

use tfdisco_core::url::Url;
use tfdisco_core::{Contents, Sink};
use tfdisco_provider::{ArchiveChecksum, ChecksumHasher, ChecksumRequest};

use crate::{On, Transport};

/// The most bytes of a checksum file read.
const CHECKSUM_FILE_LIMIT: usize = 1 << 20;

impl<T: Transport> On<'_, T> {
    /// The hash `value` (a `checksum=`) asks the archive at `archive` to
    /// have, fetching the checksum file a `file:` value names; errors in
    /// go-getter's words (`invalid checksum: …`).
    pub(super) async fn archive_checksum(
        &self,
        value: &str,
        archive: &Url,
    ) -> Result<ArchiveChecksum, String> {
        let invalid = |e: &dyn std::fmt::Display| format!("invalid checksum: {e}");
        match ChecksumRequest::parse(value).map_err(|e| invalid(&e))? {
            ChecksumRequest::Digest(checksum) => Ok(checksum),
            ChecksumRequest::File(file) => {
                let url = Url::parse(&file)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "https" | "http"))
                    .ok_or_else(|| {
                        invalid(&format!(
                            "Error downloading checksum file: tfdisco fetches checksum files \
                             over https (and http) only, not {file:?}"
                        ))
                    })?;
                let host = super::fetch::host_of(&url)?;
                let text = self
                    .download(url.clone(), Contents::limited(CHECKSUM_FILE_LIMIT), &host)
                    .await
                    .map_err(|e| invalid(&format!("Error downloading checksum file: {e}")))?;
                ArchiveChecksum::from_checksum_file(
                    &String::from_utf8_lossy(&text),
                    archive.path(),
                    url.path(),
                )
                .map_err(|e| invalid(&e))
            }
        }
    }
}

/// A sink that hashes every byte before `inner` takes it; what it gives
/// says also whether the archive has the hash (checked after the
/// download, so that a mismatch is go-getter's words, not an invalid
/// answer).
pub(super) struct Checked<S> {
    inner: S,
    hasher: Option<ChecksumHasher>,
    /// The archive, as the mismatch names it.
    name: String,
}

impl<S> Checked<S> {
    pub(super) fn new(inner: S, checksum: Option<&ArchiveChecksum>, name: String) -> Checked<S> {
        Checked {
            inner,
            hasher: checksum.map(ArchiveChecksum::hasher),
            name,
        }
    }
}

impl<S: Sink> Sink for Checked<S> {
    type Output = (S::Output, Result<(), String>);

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if let Some(hasher) = &mut self.hasher {
            hasher.update(chunk);
        }
        self.inner.write(chunk)
    }

    fn finish(&mut self) -> Result<Self::Output, String> {
        let checked = match self.hasher.take() {
            Some(hasher) => hasher.verify(&self.name).map_err(|e| e.to_string()),
            None => Ok(()),
        };
        Ok((self.inner.finish()?, checked))
    }
}
