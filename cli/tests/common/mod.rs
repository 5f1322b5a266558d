//! Running the real `tfdisco` binary with a clean environment and its own home.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;
use std::process::{Command, Output};

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// `tfdisco args…` with only `HOME`, `PATH` and `vars` in the environment.
pub fn tfdisco(home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tfdisco"));
    cmd.args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary runs").into()
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

/// A running `tfdisco serve --listen 127.0.0.1:0 …`, stopped when dropped.
pub struct Serve {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    /// What it printed up to and including `press Ctrl-C to stop`.
    pub printed: Vec<String>,
}

impl Serve {
    /// Starts `tfdisco serve --listen 127.0.0.1:0 args…` with `home` as
    /// `HOME`, and reads what it prints until it says how to stop it.
    pub fn start(home: &Path, args: &[&str]) -> Serve {
        use std::io::{BufRead as _, BufReader};
        use std::process::Stdio;

        let mut child = Command::new(env!("CARGO_BIN_EXE_tfdisco"))
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
