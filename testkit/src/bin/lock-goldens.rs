//! Makes the golden mirrors of `tfdisco_testkit::mirror_goldens` with the
//! real `terraform providers mirror`, then the golden lock files of
//! `tfdisco_testkit::lock_goldens` with `terraform providers lock` (on the
//! PATH, or `$TERRAFORM`), against the signed registry on a loopback test
//! server:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin lock-goldens [CASE…]
//! ```
//!
//! For each case: when it has a `before/` configuration, Terraform locks
//! that first and the lock file it writes becomes `input/`'s. A mirror case
//! then mirrors `input/` into a folder holding its seed's tree; what
//! Terraform wrote there becomes `tree/` (the host's folder named
//! `{HOST}`). A lock case spoils the registry (or the mirror it reads) as
//! it says and locks `input/`, from the registry or with `-fs-mirror` /
//! `-net-mirror`; what it wrote becomes `terraform.lock.hcl`. What
//! Terraform printed becomes `terraform.out` (the host replaced by `{HOST}`).
//! A case with `-enable-plugin-cache` or a plugin cache runs with the flag
//! and `TF_PLUGIN_CACHE_DIR` (the cache holding what the case says, made
//! as Terraform unpacks; `plugin_cache_may_break_dependency_lock_file` in
//! the CLI configuration when it says so); the cache's manifest before and
//! after becomes `cache-before.txt` and `cache.txt`, and the requests
//! Terraform made, sorted, `requests.txt`.
//! A case that ends otherwise than it says, or a refusal that changed the
//! lock file, stops the program.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use tfdisco_testkit::generator::{Generator, read, write};
use tfdisco_testkit::install_goldens::{request_line, tree_manifest};
use tfdisco_testkit::lock_goldens::{
    CACHE_AFTER, CACHE_BEFORE, CASES, Cache, Case, HOST, LOCK_FILE, Outcome, REQUESTS,
};
use tfdisco_testkit::mirror_goldens::{self, read_tree};
use tfdisco_testkit::terraform::{strip_colours, terraform_environment, terraform_program};
use tfdisco_testkit::{TestServer, signed_registry};

fn main() -> ExitCode {
    let mut generator = Generator::from_args("lock-goldens");
    generator.each(mirror_goldens::CASES, |case| case.name, make_mirror);
    generator.each(CASES, |case| case.name, make);
    generator.finish()
}

/// A `TF_CLI_CONFIG_FILE` that turns the checkpoint off, in `scratch`.
fn cli_config(scratch: &Path) -> Result<PathBuf, String> {
    let rc = scratch.join("terraformrc");
    fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    fs::write(&rc, "disable_checkpoint = true\n").map_err(|e| e.to_string())?;
    Ok(rc)
}

/// Locks `before` (a case's `before/`) and writes what Terraform wrote as
/// `input_lock`, the host replaced by `{HOST}`.
fn lock_before(
    before: &Path,
    rc: &Path,
    platforms: &[&str],
    host: &str,
    input_lock: &Path,
) -> Result<(), String> {
    let run = terraform(before, rc, &lock_args(platforms, &[]), None)?;
    if !run.success {
        return Err(format!("the before run failed:\n{}", run.output));
    }
    let lock = read(&before.join(LOCK_FILE))?;
    fs::write(input_lock, lock.replace(host, HOST)).map_err(|e| e.to_string())
}

fn make_mirror(case: &mirror_goldens::Case, scratch: &Path) -> Result<String, String> {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = server.host().to_string();
    let rc = cli_config(scratch)?;
    let before = scratch.join("before");
    if case.prepare_before(&before, &host) {
        let input_lock = case.dir().join("input").join(LOCK_FILE);
        lock_before(&before, &rc, case.before_platforms, &host, &input_lock)?;
    }
    let dir = scratch.join("run");
    case.prepare(&dir, &host);
    let out = scratch.join("out");
    case.seed(&out, &host);
    let mut args = vec!["providers".to_owned(), "mirror".to_owned()];
    args.extend(case.platforms.iter().map(|p| format!("-platform={p}")));
    args.push(out.display().to_string());
    let run = terraform(&dir, &rc, &args, None)?;
    fs::write(
        case.dir().join("terraform.out"),
        run.output.replace(&host, HOST),
    )
    .map_err(|e| e.to_string())?;
    if !run.success {
        return Err(format!("Terraform failed:\n{}", run.output));
    }
    let tree = mirror_goldens::tree_dir(case.name);
    let _ = fs::remove_dir_all(&tree);
    for (path, bytes) in read_tree(&out) {
        let target = tree.join(path.replace(&host, HOST));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        fs::write(&target, bytes).map_err(|e| e.to_string())?;
    }
    Ok("done".to_owned())
}

