//! The plan of a lock run (docs/behaviour.md, LOCKRUN-1 to LOCKRUN-6): what
//! `terraform providers lock` asks the registries, in which order, and what
//! it makes of the answers, without doing any of it. A driver (the clients'
//! `lock`) takes [`Job`]s from [`ProviderPlan::next_job`], runs each with the
//! engine's rules (discovery, credentials, retries, limits), as many at once
//! as it likes, and hands each result to [`ProviderPlan::complete`]; then
//! [`ProviderPlan::finish`] says what the lock file gets, or why not.
//!
//! For each provider, from its registry ([`Origin::Registry`]): its
//! versions; the version selected (VER-11); for each platform its package
//! answer, its archive (hashed as it downloads), and its version's
//! `SHA256SUMS` and signature (each fetched once, however many platforms
//! share them: D18); every package verified (HASH rules) before any hash is
//! recorded. From a network mirror ([`Origin::NetworkMirror`],
//! `-net-mirror`): its `index.json`, the version's `<version>.json` (once
//! for every platform), each platform's archive, checked against the
//! hashes the mirror lists (HASH-22, LOCKRUN-7). From several installation
//! methods ([`Origin::Methods`], an install run's CLI configuration): every
//! method's versions, united, and the package from the first method that
//! has it (Go's `MultiSource`, INSTALL-13). The first failure stops new
//! jobs: the jobs already running finish, and every failure is reported.
//!
//! ```
//! use std::time::SystemTime;
//! use tfdisco_core::{Dialect, Platform, ProviderSource, VersionConstraints};
//! use tfdisco_provider::SignatureCheck;
//! use tfdisco_provider::plan::{Job, ProviderPlan, Requirement};
//!
//! let source = ProviderSource::parse("example.com/ns/alpha", Dialect::Terraform)?;
//! let constraints = VersionConstraints::parse("~> 1.0", Dialect::Terraform)?;
//! let mut plan = ProviderPlan::new(
//!     vec![Requirement { source, constraints, locked: None, recorded: None }],
//!     vec![Platform::new("linux", "amd64")],
//!     SignatureCheck::new(Dialect::Terraform, SystemTime::now()),
//! );
//! let (_, job) = plan.next_job().expect("the versions are asked for first");
//! assert!(matches!(job, Job::Versions { .. }));
//! assert!(plan.next_job().is_none()); // nothing else until they are known
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;

use url::Url;

use tfdisco_core::{
    Dialect, Error, ErrorKind, Hostname, NetworkMirror, NetworkMirrorArchives,
    NetworkMirrorVersions, Platform, ProviderPackage, ProviderSource, ProviderVersions,
    SelectionError, Sink, Version, VersionConstraints, select,
};

mod install;
mod origins;
mod requirements;

pub use install::{
    CACHE_WAIT_REPORTED_AFTER, CacheRules, InstallRules, Installed, InstalledPackages,
    OLD_STAGING_AGE, Recorded, cache_lock_path, package_dir, readonly_refusal, staging_prefix,
    stale_staging, unrequired,
};
pub use origins::OriginError;
pub use requirements::{Required, requirements};

use crate::fs_mirror::{LocalPackage, LocalPackages};
use crate::installation::{MethodError, MultiSourceError, available_versions};
use crate::oci_mirror::{self, NoManifest};
use crate::package_hash::{
    ArchiveDigest, AuthenticationError, PackageCheck, PackageHasher, PackageHashes, SignatureCheck,
    Trust, authenticate_mirror_archive, authenticate_package, trusted_mirror_hashes,
};
use tfdisco_oci::{Descriptor, FetchedManifest, ImageIndex, Reference, RepositoryAddress};

/// One provider the configuration requires.
#[derive(Clone, Debug)]
pub struct Requirement {
    /// The provider.
    pub source: ProviderSource,
    /// Its constraints from every module, merged.
    pub constraints: VersionConstraints,
    /// The version the lock file holds for it, if any: kept while it meets
    /// the constraints (VER-11). None for an install run's `--upgrade`.
    pub locked: Option<Version>,
    /// The lock file's entry for it, if any (install runs, and lock runs
    /// with a plugin cache; other lock runs ignore it): an install of that
    /// version is kept when it matches; in an install run, a package of
    /// that version fetched must match (INSTALL-3, INSTALL-4, LOCKRUN-10).
    pub recorded: Option<Recorded>,
}

/// Where a run gets a provider from: for a lock run, `providers lock`'s
/// one source (its registry, `-net-mirror`, `-fs-mirror`; the CLI
/// configuration's `provider_installation` is not read, as the CLIs do not
/// read it there); for an install run, the installation methods that may
/// install it ([`Origin::Methods`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// Each provider's own registry: discovery, `providers.v1`, signed
    /// checksums.
    #[default]
    Registry,
    /// A network mirror, for every provider.
    NetworkMirror(NetworkMirror),
    /// OpenTofu's `network_mirror { trust_all_hashes = true }`: a network
    /// mirror whose hashes for every platform vouch for an archive and,
    /// once one matched, are reported for the lock file (MIRROR-14). With
    /// Terraform, which has no such setting, a plain network mirror.
    TrustedNetworkMirror(NetworkMirror),
    /// A filesystem mirror (`-fs-mirror=DIR`), for every provider: the
    /// packages found in it (`tfdisco_config`'s `FilesystemMirror::scan`).
    Filesystem(LocalPackages),
    /// An OCI registry mirror (OpenTofu's `oci_mirror`): the provider's
    /// repository in it (OCIMIRROR-1 to OCIMIRROR-5).
    OciMirror(RepositoryAddress),
    /// The installation methods that may install the provider, in priority
    /// order, asked as `init` asks them (Go's `MultiSource`, INSTALL-13):
    /// every method's versions, united (a method that does not know the
    /// provider is skipped; any other failure fails the provider); the
    /// version selected among them; then, for each platform, the package
    /// of the first method in order that has one (a method without the
    /// version or the platform is skipped; any other failure fails the
    /// provider), fetched and verified as that origin's alone.
    /// [`ProviderLock::method`] says which method it came from. A list
    /// inside a list is read as its methods in its place. A list of one
    /// method differs from that method alone only in its failures, which
    /// are Go's `MultiSource`'s: a provider no method has any version of is
    /// `provider … was not found in any of the search locations`
    /// ([`LockProblem::NotFound`], also for a filesystem mirror without
    /// it, where the method alone gives no version to select), a platform
    /// none has a package for `provider … is not available for …`.
    Methods(Vec<Origin>),
}

impl Origin {
    /// The methods of this origin, in priority order: those of an
    /// [`Origin::Methods`] (flattened), or this origin alone.
    fn methods(self) -> Vec<Origin> {
        match self {
            Origin::Methods(list) => list.into_iter().flat_map(Origin::methods).collect(),
            one => vec![one],
        }
    }
}

/// Names a job handed out by [`ProviderPlan::next_job`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobId(usize);

