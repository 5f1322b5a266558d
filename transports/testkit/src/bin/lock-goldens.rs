//! Makes the golden lock files of `tfdisco_testkit::lock_goldens` with the
//! real `terraform providers lock` (on the PATH, or `$TERRAFORM`), against
//! the signed registry on a loopback test server:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin lock-goldens [CASE…]
//! ```
//!
//! For each case: when it has a `before/` configuration, Terraform locks
//! that first and the lock file it writes becomes `input/`'s; then the
//! registry is spoiled as the case says and Terraform locks `input/`. What
//! it wrote becomes `terraform.lock.hcl`, what it printed `terraform.out`
//! (the host replaced by `{HOST}` in both). A case that ends otherwise than
//! it says, or a refusal that changed the lock file, stops the program.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use tfdisco_testkit::lock_goldens::{CASES, Case, HOST, LOCK_FILE, Outcome};
use tfdisco_testkit::{TestServer, pki, signed_registry};

fn main() -> ExitCode {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let scratch = std::env::temp_dir().join(format!("tfdisco-lock-goldens-{}", std::process::id()));
    let mut failed = false;
    for case in CASES {
        if !only.is_empty() && !only.iter().any(|n| n == case.name) {
            continue;
        }
        match make(case, &scratch.join(case.name)) {
            Ok(()) => eprintln!("{}: done", case.name),
            Err(e) => {
                eprintln!("{}: {e}", case.name);
                failed = true;
            }
        }
    }
    let _ = fs::remove_dir_all(&scratch);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn make(case: &Case, scratch: &Path) -> Result<(), String> {
    let server = TestServer::start();
    let registry = signed_registry::install(&server);
    let host = server.host().to_string();
    let rc = scratch.join("terraformrc");
    fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    fs::write(&rc, "disable_checkpoint = true\n").map_err(|e| e.to_string())?;

    let input_lock = case.dir().join("input").join(LOCK_FILE);
    let before = scratch.join("before");
    if case.prepare_before(&before, &host) {
        let run = terraform(&before, &rc, case.before_platforms, &[])?;
        if !run.success {
            return Err(format!("the before run failed:\n{}", run.output));
        }
        let lock = read(&before.join(LOCK_FILE))?;
        fs::write(&input_lock, lock.replace(&host, HOST)).map_err(|e| e.to_string())?;
    }

    case.spoil(&registry);
    let dir = scratch.join("run");
    case.prepare(&dir, &host);
    server.take_requests();
    let run = terraform(&dir, &rc, case.platforms, &case.provider_args(&host))?;
    let paths: Vec<String> = server
        .take_requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    eprintln!(
        "{}: Terraform made {} requests: {paths:?}",
        case.name,
        paths.len()
    );
    let out = case.dir().join("terraform.out");
    fs::write(&out, run.output.replace(&host, HOST)).map_err(|e| e.to_string())?;
    let golden = case.dir().join("terraform.lock.hcl");
    match (case.outcome, run.success) {
        (Outcome::Written, true) => {
            let lock = read(&dir.join(LOCK_FILE))?;
            fs::write(&golden, lock.replace(&host, HOST)).map_err(|e| e.to_string())
        }
        (Outcome::Refused { .. }, false) => {
            let _ = fs::remove_file(&golden);
            let after = fs::read_to_string(dir.join(LOCK_FILE)).ok();
            if after != case.before(&host) {
                return Err("Terraform refused but changed the lock file".into());
            }
            Ok(())
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

fn terraform(
    dir: &Path,
    rc: &Path,
    platforms: &[&str],
    providers: &[String],
) -> Result<Run, String> {
    let program = std::env::var_os("TERRAFORM").unwrap_or_else(|| "terraform".into());
    let run = |args: &[String]| -> Result<Run, String> {
        let output = Command::new(&program)
            .args(args)
            .current_dir(dir)
            .env("TF_CLI_CONFIG_FILE", rc)
            .env("SSL_CERT_FILE", pki().ca_file())
            .env("CHECKPOINT_DISABLE", "1")
            .env("TF_IN_AUTOMATION", "1")
            .env("NO_PROXY", "*")
            .env_remove("TF_PLUGIN_CACHE_DIR")
            .env_remove("TF_DATA_DIR")
            .env_remove("TF_LOG")
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
    let mut args = vec!["providers".to_owned(), "lock".to_owned()];
    args.extend(platforms.iter().map(|p| format!("-platform={p}")));
    args.extend(providers.iter().cloned());
    run(&args)
}

/// The text without ANSI colour sequences (`ESC [ … m`).
fn strip_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}
