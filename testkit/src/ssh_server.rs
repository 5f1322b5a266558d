//! A real OpenSSH server on 127.0.0.1, for Git over ssh: `sshd -D -e -f
//! CONFIG` on a free port, with a host key `ssh-keygen` makes in a private
//! folder and an `AuthorizedKeysFile` there ([`SshServer::authorize`]),
//! for the user the tests run as (root too: `PermitRootLogin
//! prohibit-password`). Only keys are accepted. The server stops when
//! dropped, or when this process ends however it ends (a watchdog shell
//! between them).
//!
//! Clients pin its host key with [`SshServer::known_hosts`]; a session
//! runs the user's shell, so `ssh://USER@127.0.0.1:PORT/ABS/PATH/repo.git`
//! clones a repository the test made anywhere it can read.
//!
//! It needs `sshd` (Debian's `openssh-server`) and `ssh-keygen`; without
//! them it panics, saying what to install.

use std::fs;
use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// How long `sshd` may take to listen.
const START_LIMIT: Duration = Duration::from_secs(15);

/// How long a stopped `sshd` may take to exit before it is killed.
const STOP_LIMIT: Duration = Duration::from_secs(5);

/// What runs `sshd`: `sh` starts it and watches its own standard input, a
/// pipe from this process; when the pipe closes (the server dropped, or
/// this process gone, even killed) it stops `sshd`, which the system's
/// service would otherwise keep running. The shell exits when `sshd` does.
const WATCHDOG: &str = r#"exec 3<&0
"$0" "$@" </dev/null &
pid=$!
{ read -r _ <&3; kill "$pid" 2>/dev/null; } &
wait "$pid""#;

/// How many ports are tried (another program may take a free port before
/// `sshd` binds it).
const PORT_ATTEMPTS: usize = 5;

/// A key pair `ssh-keygen` made (ed25519, no passphrase).
#[derive(Clone)]
pub struct SshKeyPair {
    /// The private key, OpenSSH's PEM-like format.
    pub private: String,
    /// The public key line (`ssh-ed25519 AAAA… comment`).
    pub public: String,
}

impl SshKeyPair {
    /// The private key as go-getter's `sshkey=` takes it: standard base64,
    /// with `+`, `/` and `=` percent-encoded for a URL's query.
    pub fn sshkey_param(&self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .encode(&self.private)
            .replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D")
    }
}

impl std::fmt::Debug for SshKeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshKeyPair")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// A fresh ed25519 key pair.
pub fn new_key_pair() -> SshKeyPair {
    let folder = tempfile::tempdir().expect("a folder");
    let file = folder.path().join("key");
    keygen(&file);
    SshKeyPair {
        private: fs::read_to_string(&file).expect("the private key"),
        public: fs::read_to_string(file.with_extension("pub"))
            .expect("the public key")
            .trim()
            .to_owned(),
    }
}

/// `ssh-keygen -q -t ed25519 -N '' -C tfdisco-test -f FILE`.
fn keygen(file: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "tfdisco-test", "-f"])
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap_or_else(|e| {
            panic!("the ssh fixture needs ssh-keygen (apt-get install openssh-client): {e}")
        });
    assert!(status.success(), "ssh-keygen failed for {}", file.display());
}

/// The running `sshd` (see the module's documentation).
pub struct SshServer {
    folder: tempfile::TempDir,
    port: u16,
    user: String,
    host_key: String,
    /// The watchdog shell ([`WATCHDOG`]) and the pipe it watches.
    child: Child,
    watched: Option<ChildStdin>,
}

