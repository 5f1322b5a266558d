//! The git repository of a case with [`Case::remotes`](super::Case::remotes)
//! served over the network as well: over HTTPS by the real `git
//! http-backend` ([`GitHttpServer`], trusted through git's own
//! `GIT_SSL_CAINFO`) and over ssh by a real `sshd` ([`SshServer`]) that lets
//! in one fresh key, which the configurations pass as go-getter's
//! `sshkey=`. `GIT_SSH_COMMAND` pins the server's host key and offers no key
//! of its own, so only `sshkey=` logs in.
//!
//! The `github.com/…` and `bitbucket.org/…` shorthands reach the HTTPS
//! server too: git's own `url.BASE.insteadOf` (given in the environment,
//! `GIT_CONFIG_COUNT`) rewrites `https://github.com/` and
//! `https://bitbucket.org/` to it, so the clone Terraform and tfdisco
//! detect from the shorthand (`git::https://github.com/O/R.git`) is made
//! by the real `git`, of `tfdisco/repo.git` (the repository under that
//! name too).
//!
//! Their addresses differ at every run: `{GIT_HTTPS}` stands for
//! `https://127.0.0.1:PORT`, `{GIT_SSH}` for `ssh://USER@127.0.0.1:PORT`
//! and `{SSHKEY}` for the key's `sshkey=` value in the committed files.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::Path;

use crate::git_http::GitHttpServer;
use crate::pki;
use crate::ssh_server::{SshKeyPair, SshServer, new_key_pair};

/// The placeholder for the HTTPS git server, `https://127.0.0.1:PORT`.
pub const GIT_HTTPS: &str = "{GIT_HTTPS}";
/// The placeholder for the ssh server, `ssh://USER@127.0.0.1:PORT`.
pub const GIT_SSH: &str = "{GIT_SSH}";
/// The placeholder for the fresh key as `sshkey=` takes it.
pub const SSH_KEY: &str = "{SSHKEY}";

/// The owner a shorthand names (`github.com/tfdisco/repo`).
pub const SHORTHAND_OWNER: &str = "tfdisco";

/// The two servers and the key (see the module's documentation).
pub struct Remotes {
    https: GitHttpServer,
    ssh: SshServer,
    key: SshKeyPair,
    ssh_command: String,
}

impl fmt::Debug for Remotes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remotes")
            .field("https", &self.https_base())
            .field("ssh", &self.ssh_base())
            .finish_non_exhaustive()
    }
}

impl Remotes {
    /// Serves the repositories in `git`; the host key is pinned in
    /// `scratch/known_hosts`.
    pub(crate) fn start(git: &Path, scratch: &Path) -> Remotes {
        // `O/R` of a shorthand: the repository under `tfdisco/repo.git`.
        let owner = git.join(SHORTHAND_OWNER);
        fs::create_dir_all(&owner).unwrap_or_else(|e| panic!("{}: {e}", owner.display()));
        std::os::unix::fs::symlink("../repo.git", owner.join("repo.git"))
            .unwrap_or_else(|e| panic!("{}: {e}", owner.display()));
        let https = GitHttpServer::start(git);
        let ssh = SshServer::start();
        let key = new_key_pair();
        ssh.authorize(&key.public);
        let known = scratch.join("known_hosts");
        fs::write(&known, ssh.known_hosts()).unwrap_or_else(|e| panic!("{}: {e}", known.display()));
        let ssh_command = format!(
            "ssh -F /dev/null -o UserKnownHostsFile={} -o StrictHostKeyChecking=yes \
             -o IdentitiesOnly=yes -o BatchMode=yes",
            known.display()
        );
        Remotes {
            https,
            ssh,
            key,
            ssh_command,
        }
    }

    /// `https://127.0.0.1:PORT` (`{GIT_HTTPS}`).
    pub fn https_base(&self) -> String {
        format!("https://127.0.0.1:{}", self.https.port())
    }

    /// `ssh://USER@127.0.0.1:PORT` (`{GIT_SSH}`).
    pub fn ssh_base(&self) -> String {
        format!("ssh://{}@127.0.0.1:{}", self.ssh.user(), self.ssh.port())
    }

    /// What git needs to reach them: `GIT_SSL_CAINFO` (the test CA),
    /// `GIT_SSH_COMMAND`, and the `insteadOf` rewrites of GitHub's and
    /// Bitbucket's https URLs to the HTTPS server.
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let base = format!("url.{}/.insteadOf", self.https_base());
        vec![
            ("GIT_SSL_CAINFO", pki().ca_file().clone().into_os_string()),
            ("GIT_SSH_COMMAND", self.ssh_command.clone().into()),
            ("GIT_CONFIG_COUNT", "2".into()),
            ("GIT_CONFIG_KEY_0", base.clone().into()),
            ("GIT_CONFIG_VALUE_0", "https://github.com/".into()),
            ("GIT_CONFIG_KEY_1", base.into()),
            ("GIT_CONFIG_VALUE_1", "https://bitbucket.org/".into()),
        ]
    }

    /// `text` with the placeholders in (an address only with the `/`
    /// after it, so one port is never taken for the start of another).
    pub(crate) fn normalize(&self, text: &str) -> String {
        text.replace(&self.key.sshkey_param(), SSH_KEY)
            .replace(&format!("{}/", self.https_base()), &format!("{GIT_HTTPS}/"))
            .replace(&format!("{}/", self.ssh_base()), &format!("{GIT_SSH}/"))
    }

    /// `text` with the placeholders filled in.
    pub(crate) fn fill(&self, text: &str) -> String {
        text.replace(SSH_KEY, &self.key.sshkey_param())
            .replace(GIT_HTTPS, &self.https_base())
            .replace(GIT_SSH, &self.ssh_base())
    }
}
