//! Makes the install goldens of `tfdisco_testkit::install_goldens` with the
//! real `terraform init` (on the PATH, or `$TERRAFORM`), against the signed
//! registry and the mirrors on a loopback test server:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin install-goldens [CASE…]
//! ```
//!
//! For each case, in order: the input lock file is made as the case's
//! `LockInput` says (copied from an earlier case's result or a lock golden,
//! or written by `terraform providers lock` against an unspoiled registry)
//! into `input/`; then the case is set up (`Case::setup`: the registry
//! spoiled as it says, the mirror served or copied, the installs and the
//! cache that were there before), its manifest written as `before.txt`,
//! and `terraform init -backend=false -input=false -no-color ARGS` run
//! under umask 022. What it left and did becomes `tree.txt`,
//! `terraform.lock.hcl` (removed when none), `terraform.out`, `exit-code`
//! and `requests.txt`, with the placeholders of `Setup::normalize` (the
//! last two kept as committed when only their lines' order changed:
//! Terraform walks the providers in Go's map order). A case
//! whose exit code is not the one it says stops the program (after its
//! files are written, to be looked at).

use std::process::ExitCode;

#[cfg(unix)]
fn main() -> ExitCode {
    generator::main()
}

/// The goldens are file modes and symlinks made on Linux.
#[cfg(not(unix))]
fn main() -> ExitCode {
    eprintln!("install-goldens runs on Unix only");
    ExitCode::FAILURE
}

#[cfg(unix)]
mod generator {
    use std::fs;
    use std::path::Path;
    use std::process::ExitCode;

    use tfdisco_testkit::generator::{Generator, read, write};
    use tfdisco_testkit::install_goldens::{
        CASES, Case, HOST, LOCK_GOLDEN, LockInput, ready_to_generate, request_line, run_terraform,
        run_terraform_init,
    };
    use tfdisco_testkit::lock_goldens::{self, LOCK_FILE};
    use tfdisco_testkit::{TestServer, signed_registry};

    pub(super) fn main() -> ExitCode {
        if !ready_to_generate(false) {
            return ExitCode::FAILURE;
        }
        let mut generator = Generator::from_args("install-goldens");
        generator.each(CASES, |case| case.name, make);
        generator.finish()
    }

    fn make(case: &Case, scratch: &Path) -> Result<String, String> {
        fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
        make_input_lock(case, &scratch.join("lock"))?;

        let server = TestServer::start();
        let setup = case.setup(&server, &scratch.join("run"));
        let golden = case.dir();
        let before = setup.tree().replace(&setup.host, HOST);
        write(&golden.join("before.txt"), &before)?;

        server.take_requests();
        let (exit, output) = run_terraform_init(&setup.dir, &setup.env(), case.args);
        let requests: Vec<String> = server.take_requests().iter().map(request_line).collect();

        let mut requests_text: String = requests.iter().map(|r| format!("{r}\n")).collect();
        requests_text = requests_text.replace(&setup.host, HOST);
        write_unless_reordered(&golden.join("requests.txt"), &requests_text)?;
        write_unless_reordered(&golden.join("terraform.out"), &setup.normalize(&output))?;
        write(&golden.join("exit-code"), &format!("{exit}\n"))?;
        let tree = setup.tree().replace(&setup.host, HOST);
        write(&golden.join("tree.txt"), &tree)?;
        let lock_golden = golden.join(LOCK_GOLDEN);
        match fs::read_to_string(setup.dir.join(LOCK_FILE)) {
            Ok(lock) => write(&lock_golden, &lock.replace(&setup.host, HOST))?,
            Err(_) => {
                let _ = fs::remove_file(&lock_golden);
            }
        }
        if exit != case.exit {
            return Err(format!(
                "Terraform exited {exit} where the case says {}:\n{output}",
                case.exit
            ));
        }
        Ok(format!(
            "exit {exit}, {} requests ({} downloads), {} entries in the tree",
            requests.len(),
            tfdisco_testkit::install_goldens::downloads(&requests).len(),
            tree.lines().count()
        ))
    }

    /// Writes `input/.terraform.lock.hcl` as the case's `LockInput` says.
    fn make_input_lock(case: &Case, scratch: &Path) -> Result<(), String> {
        let input_lock = case.dir().join("input").join(LOCK_FILE);
        match case.lock {
            LockInput::None => {
                let _ = fs::remove_file(&input_lock);
                Ok(())
            }
            LockInput::Case(other) => {
                let from = tfdisco_testkit::install_goldens::case(other)
                    .dir()
                    .join(LOCK_GOLDEN);
                let text = read(&from)?;
                write(&input_lock, &text)
            }
            LockInput::LockGolden(other) => {
                let from = lock_goldens::goldens_dir()
                    .join(other)
                    .join("input")
                    .join(LOCK_FILE);
                let text = read(&from)?;
                write(&input_lock, &text)
            }
            LockInput::ProvidersLock {
                platforms,
                providers,
            } => {
                let server = TestServer::start();
                signed_registry::install(&server);
                let host = case.host(&server);
                let dir = scratch.join("work");
                fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                let config = read(&case.dir().join("input/main.tf"))?;
                write(&dir.join("main.tf"), &config.replace(HOST, &host))?;
                let mut args = vec!["providers".to_owned(), "lock".to_owned()];
                args.extend(platforms.iter().map(|p| format!("-platform={p}")));
                args.extend(providers.iter().map(|p| p.replace(HOST, &host)));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let rc = scratch.join("terraformrc");
                write(&rc, "disable_checkpoint = true\n")?;
                let env = [("TF_CLI_CONFIG_FILE", rc.as_path()), ("HOME", scratch)];
                let (exit, output) = run_terraform(&dir, &env, &args);
                if exit != 0 {
                    return Err(format!("providers lock failed:\n{output}"));
                }
                let lock = read(&dir.join(LOCK_FILE))?;
                write(&input_lock, &lock.replace(&host, HOST))
            }
        }
    }

    /// Writes `text` unless the file holds the same lines in another order:
    /// Terraform walks the providers in Go's map order, so a run prints
    /// and asks the same things in an order of its own.
    fn write_unless_reordered(path: &Path, text: &str) -> Result<(), String> {
        let sorted = |text: &str| {
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            lines.sort();
            lines
        };
        match fs::read_to_string(path) {
            Ok(old) if sorted(&old) == sorted(text) => Ok(()),
            _ => write(path, text),
        }
    }
}
