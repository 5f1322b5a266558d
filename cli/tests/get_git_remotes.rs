//! `tfdisco get` on Git repositories over the network (docs/behaviour.md,
//! MOD-8): over https from the real `git http-backend` behind the test
//! CA, which git trusts through its own `GIT_SSL_CAINFO` (never through
//! tfdisco's `--ca-file`); over ssh from a real `sshd` that lets in one
//! fresh key, which only go-getter's `sshkey=` hands to `ssh`. The
//! manifest byte for byte as Terraform 1.11.4 writes it for the same
//! calls, each clone's HEAD and files, and no key in anything printed or
//! left behind.
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::git_http::GitHttpServer;
use tfdisco_testkit::module_goldens::git::{
    FEATURE_COMMIT, MAIN_COMMIT, TAG_COMMIT, git_line, make_repo,
};
use tfdisco_testkit::ssh_server::{SshKeyPair, SshServer, new_key_pair};

/// A configuration folder, a home, a temporary folder of its own for the
/// run (`TMPDIR`) and a folder of repositories (`repo.git` made in it).
struct Work {
    scratch: tempfile::TempDir,
    home: PathBuf,
    dir: PathBuf,
    tmp: PathBuf,
    repos: PathBuf,
}

impl Work {
    fn new() -> Work {
        let scratch = tempfile::tempdir().expect("a folder");
        let [home, dir, tmp, repos] =
            ["home", "work", "tmp", "git"].map(|name| scratch.path().join(name));
        for folder in [&home, &dir, &tmp] {
            fs::create_dir_all(folder).expect("a folder");
        }
        make_repo(&repos);
        Work {
            scratch,
            home,
            dir,
            tmp,
            repos,
        }
    }

    fn repo(&self) -> PathBuf {
        self.repos.join("repo.git")
    }

    fn configure(&self, main_tf: &str) {
        let _ = fs::remove_dir_all(self.dir.join(".terraform"));
        fs::write(self.dir.join("main.tf"), main_tf).expect("a configuration");
    }

    /// `tfdisco get --chdir DIR --dialect terraform EXTRA…` with `TMPDIR`
    /// and `vars` in its environment (and nothing else but `HOME` and
    /// `PATH`).
    fn get(&self, vars: &[(&str, &str)], extra: &[&str]) -> Run {
        let dir = self.dir.to_string_lossy().into_owned();
        let tmp = self.tmp.to_string_lossy().into_owned();
        let mut env = vec![("TMPDIR", tmp.as_str())];
        env.extend_from_slice(vars);
        let mut args = vec!["get", "--chdir", &dir, "--dialect", "terraform"];
        args.extend_from_slice(extra);
        tfdisco(&self.home, &env, &args)
    }

    fn manifest(&self) -> String {
        fs::read_to_string(self.dir.join(".terraform/modules/modules.json")).expect("a manifest")
    }

