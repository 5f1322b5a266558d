//! OpenTofu's `oci://` module sources over a client (docs/behaviour.md,
//! OCIMOD-4 to OCIMOD-8): the manifest a tag or digest selects, checked by
//! `tfdisco_oci::module`'s rules, its digest (what a source is pinned to),
//! and the package's zip layer streamed through the blob goal (its size
//! and digest checked) into the unpacker, which writes a staging folder
//! beside the destination; the folder takes the destination's name only
//! once the whole package is read, verified and unpacked.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use tfdisco_config::{Staged, StagedPackage};
use tfdisco_core::{Dialect, Error, ErrorKind, RegistryCall};
use tfdisco_oci::module::{MANIFEST_ACCEPT, OciModuleSource, not_found, package_layer};
use tfdisco_oci::{Descriptor, Digest, FetchedManifest, Reference, RepositoryAddress};

use crate::On;
use crate::Transport;

mod cached;

use cached::Kept;
pub(crate) use cached::oci_module_from_cache;

/// What a module source's tag or digest selects (OCIMOD-4 to OCIMOD-6):
/// the manifest, checked, and the layer that is the package.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResolvedModule {
    /// The source resolved.
    pub source: OciModuleSource,
    /// Its registry and repository.
    pub address: RepositoryAddress,
    /// The tag or digest it names (`latest` when it names neither).
    pub reference: Reference,
    /// The manifest's digest: for a tag, what the tag names now.
    pub digest: Digest,
    /// The manifest's media type (`application/vnd.oci.image.manifest.v1+json`).
    pub media_type: String,
    /// The manifest's size in bytes.
    pub size: u64,
    /// The package: the manifest's `archive/zip` layer.
    pub layer: Descriptor,
}

impl ResolvedModule {
    /// The source pinned to the manifest's digest:
    /// `oci://REGISTRY/REPOSITORY[//SUBDIR]?digest=DIGEST`.
    pub fn pinned(&self) -> String {
        self.source.pinned(&self.digest)
    }
}

/// A module package downloaded, verified and unpacked (OCIMOD-7, OCIMOD-8).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DownloadedModule {
    /// What the source selected.
    pub resolved: ResolvedModule,
    /// The package's folder: the destination given.
    pub path: PathBuf,
    /// The module's folder: the package's folder, or the source's
    /// `//subdir` in it.
    pub module_dir: PathBuf,
    /// How many files the package has.
    pub files: usize,
    /// How many bytes they hold together.
    pub bytes: u64,
}

/// An `oci://` module source as the front ends take it (`tfdisco module
/// resolve SOURCE`, the packages' `module_resolve` / `moduleResolve`):
/// read as OpenTofu reads it (OCIMOD-1 to OCIMOD-3). `oci://` is
/// OpenTofu's alone: in [`Dialect::Terraform`](tfdisco_core::Dialect::Terraform) it is refused. Either
/// refusal is [`Error::InvalidArgument`](tfdisco_core::Error::InvalidArgument), before anything is asked.
///
/// ```
/// use tfdisco_core::{Dialect, ErrorKind};
/// use tfdisco_runs::oci_module_source;
///
/// let source = oci_module_source("oci://ghcr.io/acme/vpc?tag=1.2.0", Dialect::OpenTofu)?;
/// assert_eq!(source.address().repository(), "acme/vpc");
/// let refused = oci_module_source("oci://ghcr.io/acme/vpc", Dialect::Terraform).unwrap_err();
/// assert_eq!(refused.kind(), ErrorKind::InvalidArgument);
/// # Ok::<(), tfdisco_core::Error>(())
/// ```
pub fn oci_module_source(given: &str, dialect: Dialect) -> Result<OciModuleSource, Error> {
    if dialect == Dialect::Terraform {
        return Err(Error::InvalidArgument {
            message: format!(
                "{given}: oci:// module sources are OpenTofu's only: Terraform has no OCI \
                 getter (its init says \"download not supported for scheme 'oci'\"); use \
                 the opentofu dialect"
            ),
        });
    }
    OciModuleSource::parse(given).map_err(|e| Error::InvalidArgument {
        message: format!("invalid OCI module source {given}: {e}"),
    })
}

/// The package layer of a resolved module: `{"media_type", "digest",
/// "size"}`.
#[derive(Serialize)]
struct PackageLayer<'a> {
    media_type: &'a str,
    digest: String,
    size: u64,
}

/// The members of a [`ResolvedModule`]'s document, which a
/// [`DownloadedModule`]'s starts with.
const RESOLVED_FIELDS: usize = 11;

