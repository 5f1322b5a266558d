//! Lock files and mirrors: what `Client.lock` /
//! `AsyncClient.lock` take (platforms, providers, jobs, a network,
//! filesystem or OCI mirror, the plugin cache →
//! `tfdisco_runs::LockOptions`) and give
//! (`LockReport` of `LockedProvider`s, or `tfdisco.LockError` with its
//! `LockFailure`s); what `Client.mirror` takes (`MirrorOptions`) and gives
//! (`MirrorReport` of `MirroredProvider`s); what `Client.mirror_to_oci`
//! takes (a repository template and the same `MirrorOptions`) and gives
//! (`OciMirrorReport` of `OciMirroredProvider`s, each with its
//! `PushedRelease`).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tfdisco_config::DialectChoice;
use tfdisco_core::Platform;
use tfdisco_provider::oci_mirror::OciMirrorTemplate;
use tfdisco_provider::plan::LockFailure;
use tfdisco_runs::{
    ClientSetup, DEFAULT_JOBS, LockOptions, LockReport, MirrorOptions, MirrorReport,
    MirroredProvider, OciMirrorReport, OciMirroredProvider, ProviderReport, RunError,
    failure_exit_code,
};

use crate::dialect::PyDialectChoice;
use crate::errors::{self, IntoPyResult};
use crate::modules::PyModuleFailure;
use crate::oci_push::PyPushedRelease;
use crate::options::{items, jobs_arg};
use crate::record::record_class;
use crate::sources::{self, PyPlatform, PyProviderSource};

// The default of `jobs` is the transport's, which the signatures (a literal
// there, so that `__text_signature__` shows it) and the stubs write as 8.
const _: () = assert!(DEFAULT_JOBS.get() == 8);

// --- Arguments ----------------------------------------------------------------

