//! Running the real `tfdisco-dev` binary, and the `tfdisco` command-line
//! tool against it, with a clean environment and a home of their own.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub use tfdisco_testkit::program::Run;
use tfdisco_testkit::program::run;

/// `tfdisco-dev args…`, as [`run`] runs it.
pub fn tfdisco_dev(home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
    run(
        Path::new(env!("CARGO_BIN_EXE_tfdisco-dev")),
        home,
        vars,
        args,
    )
}

/// `tfdisco args…` (the command-line tool), as [`run`] runs it.
pub fn tfdisco(home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
    run(cli(), home, vars, args)
}

/// The `tfdisco` binary of this build: another package's, which cargo
/// builds for its own tests only, so built here (once per test binary) with
/// the profile and target folder of this test.
fn cli() -> &'static Path {
    static CLI: OnceLock<PathBuf> = OnceLock::new();
    CLI.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test's path");
        // target/PROFILE/deps/TEST
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test is in target/PROFILE/deps");
        let target_dir = profile_dir.parent().expect("target/PROFILE");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev",
            Some(name) => name,
            None => panic!("no profile in {}", exe.display()),
        };
        let mut build = Command::new(env!("CARGO"));
        build
            .args([
                "build", "--quiet", "--locked", "-p", "tfdisco", "--bin", "tfdisco",
            ])
            .arg("--profile")
            .arg(profile)
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        // Not the variables cargo sets for this test (the package's): build
        // scripts that read them would be built again, here and then again
        // by the next `cargo build`.
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if [
                "CARGO_PKG_",
                "CARGO_BIN_",
                "CARGO_MANIFEST_",
                "CARGO_CRATE_",
            ]
            .iter()
            .any(|prefix| name.starts_with(prefix))
                || ["CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR"].contains(&&*name)
            {
                build.env_remove(&*name);
            }
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "cargo build -p tfdisco: {status}");
        let cli = profile_dir.join("tfdisco");
        assert!(cli.is_file(), "no {}", cli.display());
        cli
    })
}

/// A running `tfdisco-dev serve --listen 127.0.0.1:0 …`, stopped when dropped.
pub struct Serve {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    /// What it printed up to and including `press Ctrl-C to stop`.
    pub printed: Vec<String>,
}

impl Serve {
    /// Starts `tfdisco-dev serve --listen 127.0.0.1:0 args…` with `home` as
    /// `HOME`, and reads what it prints until it says how to stop it.
    pub fn start(home: &Path, args: &[&str]) -> Serve {
        use std::io::{BufRead as _, BufReader};
        use std::process::Stdio;

        let mut child = Command::new(env!("CARGO_BIN_EXE_tfdisco-dev"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .env_clear()
            .env("HOME", home)
            .env("PATH", "/usr/bin:/bin")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("piped");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut serve = Serve {
            child,
            lines,
            printed: Vec::new(),
        };
        while let Some(line) = serve.next_line() {
            let last = line == "press Ctrl-C to stop";
            serve.printed.push(line);
            if last {
                return serve;
            }
        }
        panic!("serve did not start: {:?}", serve.printed);
    }

    /// The next line it prints (waiting 20 s at most).
    pub fn next_line(&self) -> Option<String> {
        self.lines
            .recv_timeout(std::time::Duration::from_secs(20))
            .ok()
    }

    /// The port of its first line, `serving https://HOST:PORT/…`.
    pub fn port(&self) -> u16 {
        self.printed
            .first()
            .and_then(|l| l.strip_prefix("serving https://"))
            .and_then(|rest| rest.split('/').next())
            .and_then(|authority| authority.rsplit(':').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in {:?}", self.printed))
    }

    /// The arguments of the first printed command `tfdisco <first> …`.
    pub fn command(&self, first: &str) -> Vec<String> {
        let start = format!("tfdisco {first} ");
        let line = self
            .printed
            .iter()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("tfdisco ")
                    .filter(|_| l.trim().starts_with(&start))
            })
            .unwrap_or_else(|| panic!("no `{start}…` in {:?}", self.printed));
        line.split_whitespace().map(str::to_owned).collect()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
