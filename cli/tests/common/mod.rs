//! Running the real `tfdisco` binary with a clean environment and its own home.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

pub use tfdisco_testkit::program::Run;

/// `tfdisco args…` with only `HOME`, `PATH` and `vars` in the environment.
pub fn tfdisco(home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
    tfdisco_testkit::program::run(Path::new(env!("CARGO_BIN_EXE_tfdisco")), home, vars, args)
}

pub fn ca_file() -> String {
    tfdisco_testkit::pki()
        .ca_file()
        .to_string_lossy()
        .into_owned()
}

/// Installs `script` as the credentials helper `name` under `home` (an
/// executable `terraform-credentials-<name>` in `~/.terraform.d/plugins`)
/// and names it in `~/.terraformrc`.
pub fn install_helper(home: &Path, name: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;

    let plugins = home.join(".terraform.d/plugins");
    std::fs::create_dir_all(&plugins).expect("mkdir");
    let helper = plugins.join(format!("terraform-credentials-{name}"));
    std::fs::write(&helper, script).expect("write helper");
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        home.join(".terraformrc"),
        format!("credentials_helper \"{name}\" {{}}\n"),
    )
    .expect("write config");
}

/// `tfdisco discover HOST --ca-file <test CA> --dialect terraform`.
pub fn discover_terraform(home: &Path, host: &str) -> Run {
    let ca = ca_file();
    let args = ["discover", host, "--ca-file", &ca, "--dialect", "terraform"];
    tfdisco(home, &[], &args)
}

/// The transports a test runs the binary on.
pub const TRANSPORTS: [&str; 3] = ["tokio", "async-std", "curl"];

/// `tfdisco args…` with `env` (a golden case's set-up's variables) and
/// only `HOME` and `PATH` besides.
pub fn tfdisco_env(home: &Path, env: &[(&'static str, std::ffi::OsString)], args: &[&str]) -> Run {
    let owned: Vec<(&str, String)> = env
        .iter()
        .map(|(k, v)| (*k, v.to_string_lossy().into_owned()))
        .collect();
    let vars: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    tfdisco(home, &vars, args)
}

/// Runs `each` for every golden case on every transport and fails once,
/// saying every run that differs.
pub fn each_case_on_each_transport<C>(
    cases: &[C],
    name: impl Fn(&C) -> &str,
    each: impl Fn(&C, &str) -> Result<(), String>,
) {
    let mut failures = Vec::new();
    for case in cases {
        for transport in TRANSPORTS {
            if let Err(e) = each(case, transport) {
                failures.push(format!("{} ({transport}): {e}", name(case)));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs differ:\n\n{}",
        failures.len(),
        cases.len() * TRANSPORTS.len(),
        failures.join("\n\n")
    );
}

/// `tfdisco get --chdir DIR --ca-file CA --dialect DIALECT EXTRA…` with the
/// test CA.
pub fn get_in(home: &Path, dir: &Path, dialect: &str, extra: &[&str]) -> Run {
    let ca = ca_file();
    let dir = dir.to_string_lossy();
    let mut args = vec![
        "get",
        "--chdir",
        &dir,
        "--ca-file",
        &ca,
        "--dialect",
        dialect,
    ];
    args.extend_from_slice(extra);
    tfdisco(home, &[], &args)
}

/// A scratch folder for a `get` run: an empty home and a working folder
/// whose `main.tf` is the given text, removed when dropped.
pub struct Workspace {
    _scratch: tempfile::TempDir,
    /// The home folder.
    pub home: PathBuf,
    /// The working folder.
    pub dir: PathBuf,
}

impl Workspace {
    pub fn new(main: &str) -> Workspace {
        let scratch = tempfile::tempdir().expect("a folder");
        let home = scratch.path().join("home");
        let dir = scratch.path().join("work");
        std::fs::create_dir_all(&home).expect("a home");
        std::fs::create_dir_all(&dir).expect("a folder");
        std::fs::write(dir.join("main.tf"), main).expect("a configuration");
        Workspace {
            _scratch: scratch,
            home,
            dir,
        }
    }

    /// `tfdisco get` in it with `dialect` on `transport`.
    pub fn get(&self, dialect: &str, transport: &str) -> Run {
        get_in(&self.home, &self.dir, dialect, &["--transport", transport])
    }
}

/// The permission bits of `path`.
#[cfg(unix)]
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("there").permissions().mode() & 0o7777
}
