//! Lock runs against the signed registry, compared with what Terraform
//! 1.11.4's `providers lock` wrote for the same input
//! ([`lock_goldens`](crate::lock_goldens)): the lock file and, with
//! `-enable-plugin-cache`, the plugin cache and the archives downloaded.

#![allow(missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use tfdisco_config::PluginCache;
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, NetworkMirror, Platform, ProviderSource, StaticCredentials};
use tfdisco_runs::{BlockingRuns, LockOptions, LockReport, RunError};

use super::{Subject, bearer, build, builder, token};
use crate::lock_goldens::{CASES, Case, From, LOCK_FILE, Outcome};
use crate::{TestServer, signed_registry};

/// A fresh directory under the system's temporary one, removed on drop.
pub(super) struct Scratch(PathBuf);

impl Scratch {
    /// Its path.
    pub(super) fn path(&self) -> &Path {
        &self.0
    }

    pub(super) fn new(name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tfdisco-lock-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// What a case's run gave and left.
struct Ran {
    result: Result<LockReport, RunError>,
    /// The lock file afterwards.
    after: Option<String>,
    /// The providers' host.
    host: String,
    /// The plugin cache, the working folder and the downloads checked
    /// against the case ([`Case::check_run`]).
    checked: Result<(), String>,
}

/// Runs `case` as `tfdisco lock` would on a fresh server: its input, its
/// spoils, its platforms and providers, its mirror, its plugin cache; the
/// providers at the case's host, or at the server's with `on_server` (a
/// host with a port, which Terraform cannot ask a network mirror about:
/// D19).
fn run_case<T: Subject>(case: &Case, on_server: bool) -> Ran {
    let server = TestServer::start();
    run_case_on::<T>(case, on_server, &server, None)
}

/// [`run_case`] on `server`, with `credentials` for the client.
fn run_case_on<T: Subject>(
    case: &Case,
    on_server: bool,
    server: &TestServer,
    credentials: Option<StaticCredentials>,
) -> Ran {
    let host = match on_server {
        true => server.host().to_string(),
        false => case.host(server),
    };
    let scratch = Scratch::new(case.name);
    let setup = case.setup(server, &host, &scratch.0);
    let mut builder = builder::<T>().dialect(Dialect::Terraform);
    if let Some(credentials) = credentials {
        builder = builder.credentials(credentials);
    }
    let client = build::<T>(builder);
    let mut options = LockOptions::new();
    if let Some(url) = &setup.net_mirror {
        let url = Url::parse(url).expect("the mirror's URL");
        options = options.net_mirror(NetworkMirror::new(url).expect("an https URL"));
    }
    if let Some(dir) = &setup.fs_mirror {
        options = options.fs_mirror(dir);
    }
    for platform in case.platforms {
        options = options.platform(Platform::parse(platform).expect("a platform"));
    }
    for provider in case.provider_args(&host) {
        let source = ProviderSource::parse(&provider, Dialect::Terraform).expect("a provider");
        options = options.provider(source);
    }
    if case.enable_plugin_cache {
        // With no cache configured, the flag changes nothing.
        let cache = PluginCache::new(setup.cache.clone(), setup.may_break);
        options = options.with_plugin_cache(cache);
    }
    server.take_requests();
    let result = client.lock(&setup.dir, &options);
    let after = read(&setup.dir.join(LOCK_FILE));
    let checked = case.check_run(&setup, &server.requests(), &host);
    Ran {
        result,
        after,
        host,
        checked,
    }
}

fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// LOCKRUN-5: for every case Terraform wrote a lock file for, tfdisco
/// writes the same bytes (or, where a case documents a difference, its
/// own); LOCKRUN-10: with a plugin cache, it leaves the cache as Terraform
/// left it, the entries' lock files aside, and downloads the archives
/// Terraform downloaded.
pub fn lock_files_as_terraform_writes_them<T: Subject>() {
    for case in CASES.iter().filter(|c| c.outcome == Outcome::Written) {
        let Ran {
            result,
            after,
            host,
            checked,
        } = run_case::<T>(case, false);
        let report = match result {
            Ok(report) => report,
            Err(e) => panic!("{}: {}: {e}", T::NAME, case.name),
        };
        let expected = case.expected(&host);
        assert_eq!(
            after,
            expected,
            "{}: {}: {}",
            T::NAME,
            case.name,
            case.about
        );
        assert_eq!(
            report.changed,
            case.before(&host) != expected,
            "{}: {}",
            T::NAME,
            case.name
        );
        if let Err(problem) = checked {
            panic!("{}: {}: {problem}", T::NAME, case.name);
        }
        let key_id = (case.from == From::Registry).then(signed_registry::key_id);
        for provider in &report.providers {
            // A provider whose every package came from the cache has no key.
            let from_cache = provider.trust == tfdisco_provider::Trust::LockFile;
            let expected = if from_cache { None } else { key_id.clone() };
            assert_eq!(provider.key_id, expected, "{}: {}", T::NAME, case.name);
        }
    }
}

/// D19: a network mirror is asked about a provider whose host has a port
/// (Terraform 1.11.4 cannot build that URL); the lock file is the one
/// Terraform wrote for the same providers at a host without one.
/// MIRROR-1, MIRROR-8: the mirror host's token goes with its documents,
/// never with the archives.
pub fn a_network_mirror_serves_a_host_with_a_port<T: Subject>() {
    let case = CASES
        .iter()
        .find(|c| c.name == "net-mirror")
        .expect("net-mirror");
    let server = TestServer::start();
    let credentials = StaticCredentials::new().with(server.host(), token("mirror"));
    let Ran {
        result,
        after,
        host,
        ..
    } = run_case_on::<T>(case, true, &server, Some(credentials));
    assert!(host.contains(':'), "{host}");
    if let Err(e) = result {
        panic!("{}: {e}", T::NAME);
    }
    assert_eq!(after, case.expected(&host), "{}", T::NAME);
    let seen = server.requests();
    let documents: Vec<_> = seen.iter().filter(|r| r.path.ends_with(".json")).collect();
    let archives: Vec<_> = seen.iter().filter(|r| r.path.ends_with(".zip")).collect();
    assert_eq!((documents.len(), archives.len()), (4, 6), "{}", T::NAME);
    for request in documents {
        assert_eq!(
            request.authorization(),
            Some(bearer("mirror").as_str()),
            "{}: {}",
            T::NAME,
            request.path
        );
    }
    for request in archives {
        assert_eq!(
            request.authorization(),
            None,
            "{}: {}",
            T::NAME,
            request.path
        );
    }
}

/// LOCKRUN-6: every case Terraform refused, tfdisco refuses with the exit
/// code the case names, a message naming the provider and what failed, and
/// the lock file byte for byte as it was (or still absent).
pub fn refused_locks_leave_the_file_as_it_was<T: Subject>() {
    for case in CASES {
        let Outcome::Refused { exit, words } = case.outcome else {
            continue;
        };
        let Ran {
            result,
            after,
            host,
            ..
        } = run_case::<T>(case, false);
        let error = match result {
            Ok(report) => panic!("{}: {}: locked {report:?}", T::NAME, case.name),
            Err(e) => e,
        };
        assert_eq!(
            error.exit_code(),
            exit,
            "{}: {}: {error}",
            T::NAME,
            case.name
        );
        let message = error.to_string();
        let provider = format!("{host}/ns/");
        for word in words.iter().copied().chain([provider.as_str()]) {
            assert!(
                message.contains(word),
                "{}: {}: {word:?} not in {message}",
                T::NAME,
                case.name
            );
        }
        assert_eq!(after, case.before(&host), "{}: {}", T::NAME, case.name);
    }
}

/// LOCKRUN-3, D16: a fresh lock of two providers for three platforms asks
/// each versions list, `SHA256SUMS` and signature once, each package
/// answer and archive once per platform, and sends no token to download.
pub fn each_file_is_fetched_once<T: Subject>() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let case = CASES.iter().find(|c| c.name == "fresh").expect("fresh");
    let dir = Scratch::new(case.name);
    case.prepare(&dir.0, server.host().as_ref());
    let client = build::<T>(builder::<T>().dialect(Dialect::Terraform));
    let mut options = LockOptions::new().jobs(tfdisco_runs::jobs(3).expect("3 jobs"));
    for platform in case.platforms {
        options = options.platform(Platform::parse(platform).expect("a platform"));
    }
    if let Err(e) = client.lock(&dir.0, &options) {
        panic!("{}: {e}", T::NAME);
    }
    let mut paths = server.paths();
    paths.sort();
    let count = |pred: &dyn Fn(&str) -> bool| paths.iter().filter(|p| pred(p)).count();
    assert_eq!(
        count(&|p| p == super::WELL_KNOWN),
        1,
        "{}: {paths:?}",
        T::NAME
    );
    assert_eq!(count(&|p| p.ends_with("/versions")), 2, "{}", T::NAME);
    assert_eq!(count(&|p| p.contains("/download/")), 6, "{}", T::NAME);
    assert_eq!(count(&|p| p.ends_with("_SHA256SUMS")), 2, "{}", T::NAME);
    assert_eq!(count(&|p| p.ends_with("_SHA256SUMS.sig")), 2, "{}", T::NAME);
    assert_eq!(count(&|p| p.ends_with(".zip")), 6, "{}", T::NAME);
    assert_eq!(paths.len(), 19, "{}: {paths:?}", T::NAME);
}
