//! `hashPackage`: the lock file hashes of a provider package on disk, read
//! by the config crate's `hash_package_file`.

use std::path::{Path, PathBuf};

use napi::Env;
use napi::bindgen_prelude::{AsyncBlock, Either, PromiseRaw, spawn_blocking};
use napi_derive::napi;
use tfdisco_config::hash_package_file;

use crate::errors::{Failure, OrThrow};
use crate::promise;

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
    match hash_package_file(path) {
        Ok(hashes) => Ok(PackageHashesObject {
            h1: hashes.h1(),
            zh: hashes.zh(),
        }),
        Err(error) => Err(Failure::package(error)),
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