/// A request the plan needs made. More kinds may come: a driver should
/// fail a job it does not know.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Job {
    /// The provider's versions (registry: `…/versions`).
    Versions {
        /// The provider.
        source: ProviderSource,
    },
    /// The package answer of `version` for `platform` (registry:
    /// `…/download/<os>/<arch>`).
    Package {
        /// The provider.
        source: ProviderSource,
        /// The version selected.
        version: Version,
        /// The platform.
        platform: Platform,
    },
    /// A small file kept whole (a `SHA256SUMS` or its signature), at most
    /// as large as a registry answer may be
    /// (`tfdisco_core::Config::registry_body_limit`, D10): a download,
    /// without a token.
    Document {
        /// Where it is.
        url: Url,
        /// The registry host it belongs to.
        about: Hostname,
    },
    /// A package archive, hashed by an [`ArchiveSink`] as it downloads: a
    /// download, without a token.
    Archive {
        /// Where it is.
        url: Url,
        /// The registry (or mirror) host it belongs to.
        about: Hostname,
        /// The provider it is a package of.
        source: ProviderSource,
        /// Its version.
        version: Version,
        /// Its platform.
        platform: Platform,
    },
    /// A network mirror's versions of a provider (`index.json`).
    MirrorVersions {
        /// The mirror.
        mirror: NetworkMirror,
        /// The provider.
        source: ProviderSource,
    },
    /// A filesystem mirror's package, to hash from disk
    /// ([`JobOutput::Local`]): an archive read through a
    /// [`PackageHasher`], a directory's files.
    LocalPackage {
        /// The package.
        package: LocalPackage,
    },
    /// Install runs, and lock runs with a plugin cache: what is already
    /// installed of `version` for `platform` ([`JobOutput::Installed`]):
    /// the working folder's install (a lock run's target folder is empty),
    /// then the plugin cache's entry, each with its `h1:`. The driver takes the cache
    /// entry's lock before it looks, and keeps it until the plan's
    /// [`Job::Place`] or [`Job::Release`] for the entry (or the run's end),
    /// staging a download into the cache only while it holds it.
    Installed {
        /// The provider.
        source: ProviderSource,
        /// The version.
        version: Version,
        /// The platform.
        platform: Platform,
    },
    /// Runs with a plugin cache: puts the verified package of
    /// `version` for `platform` into the cache (its staged download, or a
    /// filesystem mirror's archive) in place of whatever the entry held,
    /// and releases the cache entry's lock ([`JobOutput::Done`]). Done as
    /// soon as the package is verified, so that a run never keeps a cache
    /// entry locked while it waits for another (INSTALL-12).
    Place {
        /// The provider.
        source: ProviderSource,
        /// The version.
        version: Version,
        /// The platform.
        platform: Platform,
    },
    /// Runs with a plugin cache: releases the cache entry's lock
    /// taken for [`Job::Installed`] ([`JobOutput::Done`]), what is there
    /// being kept.
    Release {
        /// The provider.
        source: ProviderSource,
        /// The version.
        version: Version,
        /// The platform.
        platform: Platform,
    },
    /// A network mirror's archives of a version (`<version>.json`).
    MirrorArchives {
        /// The mirror.
        mirror: NetworkMirror,
        /// The provider.
        source: ProviderSource,
        /// The version selected.
        version: Version,
    },
    /// An OCI repository's tags ([`JobOutput::OciTags`]).
    OciTags {
        /// The repository.
        address: RepositoryAddress,
        /// The provider it holds.
        source: ProviderSource,
    },
    /// A manifest or index of an OCI repository
    /// ([`JobOutput::OciManifest`]), asked for as one of `accept`.
    OciManifest {
        /// The repository.
        address: RepositoryAddress,
        /// The tag or digest naming it.
        reference: Reference,
        /// The media types asked for.
        accept: Vec<String>,
    },
    /// A package archive in an OCI repository (the layer of a platform's
    /// manifest), hashed by an [`ArchiveSink`] as it downloads, its size
    /// and digest checked ([`JobOutput::Archive`]).
    OciBlob {
        /// The repository.
        address: RepositoryAddress,
        /// The layer.
        layer: Descriptor,
        /// The provider it is a package of.
        source: ProviderSource,
        /// Its version.
        version: Version,
        /// Its platform.
        platform: Platform,
    },
}

/// What a job gave.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum JobOutput {
    /// For [`Job::Versions`].
    Versions(ProviderVersions),
    /// For [`Job::Package`].
    Package(Box<ProviderPackage>),
    /// For [`Job::Document`]: the file.
    Document(Vec<u8>),
    /// For [`Job::Archive`]: what its [`ArchiveSink`] read.
    Archive(ArchiveDigest),
    /// For [`Job::MirrorVersions`].
    MirrorVersions(NetworkMirrorVersions),
    /// For [`Job::MirrorArchives`].
    MirrorArchives(Box<NetworkMirrorArchives>),
    /// For [`Job::OciTags`]: every tag.
    OciTags(Vec<String>),
    /// For [`Job::OciManifest`].
    OciManifest(Box<FetchedManifest>),
    /// For [`Job::Installed`].
    Installed(InstalledPackages),
    /// For [`Job::Installed`]: another run holds the cache entry's lock;
    /// the plan asks again later (the driver waits a little first, without
    /// keeping a job's place).
    Busy,
    /// For [`Job::Place`] and [`Job::Release`].
    Done,
    /// For [`Job::LocalPackage`].
    Local {
        /// `h1:…` of the package's files.
        h1: String,
        /// The archive's hashes (packed layout only).
        archive: Option<PackageHashes>,
    },
    /// For [`Job::LocalPackage`]: the package was read and is no provider
    /// package that can be hashed (or, installing, unpacked); why, naming
    /// the file. The provider fails with [`LockProblem::Package`].
    NoPackage(String),
}

/// The sink of a [`Job::Archive`]: a [`PackageHasher`] that never stops the
/// download, so that an archive that is no package is still checked
/// against its checksum first, as the CLIs check it (HASH-17).
#[derive(Debug, Default)]
pub struct ArchiveSink {
    hasher: Option<PackageHasher>,
}

impl ArchiveSink {
    /// A sink that has read nothing.
    pub fn new() -> ArchiveSink {
        ArchiveSink {
            hasher: Some(PackageHasher::new()),
        }
    }
}

impl Sink for ArchiveSink {
    type Output = ArchiveDigest;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if let Some(hasher) = &mut self.hasher {
            // A zip error is kept for after the checksum check.
            let _ = hasher.update(chunk);
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<ArchiveDigest, String> {
        let hasher = self.hasher.take().unwrap_or_default();
        Ok(hasher.finish_digest())
    }
}

/// What the lock file gets for one provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderLock {
    /// The provider.
    pub source: ProviderSource,
    /// The version selected.
    pub version: Version,
    /// The configuration's constraints, as the lock file writes them (empty
    /// when there are none).
    pub constraints: String,
    /// The hashes verified in this run, sorted: the `h1:` of each platform's
    /// package and, from a registry, the `zh:` of every archive the signed
    /// `SHA256SUMS` lists (from a network mirror, with OpenTofu, the listed
    /// hashes the archive matched).
    pub hashes: Vec<String>,
    /// How the signing key is trusted ([`Trust::Checksum`] or
    /// [`Trust::Unauthenticated`] for a mirror's packages).
    pub trust: Trust,
    /// The id of the key that signed `SHA256SUMS` (16 hex digits); none
    /// when OpenTofu skipped the signature, and for a mirror's packages.
    pub key_id: Option<String>,
    /// Each platform's archive, in the order of the plan's platforms
    /// (none for a filesystem mirror's unpacked directories, nor for a
    /// package an install run kept).
    pub packages: Vec<LockedPackage>,
    /// Install runs: how the package was got (lock runs: `None`); with
    /// several platforms, the first's.
    pub installed: Option<Installed>,
    /// Where the packages came from: the position, among the provider's
    /// [`Origin::Methods`] (0 for any other origin), of the method the
    /// first platform's package came from; `None` for an install run's
    /// kept package, which came from none.
    pub method: Option<usize>,
}

