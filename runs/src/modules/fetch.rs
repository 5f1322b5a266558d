//! A module package fetched into a new folder, as go-getter fetches it for
//! `init` (docs/behaviour.md, MOD-7 to MOD-9): an http(s) archive
//! downloaded through the client's one engine and unpacked as it streams;
//! a Git repository cloned with the system `git`; an `oci://` package
//! (OpenTofu's) through the OCI module download; OpenTofu's direct
//! packages (MOD-4) in `direct.rs`. Every other getter is refused by name.

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tfdisco_config::{Staged, StagedPackage};
use tfdisco_core::url::Url;
use tfdisco_core::{Dialect, Getter, Hostname, ModulePackage};
use tfdisco_provider::ArchiveFormat;

use super::checksum::Checked;
pub(crate) use super::direct::DirectPackage;
use super::peek::{Peek, Peeking};
use super::ssh_key::SshKey;
use crate::off_thread::off_thread;
use crate::{On, Transport, oci_module_source};
use tfdisco_oci::module::OciModuleSource;

/// How long one `git` command may run.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(600);

/// The most bytes of a failing `git` command's error output kept.
const GIT_STDERR_LIMIT: usize = 8 << 10;

/// What a fetch job fetches: a go-getter package address, or OpenTofu's
/// direct package (MOD-4).
#[derive(Clone, Debug)]
pub(crate) enum Remote {
    /// A module source's or a registry location's package address.
    Address(ModulePackage),
    /// A registry's direct package URL.
    Direct(DirectPackage),
}

impl Remote {
    /// What the package is known by: its address, or the direct URL (one
    /// fetch per address in a run, one module cache entry per address).
    pub(crate) fn address(&self) -> &str {
        match self {
            Remote::Address(package) => package.address(),
            Remote::Direct(direct) => &direct.url,
        }
    }
}

impl<T: Transport> On<'_, T> {
    /// Fetches `package` into `into` (which does not exist yet; its parent
    /// does), and says what identifies it: the `h1:` of an archive's files,
    /// `git:` and the commit checked out, an `oci://` manifest's digest.
    /// On failure, whatever was written into `into` stays for the caller
    /// to remove with the staging area. An archive unpacked as it streams
    /// tells its calls to `peek`, if any (MOD-16).
    pub(crate) async fn fetch_module_package(
        &self,
        package: &Remote,
        into: &Path,
        dialect: Dialect,
        peek: Option<&Peek<'_>>,
    ) -> Result<String, String> {
        let package = match package {
            Remote::Address(package) => package,
            Remote::Direct(direct) => return self.fetch_direct_package(direct, into, peek).await,
        };
        match package.getter() {
            Some(Getter::Http | Getter::Https) if package.archive().is_none() => {
                self.fetch_module_page(package, into, dialect).await
            }
            Some(Getter::Http | Getter::Https) => {
                self.fetch_module_archive(package, into, peek).await
            }
            Some(Getter::Git) => {
                let (package, into) = (package.clone(), into.to_owned());
                off_thread(move || {
                    clone(&package, &into)
                        .map_err(|e| format!("error downloading '{}': {e}", package.redacted_url()))
                })
                .await
                .unwrap_or_else(|| Err("the git clone failed unexpectedly".to_owned()))
            }
            Some(Getter::Oci) => {
                let source =
                    oci_module_source(package.url(), dialect).map_err(|e| e.to_string())?;
                self.oci_module_download(&source, into)
                    .await
                    .map(|module| module.resolved.digest.to_string())
                    .map_err(|e| e.to_string())
            }
            Some(other) => Err(format!(
                "tfdisco does not download {other}:: module packages: only https (and http) \
                 archives, git and oci:// (OpenTofu) packages; install this module with the \
                 CLI or use another source"
            )),
            None => Err(format!(
                "download not supported for scheme '{}'",
                package.getter_name()
            )),
        }
    }

    /// An http(s) archive: the URL without `archive=` and `checksum=`,
    /// downloaded without a token, unpacked into `into` as it streams, its
    /// bytes checked against a `checksum=` once whole.
    async fn fetch_module_archive(
        &self,
        package: &ModulePackage,
        into: &Path,
        peek: Option<&Peek<'_>>,
    ) -> Result<String, String> {
        let Some(format) = package.archive() else {
            return Err(format!("{} is not an archive", package.url()));
        };
        let url = archive_url(package.url())?;
        let format = ArchiveFormat::from_archive_value(format)
            .ok_or_else(|| format!("{format} is no archive format go-getter knows"))?;
        let checksum = match package.checksum() {
            Some(value) => Some(self.archive_checksum(value, &url).await?),
            None => None,
        };
        let mut sink = StagedPackage::with_format(into.to_owned(), into.to_owned(), format)
            .map_err(|e| e.to_string())?;
        if peek.is_some() {
            sink = sink.keeping_written();
        }
        fs::create_dir(into).map_err(|e| format!("{}: {e}", into.display()))?;
        let host = host_of(&url)?;
        let sink = Peeking::new(sink, into.to_owned(), peek);
        let sink = Checked::new(sink, checksum.as_ref(), url.to_string());
        let (staged, checked) = self
            .download(url.clone(), sink, &host)
            .await
            .map_err(|e| e.to_string())?;
        checked?;
        placed_h1(&staged, &url, into)
    }
}

