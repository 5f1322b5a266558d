//! The git repository the git cases clone, made with the real `git`:
//! fixed names, e-mails and dates, and no user or system configuration,
//! so every commit id is the same at every run ([`COMMITS`]).
//!
//! `repo.git` (a repository with a work tree, on branch `main`):
//!
//! 1. `main.tf`, `modules/sub/main.tf`, `scripts/hello.sh` (`0755`),
//!    `.gitignore`, `.tflint.hcl`; tagged `v1.0.0` (a lightweight tag);
//! 2. on branch `feature` from it: `feature.tf`;
//! 3. on `main` again: `main.tf` changed (`"v2"`).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's folder name inside the git folder (`{GIT}`).
pub const REPO: &str = "repo.git";

/// The commit tagged `v1.0.0` (the first on `main`).
pub const TAG_COMMIT: &str = "9b07f61997cca58d8e3a91f30d72169971eee0c3";
/// The commit of branch `feature`.
pub const FEATURE_COMMIT: &str = "50142dcc46c63a0c9908459aa689abe8258f40d4";
/// The newest commit on `main`.
pub const MAIN_COMMIT: &str = "12eee19ae1ec29f020cba8a19231034b76f4d2b1";

/// The commits by name: `v1.0.0`, `feature`, `main`.
pub const COMMITS: [(&str, &str); 3] = [
    ("v1.0.0", TAG_COMMIT),
    ("feature", FEATURE_COMMIT),
    ("main", MAIN_COMMIT),
];

/// Whether `git` runs.
pub fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `git ARGS` in `dir` with the fixed identities and dates and no
/// configuration but the repository's; panics when it fails. Returns
/// its standard output, trimmed.
pub(crate) fn git(dir: &Path, date: &str, args: &[&str]) -> String {
    let mut command = Command::new("git");
    command
        .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("GIT_AUTHOR_NAME", "Tfdisco Tests")
        .env("GIT_AUTHOR_EMAIL", "tests@tfdisco.test")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_NAME", "Tfdisco Tests")
        .env("GIT_COMMITTER_EMAIL", "tests@tfdisco.test")
        .env("GIT_COMMITTER_DATE", date)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("running git {args:?}: {e}"));
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

pub(crate) fn write(path: &Path, mode: u32, text: &str) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Makes the repository in `folder/repo.git` (`folder` is made when
/// missing; an old repository there is replaced). Returns its path.
pub fn make_repo(folder: &Path) -> PathBuf {
    let repo = folder.join(REPO);
    let _ = fs::remove_dir_all(&repo);
    fs::create_dir_all(&repo).unwrap_or_else(|e| panic!("{}: {e}", repo.display()));
    let first = "2026-01-02T03:04:05Z";
    git(&repo, first, &["init", "-q", "-b", "main"]);
    write(
        &repo.join("main.tf"),
        0o644,
        "output \"version\" {\n  value = \"v1\"\n}\n\nmodule \"sub\" {\n  source = \"./modules/sub\"\n}\n",
    );
    write(
        &repo.join("modules/sub/main.tf"),
        0o644,
        "output \"name\" {\n  value = \"sub\"\n}\n",
    );
    write(
        &repo.join("scripts/hello.sh"),
        0o755,
        "#!/bin/sh\necho hello\n",
    );
    write(&repo.join(".gitignore"), 0o644, "*.tfstate\n");
    write(
        &repo.join(".tflint.hcl"),
        0o644,
        "config {\n  format = \"compact\"\n}\n",
    );
    git(&repo, first, &["add", "-A"]);
    git(&repo, first, &["commit", "-q", "-m", "v1"]);
    git(&repo, first, &["tag", "v1.0.0"]);
    let second = "2026-01-03T03:04:05Z";
    git(&repo, second, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("feature.tf"),
        0o644,
        "output \"feature\" {\n  value = true\n}\n",
    );
    git(&repo, second, &["add", "-A"]);
    git(&repo, second, &["commit", "-q", "-m", "feature"]);
    git(&repo, second, &["checkout", "-q", "main"]);
    let third = "2026-01-04T03:04:05Z";
    write(
        &repo.join("main.tf"),
        0o644,
        "output \"version\" {\n  value = \"v2\"\n}\n\nmodule \"sub\" {\n  source = \"./modules/sub\"\n}\n",
    );
    git(&repo, third, &["commit", "-q", "-a", "-m", "v2"]);
    repo
}

/// The commit `name` (a tag or branch) names in `repo`.
pub fn commit_of(repo: &Path, name: &str) -> String {
    git(
        repo,
        "2026-01-02T03:04:05Z",
        &["rev-parse", &format!("{name}^{{commit}}")],
    )
}

/// The one manifest line of a clone's `.git` folder at `rel`:
/// `git PATH HEAD COMMIT REF`, `REF` the branch `HEAD` names
/// (`refs/heads/main`) or `detached`. Read from the files (`HEAD`, the
/// loose refs, `packed-refs`), without running git.
pub fn git_line(git_dir: &Path, rel: &str) -> String {
    let read = |name: &str| fs::read_to_string(git_dir.join(name)).ok();
    let head = read("HEAD").unwrap_or_default();
    let head = head.trim();
    let (commit, name) = match head.strip_prefix("ref: ") {
        Some(name) => {
            let commit = read(name)
                .map(|c| c.trim().to_owned())
                .or_else(|| {
                    read("packed-refs")?.lines().find_map(|line| {
                        let (commit, r) = line.split_once(' ')?;
                        (r == name).then(|| commit.to_owned())
                    })
                })
                .unwrap_or_else(|| "unborn".to_owned());
            (commit, name.to_owned())
        }
        None => (head.to_owned(), "detached".to_owned()),
    };
    format!("git {rel} HEAD {commit} {name}")
}

/// `file://FOLDER/repo.git`: the repository in `folder` as a URL.
pub fn file_url(folder: &Path) -> String {
    format!("file://{}", folder.join(REPO).to_string_lossy())
}
