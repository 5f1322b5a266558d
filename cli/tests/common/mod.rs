//! Running the real `tfdisco` binary with a clean environment and its own home.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

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
