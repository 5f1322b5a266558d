use std::process::Output;

use super::*;
use crate::module_goldens::git::{MAIN_COMMIT, make_repo};

/// `git ls-remote URL HEAD` through ssh with `identity` (if any), the
/// server's host key pinned, nothing else of the user's configuration.
fn ls_remote(server: &SshServer, dir: &Path, url: &str, identity: Option<&Path>) -> Output {
    let known = dir.join("known_hosts");
    fs::write(&known, server.known_hosts()).expect("known hosts");
    let mut ssh = format!(
        "ssh -F /dev/null -o UserKnownHostsFile={} -o StrictHostKeyChecking=yes \
         -o IdentitiesOnly=yes -o BatchMode=yes",
        known.display()
    );
    if let Some(identity) = identity {
        ssh.push_str(&format!(" -i {}", identity.display()));
    }
    Command::new("git")
        .args(["ls-remote", "--", url, "HEAD"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_SSH_COMMAND", ssh)
        .stdin(Stdio::null())
        .output()
        .expect("git runs")
}

#[test]
fn an_authorized_key_reads_a_repository_and_no_other_gets_in() {
    let scratch = tempfile::tempdir().expect("a folder");
    let repo = make_repo(scratch.path());
    let server = SshServer::start();
    let key = new_key_pair();
    assert!(key.public.starts_with("ssh-ed25519 "), "{}", key.public);
    assert!(!format!("{key:?}").contains(&key.private), "{key:?}");
    server.authorize(&key.public);
    let identity = scratch.path().join("id");
    fs::write(&identity, &key.private).expect("the key");
    fs::set_permissions(
        &identity,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("0600");
    let url = server.url(&repo);
    assert!(url.starts_with(&format!("ssh://{}@127.0.0.1:", server.user())));

    let read = ls_remote(&server, scratch.path(), &url, Some(&identity));
    let stdout = String::from_utf8_lossy(&read.stdout);
    assert!(
        read.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&read.stderr),
        server.log()
    );
    assert_eq!(stdout.trim(), format!("{MAIN_COMMIT}\tHEAD"));

    // No key (IdentitiesOnly, an empty home): refused.
    let refused = ls_remote(&server, scratch.path(), &url, None);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("Permission denied (publickey)"), "{stderr}");

    // Another key: refused too.
    let other = new_key_pair();
    let other_file = scratch.path().join("other");
    fs::write(&other_file, &other.private).expect("the key");
    fs::set_permissions(
        &other_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("0600");
    let refused = ls_remote(&server, scratch.path(), &url, Some(&other_file));
    assert!(!refused.status.success());

    // The host key is pinned: another server's known_hosts line fails.
    let other_server = SshServer::start();
    let mismatched = scratch.path().join("mismatched");
    fs::create_dir_all(&mismatched).expect("a folder");
    let line = other_server
        .known_hosts()
        .replace(&other_server.port().to_string(), &server.port().to_string());
    let known = mismatched.join("known_hosts");
    fs::write(&known, line).expect("known hosts");
    let ssh = format!(
        "ssh -F /dev/null -o UserKnownHostsFile={} -o StrictHostKeyChecking=yes \
         -o IdentitiesOnly=yes -o BatchMode=yes -i {}",
        known.display(),
        identity.display()
    );
    let spoofed = Command::new("git")
        .args(["ls-remote", "--", &url, "HEAD"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &mismatched)
        .env("GIT_SSH_COMMAND", ssh)
        .stdin(Stdio::null())
        .output()
        .expect("git runs");
    assert!(!spoofed.status.success());
    let stderr = String::from_utf8_lossy(&spoofed.stderr);
    assert!(
        stderr.contains("HOST IDENTIFICATION HAS CHANGED"),
        "{stderr}"
    );

    // Dropped, it stops listening.
    let port = server.port();
    drop(server);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err());
}

#[test]
fn sshd_stops_when_the_pipe_it_watches_closes_as_when_this_process_dies() {
    let server = SshServer::start();
    let port = server.port();
    let mut server = std::mem::ManuallyDrop::new(server);
    // What the kernel does for a killed test process: the pipe closes,
    // and nothing else happens (no Drop).
    drop(server.watched.take());
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + STOP_LIMIT;
    while TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok() {
        assert!(Instant::now() < deadline, "sshd still listens on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = server.child.wait();
    // Not dropped: the folder is removed by hand.
    let _ = fs::remove_dir_all(server.folder.path());
}
