//! An `oci://` module package in the shared module cache (docs/behaviour.md,
//! MOD-13): the entry holds the manifest as fetched (`manifest`,
//! `media-type`) and the package's blob (`blob`), never the unpacked files,
//! so that an entry is checked against what identifies the package, the
//! manifest's digest the module lock records: the manifest's bytes must
//! have that digest, the blob the digest and size of the layer that
//! manifest names, both computed here; then the blob is unpacked as a
//! download is.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use tfdisco_config::{Staged, StagedPackage};
use tfdisco_core::Sink;
use tfdisco_oci::module::OciModuleSource;
use tfdisco_oci::{Digest, FetchedManifest, Verifier};

use super::{DownloadedModule, Staging, check_destination, resolved_from, unpacked_module};

/// The entry's files.
const MANIFEST: &str = "manifest";
const MEDIA_TYPE: &str = "media-type";
const BLOB: &str = "blob";

/// A blob's sink that also writes every byte into a cache entry's `blob`
/// (when there is one to fill).
pub(super) struct Kept {
    inner: StagedPackage,
    blob: Option<BufWriter<File>>,
}

impl Kept {
    /// `inner`, and with `keep` the manifest written into that folder and
    /// its `blob` made for the bytes to come.
    pub(super) fn new(
        inner: StagedPackage,
        keep: Option<&Path>,
        fetched: &FetchedManifest,
    ) -> io::Result<Kept> {
        let blob = match keep {
            Some(dir) => {
                fs::write(dir.join(MANIFEST), &fetched.bytes)?;
                fs::write(dir.join(MEDIA_TYPE), &fetched.media_type)?;
                Some(BufWriter::new(File::create_new(dir.join(BLOB))?))
            }
            None => None,
        };
        Ok(Kept { inner, blob })
    }
}

impl Sink for Kept {
    type Output = Staged;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if let Some(blob) = &mut self.blob
            && blob.write_all(chunk).is_err()
        {
            // The run goes on without the cache.
            self.blob = None;
        }
        self.inner.write(chunk)
    }

    fn finish(&mut self) -> Result<Staged, String> {
        if let Some(blob) = self.blob.take() {
            let _ = blob.into_inner().map(|file| file.sync_all());
        }
        self.inner.finish()
    }
}

/// The package `source` names from the cache entry `entry`, unpacked into
/// `into` (absent or empty), when the entry's manifest has the digest
/// `expected` and its blob is the layer that manifest names; why not
/// otherwise (the caller then fetches it).
pub(crate) fn oci_module_from_cache(
    entry: &Path,
    expected: &str,
    source: &OciModuleSource,
    into: &Path,
) -> Result<DownloadedModule, String> {
    let expected: Digest = expected.parse().map_err(|e| format!("{expected}: {e}"))?;
    let bytes = fs::read(entry.join(MANIFEST)).map_err(|e| e.to_string())?;
    let digest = Digest::of(expected.algorithm(), &bytes);
    if digest != expected {
        return Err(format!("the cached manifest is {digest}, not {expected}"));
    }
    let media_type = fs::read_to_string(entry.join(MEDIA_TYPE)).map_err(|e| e.to_string())?;
    let fetched = FetchedManifest {
        media_type,
        digest,
        bytes,
    };
    let resolved = resolved_from(source, &fetched)?;
    check_destination(into).map_err(|e| e.to_string())?;
    let staging = Staging::make(into).map_err(|e| e.to_string())?;
    let mut sink = StagedPackage::new(staging.path.clone(), into.to_owned());
    let mut verifier = Verifier::new(resolved.layer.digest.clone(), resolved.layer.size);
    let mut blob = File::open(entry.join(BLOB)).map_err(|e| e.to_string())?;
    let mut chunk = vec![0; 64 << 10];
    loop {
        let n = blob.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        verifier.update(&chunk[..n]).map_err(|e| e.to_string())?;
        sink.write(&chunk[..n])?;
    }
    verifier.finish().map_err(|e| e.to_string())?;
    let staged = sink.finish()?;
    let blob_url = resolved.address.blob_url(&resolved.layer.digest);
    unpacked_module(&staged, staging, into, resolved, blob_url).map_err(|e| e.to_string())
}
