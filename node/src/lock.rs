//! Lock files: what `client.lock` takes (platforms, providers, jobs →
//! `tfdisco_transport::LockOptions`) and gives (the shape of
//! `tfdisco lock --json`), and `hashPackage`, the lock file hashes of a
//! provider package on disk.

use std::fs::File;
use std::path::{Path, PathBuf};

use napi::Env;
use napi::bindgen_prelude::{AsyncBlock, Either, PromiseRaw, spawn_blocking};
use napi_derive::napi;
use tfdisco_core::{Dialect, Platform, ProviderSource, hash_package_reader};
use tfdisco_transport::{LockOptions, LockReport};

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
}

/// The `LockOptions` of a lock call, the sources parsed in `dialect`:
/// `InvalidArgumentError`, `InvalidSourceError` or `InvalidOptionError`
/// before anything is read or asked.
pub(crate) fn lock_options(
    given: NativeLockOptions,
    dialect: Dialect,
) -> Result<LockOptions, Failure> {
    if given.jobs == 0 {
        return Err(Failure::invalid_option("jobs must be at least 1"));
    }
    let jobs = usize::try_from(given.jobs).unwrap_or(usize::MAX);
    let mut options = LockOptions::new().concurrency(jobs);
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
