//! Makes the goldens of `tfdisco_testkit::real_configurations` with the
//! real `terraform` (on the PATH, or `$TERRAFORM`), against the registry
//! that answers for any provider on a loopback test server:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin real-configuration-goldens [ROOT-ID…]
//! cargo run -p tfdisco-testkit --bin real-configuration-goldens -- --lock DIR
//! cargo run -p tfdisco-testkit --bin real-configuration-goldens -- --extract GIT_DIR NAME
//! ```
//!
//! For each root (those whose id starts with one of the arguments, or all):
//! its tree is copied into a scratch folder, `terraform get` records its
//! module calls (Terraform 1.11 will not lock before, even for local
//! modules), then `terraform providers lock -platform=linux_amd64
//! -platform=darwin_arm64` runs with `TF_CLI_CONFIG_FILE` sending
//! `registry.terraform.io` to the test server. The lock file it wrote
//! becomes `terraform.lock.hcl`; when `get` or `lock` failed,
//! `terraform.refused` says which command failed, its exit code and the
//! summary of each of its errors (the server's `host:port` as `{SERVER}`,
//! the scratch folder as `{SCRATCH}`). Roots whose
//! golden is written by hand (`opentofu.lock.hcl`) are left alone.
//!
//! `--lock DIR` runs the same two commands in a copy of DIR and prints the
//! lock file (how a hand-written golden's hashes are found: see its
//! `ORACLE`).
//!
//! `--extract GIT_DIR NAME` fills the corpus folder (`$TFDISCO_REAL_CONFIGURATIONS`)
//! with repository NAME's `.tf` and `.tf.json` files and `LICENSE` at the
//! commit `REPOSITORIES` names, read from the git directory GIT_DIR, and
//! writes its `SOURCE`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use tfdisco_testkit::generator::{exit_code, scratch_dir};
use tfdisco_testkit::real_configurations::{
    self, CORPUS_VAR, Expected, LOCK_FILE, Oracle, PLATFORMS, REFUSED_FILE, REPOSITORIES, Root,
    SCRATCH, SERVER,
};
use tfdisco_testkit::terraform::{strip_colours, terraform_environment, terraform_program};
use tfdisco_testkit::{TestServer, any_registry};

