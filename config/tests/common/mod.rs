//! Shared test support: temporary home directories, fixtures, and the real
//! helper program (`helper.sh`).

#![allow(dead_code, unreachable_pub)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tempfile::TempDir;
use tfdisco_config::{Env, HelperProgram};
use tfdisco_core::Hostname;

pub fn host(name: &str) -> Hostname {
    Hostname::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The test helper, written once per test process (writing an executable
/// while other threads fork and exec can fail with "text file busy", so it
/// is written before any test runs a program).
pub fn helper_script() -> &'static Path {
    static SCRIPT: OnceLock<PathBuf> = OnceLock::new();
    SCRIPT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("tfdisco-config-helper-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the helper's directory");
        let path = dir.join("terraform-credentials-test");
        fs::write(&path, include_str!("helper.sh")).expect("write the helper");
        make_executable(&path);
        path
    })
}

pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A temporary home directory, with a log file for the helper.
pub struct Home {
    dir: TempDir,
}

impl Home {
    pub fn new() -> Home {
        Home {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// A home with a copy of `tests/fixtures/<name>`.
    pub fn fixture(name: &str) -> Home {
        let home = Home::new();
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        copy_tree(&from, home.path());
        home
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `text` to `rel`, creating directories.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.join(rel);
        fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        fs::write(&path, text).expect("write");
        path
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// `HOME` set to this directory, and nothing else.
    pub fn env(&self) -> Env {
        Env::empty().with_var("HOME", self.path())
    }

    pub fn log_path(&self) -> PathBuf {
        self.join("helper.log")
    }

    /// What the helper was asked, one call per line.
    pub fn log(&self) -> Vec<String> {
        fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The helper's arguments for a `credentials_helper` block: the log
    /// file, then `extra`.
    pub fn helper_args(&self, extra: &str) -> Vec<String> {
        vec![self.log_path().display().to_string(), extra.to_owned()]
    }

    /// The test helper as a `HelperProgram` logging here.
    pub fn helper(&self) -> HelperProgram {
        HelperProgram::new(helper_script(), self.helper_args("x")).expect("absolute")
    }

    /// Installs the test helper as the plugin `terraform-credentials-test`
    /// (a symbolic link) in `plugin_dir` under this home, and returns a
    /// `credentials_helper` block that uses it.
    pub fn install_helper(&self, plugin_dir: &str) -> String {
        let dir = self.join(plugin_dir);
        fs::create_dir_all(&dir).expect("mkdir");
        std::os::unix::fs::symlink(helper_script(), dir.join("terraform-credentials-test"))
            .expect("symlink");
        format!(
            "credentials_helper \"test\" {{\n  args = [{:?}, \"x\"]\n}}\n",
            self.log_path().display().to_string()
        )
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