/// Writes the members of `resolved`'s document into `map`.
fn resolved_fields<M: SerializeStruct>(
    map: &mut M,
    resolved: &ResolvedModule,
) -> Result<(), M::Error> {
    let source = &resolved.source;
    let tag = match &resolved.reference {
        Reference::Tag(tag) => Some(tag.as_str()),
        Reference::Digest(_) => None,
    };
    map.serialize_field("source", source.given())?;
    map.serialize_field("address", &source.to_string())?;
    map.serialize_field("registry", resolved.address.registry())?;
    map.serialize_field("repository", resolved.address.repository())?;
    map.serialize_field("tag", &tag)?;
    map.serialize_field("digest", &resolved.digest.to_string())?;
    map.serialize_field("media_type", &resolved.media_type)?;
    map.serialize_field("size", &resolved.size)?;
    map.serialize_field("subdir", source.subdir())?;
    map.serialize_field("pinned", &resolved.pinned())?;
    map.serialize_field(
        "package",
        &PackageLayer {
            media_type: &resolved.layer.media_type,
            digest: resolved.layer.digest.to_string(),
            size: resolved.layer.size,
        },
    )
}

/// The one JSON document of a resolved module, the one `tfdisco module
/// resolve --json` prints and the language packages return: `{"source"
/// (as given), "address" (the source, normalized), "registry",
/// "repository", "tag" (null for a digest), "digest" (the manifest's),
/// "media_type", "size", "subdir", "pinned", "package": {"media_type",
/// "digest", "size"}}`.
impl Serialize for ResolvedModule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("ResolvedModule", RESOLVED_FIELDS)?;
        resolved_fields(&mut map, self)?;
        map.end()
    }
}

/// The one JSON document of a downloaded module, the one `tfdisco module
/// download SOURCE --into DIR --json` prints and the language packages
/// return: the [`ResolvedModule`]'s members, then `"into"` (the package's
/// folder), `"module_dir"`, `"files"` and `"bytes"`.
impl Serialize for DownloadedModule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("DownloadedModule", RESOLVED_FIELDS + 4)?;
        resolved_fields(&mut map, &self.resolved)?;
        map.serialize_field("into", &self.path.display().to_string())?;
        map.serialize_field("module_dir", &self.module_dir.display().to_string())?;
        map.serialize_field("files", &self.files)?;
        map.serialize_field("bytes", &self.bytes)?;
        map.end()
    }
}

impl<T: Transport> On<'_, T> {
    /// [`Runs::oci_module_resolve`](crate::Runs::oci_module_resolve).
    pub(crate) async fn oci_module_resolve(
        &self,
        source: &OciModuleSource,
    ) -> Result<ResolvedModule, Error> {
        Ok(self.oci_module_resolve_fetched(source).await?.0)
    }

    /// The manifest `source` selects, as fetched, and what it resolves to.
    async fn oci_module_resolve_fetched(
        &self,
        source: &OciModuleSource,
    ) -> Result<(ResolvedModule, FetchedManifest), Error> {
        let address = source.address();
        let reference = source.reference();
        let url = address.manifest_url(reference);
        let fetched = match self.oci_manifest(address, reference, MANIFEST_ACCEPT).await {
            Ok(fetched) => fetched,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(wrap(Error::NotFound {
                    url: url.into(),
                    message: not_found(address, reference),
                }));
            }
            Err(e) => return Err(wrap(e)),
        };
        let resolved = resolved_from(source, &fetched).map_err(|problem| {
            wrap(Error::InvalidResponse {
                url: url.into(),
                problem,
            })
        })?;
        Ok((resolved, fetched))
    }

    /// [`Runs::oci_module_download`](crate::Runs::oci_module_download).
    pub(crate) async fn oci_module_download(
        &self,
        source: &OciModuleSource,
        into: &Path,
    ) -> Result<DownloadedModule, Error> {
        self.oci_module_download_keeping(source, into, None).await
    }

    /// As [`oci_module_download`](Self::oci_module_download); with `keep`
    /// (an existing, empty folder) the manifest and the blob, as fetched,
    /// are also written into it: a module cache entry of an `oci://`
    /// package (MOD-13, `cached.rs`).
    pub(crate) async fn oci_module_download_keeping(
        &self,
        source: &OciModuleSource,
        into: &Path,
        keep: Option<&Path>,
    ) -> Result<DownloadedModule, Error> {
        check_destination(into)?;
        let (resolved, fetched) = self.oci_module_resolve_fetched(source).await?;
        let staging = Staging::make(into)?;
        let blob_url = resolved.address.blob_url(&resolved.layer.digest);
        let sink = Kept::new(
            StagedPackage::new(staging.path.clone(), into.to_owned()),
            keep,
            &fetched,
        )
        .map_err(|e| Error::local_file(keep.unwrap_or(into), e))?;
        let staged = self
            .oci_blob(&resolved.address, &resolved.layer, sink)
            .await
            .map_err(wrap)?;
        unpacked_module(&staged, staging, into, resolved, blob_url)
    }
}

/// What a fetched manifest resolves `source` to: its digest and the
/// package's layer, checked by `tfdisco_oci::module`'s rules.
fn resolved_from(
    source: &OciModuleSource,
    fetched: &FetchedManifest,
) -> Result<ResolvedModule, String> {
    Ok(ResolvedModule {
        source: source.clone(),
        address: source.address().clone(),
        reference: source.reference().clone(),
        size: fetched.bytes.len() as u64,
        digest: fetched.digest.clone(),
        media_type: fetched.media_type.clone(),
        layer: package_layer(fetched)?,
    })
}

