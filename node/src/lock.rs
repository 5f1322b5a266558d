//! Lock files and mirrors: what `client.lock` takes (platforms, providers,
//! jobs, a mirror → `tfdisco_transport::LockOptions`) and gives (the shape
//! of `tfdisco lock --json`), what `client.mirror` takes and gives (`tfdisco
//! mirror --json`), `installationMethods` (`tfdisco provider source
//! --json`), and `hashPackage`, the lock file hashes of a provider package
//! on disk.

use std::fs::File;
use std::path::{Path, PathBuf};

use napi::Env;
use napi::bindgen_prelude::{AsyncBlock, Either, PromiseRaw, spawn_blocking};
use napi_derive::napi;
use std::collections::HashMap;

use tfdisco_config::CliConfig;
use tfdisco_core::{Dialect, Platform, ProviderSource};
use tfdisco_provider::{MethodSummary, hash_package_reader};
use tfdisco_transport::{LockOptions, LockReport, MirrorOptions, MirrorReport};

use crate::errors::{Failure, OrThrow};
use crate::promise;

/// The options object `lib/client.js` makes of `lock(dir, options)`.
#[napi(object)]
pub struct NativeLockOptions {
    /// `OS_ARCH` platforms; none: the platform this program runs on.
    pub platforms: Vec<String>,
    /// Lock only these providers (source addresses).
    pub providers: Vec<String>,
    /// Requests at once, at least 1.
    pub jobs: u32,
    /// Take every provider from this network mirror (an `https:` URL).
    pub net_mirror: Option<String>,
    /// Take every provider from this filesystem mirror (a folder).
    pub fs_mirror: Option<String>,
}

/// The options object `lib/client.js` makes of `mirror(dir, folder,
/// options)`.
#[napi(object)]
pub struct NativeMirrorOptions {
    /// `OS_ARCH` platforms; none: the platform this program runs on.
    pub platforms: Vec<String>,
    /// Requests at once, at least 1.
    pub jobs: u32,
    /// Whether the lock file decides the versions.
    pub lock_file: bool,
}

/// The `MirrorOptions` of a mirror call.
pub(crate) fn mirror_options(given: NativeMirrorOptions) -> Result<MirrorOptions, Failure> {
    let jobs = jobs(given.jobs)?;
    let mut options = MirrorOptions::new()
        .concurrency(jobs)
        .lock_file(given.lock_file);
    for platform in &given.platforms {
        options = options.platform(Platform::parse(platform)?);
    }
    Ok(options)
}

fn jobs(given: u32) -> Result<usize, Failure> {
    if given == 0 {
        return Err(Failure::invalid_option("jobs must be at least 1"));
    }
    Ok(usize::try_from(given).unwrap_or(usize::MAX))
}

/// The `LockOptions` of a lock call, the sources parsed in `dialect`:
/// `InvalidArgumentError`, `InvalidSourceError` or `InvalidOptionError`
/// before anything is read or asked.
pub(crate) fn lock_options(
    given: NativeLockOptions,
    dialect: Dialect,
) -> Result<LockOptions, Failure> {
    let mut options = LockOptions::new().concurrency(jobs(given.jobs)?).mirrors(
        given.net_mirror.as_deref(),
        given.fs_mirror.map(PathBuf::from),
    )?;
    for platform in &given.platforms {
        options = options.platform(Platform::parse(platform)?);
    }
    for source in &given.providers {
        options = options.provider(provider_source(source, dialect)?);
    }
    Ok(options)
}

/// A provider source a registry request can use: fully qualified.
pub(crate) fn provider_source(given: &str, dialect: Dialect) -> Result<ProviderSource, Failure> {
    ProviderSource::parse(given, dialect)
        .and_then(|source| source.validate().map(|()| source))
        .map_err(|error| {
            Failure::from(tfdisco_core::Error::InvalidSource {
                input: given.to_owned(),
                error,
            })
        })
}

