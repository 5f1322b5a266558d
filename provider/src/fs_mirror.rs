//! Filesystem mirrors: what each path under a mirror directory is, as both
//! CLIs' scan decides it, without I/O (docs/behaviour.md, FSM-1 to FSM-6).
//!
//! A filesystem mirror holds packages in two layouts under its base
//! directory:
//!
//! - unpacked: `HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`, a directory;
//! - packed: `HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`,
//!   a file.
//!
//! The walk itself (`tfdisco_config::FilesystemMirror::scan`) gives each
//! path it visits to [`classify_mirror_path`], which says whether it is a
//! package, a warning (Go's `[WARN]` log lines, without the prefix) or
//! nothing; [`LocalPackages`] holds the packages in Go's order and says
//! which one a version and platform get.
//!
//! ```
//! use std::path::Path;
//! use tfdisco_core::Dialect;
//! use tfdisco_provider::{EntryKind, LocalLocation, MirrorEntry, MirrorPath, classify_mirror_path};
//!
//! let base = Path::new("/mirror");
//! let path = MirrorPath {
//!     dialect: Dialect::Terraform,
//!     base,
//!     given_base: base,
//!     components: &["registry.terraform.io", "hashicorp", "null", "3.2.1", "linux_amd64"],
//!     is_symlink: false,
//!     kind: Ok(EntryKind::Directory),
//! };
//! let MirrorEntry::Package(package) = classify_mirror_path(&path) else { panic!() };
//! assert_eq!(package.source.to_string(), "registry.terraform.io/hashicorp/null");
//! assert_eq!(package.filename, "terraform-provider-null_3.2.1_linux_amd64.zip");
//! assert_eq!(
//!     package.location,
//!     LocalLocation::Directory("/mirror/registry.terraform.io/hashicorp/null/3.2.1/linux_amd64".into())
//! );
//! ```

mod packages;

use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, Hostname, Platform, ProviderSource, Version, go_quote};

pub use packages::LocalPackages;

/// Where a package of a filesystem mirror is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LocalLocation {
    /// A zip archive (the packed layout): its path as found, not lower-cased.
    Archive(PathBuf),
    /// A directory of the package's files (the unpacked layout).
    Directory(PathBuf),
}

impl LocalLocation {
    /// The path, whichever the layout.
    pub fn path(&self) -> &Path {
        match self {
            LocalLocation::Archive(p) | LocalLocation::Directory(p) => p,
        }
    }
}

/// A package found in a filesystem mirror (Go's `PackageMeta` of a local
/// package: no hashes, no authentication, FSM-4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalPackage {
    /// The provider, from the `HOST/NAMESPACE/TYPE` directories (namespace
    /// and type lower-cased, the hostname in comparison form).
    pub source: ProviderSource,
    /// The version.
    pub version: Version,
    /// The platform: from an unpacked directory's name as written (not
    /// lower-cased), from a packed file's name lower-cased.
    pub platform: Platform,
    /// The package's file name: the archive's, lower-cased; for an
    /// unpacked directory the name its archive would have,
    /// `terraform-provider-TYPE_VERSION_OS_ARCH.zip`.
    pub filename: String,
    /// Where it is.
    pub location: LocalLocation,
}

/// What a path of a mirror is once symbolic links are followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A directory.
    Directory,
    /// Anything else.
    File,
}

/// One path a mirror's walk visits.
#[derive(Clone, Debug)]
pub struct MirrorPath<'a> {
    /// Whose rules: the default registry of two-part and legacy addresses
    /// and the wording of version errors.
    pub dialect: Dialect,
    /// The directory walked: the mirror's base with symbolic links
    /// resolved.
    pub base: &'a Path,
    /// The base as given, for the warning about symbolic links.
    pub given_base: &'a Path,
    /// The path's components below `base`.
    pub components: &'a [&'a str],
    /// Whether the path itself is a symbolic link (`lstat`).
    pub is_symlink: bool,
    /// What it is with links followed (`stat`), or why that failed.
    pub kind: Result<EntryKind, String>,
}

impl MirrorPath<'_> {
    fn full(&self) -> PathBuf {
        let mut full = self.base.to_path_buf();
        full.extend(self.components);
        full
    }

    fn relative(&self) -> PathBuf {
        self.components.iter().collect()
    }
}

/// What a path of a mirror is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MirrorEntry {
    /// A package.
    Package(Box<LocalPackage>),
    /// Not a package, and worth saying why: the text Terraform logs with
    /// `[WARN]` (FSM-2, FSM-3).
    Warning(String),
    /// Not a package (a prefix of a package's path, or anything else).
    Ignored,
}