    /// The clone's HEAD: `git PATH HEAD COMMIT REF`.
    fn head(&self, rel: &str) -> String {
        git_line(&self.dir.join(rel).join(".git"), rel)
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// What is left in the run's temporary folder.
    fn leftovers(&self) -> Vec<String> {
        fs::read_dir(&self.tmp)
            .expect("the temporary folder")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }
}

#[test]
fn git_over_https_with_a_ref_a_depth_and_a_subdirectory() {
    let work = Work::new();
    let server = GitHttpServer::start(&work.repos);
    let url = server.url("repo.git");
    work.configure(&format!(
        r#"module "tagged" {{ source = "git::{url}?ref=v1.0.0" }}
module "shallow" {{ source = "git::{url}?ref=feature&depth=1" }}
module "sub" {{ source = "git::{url}//modules/sub" }}
"#
    ));
    let ca = ca_file();
    let run = work.get(&[("GIT_SSL_CAINFO", &ca)], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // What Terraform 1.11.4's `get` wrote for these calls (with its port).
    assert_eq!(
        work.manifest(),
        format!(
            concat!(
                r#"{{"Modules":[{{"Key":"","Source":"","Dir":"."}},"#,
                r#"{{"Key":"shallow","Source":"git::{url}?ref=feature\u0026depth=1","Dir":".terraform/modules/shallow"}},"#,
                r#"{{"Key":"shallow.sub","Source":"./modules/sub","Dir":".terraform/modules/shallow/modules/sub"}},"#,
                r#"{{"Key":"sub","Source":"git::{url}//modules/sub","Dir":".terraform/modules/sub/modules/sub"}},"#,
                r#"{{"Key":"tagged","Source":"git::{url}?ref=v1.0.0","Dir":".terraform/modules/tagged"}},"#,
                r#"{{"Key":"tagged.sub","Source":"./modules/sub","Dir":".terraform/modules/tagged/modules/sub"}}]}}"#
            ),
            url = url
        )
    );
    let modules = ".terraform/modules";
    assert_eq!(
        work.head(&format!("{modules}/tagged")),
        format!("git {modules}/tagged HEAD {TAG_COMMIT} detached")
    );
    assert_eq!(
        work.head(&format!("{modules}/shallow")),
        format!("git {modules}/shallow HEAD {FEATURE_COMMIT} refs/heads/feature")
    );
    assert_eq!(
        work.head(&format!("{modules}/sub")),
        format!("git {modules}/sub HEAD {MAIN_COMMIT} refs/heads/main")
    );
    // depth=1: a shallow clone, its one commit the branch's.
    assert_eq!(
        work.read(&format!("{modules}/shallow/.git/shallow")).trim(),
        FEATURE_COMMIT
    );
    assert!(!work.dir.join(modules).join("tagged/.git/shallow").exists());
    assert!(
        work.read(&format!("{modules}/tagged/main.tf"))
            .contains("\"v1\"")
    );
    assert!(
        work.read(&format!("{modules}/sub/main.tf"))
            .contains("\"v2\"")
    );
    assert!(work.dir.join(modules).join("shallow/feature.tf").is_file());
    assert!(!work.dir.join(modules).join("tagged/feature.tf").exists());
    let hello = work.dir.join(modules).join("tagged/scripts/hello.sh");
    assert_eq!(
        fs::metadata(&hello).expect("there").permissions().mode() & 0o777,
        0o755
    );
    let requests = server.requests();
    let fetches = requests
        .iter()
        .filter(|r| r.method == "POST" && r.path == "/repo.git/git-upload-pack" && r.status == 200)
        .count();
    assert!(fetches >= 3, "{requests:#?}");

    // git trusts what git is told to trust: tfdisco's own --ca-file does
    // not reach it, and without GIT_SSL_CAINFO the clone is refused.
    work.configure(&format!(
        "module \"tagged\" {{ source = \"git::{url}?ref=v1.0.0\" }}\n"
    ));
    let refused = work.get(&[], &["--ca-file", &ca]);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains(&format!(
            "error downloading '{url}?ref=v1.0.0': git exited with 128: "
        )),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("certificate"), "{}", refused.stderr);
    assert!(!work.dir.join(modules).join("tagged").exists());
}

/// `GIT_SSH_COMMAND` that pins the server's host key (in `known_hosts`
/// under the scratch folder) and offers no key of its own: only the `-i`
/// tfdisco appends can log in.
fn ssh_command(work: &Work, server: &SshServer) -> String {
    let known = work.scratch.path().join("known_hosts");
    fs::write(&known, server.known_hosts()).expect("known hosts");
    format!(
        "ssh -F /dev/null -o UserKnownHostsFile={} -o StrictHostKeyChecking=yes \
         -o IdentitiesOnly=yes -o BatchMode=yes",
        known.display()
    )
}

/// Whether `text` shows any of `key`: its `sshkey=` value, its base64
/// (unescaped) or a line of the private key itself.
fn shows_key(text: &str, key: &SshKeyPair) -> bool {
    let param = key.sshkey_param();
    let unescaped = param
        .replace("%2B", "+")
        .replace("%2F", "/")
        .replace("%3D", "=");
    text.contains(&param)
        || text.contains(&unescaped[..40])
        || key
            .private
            .lines()
            .filter(|l| !l.starts_with("-----") && l.len() > 20)
            .any(|l| text.contains(l))
}

/// A work folder, an `sshd` that lets in one fresh key, the
/// `GIT_SSH_COMMAND` for it ([`ssh_command`]) and the repository's
/// `ssh://` URL.
struct OverSsh {
    work: Work,
    server: SshServer,
    key: SshKeyPair,
    ssh: String,
    url: String,
}

fn over_ssh() -> OverSsh {
    let work = Work::new();
    let server = SshServer::start();
    let key = new_key_pair();
    server.authorize(&key.public);
    let ssh = ssh_command(&work, &server);
    let url = server.url(&work.repo());
    OverSsh {
        work,
        server,
        key,
        ssh,
        url,
    }
}

impl OverSsh {
    /// `tfdisco get` on `main_tf` with the `GIT_SSH_COMMAND`, and `extra`.
    fn get(&self, main_tf: &str, extra: &[&str]) -> Run {
        self.work.configure(main_tf);
        self.work.get(&[("GIT_SSH_COMMAND", &self.ssh)], extra)
    }

