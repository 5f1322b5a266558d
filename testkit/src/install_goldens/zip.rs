//! Just enough zip for the install goldens' inputs: unpacking a package as
//! Terraform 1.11.4 does (go-getter's `ZipDecompressor` with Go's
//! `FileHeader.Mode`), to make an installation or a cache entry that was
//! there before the run, and writing a small stored archive with the
//! entries a case names, for a filesystem mirror.
//!
//! The archives read are the testkit's own (the signed registry's and
//! [`write_stored`]'s); anything else is a bug in a case, so a malformed
//! archive panics.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

/// Go's `creatorUnix` and `creatorMacOSX`: the mode is the upper 16 bits of
/// the external attributes.
const UNIX_CREATORS: [u16; 2] = [3, 19];
/// Go's `creatorFAT`, `creatorNTFS`, `creatorVFAT`: MS-DOS attributes.
const DOS_CREATORS: [u16; 3] = [0, 11, 14];

/// One entry, as Go reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The name as stored.
    pub(crate) name: String,
    /// A folder entry (by its mode or a name ending in `/`).
    pub(crate) dir: bool,
    /// The permission bits `os.Chmod` gets from Go's mode: `0o777` and the
    /// setuid, setgid and sticky bits.
    pub(crate) mode: u32,
    /// The content, inflated.
    pub(crate) data: Vec<u8>,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Go's `FileHeader.Mode()`, reduced to a folder flag and what `os.Chmod`
/// applies.
fn go_mode(made_by: u16, external: u32, name: &str) -> (bool, u32) {
    let creator = made_by >> 8;
    let (mut dir, mode) = if UNIX_CREATORS.contains(&creator) {
        let unix = external >> 16;
        (unix & 0o170000 == 0o040000, unix & 0o7777)
    } else if DOS_CREATORS.contains(&creator) {
        if external & 0x10 != 0 {
            (true, 0o777)
        } else if external & 0x01 != 0 {
            (false, 0o444)
        } else {
            (false, 0o666)
        }
    } else {
        (false, 0)
    };
    dir |= name.ends_with('/');
    (dir, mode)
}

/// The entries of `archive`, in the order of its central directory.
pub(crate) fn entries(archive: &[u8]) -> Vec<Entry> {
    let end = archive
        .windows(4)
        .rposition(|w| w == b"PK\x05\x06")
        .expect("an end of central directory record");
    let count = usize::from(u16_at(archive, end + 10));
    let mut at = u32_at(archive, end + 16) as usize;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        assert_eq!(
            &archive[at..at + 4],
            b"PK\x01\x02",
            "a central directory entry"
        );
        let made_by = u16_at(archive, at + 4);
        let method = u16_at(archive, at + 10);
        let compressed = u32_at(archive, at + 20) as usize;
        let name_len = usize::from(u16_at(archive, at + 28));
        let extra_len = usize::from(u16_at(archive, at + 30));
        let comment_len = usize::from(u16_at(archive, at + 32));
        let external = u32_at(archive, at + 38);
        let local = u32_at(archive, at + 42) as usize;
        let name = String::from_utf8_lossy(&archive[at + 46..at + 46 + name_len]).into_owned();
        at += 46 + name_len + extra_len + comment_len;

        assert_eq!(&archive[local..local + 4], b"PK\x03\x04", "a local header");
        let start = local
            + 30
            + usize::from(u16_at(archive, local + 26))
            + usize::from(u16_at(archive, local + 28));
        let raw = &archive[start..start + compressed];
        let data = match method {
            0 => raw.to_vec(),
            8 => {
                let mut data = Vec::new();
                flate2::read::DeflateDecoder::new(raw)
                    .read_to_end(&mut data)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                data
            }
            other => panic!("{name}: compression method {other}"),
        };
        let (dir, mode) = go_mode(made_by, external, &name);
        out.push(Entry {
            name,
            dir,
            mode,
            data,
        });
    }
    out
}