/// An archive unpacked into `into`: its modes set, the `h1:` of its files;
/// else why it was not unpacked.
pub(super) fn placed_h1(staged: &Staged, url: &Url, into: &Path) -> Result<String, String> {
    let h1 = match (staged.h1(), &staged.digest().hashes) {
        (Some(h1), _) => h1,
        (None, Err(e)) => return Err(format!("error downloading '{url}': {e}")),
        (None, Ok(_)) => return Err(format!("error downloading '{url}': not unpacked")),
    };
    staged
        .apply_modes()
        .map_err(|e| format!("{}: {e}", into.display()))?;
    Ok(h1)
}

/// The `oci://` source a package address is, if it is one.
pub(super) fn oci_source(
    package: &Remote,
    dialect: Dialect,
) -> Result<Option<OciModuleSource>, String> {
    match package {
        Remote::Address(package) if package.getter() == Some(Getter::Oci) => {
            oci_module_source(package.url(), dialect)
                .map(Some)
                .map_err(|e| e.to_string())
        }
        _ => Ok(None),
    }
}

/// The host a download from `url` is about.
pub(super) fn host_of(url: &Url) -> Result<Hostname, String> {
    url.host_str()
        .and_then(|h| Hostname::parse(h).ok())
        .ok_or_else(|| format!("{url}: no host"))
}

/// The archive's URL as go-getter requests it: `archive=` and `checksum=`
/// taken out of the query, the rest sorted by name (Go's `Values.Encode`).
pub(super) fn archive_url(address: &str) -> Result<Url, String> {
    let mut url = Url::parse(address).map_err(|e| format!("{address}: {e}"))?;
    let mut kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != "archive" && k != "checksum")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    Ok(url)
}

/// go-getter's Git getter: `git clone` (with `--depth N --branch REF` for
/// a shallow clone), then `git checkout REF` for a full one, then the
/// submodules; `git:` and the commit checked out. With `sshkey=`, every
/// one of them runs with the key ([`SshKey`]); its file is removed when
/// the clone ends, whichever way.
fn clone(package: &ModulePackage, into: &Path) -> Result<String, String> {
    let key = package.ssh_key().map(SshKey::write).transpose()?;
    let ssh = key
        .as_ref()
        .map(|key| key.ssh_command(std::env::var_os("GIT_SSH_COMMAND")));
    let git = |dir: Option<&Path>, args: &[String]| run_git(dir, args, ssh.as_deref());
    let url = git_url(package.url())?;
    let revision = package.revision().filter(|r| !r.is_empty());
    let depth = package.depth().filter(|d| *d > 0);
    let mut args: Vec<String> = vec!["clone".into()];
    if let Some(depth) = depth {
        let branch = match revision {
            Some(r) => r.to_owned(),
            None => default_branch(&url, ssh.as_deref()),
        };
        args.extend([
            "--depth".into(),
            depth.to_string(),
            "--branch".into(),
            branch,
        ]);
    }
    args.extend(["--".into(), url, into.to_string_lossy().into_owned()]);
    git(None, &args)?;
    if depth.is_none()
        && let Some(revision) = revision
    {
        git(Some(into), &["checkout".into(), revision.to_owned()])?;
    }
    let mut submodules: Vec<String> = vec![
        "submodule".into(),
        "update".into(),
        "--init".into(),
        "--recursive".into(),
    ];
    if let Some(depth) = depth {
        submodules.extend(["--depth".into(), depth.to_string()]);
    }
    git(Some(into), &submodules)?;
    let head = git(Some(into), &["rev-parse".into(), "HEAD".into()])?;
    Ok(format!("git:{}", head.trim()))
}