/// One platform's archive of a [`ProviderLock`]: what `tfdisco mirror`
/// lists for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedPackage {
    /// The platform.
    pub platform: Platform,
    /// The archive's hashes.
    pub archive: PackageHashes,
    /// OpenTofu: the hashes the registry's `packages` gives for this
    /// platform (none otherwise).
    pub reported: Vec<String>,
}

/// Why a provider could not be locked.
#[derive(Clone, Debug)]
pub struct LockFailure {
    /// The provider.
    pub source: ProviderSource,
    /// The version, once selected.
    pub version: Option<Version>,
    /// The platform, for a platform's package.
    pub platform: Option<Platform>,
    /// What failed.
    pub problem: LockProblem,
    dialect: Dialect,
}

/// What failed for a provider.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum LockProblem {
    /// No version could be selected.
    Selection(SelectionError),
    /// The registry (or mirror) does not have the provider at all (404).
    Unknown(Error),
    /// No installation method of an [`Origin::Methods`] has any version of
    /// the provider, and no registry said it does not know it (Go's
    /// `ErrProviderNotFound`): the message names the methods asked.
    NotFound(String),
    /// The registry does not offer the version for the platform.
    NotOffered(Error),
    /// A filesystem mirror has no package of the version for the platform.
    NotInMirror(String),
    /// A registry request or a download failed, or a local file (a
    /// filesystem mirror's package) could not be read.
    Request(Error),
    /// The archive is not what `SHA256SUMS` and the package answer list
    /// (the checks `packages`, `checksum` and `archive`).
    Checksum(AuthenticationError),
    /// The signature of `SHA256SUMS` does not verify with the registry's
    /// keys, or a key's trust signature does not hold.
    Signature(AuthenticationError),
    /// The archive matches its checksum but is no provider package, or a
    /// filesystem mirror's package is none.
    Package(String),
    /// Install runs: the package matches none of the hashes the lock file
    /// records for its version (INSTALL-4).
    NotRecorded(String),
}

impl LockFailure {
    /// A failure of `source` (at `version`, for `platform` when known),
    /// its messages in the words of `dialect`'s CLI.
    pub fn new(
        source: ProviderSource,
        version: Option<Version>,
        platform: Option<Platform>,
        problem: LockProblem,
        dialect: Dialect,
    ) -> LockFailure {
        LockFailure {
            source,
            version,
            platform,
            problem,
            dialect,
        }
    }

    /// True when nothing offered fits: no version meets the constraints,
    /// the registry or mirror does not have the provider, or the version
    /// has no package for the platform; false when a request, a download,
    /// a local file or a verification failed.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self.problem,
            LockProblem::Selection(_)
                | LockProblem::Unknown(_)
                | LockProblem::NotFound(_)
                | LockProblem::NotOffered(_)
                | LockProblem::NotInMirror(_)
        )
    }

    /// What failed, in a word: `version`, `provider` (unknown), `platform`,
    /// `request`, `checksum`, `signature` or `package`.
    pub fn kind(&self) -> &'static str {
        match self.problem {
            LockProblem::Selection(_) => "version",
            LockProblem::Unknown(_) | LockProblem::NotFound(_) => "provider",
            LockProblem::NotOffered(_) | LockProblem::NotInMirror(_) => "platform",
            LockProblem::Request(_) => "request",
            LockProblem::Checksum(_) | LockProblem::NotRecorded(_) => "checksum",
            LockProblem::Signature(_) => "signature",
            LockProblem::Package(_) => "package",
        }
    }
}

impl fmt::Display for LockFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        if let Some(version) = &self.version {
            write!(f, " {version}")?;
        }
        if let Some(platform) = &self.platform {
            write!(f, " for {platform}")?;
        }
        match &self.problem {
            LockProblem::Selection(e) => write!(f, ": {}", e.message(&self.source, self.dialect)),
            LockProblem::Unknown(e) | LockProblem::NotOffered(e) | LockProblem::Request(e) => {
                write!(f, ": {e}")
            }
            LockProblem::Checksum(e) => write!(f, ": checksum: {e}"),
            LockProblem::Signature(e) => write!(f, ": signature: {e}"),
            LockProblem::NotFound(why)
            | LockProblem::NotInMirror(why)
            | LockProblem::NotRecorded(why) => write!(f, ": {why}"),
            LockProblem::Package(why) => write!(f, ": package: {why}"),
        }
    }
}

impl std::error::Error for LockFailure {}

/// What a running job is for: a provider (`p`), one of its methods (`m`)
/// or platforms (`i`).
#[derive(Clone, Debug)]
enum Purpose {
    Versions(usize, usize),
    Installed(usize, usize),
    Place(usize),
    Release(usize),
    Package(usize, usize),
    Document(Url),
    Archive(usize, usize),
    LocalPackage(usize, usize),
    MirrorArchives(usize, usize),
    OciIndex(usize, usize),
    OciManifest(usize, usize),
}

/// One provider's progress.
#[derive(Debug)]
struct Provider {
    requirement: Requirement,
    /// Where its versions and packages come from: the methods in priority
    /// order (one for a single origin).
    methods: Vec<Origin>,
    /// True for an [`Origin::Methods`]: its answers combine as Go's
    /// `MultiSource` combines them, in its words.
    multi: bool,
    /// Each method's answer about the versions, once in.
    versions: Vec<Option<Result<Vec<Version>, Error>>>,
    /// Each method's answer about the selected version as a whole (a
    /// network mirror's `<version>.json`, an OCI index), shared by the
    /// platforms that look there.
    answers: Vec<VersionAnswer>,
    version: Option<Version>,
    platforms: Vec<PlatformState>,
    /// Install runs: the version whose installs are looked at.
    checked: Option<Version>,
    done: bool,
}

/// A method's answer about a version as a whole.
#[derive(Debug, Default)]
enum VersionAnswer {
    /// Not asked.
    #[default]
    None,
    /// Asked: the platforms at this method wait for it.
    Asked,
    /// A network mirror's `<version>.json`.
    Archives(Box<NetworkMirrorArchives>),
    /// An OCI mirror's index of the version.
    Index(Box<ImageIndex>),
}

#[derive(Debug, Default)]
struct PlatformState {
    /// The method its package is looked for at, then comes from.
    method: usize,
    /// The registry's package answer.
    package: Option<ProviderPackage>,
    /// The hashes a network mirror lists for the archive (with
    /// `trust_all_hashes`, for every platform), and whether it trusts them
    /// all.
    listed: Option<(Vec<String>, bool)>,
    /// A filesystem mirror's package, once hashed.
    local: Option<Verified>,
    archive: Option<ArchiveDigest>,
    verified: Option<Verified>,
    /// Install runs: whether what is installed of the checked version
    /// was asked about, and answered.
    looked: Look,
    /// Install runs: kept without fetching, and the hashes then recorded.
    kept: Option<(Installed, Vec<String>)>,
}

/// Whether what is installed for a platform was looked at.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Look {
    #[default]
    No,
    Asked,
    Answered,
}

#[derive(Clone, Debug)]
struct Verified {
    hashes: Vec<String>,
    trust: Trust,
    key_id: Option<String>,
    archive: Option<PackageHashes>,
    reported: Vec<String>,
}

