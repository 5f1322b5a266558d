//! The `docker-registry` child process: its configuration file, its free
//! port, its log file, and the wait until it answers.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::client::{Client, block_on};

/// The registry program (Debian's `docker-registry`, CNCF distribution 2.8).
pub(crate) const REGISTRY_PROGRAM: &str = "docker-registry";
/// Makes the bcrypt password file (Debian's `apache2-utils`).
pub(crate) const HTPASSWD_PROGRAM: &str = "htpasswd";

/// What to do when a program the fixture runs is missing.
pub(crate) const INSTALL_HINT: &str = "install the Debian packages `docker-registry apache2-utils` \
     (CI installs them in .ci/run); the OCI registry fixture needs the real registry";

/// How long the registry may take to answer `GET /v2/`.
const READY_LIMIT: Duration = Duration::from_secs(10);
/// How many ports are tried when the one picked was taken meanwhile.
const PORT_ATTEMPTS: usize = 5;

/// A running registry.
pub(crate) struct Process {
    pub(crate) child: Child,
    pub(crate) port: u16,
}

/// Why a start failed.
enum Failure {
    /// The port was taken between picking and binding it: try another.
    PortTaken,
    /// Anything else.
    Other(String),
}

/// Starts `docker-registry` in `dir` (configuration, log, storage) with
/// this `auth:` section (empty for none), on a free port of 127.0.0.1.
pub(crate) fn launch(dir: &Path, auth_section: &str, client: &Client) -> Result<Process, String> {
    launch_on(dir, auth_section, client, free_port)
}

/// [`launch`] on the ports `next_port` picks, one a try.
fn launch_on(
    dir: &Path,
    auth_section: &str,
    client: &Client,
    mut next_port: impl FnMut() -> Result<u16, String>,
) -> Result<Process, String> {
    let cert = dir.join("registry.crt");
    let key = dir.join("registry.key");
    write(&cert, crate::pki::pki().trusted_cert_pem().as_bytes())?;
    write(&key, crate::pki::pki().trusted_key_pem().as_bytes())?;
    let storage = dir.join("storage");
    std::fs::create_dir_all(&storage).map_err(|e| format!("making {}: {e}", storage.display()))?;
    let mut last = String::new();
    for _ in 0..PORT_ATTEMPTS {
        let port = next_port()?;
        let config = dir.join("config.yml");
        write(
            &config,
            config_text(port, &storage, &cert, &key, auth_section).as_bytes(),
        )?;
        let mut child = spawn(&config, &log_path(dir))?;
        match wait_ready(&mut child, port, &log_path(dir), client) {
            Ok(()) => return Ok(Process { child, port }),
            Err(failure) => {
                let _ = child.kill();
                let _ = child.wait();
                match failure {
                    Failure::PortTaken => last = format!("port {port} was taken"),
                    Failure::Other(message) => return Err(message),
                }
            }
        }
    }
    Err(format!(
        "no free port for the registry after {PORT_ATTEMPTS} tries ({last})"
    ))
}

/// Where the child's output goes.
pub(crate) fn log_path(dir: &Path) -> PathBuf {
    dir.join("registry.log")
}

/// A bcrypt password file for one user, made by `htpasswd -Bbn`.
pub(crate) fn htpasswd(username: &str, password: &str) -> Result<String, String> {
    let output = Command::new(HTPASSWD_PROGRAM)
        .args(["-Bbn", username, password])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("`{HTPASSWD_PROGRAM}` was not found on the PATH: {INSTALL_HINT}")
            }
            _ => format!("running `{HTPASSWD_PROGRAM}`: {e}"),
        })?;
    if !output.status.success() {
        return Err(format!(
            "`{HTPASSWD_PROGRAM} -Bbn` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("htpasswd's output: {e}"))
}

/// A port of 127.0.0.1 that was free a moment ago.
fn free_port() -> Result<u16, String> {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("a loopback port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("a loopback port: {e}"))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("writing {}: {e}", path.display()))
}

/// A YAML single-quoted scalar.
pub(crate) fn yaml(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

pub(crate) fn yaml_path(path: &Path) -> String {
    yaml(&path.to_string_lossy())
}

fn config_text(port: u16, storage: &Path, cert: &Path, key: &Path, auth: &str) -> String {
    let secret = format!("tfdisco-test-{}-{port}", std::process::id());
    format!(
        "version: 0.1
log:
  level: info
  formatter: text
storage:
  filesystem:
    rootdirectory: {storage}
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:{port}
  secret: {secret}
  tls:
    certificate: {cert}
    key: {key}
{auth}",
        storage = yaml_path(storage),
        secret = yaml(&secret),
        cert = yaml_path(cert),
        key = yaml_path(key),
    )
}

fn spawn(config: &Path, log: &Path) -> Result<Child, String> {
    let out = std::fs::File::create(log).map_err(|e| format!("making {}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("sharing {}: {e}", log.display()))?;
    let mut command = Command::new(REGISTRY_PROGRAM);
    command
        .arg("serve")
        .arg(config)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // The registry reads REGISTRY_* variables over its configuration file.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("REGISTRY_") {
            command.env_remove(name);
        }
    }
    command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("`{REGISTRY_PROGRAM}` was not found on the PATH: {INSTALL_HINT}")
        }
        _ => format!("starting `{REGISTRY_PROGRAM}`: {e}"),
    })
}

/// Polls `GET /v2/` until the registry answers it (200, or 401 when it
/// asks for credentials), the child exits, or [`READY_LIMIT`] passes.
fn wait_ready(child: &mut Child, port: u16, log: &Path, client: &Client) -> Result<(), Failure> {
    let end = Instant::now() + READY_LIMIT;
    let mut last;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            if text.contains("address already in use") {
                return Err(Failure::PortTaken);
            }
            return Err(Failure::Other(format!(
                "`{REGISTRY_PROGRAM}` exited ({status}) before answering:\n{}",
                tail(&text)
            )));
        }
        let probe = client.send(port, "GET", "/v2/", &[], b"");
        match block_on(async { tokio::time::timeout(Duration::from_secs(2), probe).await }) {
            Ok(Ok(answer))
                if matches!(answer.status, 200 | 401)
                    && answer.header("docker-distribution-api-version") == Some("registry/2.0") =>
            {
                return Ok(());
            }
            Ok(Ok(answer)) => last = format!("GET /v2/ answered {}", answer.status),
            Ok(Err(e)) => last = e,
            Err(_) => last = "GET /v2/ took over 2 s".to_owned(),
        }
        if Instant::now() >= end {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            return Err(Failure::Other(format!(
                "`{REGISTRY_PROGRAM}` did not answer GET /v2/ on 127.0.0.1:{port} within \
                 {READY_LIMIT:?} ({last}):\n{}",
                tail(&text)
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The last lines of a log, for a failure message.
pub(crate) fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.len().saturating_sub(30);
    lines[start..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port taken between picking and binding it: the registry exits
    /// saying so, and the next port is tried.
    #[test]
    fn oci_registry_retries_a_taken_port() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let taken_port = taken.local_addr().expect("bound").port();
        let mut tried = Vec::new();
        let client = Client::new().expect("a client");
        let mut process = launch_on(dir.path(), "", &client, || {
            let port = if tried.is_empty() {
                taken_port
            } else {
                free_port()?
            };
            tried.push(port);
            Ok(port)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let _ = process.child.kill();
        let _ = process.child.wait();
        assert_eq!(tried.len(), 2, "{tried:?}");
        assert_eq!(tried[0], taken_port);
        assert_eq!(process.port, tried[1]);
        drop(taken);
    }
}
