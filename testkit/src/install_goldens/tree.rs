//! The manifest of what an install left on disk: `.terraform/providers`
//! and the plugin cache, one line per entry, sorted by path, so a
//! golden made with `terraform init` and tfdisco's result compare byte for
//! byte.

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use sha2::{Digest, Sha256};

/// The providers folder, relative to the working directory.
pub const PROVIDERS_DIR: &str = ".terraform/providers";
/// Stands for the plugin cache folder: the prefix of its entries' paths,
/// and of a link target inside it.
pub const CACHE: &str = "{CACHE}";
/// Stands for the working directory in a link target inside it.
pub const DIR: &str = "{DIR}";
/// The suffix of the file OpenTofu and tfdisco keep beside a package's
/// platform folder in a cache, the entry's lock (`OS_ARCH.lock`):
/// Terraform 1.11.4 writes none. It is the only file a tfdisco install
/// writes that Terraform does not.
pub const CACHE_LOCK_SUFFIX: &str = ".lock";

/// The manifest of `dir/.terraform/providers` (itself included, when it
/// exists) and of what `cache` holds (the folder itself left out), one line
/// per entry, sorted by path (bytes):
///
/// ```text
/// dir 0755 .terraform/providers/localhost:8443/ns/alpha
/// file 0755 .terraform/providers/localhost:8443/ns/alpha/1.1.0/linux_amd64/terraform-provider-alpha_v1.1.0 <sha-256 hex>
/// link 0777 .terraform/providers/localhost:8443/ns/beta/0.10.0/linux_amd64 -> {CACHE}/localhost:8443/ns/beta/0.10.0/linux_amd64
/// file 0755 {CACHE}/localhost:8443/ns/beta/0.10.0/linux_amd64/terraform-provider-beta_v0.10.0 <sha-256 hex>
/// ```
///
/// The kind is `dir`, `file`, `link` or `other`; the mode is the entry's
/// permission bits (`0o7777`, so setuid shows) in four octal digits; paths
/// are `/`-separated, a cache entry's starting `{CACHE}/`. A link is not
/// followed; its target is written as stored, an absolute one inside
/// `cache` starting `{CACHE}` and one inside `dir` starting `{DIR}`.
/// Folder modes depend on the process umask: see [`with_umask`].
pub fn tree_manifest(dir: &Path, cache: Option<&Path>) -> String {
    let places = Places { dir, cache };
    let mut lines = Vec::new();
    let providers = dir.join(PROVIDERS_DIR);
    if fs::symlink_metadata(&providers).is_ok() {
        describe(&providers, PROVIDERS_DIR, &places, &mut lines);
    }
    if let Some(cache) = cache
        && cache.is_dir()
    {
        walk(cache, CACHE, &places, &mut lines);
    }
    lines.sort();
    lines.into_iter().map(|(_, line)| line + "\n").collect()
}

struct Places<'a> {
    dir: &'a Path,
    cache: Option<&'a Path>,
}

/// Every entry under `path` (not `path` itself), recursively.
fn walk(path: &Path, rel: &str, places: &Places<'_>, lines: &mut Vec<(String, String)>) {
    let entries = fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = entry.file_name().to_string_lossy().into_owned();
        describe(&entry.path(), &format!("{rel}/{name}"), places, lines);
    }
}

/// The line of `path` (shown as `rel`), then its entries if it is a folder.
fn describe(path: &Path, rel: &str, places: &Places<'_>, lines: &mut Vec<(String, String)>) {
    let meta = fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mode = meta.permissions().mode() & 0o7777;
    let kind = meta.file_type();
    let line = if kind.is_symlink() {
        let target = fs::read_link(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        format!("link {mode:04o} {rel} -> {}", places.target(&target))
    } else if kind.is_dir() {
        format!("dir {mode:04o} {rel}")
    } else if kind.is_file() {
        format!("file {mode:04o} {rel} {}", sha256_file(path))
    } else {
        format!("other {mode:04o} {rel}")
    };
    lines.push((rel.to_owned(), line));
    if kind.is_dir() {
        walk(path, rel, places, lines);
    }
}

impl Places<'_> {
    /// A link's target, the cache's or the working directory's absolute
    /// path (as given, or resolved) replaced by its placeholder; the
    /// deeper of the two first, in case one holds the other.
    fn target(&self, target: &Path) -> String {
        let mut prefixes = Vec::new();
        for (folder, name) in [(self.cache, CACHE), (Some(self.dir), DIR)] {
            let Some(folder) = folder else { continue };
            prefixes.push((folder.to_path_buf(), name));
            if let Ok(resolved) = folder.canonicalize() {
                prefixes.push((resolved, name));
            }
        }
        prefixes.sort_by_key(|(folder, _)| std::cmp::Reverse(folder.components().count()));
        for (folder, name) in prefixes {
            if let Ok(rest) = target.strip_prefix(&folder) {
                return if rest.as_os_str().is_empty() {
                    name.to_owned()
                } else {
                    format!("{name}/{}", rest.to_string_lossy())
                };
            }
        }
        target.to_string_lossy().into_owned()
    }
}