/// A file shared by the platforms of a version.
#[derive(Debug)]
enum Document {
    Asked,
    Got(Vec<u8>),
    Failed,
}

/// The plan of one lock run: see the [module](self).
#[derive(Debug)]
pub struct ProviderPlan {
    providers: Vec<Provider>,
    platforms: Vec<Platform>,
    /// The rules of what is installed: an install run's, a lock run's with
    /// a plugin cache; `None` for another lock run.
    install: Option<InstallRules>,
    /// True for an install run (`init`), false for a lock run, with a
    /// plugin cache or without: `providers lock` asks every provider's
    /// versions before it looks at anything installed, and takes a package
    /// it verified whatever the lock file records for its version
    /// (Terraform's `InstallNewProvidersForce`; LOCKRUN-10).
    init: bool,
    dialect: Dialect,
    check: SignatureCheck,
    ready: VecDeque<(JobId, Purpose, Job)>,
    running: HashMap<JobId, Purpose>,
    documents: HashMap<Url, Document>,
    failures: Vec<LockFailure>,
    next_id: usize,
}

impl ProviderPlan {
    /// A plan to lock `requirements` for `platforms` (each asked for once,
    /// in the order given) from their registries, checking packages as
    /// `check` says (its dialect, and the time signatures are judged at).
    /// Providers are locked in address order.
    pub fn new(
        requirements: Vec<Requirement>,
        platforms: Vec<Platform>,
        check: SignatureCheck,
    ) -> ProviderPlan {
        ProviderPlan::with_origin(requirements, platforms, check, Origin::Registry)
    }

    /// [`ProviderPlan::new`], the providers taken from `origin`.
    pub fn with_origin(
        requirements: Vec<Requirement>,
        platforms: Vec<Platform>,
        check: SignatureCheck,
        origin: Origin,
    ) -> ProviderPlan {
        let requirements = requirements
            .into_iter()
            .map(|r| (r, origin.clone()))
            .collect();
        ProviderPlan::build(requirements, platforms, check, None, false)
    }

    /// [`ProviderPlan::new`], each provider taken from its own origin (an OCI
    /// mirror's repository is each provider's own).
    pub fn with_origins(
        requirements: Vec<(Requirement, Origin)>,
        platforms: Vec<Platform>,
        check: SignatureCheck,
    ) -> ProviderPlan {
        ProviderPlan::build(requirements, platforms, check, None, false)
    }

    /// [`ProviderPlan::with_origins`] with the plugin cache, as `providers lock
    /// -enable-plugin-cache` uses it (LOCKRUN-10): once a provider's
    /// version is selected, each platform's cache entry is looked at
    /// ([`Job::Installed`], the entry's lock taken) and linked without a
    /// download when the lock file records its `h1:` for that version
    /// ([`Requirement::recorded`]), or `cache` may break the lock file and
    /// it records nothing for it: that platform's hashes are then those
    /// recorded and the entry's `h1:`. Any other platform's package is
    /// fetched and verified as without a cache, placed in the cache at once
    /// ([`Job::Place`]), and gives the same hashes (its `h1:`, the signed
    /// `zh:`). What the lock file records never refuses a package.
    pub fn with_plugin_cache(
        requirements: Vec<(Requirement, Origin)>,
        platforms: Vec<Platform>,
        check: SignatureCheck,
        cache: CacheRules,
    ) -> ProviderPlan {
        let rules = InstallRules { cache: Some(cache) };
        ProviderPlan::build(requirements, platforms, check, Some(rules), false)
    }

    /// The plan of an install run (`init`; INSTALL-2 to INSTALL-4) for
    /// `platform`, each provider taken from its own origin (the
    /// installation method that installs it): a locked version that no
    /// longer meets the constraints fails before any request; unless
    /// upgrading ([`Requirement::locked`] `None`), what is installed of the
    /// locked version is looked at first ([`Job::Installed`]) and kept
    /// without a request when the lock file vouches for it; else the
    /// version is selected, what is installed of it looked at, and the
    /// package fetched and verified as a lock run's, then checked against
    /// the hashes the lock file records for its version.
    pub fn install(
        requirements: Vec<(Requirement, Origin)>,
        platform: Platform,
        check: SignatureCheck,
        rules: InstallRules,
    ) -> ProviderPlan {
        ProviderPlan::build(requirements, vec![platform], check, Some(rules), true)
    }

    fn build(
        mut requirements: Vec<(Requirement, Origin)>,
        mut platforms: Vec<Platform>,
        check: SignatureCheck,
        install: Option<InstallRules>,
        init: bool,
    ) -> ProviderPlan {
        requirements.sort_by(|a, b| a.0.source.cmp(&b.0.source));
        requirements.dedup_by(|a, b| a.0.source == b.0.source);
        let mut seen = Vec::new();
        platforms.retain(|p| {
            let new = !seen.contains(p);
            seen.push(p.clone());
            new
        });
        let mut plan = ProviderPlan {
            providers: Vec::new(),
            platforms,
            install,
            init,
            dialect: check.dialect,
            check,
            ready: VecDeque::new(),
            running: HashMap::new(),
            documents: HashMap::new(),
            failures: Vec::new(),
            next_id: 0,
        };
        for (requirement, origin) in requirements {
            let multi = matches!(origin, Origin::Methods(_));
            let methods = origin.methods();
            plan.providers.push(Provider {
                requirement,
                multi,
                versions: methods.iter().map(|_| None).collect(),
                answers: methods.iter().map(|_| VersionAnswer::None).collect(),
                methods,
                version: None,
                platforms: (0..plan.platforms.len())
                    .map(|_| PlatformState::default())
                    .collect(),
                checked: None,
                done: false,
            });
        }
        for p in 0..plan.providers.len() {
            plan.start(p);
        }
        plan
    }

    /// A provider's first step: in an install run with a locked version,
    /// what is installed of it (or the failure of a locked version the
    /// constraints no longer allow); else its versions.
    fn start(&mut self, p: usize) {
        let requirement = &self.providers[p].requirement;
        if self.init
            && let Some(locked) = requirement.locked.clone()
        {
            if !requirement.constraints.allows(&locked) {
                // The same refusal selection makes, before any request.
                if let Err(e) = select(&[], &requirement.constraints, Some(&locked)) {
                    self.fail(p, None, LockProblem::Selection(e));
                }
                return;
            }
            return self.look_at_installs(p, locked);
        }
        self.ask_versions(p);
    }

    /// Asks every method of a provider for its versions (a filesystem
    /// mirror's are known at once); they are combined once all are in.
    fn ask_versions(&mut self, p: usize) {
        let source = self.providers[p].requirement.source.clone();
        for (m, origin) in self.providers[p].methods.clone().into_iter().enumerate() {
            let job = match origin {
                Origin::Registry => Job::Versions {
                    source: source.clone(),
                },
                Origin::NetworkMirror(mirror) | Origin::TrustedNetworkMirror(mirror) => {
                    Job::MirrorVersions {
                        mirror,
                        source: source.clone(),
                    }
                }
                Origin::Filesystem(packages) => {
                    self.providers[p].versions[m] = Some(Ok(packages.versions(&source)));
                    continue;
                }
                Origin::OciMirror(address) => Job::OciTags {
                    address,
                    source: source.clone(),
                },
                // Flattened when the plan was made.
                Origin::Methods(_) => {
                    self.providers[p].versions[m] = Some(Ok(Vec::new()));
                    continue;
                }
            };
            self.push(Purpose::Versions(p, m), job);
        }
        self.on_versions(p);
    }