/// `MkdirAll(path, 0755)`, as go-getter and Terraform make folders (the
/// process umask applies).
pub(crate) fn mkdir_all(path: &Path) {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Unpacks `archive` into `target` as Terraform 1.11.4 does: folders
/// `0755` (less the umask), each file written in turn with exactly its
/// entry's mode (a symlink entry becomes a `0777` file holding its target,
/// a later duplicate replaces an earlier one, a leading `/` is dropped).
/// A name with a `..` element panics: no case's input has one.
pub(crate) fn unpack(archive: &[u8], target: &Path) {
    mkdir_all(target);
    for entry in entries(archive) {
        assert!(
            !entry.name.split(['/', '\\']).any(|part| part == ".."),
            "{}: a `..` element",
            entry.name
        );
        let path = target.join(entry.name.trim_start_matches('/'));
        if entry.dir {
            mkdir_all(&path);
            continue;
        }
        if let Some(parent) = path.parent() {
            mkdir_all(parent);
        }
        fs::write(&path, &entry.data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        fs::set_permissions(&path, fs::Permissions::from_mode(entry.mode))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// A stored (uncompressed) archive of `entries` (name, Unix mode with its
/// file type bits, content), made by "Unix", dated 2026-01-02 03:04:04.
pub(crate) fn write_stored(entries: &[(&str, u32, &[u8])]) -> Vec<u8> {
    const TIME: u16 = (3 << 11) | (4 << 5) | 2;
    const DATE: u16 = ((2026 - 1980) << 9) | (1 << 5) | 2;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, mode, data) in entries {
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let size = u32::try_from(data.len()).expect("a small entry");
        let name_len = u16::try_from(name.len()).expect("a short name");
        let offset = u32::try_from(out.len()).expect("a small archive");
        // The fields both headers share, from "version needed" on.
        let mut common = Vec::new();
        for v in [20u16, 0, 0, TIME, DATE] {
            common.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc.sum(), size, size] {
            common.extend_from_slice(&v.to_le_bytes());
        }
        common.extend_from_slice(&name_len.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra field length

        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);

        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&((3u16 << 8) | 20).to_le_bytes()); // made by Unix
        central.extend_from_slice(&common);
        for v in [0u16, 0, 0] {
            // comment length, disk, internal attributes
            central.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let count = u16::try_from(entries.len()).expect("few entries");
    let central_size = u32::try_from(central.len()).expect("a small directory");
    let central_offset = u32::try_from(out.len()).expect("a small archive");
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&central_size.to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signed_registry;

    #[test]
    fn go_modes() {
        // Unix: the mode's bits, setuid kept; a folder by its type.
        assert_eq!(go_mode(3 << 8, 0o104755 << 16, "a"), (false, 0o4755));
        assert_eq!(go_mode(19 << 8, 0o040700 << 16, "d"), (true, 0o700));
        assert_eq!(go_mode(3 << 8, 0o120777 << 16, "l"), (false, 0o777));
        // MS-DOS: 0666, 0444 when read-only; others 0.
        assert_eq!(go_mode(0, 0, "f"), (false, 0o666));
        assert_eq!(go_mode(11 << 8, 1, "f"), (false, 0o444));
        assert_eq!(go_mode(0, 0x10, "d"), (true, 0o777));
        assert_eq!(go_mode(7 << 8, 0o100755 << 16, "x"), (false, 0));
        assert_eq!(go_mode(3 << 8, 0, "x/"), (true, 0));
    }

    #[test]
    fn the_registry_packages_read_as_go_reads_them() {
        let name = signed_registry::package_file("beta", "0.10.0", "linux_amd64");
        let entries = entries(signed_registry::file("beta", "0.10.0", &name));
        let summary: Vec<(&str, bool, u32)> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.dir, e.mode))
            .collect();
        assert_eq!(
            summary,
            [
                ("docs/", true, 0o755),
                // No mode set by the writer: an MS-DOS entry.
                ("docs/README.md", false, 0o666),
                ("terraform-provider-beta_v0.10.0", false, 0o755),
            ]
        );
        assert_eq!(entries[1].data, b"# beta 0.10.0\n");
        assert!(
            entries[2]
                .data
                .starts_with(b"beta 0.10.0 linux_amd64 line 0\n")
        );
    }

    #[test]
    fn stored_archives_read_back() {
        let archive = write_stored(&[
            ("x", 0o104755, b"one"),
            ("/abs/y", 0o100600, b""),
            ("l", 0o120777, b"x"),
        ]);
        let entries = entries(&archive);
        let summary: Vec<(&str, u32, &[u8])> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.mode, e.data.as_slice()))
            .collect();
        assert_eq!(
            summary,
            [
                ("x", 0o4755, b"one" as &[u8]),
                ("/abs/y", 0o600, b""),
                ("l", 0o777, b"x"),
            ]
        );
        // The provider crate reads a plain one (its entries' CRCs and sizes).
        let plain = write_stored(&[("a", 0o100644, b"one"), ("b/c", 0o100755, b"two")]);
        let hashes = tfdisco_provider::hash_package(&plain).expect("a package");
        assert_eq!(hashes.files(), 2);
    }
}
