//! `tfdisco install` processes and the plugin cache entries' locks
//! (INSTALL-10, INSTALL-12): a run killed mid-download never gets in the
//! way of a later one (also one with the same pid), and a run that waits
//! for an entry another run holds says so and stops at Ctrl-C, placing
//! nothing.

#![cfg(target_os = "linux")]

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::ca_file;
use tfdisco_testkit::{Reply, TestServer, signed_registry};

/// A configuration requiring `ns/alpha` (~> 1.0) and `ns/beta` of `host`.
fn configuration(dir: &Path, host: &str) {
    fs::create_dir_all(dir).expect("a folder");
    fs::write(
        dir.join("main.tf"),
        format!(
            "terraform {{\n  required_providers {{\n    alpha = {{\n      source  = \"{host}/ns/alpha\"\n      version = \"~> 1.0\"\n    }}\n    beta = {{\n      source = \"{host}/ns/beta\"\n    }}\n  }}\n}}\n"
        ),
    )
    .expect("main.tf");
}

/// The arguments of `tfdisco install` in `dir` with the plugin cache
/// `cache`.
fn install_args(dir: &Path, cache: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "install",
        "--dialect",
        "terraform",
        "--ca-file",
        &ca_file(),
        "--chdir",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    args.push(dir.to_string_lossy().into_owned());
    args.push("--plugin-cache".to_owned());
    args.push(cache.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

/// `program args…` with only `HOME` and `PATH` in the environment, its
/// output piped.
fn spawn(program: &Path, args: &[String], home: &Path) -> Child {
    Command::new(program)
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("it runs")
}

fn tfdisco() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tfdisco"))
}

/// Waits (at most `limit`) until `ready` holds.
fn wait_until(limit: Duration, what: &str, mut ready: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !ready() {
        assert!(Instant::now() < end, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The names in `dir` that start with `.tfdisco-staging-`, sorted.
fn staging_folders(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.starts_with(".tfdisco-staging-"))
        .collect();
    names.sort();
    names
}

/// Sends `signal` (`-INT`, `-CONT`) to process `pid`.
fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill {signal} {pid}");
}

/// Three runs killed (SIGKILL) in the middle of alpha's download, one after
/// another, each leaving its staging folder in the cache, which the next
/// removes once it holds the entry's lock; a later run, started with the
/// pid under which an earlier release would have named its staging folders
/// and with those names already taken, installs, and removes what the last
/// killed run left (INSTALL-10).
#[test]
fn a_killed_install_never_gets_in_the_way_of_a_later_one() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let file = signed_registry::package_file("alpha", "1.1.0", "linux_amd64");
    let zip = signed_registry::file("alpha", "1.1.0", &file);
    let route = format!("/files/ns/alpha/1.1.0/{file}");
    // Alpha's archive drips: 512 bytes every 100 ms.
    server.route(
        &route,
        Reply::new(200)
            .header("Content-Type", "application/zip")
            .body(zip)
            .chunk_size(512)
            .interval(Duration::from_millis(100)),
    );
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");
    let cache = scratch.path().join("cache");
    fs::create_dir(&cache).expect("the cache");
    let alpha = cache.join(format!("{host}/ns/alpha/1.1.0"));
    let mut killed: Vec<String> = Vec::new();
    for i in 0..3 {
        let dir = scratch.path().join(format!("killed{i}"));
        configuration(&dir, &host);
        let mut child = spawn(&tfdisco(), &install_args(&dir, &cache, &[]), &home);
        let mut new = None;
        wait_until(
            Duration::from_secs(30),
            "a staging folder of its own",
            || {
                new = staging_folders(&alpha)
                    .into_iter()
                    .find(|name| !killed.contains(name));
                new.is_some()
            },
        );
        child.kill().expect("SIGKILL");
        child.wait().expect("it ends");
        assert!(!dir.join(".terraform.lock.hcl").exists(), "no lock file");
        killed.extend(new);
        // Each run, once it held the entry's lock, removed what the run
        // killed before it left.
        assert_eq!(staging_folders(&alpha), killed[i..], "{killed:?}");
    }
    let left = staging_folders(&alpha);
    assert_eq!(left.len(), 1, "the last killed run's: {left:?}");

    server.route(
        &route,
        Reply::new(200)
            .header("Content-Type", "application/zip")
            .body(zip),
    );
    let dir = scratch.path().join("later");
    configuration(&dir, &host);
    // The later run stops itself before `exec`, which keeps the pid: the
    // names an earlier release would have used under that pid are taken
    // while it is stopped.
    let mut args = vec![
        "-c".to_owned(),
        "kill -STOP $$; exec \"$0\" \"$@\"".to_owned(),
        tfdisco().to_string_lossy().into_owned(),
    ];
    args.extend(install_args(&dir, &cache, &[]));
    let child = spawn(Path::new("/bin/sh"), &args, &home);
    let pid = child.id();
    wait_until(Duration::from_secs(10), "the run to stop itself", || {
        fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('T'))
        })
    });
    let beta = cache.join(format!("{host}/ns/beta/0.10.0"));
    for version_dir in [&alpha, &beta] {
        fs::create_dir_all(version_dir).expect("a version folder");
        for n in 0..4 {
            fs::create_dir(version_dir.join(format!(".tfdisco-staging-{pid}-{n}")))
                .expect("planted");
        }
    }
    signal(pid, "-CONT");
    let output = child.wait_with_output().expect("it ends");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(dir.join(".terraform.lock.hcl").is_file());
    let alpha_binary = alpha.join("linux_amd64/terraform-provider-alpha_v1.1.0");
    assert!(alpha_binary.is_file(), "alpha placed in the cache");
    let remaining = staging_folders(&alpha);
    for name in &left {
        assert!(!remaining.contains(name), "{name} removed: {remaining:?}");
    }
    assert_eq!(
        remaining.len(),
        4,
        "the planted folders of an earlier release's names stay until a day old: {remaining:?}"
    );
}