/// The package's blob read whole into the staging folder: verified (the
/// blob's digest, by whoever read it), unpacked, its modes set, its
/// subdirectory there, placed at `into`.
fn unpacked_module(
    staged: &Staged,
    mut staging: Staging,
    into: &Path,
    resolved: ResolvedModule,
    blob_url: tfdisco_core::url::Url,
) -> Result<DownloadedModule, Error> {
    let unpacked = match (&staged.digest().hashes, staged.unpacked()) {
        (Ok(_), Some(unpacked)) => unpacked.clone(),
        (Err(e), _) => {
            return Err(wrap(Error::InvalidResponse {
                url: blob_url.into(),
                problem: decompressing(into, &e.to_string()),
            }));
        }
        (Ok(_), None) => {
            return Err(wrap(Error::InvalidResponse {
                url: blob_url.into(),
                problem: decompressing(into, "the package was not unpacked"),
            }));
        }
    };
    staged
        .apply_modes()
        .map_err(|e| Error::local_file(&staging.path, e))?;
    let source = &resolved.source;
    let subdir = source.subdir().trim_start_matches('/');
    if !subdir.is_empty() && !staging.path.join(subdir).is_dir() {
        return Err(wrap(Error::NotFound {
            url: blob_url.into(),
            message: format!(
                "Module subdirectory not found: cannot find directory {:?} in the module \
                 package {}",
                source.subdir(),
                resolved.pinned()
            ),
        }));
    }
    staging.place(into)?;
    let module_dir = if subdir.is_empty() {
        into.to_owned()
    } else {
        into.join(subdir)
    };
    Ok(DownloadedModule {
        resolved,
        path: into.to_owned(),
        module_dir,
        files: unpacked.files,
        bytes: unpacked.bytes,
    })
}

/// A failure named as the module package's, unless a request already
/// names it (a blob's size or digest: the OCI blob download's).
fn wrap(error: Error) -> Error {
    RegistryCall::OciModule.wrap(error)
}

/// `into` must be free: absent, or an empty folder.
fn check_destination(into: &Path) -> Result<(), Error> {
    match fs::symlink_metadata(into) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::local_file(into, e)),
        Ok(meta) if meta.is_dir() => {
            let mut entries = fs::read_dir(into).map_err(|e| Error::local_file(into, e))?;
            match entries.next() {
                None => Ok(()),
                Some(_) => Err(Error::LocalFile {
                    path: into.to_owned(),
                    problem: "the folder is not empty: a module package goes into a new or \
                              empty folder"
                        .to_owned(),
                }),
            }
        }
        Ok(_) => Err(Error::LocalFile {
            path: into.to_owned(),
            problem: "not a folder: a module package goes into a new or empty folder".to_owned(),
        }),
    }
}

/// A staging folder beside the destination, and the parent folders made
/// for it; removed when dropped unless it was placed.
struct Staging {
    path: PathBuf,
    made: Vec<PathBuf>,
    placed: bool,
}

impl Staging {
    fn make(into: &Path) -> Result<Staging, Error> {
        let parent = match into.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let made: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
            .map(Path::to_owned)
            .collect();
        let mut staging = Staging {
            path: PathBuf::new(),
            made,
            placed: false,
        };
        fs::create_dir_all(&parent).map_err(|e| Error::local_file(&parent, e))?;
        let name = into
            .file_name()
            .map_or_else(|| "module".into(), |n| n.to_string_lossy());
        // A random part and an exclusive creation: no folder left by a
        // killed run, or planted, is ever taken for this one's.
        let prefix = format!(".{name}.tfdisco-staging-");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).rand_bytes(16);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o777));
        }
        let path = builder
            .tempdir_in(&parent)
            .map_err(|e| Error::local_file(&parent, e))?
            .keep();
        staging.path = path;
        Ok(staging)
    }

    /// Renames the staging folder to `into` (an empty folder there is
    /// removed first).
    fn place(&mut self, into: &Path) -> Result<(), Error> {
        if fs::symlink_metadata(into).is_ok_and(|m| m.is_dir()) {
            fs::remove_dir(into).map_err(|e| Error::local_file(into, e))?;
        }
        fs::rename(&self.path, into).map_err(|e| Error::local_file(into, e))?;
        self.placed = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.placed {
            return;
        }
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_dir_all(&self.path);
        }
        // Deepest first (`ancestors` lists them so); one that holds
        // anything stays.
        for dir in &self.made {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// OpenTofu's `decompressing package into DIR: …`, with the unpacker's
/// reason (its words name provider packages; dropped).
fn decompressing(into: &Path, reason: &str) -> String {
    let reason = reason
        .strip_prefix("provider package archive: ")
        .unwrap_or(reason);
    format!("decompressing package into {}: {reason}", into.display())
}
