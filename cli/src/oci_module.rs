//! `tfdisco module resolve` and `tfdisco module download` for OpenTofu's
//! `oci://` module sources (docs/behaviour.md, OCIMOD-1 to OCIMOD-8): the
//! source read and the JSON documents written by the library
//! (`oci_module_source`, `ResolvedModule` / `DownloadedModule`'s
//! serialization, which the Python and Node packages share); the text for
//! people here.

use std::path::Path;

use tfdisco_runs::{BlockingRuns, ResolvedModule, oci_module_source};
use tfdisco_transport::reexports::tfdisco_oci::OciModuleSource;

use crate::exit;
use crate::failure::{Failure, json_text};
use crate::net::{self, NetOpts};

/// The source, read as OpenTofu reads it; `oci://` is OpenTofu's alone.
fn parse(given: &str, opts: &NetOpts) -> Result<OciModuleSource, Failure> {
    Ok(oci_module_source(given, opts.dialect())?)
}

fn resolved_text(resolved: &ResolvedModule) -> String {
    format!(
        "{}\n  source     {}\n  digest     {}\n  manifest   {}, {} bytes\n  package    {} ({}, {} \
         bytes)\n",
        resolved.pinned(),
        resolved.source,
        resolved.digest,
        resolved.media_type,
        resolved.size,
        resolved.layer.digest,
        resolved.layer.media_type,
        resolved.layer.size,
    )
}

/// `tfdisco module resolve SOURCE`.
pub(crate) fn resolve(given: &str, json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    let source = parse(given, opts)?;
    let resolved = net::client(opts)?.oci_module_resolve(&source)?;
    if json {
        println!("{}", json_text(&resolved));
    } else {
        print!("{}", resolved_text(&resolved));
    }
    Ok(exit::SUCCESS)
}

/// `tfdisco module download SOURCE --into DIR` for an `oci://` source.
pub(crate) fn download(
    given: &str,
    into: &Path,
    json: bool,
    opts: &NetOpts,
) -> Result<u8, Failure> {
    let source = parse(given, opts)?;
    let module = net::client(opts)?.oci_module_download(&source, into)?;
    if json {
        println!("{}", json_text(&module));
    } else {
        print!(
            "{}  into       {} ({} files, {} bytes)\n  module     {}\n",
            resolved_text(&module.resolved),
            module.path.display(),
            module.files,
            module.bytes,
            module.module_dir.display(),
        );
    }
    Ok(exit::SUCCESS)
}
