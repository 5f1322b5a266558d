//! Provider installation: what `Client.install` /
//! `AsyncClient.install` take (providers, `upgrade`, `lockfile`,
//! `plugin_cache`, `jobs` → `tfdisco_runs::InstallOptions`, on top of
//! what the client's CLI configuration says, as the CLI takes them; and
//! `on_event`, [`Events`]) and give (`InstallReport` of
//! `InstalledProvider`s, or `tfdisco.LockError` as `lock` raises it, or
//! what `on_event` raised).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use pyo3::prelude::*;
use tfdisco_config::DialectChoice;
use tfdisco_runs::{
    Cancel, InstallEvent, InstallOptions, InstallReport, InstalledProvider, RunError, install_word,
};

use crate::dialect::PyDialectChoice;
use crate::errors;
use crate::json;
use crate::lock::run_report;
use crate::modules::PyInstalledModule;
use crate::options::items;
use crate::options::jobs_arg;
use crate::record::{quote, record_class};
use crate::sources::{self, PyPlatform, PyProviderSource};

/// The one value `lockfile` takes besides None: Terraform's
/// `-lockfile=readonly` (and `tfdisco install --lockfile readonly`).
const READONLY: &str = "readonly";

/// The options of an install call, checked: each provider a
/// `ProviderSource` or a str parsed in the client's dialect (`choice`,
/// given to the run for its report) and fully qualified;
/// `lockfile` None or `"readonly"`; `jobs` at least 1; `on_event` None or
/// a callable ([`Events`], given back for [`report`]). Raises
/// `InvalidSource`, `InvalidOption` (a `ValueError`) or `TypeError` before
/// anything is read or asked. The run adds what the client's CLI
/// configuration says (`InstallOptions::with_setup`), as `tfdisco install`
/// does.
pub(crate) fn options(
    providers: Option<&Bound<'_, PyAny>>,
    upgrade: bool,
    lockfile: Option<&str>,
    plugin_cache: Option<PathBuf>,
    jobs: u64,
    on_event: Option<Bound<'_, PyAny>>,
    choice: &DialectChoice,
) -> PyResult<(InstallOptions, Option<Events>)> {
    let dialect = choice.dialect();
    let readonly = match lockfile {
        None => false,
        Some(READONLY) => true,
        Some(other) => {
            return Err(Python::attach(|py| {
                let given = match quote(py, other) {
                    Ok(given) => given,
                    Err(e) => return e,
                };
                errors::invalid_option(
                    py,
                    format!("lockfile must be None or '{READONLY}', not {given}"),
                )
            }));
        }
    };
    let mut options = InstallOptions::new()
        .dialect_choice(choice.clone())
        .upgrade(upgrade)
        .readonly(readonly)
        .jobs(jobs_arg(jobs)?);
    if let Some(cache) = plugin_cache {
        options = options.plugin_cache_dir(cache);
    }
    if let Some(given) = providers {
        for source in items(given, "providers", "provider source addresses")? {
            options = options.provider(sources::provider_source_arg(&source, dialect)?);
        }
    }
    let events = Events::new(on_event)?;
    if let Some(events) = &events {
        options = events.install_on(options);
    }
    Ok((options, events))
}

record_class! {
    /// What an install run did (`Client.install`): the lock file, whether it
    /// changed, the platform installed for, each provider, the warnings and
    /// the modules installed first.
    PyInstallReport(InstallReport) as "InstallReport" {
        /// The lock file (`.terraform.lock.hcl` in the directory), a
        /// `pathlib.Path`.
        path => |r| r.path.as_path(),
        /// True when its bytes changed (and it was written); False when it
        /// already held everything, and was left alone.
        changed => |r| r.changed,
        /// The platform installed for (a `Platform`): the one this program
        /// runs on.
        platform => |r| PyPlatform(r.platform.clone()),
        /// Each provider installed (`InstalledProvider`s), in address order.
        providers => |r| r.providers.iter().cloned().map(PyInstalledProvider).collect::<Vec<_>>(),
        /// What the run warns about (strs): providers left to a
        /// development override, what the implied mirrors' scans said.
        warnings => |r| r.warnings.clone(),
        /// The dialect the run followed and what chose it (a
        /// `DialectChoice`, the client's `dialect_choice`).
        dialect => |r| PyDialectChoice(r.dialect.clone()),
        /// The modules installed first, as `init` installs them
        /// (`InstalledModule`s, by key, as `Client.get` gives them); empty
        /// when the root module calls none.
        modules => |r| r.modules.iter().cloned().map(PyInstalledModule).collect::<Vec<_>>(),
    }

    /// The report as one JSON document, the one `tfdisco install --json`
    /// prints and the Node package's `JSON.stringify` gives (a `str`).
    fn to_json(&self) -> PyResult<String> {
        crate::json::to_json(&self.0)
    }
}