    /// Install runs: asks what is installed of `version` for every
    /// platform.
    fn look_at_installs(&mut self, p: usize, version: Version) {
        self.providers[p].checked = Some(version);
        for i in 0..self.platforms.len() {
            self.look_at_install(p, i);
        }
    }

    /// Install runs: asks what is installed of the checked version for
    /// platform `i` (again, when another run held the cache entry).
    fn look_at_install(&mut self, p: usize, i: usize) {
        let Some(version) = self.providers[p].checked.clone() else {
            return;
        };
        self.providers[p].platforms[i].looked = Look::Asked;
        let job = Job::Installed {
            source: self.providers[p].requirement.source.clone(),
            version,
            platform: self.platforms[i].clone(),
        };
        self.push(Purpose::Installed(p, i), job);
    }

    /// Install runs: what is installed of the checked version for platform
    /// `i`. Kept (the cache entry's lock released), or else its package
    /// fetched once the version is selected; with the locked version
    /// looked at before any request, the versions are asked once every
    /// platform answered and one was not kept. A provider whose every
    /// platform is kept is done.
    fn on_installed(&mut self, p: usize, i: usize, found: &InstalledPackages) {
        let Some(version) = self.providers[p].checked.clone() else {
            return;
        };
        let rules = self.install.clone().unwrap_or_default();
        let recorded = self.recorded_hashes(p, &version);
        self.providers[p].platforms[i].looked = Look::Answered;
        let kept = install::keep(found, &recorded, &rules);
        let selected = self.providers[p].version.is_some();
        match kept {
            Some(kept) => {
                self.providers[p].platforms[i].kept = Some(kept);
                if rules.cache.is_some() {
                    let job = Job::Release {
                        source: self.providers[p].requirement.source.clone(),
                        version: version.clone(),
                        platform: self.platforms[i].clone(),
                    };
                    self.push(Purpose::Release(p), job);
                }
            }
            None if selected => {
                self.providers[p].platforms[i].method = 0;
                self.seek(p, i, None);
            }
            None => {}
        }
        let provider = &mut self.providers[p];
        if provider.platforms.iter().all(|state| state.kept.is_some()) {
            provider.version = Some(version);
            provider.done = true;
        } else if !selected
            && provider
                .platforms
                .iter()
                .all(|state| state.looked == Look::Answered)
        {
            self.ask_versions(p);
        }
    }

    /// The hashes the lock file records for `version` of provider `p`.
    fn recorded_hashes(&self, p: usize, version: &Version) -> Vec<String> {
        match &self.providers[p].requirement.recorded {
            Some(recorded) if &recorded.version == version => recorded.hashes.clone(),
            _ => Vec::new(),
        }
    }

    /// Queues a job. A document (`SHA256SUMS`, a signature: small, and
    /// needed only to verify) waits behind every other ready job, which
    /// keep their order: with the job cap reached, it is a document that
    /// waits a round trip, not a package's download or the answer that
    /// leads to one (LOCKRUN-2).
    fn push(&mut self, purpose: Purpose, job: Job) {
        let id = JobId(self.next_id);
        self.next_id += 1;
        let at = match job {
            Job::Document { .. } => self.ready.len(),
            _ => self
                .ready
                .iter()
                .position(|(_, _, queued)| matches!(queued, Job::Document { .. }))
                .unwrap_or(self.ready.len()),
        };
        self.ready.insert(at, (id, purpose, job));
    }

    /// The next job to run, if one is ready; `None` does not mean the plan
    /// is over: see [`ProviderPlan::is_finished`]. After a failure no job is
    /// handed out.
    pub fn next_job(&mut self) -> Option<(JobId, Job)> {
        if !self.failures.is_empty() {
            self.ready.clear();
            return None;
        }
        let (id, purpose, job) = self.ready.pop_front()?;
        self.running.insert(id, purpose);
        Some((id, job))
    }

    /// True when no job handed out is still running and none is ready (or
    /// a failure stopped the plan).
    pub fn is_finished(&self) -> bool {
        self.running.is_empty() && (self.ready.is_empty() || !self.failures.is_empty())
    }

    /// The result of job `id`. A result for a job this plan does not know
    /// (completed twice) is ignored.
    pub fn complete(&mut self, id: JobId, result: Result<JobOutput, Error>) {
        let Some(purpose) = self.running.remove(&id) else {
            return;
        };
        match (purpose, result) {
            (Purpose::Versions(p, m), Ok(JobOutput::Versions(answer))) => {
                let available = answer
                    .versions
                    .iter()
                    .filter_map(|v| Version::parse(&v.version, self.dialect).ok())
                    .collect();
                self.versions_of(p, m, Ok(available))
            }
            (Purpose::Versions(p, m), Ok(JobOutput::MirrorVersions(answer))) => {
                self.versions_of(p, m, Ok(answer.versions))
            }
            (Purpose::Versions(p, m), Ok(JobOutput::OciTags(tags))) => {
                let versions = oci_mirror::versions_from_tags(&tags, self.dialect);
                self.versions_of(p, m, Ok(versions))
            }
            (Purpose::Versions(p, m), Err(e)) => self.versions_of(p, m, Err(e)),
            (Purpose::OciIndex(p, m), Ok(JobOutput::OciManifest(fetched))) => {
                self.on_oci_index(p, m, &fetched)
            }
            (Purpose::OciManifest(p, i), Ok(JobOutput::OciManifest(fetched))) => {
                self.on_oci_manifest(p, i, &fetched)
            }
            (Purpose::Installed(p, i), Ok(JobOutput::Installed(found))) => {
                self.on_installed(p, i, &found)
            }
            (Purpose::Installed(p, i), Ok(JobOutput::Busy)) => self.look_at_install(p, i),
            (Purpose::Place(_) | Purpose::Release(_), Ok(JobOutput::Done)) => {}
            (Purpose::MirrorArchives(p, m), Ok(JobOutput::MirrorArchives(answer))) => {
                self.providers[p].answers[m] = VersionAnswer::Archives(answer);
                self.seek_waiting(p, m);
            }
            (Purpose::Package(p, i), Ok(JobOutput::Package(package))) => {
                self.on_package(p, i, *package)
            }
            (Purpose::Package(p, i), Err(e)) if e.kind() == ErrorKind::NotFound => {
                // Go's `ErrPlatformNotSupported`: the next method is asked.
                self.next_method(p, i, LockProblem::NotOffered(e))
            }
            (Purpose::Document(url), Ok(JobOutput::Document(bytes))) => {
                self.documents.insert(url, Document::Got(bytes));
                self.verify_ready();
            }
            (Purpose::Archive(p, i), Ok(JobOutput::Archive(digest))) => {
                self.providers[p].platforms[i].archive = Some(digest);
                self.verify_ready();
            }
            (Purpose::LocalPackage(p, i), Ok(JobOutput::Local { h1, archive })) => {
                self.providers[p].platforms[i].local = Some(unauthenticated(h1, archive));
                self.verify_ready();
            }
            (Purpose::LocalPackage(p, i), Ok(JobOutput::NoPackage(why))) => {
                self.fail(p, Some(i), LockProblem::Package(why))
            }
            (Purpose::Document(url), Err(e)) => {
                self.documents.insert(url.clone(), Document::Failed);
                // Every platform waiting for it fails with it.
                for p in 0..self.providers.len() {
                    for i in 0..self.platforms.len() {
                        if self.needs(p, i, &url) {
                            self.fail(p, Some(i), LockProblem::Request(e.clone()));
                        }
                    }
                }
            }
            (
                Purpose::MirrorArchives(p, _)
                | Purpose::OciIndex(p, _)
                | Purpose::Installed(p, _)
                | Purpose::Place(p)
                | Purpose::Release(p),
                Err(e),
            ) => self.fail(p, None, LockProblem::Request(e)),
            (
                Purpose::Package(p, i)
                | Purpose::Archive(p, i)
                | Purpose::LocalPackage(p, i)
                | Purpose::OciManifest(p, i),
                Err(e),
            ) => self.fail(p, Some(i), LockProblem::Request(e)),
            (purpose, Ok(output)) => {
                debug_assert!(false, "{purpose:?} completed with {output:?}");
            }
        }
    }