/// The repository's URL as go-getter hands it to `git`: without the
/// `ref`, `depth` and `sshkey` it reads itself.
fn git_url(address: &str) -> Result<String, String> {
    let Ok(mut url) = Url::parse(address) else {
        // scp-like addresses (`git@host:path`) are detected into ssh://
        // URLs; anything else is passed as it is.
        return Ok(address.to_owned());
    };
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !matches!(k.as_ref(), "ref" | "depth" | "sshkey"))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    Ok(url.to_string())
}

/// The remote's default branch, as go-getter finds it for a shallow clone
/// without a `ref` (`git ls-remote --symref URL HEAD`), `master` when it
/// says none. With an `sshkey=`, with the key (`ssh`).
fn default_branch(url: &str, ssh: Option<&OsStr>) -> String {
    let out = run_git(
        None,
        &[
            "ls-remote".into(),
            "--symref".into(),
            url.into(),
            "HEAD".into(),
        ],
        ssh,
    );
    let text = out.unwrap_or_default();
    text.lines()
        .find_map(|line| {
            line.strip_prefix("ref: refs/heads/")
                .and_then(|rest| rest.split_whitespace().next())
        })
        .unwrap_or("master")
        .to_owned()
}

/// Runs `git ARGS` (in `dir`), without a terminal prompt, within
/// [`GIT_TIMEOUT`]; its output on success, else go-getter's `git exited
/// with N: STDERR`.
pub(super) fn git(dir: Option<&Path>, args: &[String]) -> Result<String, String> {
    run_git(dir, args, None)
}

/// [`git`], with `GIT_SSH_COMMAND` set to `ssh` when there is one.
fn run_git(dir: Option<&Path>, args: &[String], ssh: Option<&OsStr>) -> Result<String, String> {
    let mut command = Command::new("git");
    command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    if let Some(ssh) = ssh {
        command.env("GIT_SSH_COMMAND", ssh);
    }
    let mut child = command.spawn().map_err(|e| {
        format!("cannot run git (it must be installed to fetch git:: module sources): {e}")
    })?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = (&mut stderr)
            .take(GIT_STDERR_LIMIT as u64)
            .read_to_end(&mut text);
        // The rest is read and dropped, so git never blocks on a full pipe.
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        text
    });
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "git {} took more than {} s and was stopped",
                    args.first().map_or("", String::as_str),
                    GIT_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Err(format!("git: {e}")),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if status.success() {
        Ok(String::from_utf8_lossy(&stdout).into_owned())
    } else {
        let code = status
            .code()
            .map_or("a signal".to_owned(), |c| c.to_string());
        Err(format!(
            "git exited with {code}: {}",
            String::from_utf8_lossy(&stderr).trim_end()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_and_git_parameters_are_not_sent() {
        assert_eq!(
            archive_url("https://h/p/x?archive=zip&v=1")
                .expect("a URL")
                .as_str(),
            "https://h/p/x?v=1"
        );
        assert_eq!(
            archive_url("https://h/p/x.zip?archive=zip")
                .expect("a URL")
                .as_str(),
            "https://h/p/x.zip"
        );
        assert_eq!(
            archive_url("https://h/x.tar.xz?z=1&checksum=md5:00&a=2&a=1")
                .expect("a URL")
                .as_str(),
            "https://h/x.tar.xz?a=2&a=1&z=1"
        );
        assert_eq!(
            git_url("file:///srv/repo.git?ref=v1&depth=1").expect("a URL"),
            "file:///srv/repo.git"
        );
        assert_eq!(
            git_url("https://h/r.git?ref=v1&x=y").expect("a URL"),
            "https://h/r.git?x=y"
        );
    }
}
