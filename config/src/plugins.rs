//! Which file in the plugin directories is the credentials helper of a type
//! (docs/behaviour.md, CFG-8). Pure: `files.rs` lists the
//! directories.

use std::cmp::Ordering;

/// The file-name prefix of credentials helper plugins.
pub(crate) const HELPER_PREFIX: &str = "terraform-credentials-";

/// The helper type and version a plugin file name stands for:
/// `terraform-credentials-<type>[_v<version>][.exe]` (lower-cased, an
/// auto-installer's `_x…` suffix dropped; no version means `0.0.0`).
pub(crate) fn helper_name_version(file_name: &str) -> Option<(String, String)> {
    if !file_name.starts_with(HELPER_PREFIX) {
        return None;
    }
    let lower = file_name.to_lowercase();
    let rest = lower[HELPER_PREFIX.len()..].trim_end_matches(".exe");
    if rest.is_empty() {
        return None;
    }
    let (name, version) = match rest.split_once("_v") {
        Some((name, version)) => (name, version),
        None => (rest, "0.0.0"),
    };
    let version = version.split("_x").next().unwrap_or(version);
    Some((name.to_owned(), version.to_owned()))
}

/// A version as go-version reads it: `v1.2.3-beta.1+meta`. `1.0` equals
/// `1.0.0`.
#[derive(Debug)]
pub(crate) struct Version {
    segments: Vec<u64>,
    pre: Option<String>,
}

impl Version {
    pub(crate) fn parse(text: &str) -> Option<Version> {
        let text = text.strip_prefix('v').unwrap_or(text);
        let text = text.split_once('+').map_or(text, |(v, _)| v);
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) if !pre.is_empty() => (core, Some(pre.to_owned())),
            Some(_) => return None,
            None => (text, None),
        };
        let segments = core
            .split('.')
            .map(|s| {
                if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                    None
                } else {
                    s.parse().ok()
                }
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(Version { segments, pre })
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let len = self.segments.len().max(other.segments.len());
        for i in 0..len {
            let a = self.segments.get(i).copied().unwrap_or(0);
            let b = other.segments.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        match (&self.pre, &other.pre) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(a), Some(b)) => compare_prerelease(a, b),
        }
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let mut a = a.split('.');
    let mut b = b.split('.');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(x), Ok(y)) => x.cmp(&y),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => x.cmp(y),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

/// The newest of `candidates` (`(version, item)`, earlier directories
/// first); unparsable versions are skipped, and on a tie the earlier wins.
pub(crate) fn newest<T>(candidates: impl IntoIterator<Item = (String, T)>) -> Option<T> {
    let mut best: Option<(Version, T)> = None;
    for (version, item) in candidates {
        let Some(version) = Version::parse(&version) else {
            continue;
        };
        if best.as_ref().is_none_or(|(b, _)| version > *b) {
            best = Some((version, item));
        }
    }
    best.map(|(_, item)| item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let nv = |s: &str| helper_name_version(s);
        assert_eq!(
            nv("terraform-credentials-pass"),
            Some(("pass".into(), "0.0.0".into()))
        );
        assert_eq!(
            nv("terraform-credentials-Pass_v1.2.3_x4.exe"),
            Some(("pass".into(), "1.2.3".into()))
        );
        assert_eq!(nv("terraform-credentials-"), None);
        assert_eq!(nv("terraform-provider-aws"), None);
        assert_eq!(nv("Terraform-credentials-pass"), None);
    }

    #[test]
    fn versions() {
        let v = |s: &str| Version::parse(s).expect(s);
        assert!(v("1.10.0") > v("1.9.9"));
        assert!(v("v2") > v("1.99"));
        assert_eq!(v("1.0"), v("1.0.0"));
        assert!(v("1.0.0") > v("1.0.0-beta"));
        assert!(v("1.0.0-beta.2") > v("1.0.0-beta.1"));
        assert!(v("1.0.0-beta") > v("1.0.0-1"));
        assert!(Version::parse("1..2").is_none());
        assert!(Version::parse("x").is_none());
        assert_eq!(
            newest([
                ("1.0".to_owned(), 'a'),
                ("junk".to_owned(), 'b'),
                ("1.1".to_owned(), 'c'),
                ("1.1.0".to_owned(), 'd')
            ]),
            Some('c')
        );
    }
}
