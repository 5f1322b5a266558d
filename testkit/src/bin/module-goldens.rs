//! Makes the module goldens of `tfdisco_testkit::module_goldens` with the
//! real `terraform get` / `terraform init -backend=false` (on the PATH, or
//! `$TERRAFORM`) and the real `git`, against the module registry on a
//! loopback test server:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin module-goldens [CASE…]
//! ```
//!
//! For each case: when it has a pre-step, a first `terraform get` against
//! the registry as it was (`Case::setup_first_run`), whose
//! `.terraform/modules` becomes `before/` (its files, placeholders in) and
//! `before.txt` (its manifest); then the case is set up (`Case::setup`:
//! the registry served, the git repository made, the input copied, the
//! pre-step's state put back) and Terraform run under umask 022. What it
//! left and did becomes `modules.json` (removed when none), `tree.txt`,
//! `terraform.out`, `exit-code` and `requests.txt`, with the placeholders
//! of `Setup::normalize`. A case whose exit code is not the one it says
//! fails (after its files are written, to be looked at).

use std::process::ExitCode;

#[cfg(unix)]
fn main() -> ExitCode {
    generator::main()
}

/// The goldens are file modes and symlinks made on Linux.
#[cfg(not(unix))]
fn main() -> ExitCode {
    eprintln!("module-goldens runs on Unix only");
    ExitCode::FAILURE
}

#[cfg(unix)]
mod generator {
    use std::fs;
    use std::path::Path;
    use std::process::ExitCode;

    use tfdisco_testkit::TestServer;
    use tfdisco_testkit::generator::{Generator, write};
    use tfdisco_testkit::install_goldens::{ready_to_generate, request_line, run_terraform};
    use tfdisco_testkit::module_goldens::{
        CASES, Case, MODULES_DIR, MODULES_JSON, MODULES_JSON_GOLDEN, Setup, downloads,
        parse_module_line,
    };

    pub(super) fn main() -> ExitCode {
        if !ready_to_generate(true) {
            return ExitCode::FAILURE;
        }
        let mut generator = Generator::from_args("module-goldens");
        generator.each(CASES, |case| case.name, make);
        generator.finish()
    }

    fn make(case: &Case, scratch: &Path) -> Result<String, String> {
        fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
        let golden = case.dir();
        if case.before {
            make_before(case, &scratch.join("first"))?;
        }
        let server = TestServer::start();
        let setup = case.setup(&server, &scratch.join("run"));
        server.take_requests();
        let (exit, output) = run_terraform(&setup.dir, &setup.env(), &case.terraform_args());
        let requests: Vec<String> = server.take_requests().iter().map(request_line).collect();
        let requests_text: String = requests.iter().map(|r| format!("{r}\n")).collect();
        write(
            &golden.join("requests.txt"),
            &setup.normalize(&requests_text),
        )?;
        write(&golden.join("terraform.out"), &setup.normalize(&output))?;
        write(&golden.join("exit-code"), &format!("{exit}\n"))?;
        let tree = setup.tree();
        write(&golden.join("tree.txt"), &tree)?;
        let json_golden = golden.join(MODULES_JSON_GOLDEN);
        match setup.modules_json() {
            Some(json) => write(&json_golden, &setup.normalize(&json))?,
            None => {
                let _ = fs::remove_file(&json_golden);
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
            downloads(&requests).len(),
            tree.lines().count()
        ))
    }

    /// The pre-step: `terraform get` against the registry as it was; its
    /// `.terraform/modules` written as `before/` and `before.txt`.
    fn make_before(case: &Case, scratch: &Path) -> Result<(), String> {
        let server = TestServer::start();
        let setup = case.setup_first_run(&server, scratch);
        let (exit, output) = run_terraform(&setup.dir, &setup.env(), &["get", "-no-color"]);
        if exit != 0 {
            return Err(format!("the pre-step's terraform get failed:\n{output}"));
        }
        let before = case.dir().join("before");
        let _ = fs::remove_dir_all(&before);
        let tree = setup.tree();
        for line in tree.lines() {
            let (kind, _, path, _) =
                parse_module_line(line).ok_or_else(|| format!("not a manifest line: {line}"))?;
            match kind {
                "file" => copy_normalized(&setup, path, &before)?,
                "dir" | "link" => {}
                other => return Err(format!("{line}: a {other} entry in the pre-step")),
            }
        }
        if let Some(json) = setup.modules_json() {
            write(&before.join(MODULES_JSON), &setup.normalize(&json))?;
        }
        write(&case.dir().join("before.txt"), &tree)
    }

    fn copy_normalized(setup: &Setup, path: &str, before: &Path) -> Result<(), String> {
        let rel = path
            .strip_prefix(MODULES_DIR)
            .ok_or_else(|| format!("{path}: not under {MODULES_DIR}"))?
            .trim_start_matches('/');
        let from = setup.dir.join(path);
        let text = fs::read_to_string(&from).map_err(|e| format!("{}: {e}", from.display()))?;
        write(&before.join(rel), &setup.normalize(&text))
    }
}
