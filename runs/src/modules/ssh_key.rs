//! go-getter's `sshkey=` (docs/behaviour.md, MOD-8): a private key in
//! standard base64, decoded as Go's `base64.StdEncoding` decodes it (its
//! error words and offsets too), written into a file of its own (`0600`)
//! in a private temporary folder that is removed when the key is dropped,
//! and handed to `ssh` through `GIT_SSH_COMMAND` as ` -i KEYFILE`.
//!
//! The key is never part of a message: a decoding error names an offset
//! only, and [`SshKey`]'s `Debug` names the file alone.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::Write;
use std::path::PathBuf;

use tfdisco_core::shell_word;

/// A private key in a file of its own, removed (with its folder) on drop.
pub(super) struct SshKey {
    _folder: tempfile::TempDir,
    file: PathBuf,
}

impl fmt::Debug for SshKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SshKey").field("file", &self.file).finish()
    }
}

impl SshKey {
    /// Decodes `base64` (go-getter's error when it is not standard
    /// base64) and writes the key into a new private folder.
    pub(super) fn write(base64: &str) -> Result<SshKey, String> {
        let raw = go_std_base64(base64.as_bytes())?;
        let mut folder = tempfile::Builder::new();
        folder.prefix("tfdisco-sshkey-");
        #[cfg(unix)]
        folder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
        let folder = folder
            .tempdir()
            .map_err(|e| format!("a folder for the ssh key: {e}"))?;
        let file = folder.path().join("key");
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut out = options
            .open(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        out.write_all(&raw)
            .and_then(|()| out.sync_all())
            .map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(SshKey {
            _folder: folder,
            file,
        })
    }

    /// `GIT_SSH_COMMAND` as go-getter sets it: the one given (`existing`,
    /// when not empty), else `ssh`, and ` -i KEYFILE` (the file's path
    /// quoted for the shell git runs it with).
    pub(super) fn ssh_command(&self, existing: Option<OsString>) -> OsString {
        let mut command = existing
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| OsString::from("ssh"));
        command.push(" -i ");
        // go-getter writes a Windows path with forward slashes.
        let path = self.file.to_string_lossy();
        #[cfg(windows)]
        let path = path.replace('\\', "/");
        command.push(shell_word(&path));
        command
    }
}

/// Go's `base64.StdEncoding.DecodeString`: the standard alphabet, `=`
/// padding required, `\r` and `\n` skipped anywhere, extra bits in the
/// last character allowed; an error is Go's `illegal base64 data at input
/// byte N`.
fn go_std_base64(src: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        si = decode_quantum(src, si, &mut out)
            .map_err(|at| format!("illegal base64 data at input byte {at}"))?;
    }
    Ok(out)
}

fn decode_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

fn is_newline(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

/// One quantum of Go's `decodeQuantum` (padded, not strict): up to four
/// characters from `si`, their bytes appended to `out`; the index after
/// them, or the offset Go reports.
fn decode_quantum(src: &[u8], mut si: usize, out: &mut Vec<u8>) -> Result<usize, usize> {
    let mut buf = [0u8; 4];
    let mut len = 4;
    let mut j = 0;
    let mut trailing = None;
    while j < 4 {
        let Some(&c) = src.get(si) else {
            return if j == 0 { Ok(si) } else { Err(si - j) };
        };
        si += 1;
        if let Some(v) = decode_value(c) {
            buf[j] = v;
            j += 1;
            continue;
        }
        if is_newline(c) {
            continue;
        }
        if c != b'=' || j < 2 {
            return Err(si - 1);
        }
        if j == 2 {
            // "==" is expected; the first is read.
            while src.get(si).is_some_and(|c| is_newline(*c)) {
                si += 1;
            }
            match src.get(si) {
                None => return Err(src.len()),
                Some(b'=') => si += 1,
                Some(_) => return Err(si - 1),
            }
        }
        while src.get(si).is_some_and(|c| is_newline(*c)) {
            si += 1;
        }
        if si < src.len() {
            trailing = Some(si);
        }
        len = j;
        break;
    }
    let value = (u32::from(buf[0]) << 18)
        | (u32::from(buf[1]) << 12)
        | (u32::from(buf[2]) << 6)
        | u32::from(buf[3]);
    let bytes = value.to_be_bytes();
    out.extend_from_slice(&bytes[1..len]);
    match trailing {
        Some(at) => Err(at),
        None => Ok(si),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_and_fails_as_go_does() {
        // Each answer traced through Go's decodeQuantum
        // (src/encoding/base64/base64.go), the offsets included.
        let ok = |s: &str| go_std_base64(s.as_bytes()).expect("decodes");
        let err = |s: &str| go_std_base64(s.as_bytes()).expect_err("fails");
        assert_eq!(ok(""), b"");
        assert_eq!(ok("a2V5"), b"key");
        assert_eq!(ok("a2V5cw=="), b"keys");
        assert_eq!(ok("a2V5czE="), b"keys1");
        assert_eq!(ok("a2V5\r\ncw=\n="), b"keys");
        // Extra bits in the last character are allowed (not strict).
        assert_eq!(ok("a2V5cx=="), b"keys");
        assert_eq!(err("a2V5cw"), "illegal base64 data at input byte 4");
        assert_eq!(err("a2V"), "illegal base64 data at input byte 0");
        assert_eq!(err("a2V5 cw=="), "illegal base64 data at input byte 4");
        assert_eq!(err("a2V5c==="), "illegal base64 data at input byte 5");
        assert_eq!(err("a2V5cw="), "illegal base64 data at input byte 7");
        assert_eq!(err("a2V5cw==x"), "illegal base64 data at input byte 8");
        assert_eq!(err("a2V5cw=x"), "illegal base64 data at input byte 6");
        assert_eq!(err("=a2V"), "illegal base64 data at input byte 0");
        assert_eq!(err("a-V5"), "illegal base64 data at input byte 1");
    }

    #[cfg(unix)]
    #[test]
    fn the_key_file_is_private_named_in_the_command_and_removed_on_drop() {
        use std::os::unix::fs::PermissionsExt;
        let key = SshKey::write("c2VjcmV0IGtleQo=").expect("a key");
        let file = key.file.to_owned();
        assert_eq!(fs::read(&file).expect("the key"), b"secret key\n");
        let mode = fs::metadata(&file).expect("there").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let folder = file.parent().expect("a folder").to_owned();
        let folder_mode = fs::metadata(&folder).expect("there").permissions().mode();
        assert_eq!(folder_mode & 0o077, 0, "{folder_mode:o}");
        let shown = key.file.to_string_lossy().into_owned();
        assert_eq!(
            key.ssh_command(None),
            OsString::from(format!("ssh -i {}", shell_word(&shown)))
        );
        assert_eq!(
            key.ssh_command(Some("ssh -o BatchMode=yes".into())),
            OsString::from(format!("ssh -o BatchMode=yes -i {}", shell_word(&shown)))
        );
        assert_eq!(
            key.ssh_command(Some(OsString::new())),
            key.ssh_command(None)
        );
        assert!(!format!("{key:?}").contains("secret"));
        drop(key);
        assert!(!file.exists() && !folder.exists());
    }
}