fn make(case: &Case, scratch: &Path) -> Result<String, String> {
    let server = TestServer::start();
    signed_registry::install(&server);
    let host = case.host(&server);
    let rc = cli_config(scratch)?;

    let before = scratch.join("before");
    if case.prepare_before(&before, &host) {
        let input_lock = case.dir().join("input").join(LOCK_FILE);
        lock_before(&before, &rc, case.before_platforms, &host, &input_lock)?;
    }

    let setup = case.setup(&server, &host, scratch);
    let dir = setup.dir.clone();
    let cache_manifest = |cache: &Path| tree_manifest(&dir, Some(cache)).replace(&host, HOST);
    if let Some(cache) = &setup.cache {
        write(&case.dir().join(CACHE_BEFORE), &cache_manifest(cache))?;
    }
    if setup.may_break {
        let mut text = read(&rc)?;
        text.push_str("plugin_cache_may_break_dependency_lock_file = true\n");
        fs::write(&rc, text).map_err(|e| e.to_string())?;
    }
    server.take_requests();
    let mut args = lock_args(case.platforms, &case.provider_args(&host));
    if let Some(mirror) = &setup.fs_mirror {
        args.insert(2, format!("-fs-mirror={}", mirror.display()));
    }
    if let Some(url) = &setup.net_mirror {
        args.insert(2, format!("-net-mirror={url}"));
    }
    if case.enable_plugin_cache {
        args.insert(2, "-enable-plugin-cache".to_owned());
    }
    let run = terraform(&dir, &rc, &args, setup.cache.as_deref())?;
    let seen = server.take_requests();
    let paths: Vec<String> = seen.iter().map(request_line).collect();
    eprintln!(
        "{}: Terraform made {} requests: {paths:?}",
        case.name,
        paths.len()
    );
    if case.enable_plugin_cache || matches!(case.cache, Cache::Dir { .. }) {
        let mut sorted = paths.clone();
        sorted.sort();
        let text: String = sorted.iter().map(|line| format!("{line}\n")).collect();
        write(&case.dir().join(REQUESTS), &text)?;
    }
    if let Some(cache) = &setup.cache {
        write(&case.dir().join(CACHE_AFTER), &cache_manifest(cache))?;
    }
    let out = case.dir().join("terraform.out");
    let mut output = run.output.replace(&host, HOST);
    if let Some(mirror) = &setup.fs_mirror {
        output = output.replace(&mirror.display().to_string(), "{FS_MIRROR}");
    }
    if let Some(url) = &setup.net_mirror {
        output = output.replace(url, "{NET_MIRROR}");
    }
    if let Some(cache) = &setup.cache {
        output = output.replace(&cache.display().to_string(), "{CACHE}");
    }
    fs::write(&out, output.replace(&server.host().to_string(), "{SERVER}"))
        .map_err(|e| e.to_string())?;
    let golden = case.dir().join("terraform.lock.hcl");
    match (case.outcome, run.success) {
        (Outcome::Written, true) => {
            let lock = read(&dir.join(LOCK_FILE))?;
            fs::write(&golden, lock.replace(&host, HOST)).map_err(|e| e.to_string())?;
            Ok("done".to_owned())
        }
        (Outcome::Refused { .. }, false) => {
            let _ = fs::remove_file(&golden);
            let after = fs::read_to_string(dir.join(LOCK_FILE)).ok();
            if after != case.before(&host) {
                return Err("Terraform refused but changed the lock file".into());
            }
            Ok("done".to_owned())
        }
        (_, success) => Err(format!(
            "Terraform {} where the case says {:?}:\n{}",
            if success { "succeeded" } else { "failed" },
            case.outcome,
            run.output
        )),
    }
}

struct Run {
    success: bool,
    output: String,
}

/// `providers lock -platform=…… PROVIDER…`.
fn lock_args(platforms: &[&str], providers: &[String]) -> Vec<String> {
    let mut args = vec!["providers".to_owned(), "lock".to_owned()];
    args.extend(platforms.iter().map(|p| format!("-platform={p}")));
    args.extend(providers.iter().cloned());
    args
}

/// Runs `terraform ARGS` in `dir` (after `terraform get` when it has local
/// modules), with `cache` as `TF_PLUGIN_CACHE_DIR` if given.
fn terraform(dir: &Path, rc: &Path, args: &[String], cache: Option<&Path>) -> Result<Run, String> {
    let program = terraform_program();
    let run = |args: &[String]| -> Result<Run, String> {
        let mut command = Command::new(&program);
        terraform_environment(&mut command);
        if let Some(cache) = cache {
            command.env("TF_PLUGIN_CACHE_DIR", cache);
        }
        let output = command
            .args(args)
            .current_dir(dir)
            .env("TF_CLI_CONFIG_FILE", rc)
            .output()
            .map_err(|e| format!("running {}: {e}", PathBuf::from(&program).display()))?;
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        Ok(Run {
            success: output.status.success(),
            output: strip_colours(&text),
        })
    };
    // Terraform 1.11 will not lock until the module manifest exists, even
    // for local modules.
    if dir.join("modules").is_dir() {
        let got = run(&["get".to_owned()])?;
        if !got.success {
            return Err(format!("terraform get failed:\n{}", got.output));
        }
    }
    run(args)
}
