//! `tfdisco module resolve` and `tfdisco module download` for OpenTofu's
//! `oci://` module sources (docs/behaviour.md, OCIMOD-1 to OCIMOD-8).

use std::path::Path;

use serde_json::{Value, json};
use tfdisco_core::{Dialect, Error};
use tfdisco_transport::reexports::tfdisco_oci::{OciModuleSource, Reference};
use tfdisco_transport::{DownloadedModule, ResolvedModule};

use crate::exit;
use crate::failure::{Failure, json_text};
use crate::net::{self, NetOpts};

/// The source, read as OpenTofu reads it; `oci://` is OpenTofu's alone.
fn parse(given: &str, opts: &NetOpts) -> Result<OciModuleSource, Failure> {
    if opts.dialect == Dialect::Terraform {
        return Err(Failure::from(Error::InvalidArgument {
            message: format!(
                "{given}: oci:// module sources are OpenTofu's only: Terraform has no OCI \
                 getter (its init says \"download not supported for scheme 'oci'\"); use \
                 --dialect opentofu"
            ),
        }));
    }
    OciModuleSource::parse(given).map_err(|e| {
        Failure::from(Error::InvalidArgument {
            message: format!("invalid OCI module source {given}: {e}"),
        })
    })
}

/// What `resolve --json` prints, and `download --json` starts with.
fn resolved_json(resolved: &ResolvedModule) -> Value {
    let source = &resolved.source;
    let tag = match &resolved.reference {
        Reference::Tag(tag) => Some(tag.as_str()),
        Reference::Digest(_) => None,
    };
    json!({
        "source": source.given(),
        "address": source.to_string(),
        "registry": resolved.address.registry(),
        "repository": resolved.address.repository(),
        "tag": tag,
        "digest": resolved.digest.to_string(),
        "media_type": resolved.media_type,
        "size": resolved.size,
        "subdir": source.subdir(),
        "pinned": resolved.pinned(),
        "package": {
            "media_type": resolved.layer.media_type,
            "digest": resolved.layer.digest.to_string(),
            "size": resolved.layer.size,
        },
    })
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
        println!("{}", json_text(&resolved_json(&resolved)));
    } else {
        print!("{}", resolved_text(&resolved));
    }
    Ok(exit::SUCCESS)
}

fn downloaded_json(module: &DownloadedModule) -> Value {
    let mut value = resolved_json(&module.resolved);
    if let Value::Object(fields) = &mut value {
        fields.insert("into".into(), json!(module.path.display().to_string()));
        fields.insert(
            "module_dir".into(),
            json!(module.module_dir.display().to_string()),
        );
        fields.insert("files".into(), json!(module.files));
        fields.insert("bytes".into(), json!(module.bytes));
    }
    value
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
        println!("{}", json_text(&downloaded_json(&module)));
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
