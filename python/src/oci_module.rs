//! OpenTofu's `oci://` module sources: what `Client.module_resolve`
//! gives (`ResolvedModule`, its package layer an `OciDescriptor`) and what
//! `Client.module_download(source, into=DIR)` gives (`DownloadedModule`),
//! each a frozen record of the library's value whose `to_json()` is the
//! library's one serialization, the document `tfdisco module resolve
//! --json` / `module download --into DIR --json` prints; and how
//! `module_download`'s arguments choose between a registry module's
//! location and an `oci://` package.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use tfdisco_core::{Dialect, Error, ModuleSource, check_version};
use tfdisco_runs::{DownloadedModule, ResolvedModule, oci_module_source};
use tfdisco_transport::reexports::tfdisco_oci::{Descriptor, OciModuleSource, Reference};

use crate::answers::PyModuleLocation;
use crate::errors::IntoPyResult;
use crate::record::record_class;
use crate::sources;

record_class! {
    /// What an `oci://` module source selects (`Client.module_resolve`): the
    /// manifest its tag (`latest` by default) or digest names, checked as
    /// OpenTofu checks it, and the package layer.
    PyResolvedModule(ResolvedModule) as "ResolvedModule", eq {
        /// The source, as given (`oci://ghcr.io/acme/vpc//subnet?tag=1.2.0`).
        source => |r| r.source.given(),
        /// The source, normalized.
        address => |r| r.source.to_string(),
        /// The registry (`ghcr.io`, `127.0.0.1:5000`).
        registry => |r| r.address.registry(),
        /// The repository (`acme/vpc`).
        repository => |r| r.address.repository(),
        /// The tag resolved (`latest` when the source names neither a tag
        /// nor a digest); None for a digest.
        tag => |r| match &r.reference {
            Reference::Tag(tag) => Some(tag.as_str()),
            Reference::Digest(_) => None,
        },
        /// The manifest's digest (`sha256:…`): what a tag names now.
        digest => |r| r.digest.to_string(),
        /// The manifest's media type
        /// (`application/vnd.oci.image.manifest.v1+json`).
        media_type => |r| r.media_type.as_str(),
        /// The manifest's size in bytes.
        size => |r| r.size,
        /// The source's subdirectory (`sub` for `//sub`), or "".
        subdir => |r| r.source.subdir(),
        /// The source pinned to the manifest's digest:
        /// `oci://REGISTRY/REPOSITORY[//SUBDIR]?digest=DIGEST`.
        pinned => |r| r.pinned(),
        /// The package: the manifest's `archive/zip` layer (an
        /// `OciDescriptor`).
        package => |r| PyOciDescriptor(r.layer.clone()),
    }

    /// The answer as one JSON document, the one `tfdisco module resolve
    /// --json` prints and the Node package's `JSON.stringify` gives (a
    /// `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

record_class! {
    /// A blob an OCI manifest points to: a module's package layer.
    PyOciDescriptor(Descriptor) as "OciDescriptor", eq {
        /// Its media type (`archive/zip`).
        media_type => |d| d.media_type.as_str(),
        /// Its digest (`sha256:…`): what the download is checked against.
        digest => |d| d.digest.to_string(),
        /// Its size in bytes.
        size => |d| d.size,
    }
}

record_class! {
    /// An `oci://` module package downloaded, verified and unpacked
    /// (`Client.module_download(source, into=DIR)`).
    PyDownloadedModule(DownloadedModule) as "DownloadedModule", eq {
        /// What the source selected (a `ResolvedModule`).
        resolved => |m| PyResolvedModule(m.resolved.clone()),
        /// The source pinned to the manifest's digest (as
        /// `resolved.pinned`).
        pinned => |m| m.resolved.pinned(),
        /// The manifest's digest (as `resolved.digest`).
        digest => |m| m.resolved.digest.to_string(),
        /// The package's folder, the `into` given (a `pathlib.Path`).
        into => |m| m.path.as_path(),
        /// The module's folder: `into`, or the source's `//subdir` in it
        /// (a `pathlib.Path`).
        module_dir => |m| m.module_dir.as_path(),
        /// How many files the package has.
        files => |m| m.files,
        /// How many bytes they hold together.
        bytes => |m| m.bytes,
    }

    /// The report as one JSON document, the one `tfdisco module download
    /// SOURCE --into DIR --json` prints and the Node package's
    /// `JSON.stringify` gives (a `str`): the `ResolvedModule`'s members,
    /// then `into`, `module_dir`, `files` and `bytes`.
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

/// What `module_download` gives: a registry module's location, or an
/// `oci://` package downloaded. Made once per call and turned into a
/// Python object at once, so its size does not matter.
#[derive(IntoPyObject)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum ModuleDownloadAnswer {
    Location(PyModuleLocation),
    Package(PyDownloadedModule),
}

/// What `module_download`'s arguments ask for.
pub(crate) enum ModuleDownloadArgs {
    /// Where to download `version` of a registry module from.
    Registry(ModuleSource, String),
    /// An `oci://` source's package, downloaded into a folder.
    Oci(OciModuleSource, PathBuf),
}

/// Reads `module_download(source, version=None, *, into=None)`'s arguments
/// as `tfdisco module download SOURCE [VERSION] [--into DIR]` reads its
/// own: an `oci://` source (a str) takes no version and needs `into`; a
/// registry source (a str parsed in `dialect`, or a `ModuleSource`) needs a
/// version and takes no `into`. A mismatch is `InvalidArgument`, as for the
/// CLI; the source and version are checked as the other calls check them.
pub(crate) fn module_download_args(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    version: Option<String>,
    into: Option<PathBuf>,
    dialect: Dialect,
) -> PyResult<ModuleDownloadArgs> {
    let given = source.extract::<PyBackedStr>().ok();
    let shown = match &given {
        Some(text) => text.to_string(),
        None => source.str()?.to_string(),
    };
    let usage = |message: String| {
        Err(Error::InvalidArgument {
            message: format!("module_download({shown}): {message}"),
        })
        .or_raise(py)
    };
    if let Some(text) = given.as_deref().filter(|t| OciModuleSource::is_oci(t)) {
        if let Some(version) = version {
            return usage(format!(
                "an oci:// source takes no version ({version}): its ?tag= or ?digest= \
                 selects the package"
            ));
        }
        let Some(into) = into else {
            return usage("an oci:// source is downloaded into a folder: give into=DIR".to_owned());
        };
        let source = oci_module_source(text, dialect).or_raise(py)?;
        return Ok(ModuleDownloadArgs::Oci(source, into));
    }
    if into.is_some() {
        return usage(
            "into is for oci:// sources; a registry source's download says where its package \
             is"
            .to_owned(),
        );
    }
    let Some(version) = version else {
        return usage("a registry source needs a version ('1.2.0')".to_owned());
    };
    let source = sources::module_source_arg(source, dialect)?;
    check_version(&version).or_raise(py)?;
    Ok(ModuleDownloadArgs::Registry(source, version))
}
