//! Makes the login goldens of `tfdisco_testkit::login_goldens` with the
//! real `terraform login` / `terraform logout` (on the PATH, or
//! `$TERRAFORM`) against the loopback OAuth server, `curl` playing the
//! browser:
//!
//! ```text
//! cargo run -p tfdisco-testkit --bin login-goldens [CASE…]
//! ```
//!
//! Each case runs in a home folder of its own and writes
//! `fixtures/login-goldens/CASE/`; a case whose exit is not the one it
//! says, or whose random values do not keep their relations, fails (after
//! its files are written, to be looked at).

use std::process::ExitCode;

#[cfg(unix)]
fn main() -> ExitCode {
    use tfdisco_testkit::generator::Generator;
    use tfdisco_testkit::install_goldens::ready_to_generate;
    use tfdisco_testkit::login_goldens::{CASES, run};

    if !ready_to_generate(false) {
        return ExitCode::FAILURE;
    }
    let mut generator = Generator::from_args("login-goldens");
    generator.each(CASES, |case| case.name, run::make);
    let _ = std::fs::remove_dir_all(run::scratch_root());
    generator.finish()
}

/// The runs use Unix shell scripts as the browser and the helper.
#[cfg(not(unix))]
fn main() -> ExitCode {
    eprintln!("login-goldens runs on Unix only");
    ExitCode::FAILURE
}
