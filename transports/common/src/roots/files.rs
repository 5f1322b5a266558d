//! Reading root certificates from files: a bundle (`SSL_CERT_FILE`) and the
//! directories (`SSL_CERT_DIR`), in as few system calls and as little memory
//! as it takes, since this runs at every start. The first file is read
//! straight into the text that is kept; the others one at a time into a
//! buffer used again for each, keeping only the blocks not read before (a
//! directory usually holds the bundle's certificates once more).

use std::collections::HashMap;
#[cfg(unix)]
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Read;
use std::ops::Range;
use std::path::Path;

use tracing::warn;

use super::{Block, pem_blocks, subject_hash};

/// Certificates read from files, each once.
#[derive(Default)]
pub(super) struct Files {
    /// The first file as read, then every other block not read before.
    pub(super) text: Vec<u8>,
    pub(super) blocks: Vec<Block>,
    /// The blocks by [`key`].
    index: HashMap<u64, Vec<usize>>,
    /// The file being read (each file after the first).
    scratch: Vec<u8>,
    /// Files already read (device and inode), such as a bundle that also
    /// sits in a directory.
    #[cfg(unix)]
    seen: HashSet<(u64, u64)>,
}

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
        let hashes: Vec<Option<u32>> = entries
            .iter()
            .map(|(name, _)| found_by_openssl(name, |n| index(n).is_some()))
            .collect();
        let mut covered = vec![false; sorted.len()];
        for ((name, link), hash) in entries.iter().zip(&hashes) {
            let Some(hash) = *hash else {
                continue;
            };
            let path = dir.join(name);
            if *link {
                if let Some(target) = std::fs::read_link(&path)
                    .ok()
                    .and_then(|target| entry_in(dir, &target))
                    .and_then(|target| index(&target))
                {
                    covered[target] = true;
                }
            }
            self.read(&path, Some(hash), None);
        }
        for ((name, _), hash) in entries.iter().zip(&hashes) {
            if hash.is_none() && !index(name).is_some_and(|i| covered[i]) {
                self.load(&dir.join(name));
            }
        }
    }

    /// Reads `path` unless it is the same file as one read before (a bundle
    /// that also sits in a directory, say).
    pub(super) fn load(&mut self, path: &Path) {
        let metadata = match std::fs::metadata(path) {
            Ok(metadata) if metadata.is_file() => metadata,
            // Dangling links, directories and the like hold no roots.
            Ok(_) => return,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
            Err(error) => {
                warn!(target: "tfdisco", path = %path.display(), %error, "could not read root certificates");
                return;
            }
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if !self.seen.insert((metadata.dev(), metadata.ino())) {
                return;
            }
        }
        self.read(path, None, Some(metadata.len()));
    }

    /// Reads the certificates of `path` (of `size` bytes, if known). With
    /// `hash` (the entry is named `<hash>.<n>` and OpenSSL's lookup reaches
    /// it), a certificate whose subject hashes to it is one OpenSSL finds in
    /// the directory.
    fn read(&mut self, path: &Path, hash: Option<u32>, size: Option<u64>) {
        self.scratch.clear();
        if let Err(error) = append_file(&mut self.scratch, path, size) {
            // Dangling links and directories hold no roots.
            if !matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::IsADirectory
            ) {
                warn!(target: "tfdisco", path = %path.display(), %error, "could not read root certificates");
            }
            return;
        }
        // The first file is kept as read; of the others, only the blocks
        // not read before are kept.
        let kept = self.text.is_empty();
        if kept {
            std::mem::swap(&mut self.text, &mut self.scratch);
        }
        let blocks: Vec<Range<usize>> = pem_blocks(self.file(kept)).collect();
        for block in blocks {
            let text = &self.file(kept)[block.clone()];
            let found = hash.is_some() && subject_hash::subject_hash_of_pem(text) == hash;
            self.add(block, kept, found);
        }
    }

    /// The file just read.
    fn file(&self, kept: bool) -> &[u8] {
        if kept { &self.text } else { &self.scratch }
    }

    /// Adds the block at `range` of the file just read, unless the same text
    /// was read before: then that one is marked `hashed` if this one is.
    fn add(&mut self, range: Range<usize>, kept: bool, hashed: bool) {
        let text = &self.file(kept)[range.clone()];
        let key = key(text);
        let known = self.index.get(&key).and_then(|candidates| {
            candidates
                .iter()
                .copied()
                .find(|&i| self.text[self.blocks[i].text.clone()] == *text)
        });
        if let Some(i) = known {
            self.blocks[i].hashed |= hashed;
            return;
        }
        let range = if kept {
            range
        } else {
            let start = self.text.len();
            self.text.extend_from_slice(&self.scratch[range]);
            start..self.text.len()
        };
        self.blocks.push(Block {
            text: range,
            hashed,
        });
        self.index
            .entry(key)
            .or_default()
            .push(self.blocks.len() - 1);
    }
}

/// A block's key in [`Files::index`]: its length and its end (the
/// signature, unique to each certificate), which keeps hashing a few hundred
/// blocks cheap; blocks with the same key are compared whole.
fn key(text: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.len().hash(&mut hasher);
    text[text.len().saturating_sub(64)..].hash(&mut hasher);
    hasher.finish()
}

/// Appends the bytes of the file at `path` (of `size` bytes, if known) to
/// `buffer`, in as few system calls as it takes: no size lookup first, as
/// `std::fs::read` makes, and room made beforehand, so that `buffer` does not
/// grow in the middle of a file.
fn append_file(buffer: &mut Vec<u8>, path: &Path, size: Option<u64>) -> std::io::Result<()> {
    let file = std::fs::File::open(path)?;
    // A root certificate file is about 2 KiB; a bundle's size is known.
    let room = size.map_or(16 * 1024, |size| usize::try_from(size).unwrap_or(0) + 1);
    buffer.reserve(room);
    // Through `Take`, `read_to_end` is the generic loop, not `File`'s, which
    // asks for the size and the position before reading.
    file.take(u64::MAX).read_to_end(buffer)?;
    Ok(())
}

/// The name of the entry of `dir` a link target names (`X.pem`,
/// `./X.pem` or `<dir>/X.pem`), if it names one.
pub(super) fn entry_in(dir: &Path, target: &Path) -> Option<String> {
    let parent = target.parent()?;
    let here = parent.as_os_str().is_empty() || parent == Path::new(".") || parent == dir;
    here.then(|| target.file_name())
        .flatten()
        .map(|name| name.to_string_lossy().into_owned())
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

/// The hash of an entry OpenSSL's directory lookup reaches: named
/// `<hash>.<n>`, with `<hash>.0` … `<hash>.<n-1>` present too (OpenSSL
/// stops at the first missing number); `exists` says whether a name is in
/// the directory.
pub(super) fn found_by_openssl(name: &str, exists: impl Fn(&str) -> bool) -> Option<u32> {
    if !is_hash_name(name) {
        return None;
    }
    let (hash, n) = name.split_once('.')?;
    let n: u32 = n.parse().ok()?;
    (0..n)
        .all(|i| exists(&format!("{hash}.{i}")))
        .then(|| u32::from_str_radix(hash, 16).ok())
        .flatten()
}