    fn needs(&self, p: usize, i: usize, url: &Url) -> bool {
        self.providers[p].platforms[i]
            .package
            .as_ref()
            .is_some_and(|pkg| &pkg.shasums_url == url || &pkg.shasums_signature_url == url)
    }

    fn fail(&mut self, p: usize, platform: Option<usize>, problem: LockProblem) {
        let provider = &mut self.providers[p];
        provider.done = true;
        self.failures.push(LockFailure::new(
            provider.requirement.source.clone(),
            provider.version.clone(),
            platform.map(|i| self.platforms[i].clone()),
            problem,
            self.dialect,
        ));
    }

    /// Method `m`'s answer about a provider's versions; once every method
    /// answered, they are combined and a version selected.
    fn versions_of(&mut self, p: usize, m: usize, answer: Result<Vec<Version>, Error>) {
        self.providers[p].versions[m] = Some(answer);
        self.on_versions(p);
    }

    /// Once every method answered: the versions combined (a single origin's
    /// as its own; several as Go's `MultiSource.AvailableVersions` combines
    /// them, INSTALL-13), then a version selected (VER-11).
    fn on_versions(&mut self, p: usize) {
        let provider = &self.providers[p];
        if provider.done || provider.versions.iter().any(Option::is_none) {
            return;
        }
        let answers: Vec<Result<Vec<Version>, Error>> =
            provider.versions.iter().flatten().cloned().collect();
        let available = if provider.multi {
            self.united_versions(p, answers)
        } else {
            match answers.into_iter().next() {
                Some(Err(e)) if e.kind() == ErrorKind::NotFound => Err(LockProblem::Unknown(e)),
                Some(Err(e)) => Err(LockProblem::Request(e)),
                Some(Ok(versions)) => Ok(versions),
                None => Ok(Vec::new()),
            }
        };
        let available = match available {
            Ok(available) => available,
            Err(problem) => return self.fail(p, None, problem),
        };
        let requirement = &self.providers[p].requirement;
        match select(
            &available,
            &requirement.constraints,
            requirement.locked.as_ref(),
        ) {
            Ok(version) => {
                self.providers[p].version = Some(version.clone());
                if self.install.is_some() && self.providers[p].checked.as_ref() != Some(&version) {
                    return self.look_at_installs(p, version);
                }
                self.fetch(p, version);
            }
            Err(e) => self.fail(p, None, LockProblem::Selection(e)),
        }
    }

    /// The versions several methods offer together
    /// ([`available_versions`]): a registry's 404 is its
    /// `ErrRegistryProviderNotKnown`, another method's its
    /// `ErrProviderNotFound`, both skipped; the first other failure, in
    /// the methods' order, fails the provider.
    fn united_versions(
        &self,
        p: usize,
        answers: Vec<Result<Vec<Version>, Error>>,
    ) -> Result<Vec<Version>, LockProblem> {
        let provider = &self.providers[p];
        let source = &provider.requirement.source;
        let mut not_known = None;
        let answers: Vec<_> = provider
            .methods
            .iter()
            .zip(answers)
            .map(|(origin, answer)| {
                let answer = match answer {
                    Ok(versions) => Ok((versions, Vec::new())),
                    Err(e) if e.kind() == ErrorKind::NotFound => {
                        if *origin == Origin::Registry {
                            not_known.get_or_insert(e);
                            Err(MethodError::RegistryProviderNotKnown)
                        } else {
                            Err(MethodError::ProviderNotFound)
                        }
                    }
                    Err(e) => Err(MethodError::Other(e)),
                };
                (String::new(), answer)
            })
            .collect();
        match available_versions(source, answers) {
            Ok(available) => Ok(available.versions),
            Err(MultiSourceError::Other(e)) => Err(LockProblem::Request(e)),
            // The registry's own 404, in Go's words.
            Err(MultiSourceError::RegistryProviderNotKnown { .. }) if let Some(e) = not_known => {
                Err(LockProblem::Unknown(e))
            }
            Err(_) => Err(LockProblem::NotFound(format!(
                "provider {source} was not found in any of the search locations"
            ))),
        }
    }

    /// Looks for the selected version's package for every platform not
    /// kept, from the provider's first method on.
    fn fetch(&mut self, p: usize, _version: Version) {
        for i in 0..self.platforms.len() {
            if self.providers[p].platforms[i].kept.is_some() {
                continue;
            }
            self.providers[p].platforms[i].method = 0;
            self.seek(p, i, None);
        }
    }

    /// Platform `i` found no package at its method (`why`): the next
    /// method is asked.
    fn next_method(&mut self, p: usize, i: usize, why: LockProblem) {
        self.providers[p].platforms[i].method += 1;
        self.seek(p, i, Some(why));
    }

