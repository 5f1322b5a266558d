//! What an install run (`init`) adds to a lock run's plan
//! (docs/behaviour.md, INSTALL-2 to INSTALL-4): before a provider's package
//! is fetched, what is already installed of the version is looked at (the
//! working folder's providers folder, then the plugin cache), and kept when
//! the lock file vouches for it; a package fetched must match a hash the
//! lock file already records for its version. A lock run with the plugin
//! cache (`providers lock -enable-plugin-cache`, LOCKRUN-10) looks at each
//! platform's cache entry by the same rules, and refuses no package.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tfdisco_core::{Platform, ProviderSource, Version};

use crate::fs_mirror::provider_dir;
use crate::package_hash::PackageHashes;

/// What an install run's lock file loses (INSTALL-5): the providers it
/// holds that the configuration no longer requires leave it, as `init`
/// removes them.
pub fn unrequired<'a>(
    locked: impl IntoIterator<Item = &'a ProviderSource>,
    required: &[ProviderSource],
) -> Vec<ProviderSource> {
    locked
        .into_iter()
        .filter(|source| !required.contains(source))
        .cloned()
        .collect()
}

/// The read-only rule (`-lockfile=readonly`, INSTALL-5): a lock file that
/// would change is refused, with this message, and nothing is placed.
pub fn readonly_refusal(changed: bool, readonly: bool, path: &Path) -> Option<String> {
    (changed && readonly).then(|| {
        format!(
            "the lock file {} would change, and it is read-only (--lockfile readonly)",
            path.display()
        )
    })
}

/// Where a package is unpacked in a providers folder (`.terraform/providers`)
/// or the plugin cache, relative to it: `HOST/NAMESPACE/TYPE/VERSION/OS_ARCH`,
/// the host in its display form with its port (INSTALL-1).
pub fn package_dir(source: &ProviderSource, version: &Version, platform: &Platform) -> PathBuf {
    provider_dir(source)
        .join(version.to_string())
        .join(platform.to_string())
}

/// The lock file of a plugin cache entry, relative to the cache:
/// `…/VERSION/OS_ARCH.lock`, beside the entry (so that it never changes its
/// `h1:`), as OpenTofu names it (INSTALL-12).
pub fn cache_lock_path(source: &ProviderSource, version: &Version, platform: &Platform) -> PathBuf {
    beside(source, version, platform, "lock")
}

/// How long a run waits for a plugin cache entry's lock before it says so
/// (OpenTofu's five seconds; INSTALL-12).
pub const CACHE_WAIT_REPORTED_AFTER: Duration = Duration::from_secs(5);

/// The start of every staging folder's name (INSTALL-10).
const STAGING: &str = ".tfdisco-staging-";

/// How old a staging folder of an earlier release must be before a run
/// removes it: such names (`.tfdisco-staging-PID-N`) do not say their
/// platform, so no lock proves them unused (INSTALL-10).
pub const OLD_STAGING_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The start of the name of a staging folder for `platform`, beside a
/// package's final place (in its `VERSION` folder):
/// `.tfdisco-staging-OS-ARCH-`. The driver adds a random part no one can
/// predict and creates the folder exclusively, so that no folder planted
/// or left behind is ever taken for its own. A dot and no `_`, so that no
/// scan of the folder takes it for a platform (INSTALL-10).
pub fn staging_prefix(platform: &Platform) -> String {
    format!("{STAGING}{}-{}-", platform.os, platform.arch)
}

/// Whether a run that holds the lock of `platform`'s cache entry may
/// remove the folder `name` beside it, last changed `age` ago (`None`
/// when unknown): a staging folder of that platform's, since only a run
/// holding the same lock makes one and this run made none yet; or one of
/// an earlier release older than [`OLD_STAGING_AGE`] (INSTALL-10).
pub fn stale_staging(name: &str, platform: &Platform, age: Option<Duration>) -> bool {
    let alphanumeric =
        |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric());
    if let Some(random) = name.strip_prefix(&staging_prefix(platform)) {
        return alphanumeric(random);
    }
    let Some(rest) = name.strip_prefix(STAGING) else {
        return false;
    };
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let old = rest
        .split_once('-')
        .is_some_and(|(pid, n)| digits(pid) && digits(n));
    old && age.is_some_and(|age| age >= OLD_STAGING_AGE)
}

