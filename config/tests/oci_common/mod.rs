//! Test support for OCI credentials: a real `docker-credential-NAME`
//! helper program, whose answers each test writes beside it.

#![allow(dead_code, unreachable_pub)]

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tempfile::TempDir;

/// The helper script, written once per test process before any test runs
/// a program (writing an executable while other threads fork can make its
/// execution fail with "text file busy"); each test links to it.
///
/// Called as `docker-credential-NAME get` through a link in a test's bin
/// folder, it reads the server URL on stdin (keeping any newline), logs
/// `NAME [URL]` to `log` there, then looks for a line `URL<TAB>EXIT<TAB>OUT`
/// (or `*` for any URL) in `NAME.answers` there: it prints OUT and exits
/// with EXIT. OUT `@fake` prints OpenTofu's test answer for the URL
/// (`from-cred-helper`, `for URL`); `@hang` waits for a long time; `@big`
/// prints 2 MB. Without
/// a line it answers as Docker's helpers do when they have nothing.
pub fn docker_helper_script() -> &'static Path {
    static SCRIPT: OnceLock<PathBuf> = OnceLock::new();
    SCRIPT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("tfdisco-oci-helper-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the helper's directory");
        let path = dir.join("docker-credential-tfdiscotest");
        fs::write(&path, SCRIPT_TEXT).expect("write the helper");
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    })
}

const SCRIPT_TEXT: &str = r#"#!/bin/sh
dir=${0%/*}
name=${0##*/docker-credential-}
if [ "$#" -ne 1 ] || [ "$1" != get ]; then
  echo "unexpected arguments: $*" >&2
  exit 2
fi
input=$(cat; echo x)
input=${input%x}
printf '%s [%s]\n' "$name" "$input" >> "$dir/log"
if [ -f "$dir/$name.answers" ]; then
  tab=$(printf '\t')
  while IFS="$tab" read -r url code out; do
    if [ "$url" = "$input" ] || [ "$url" = '*' ]; then
      case "$out" in
      @fake) printf '{"ServerURL":"%s","Username":"from-cred-helper","Secret":"for %s"}' "$input" "$input" ;;
      @hang) exec sleep 30 ;;
      @big) head -c 2000000 /dev/zero | tr '\000' x ;;
      *) printf '%s' "$out" ;;
      esac
      exit "$code"
    fi
  done < "$dir/$name.answers"
fi
printf 'credentials not found in native keychain\n'
exit 1
"#;

/// A folder of helpers for one test: put it on the `PATH` of the
/// environment snapshot given to the policy.
pub struct Helpers {
    dir: TempDir,
}

impl Helpers {
    pub fn new() -> Helpers {
        Helpers {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The `PATH` value: this folder alone.
    pub fn search_path(&self) -> OsString {
        self.dir.path().as_os_str().to_owned()
    }

    /// Installs `docker-credential-NAME` (a link to the script) with these
    /// answers: `(url, exit, stdout)`.
    pub fn install(&self, name: &str, answers: &[(&str, i32, &str)]) {
        let link = self.dir.path().join(format!("docker-credential-{name}"));
        if !link.exists() {
            std::os::unix::fs::symlink(docker_helper_script(), &link).expect("symlink");
        }
        let mut text = String::new();
        for (url, code, out) in answers {
            assert!(!out.contains(['\n', '\t']), "one line per answer");
            text.push_str(&format!("{url}\t{code}\t{out}\n"));
        }
        fs::write(self.dir.path().join(format!("{name}.answers")), text).expect("answers");
    }

    /// What the helpers were asked: `NAME [STDIN]`, one per run.
    pub fn log(&self) -> Vec<String> {
        fs::read_to_string(self.dir.path().join("log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}
