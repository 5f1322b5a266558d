//! The packages a filesystem mirror holds, in Go's order, and which of them
//! a lock run or an installation uses (docs/behaviour.md, FSM-4, FSM-5):
//! the one choice `ProviderPlan` and `tfdisco_config::FilesystemMirror` share.

use std::cmp::Ordering;

use tfdisco_core::{Platform, ProviderSource, Version};

use super::LocalPackage;

/// The packages found in a filesystem mirror, in Go's order (FSM-4): by
/// provider, then platform (operating system, then architecture, as text),
/// then version (precedence, build metadata aside); packages equal in all
/// three keep the order they were found in, so an unpacked directory comes
/// before the archive of the same version and platform.
///
/// ```
/// use std::path::PathBuf;
/// use tfdisco_core::{Dialect, Platform, ProviderSource, Version};
/// use tfdisco_provider::{LocalLocation, LocalPackage, LocalPackages};
///
/// let null = ProviderSource::parse("hashicorp/null", Dialect::Terraform)?;
/// let package = |version: &str, os: &str| LocalPackage {
///     source: null.clone(),
///     version: version.parse().unwrap(),
///     platform: Platform::new(os, "amd64"),
///     filename: String::new(),
///     location: LocalLocation::Directory(PathBuf::from(version)),
/// };
/// let found = LocalPackages::new(vec![package("3.2.1", "linux"), package("3.3.0", "darwin")]);
/// // Every version counts, whichever platform it has a package for.
/// let versions: Vec<String> = found.versions(&null).iter().map(Version::to_string).collect();
/// assert_eq!(versions, ["3.2.1", "3.3.0"]);
/// let linux = Platform::new("linux", "amd64");
/// assert!(found.package(&null, &"3.3.0".parse()?, &linux).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalPackages(Vec<LocalPackage>);

impl LocalPackages {
    /// The packages, put in Go's order (a stable sort: packages equal in
    /// provider, platform and version keep the order given).
    pub fn new(mut packages: Vec<LocalPackage>) -> LocalPackages {
        packages.sort_by(cmp_packages);
        LocalPackages(packages)
    }

    /// Every package, in order.
    pub fn as_slice(&self) -> &[LocalPackage] {
        &self.0
    }

    /// Every package, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, LocalPackage> {
        self.0.iter()
    }

    /// How many packages there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the mirror holds no package.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The providers that have at least one package, in order.
    pub fn providers(&self) -> Vec<ProviderSource> {
        let mut providers: Vec<ProviderSource> = Vec::new();
        for package in &self.0 {
            if providers.last() != Some(&package.source) {
                providers.push(package.source.clone());
            }
        }
        providers
    }

    /// The versions of `provider` with a package for any platform,
    /// ascending, each once (FSM-5): a version chosen from these may have
    /// no package for the platform wanted, and is then not available for
    /// it.
    pub fn versions(&self, provider: &ProviderSource) -> Vec<Version> {
        let mut versions: Vec<Version> = self
            .0
            .iter()
            .filter(|p| p.source == *provider)
            .map(|p| p.version.clone())
            .collect();
        versions.sort();
        versions.dedup();
        versions
    }

    /// The package of `provider` at `version` for `platform` (compared as
    /// written: an unpacked `LINUX_AMD64` is not `linux_amd64`): the first
    /// in order, so an unpacked directory wins over an archive (FSM-5).
    pub fn package(
        &self,
        provider: &ProviderSource,
        version: &Version,
        platform: &Platform,
    ) -> Option<&LocalPackage> {
        self.0
            .iter()
            .find(|p| p.source == *provider && p.version == *version && p.platform == *platform)
    }
}

impl<'a> IntoIterator for &'a LocalPackages {
    type Item = &'a LocalPackage;
    type IntoIter = std::slice::Iter<'a, LocalPackage>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<LocalPackages> for Vec<LocalPackage> {
    fn from(packages: LocalPackages) -> Vec<LocalPackage> {
        packages.0
    }
}

fn cmp_packages(a: &LocalPackage, b: &LocalPackage) -> Ordering {
    a.source
        .cmp(&b.source)
        .then_with(|| a.platform.os.cmp(&b.platform.os))
        .then_with(|| a.platform.arch.cmp(&b.platform.arch))
        .then_with(|| a.version.cmp_precedence(&b.version))
}