    /// [`OverSsh::get`], which must succeed.
    fn get_ok(&self, main_tf: &str) -> Run {
        let run = self.get(main_tf, &[]);
        assert_eq!(run.code, Some(0), "{}\n{}", run.stderr, self.server.log());
        run
    }
}

#[test]
fn git_over_ssh_with_an_sshkey_logs_in_with_that_key_and_shows_it_nowhere() {
    let remote = over_ssh();
    let OverSsh {
        work,
        server,
        key,
        url,
        ..
    } = &remote;
    let source = format!("git::{url}?ref=v1.0.0&sshkey={}", key.sshkey_param());
    let main_tf = format!("module \"overssh\" {{ source = \"{source}\" }}\n");
    let run = remote.get_ok(&main_tf);
    assert_eq!(
        work.manifest(),
        format!(
            concat!(
                r#"{{"Modules":[{{"Key":"","Source":"","Dir":"."}},"#,
                r#"{{"Key":"overssh","Source":"{source}","Dir":".terraform/modules/overssh"}},"#,
                r#"{{"Key":"overssh.sub","Source":"./modules/sub","Dir":".terraform/modules/overssh/modules/sub"}}]}}"#
            ),
            source = source.replace('&', r"\u0026")
        )
    );
    assert_eq!(
        work.head(".terraform/modules/overssh"),
        format!("git .terraform/modules/overssh HEAD {TAG_COMMIT} detached")
    );
    assert!(
        work.read(".terraform/modules/overssh/main.tf")
            .contains("\"v1\"")
    );
    assert!(
        run.stdout
            .contains(&format!("{url}?ref=v1.0.0&sshkey=redacted")),
        "{}",
        run.stdout
    );
    assert!(!shows_key(&run.stdout, key) && !shows_key(&run.stderr, key));
    assert!(work.leftovers().is_empty(), "{:?}", work.leftovers());
    let accepted = format!("Accepted publickey for {} from 127.0.0.1", server.user());
    assert!(server.log().contains(&accepted), "{}", server.log());

    // Fetched again, as JSON: the report's source is shown without it too.
    let again = remote.get(&main_tf, &["--upgrade", "--json"]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(
        again.json()["modules"][0]["source"],
        format!("{url}?ref=v1.0.0&sshkey=redacted").replace("ssh://", "git::ssh://")
    );
    assert!(!shows_key(&again.stdout, key) && !shows_key(&again.stderr, key));
    assert!(work.leftovers().is_empty(), "{:?}", work.leftovers());
}

#[test]
fn git_over_ssh_without_the_key_or_with_a_bad_one_fails_and_shows_no_key() {
    let remote = over_ssh();
    let (work, url) = (&remote.work, &remote.url);
    let stranger = new_key_pair();
    let run = remote.get(
        &format!(
            r#"module "nokey" {{ source = "git::{url}?ref=v1.0.0" }}
module "bad" {{ source = "git::{url}?ref=v1.0.0&sshkey=not-base64" }}
module "stranger" {{ source = "git::{url}?ref=v1.0.0&sshkey={}" }}
"#,
            stranger.sshkey_param()
        ),
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let stderr = run.stderr.replace('\n', " ");
    let main = work.dir.join("main.tf").display().to_string();
    // The same address and ssh command as the test above, without its
    // `sshkey`: refused, so that key is what logged in there.
    assert!(
        stderr.contains(&format!(
            "Could not download module \"nokey\" ({main}:1) source code from \
             \"git::{url}?ref=v1.0.0\": error downloading '{url}?ref=v1.0.0': \
             git exited with 128: "
        )),
        "{stderr}"
    );
    assert!(stderr.contains("Permission denied (publickey)"), "{stderr}");
    // go-getter's words for a value that is not base64 (Go's decoder),
    // the value itself left out.
    assert!(
        stderr.contains(&format!(
            "Could not download module \"bad\" ({main}:2) source code from \
             \"git::{url}?ref=v1.0.0&sshkey=redacted\": error downloading \
             '{url}?ref=v1.0.0&sshkey=redacted': illegal base64 data at input byte 3"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("not-base64"), "{stderr}");
    // A key the server does not know: refused, and its file is gone.
    assert!(
        stderr.contains(&format!(
            "Could not download module \"stranger\" ({main}:3) source code from \
             \"git::{url}?ref=v1.0.0&sshkey=redacted\": error downloading \
             '{url}?ref=v1.0.0&sshkey=redacted': git exited with 128: "
        )),
        "{stderr}"
    );
    assert!(!shows_key(&run.stdout, &stranger) && !shows_key(&run.stderr, &stranger));
    assert!(work.leftovers().is_empty(), "{:?}", work.leftovers());
    assert!(!work.dir.join(".terraform/modules/nokey").exists());
}

#[test]
fn a_shallow_clone_without_a_ref_asks_the_default_branch_with_the_key() {
    // go-getter asks `git ls-remote` without the key, is refused, and
    // tries `master`, which this repository does not have; tfdisco asks
    // with the key and clones `main` (D48).
    let remote = over_ssh();
    remote.get_ok(&format!(
        "module \"default\" {{ source = \"git::{}?depth=1&sshkey={}\" }}\n",
        remote.url,
        remote.key.sshkey_param()
    ));
    let work = &remote.work;
    assert_eq!(
        work.head(".terraform/modules/default"),
        format!("git .terraform/modules/default HEAD {MAIN_COMMIT} refs/heads/main")
    );
    assert_eq!(
        work.read(".terraform/modules/default/.git/shallow").trim(),
        MAIN_COMMIT
    );
    assert!(work.leftovers().is_empty(), "{:?}", work.leftovers());
}