/// What one path of a mirror is (FSM-1 to FSM-3), checked in Go's order:
/// fewer than three components are a prefix (a symbolic link there is a
/// warning); then the namespace (`-`, the legacy namespace, aside), the
/// type and the hostname must be valid, and a legacy namespace must be on
/// the default registry; then what the path is decides: a directory five
/// deep is an unpacked package, a file four deep a packed one, anything
/// else nothing.
pub fn classify_mirror_path(path: &MirrorPath<'_>) -> MirrorEntry {
    let parts = path.components;
    let full = path.full();
    let shown = || go_quote(&full.to_string_lossy());
    if parts.len() < 3 {
        if path.is_symlink {
            return MirrorEntry::Warning(format!(
                "Provider plugin search ignored symlink {}: only the base directory {} may be a \
                 symlink",
                full.display(),
                path.given_base.display()
            ));
        }
        return MirrorEntry::Ignored;
    }
    let (host, namespace, type_name) = (parts[0], parts[1], parts[2]);
    let legacy = namespace == "-";
    let namespace = if legacy {
        namespace.to_owned()
    } else {
        match ProviderSource::normalize_part(namespace) {
            Ok(n) => n,
            Err(_) => {
                return MirrorEntry::Warning(format!(
                    "local provider path {} contains invalid namespace {}; ignoring",
                    shown(),
                    go_quote(namespace)
                ));
            }
        }
    };
    let Ok(type_name) = ProviderSource::normalize_part(type_name) else {
        return MirrorEntry::Warning(format!(
            "local provider path {} contains invalid type {}; ignoring",
            shown(),
            go_quote(type_name)
        ));
    };
    let Ok(hostname) = Hostname::parse(host) else {
        return MirrorEntry::Warning(format!(
            "local provider path {} contains invalid hostname {}; ignoring",
            shown(),
            go_quote(host)
        ));
    };
    if legacy && hostname != path.dialect.default_registry_host() {
        return MirrorEntry::Warning(format!(
            "local provider path {} indicates a legacy provider not on the default registry \
             host; ignoring",
            shown()
        ));
    }
    let Ok(source) =
        ProviderSource::from_parts(hostname.as_str(), &namespace, &type_name, path.dialect)
    else {
        return MirrorEntry::Ignored;
    };
    let kind = match &path.kind {
        Ok(kind) => *kind,
        Err(e) => {
            return MirrorEntry::Warning(format!(
                "failed to read metadata about {}: {e}",
                full.display()
            ));
        }
    };
    match (parts.len(), kind) {
        (5, EntryKind::Directory) => unpacked(path, source, &full),
        (4, EntryKind::File) => packed(path, source, full),
        _ => MirrorEntry::Ignored,
    }
}

fn unpacked(path: &MirrorPath<'_>, source: ProviderSource, full: &Path) -> MirrorEntry {
    let shown = || go_quote(&full.to_string_lossy());
    let (given_version, given_platform) = (path.components[3], path.components[4]);
    let version = match Version::parse(given_version, path.dialect) {
        Ok(v) => v,
        Err(e) => {
            return MirrorEntry::Warning(format!(
                "ignoring local provider path {} with invalid version {}: {e}",
                shown(),
                go_quote(given_version)
            ));
        }
    };
    let platform = match parse_platform(given_platform) {
        Ok(p) => p,
        Err(e) => {
            return MirrorEntry::Warning(format!(
                "ignoring local provider path {} with invalid platform {}: {e}",
                shown(),
                go_quote(given_platform)
            ));
        }
    };
    MirrorEntry::Package(Box::new(LocalPackage {
        filename: package_filename(&source, &version, &platform),
        source,
        version,
        platform,
        location: LocalLocation::Directory(full.to_path_buf()),
    }))
}

