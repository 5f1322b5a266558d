//! Opening a URL in the person's browser, as Terraform does it (its
//! launcher is github.com/pkg/browser's): on Linux and the BSDs the first of
//! `xdg-open`, `x-www-browser` and `www-browser` on the PATH (`BROWSER` is
//! not read), on macOS `open`, on Windows `rundll32
//! url.dll,FileProtocolHandler`, with the URL as the one argument.
//!
//! Terraform waits for the launcher to exit; tfdisco waits half a second
//! (a launcher that fails at once, with no browser to start, is a failure
//! and the URL is shown for the person to open) and then leaves it running,
//! so a launcher that waits for the page never holds up the login.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tfdisco_core::url::Url;

/// How long a launcher may take to fail before it counts as started.
const FAIL_FAST: Duration = Duration::from_millis(500);

/// Starts a browser at `url`; an error when none could be started.
pub(crate) fn open(url: &Url) -> Result<(), String> {
    let (program, args) = launcher().ok_or("no browser launcher found")?;
    let mut child = Command::new(&program)
        .args(args)
        .arg(url.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let started = Instant::now();
    while started.elapsed() < FAIL_FAST {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("{} failed: {status}", program.display())),
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    }
    // Still running: reaped by a thread of its own, never waited for.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// The launcher program and its arguments before the URL.
fn launcher() -> Option<(PathBuf, &'static [&'static str])> {
    if cfg!(target_os = "macos") {
        return Some((PathBuf::from("open"), &[]));
    }
    if cfg!(windows) {
        return Some((PathBuf::from("rundll32"), &["url.dll,FileProtocolHandler"]));
    }
    ["xdg-open", "x-www-browser", "www-browser"]
        .into_iter()
        .find_map(on_path)
        .map(|p| (p, &[][..]))
}

/// The first executable file named `name` in a folder of the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &std::path::Path) -> bool {
    path.is_file()
}