fn beside(source: &ProviderSource, version: &Version, platform: &Platform, ext: &str) -> PathBuf {
    provider_dir(source)
        .join(version.to_string())
        .join(format!("{platform}.{ext}"))
}

/// The lock file's entry for a provider (install runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The version it records.
    pub version: Version,
    /// The hashes it records for it.
    pub hashes: Vec<String>,
}

/// How an install run may use what is already installed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstallRules {
    /// The plugin cache, when one is used: a fetched package goes into it
    /// and the working folder links to it.
    pub cache: Option<CacheRules>,
}

/// How the plugin cache may be used (INSTALL-2, INSTALL-3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheRules {
    /// `plugin_cache_may_break_dependency_lock_file`: a cached package may
    /// be used when the lock file records no hash for its version, its
    /// `h1:` then recorded.
    pub may_break_lock_file: bool,
}

/// What is already installed of a provider's version for the plan's
/// platform: the driver's answer to [`Job::Installed`](super::Job::Installed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstalledPackages {
    /// The `h1:` of the working folder's install
    /// (`.terraform/providers/HOST/NS/TYPE/VERSION/OS_ARCH`), if there is
    /// one.
    pub target: Option<String>,
    /// The `h1:` of the plugin cache's entry, if a cache is used and has
    /// one. Only its files are read: nothing the cache says about itself
    /// vouches for it (INSTALL-3).
    pub cache: Option<String>,
}

/// How an install run got a provider's package.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Installed {
    /// Already in the working folder, with an `h1:` the lock file records:
    /// kept, nothing asked (`Using previously-installed …`).
    Reused,
    /// In the plugin cache: the working folder is linked to it, nothing
    /// asked (`Using … from the shared cache directory`).
    FromCache,
    /// Fetched and verified: the driver places it.
    Fetched,
}

/// What an install run keeps of what is installed of `version`, and the
/// hashes the lock file then gets; `None` when the package must be
/// fetched (INSTALL-2, INSTALL-3).
///
/// - The working folder's install is kept when the lock file records its
///   `h1:` for that version.
/// - Else the cache's entry is linked when the lock file records its `h1:`
///   (its `h1:` added), or when the lock file records nothing for the
///   version and the rules allow a cache that may break the lock file
///   (only its `h1:` is recorded). Nothing else makes a cache entry
///   acceptable: a cache is a folder others write.
pub(super) fn keep(
    found: &InstalledPackages,
    recorded: &[String],
    rules: &InstallRules,
) -> Option<(Installed, Vec<String>)> {
    if let Some(h1) = &found.target
        && recorded.contains(h1)
    {
        return Some((Installed::Reused, recorded.to_vec()));
    }
    let cached = found.cache.as_ref()?;
    let cache = rules.cache.as_ref()?;
    let hashes = if recorded.contains(cached) {
        recorded.to_vec()
    } else if recorded.is_empty() && cache.may_break_lock_file {
        vec![cached.clone()]
    } else {
        return None;
    };
    Some((Installed::FromCache, sorted(hashes)))
}

/// Whether a fetched archive matches one of the hashes the lock file
/// records for its version (none recorded: it does). The archive's `zh:`,
/// its `h1:` as `dirhash.HashZip` makes it, and the `h1:` of the files it
/// unpacks to are each compared (Terraform compares the first two: a lock
/// file it wrote from an unpacked package with folder entries then fails
/// its own check; INSTALL-4).
pub(super) fn matches_recorded(archive: &PackageHashes, recorded: &[String]) -> bool {
    recorded.is_empty()
        || [archive.zh(), archive.h1_zip(), archive.h1()]
            .iter()
            .any(|hash| recorded.contains(hash))
}

/// Whether an unpacked package's `h1:` (a filesystem mirror's folder)
/// matches the recorded hashes (none recorded: it does; only `h1:` can be
/// compared with a folder).
pub(super) fn folder_matches_recorded(h1: &str, recorded: &[String]) -> bool {
    recorded.is_empty() || recorded.iter().any(|hash| hash == h1)
}

/// The message of a package that matches none of the recorded hashes, as
/// the CLIs word it.
pub(super) fn not_recorded_message(source: &ProviderSource, version: &Version) -> String {
    format!(
        "the current package for {source} {version} doesn't match any of the checksums \
         previously recorded in the dependency lock file"
    )
}