fn packed(path: &MirrorPath<'_>, source: ProviderSource, full: PathBuf) -> MirrorEntry {
    let shown = || go_quote(&full.to_string_lossy());
    let relative = path.relative();
    let ignoring = |why: String| {
        MirrorEntry::Warning(format!(
            "ignoring file {} as possible package for {source}: {why}",
            go_quote(&relative.to_string_lossy())
        ))
    };
    let filename = path.components[3].to_lowercase();
    let prefix = format!("{PACKAGE_PREFIX}{}_", source.type_name());
    let Some(rest) = filename.strip_prefix(&prefix) else {
        return ignoring(format!(
            "filename lacks expected prefix {}",
            go_quote(&prefix)
        ));
    };
    let Some(info) = rest.strip_suffix(SUFFIX) else {
        return ignoring(format!(
            "filename lacks expected suffix {}",
            go_quote(SUFFIX)
        ));
    };
    let info: Vec<&str> = info.split('_').collect();
    if info.len() < 3 {
        return ignoring(
            "filename does not include version number, target OS, and target architecture"
                .to_owned(),
        );
    }
    let version = match Version::parse(info[0], path.dialect) {
        Ok(v) => v,
        Err(e) => {
            return MirrorEntry::Warning(format!(
                "ignoring local provider path {} with invalid version {}: {e}",
                shown(),
                go_quote(info[0])
            ));
        }
    };
    let given_platform = format!("{}_{}", info[1], info[2]);
    let platform = match parse_platform(&given_platform) {
        Ok(p) => p,
        Err(e) => {
            return MirrorEntry::Warning(format!(
                "ignoring local provider path {} with invalid platform {}: {e}",
                shown(),
                go_quote(&given_platform)
            ));
        }
    };
    MirrorEntry::Package(Box::new(LocalPackage {
        source,
        version,
        platform,
        filename,
        location: LocalLocation::Archive(full),
    }))
}

/// What a package's file name starts with, before the provider's type.
const PACKAGE_PREFIX: &str = "terraform-provider-";
/// What a package's file name ends with.
const SUFFIX: &str = ".zip";

/// A provider package's file name, as registries, mirrors and mirror
/// folders name it: `terraform-provider-TYPE_VERSION_OS_ARCH.zip`.
///
/// ```
/// use tfdisco_core::{Dialect, Platform, ProviderSource};
///
/// let source = ProviderSource::parse("hashicorp/null", Dialect::Terraform)?;
/// let name = tfdisco_provider::package_filename(&source, &"3.2.1".parse()?, &Platform::new("linux", "amd64"));
/// assert_eq!(name, "terraform-provider-null_3.2.1_linux_amd64.zip");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn package_filename(source: &ProviderSource, version: &Version, platform: &Platform) -> String {
    format!(
        "{PACKAGE_PREFIX}{}_{version}_{platform}{SUFFIX}",
        source.type_name()
    )
}

/// The platform a release zip of `version` names, as
/// [`package_filename`] names it: `terraform-provider-TYPE_VERSION_OS_ARCH.zip`
/// (what `tfdisco oci push-provider` reads of the files it is given).
///
/// ```
/// use tfdisco_core::Platform;
///
/// let version = "3.2.1".parse()?;
/// let platform = tfdisco_provider::package_file_platform("terraform-provider-null_3.2.1_linux_amd64.zip", &version)?;
/// assert_eq!(platform, Platform::new("linux", "amd64"));
/// assert!(tfdisco_provider::package_file_platform("terraform-provider-null_3.2.0_linux_amd64.zip", &version).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn package_file_platform(name: &str, version: &Version) -> Result<Platform, String> {
    let rest = name
        .strip_prefix(PACKAGE_PREFIX)
        .and_then(|r| r.strip_suffix(SUFFIX))
        .ok_or_else(|| format!("{name}: not named {PACKAGE_PREFIX}TYPE_VERSION_OS_ARCH{SUFFIX}"))?;
    let (_, platform) = rest
        .split_once(&format!("_{version}_"))
        .ok_or_else(|| format!("{name}: not a zip of version {version}"))?;
    Platform::parse(platform).map_err(|e| format!("{name}: {e}"))
}

/// A provider's directory in a mirror folder, a providers folder or the
/// plugin cache, relative to it: the host's display form (Unicode, port
/// kept), the namespace, the type.
pub(crate) fn provider_dir(source: &ProviderSource) -> PathBuf {
    [
        source.host().display().as_ref(),
        source.namespace(),
        source.type_name(),
    ]
    .iter()
    .collect()
}

/// Go's `ParsePlatform`: two words separated by one underscore, neither
/// with white space; not lower-cased and not otherwise checked.
fn parse_platform(given: &str) -> Result<Platform, &'static str> {
    let Some((os, arch)) = given.split_once('_').filter(|(_, a)| !a.contains('_')) else {
        return Err("must be two words separated by an underscore");
    };
    let space = |s: &str| s.contains([' ', '\t', '\n', '\r']);
    if space(os) {
        return Err("OS portion must not contain whitespace");
    }
    if space(arch) {
        return Err("architecture portion must not contain whitespace");
    }
    Ok(Platform::new(os, arch))
}