pub(crate) fn sha256_file(path: &Path) -> String {
    let mut file = fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let n = file
            .read(&mut buffer)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One line of a manifest, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestLine<'a> {
    /// `dir`, `file`, `link` or `other`.
    pub kind: &'a str,
    /// The permission bits.
    pub mode: u32,
    /// The path.
    pub path: &'a str,
    /// A file's SHA-256 (hex), a link's target; empty otherwise.
    pub detail: &'a str,
}

/// Takes a manifest line apart; `None` when it is not one.
pub fn parse_line(line: &str) -> Option<ManifestLine<'_>> {
    let (kind, rest) = line.split_once(' ')?;
    let (mode, rest) = rest.split_once(' ')?;
    if mode.len() != 4 {
        return None;
    }
    let mode = u32::from_str_radix(mode, 8).ok()?;
    let (path, detail) = match kind {
        "dir" | "other" => (rest, ""),
        "file" => {
            let (path, sum) = rest.rsplit_once(' ')?;
            if sum.len() != 64 || !sum.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            (path, sum)
        }
        "link" => rest.split_once(" -> ")?,
        _ => return None,
    };
    (!path.is_empty()).then_some(ManifestLine {
        kind,
        mode,
        path,
        detail,
    })
}

/// `manifest` as it reads when made under `umask` instead of `022` (the
/// goldens' umask): every folder Terraform made `0755` less the umask.
/// Files keep their modes, which come from the archive whatever the umask.
pub fn with_umask(manifest: &str, umask: u32) -> String {
    let folder = format!("dir {:04o} ", 0o755 & !umask);
    manifest
        .lines()
        .map(|line| match line.strip_prefix("dir 0755 ") {
            Some(rest) => format!("{folder}{rest}\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

/// The process umask, read without a system call of its own: the mode a
/// new folder gets (`0777` less the umask).
pub fn process_umask() -> u32 {
    let probe = std::env::temp_dir().join(format!(
        "tfdisco-umask-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = fs::remove_dir(&probe);
    fs::create_dir(&probe).unwrap_or_else(|e| panic!("{}: {e}", probe.display()));
    let mode = fs::metadata(&probe)
        .unwrap_or_else(|e| panic!("{}: {e}", probe.display()))
        .permissions()
        .mode();
    let _ = fs::remove_dir(&probe);
    !mode & 0o777
}

/// `manifest` without the cache entries' lock files
/// ([`CACHE_LOCK_SUFFIX`]: `{CACHE}/HOST/NS/TYPE/VERSION/OS_ARCH.lock`), and
/// those lines.
pub fn split_cache_lock_files(manifest: &str) -> (String, Vec<String>) {
    let mut rest = String::new();
    let mut side = Vec::new();
    for line in manifest.lines() {
        if is_cache_lock_file(line) {
            side.push(line.to_owned());
        } else {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    (rest, side)
}

fn is_cache_lock_file(line: &str) -> bool {
    let Some(entry) = parse_line(line) else {
        return false;
    };
    let Some(path) = entry.path.strip_prefix(&format!("{CACHE}/")) else {
        return false;
    };
    let parts: Vec<&str> = path.split('/').collect();
    entry.kind == "file"
        && parts.len() == 5
        && parts[4]
            .strip_suffix(CACHE_LOCK_SUFFIX)
            .is_some_and(|platform| platform.matches('_').count() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn set_mode(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn modes_links_and_files() {
        let scratch = tempfile::tempdir().expect("temp dir");
        let dir = scratch.path().join("work");
        let cache = scratch.path().join("cache");
        let package = dir.join(PROVIDERS_DIR).join("h/ns/a/1.0.0/linux_amd64");
        fs::create_dir_all(&package).expect("mkdir");
        fs::create_dir_all(cache.join("h/ns/b/2.0.0/linux_amd64")).expect("mkdir");
        for d in [
            dir.join(".terraform"),
            dir.join(PROVIDERS_DIR),
            dir.join(PROVIDERS_DIR).join("h"),
            dir.join(PROVIDERS_DIR).join("h/ns"),
            dir.join(PROVIDERS_DIR).join("h/ns/a"),
            dir.join(PROVIDERS_DIR).join("h/ns/a/1.0.0"),
        ] {
            set_mode(&d, 0o755);
        }
        set_mode(&package, 0o700);
        fs::write(package.join("bin"), b"abc").expect("write");
        set_mode(&package.join("bin"), 0o4755);
        fs::write(package.join("private"), b"").expect("write");
        set_mode(&package.join("private"), 0o600);
        let b = dir.join(PROVIDERS_DIR).join("h/ns/b/2.0.0");
        fs::create_dir_all(&b).expect("mkdir");
        symlink(
            cache.join("h/ns/b/2.0.0/linux_amd64"),
            b.join("linux_amd64"),
        )
        .expect("link");
        symlink(dir.join("mirror/x"), b.join("darwin_arm64")).expect("link");
        symlink("relative/y", b.join("windows_amd64")).expect("link");
        fs::write(cache.join("h/ns/b/2.0.0/linux_amd64.lock"), b"").expect("write");
        set_mode(&cache.join("h/ns/b/2.0.0/linux_amd64.lock"), 0o644);

        let manifest = tree_manifest(&dir, Some(&cache));
        let lines: Vec<&str> = manifest.lines().collect();
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert!(
            lines.contains(&"dir 0755 .terraform/providers"),
            "{manifest}"
        );
        assert!(
            lines.contains(&"dir 0700 .terraform/providers/h/ns/a/1.0.0/linux_amd64"),
            "{manifest}"
        );
        assert!(
            lines.contains(
                &format!("file 4755 .terraform/providers/h/ns/a/1.0.0/linux_amd64/bin {abc}")
                    .as_str()
            ),
            "{manifest}"
        );
        assert!(
            lines.contains(
                &format!("file 0600 .terraform/providers/h/ns/a/1.0.0/linux_amd64/private {empty}")
                    .as_str()
            ),
            "{manifest}"
        );
        assert!(
            lines.contains(
                &"link 0777 .terraform/providers/h/ns/b/2.0.0/linux_amd64 -> {CACHE}/h/ns/b/2.0.0/linux_amd64"
            ),
            "{manifest}"
        );
        assert!(
            lines.contains(
                &"link 0777 .terraform/providers/h/ns/b/2.0.0/darwin_arm64 -> {DIR}/mirror/x"
            ),
            "{manifest}"
        );
        assert!(
            lines.contains(
                &"link 0777 .terraform/providers/h/ns/b/2.0.0/windows_amd64 -> relative/y"
            ),
            "{manifest}"
        );
        assert!(
            lines.contains(
                &format!("file 0644 {{CACHE}}/h/ns/b/2.0.0/linux_amd64.lock {empty}").as_str()
            ),
            "{manifest}"
        );
        // The cache's own folder is not listed, `.terraform` neither.
        assert!(!manifest.contains("{CACHE} "), "{manifest}");
        assert!(
            !lines.iter().any(|l| l.ends_with(" .terraform")),
            "{manifest}"
        );
        // Sorted by path, every line parses.
        let paths: Vec<&str> = lines
            .iter()
            .map(|l| parse_line(l).expect("a manifest line").path)
            .collect();
        let mut sorted = paths.clone();
        sorted.sort();
        assert_eq!(paths, sorted);
        assert_eq!(lines.len(), 19, "{manifest}");

        // The lock file splits off; nothing else does.
        let (rest, side) = split_cache_lock_files(&manifest);
        assert_eq!(
            side,
            [format!(
                "file 0644 {{CACHE}}/h/ns/b/2.0.0/linux_amd64.lock {empty}"
            )]
        );
        assert_eq!(rest.lines().count(), 18);
    }

    #[test]
    fn nothing_there_is_an_empty_manifest() {
        let scratch = tempfile::tempdir().expect("temp dir");
        assert_eq!(tree_manifest(scratch.path(), None), "");
        assert_eq!(
            tree_manifest(scratch.path(), Some(&scratch.path().join("absent"))),
            ""
        );
    }

    #[test]
    fn lines_parse_and_umasks_apply() {
        let sum = "a".repeat(64);
        let file = format!("file 4755 p/q {sum}");
        assert_eq!(
            parse_line(&file),
            Some(ManifestLine {
                kind: "file",
                mode: 0o4755,
                path: "p/q",
                detail: &sum
            })
        );
        assert_eq!(
            parse_line("link 0777 a b -> {CACHE}/c").map(|l| (l.path, l.detail)),
            Some(("a b", "{CACHE}/c"))
        );
        for bad in [
            "",
            "dir 755 x",
            "file 0644 x abc",
            "pipe 0644 x",
            "dir 0755 ",
        ] {
            assert_eq!(parse_line(bad), None, "{bad:?}");
        }
        let manifest = format!("dir 0755 a\n{file}\n");
        assert_eq!(with_umask(&manifest, 0o022), manifest);
        assert_eq!(
            with_umask(&manifest, 0o077),
            format!("dir 0700 a\n{file}\n")
        );
        assert!(process_umask() <= 0o777);
    }
}