record_class! {
    /// One provider of an `InstallReport`: the version installed, how and from
    /// where.
    PyInstalledProvider(InstalledProvider) as "InstalledProvider" {
        /// The provider (a `ProviderSource`).
        source => |p| PyProviderSource(p.source.clone()),
        /// The version installed (`1.1.0`).
        version => |p| p.version.to_string(),
        /// How its package was got: "reused" (already in
        /// `.terraform/providers` and matching the lock file: no request),
        /// "cached" (linked from the plugin cache) or "downloaded".
        installed => |p| install_word(p.installed),
        /// The installation method it comes from (the JSON's `from`):
        /// "registry", a network mirror's URL or a filesystem mirror's
        /// folder.
        from_ => |p| p.from.as_str(),
        /// Bytes downloaded (0 when nothing was).
        bytes => |p| p.bytes,
        /// The hashes (`h1:…`, `zh:…`) the lock file did not hold before,
        /// sorted; empty when it held them all.
        hashes_added => |p| p.hashes_added.clone(),
        /// How the package is trusted, in the CLI's words: "self-signed",
        /// "signed by HashiCorp", … (a registry's), "verified checksum",
        /// "unauthenticated" (a mirror's).
        trust => |p| p.trust.label(),
        /// The id of the key that signed its checksums (16 hex digits);
        /// None when none did.
        key_id => |p| p.key_id.as_deref(),
    }
}

/// The result of an install run as Python sees it: what `on_event` raised,
/// if it raised (the run was then cancelled); else the report, or the
/// `LockError` `lock` raises (kind `readonly` for a lock file that
/// `lockfile="readonly"` kept from changing).
pub(crate) fn report(
    py: Python<'_>,
    result: Result<InstallReport, RunError>,
    events: Option<&Events>,
) -> PyResult<PyInstallReport> {
    if let Some(raised) = events.and_then(Events::raised) {
        return Err(raised);
    }
    run_report(py, result, PyInstallReport)
}

/// `on_event`: the callable told of each `InstallEvent`, as a dict with
/// the keys of `tfdisco install --json`'s event lines. It is called, the
/// GIL taken, from the thread that runs the job (the thread blocked in
/// `Client.install`, or a thread of the module's runtime for
/// `AsyncClient.install`), and the run waits for it. When it raises, the
/// run is cancelled (`tfdisco_runs::Cancel`: no new request, the
/// downloads and waits stopped, nothing placed), it is not called again,
/// and `install` raises that exception once the run has stopped.
#[derive(Clone)]
pub(crate) struct Events {
    callback: Arc<Py<PyAny>>,
    cancel: Cancel,
    /// What the callable raised first.
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl Events {
    /// The events of `on_event` (None: no events): a callable, else a
    /// `TypeError` before anything is read.
    pub(crate) fn new(on_event: Option<Bound<'_, PyAny>>) -> PyResult<Option<Events>> {
        let Some(callback) = on_event.filter(|c| !c.is_none()) else {
            return Ok(None);
        };
        if !callback.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "on_event must be a callable or None, not {}",
                callback.get_type().name()?
            )));
        }
        Ok(Some(Events {
            callback: Arc::new(callback.unbind()),
            cancel: Cancel::new(),
            raised: Arc::new(Mutex::new(None)),
        }))
    }

    /// `options` telling this callable, and cancelled when it raises.
    pub(crate) fn install_on(&self, options: InstallOptions) -> InstallOptions {
        let events = self.clone();
        options
            .cancel_on(self.cancel.clone())
            .on_event(Arc::new(move |event| events.tell(event)))
    }

    /// Calls the callable with the event's dict, unless it raised before.
    fn tell(&self, event: InstallEvent<'_>) {
        if self.cancel.is_cancelled() {
            return;
        }
        let outcome = Python::attach(|py| {
            let dict = event_dict(py, event)?;
            self.callback.call1(py, (dict,)).map(drop)
        });
        if let Err(e) = outcome {
            let mut raised = self.raised.lock().unwrap_or_else(PoisonError::into_inner);
            raised.get_or_insert(e);
            self.cancel.cancel();
        }
    }

    /// What the callable raised, taken.
    fn raised(&self) -> Option<PyErr> {
        self.raised
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// The dict of an event: the keys and values of its line in `tfdisco
/// install --json` (the library's serialization of `InstallEvent`).
fn event_dict<'py>(py: Python<'py>, event: InstallEvent<'_>) -> PyResult<Bound<'py, PyAny>> {
    json::to_python(py, &json::to_json(&event)?)
}

/// Calls `AsyncClient.install`'s function when the run's future is gone:
/// ended, or dropped by the asyncio task's cancellation (on a thread of the
/// runtime, after the task saw `CancelledError`). The Python side waits
/// for it before it raises `CancelledError`, so that by then the staging
/// folders are removed and the plugin cache's locks released.
struct Stopped(Option<Py<PyAny>>);

/// `future`, and `stopped` called once it is dropped (fields drop in
/// their order: the future first, with the run's folders and locks).
pub(crate) struct UntilStopped<F> {
    future: Pin<Box<F>>,
    _stopped: Stopped,
}

/// `future`, `stopped` (a callable, or None) called once it is gone.
pub(crate) fn until_stopped<F: Future>(
    future: F,
    stopped: Option<Bound<'_, PyAny>>,
) -> UntilStopped<F> {
    UntilStopped {
        future: Box::pin(future),
        _stopped: Stopped(stopped.filter(|c| !c.is_none()).map(Bound::unbind)),
    }
}

impl<F: Future> Future for UntilStopped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.future.as_mut().poll(cx)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(callback) = self.0.take() {
            Python::attach(|py| {
                if let Err(e) = callback.call0(py) {
                    e.write_unraisable(py, Some(callback.bind(py)));
                }
            });
        }
    }
}
