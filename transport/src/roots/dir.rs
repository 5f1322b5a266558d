//! Reading a root certificate directory (`SSL_CERT_DIR`): its hashed
//! entries (`<hash>.<n>`), each read once, then every other file no hash
//! link points at.

use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};

use tracing::warn;

use super::files::Files;

impl Files {
    /// Reads every file of `dir`, as Go and rustls-native-certs do, with as
    /// few system calls as it takes (this runs at every start): a hash link
    /// is read once through its name, and the entry it points at in the same
    /// directory is not read again.
    pub(super) fn load_dir(&mut self, dir: &Path) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) => {
                warn!(target: "tfdisco", dir = %dir.display(), %error, "could not read a root certificate directory");
                return;
            }
        };
        let entries: Vec<(String, bool)> = entries
            .filter_map(Result::ok)
            .map(|entry| {
                let link = entry.file_type().is_ok_and(|t| t.is_symlink());
                let name = entry.file_name();
                let name = name
                    .into_string()
                    .unwrap_or_else(|name| name.to_string_lossy().into_owned());
                (name, link)
            })
            .collect();
        // Names are looked up in a sorted list (a few hundred of them).
        let mut sorted: Vec<&str> = entries.iter().map(|(name, _)| name.as_str()).collect();
        sorted.sort_unstable();
        let index = |name: &str| sorted.binary_search(&name).ok();
        let hashed: Vec<bool> = entries.iter().map(|(name, _)| is_hash_name(name)).collect();
        let mut covered = vec![false; sorted.len()];
        let opener = Opener::new(dir);
        for ((name, link), hashed) in entries.iter().zip(&hashed) {
            if !hashed {
                continue;
            }
            if *link
                && let Some(target) = opener
                    .read_link(name)
                    .and_then(|target| entry_in(dir, &target).and_then(|name| index(&name)))
            {
                covered[target] = true;
            }
            self.read_from(opener.open(name), || dir.join(name), None);
        }
        for ((name, _), hashed) in entries.iter().zip(&hashed) {
            if !hashed && !index(name).is_some_and(|i| covered[i]) {
                self.load(&dir.join(name));
            }
        }
    }
}

/// Opens the entries of one directory: on Unix relative to a handle of it
/// (`openat`, `readlinkat`), so that the kernel looks up one name rather
/// than the whole path each time (a few hundred times at every start),
/// else by path.
struct Opener<'a> {
    dir: &'a Path,
    #[cfg(unix)]
    handle: Option<rustix::fd::OwnedFd>,
}

impl<'a> Opener<'a> {
    fn new(dir: &'a Path) -> Opener<'a> {
        Opener {
            dir,
            #[cfg(unix)]
            handle: {
                use rustix::fs::{Mode, OFlags};
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                rustix::fs::open(dir, flags, Mode::empty()).ok()
            },
        }
    }

    /// The target of the link `name`.
    fn read_link(&self, name: &str) -> Option<PathBuf> {
        #[cfg(unix)]
        if let Some(handle) = &self.handle {
            use std::os::unix::ffi::OsStringExt;
            let target = rustix::fs::readlinkat(handle, name, Vec::new()).ok()?;
            return Some(std::ffi::OsString::from_vec(target.into_bytes()).into());
        }
        std::fs::read_link(self.dir.join(name)).ok()
    }

    /// The entry `name`, opened for reading (following links).
    fn open(&self, name: &str) -> std::io::Result<File> {
        #[cfg(unix)]
        if let Some(handle) = &self.handle {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::CLOEXEC;
            return Ok(rustix::fs::openat(handle, name, flags, Mode::empty())?.into());
        }
        File::open(self.dir.join(name))
    }
}

/// The name of the entry of `dir` a link target names (`X.pem`,
/// `./X.pem` or `<dir>/X.pem`), if it names one.
pub(super) fn entry_in<'a>(dir: &Path, target: &'a Path) -> Option<Cow<'a, str>> {
    // Most links name an entry alongside: no path to take apart.
    if let Some(name) = target.to_str()
        && !name.contains('/')
        && !matches!(name, "" | "." | "..")
    {
        return Some(Cow::Borrowed(name));
    }
    let parent = target.parent()?;
    let here = parent.as_os_str().is_empty() || parent == Path::new(".") || parent == dir;
    here.then(|| target.file_name())
        .flatten()
        .map(|name| name.to_string_lossy())
}

/// True for OpenSSL's hashed entry names: eight lower-case hex digits, a
/// dot and a number (`5ad8a5d6.0`; CRLs are `.r0` and hold no roots).
pub(super) fn is_hash_name(name: &str) -> bool {
    match name.split_once('.') {
        Some((hash, n)) => {
            hash.len() == 8
                && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}