impl SshServer {
    /// Starts `sshd` for the current user, listening when this returns.
    pub fn start() -> SshServer {
        let sshd = sshd_program();
        let folder = tempfile::tempdir().expect("a folder");
        let host_key_file = folder.path().join("host_key");
        keygen(&host_key_file);
        let host_key = fs::read_to_string(host_key_file.with_extension("pub"))
            .expect("the host key")
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        let authorized = folder.path().join("authorized_keys");
        fs::write(&authorized, "").expect("the authorized keys");
        let user = command_text("id", &["-un"]);
        let root = command_text("id", &["-u"]) == "0";
        if root {
            // Privilege separation's empty folder, which the system's
            // service makes when it starts (Debian: /run/sshd).
            let _ = fs::create_dir_all("/run/sshd");
        }
        let mut last_log = String::new();
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port();
            let config = folder.path().join("sshd_config");
            fs::write(
                &config,
                format!(
                    "ListenAddress 127.0.0.1:{port}\n\
                     HostKey {host_key}\n\
                     AuthorizedKeysFile {authorized}\n\
                     StrictModes no\n\
                     PubkeyAuthentication yes\n\
                     PasswordAuthentication no\n\
                     KbdInteractiveAuthentication no\n\
                     PermitRootLogin {permit_root}\n\
                     AllowUsers {user}\n\
                     UsePAM no\n\
                     PidFile none\n\
                     LogLevel VERBOSE\n",
                    host_key = host_key_file.display(),
                    authorized = authorized.display(),
                    permit_root = if root { "prohibit-password" } else { "no" },
                ),
            )
            .expect("the sshd configuration");
            let log = folder.path().join("sshd.log");
            let log_file = fs::File::create(&log).expect("the sshd log");
            let mut child = Command::new("sh")
                .args(["-c", WATCHDOG])
                .arg(&sshd)
                .args(["-D", "-e", "-f"])
                .arg(&config)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(log_file)
                .spawn()
                .unwrap_or_else(|e| panic!("sh running {}: {e}", sshd.display()));
            let watched = child.stdin.take();
            if wait_listening(&mut child, port) {
                return SshServer {
                    folder,
                    port,
                    user,
                    host_key,
                    child,
                    watched,
                };
            }
            stop(&mut child, watched);
            // The next attempt reuses the folder and keys.
            last_log = fs::read_to_string(&log).unwrap_or_default();
        }
        panic!("sshd did not start on 127.0.0.1 after {PORT_ATTEMPTS} ports:\n{last_log}");
    }

    /// The port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The user sessions log in as (the one the tests run as).
    pub fn user(&self) -> &str {
        &self.user
    }

    /// `ssh://USER@127.0.0.1:PORT/PATH` for the absolute `path`.
    pub fn url(&self, path: &Path) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            self.user,
            self.port,
            path.display()
        )
    }

    /// Lets `public_key` (a public key line) log in.
    pub fn authorize(&self, public_key: &str) {
        let file = self.folder.path().join("authorized_keys");
        let mut keys = fs::read_to_string(&file).expect("the authorized keys");
        keys.push_str(public_key.trim());
        keys.push('\n');
        fs::write(&file, keys).expect("the authorized keys");
    }

    /// The `known_hosts` line that pins the server's host key:
    /// `[127.0.0.1]:PORT ssh-ed25519 AAAA…`.
    pub fn known_hosts(&self) -> String {
        format!("[127.0.0.1]:{} {}\n", self.port, self.host_key)
    }

    /// What `sshd` logged so far.
    pub fn log(&self) -> String {
        fs::read_to_string(self.folder.path().join("sshd.log")).unwrap_or_default()
    }
}

impl Drop for SshServer {
    fn drop(&mut self) {
        stop(&mut self.child, self.watched.take());
    }
}

/// Closes the watchdog's pipe (it stops `sshd`) and waits for the shell,
/// within [`STOP_LIMIT`]; then kills it.
fn stop(child: &mut Child, watched: Option<ChildStdin>) {
    drop(watched);
    let deadline = Instant::now() + STOP_LIMIT;
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Waits (within [`START_LIMIT`]) until `port` answers with an SSH
/// banner; false when `sshd` exited first or never answered.
fn wait_listening(child: &mut Child, port: u16) -> bool {
    let deadline = Instant::now() + START_LIMIT;
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return false;
        }
        if let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut banner = [0u8; 4];
            if stream.read_exact(&mut banner).is_ok() && &banner == b"SSH-" {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// `sshd` by absolute path (it re-executes itself): the system's, else
/// the one on the `PATH`.
fn sshd_program() -> PathBuf {
    let on_path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join("sshd"))
                .collect()
        })
        .unwrap_or_default();
    ["/usr/sbin/sshd", "/usr/local/sbin/sshd"]
        .iter()
        .map(PathBuf::from)
        .chain(on_path)
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("the ssh fixture needs sshd (apt-get install openssh-server)"))
}

/// A port of 127.0.0.1 nothing listens on right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a loopback port")
        .port()
}

/// `program args…`'s standard output, trimmed; panics when it fails.
fn command_text(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(output.status.success(), "{program} {args:?} failed");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[cfg(test)]
mod tests;
