//! Go's `path.Clean` (and `filepath.Clean` on Unix, which is the same on
//! `/`-separated paths), for the paths both CLIs clean: a module source's
//! subdirectory, a `dev_overrides` directory.

/// Go's `path.Clean`: one `/` between elements, no `.` elements, `..` taken
/// back against the element before it (and dropped at the root), `.` for an
/// empty result.
///
/// ```
/// assert_eq!(tfdisco_core::go_clean("/tmp/bloop/../boop"), "/tmp/boop");
/// assert_eq!(tfdisco_core::go_clean("a/../../b"), "../b");
/// ```
pub fn go_clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for element in path.split('/') {
        match element {
            "" | "." => {}
            ".." => match out.last() {
                Some(&last) if last != ".." => {
                    out.pop();
                }
                _ if rooted => {}
                _ => out.push(".."),
            },
            element => out.push(element),
        }
    }
    let joined = out.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_go_cleans() {
        for (given, want) in [
            ("", "."),
            (".", "."),
            ("/", "/"),
            ("a/b", "a/b"),
            ("a//b/", "a/b"),
            ("a//b/./c/", "a/b/c"),
            ("./a/./b", "a/b"),
            ("a/../b", "b"),
            ("../a", "../a"),
            ("../../a", "../../a"),
            ("a/../..", ".."),
            ("a/..", "."),
            ("a/../../b", "../b"),
            ("/../a", "/a"),
            ("/tmp/bloop/../boop", "/tmp/boop"),
        ] {
            assert_eq!(go_clean(given), want, "{given}");
        }
    }
}
