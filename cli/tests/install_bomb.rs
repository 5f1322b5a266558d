//! `tfdisco install` of a deflate bomb, as a process against the signed
//! registry on the loopback test server (docs/behaviour.md, UNPACK-10,
//! INSTALL-9): the archive is unpacked as it downloads, before it is
//! verified, so what it may write is bounded by the archive read so far.
//! Whether the registry vouches for the bomb or not, the run fails with
//! exit 1, its staging folder never held more than the bound, and nothing
//! is left in `.terraform` nor in the plugin cache.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use common::{Run, ca_file, tfdisco};
use tfdisco_provider::UnpackLimits;
use tfdisco_testkit::{TestServer, signed_registry};

const MIB: u64 = 1 << 20;

/// A configuration requiring `ns/alpha` 1.1.0 of `host`.
fn configuration(dir: &Path, host: &str) {
    fs::create_dir_all(dir).expect("a folder");
    fs::write(
        dir.join("main.tf"),
        format!(
            "terraform {{\n  required_providers {{\n    alpha = {{\n      source  = \"{host}/ns/alpha\"\n      version = \"1.1.0\"\n    }}\n  }}\n}}\n"
        ),
    )
    .expect("main.tf");
}

/// `tfdisco install --dialect terraform --ca-file CA --chdir DIR --json args…`.
fn install(home: &Path, dir: &Path, args: &[&str]) -> Run {
    let ca = ca_file();
    let chdir = dir.to_string_lossy().into_owned();
    let mut all = vec![
        "install",
        "--dialect",
        "terraform",
        "--ca-file",
        ca.as_str(),
        "--chdir",
        chdir.as_str(),
        "--json",
    ];
    all.extend_from_slice(args);
    tfdisco(home, &[], &all)
}

/// The bytes of every file under `root` (none when it is not there; what
/// vanishes while it is walked is not counted).
fn bytes_under(root: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(root) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => bytes_under(&entry.path()),
            Ok(t) if t.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The most bytes seen under `roots` together while `run` runs, looked at
/// every millisecond or so.
fn peak_while<T>(roots: &[PathBuf], run: impl FnOnce() -> T) -> (T, u64) {
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = Arc::clone(&done);
        let roots = roots.to_vec();
        thread::spawn(move || {
            let mut peak = 0;
            let mut looks = 0u32;
            while !done.load(Ordering::Relaxed) {
                peak = peak.max(roots.iter().map(|r| bytes_under(r)).sum::<u64>());
                looks += 1;
                thread::sleep(Duration::from_millis(1));
            }
            (peak, looks)
        })
    };
    let out = run();
    done.store(true, Ordering::Relaxed);
    let (peak, looks) = watcher.join().expect("the watcher");
    eprintln!("peak {peak} bytes over {looks} looks");
    (out, peak)
}

/// What is left under `root`: every path, relative.
fn left_under(root: &Path) -> Vec<String> {
    let mut left = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).expect("a folder").flatten() {
            let path = entry.path();
            left.push(
                path.strip_prefix(root)
                    .expect("under it")
                    .display()
                    .to_string(),
            );
            if entry.file_type().expect("its type").is_dir() {
                stack.push(path);
            }
        }
    }
    left.sort();
    left
}

/// A package of 256 MiB of zeros in 260 KiB of deflate (1000×), as
/// `ns/alpha` 1.1.0 for `linux_amd64`: served as it is, its checksum fails
/// (`checksum`); served with a `SHA256SUMS` that lists it, signed, the
/// registry vouches for it and the bound is what fails (`package`, the
/// message naming the ratio, the allowance and the cap). Either way it was
/// unpacked as it came, and the staging folder (in `.terraform`, or in the
/// plugin cache) never held more than 64 MiB, the default bound for what was
/// read: the allowance, since 32 times the archive is less.
#[test]
fn a_deflate_bomb_fails_within_the_bound() {
    let server = TestServer::start();
    let registry = signed_registry::install(&server);
    let host = server.host().to_string();
    let bomb = signed_registry::zeros_package("terraform-provider-alpha_v1.1.0", 256);
    assert!(bomb.len() < 300_000, "{} bytes", bomb.len());
    let bound = UnpackLimits::default().bound(bomb.len() as u64);
    assert_eq!(bound, 64 * MIB);
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");

    for (vouched, kind) in [(false, "checksum"), (true, "package")] {
        if vouched {
            registry.serve_signed_archive("alpha", "1.1.0", "linux_amd64", &bomb);
        } else {
            registry.serve_archive("alpha", "1.1.0", "linux_amd64", &bomb);
        }
        for cached in [false, true] {
            let name = format!("vouched-{vouched}-cached-{cached}");
            let dir = scratch.path().join(&name);
            configuration(&dir, &host);
            let cache = scratch.path().join(format!("{name}-cache"));
            fs::create_dir(&cache).expect("a plugin cache");
            let cache_arg = cache.to_string_lossy().into_owned();
            let args: &[&str] = if cached {
                &["--plugin-cache", cache_arg.as_str()]
            } else {
                &[]
            };
            let (run, peak) = peak_while(&[dir.join(".terraform"), cache.clone()], || {
                install(&home, &dir, args)
            });
            assert_eq!(run.code, Some(1), "{name}: {}\n{}", run.stdout, run.stderr);
            let report = run.json();
            let failure = &report["failures"][0];
            assert_eq!(failure["kind"], kind, "{name}: {report}");
            let message = failure["message"].as_str().expect("a message");
            if vouched {
                assert!(
                    message.contains(
                        "package: provider package archive: entry \"terraform-provider-alpha_v1.1.0\" \
                         expands to more than 32 times the "
                    ) && message.ends_with(
                        " bytes of the archive read so far (an archive not yet verified may \
                         expand to 32 times its size beyond its first 64 MiB, and to 4 GiB in all)"
                    ),
                    "{name}: {message}"
                );
            } else {
                assert!(
                    message.contains("checksum: archive has incorrect checksum"),
                    "{name}: {message}"
                );
            }
            assert!(peak <= bound, "{name}: {peak} bytes staged");
            assert!(!dir.join(".terraform").exists(), "{name}: .terraform left");
            assert!(
                !dir.join(".terraform.lock.hcl").exists(),
                "{name}: a lock file"
            );
            // The cache keeps at most the entry's lock file (INSTALL-12):
            // no package, no staging folder.
            let left: Vec<String> = left_under(&cache)
                .into_iter()
                .filter(|p| {
                    let path = cache.join(p);
                    let file = path.file_name().unwrap_or_default().to_string_lossy();
                    if path.is_dir() {
                        file == "linux_amd64" || file.starts_with(".tfdisco-staging")
                    } else {
                        !file.ends_with(".lock")
                    }
                })
                .collect();
            assert!(left.is_empty(), "{name}: left in the cache: {left:?}");
        }
    }
}