    /// Looks for platform `i`'s package of the selected version at its
    /// method, then at each method after it that has none (Go's
    /// `MultiSource.PackageMeta`, INSTALL-13): a registry's package
    /// answer, a filesystem mirror's package, a network mirror's
    /// `<version>.json` entry or an OCI index's manifest for the platform,
    /// each asked when it is that method's turn. `why` says why the method
    /// before had none. With no method left, a single origin fails with its
    /// own reason, several with Go's `ErrPlatformNotSupported`.
    fn seek(&mut self, p: usize, i: usize, mut why: Option<LockProblem>) {
        let Some(version) = self.providers[p].version.clone() else {
            return;
        };
        let source = self.providers[p].requirement.source.clone();
        let platform = self.platforms[i].clone();
        loop {
            if self.providers[p].done {
                return;
            }
            let m = self.providers[p].platforms[i].method;
            let Some(origin) = self.providers[p].methods.get(m).cloned() else {
                break;
            };
            let none_here = match origin {
                Origin::Registry => {
                    let job = Job::Package {
                        source,
                        version,
                        platform,
                    };
                    return self.push(Purpose::Package(p, i), job);
                }
                Origin::Filesystem(packages) => {
                    match packages.package(&source, &version, &platform) {
                        Some(package) => {
                            let job = Job::LocalPackage {
                                package: package.clone(),
                            };
                            return self.push(Purpose::LocalPackage(p, i), job);
                        }
                        None => LockProblem::NotInMirror(format!(
                            "provider {source} {version} is not available for {platform}"
                        )),
                    }
                }
                Origin::NetworkMirror(mirror) | Origin::TrustedNetworkMirror(mirror) => {
                    match &self.providers[p].answers[m] {
                        VersionAnswer::Archives(answer) => {
                            let answer = answer.clone();
                            match self.mirror_archive(p, i, &mirror, &answer) {
                                Ok(()) => return,
                                Err(problem) => problem,
                            }
                        }
                        VersionAnswer::None => {
                            self.providers[p].answers[m] = VersionAnswer::Asked;
                            let job = Job::MirrorArchives {
                                mirror,
                                source,
                                version,
                            };
                            return self.push(Purpose::MirrorArchives(p, m), job);
                        }
                        VersionAnswer::Asked | VersionAnswer::Index(_) => return,
                    }
                }
                Origin::OciMirror(address) => match &self.providers[p].answers[m] {
                    VersionAnswer::Index(index) => {
                        let selected = oci_mirror::select_platform(index, &platform);
                        match selected {
                            Ok(entry) => {
                                let job = Job::OciManifest {
                                    address,
                                    reference: Reference::Digest(entry.digest),
                                    accept: vec![entry.media_type],
                                };
                                return self.push(Purpose::OciManifest(p, i), job);
                            }
                            Err(NoManifest::PlatformNotSupported) => {
                                LockProblem::NotInMirror(format!(
                                    "provider {source} {version} is not available for {platform}"
                                ))
                            }
                            Err(NoManifest::Invalid(why)) => {
                                return self.fail(p, Some(i), LockProblem::Package(why));
                            }
                        }
                    }
                    VersionAnswer::None => {
                        self.providers[p].answers[m] = VersionAnswer::Asked;
                        let tag = match oci_mirror::tag_for(&version) {
                            Ok(tag) => tag,
                            Err(why) => return self.fail(p, None, LockProblem::Package(why)),
                        };
                        let job = Job::OciManifest {
                            address,
                            reference: Reference::Tag(tag),
                            accept: oci_mirror::INDEX_ACCEPT
                                .iter()
                                .map(|&m| m.to_owned())
                                .collect(),
                        };
                        return self.push(Purpose::OciIndex(p, m), job);
                    }
                    VersionAnswer::Asked | VersionAnswer::Archives(_) => return,
                },
                // Flattened when the plan was made.
                Origin::Methods(_) => LockProblem::NotInMirror(format!(
                    "provider {source} {version} is not available for {platform}"
                )),
            };
            why = Some(none_here);
            self.providers[p].platforms[i].method += 1;
        }
        let problem = match why {
            Some(problem) if !self.providers[p].multi => problem,
            _ => LockProblem::NotInMirror(format!(
                "provider {source} {version} is not available for {platform}"
            )),
        };
        self.fail(p, Some(i), problem);
    }

    /// Method `m`'s answer about the selected version came in: every
    /// platform looking there goes on.
    fn seek_waiting(&mut self, p: usize, m: usize) {
        for i in 0..self.platforms.len() {
            let state = &self.providers[p].platforms[i];
            let waiting = state.method == m
                && state.package.is_none()
                && state.listed.is_none()
                && state.local.is_none()
                && state.verified.is_none();
            if waiting {
                self.seek(p, i, None);
            }
        }
    }

    /// An OCI mirror's index of the selected version (OCIMIRROR-2): kept
    /// for the platforms that look there, each asking its manifest or
    /// going on to the next method (OCIMIRROR-3).
    fn on_oci_index(&mut self, p: usize, m: usize, fetched: &FetchedManifest) {
        match oci_mirror::check_index(fetched) {
            Ok(index) => {
                self.providers[p].answers[m] = VersionAnswer::Index(Box::new(index));
                self.seek_waiting(p, m);
            }
            Err(why) => self.fail(p, None, LockProblem::Package(why)),
        }
    }

    /// A platform's manifest in an OCI mirror: its zip layer fetched, to be
    /// checked against the `zh:` its digest is (OCIMIRROR-4, OCIMIRROR-5).
    fn on_oci_manifest(&mut self, p: usize, i: usize, fetched: &FetchedManifest) {
        let m = self.providers[p].platforms[i].method;
        let Some(Origin::OciMirror(address)) = self.providers[p].methods.get(m).cloned() else {
            return;
        };
        let layer = oci_mirror::check_manifest(fetched)
            .and_then(|manifest| oci_mirror::select_layer(&manifest))
            .and_then(|layer| oci_mirror::zh_hash(&layer).map(|zh| (layer, zh)));
        let (layer, zh) = match layer {
            Ok(found) => found,
            Err(why) => return self.fail(p, Some(i), LockProblem::Package(why)),
        };
        self.providers[p].platforms[i].listed = Some((vec![zh], false));
        let job = Job::OciBlob {
            address,
            layer,
            source: self.providers[p].requirement.source.clone(),
            version: self.providers[p].version.clone().unwrap_or_default(),
            platform: self.platforms[i].clone(),
        };
        self.push(Purpose::Archive(p, i), job);
    }

    /// Platform `i`'s archive in a network mirror's `<version>.json`
    /// (MIRROR-6, MIRROR-7): its download asked, with the hashes that
    /// vouch for it (with `trust_all_hashes`, every platform's: MIRROR-14);
    /// or, when the mirror has none for the platform, why (the next method
    /// is asked). An entry that cannot be used fails the provider.
    fn mirror_archive(
        &mut self,
        p: usize,
        i: usize,
        mirror: &NetworkMirror,
        answer: &NetworkMirrorArchives,
    ) -> Result<(), LockProblem> {
        let m = self.providers[p].platforms[i].method;
        // Terraform has no `trust_all_hashes`: such a mirror is a plain one.
        let trusted = self.dialect == Dialect::OpenTofu
            && matches!(
                self.providers[p].methods.get(m),
                Some(Origin::TrustedNetworkMirror(_))
            );
        let platform = self.platforms[i].clone();
        let archive = match answer.archive(&platform) {
            Ok(archive) => archive,
            Err(e) if e.kind() == ErrorKind::NotFound => return Err(LockProblem::NotOffered(e)),
            Err(e) => {
                self.fail(p, Some(i), LockProblem::Request(e));
                return Ok(());
            }
        };
        let listed = if trusted {
            match answer.all_hashes() {
                Ok(hashes) => hashes,
                Err(e) => {
                    self.fail(p, Some(i), LockProblem::Request(e));
                    return Ok(());
                }
            }
        } else {
            archive.hashes
        };
        self.providers[p].platforms[i].listed = Some((listed, trusted));
        let job = Job::Archive {
            url: archive.url,
            about: mirror.host().clone(),
            source: self.providers[p].requirement.source.clone(),
            version: answer.version.clone(),
            platform,
        };
        self.push(Purpose::Archive(p, i), job);
        Ok(())
    }

    fn on_package(&mut self, p: usize, i: usize, package: ProviderPackage) {
        let about = package.source.host().clone();
        for url in [&package.shasums_url, &package.shasums_signature_url] {
            if !self.documents.contains_key(url) {
                self.documents.insert(url.clone(), Document::Asked);
                let job = Job::Document {
                    url: url.clone(),
                    about: about.clone(),
                };
                self.push(Purpose::Document(url.clone()), job);
            }
        }
        let job = Job::Archive {
            url: package.download_url.clone(),
            about,
            source: package.source.clone(),
            version: self.providers[p].version.clone().unwrap_or_else(|| {
                Version::parse(&package.version, self.dialect).unwrap_or_default()
            }),
            platform: package.platform.clone(),
        };
        self.providers[p].platforms[i].package = Some(package);
        self.push(Purpose::Archive(p, i), job);
    }

