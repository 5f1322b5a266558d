//! Makes the golden lock files of `tfdisco_testkit::module_lock_goldens`
//! with the real `terraform get` then `terraform providers lock` (on the
//! PATH, or `$TERRAFORM`) and the real `git`, against the module registry
//! and the signed provider registry on a loopback test server:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin module-lock-goldens [CASE…]
//! ```
//!
//! For each case: the case is set up (`Case::setup`: the registries
//! served, the git repository made, the input copied), then `terraform get
//! -no-color` and `terraform providers lock -platform=…` run in it under
//! umask 022. `modules.json` after `get`, the lock file after `lock` and
//! what both printed become `modules.json`, `terraform.lock.hcl` and
//! `terraform.out`, with the placeholders of `Setup::normalize`. A case
//! where either fails stops with what Terraform printed.

use std::process::ExitCode;

#[cfg(unix)]
fn main() -> ExitCode {
    generator::main()
}

/// The set-up makes a git repository with the real `git` on Unix.
#[cfg(not(unix))]
fn main() -> ExitCode {
    eprintln!("module-lock-goldens runs on Unix only");
    ExitCode::FAILURE
}

#[cfg(unix)]
mod generator {
    use std::fs;
    use std::path::Path;
    use std::process::ExitCode;

    use tfdisco_testkit::TestServer;
    use tfdisco_testkit::generator::{Generator, write};
    use tfdisco_testkit::install_goldens::{ready_to_generate, run_terraform};
    use tfdisco_testkit::module_lock_goldens::{CASES, Case, LOCK_GOLDEN, MODULES_JSON};

    pub(super) fn main() -> ExitCode {
        if !ready_to_generate(true) {
            return ExitCode::FAILURE;
        }
        let mut generator = Generator::from_args("module-lock-goldens");
        generator.each(CASES, |case| case.name, make);
        generator.finish()
    }

    fn make(case: &Case, scratch: &Path) -> Result<String, String> {
        fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
        let golden = case.dir();
        let server = TestServer::start();
        let setup = case.setup(&server, scratch);
        let env = setup.env();
        let (got, got_output) = run_terraform(&setup.dir, &env, &["get", "-no-color"]);
        let mut output = got_output.clone();
        if got != 0 {
            write(&golden.join("terraform.out"), &setup.normalize(&output))?;
            return Err(format!("terraform get exited {got}:\n{got_output}"));
        }
        let json = setup
            .modules_json()
            .ok_or("terraform get wrote no modules.json")?;
        write(&golden.join(MODULES_JSON), &setup.normalize(&json))?;
        let platforms = case.terraform_platform_args();
        let mut args = vec!["providers", "lock"];
        args.extend(platforms.iter().map(String::as_str));
        let (locked, lock_output) = run_terraform(&setup.dir, &env, &args);
        output.push_str(&lock_output);
        write(&golden.join("terraform.out"), &setup.normalize(&output))?;
        if locked != 0 {
            return Err(format!(
                "terraform providers lock exited {locked}:\n{lock_output}"
            ));
        }
        let lock = setup.lock_file().ok_or("terraform wrote no lock file")?;
        write(&golden.join(LOCK_GOLDEN), &setup.normalize(&lock))?;
        let providers = lock.matches("\nprovider \"").count();
        Ok(format!(
            "{providers} providers locked for {} platforms, {} modules",
            case.platforms.len(),
            json.matches("\"Key\"").count()
        ))
    }
}
