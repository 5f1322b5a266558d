//! The getters `init` downloads packages with, and the archive formats
//! go-getter unpacks (docs/behaviour.md, PKG-7, PKG-8).

use std::fmt;

use crate::Dialect;

/// The downloader `init` hands a package to: go-getter's getter of that
/// name (PKG-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Getter {
    /// `git`: a Git repository (`ref`, `depth`, `sshkey`).
    Git,
    /// `hg`: a Mercurial repository (`rev`).
    Hg,
    /// `http`: a file or an `X-Terraform-Get` redirection over http.
    Http,
    /// `https`: the same over https.
    Https,
    /// `s3`: an Amazon S3 object or prefix.
    S3,
    /// `gcs`: a Google Cloud Storage object or prefix.
    Gcs,
    /// `file`: a local directory (absolute path), copied.
    File,
    /// `oci`: an OCI distribution repository (OpenTofu only).
    Oci,
}

impl Getter {
    /// The getter's name, as `getter::` prefixes and URL schemes spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Getter::Git => "git",
            Getter::Hg => "hg",
            Getter::Http => "http",
            Getter::Https => "https",
            Getter::S3 => "s3",
            Getter::Gcs => "gcs",
            Getter::File => "file",
            Getter::Oci => "oci",
        }
    }

    /// The getter `init` has under `name` (exactly: `GIT` is not `git`).
    pub(super) fn named(name: &str, dialect: Dialect) -> Option<Getter> {
        Some(match name {
            "git" => Getter::Git,
            "hg" => Getter::Hg,
            "http" => Getter::Http,
            "https" => Getter::Https,
            "s3" => Getter::S3,
            "gcs" => Getter::Gcs,
            "file" => Getter::File,
            "oci" if dialect == Dialect::OpenTofu => Getter::Oci,
            _ => return None,
        })
    }
}

impl fmt::Display for Getter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The archive formats go-getter unpacks, by the name `?archive=` or a
/// path suffix gives (PKG-8).
fn decompressors(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::Terraform => &[
            "bz2", "tbz2", "tar.bz2", "tar.tbz2", "gz", "tar.gz", "tgz", "xz", "tar.xz", "txz",
            "zip",
        ],
        // OpenTofu has no bare `tbz2`.
        Dialect::OpenTofu => &[
            "bz2", "tar.bz2", "tar.tbz2", "gz", "tar.gz", "tgz", "xz", "tar.xz", "txz", "zip",
        ],
    }
}

/// go-getter's choice of decompressor: `?archive=` (a false boolean turns
/// unpacking off), else the longest known extension of the path.
pub(super) fn archive(given: Option<String>, path: &[u8], dialect: Dialect) -> Option<String> {
    let known = decompressors(dialect);
    let name = match given {
        Some(v) if matches!(v.as_str(), "0" | "f" | "F" | "FALSE" | "false" | "False") => {
            return None;
        }
        Some(v) => v,
        None => known
            .iter()
            .filter(|k| path.len() > k.len() && path.ends_with(k.as_bytes()))
            .filter(|k| path[path.len() - k.len() - 1] == b'.')
            .max_by_key(|k| k.len())?
            .to_string(),
    };
    known.contains(&name.as_str()).then_some(name)
}
