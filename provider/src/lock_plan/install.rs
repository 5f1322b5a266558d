//! What an install run (`init`) adds to a lock run's plan
//! (docs/behaviour.md, INSTALL-2 to INSTALL-4): before a provider's package
//! is fetched, what is already installed of the version is looked at (the
//! working folder's providers folder, then the plugin cache), and kept when
//! the lock file vouches for it; a package fetched must match a hash the
//! lock file already records for its version.

use std::path::PathBuf;

use tfdisco_core::{Platform, ProviderSource, Version};

use crate::fs_mirror::provider_dir;
use crate::package_hash::PackageHashes;

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

/// What the run that filled a plugin cache entry verified, relative to the
/// cache: `…/VERSION/OS_ARCH.metadata.json`, beside the entry, in newer
/// Terraform's format ([`metadata_document`]; INSTALL-12).
pub fn cache_metadata_path(
    source: &ProviderSource,
    version: &Version,
    platform: &Platform,
) -> PathBuf {
    beside(source, version, platform, "metadata.json")
}

/// The name of a staging folder beside a package's final place (in its
/// `VERSION` folder): a dot, and no `_`, so that no scan of the folder
/// takes it for a platform (INSTALL-10).
pub fn staging_name(unique: &str) -> String {
    format!(".tfdisco-staging-{unique}")
}

fn beside(source: &ProviderSource, version: &Version, platform: &Platform, ext: &str) -> PathBuf {
    provider_dir(source)
        .join(version.to_string())
        .join(format!("{platform}.{ext}"))
}

/// The metadata recorded beside a plugin cache entry: its `h1:` and the
/// hashes the run that filled it verified (signed `zh:` lines), as newer
/// Terraform writes `OS_ARCH.metadata.json`.
pub fn metadata_document(h1: &str, verified: &[String]) -> Vec<u8> {
    let quoted = |text: &str| serde_json::Value::from(text).to_string();
    let signed: Vec<String> = verified
        .iter()
        .filter(|h| *h != h1)
        .map(|h| quoted(h))
        .collect();
    format!(
        "{{\"version\":1,\"package_hash\":{},\"signed_hashes\":[{}]}}\n",
        quoted(h1),
        signed.join(",")
    )
    .into_bytes()
}

/// The `h1:` and verified hashes a [`metadata_document`] records; `None`
/// for anything else (another version of the format, a damaged file).
pub fn parse_metadata(bytes: &[u8]) -> Option<(String, Vec<String>)> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    if value.get("version")?.as_u64()? != 1 {
        return None;
    }
    let h1 = value.get("package_hash")?.as_str()?;
    if !h1.starts_with("h1:") {
        return None;
    }
    let signed = value
        .get("signed_hashes")?
        .as_array()?
        .iter()
        .map(|h| h.as_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()?;
    Some((h1.to_owned(), signed))
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
    /// The plugin cache's entry, if a cache is used and has one.
    pub cache: Option<CachedPackage>,
}

/// A plugin cache entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedPackage {
    /// The `h1:` of its files.
    pub h1: String,
    /// The hashes the run that installed it verified (its `h1:` and the
    /// signed `zh:` lines), as it recorded them beside it; empty when it
    /// recorded none (a cache filled by Terraform).
    pub verified: Vec<String>,
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
///   (its `h1:` added); or when the lock file records nothing for the
///   version and the entry's installer recorded what it verified (a
///   tfdisco run: those hashes are recorded), or the rules allow a cache
///   that may break the lock file (only its `h1:` is recorded).
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
    let hashes = if recorded.contains(&cached.h1) {
        let mut hashes = recorded.to_vec();
        hashes.push(cached.h1.clone());
        hashes
    } else if recorded.is_empty() && !cached.verified.is_empty() {
        let mut hashes = cached.verified.clone();
        hashes.push(cached.h1.clone());
        hashes
    } else if recorded.is_empty() && cache.may_break_lock_file {
        vec![cached.h1.clone()]
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

/// A provider's platform in an install run: the one the plan was made for.
pub(super) fn only_platform(platforms: &[Platform]) -> &Platform {
    &platforms[0]
}

fn sorted(mut hashes: Vec<String>) -> Vec<String> {
    hashes.sort();
    hashes.dedup();
    hashes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cached(h1: &str, verified: &[&str]) -> Option<CachedPackage> {
        Some(CachedPackage {
            h1: h1.to_owned(),
            verified: verified.iter().map(|s| (*s).to_owned()).collect(),
        })
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
            cache: cached("h1:a", &[]),
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
            cache: cached("h1:c", &[]),
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
        let verified = InstalledPackages {
            target: None,
            cache: cached("h1:c", &["zh:1", "zh:2"]),
        };
        assert_eq!(
            keep(&verified, &[], &cache),
            Some((Installed::FromCache, strings(&["h1:c", "zh:1", "zh:2"])))
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
        assert_eq!(
            cache_metadata_path(&source, &version, &platform),
            PathBuf::from("127.0.0.1:8443/ns/alpha/1.2.0/linux_amd64.metadata.json")
        );
        assert!(!staging_name("12-3").contains('_'));
        let doc = metadata_document("h1:x", &strings(&["h1:x", "zh:1"]));
        assert_eq!(
            String::from_utf8_lossy(&doc),
            "{\"version\":1,\"package_hash\":\"h1:x\",\"signed_hashes\":[\"zh:1\"]}\n"
        );
        assert_eq!(
            parse_metadata(&doc),
            Some(("h1:x".to_owned(), strings(&["zh:1"])))
        );
        for bad in [
            &b"{}"[..],
            b"{\"version\":2,\"package_hash\":\"h1:x\",\"signed_hashes\":[]}",
            b"[",
            b"",
        ] {
            assert_eq!(parse_metadata(bad), None);
        }
    }

    #[test]
    fn recorded_hashes() {
        assert!(folder_matches_recorded("h1:x", &[]));
        assert!(folder_matches_recorded("h1:x", &strings(&["zh:y", "h1:x"])));
        assert!(!folder_matches_recorded("h1:x", &strings(&["zh:x"])));
    }
}
