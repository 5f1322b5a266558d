//! Provider installation: what `client.install` takes (providers,
//! `upgrade`, `lockfile`, `pluginCache`, `jobs` →
//! `tfdisco_runs::InstallOptions`, on top of what the client's CLI
//! configuration says, as the CLI takes them; `onEvent` and `signal`, which
//! `lib/client.js` turns into [`EventsFn`] and [`NativeCancel`]). What it
//! gives is the library's report (`crate::report`), or a `LockError` as
//! `lock` gives it.

use std::sync::Arc;

use napi::Status;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use tfdisco_config::DialectChoice;
use tfdisco_core::{ProviderSource, serde_json};
use tfdisco_runs::{Cancel, DEFAULT_JOBS, InstallOptions};

use crate::errors::Failure;

/// `lib/client.js`'s function told of each event: the event's JSON line
/// (the keys of `tfdisco install --json`'s), then `null` once the run is
/// over, after every event (one queue: JavaScript gets them in this order).
/// Called without blocking the run: the events queue up for the JavaScript
/// thread.
pub(crate) type EventsFn = ThreadsafeFunction<Option<String>, (), Option<String>, Status, false>;

/// What stops a run: `lib/client.js` makes one per call with a `signal` or
/// an `onEvent`, and cancels it when the signal aborts or `onEvent` throws
/// (`tfdisco_runs::Cancel`).
#[napi(js_name = "NativeCancel")]
pub struct NativeCancel {
    pub(crate) cancel: Cancel,
}

#[napi]
impl NativeCancel {
    /// A handle not cancelled yet.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> NativeCancel {
        NativeCancel {
            cancel: Cancel::new(),
        }
    }

    /// Stops the run: no new request, the downloads and the waits for a
    /// plugin cache entry stopped, nothing placed; the promise rejects with
    /// a `LockError` of kind `cancelled`.
    #[napi]
    pub fn cancel(&self) {
        self.cancel.cancel();
    }
}

/// The events of a run, and the `null` that says they are over, sent when
/// this is dropped: at the end of the run's future (after its last event),
/// or at once when the call is refused before any run.
pub(crate) struct Told(Option<Arc<EventsFn>>);

impl Told {
    pub(crate) fn new(events: Option<EventsFn>) -> Told {
        Told(events.map(Arc::new))
    }

    /// `options` telling the events function.
    pub(crate) fn install_on(&self, options: InstallOptions) -> InstallOptions {
        let Some(events) = &self.0 else {
            return options;
        };
        let events = Arc::clone(events);
        options.on_event(Arc::new(move |event| {
            // The event's line in `tfdisco install --json` (the library's
            // serialization of `InstallEvent`).
            if let Ok(line) = serde_json::to_string(&event) {
                // An unbounded queue: fails only once the environment is
                // going away, when nobody listens.
                events.call(Some(line), ThreadsafeFunctionCallMode::NonBlocking);
            }
        }))
    }
}

impl Drop for Told {
    fn drop(&mut self) {
        if let Some(events) = self.0.take() {
            events.call(None, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// The one value `lockfile` takes: Terraform's `-lockfile=readonly` (and
/// `tfdisco install --lockfile readonly`).
const READONLY: &str = "readonly";

/// The options object `lib/client.js` makes of `install(dir, options)`.
#[napi(object)]
pub struct NativeInstallOptions {
    /// Install only these providers (source addresses).
    pub providers: Vec<String>,
    /// Re-select every version within the constraints (`-upgrade`).
    pub upgrade: bool,
    /// `readonly`, or none.
    pub lockfile: Option<String>,
    /// This plugin cache folder instead of the CLI configuration's.
    pub plugin_cache: Option<String>,
    /// Requests at once (none: the default, 8).
    pub jobs: Option<u32>,
}

/// The options of an install call, checked: the sources parsed in the
/// client's dialect (`choice`, given for the report); `InvalidSourceError` or `InvalidOptionError` (`jobs: 0`, a
/// `lockfile` other than `readonly`) before anything is read or asked. The
/// run adds what the client's CLI configuration says
/// (`InstallOptions::with_setup`), as `tfdisco install` does.
pub(crate) fn options(
    given: NativeInstallOptions,
    choice: &DialectChoice,
) -> Result<InstallOptions, Failure> {
    let dialect = choice.dialect();
    let readonly = match given.lockfile.as_deref() {
        None => false,
        Some(READONLY) => true,
        Some(other) => {
            return Err(Failure::invalid_option(format!(
                "options.lockfile must be '{READONLY}' or null, not {other:?}"
            )));
        }
    };
    let jobs = match given.jobs {
        Some(jobs) => tfdisco_runs::jobs(u64::from(jobs))?,
        None => DEFAULT_JOBS,
    };
    let mut options = InstallOptions::new()
        .dialect_choice(choice.clone())
        .upgrade(given.upgrade)
        .readonly(readonly)
        .jobs(jobs);
    if let Some(cache) = given.plugin_cache {
        options = options.plugin_cache_dir(cache);
    }
    for source in &given.providers {
        options = options.provider(ProviderSource::parse_argument(source, dialect)?);
    }
    Ok(options)
}