/// How long one `terraform` command may take (a `get` that tries to clone
/// a module from the network must not hang the run).
const COMMAND_LIMIT: Duration = Duration::from_secs(120);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--extract") {
        return match &args[1..] {
            [git_dir, name] => match extract(Path::new(git_dir), name) {
                Ok(dir) => {
                    eprintln!("extracted {name} into {}", dir.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
            },
            _ => {
                eprintln!("usage: real-configuration-goldens --extract GIT_DIR NAME");
                ExitCode::FAILURE
            }
        };
    }
    if args.first().map(String::as_str) == Some("--lock") {
        let [_, dir] = &args[..] else {
            eprintln!("usage: real-configuration-goldens --lock DIR");
            return ExitCode::FAILURE;
        };
        return match lock_folder(Path::new(dir)) {
            Ok(lock) => {
                print!("{lock}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    let roots = match real_configurations::roots() {
        Ok(roots) => roots,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if real_configurations::corpus_dir().is_none() {
        eprintln!("no corpus folder (set {CORPUS_VAR}): only the edges");
    }
    let scratch = scratch_dir("real-configurations");
    let (server, rc) = serve(&scratch);
    let mut failed = false;
    let (mut written, mut refused) = (0, 0);
    for root in roots {
        let id = root.id();
        if !args.is_empty() && !args.iter().any(|a| id.starts_with(a.as_str())) {
            continue;
        }
        if root.oracle != Oracle::Terraform {
            eprintln!("{id}: written by hand, left alone");
            continue;
        }
        match make(&root, &server, &rc, &scratch.join("run")) {
            Ok(true) => {
                written += 1;
                eprintln!("{id}: lock file written");
            }
            Ok(false) => {
                refused += 1;
                if let Expected::Refused { command, error } = root.expected() {
                    eprintln!("{id}: {command} refused: {error}");
                }
            }
            Err(e) => {
                eprintln!("{id}: {e}");
                failed = true;
            }
        }
    }
    let _ = fs::remove_dir_all(&scratch);
    eprintln!("{written} lock files written, {refused} refusals");
    exit_code(failed)
}

/// A test server answering as the registry for any provider, and a CLI
/// configuration in `scratch` sending `registry.terraform.io` to it.
fn serve(scratch: &Path) -> (TestServer, PathBuf) {
    let server = TestServer::start();
    any_registry::install(&server);
    let rc = real_configurations::write_cli_config(&server, scratch);
    (server, rc)
}

/// Runs `terraform get` and `providers lock` in a copy of `dir` against a
/// fresh registry and returns the lock file written.
fn lock_folder(dir: &Path) -> Result<String, String> {
    let scratch = scratch_dir("real-configurations-lock");
    let (_server, rc) = serve(&scratch);
    let copy = scratch.join("run");
    real_configurations::copy_configuration(dir, &copy);
    let mut result = terraform(&copy, &rc, &["get".to_owned()]);
    if result.as_ref().is_ok_and(|run| run.success) {
        let mut args = vec!["providers".to_owned(), "lock".to_owned()];
        args.extend(PLATFORMS.iter().map(|p| format!("-platform={p}")));
        result = terraform(&copy, &rc, &args);
    }
    let lock = match result {
        Ok(run) if run.success => {
            fs::read_to_string(copy.join(LOCK_FILE)).map_err(|e| format!("{LOCK_FILE}: {e}"))
        }
        Ok(run) => Err(run.output),
        Err(e) => Err(e),
    };
    let _ = fs::remove_dir_all(&scratch);
    lock
}

/// Runs Terraform on `root` and writes its golden; true when Terraform
/// wrote a lock file.
fn make(root: &Root, server: &TestServer, rc: &Path, scratch: &Path) -> Result<bool, String> {
    let _ = fs::remove_dir_all(scratch);
    let dir = root.prepare(scratch);
    let golden = root.golden_dir();
    let _ = fs::remove_dir_all(&golden);
    fs::create_dir_all(&golden).map_err(|e| e.to_string())?;
    let placeholders = |text: &str| {
        text.replace(&server.host().to_string(), SERVER)
            .replace(&scratch.display().to_string(), SCRATCH)
    };
    let got = terraform(&dir, rc, &["get".to_owned()])?;
    let (command, run) = if got.success {
        let mut args = vec!["providers".to_owned(), "lock".to_owned()];
        args.extend(PLATFORMS.iter().map(|p| format!("-platform={p}")));
        ("providers lock", terraform(&dir, rc, &args)?)
    } else {
        ("get", got)
    };
    if !run.success {
        if dir.join(LOCK_FILE).exists() {
            return Err("Terraform failed but wrote a lock file".into());
        }
        let mut refused = format!("command: terraform {command}\nexit: {}\n", run.code);
        let mut errors: Vec<&str> = run
            .output
            .lines()
            .map(|l| l.trim_start_matches(['│', ' ']))
            .filter_map(|l| l.strip_prefix("Error: "))
            .collect();
        errors.dedup();
        for error in errors {
            refused.push_str(&format!("error: {}\n", placeholders(error)));
        }
        fs::write(golden.join(REFUSED_FILE), refused).map_err(|e| e.to_string())?;
        return Ok(false);
    }
    let lock = fs::read_to_string(dir.join(LOCK_FILE)).map_err(|e| format!("{LOCK_FILE}: {e}"))?;
    fs::write(golden.join("terraform.lock.hcl"), lock).map_err(|e| e.to_string())?;
    Ok(true)
}

struct Run {
    success: bool,
    code: i32,
    output: String,
}

/// Runs `terraform ARGS` in `dir`, for at most [`COMMAND_LIMIT`].
fn terraform(dir: &Path, rc: &Path, args: &[String]) -> Result<Run, String> {
    let program = terraform_program();
    let out_file = dir.join(".terraform-output");
    let out = fs::File::create(&out_file).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut command = Command::new(&program);
    terraform_environment(&mut command);
    let mut child = command
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", rc)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("running {}: {e}", PathBuf::from(&program).display()))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > COMMAND_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("terraform {} took too long", args.join(" ")));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = fs::read(&out_file).map_err(|e| e.to_string())?;
    let _ = fs::remove_file(&out_file);
    Ok(Run {
        success: status.success(),
        code: status.code().unwrap_or(-1),
        output: strip_colours(&String::from_utf8_lossy(&text)),
    })
}

/// Copies repository `name`'s configuration files and `LICENSE` at its
/// commit out of `git_dir` into the corpus folder, with a `SOURCE`.
fn extract(git_dir: &Path, name: &str) -> Result<PathBuf, String> {
    let repository = REPOSITORIES
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("no repository {name} in REPOSITORIES"))?;
    let corpus = std::env::var_os(CORPUS_VAR)
        .map(PathBuf::from)
        .ok_or_else(|| format!("set {CORPUS_VAR} to the corpus folder to fill"))?;
    let git = |args: &[&str]| -> Result<Vec<u8>, String> {
        let out = Command::new("git")
            .arg("--git-dir")
            .arg(git_dir)
            .args(args)
            .output()
            .map_err(|e| format!("git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(out.stdout)
    };
    let listing = git(&["ls-tree", "-r", "-z", "--name-only", repository.commit])?;
    let target = corpus.join(name);
    let _ = fs::remove_dir_all(&target);
    let mut count = 0;
    for path in listing.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(path).into_owned();
        let file = path.rsplit('/').next().unwrap_or_default();
        if !(file.ends_with(".tf") || file.ends_with(".tf.json") || path == "LICENSE") {
            continue;
        }
        let bytes = git(&["show", &format!("{}:{path}", repository.commit)])?;
        let out = target.join(&path);
        if let Some(parent) = out.parent() {
            fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        fs::write(&out, bytes).map_err(|e| e.to_string())?;
        count += 1;
    }
    let source = format!(
        "repository: https://github.com/{}\ncommit: {}\nlicense: {} (LICENSE)\nfiles: the \
         repository's .tf and .tf.json files and its LICENSE at that commit ({count} files), \
         nothing else\n",
        repository.repository, repository.commit, repository.license
    );
    fs::write(target.join("SOURCE"), source).map_err(|e| e.to_string())?;
    Ok(target)
}