fn sorted(mut hashes: Vec<String>) -> Vec<String> {
    hashes.sort();
    hashes.dedup();
    hashes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cached(h1: &str) -> Option<String> {
        Some(h1.to_owned())
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn what_is_kept() {
        let cache = InstallRules {
            cache: Some(CacheRules::default()),
        };
        let may_break = InstallRules {
            cache: Some(CacheRules {
                may_break_lock_file: true,
            }),
        };
        let recorded = strings(&["h1:a", "zh:z"]);
        let target = InstalledPackages {
            target: Some("h1:a".into()),
            cache: None,
        };
        assert_eq!(
            keep(&target, &recorded, &InstallRules::default()),
            Some((Installed::Reused, recorded.clone()))
        );
        assert_eq!(keep(&target, &[], &cache), None, "no hash recorded");
        let wrong = InstalledPackages {
            target: Some("h1:other".into()),
            cache: cached("h1:a"),
        };
        assert_eq!(
            keep(&wrong, &recorded, &cache),
            Some((Installed::FromCache, recorded.clone())),
            "the cache's entry, which the lock file records"
        );
        assert_eq!(
            keep(&wrong, &recorded, &InstallRules::default()),
            None,
            "no cache used"
        );
        let unknown = InstalledPackages {
            target: None,
            cache: cached("h1:c"),
        };
        assert_eq!(
            keep(&unknown, &recorded, &may_break),
            None,
            "recorded, not matching"
        );
        assert_eq!(keep(&unknown, &[], &cache), None, "Terraform 1.4's rule");
        assert_eq!(
            keep(&unknown, &[], &may_break),
            Some((Installed::FromCache, strings(&["h1:c"])))
        );
        assert_eq!(
            keep(&unknown, &strings(&["h1:c", "zh:z"]), &cache),
            Some((Installed::FromCache, strings(&["h1:c", "zh:z"]))),
            "recorded"
        );
    }

    #[test]
    fn layout() {
        let source =
            ProviderSource::parse("127.0.0.1:8443/ns/alpha", tfdisco_core::Dialect::Terraform)
                .expect("a source");
        let version = Version::parse("1.2.0", tfdisco_core::Dialect::Terraform).expect("a version");
        let platform = Platform::parse("linux_amd64").expect("a platform");
        assert_eq!(
            package_dir(&source, &version, &platform),
            PathBuf::from("127.0.0.1:8443/ns/alpha/1.2.0/linux_amd64")
        );
        assert_eq!(
            cache_lock_path(&source, &version, &platform),
            PathBuf::from("127.0.0.1:8443/ns/alpha/1.2.0/linux_amd64.lock")
        );
        assert!(!staging_prefix(&platform).contains('_'));
        assert_eq!(staging_prefix(&platform), ".tfdisco-staging-linux-amd64-");
    }

    #[test]
    fn stale_staging_folders() {
        let amd64 = Platform::parse("linux_amd64").expect("a platform");
        let arm = Platform::parse("linux_arm").expect("a platform");
        let day = Some(OLD_STAGING_AGE);
        let now = Some(Duration::ZERO);
        assert!(stale_staging(
            ".tfdisco-staging-linux-amd64-Ab12",
            &amd64,
            now
        ));
        assert!(stale_staging(
            ".tfdisco-staging-linux-amd64-Ab12",
            &amd64,
            None
        ));
        for (name, platform, age) in [
            (".tfdisco-staging-linux-amd64-Ab12", &arm, now),
            (".tfdisco-staging-linux-arm64-Ab12", &arm, day),
            (".tfdisco-staging-linux-amd64-", &amd64, day),
            (".tfdisco-staging-linux-amd64-a.b", &amd64, day),
            ("linux_amd64", &amd64, day),
            (".tfdisco-staging-12-3", &amd64, now),
            (".tfdisco-staging-12-3", &amd64, None),
            (".tfdisco-staging-12-x", &amd64, day),
        ] {
            assert!(
                !stale_staging(name, platform, age),
                "{name} {platform} {age:?}"
            );
        }
        assert!(
            stale_staging(".tfdisco-staging-12-3", &amd64, day),
            "an earlier release's, a day old"
        );
    }

    #[test]
    fn recorded_hashes() {
        assert!(folder_matches_recorded("h1:x", &[]));
        assert!(folder_matches_recorded("h1:x", &strings(&["zh:y", "h1:x"])));
        assert!(!folder_matches_recorded("h1:x", &strings(&["zh:x"])));
    }
}