/// Lines a child prints on stderr, as they come.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    let stderr = child.stderr.take().expect("piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The first line of `lines` (within `limit`) that contains `words`, and
/// every line before it.
fn line_with(lines: &mpsc::Receiver<String>, words: &str, limit: Duration) -> (String, String) {
    let end = Instant::now() + limit;
    let mut seen = String::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(words) => return (line, seen),
            Ok(line) => {
                seen.push_str(&line);
                seen.push('\n');
            }
            Err(_) => panic!("no line with {words:?} within {limit:?}; stderr so far:\n{seen}"),
        }
    }
}

/// With another process holding alpha's cache entry, a run says which entry
/// it waits for after five seconds (a line on stderr; with `--json` a JSON
/// object on a line of stderr), and Ctrl-C ends it: exit 130, nothing in
/// the working folder, no lock file, nothing staged left in the cache
/// (INSTALL-12).
#[test]
fn a_run_waiting_for_a_cache_entry_says_so_and_stops_at_ctrl_c() {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let scratch = tempfile::tempdir().expect("a folder");
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("a home");
    let cache = scratch.path().join("cache");
    fs::create_dir(&cache).expect("the cache");
    // This process holds alpha's entry, as another run would.
    let holder = tfdisco_config::ProvidersFolder::new(scratch.path(), Some(&cache))
        .expect("a providers folder");
    let source = tfdisco_core::ProviderSource::parse(
        &format!("{host}/ns/alpha"),
        tfdisco_core::Dialect::Terraform,
    )
    .expect("a source");
    let version =
        tfdisco_core::Version::parse("1.1.0", tfdisco_core::Dialect::Terraform).expect("a version");
    let platform = tfdisco_core::Platform::parse("linux_amd64").expect("a platform");
    assert!(
        holder
            .try_lock_cache_entry(&source, &version, &platform)
            .expect("the lock"),
        "taken"
    );
    let lock_file = cache.join(format!("{host}/ns/alpha/1.1.0/linux_amd64.lock"));

    let human_dir = scratch.path().join("human");
    let json_dir = scratch.path().join("json");
    configuration(&human_dir, &host);
    configuration(&json_dir, &host);
    let mut human = spawn(&tfdisco(), &install_args(&human_dir, &cache, &[]), &home);
    let mut json = spawn(
        &tfdisco(),
        &install_args(&json_dir, &cache, &["--json"]),
        &home,
    );
    let human_lines = stderr_lines(&mut human);
    let json_lines = stderr_lines(&mut json);
    let started = Instant::now();

    let (line, _) = line_with(&human_lines, "Waiting for", Duration::from_secs(30));
    assert!(
        started.elapsed() >= Duration::from_secs(4),
        "after a few seconds"
    );
    assert!(line.contains(&format!("{host}/ns/alpha v1.1.0")), "{line}");
    assert!(line.contains(&*lock_file.to_string_lossy()), "{line}");
    let (line, _) = line_with(&json_lines, "waiting_for_cache", Duration::from_secs(30));
    let event: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
    assert_eq!(event["source"], format!("{host}/ns/alpha"));
    assert_eq!(event["version"], "1.1.0");
    assert_eq!(event["platform"], "linux_amd64");
    assert_eq!(event["lock_file"], lock_file.to_string_lossy().as_ref());
    assert!(
        event["waited_seconds"].as_f64().is_some_and(|s| s >= 5.0),
        "{event}"
    );

    for (child, lines, dir, is_json) in [
        (human, human_lines, &human_dir, false),
        (json, json_lines, &json_dir, true),
    ] {
        signal(child.id(), "-INT");
        let output = child.wait_with_output().expect("it ends");
        let rest: String = lines.try_iter().collect::<Vec<_>>().join("\n");
        assert_eq!(output.status.code(), Some(130), "{rest}");
        if is_json {
            let stdout = String::from_utf8_lossy(&output.stdout);
            let error: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON");
            assert_eq!(error["error"]["kind"], "cancelled", "{error}");
        } else {
            assert!(rest.contains("cancelled"), "{rest}");
        }
        assert!(
            !dir.join(".terraform").exists(),
            "nothing placed in {}",
            dir.display()
        );
        assert!(!dir.join(".terraform.lock.hcl").exists());
    }
    for name in ["alpha/1.1.0", "beta/0.10.0"] {
        let version_dir = cache.join(format!("{host}/ns/{name}"));
        assert!(staging_folders(&version_dir).is_empty(), "{name}");
    }
    drop(holder);
}
