//! `tfdisco install` against what `terraform init` did
//! (docs/behaviour.md, INSTALL-1 to INSTALL-9): every case of the install
//! goldens, run with the library's install on this transport, must leave
//! the tree, the lock file, the exit code and the downloads the case
//! expects of tfdisco (Terraform's, or a documented difference).

use tfdisco_core::{Dialect, Env};
use tfdisco_runs::{BlockingRuns, ClientOptions, CredentialsChoice, InstallOptions, RunError};

use super::{Client, GENEROUS, Subject};
use crate::install_goldens::{CASES, Case};
use crate::{TestServer, pki};

/// Every case, on this transport.
pub fn install_goldens<T: Subject>() {
    let mut failed = Vec::new();
    for case in CASES {
        if let Err(problem) = run_case::<T>(case) {
            failed.push(format!("{}: {problem}", case.name));
        }
    }
    assert!(failed.is_empty(), "{}:\n{}", T::NAME, failed.join("\n\n"));
}

/// One case: its setup, an install run, what it left.
fn run_case<T: Subject>(case: &Case) -> Result<(), String> {
    let server = TestServer::start();
    let scratch = tempfile_dir(case.name);
    let setup = case.setup(&server, &scratch);
    let mut options = ClientOptions::new(Dialect::Terraform);
    options.env = Some(Env::new(setup.env()));
    options.system_roots = false;
    options.ca_files = vec![pki().ca_file().clone()];
    options.credentials = CredentialsChoice::Nothing;
    options.timeout = Some(GENEROUS);
    let loaded = options.load().map_err(|e| e.to_string())?;
    let client: Client<T> = loaded
        .builder()
        .build()
        .map_err(|e| format!("the client does not build: {e}"))?;
    let install = InstallOptions::new()
        .with_setup(&loaded, &setup.dir)
        .upgrade(case.args.contains(&"-upgrade"))
        .readonly(case.args.contains(&"-lockfile=readonly"));
    let exit = match client.install(&setup.dir, &install) {
        Ok(_) => 0,
        Err(error) => {
            if case.refuses_the_package() {
                check_no_package(&error)?;
            }
            error.exit_code()
        }
    };
    let observed = setup.observe(exit, &server.requests());
    let result = case.expected_for_tfdisco(&setup.host).check(&observed);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// An archive that cannot be unpacked fails its provider as no package
/// (kind `package`), naming the entry.
fn check_no_package(error: &RunError) -> Result<(), String> {
    match error {
        RunError::Failed(failures)
            if !failures.is_empty() && failures.iter().all(|f| f.kind() == "package") =>
        {
            Ok(())
        }
        other => Err(format!(
            "not refused as no package: {} ({other})",
            other.kind()
        )),
    }
}

/// A scratch folder of the case's own.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tfdisco-install-{}-{name}-{}",
        std::process::id(),
        std::thread::current()
            .name()
            .unwrap_or("t")
            .replace("::", "-")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}