/// The platforms of a `platforms` argument: `Platform`s or strs
/// (`"linux_amd64"`).
fn platforms_arg(platforms: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Platform>> {
    let mut all = Vec::new();
    if let Some(given) = platforms {
        for platform in items(given, "platforms", "platforms such as \"linux_amd64\"")? {
            all.push(sources::platform_arg(&platform)?);
        }
    }
    Ok(all)
}

/// Where a lock run takes the providers from: `net_mirror` (an `https:`
/// URL), `fs_mirror` (a folder) or `oci_mirror` (a repository template),
/// at most one.
#[derive(Default)]
pub(crate) struct Mirrors {
    pub(crate) net: Option<String>,
    pub(crate) fs: Option<PathBuf>,
    pub(crate) oci: Option<String>,
}

/// Whether a lock run uses the plugin cache: `enable_plugin_cache`
/// (`-enable-plugin-cache`), and `plugin_cache`, a folder instead of the
/// CLI configuration's (`tfdisco lock --plugin-cache`), only with it.
#[derive(Default)]
pub(crate) struct PluginCacheArgs {
    pub(crate) enable: bool,
    pub(crate) dir: Option<PathBuf>,
}

impl PluginCacheArgs {
    /// `options` with the plugin cache the arguments ask for, read from
    /// the client's `setup` (its CLI configuration and environment, as
    /// `install` reads them). `plugin_cache` without
    /// `enable_plugin_cache=True` raises `InvalidOption`, as the CLI
    /// refuses `--plugin-cache` without `--enable-plugin-cache`.
    fn apply(self, options: LockOptions, setup: &ClientSetup) -> PyResult<LockOptions> {
        if !self.enable {
            return match self.dir {
                None => Ok(options),
                Some(_) => Err(Python::attach(|py| {
                    errors::invalid_option(py, "plugin_cache requires enable_plugin_cache=True")
                })),
            };
        }
        let options = options.enable_plugin_cache(setup);
        Ok(match self.dir {
            Some(dir) => options.plugin_cache_dir(dir),
            None => options,
        })
    }
}

/// The `LockOptions` of a lock call: each platform a `Platform` or a str
/// (`"linux_amd64"`), each provider a `ProviderSource` or a str parsed in
/// the client's dialect and fully qualified; `jobs` at least 1; at most
/// one mirror; the plugin cache as `cache` asks, read from the client's
/// `setup`; the client's `choice` of dialect, for the report.
/// Raises `InvalidArgument`, `InvalidSource`, `InvalidOption`, `TypeError`
/// or `ValueError` before anything is read or asked.
pub(crate) fn options(
    platforms: Option<&Bound<'_, PyAny>>,
    providers: Option<&Bound<'_, PyAny>>,
    jobs: u64,
    choice: &DialectChoice,
    mirrors: Mirrors,
    cache: PluginCacheArgs,
    setup: &ClientSetup,
) -> PyResult<LockOptions> {
    let dialect = choice.dialect();
    let mut options = LockOptions::new()
        .dialect_choice(choice.clone())
        .jobs(jobs_arg(jobs)?)
        .platforms_from(platforms_arg(platforms)?);
    options = options
        .mirrors(mirrors.net.as_deref(), mirrors.fs, mirrors.oci.as_deref())
        .map_err(|e| Python::attach(|py| errors::from_core(py, &e)))?;
    options = cache.apply(options, setup)?;
    if let Some(given) = providers {
        for source in items(given, "providers", "provider source addresses")? {
            options = options.provider(sources::provider_source_arg(&source, dialect)?);
        }
    }
    Ok(options)
}

// --- Answers ------------------------------------------------------------------

record_class! {
    /// What a lock run did (`Client.lock`): the lock file, whether it changed,
    /// the platforms locked and each provider locked.
    PyLockReport(LockReport) as "LockReport" {
        /// The lock file (`.terraform.lock.hcl` in the directory), a
        /// `pathlib.Path`.
        path => |r| r.path.as_path(),
        /// True when its bytes changed (and it was written); False when it
        /// already held everything, and was left alone.
        changed => |r| r.changed,
        /// The platforms locked (`Platform`s): those given, or the one this
        /// program runs on.
        platforms => |r| r.platforms.iter().cloned().map(PyPlatform).collect::<Vec<_>>(),
        /// Each provider locked (`LockedProvider`s), in address order.
        providers => |r| r.providers.iter().cloned().map(PyLockedProvider).collect::<Vec<_>>(),
        /// The dialect the run followed and what chose it (a
        /// `DialectChoice`, the client's `dialect_choice`).
        dialect => |r| PyDialectChoice(r.dialect.clone()),
    }

    /// The report as one JSON document, the one `tfdisco lock --json`
    /// prints and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

record_class! {
    /// One provider of a `LockReport`: the version locked and what the lock
    /// file got for it.
    PyLockedProvider(ProviderReport) as "LockedProvider" {
        /// The provider (a `ProviderSource`).
        source => |p| PyProviderSource(p.source.clone()),
        /// The version locked (`1.1.0`).
        version => |p| p.version.to_string(),
        /// Its constraints as the lock file writes them (`~> 1.0`); empty when
        /// the configuration has none.
        constraints => |p| p.constraints.as_str(),
        /// The hashes (`h1:…`, `zh:…`) the lock file did not hold before,
        /// sorted; empty when it held them all.
        hashes_added => |p| p.hashes_added.clone(),
        /// How the key that signed its checksums is trusted, in the CLI's
        /// words: "signed by HashiCorp", "signed by a HashiCorp partner",
        /// "self-signed" (Terraform); "signed", "signing skipped" (OpenTofu);
        /// "verified checksum", "unauthenticated" (from a mirror).
        trust => |p| p.trust.label(),
        /// That key's id (16 hex digits); None when OpenTofu skipped the
        /// signature, and for a mirror's packages.
        key_id => |p| p.key_id.as_deref(),
    }
}

record_class! {
    /// Why one provider could not be locked (`LockError.failures`).
    PyLockFailure(LockFailure) as "LockFailure" {
        /// The provider (a `ProviderSource`).
        source => |f| PyProviderSource(f.source.clone()),
        /// The version, once one was selected; else None.
        version => |f| f.version.as_ref().map(ToString::to_string),
        /// The platform, for a platform's package (a `Platform`); else None.
        platform => |f| f.platform.clone().map(PyPlatform),
        /// What failed, in a word: "version" (no version meets the
        /// constraints), "provider" (the registry or mirror does not have
        /// it), "platform" (none for that platform), "request", "checksum",
        /// "signature" or "package".
        kind => |f| f.kind(),
        /// `tfdisco lock`'s exit code for it: 3 for "version", "provider"
        /// and "platform", 1 for the others.
        exit_code => |f| failure_exit_code(f),
        /// The whole message: the provider, version, platform and problem.
        message => |f| f.to_string(),
    }
}

/// The `tfdisco.LockError` for `error`: its message, its kind in the
/// words of `tfdisco lock --json` (`configuration`, `lock_file`, `usage`,
/// `failed`, `modules`, …), its exit code and, when providers or modules
/// failed, every failure (`LockFailure`s, or `ModuleFailure`s for kind
/// `modules`, as the `failures` of the JSON document).
pub(crate) fn lock_error(py: Python<'_>, error: RunError) -> PyErr {
    let kind = error.kind();
    let message = error.to_string();
    let exit_code = error.exit_code();
    let failures: PyResult<Vec<Py<PyAny>>> = match error {
        RunError::Failed(failures) => failures
            .into_iter()
            .map(|f| Py::new(py, PyLockFailure(f)).map(Py::into_any))
            .collect(),
        RunError::Modules(failures) => failures
            .into_iter()
            .map(|f| Py::new(py, PyModuleFailure(f)).map(Py::into_any))
            .collect(),
        _ => Ok(Vec::new()),
    };
    let failures = match failures {
        Ok(failures) => failures,
        Err(e) => return e,
    };
    static MAKE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    errors::made_by(
        py,
        &MAKE,
        "_make_lock",
        (message, kind, exit_code, failures),
    )
}

/// The `MirrorOptions` of a mirror call; raises before anything is read.
pub(crate) fn mirror_options(
    platforms: Option<&Bound<'_, PyAny>>,
    jobs: u64,
    lock_file: bool,
) -> PyResult<MirrorOptions> {
    Ok(MirrorOptions::new()
        .jobs(jobs_arg(jobs)?)
        .lock_file(lock_file)
        .platforms_from(platforms_arg(platforms)?))
}

record_class! {
    /// What a mirror run did (`Client.mirror`): the folder, the platforms,
    /// each provider mirrored and the indexes written.
    PyMirrorReport(MirrorReport) as "MirrorReport" {
        /// The mirror folder, a `pathlib.Path`.
        folder => |r| r.folder.as_path(),
        /// The platforms mirrored (`Platform`s).
        platforms => |r| r.platforms.iter().cloned().map(PyPlatform).collect::<Vec<_>>(),
        /// Each provider mirrored (`MirroredProvider`s), in address order.
        providers => |r| r.providers.iter().cloned().map(PyMirroredProvider).collect::<Vec<_>>(),
        /// Every `index.json` and `<version>.json` written (`pathlib.Path`s).
        indexes => |r| r.indexes.clone(),
        /// Archives of the folder left out of the indexes: `(path, why)`
        /// tuples.
        skipped => |r| r.skipped.clone(),
        /// What the folder's scan said about paths that are no package.
        warnings => |r| r.warnings.clone(),
        /// The dialect the run followed and what chose it (a
        /// `DialectChoice`, the client's `dialect_choice`).
        dialect => |r| PyDialectChoice(r.dialect.clone()),
    }

    /// The report as one JSON document, the one `tfdisco mirror --json`
    /// prints and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

/// The [`record_class!`] of a provider a mirror run selected
/// (`MirroredProvider`, `OciMirroredProvider`): the version selected, as
/// both say it (the provider, the version, its constraints, whether the
/// lock file decided it, how its signing key is trusted and that key's
/// id), then the fields that follow `trust,`: what the run did with it.
/// The docstring written above `trust,` is the `trust` field's.
macro_rules! selected_provider_class {
    (
        $(#[$attr:meta])*
        $class:ident($inner:ty) as $name:literal {
            $(#[doc = $trust_doc:literal])*
            trust,
            $($more:tt)*
        }
    ) => {
        record_class! {
            $(#[$attr])*
            $class($inner) as $name {
                /// The provider (a `ProviderSource`).
                source => |p| PyProviderSource(p.source.clone()),
                /// The version mirrored.
                version => |p| p.version.to_string(),
                /// Its constraints as the lock file writes them; empty when none.
                constraints => |p| p.constraints.as_str(),
                /// True when the lock file decided the version.
                locked => |p| p.locked,
                $(#[doc = $trust_doc])*
                trust => |p| p.trust.label(),
                /// That key's id (16 hex digits); None when OpenTofu skipped the
                /// signature.
                key_id => |p| p.key_id.as_deref(),
                $($more)*
            }
        }
    };
}

selected_provider_class! {
    /// One provider of a `MirrorReport`.
    PyMirroredProvider(MirroredProvider) as "MirroredProvider" {
        /// How the key that signed its checksums is trusted, in the CLI's
        /// words ("self-signed", "signed by HashiCorp", …).
        trust,
        /// The archives written, one per platform (`pathlib.Path`s).
        archives => |p| p.archives.clone(),
    }
}

/// The repository template of a `mirror_to_oci` call (OpenTofu's
/// `-oci-mirror` template, `{hostname}`, `{namespace}`, `{type}`), read as
/// `tfdisco mirror --to-oci TEMPLATE` reads it: one that does not parse
/// raises `InvalidArgument`, before anything is read.
pub(crate) fn oci_template(py: Python<'_>, template: &str) -> PyResult<OciMirrorTemplate> {
    OciMirrorTemplate::parse_as(template, "template")
        .map_err(|message| tfdisco_core::Error::InvalidArgument { message })
        .or_raise(py)
}

record_class! {
    /// What a mirror run into OCI repositories did (`Client.mirror_to_oci`):
    /// the template, the platforms and each provider pushed.
    PyOciMirrorReport(OciMirrorReport) as "OciMirrorReport" {
        /// The repository template, as given.
        template => |r| r.template.as_str(),
        /// The platforms mirrored (`Platform`s).
        platforms => |r| r.platforms.iter().cloned().map(PyPlatform).collect::<Vec<_>>(),
        /// Each provider pushed (`OciMirroredProvider`s), in address order.
        providers => |r| r.providers.iter().cloned().map(PyOciMirroredProvider).collect::<Vec<_>>(),
    }

    /// The report as one JSON document, the one `tfdisco mirror --to-oci
    /// TEMPLATE --json` prints and the Node package's `JSON.stringify`
    /// gives (a `str`): `template`, `platforms` and `providers`, each
    /// provider's members then its release's (`repository`, `tag`,
    /// `index`, `packages`, `blobs_sent`, `blobs_mounted`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

selected_provider_class! {
    /// One provider of an `OciMirrorReport`: the version selected, as
    /// `MirroredProvider` says it, and the release pushed.
    PyOciMirroredProvider(OciMirroredProvider) as "OciMirroredProvider" {
        /// How the key that signed its checksums is trusted, in the CLI's
        /// words ("self-signed", "signed by HashiCorp", "signed", …).
        trust,
        /// What was pushed (a `PushedRelease`): the repository the template
        /// names, the tag, the index's digest, each platform's zip digest,
        /// the blobs sent and mounted.
        release => |p| PyPushedRelease(p.release.clone()),
    }
}

/// The result of a lock, mirror or mirror-to-OCI run as Python sees it:
/// its report, as `class` wraps it, or its `tfdisco.LockError`.
pub(crate) fn run_report<R, P>(
    py: Python<'_>,
    result: Result<R, RunError>,
    class: fn(R) -> P,
) -> PyResult<P> {
    result.map(class).map_err(|e| lock_error(py, e))
}