    /// Verifies every platform whose package, archive and documents are all
    /// in.
    fn verify_ready(&mut self) {
        for p in 0..self.providers.len() {
            for i in 0..self.platforms.len() {
                if self.providers[p].done {
                    break;
                }
                if let Some(result) = self.verify(p, i) {
                    match result.and_then(|verified| self.check_recorded(p, verified)) {
                        Ok(verified) => {
                            self.place_in_cache(p, i);
                            self.providers[p].platforms[i].verified = Some(verified);
                        }
                        Err(problem) => self.fail(p, Some(i), problem),
                    }
                }
            }
        }
    }

    fn verify(&self, p: usize, i: usize) -> Option<Result<Verified, LockProblem>> {
        let state = &self.providers[p].platforms[i];
        if state.verified.is_some() {
            return None;
        }
        if let Some((listed, trusted)) = &state.listed {
            let source = &self.providers[p].requirement.source;
            return Some(self.verify_mirrored(listed, *trusted, source, state.archive.as_ref()?));
        }
        if let Some(local) = &state.local {
            return Some(Ok(local.clone()));
        }
        let (package, digest) = (state.package.as_ref()?, state.archive.as_ref()?);
        let document = |url: &Url| match self.documents.get(url) {
            Some(Document::Got(bytes)) => Some(bytes.as_slice()),
            _ => None,
        };
        let archive = digest.checkable();
        let check = PackageCheck {
            package,
            sha256sums: document(&package.shasums_url)?,
            signature: document(&package.shasums_signature_url)?,
            archive: &archive,
        };
        let reported = match self.dialect {
            Dialect::OpenTofu => package
                .packages
                .iter()
                .flatten()
                .filter(|p| p.platform == package.platform)
                .flat_map(|p| p.hashes.iter().cloned())
                .collect(),
            Dialect::Terraform => Vec::new(),
        };
        Some(match authenticate_package(&check, &self.check) {
            Ok(authentication) => match &digest.hashes {
                Ok(hashes) => Ok(Verified {
                    hashes: authentication.hashes,
                    trust: authentication.trust,
                    key_id: authentication.signer.map(|s| s.key_id),
                    archive: Some(*hashes),
                    reported,
                }),
                Err(e) => Err(LockProblem::Package(e.to_string())),
            },
            Err(e) if e.is_signature() => Err(LockProblem::Signature(e)),
            Err(e) => Err(LockProblem::Checksum(e)),
        })
    }

    /// A mirror's archive: checked against the hashes the mirror lists
    /// (HASH-22); the lock file gets its package's `h1:` and, with
    /// OpenTofu, the listed hashes it matched (LOCKRUN-7) and, from a
    /// mirror that `trust_all_hashes`, those it reports (MIRROR-14).
    fn verify_mirrored(
        &self,
        listed: &[String],
        trusted: bool,
        source: &ProviderSource,
        digest: &ArchiveDigest,
    ) -> Result<Verified, LockProblem> {
        let checked = authenticate_mirror_archive(listed, &digest.checkable(), self.dialect)
            .map_err(LockProblem::Checksum)?;
        let archive = digest
            .hashes
            .as_ref()
            .map_err(|e| LockProblem::Package(e.to_string()))?;
        let mut hashes = vec![archive.h1()];
        if self.dialect == Dialect::OpenTofu {
            hashes.extend(checked.matched);
        }
        if trusted {
            hashes.extend(trusted_mirror_hashes(listed, source, &self.check));
        }
        hashes.sort();
        hashes.dedup();
        Ok(Verified {
            hashes,
            trust: checked.trust,
            key_id: None,
            archive: Some(*archive),
            reported: Vec::new(),
        })
    }

    /// Runs with a plugin cache: the verified package of platform `i` goes
    /// into the cache at once (INSTALL-12).
    fn place_in_cache(&mut self, p: usize, i: usize) {
        if self
            .install
            .as_ref()
            .is_none_or(|rules| rules.cache.is_none())
        {
            return;
        }
        let Some(version) = self.providers[p].version.clone() else {
            return;
        };
        let job = Job::Place {
            source: self.providers[p].requirement.source.clone(),
            version,
            platform: self.platforms[i].clone(),
        };
        self.push(Purpose::Place(p), job);
    }

    /// Install runs: a verified package must also match one of the hashes
    /// the lock file records for its version (INSTALL-4); a lock run's
    /// need not (LOCKRUN-10).
    fn check_recorded(&self, p: usize, verified: Verified) -> Result<Verified, LockProblem> {
        if !self.init {
            return Ok(verified);
        }
        let Some(version) = self.providers[p].version.clone() else {
            return Ok(verified);
        };
        let recorded = self.recorded_hashes(p, &version);
        let matches = match &verified.archive {
            Some(archive) => install::matches_recorded(archive, &recorded),
            // A filesystem mirror's folder: its `h1:` only.
            None => verified
                .hashes
                .iter()
                .any(|h1| install::folder_matches_recorded(h1, &recorded)),
        };
        if matches {
            Ok(verified)
        } else {
            let source = &self.providers[p].requirement.source;
            Err(LockProblem::NotRecorded(install::not_recorded_message(
                source, &version,
            )))
        }
    }

    /// Every failure so far.
    pub fn failures(&self) -> &[LockFailure] {
        &self.failures
    }

    /// What the lock file gets for each provider, in address order; or
    /// every failure. Call it once [`ProviderPlan::is_finished`].
    pub fn finish(self) -> Result<Vec<ProviderLock>, Vec<LockFailure>> {
        if !self.failures.is_empty() {
            return Err(self.failures);
        }
        let mut locks = Vec::with_capacity(self.providers.len());
        for provider in self.providers {
            let Some(version) = provider.version else {
                continue;
            };
            let mut hashes = Vec::new();
            let mut signer = None;
            let mut kept_as = None;
            let mut packages = Vec::new();
            let mut method = None;
            for (state, platform) in provider.platforms.into_iter().zip(&self.platforms) {
                if let Some((installed, kept)) = state.kept {
                    kept_as.get_or_insert(installed);
                    hashes.extend(kept);
                    continue;
                }
                let Some(verified) = state.verified else {
                    continue;
                };
                method.get_or_insert(state.method);
                hashes.extend(verified.hashes);
                if let Some(archive) = verified.archive {
                    packages.push(LockedPackage {
                        platform: platform.clone(),
                        archive,
                        reported: verified.reported,
                    });
                }
                signer.get_or_insert((verified.trust, verified.key_id));
            }
            hashes.sort();
            hashes.dedup();
            // A package fetched says how it is trusted; one only kept, the
            // lock file's word.
            let (trust, key_id, installed) = match (signer, kept_as) {
                (Some((trust, key_id)), _) => (trust, key_id, Installed::Fetched),
                (None, Some(kept)) => (Trust::LockFile, None, kept),
                (None, None) => continue,
            };
            locks.push(ProviderLock {
                source: provider.requirement.source,
                version,
                constraints: provider.requirement.constraints.to_string(),
                hashes,
                trust,
                key_id,
                packages,
                installed: self.init.then_some(installed),
                method,
            });
        }
        Ok(locks)
    }
}

/// A filesystem mirror's package: nothing vouches for it; the lock file gets
/// its `h1:` (LOCKRUN-8).
fn unauthenticated(h1: String, archive: Option<PackageHashes>) -> Verified {
    Verified {
        hashes: vec![h1],
        trust: Trust::Unauthenticated,
        key_id: None,
        archive,
        reported: Vec::new(),
    }
}