/// What `client.lock` resolves to.
#[napi(object)]
pub struct LockReportObject {
    /// The lock file (`.terraform.lock.hcl` in the directory).
    pub lock_file: String,
    /// True when its bytes changed (and it was written).
    pub changed: bool,
    /// The platforms locked (`OS_ARCH`).
    pub platforms: Vec<String>,
    /// Each provider locked, in address order.
    pub providers: Vec<LockedProviderObject>,
}

/// One provider of a lock report.
#[napi(object, use_nullable = true)]
pub struct LockedProviderObject {
    /// The provider's full address.
    pub source: String,
    /// The version locked.
    pub version: String,
    /// Its constraints as the lock file writes them; empty for none.
    pub constraints: String,
    /// The hashes the lock file did not hold before, sorted.
    pub hashes_added: Vec<String>,
    /// How the key that signed its checksums is trusted, in the CLI's words.
    pub trust: String,
    /// That key's id, or null when OpenTofu skipped the signature.
    pub key_id: Option<String>,
}

impl From<LockReport> for LockReportObject {
    fn from(report: LockReport) -> Self {
        LockReportObject {
            lock_file: report.path.display().to_string(),
            changed: report.changed,
            platforms: report.platforms.iter().map(Platform::to_string).collect(),
            providers: report
                .providers
                .into_iter()
                .map(|p| LockedProviderObject {
                    source: p.source.to_string(),
                    version: p.version.to_string(),
                    constraints: p.constraints,
                    hashes_added: p.hashes_added,
                    trust: p.trust.to_string(),
                    key_id: p.key_id,
                })
                .collect(),
        }
    }
}

/// What `client.mirror` resolves to: `tfdisco mirror --json`.
#[napi(object)]
pub struct MirrorReportObject {
    /// The mirror folder.
    pub folder: String,
    /// The platforms mirrored (`OS_ARCH`).
    pub platforms: Vec<String>,
    /// Every `index.json` and `<version>.json` written.
    pub indexes: Vec<String>,
    /// Each provider mirrored, in address order.
    pub providers: Vec<MirroredProviderObject>,
    /// Archives of the folder left out of the indexes, and why.
    pub skipped: Vec<SkippedObject>,
    /// What the folder's scan said about paths that are no package.
    pub warnings: Vec<String>,
}

/// One provider of a mirror report.
#[napi(object, use_nullable = true)]
pub struct MirroredProviderObject {
    /// The provider's full address.
    pub source: String,
    /// The version mirrored.
    pub version: String,
    /// Its constraints as the lock file writes them; empty for none.
    pub constraints: String,
    /// True when the lock file decided the version.
    pub locked: bool,
    /// How the key that signed its checksums is trusted, in the CLI's words.
    pub trust: String,
    /// That key's id, or null when OpenTofu skipped the signature.
    pub key_id: Option<String>,
    /// The archives written, one per platform.
    pub archives: Vec<String>,
}

/// An archive left out of a mirror's indexes.
#[napi(object)]
pub struct SkippedObject {
    /// The archive.
    pub path: String,
    /// Why.
    pub why: String,
}

impl From<MirrorReport> for MirrorReportObject {
    fn from(report: MirrorReport) -> Self {
        let path = |p: &PathBuf| p.display().to_string();
        MirrorReportObject {
            folder: path(&report.folder),
            platforms: report.platforms.iter().map(Platform::to_string).collect(),
            indexes: report.indexes.iter().map(path).collect(),
            providers: report
                .providers
                .into_iter()
                .map(|p| MirroredProviderObject {
                    source: p.source.to_string(),
                    version: p.version.to_string(),
                    constraints: p.constraints,
                    locked: p.locked,
                    trust: p.trust.to_string(),
                    key_id: p.key_id,
                    archives: p.archives.iter().map(path).collect(),
                })
                .collect(),
            skipped: report
                .skipped
                .iter()
                .map(|(p, why)| SkippedObject {
                    path: path(p),
                    why: why.clone(),
                })
                .collect(),
            warnings: report.warnings,
        }
    }
}

