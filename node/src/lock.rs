//! Lock files and mirrors: what `client.lock` takes (platforms, providers,
//! jobs, a mirror, the plugin cache → `tfdisco_runs::LockOptions`),
//! what `client.mirror` takes (`tfdisco_runs::MirrorOptions`) and what
//! `client.mirrorToOci` takes (a repository template and the same
//! options). What they give is the library's report (`crate::report`).

use std::path::PathBuf;

use napi_derive::napi;
use tfdisco_config::DialectChoice;
use tfdisco_core::{Error, Platform, ProviderSource};
use tfdisco_provider::oci_mirror::OciMirrorTemplate;
use tfdisco_runs::{ClientSetup, LockOptions, MirrorOptions, OptionError};

use crate::errors::Failure;

/// The options object `lib/client.js` makes of `lock(dir, options)`.
#[napi(object)]
pub struct NativeLockOptions {
    /// `OS_ARCH` platforms; none: the platform this program runs on.
    pub platforms: Vec<String>,
    /// Lock only these providers (source addresses).
    pub providers: Vec<String>,
    /// Requests at once (none: the default, 8).
    pub jobs: Option<u32>,
    /// Take every provider from this network mirror (an `https:` URL).
    pub net_mirror: Option<String>,
    /// Take every provider from this filesystem mirror (a folder).
    pub fs_mirror: Option<String>,
    /// Take every provider from this OCI mirror (a repository template).
    pub oci_mirror: Option<String>,
    /// Use the plugin cache (`-enable-plugin-cache`).
    pub enable_plugin_cache: bool,
    /// This plugin cache folder instead of the CLI configuration's (only
    /// with `enable_plugin_cache`).
    pub plugin_cache: Option<String>,
}

/// The options object `lib/client.js` makes of `mirror(dir, folder,
/// options)`.
#[napi(object)]
pub struct NativeMirrorOptions {
    /// `OS_ARCH` platforms; none: the platform this program runs on.
    pub platforms: Vec<String>,
    /// Requests at once (none: the default, 8).
    pub jobs: Option<u32>,
    /// Whether the lock file decides the versions.
    pub lock_file: bool,
}

/// The `MirrorOptions` of a mirror call, the client's `choice` of dialect
/// given for the report.
pub(crate) fn mirror_options(
    given: NativeMirrorOptions,
    choice: &DialectChoice,
) -> Result<MirrorOptions, Failure> {
    let mut options = MirrorOptions::new()
        .lock_file(given.lock_file)
        .dialect_choice(choice.clone());
    if let Some(jobs) = given.jobs {
        options = options.jobs(jobs_arg(jobs)?);
    }
    for platform in &given.platforms {
        options = options.platform(Platform::parse(platform)?);
    }
    Ok(options)
}

/// The repository template of `mirrorToOci` (OpenTofu's `-oci-mirror`
/// template), read as `tfdisco mirror --to-oci TEMPLATE` reads it: one that
/// does not parse is an `InvalidArgumentError`.
pub(crate) fn oci_template(given: &str) -> Result<OciMirrorTemplate, Failure> {
    OciMirrorTemplate::parse_as(given, "template")
        .map_err(|message| Failure::from(Error::InvalidArgument { message }))
}

/// `options.jobs`, read by the rule every front end shares
/// (`tfdisco_runs::jobs`): 0 is an `InvalidOptionError`.
fn jobs_arg(given: u32) -> Result<std::num::NonZeroUsize, Failure> {
    tfdisco_runs::jobs(u64::from(given)).map_err(Failure::from)
}

/// The `LockOptions` of a lock call, the sources parsed in the client's
/// dialect (`choice`, given for the report), the plugin cache read from
/// the client's `setup` (its CLI configuration and environment, as
/// `install` reads them): `InvalidArgumentError`, `InvalidSourceError` or
/// `InvalidOptionError` (`pluginCache` without `enablePluginCache`, as the
/// CLI refuses `--plugin-cache` without `--enable-plugin-cache`) before
/// anything is read or asked.
pub(crate) fn lock_options(
    given: NativeLockOptions,
    choice: &DialectChoice,
    setup: &ClientSetup,
) -> Result<LockOptions, Failure> {
    let dialect = choice.dialect();
    let mut options = LockOptions::new().dialect_choice(choice.clone());
    if let Some(jobs) = given.jobs {
        options = options.jobs(jobs_arg(jobs)?);
    }
    options = options.mirrors(
        given.net_mirror.as_deref(),
        given.fs_mirror.map(PathBuf::from),
        given.oci_mirror.as_deref(),
    )?;
    for platform in &given.platforms {
        options = options.platform(Platform::parse(platform)?);
    }
    for source in &given.providers {
        options = options.provider(ProviderSource::parse_argument(source, dialect)?);
    }
    match (given.enable_plugin_cache, given.plugin_cache) {
        (false, None) => {}
        (false, Some(_)) => {
            return Err(OptionError::new(
                "options.pluginCache requires options.enablePluginCache: true",
            )
            .into());
        }
        (true, dir) => {
            options = options.enable_plugin_cache(setup);
            if let Some(dir) = dir {
                options = options.plugin_cache_dir(dir);
            }
        }
    }
    Ok(options)
}
