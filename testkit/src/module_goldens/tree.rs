//! The manifest of what a module installation left: `.terraform/modules`
//! (itself included, `modules.json` left out: it is compared on its own),
//! one line per entry, sorted by path, in the install goldens' format
//! ([`tree_manifest`](crate::install_goldens::tree_manifest)) with one more
//! kind: a `.git` folder is one line, `git PATH HEAD COMMIT REF`, not
//! walked.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::git::git_line;
use crate::install_goldens::DIR;
use crate::install_goldens::tree::sha256_file;

/// The modules folder, relative to the working directory.
pub const MODULES_DIR: &str = ".terraform/modules";

/// The manifest file inside [`MODULES_DIR`].
pub const MODULES_JSON: &str = "modules.json";

/// The manifest of `dir/.terraform/modules`, one line per entry, sorted by
/// path (bytes):
///
/// ```text
/// dir 0755 .terraform/modules/net
/// file 0644 .terraform/modules/net/main.tf <sha-256 hex>
/// link 0777 .terraform/modules/net/README.link -> main.tf
/// git .terraform/modules/tag/.git HEAD <commit> detached
/// ```
///
/// Modes are the permission bits (`0o7777`) in four octal digits; a link
/// is not followed, its target written as stored (an absolute one inside
/// `dir` starting `{DIR}`); `modules.json` is left out.
pub fn module_tree(dir: &Path) -> String {
    let modules = dir.join(MODULES_DIR);
    let mut lines = Vec::new();
    if fs::symlink_metadata(&modules).is_ok() {
        describe(dir, &modules, MODULES_DIR, &mut lines);
    }
    lines.retain(|(path, _)| path != &format!("{MODULES_DIR}/{MODULES_JSON}"));
    lines.sort();
    lines.into_iter().map(|(_, line)| line + "\n").collect()
}

fn describe(dir: &Path, path: &Path, rel: &str, lines: &mut Vec<(String, String)>) {
    let meta = fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mode = meta.permissions().mode() & 0o7777;
    let kind = meta.file_type();
    if kind.is_dir() && path.file_name().is_some_and(|n| n == ".git") {
        lines.push((rel.to_owned(), git_line(path, rel)));
        return;
    }
    let line = if kind.is_symlink() {
        let target = fs::read_link(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let target = match target.strip_prefix(dir) {
            Ok(rest) => format!("{DIR}/{}", rest.to_string_lossy()),
            Err(_) => target.to_string_lossy().into_owned(),
        };
        format!("link {mode:04o} {rel} -> {target}")
    } else if kind.is_dir() {
        format!("dir {mode:04o} {rel}")
    } else if kind.is_file() {
        format!("file {mode:04o} {rel} {}", sha256_file(path))
    } else {
        format!("other {mode:04o} {rel}")
    };
    lines.push((rel.to_owned(), line));
    if kind.is_dir() {
        let entries = fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for entry in entries {
            let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = entry.file_name().to_string_lossy().into_owned();
            describe(dir, &entry.path(), &format!("{rel}/{name}"), lines);
        }
    }
}

/// One line of a module manifest, taken apart: `kind`, mode (none for
/// `git`), path, detail (a file's SHA-256, a link's target, a git line's
/// `HEAD COMMIT REF`). `None` when it is not one.
pub fn parse_module_line(line: &str) -> Option<(&str, Option<u32>, &str, &str)> {
    if let Some(rest) = line.strip_prefix("git ") {
        let (path, head) = rest.split_once(" HEAD ")?;
        let (commit, name) = head.split_once(' ')?;
        let hex = commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit());
        return (hex && !name.is_empty() && !path.is_empty()).then_some(("git", None, path, head));
    }
    let entry = crate::install_goldens::parse_line(line)?;
    Some((entry.kind, Some(entry.mode), entry.path, entry.detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_folders_are_one_line_and_modules_json_is_left_out() {
        let scratch = tempfile::tempdir().expect("temp dir");
        let dir = scratch.path();
        let git = dir.join(MODULES_DIR).join("g/.git");
        fs::create_dir_all(git.join("refs/heads")).expect("mkdir");
        fs::write(git.join("HEAD"), "ref: refs/heads/main\n").expect("write");
        let commit = "a".repeat(40);
        fs::write(
            git.join("packed-refs"),
            format!("# pack-refs\n{commit} refs/heads/main\n"),
        )
        .expect("write");
        fs::write(dir.join(MODULES_DIR).join(MODULES_JSON), "{}").expect("write");
        fs::write(dir.join(MODULES_DIR).join("g/main.tf"), "").expect("write");
        std::os::unix::fs::symlink(dir.join("x"), dir.join(MODULES_DIR).join("g/l")).expect("link");
        use std::os::unix::fs::PermissionsExt;
        for (path, mode) in [
            (dir.join(MODULES_DIR), 0o755),
            (dir.join(MODULES_DIR).join("g"), 0o755),
            (dir.join(MODULES_DIR).join("g/main.tf"), 0o644),
        ] {
            fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
        }
        let tree = module_tree(dir);
        let lines: Vec<&str> = tree.lines().collect();
        assert_eq!(
            lines[..3],
            [
                "dir 0755 .terraform/modules",
                "dir 0755 .terraform/modules/g",
                &format!("git .terraform/modules/g/.git HEAD {commit} refs/heads/main")
            ],
            "{tree}"
        );
        assert_eq!(lines[3], "link 0777 .terraform/modules/g/l -> {DIR}/x");
        assert!(lines[4].starts_with("file 0644 .terraform/modules/g/main.tf "));
        assert_eq!(lines.len(), 5, "{tree}");
        for line in lines {
            assert!(parse_module_line(line).is_some(), "{line}");
        }
        fs::write(git.join("HEAD"), format!("{commit}\n")).expect("write");
        assert!(module_tree(dir).contains(&format!("HEAD {commit} detached")));
    }
}
