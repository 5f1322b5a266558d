//! Module installation: what `Client.get` / `AsyncClient.get` take
//! (`upgrade`, `jobs` → `tfdisco_runs::GetOptions`, as `tfdisco get`
//! takes them) and give (`GetReport` of `InstalledModule`s, or
//! `tfdisco.LockError` of kind `modules` with its `ModuleFailure`s); the
//! `InstalledModule`s an `InstallReport` also lists.

use pyo3::prelude::*;
use tfdisco_runs::{GetOptions, GetReport, InstalledModule, ModuleFailure};

use crate::options::jobs_arg;
use crate::record::record_class;

/// The `GetOptions` of a get call: `jobs` at least 1, else
/// `InvalidOption` (a `ValueError`) before anything is read.
pub(crate) fn options(upgrade: bool, jobs: u64) -> PyResult<GetOptions> {
    Ok(GetOptions::new().upgrade(upgrade).jobs(jobs_arg(jobs)?))
}

record_class! {
    /// What a get run did (`Client.get`): the module manifest, whether it
    /// changed, and each module of the configuration.
    PyGetReport(GetReport) as "GetReport" {
        /// The module manifest (`.terraform/modules/modules.json` in the
        /// directory), a `pathlib.Path`.
        manifest => |r| r.manifest.as_path(),
        /// True when its bytes changed (and it was written); False when it
        /// already held every module, and was left alone.
        changed => |r| r.changed,
        /// Every module of the configuration but the root
        /// (`InstalledModule`s), by key.
        modules => |r| r.modules.iter().cloned().map(PyInstalledModule).collect::<Vec<_>>(),
    }

    /// The report as one JSON document, the one `tfdisco get --json`
    /// prints and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

record_class! {
    /// One module of a `GetReport` (and of an `InstallReport`): its key,
    /// its source, the version and folder installed, and how.
    PyInstalledModule(InstalledModule) as "InstalledModule", eq {
        /// Its key: the call's name, under a parent the parent's key, a dot
        /// and the name (`vpc`, `vpc.subnets`).
        key => |m| m.key.as_str(),
        /// Its source, as the module manifest records it (`./modules/app`,
        /// `hashicorp/consul/aws`, `git::https://…`).
        source => |m| m.source.as_str(),
        /// The version installed, for a registry module; else None.
        version => |m| m.version.as_deref(),
        /// Its folder, relative to the configuration's, `/`-separated
        /// (`modules/app`, `.terraform/modules/vpc`).
        dir => |m| m.dir.as_str(),
        /// How it got there: "kept" (as installed before: no request),
        /// "local" (a path: nothing installed) or "fetched".
        installed => |m| m.installed,
    }
}

record_class! {
    /// Why one module could not be installed (`LockError.failures` of a
    /// `LockError` of kind "modules").
    PyModuleFailure(ModuleFailure) as "ModuleFailure" {
        /// The module's key (`vpc`, `vpc.subnets`; "" for the root module).
        key => |f| f.key.as_str(),
        /// What failed, in a word: "configuration" (a module's files, a call
        /// not well formed), "invalid_source", "no_version", "registry" or
        /// "download" (a package not downloaded, unpacked or checked out).
        kind => |f| f.kind.as_str(),
        /// `tfdisco get`'s exit code for it: 3 for "no_version", 2 for
        /// "configuration" and "invalid_source", 1 for the others.
        exit_code => |f| f.kind.exit_code(),
        /// What `init` would say: the summary, the detail, the call's file
        /// and line.
        message => |f| f.diagnostic.located(),
    }
}
