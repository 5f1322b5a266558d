//! Reading root certificates from files, in as few system calls and as
//! little memory as it takes, since this runs at every start. The first
//! file (usually `SSL_CERT_FILE`) is read straight into the text that is
//! kept; the others one at a time into a buffer used again for each, keeping
//! only the blocks not read before (a directory usually holds the bundle's
//! certificates once more). The directories are read in `dir.rs`.

use std::collections::HashMap;
#[cfg(unix)]
use std::collections::HashSet;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use tracing::warn;

use super::pem_blocks;

/// Certificates read from files, each once.
#[derive(Default)]
pub(super) struct Files {
    /// The first file as read, then every other block not read before.
    pub(super) text: Vec<u8>,
    /// Where each block lies in `text`.
    pub(super) blocks: Vec<Range<usize>>,
    /// The first block of each [`key`].
    index: HashMap<u64, usize>,
    /// The file being read (each file after the first).
    scratch: Vec<u8>,
    /// The blocks of the file being read.
    ranges: Vec<Range<usize>>,
    /// Files already read (device and inode), such as a bundle that also
    /// sits in a directory.
    #[cfg(unix)]
    seen: HashSet<(u64, u64)>,
}

impl Files {
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
        self.read_from(
            std::fs::File::open(path),
            || path.to_owned(),
            Some(metadata.len()),
        );
    }

    /// [`Files::read`] of a file already opened (or not), named by `path`.
    pub(super) fn read_from(
        &mut self,
        file: std::io::Result<std::fs::File>,
        path: impl FnOnce() -> PathBuf,
        size: Option<u64>,
    ) {
        self.scratch.clear();
        if let Err(error) = file.and_then(|file| append_file(&mut self.scratch, file, size)) {
            // Dangling links and directories hold no roots.
            if !matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::IsADirectory
            ) {
                warn!(target: "tfdisco", path = %path().display(), %error, "could not read root certificates");
            }
            return;
        }
        // The first file is kept as read; of the others, only the blocks
        // not read before are kept.
        let kept = self.text.is_empty();
        if kept {
            std::mem::swap(&mut self.text, &mut self.scratch);
        }
        let mut blocks = std::mem::take(&mut self.ranges);
        blocks.extend(pem_blocks(self.file(kept)));
        for block in blocks.drain(..) {
            self.add(block, kept);
        }
        self.ranges = blocks;
    }

    /// The file just read.
    fn file(&self, kept: bool) -> &[u8] {
        if kept { &self.text } else { &self.scratch }
    }

    /// Adds the block at `range` of the file just read, unless the same text
    /// was read before.
    fn add(&mut self, range: Range<usize>, kept: bool) {
        if self.find(&self.file(kept)[range.clone()]).is_some() {
            return;
        }
        let range = if kept {
            range
        } else {
            let start = self.text.len();
            self.text.extend_from_slice(&self.scratch[range]);
            start..self.text.len()
        };
        self.push(range);
    }

    /// The block read before whose text is `text`, if any.
    fn find(&self, text: &[u8]) -> Option<usize> {
        let same = |i: &usize| self.text[self.blocks[*i].clone()] == *text;
        match self.index.get(&key(text)) {
            Some(i) if same(i) => Some(*i),
            // Two texts with one key: any block may be the one.
            Some(_) => (0..self.blocks.len()).find(same),
            None => None,
        }
    }

    fn push(&mut self, text: Range<usize>) {
        let key = key(&self.text[text.clone()]);
        self.blocks.push(text);
        self.index.entry(key).or_insert(self.blocks.len() - 1);
    }
}

/// A block's key in [`Files::index`]: its length and its end (the
/// signature, unique to each certificate) folded into a number, which keeps
/// keying a few hundred blocks cheap; texts with the same key are compared
/// whole.
fn key(text: &[u8]) -> u64 {
    let end = &text[text.len().saturating_sub(64)..];
    end.chunks(8).fold(text.len() as u64, |key, chunk| {
        let mut word = [0; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        (key ^ u64::from_le_bytes(word))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29)
    })
}

/// Appends the bytes of `file` (of `size` bytes, if known) to
/// `buffer`, in as few system calls as it takes: no size lookup first, as
/// `std::fs::read` makes, and room made beforehand, so that `buffer` does not
/// grow in the middle of a file.
fn append_file(
    buffer: &mut Vec<u8>,
    file: std::fs::File,
    size: Option<u64>,
) -> std::io::Result<()> {
    // A root certificate file is about 2 KiB; a bundle's size is known.
    let room = size.map_or(16 * 1024, |size| usize::try_from(size).unwrap_or(0) + 1);
    buffer.reserve(room);
    // Through `Take`, `read_to_end` is the generic loop, not `File`'s, which
    // asks for the size and the position before reading.
    file.take(u64::MAX).read_to_end(buffer)?;
    Ok(())
}
