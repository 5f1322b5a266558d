//! The fixture files of the golden cases ([`lock_goldens`](crate::lock_goldens),
//! [`mirror_goldens`](crate::mirror_goldens)): the `{HOST}` placeholder for
//! the registry's host, and reading and copying them with it replaced.

use std::fs;
use std::path::Path;

/// The placeholder for the registry's host in the fixture files.
pub const HOST: &str = "{HOST}";

/// The lock file's name.
pub const LOCK_FILE: &str = ".terraform.lock.hcl";

/// The providers' host in the network mirror cases (lock and install
/// goldens).
pub const MIRROR_HOST: &str = "registry.example.test";

/// What a case (of the lock or install goldens) does to the registry before
/// the run.
#[derive(Debug, Clone, Copy)]
pub enum Spoil {
    /// [`SignedRegistry::corrupt`](crate::signed_registry::SignedRegistry::corrupt):
    /// provider, version, platform.
    Corrupt(&'static str, &'static str, &'static str),
    /// [`SignedRegistry::bad_signature`](crate::signed_registry::SignedRegistry::bad_signature):
    /// provider, version.
    BadSignature(&'static str, &'static str),
}

/// A text file with `{HOST}` replaced by `host`; `None` when it does not
/// exist.
pub(crate) fn read_hosted(path: &Path, host: &str) -> Option<String> {
    match fs::read_to_string(path) {
        Ok(text) => Some(text.replace(HOST, host)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Copies the text files under `from` into `to`, `{HOST}` replaced by
/// `host` in them.
pub(crate) fn copy_text_tree(from: &Path, to: &Path, host: &str) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let entries = fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_text_tree(&entry.path(), &target, host);
        } else {
            let text = fs::read_to_string(entry.path())
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
            fs::write(&target, text.replace(HOST, host))
                .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        }
    }
}