/// One installation method and what it says of a provider
/// (`installationMethods`).
#[napi(object, use_nullable = true)]
pub struct InstallationMethodObject {
    /// `direct`, `network_mirror`, `filesystem_mirror`, `oci_mirror` or
    /// `dev_overrides`.
    pub method: String,
    /// Where it looks.
    pub location: String,
    /// Its place, from 1; null for a development override.
    pub priority: Option<u32>,
    /// Whether it may install the provider.
    pub may_install: bool,
    /// Why, in words.
    pub reason: String,
    /// False for `oci_mirror`, which tfdisco does not install from.
    pub supported: bool,
}

impl From<MethodSummary> for InstallationMethodObject {
    fn from(s: MethodSummary) -> Self {
        InstallationMethodObject {
            method: s.method.to_owned(),
            location: s.location,
            priority: s.priority.map(|p| u32::try_from(p).unwrap_or(u32::MAX)),
            may_install: s.may_install,
            reason: s.reason,
            supported: s.supported,
        }
    }
}

/// The options object `index.js` makes of `installationMethods(source,
/// options)`.
#[napi(object)]
pub struct NativeInstallationOptions {
    /// `terraform` or `opentofu` (also `tofu`), in any case.
    pub dialect: String,
    /// The working directory; none: the current one.
    pub cwd: Option<String>,
    /// The environment to read; none: the process's.
    pub env: Option<HashMap<String, String>>,
}

/// Which installation methods of the CLI configuration would install
/// `source`, in priority order, and why (`tfdisco provider source`): the
/// first `provider_installation` block, or the implied configuration. Reads
/// files (and local mirror folders) on the calling thread.
#[napi]
pub fn installation_methods(
    env: Env,
    source: String,
    options: NativeInstallationOptions,
) -> napi::Result<Vec<InstallationMethodObject>> {
    let answer = || -> Result<Vec<InstallationMethodObject>, Failure> {
        let dialect: Dialect = options
            .dialect
            .parse()
            .map_err(|e: tfdisco_core::UnknownDialect| Failure::invalid_option(e.to_string()))?;
        let source = provider_source(&source, dialect)?;
        let vars = match options.env {
            Some(vars) => vars
                .into_iter()
                .fold(tfdisco_core::Env::empty(), |env, (k, v)| env.with_var(k, v)),
            None => tfdisco_core::Env::from_process(),
        };
        let cwd = match options.cwd {
            Some(dir) => PathBuf::from(dir),
            None => std::env::current_dir()
                .map_err(|e| Failure::invalid_option(format!("no working directory: {e}")))?,
        };
        let installation = CliConfig::load(dialect, &vars).provider_installation(&cwd);
        Ok(installation
            .summary(&source)
            .into_iter()
            .map(InstallationMethodObject::from)
            .collect())
    };
    answer().or_throw(&env)
}

/// The lock file hashes of a provider package: `h1:` and `zh:`.
#[napi(object)]
pub struct PackageHashesObject {
    /// `h1:` and the base64 SHA-256 of the package's files (Go's
    /// `dirhash.Hash1`).
    pub h1: String,
    /// `zh:` and the hex SHA-256 of the zip file.
    pub zh: String,
}

fn hash_file(path: &Path) -> Result<PackageHashesObject, Failure> {
    match File::open(path).and_then(hash_package_reader) {
        Ok(hashes) => Ok(PackageHashesObject {
            h1: hashes.h1(),
            zh: hashes.zh(),
        }),
        Err(error) => Err(Failure::package(path, error)),
    }
}

/// The lock file hashes of the provider package at `path`, read on a
/// thread of the runtime's blocking pool.
#[napi]
pub fn hash_package<'env>(
    env: &'env Env,
    path: String,
) -> napi::Result<Either<PromiseRaw<'env, PackageHashesObject>, AsyncBlock<PackageHashesObject>>> {
    let path = PathBuf::from(path);
    promise::later(env, async move {
        match spawn_blocking(move || hash_file(&path)).await {
            Ok(result) => result,
            Err(e) => Err(Failure::new("internal", format!("hashing stopped: {e}"))),
        }
    })
}

/// `hashPackage`, on the calling thread.
#[napi]
pub fn hash_package_sync(env: Env, path: String) -> napi::Result<PackageHashesObject> {
    hash_file(Path::new(&path)).or_throw(&env)
}
