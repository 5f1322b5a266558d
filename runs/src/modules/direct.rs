//! OpenTofu's direct module packages (docs/behaviour.md, MOD-4): a
//! registry's download answer with `use_registry_credentials` names a
//! plain http(s) URL, which is downloaded through the one engine (with the
//! registry host's credentials when the flag is `true`, over https only)
//! and unpacked as it streams, its format told by its first bytes as
//! OpenTofu sniffs it (`ArchiveFormat::sniff`): a zip, or a tar archive in
//! gzip, xz or bzip2.

use std::fs;
use std::path::{Path, PathBuf};

use tfdisco_config::{Staged, StagedPackage};
use tfdisco_core::url::Url;
use tfdisco_core::{Hostname, Sink};
use tfdisco_provider::ArchiveFormat;

use super::fetch::placed_h1;
use super::peek::{Peek, Peeking, WritesFiles};
use crate::{On, Transport};

/// OpenTofu's words for a package that is none of the formats.
const NOT_AN_ARCHIVE: &str = "extracting package archive: module package is not zip archive, \
                              or tar archive with gz, xz, or bzip2 compression";

/// A registry's direct package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DirectPackage {
    /// The package's URL, resolved against the download request's.
    pub(crate) url: String,
    /// The registry that named it (whose credentials may go with it).
    pub(crate) registry: Hostname,
    /// Whether the registry's credentials go with the download.
    pub(crate) credentials: bool,
}

impl<T: Transport> On<'_, T> {
    /// Downloads `direct` into `into` (a new folder), unpacking it as it
    /// streams; the `h1:` of its files.
    pub(super) async fn fetch_direct_package(
        &self,
        direct: &DirectPackage,
        into: &Path,
        peek: Option<&Peek<'_>>,
    ) -> Result<String, String> {
        let url = Url::parse(&direct.url).map_err(|e| format!("{}: {e}", direct.url))?;
        fs::create_dir(into).map_err(|e| format!("{}: {e}", into.display()))?;
        let sink = Sniffing {
            into: into.to_owned(),
            start: Vec::new(),
            staged: None,
            keep_written: peek.is_some(),
        };
        let sink = Peeking::new(sink, into.to_owned(), peek);
        let staged = if direct.credentials {
            self.download_with_credentials(url.clone(), sink, &direct.registry)
                .await
        } else {
            self.download(url.clone(), sink, &direct.registry).await
        }
        .map_err(|e| e.to_string())?;
        placed_h1(&staged, &url, into)
    }
}

/// The unpacking sink of a package whose format its first bytes tell.
struct Sniffing {
    into: PathBuf,
    /// The first bytes, until they tell the format.
    start: Vec<u8>,
    staged: Option<StagedPackage>,
    /// Whether the files written whole are kept, for a [`Peek`].
    keep_written: bool,
}

impl Sniffing {
    /// The format told: the sink for it, given the bytes held so far.
    fn begin(&mut self) -> Result<&mut StagedPackage, String> {
        let format = ArchiveFormat::sniff(&self.start).ok_or(NOT_AN_ARCHIVE)?;
        let mut staged = StagedPackage::with_format(self.into.clone(), self.into.clone(), format)
            .map_err(|e| e.to_string())?;
        if self.keep_written {
            staged = staged.keeping_written();
        }
        staged.write(&std::mem::take(&mut self.start))?;
        Ok(self.staged.insert(staged))
    }
}

impl WritesFiles for Sniffing {
    fn take_written(&mut self) -> Vec<String> {
        self.staged
            .as_mut()
            .map_or_else(Vec::new, StagedPackage::take_written)
    }
}

impl Sink for Sniffing {
    type Output = Staged;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if let Some(staged) = &mut self.staged {
            return staged.write(chunk);
        }
        self.start.extend_from_slice(chunk);
        if self.start.len() >= ArchiveFormat::SNIFF_LEN {
            self.begin()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Staged, String> {
        match self.staged.take() {
            Some(mut staged) => staged.finish(),
            None => self.begin()?.finish(),
        }
    }
}
