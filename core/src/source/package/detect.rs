//! Detection: from what a module source or a registry location says to a
//! go-getter address with its getter spelled out (Terraform's
//! `detectRemoteSourceShorthands`, OpenTofu's `getter.Detect` with its
//! detectors), docs/behaviour.md PKG-3 to PKG-6. Pure string work: no
//! detector asks the network (D11).

use super::go_url::{GoUrl, encode_query, parse_query};
use crate::go_clean;
use crate::source::module::{split_raw, split_subdir};
use crate::{Dialect, SourceError};

/// One of the detectors `init` runs on an address that is not already a
/// URL, in the order it runs them ([`PackageDetector::ALL`]); the
/// dialect picks Terraform's or OpenTofu's variant (PKG-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PackageDetector {
    /// `github.com/OWNER/REPO[/SUBDIR]` → `git::https://github.com/OWNER/REPO.git`.
    GitHub,
    /// `git@HOST:PATH` → `git::ssh://git@HOST/PATH`.
    Git,
    /// `bitbucket.org/OWNER/REPO` → `git::https://bitbucket.org/OWNER/REPO.git`.
    BitBucket,
    /// `…googleapis.com/storage/…` → `gcs::https://www.googleapis.com/storage/…`.
    Gcs,
    /// `….amazonaws.com/…` → `s3::https://….amazonaws.com/BUCKET/KEY`.
    S3,
    /// `/PATH` → `file:///PATH`; the last one, which refuses everything else.
    AbsolutePath,
}

impl PackageDetector {
    /// Every detector, in the order `init` runs them.
    pub const ALL: [PackageDetector; 6] = [
        PackageDetector::GitHub,
        PackageDetector::Git,
        PackageDetector::BitBucket,
        PackageDetector::Gcs,
        PackageDetector::S3,
        PackageDetector::AbsolutePath,
    ];

    /// Runs this detector alone on `src` (no `getter::` prefix, no
    /// `//subdir`): `Ok(None)` when the address is not its kind, the
    /// address it makes, or the error `init` reports (Go reports a
    /// detector's error whether or not it claims the address).
    pub fn detect(self, src: &str, dialect: Dialect) -> Result<Option<String>, SourceError> {
        self.run(src, dialect).map_err(SourceError::new)
    }

    fn run(self, src: &str, dialect: Dialect) -> Result<Option<String>, String> {
        match self {
            PackageDetector::GitHub => github(src, dialect),
            PackageDetector::Git => git_ssh(src, dialect),
            PackageDetector::BitBucket => bitbucket(src, dialect),
            PackageDetector::Gcs => gcs(src, dialect),
            PackageDetector::S3 => s3(src, dialect),
            PackageDetector::AbsolutePath => absolute_path(src, dialect),
        }
    }
}

/// Splits `getter::` off an address (`^([A-Za-z0-9]+)::(.+)$`): the getter
/// (empty when none is forced) and the rest.
pub(super) fn forced_getter(src: &str) -> (&str, &str) {
    let name = src.bytes().take_while(u8::is_ascii_alphanumeric).count();
    match src[name..].strip_prefix("::") {
        Some(rest) if name > 0 && !rest.is_empty() && !rest.contains('\n') => (&src[..name], rest),
        _ => ("", src),
    }
}

/// The subdirectory split detection uses: Terraform's cleans it, go-getter's
/// (OpenTofu) keeps it as written.
fn split(src: &str, dialect: Dialect) -> (String, String) {
    match dialect {
        Dialect::Terraform => split_subdir(src),
        Dialect::OpenTofu => split_raw(src),
    }
}

/// Go's `path.Join` of two non-empty paths.
pub(super) fn join(a: &str, b: &str) -> String {
    go_clean(&format!("{a}/{b}"))
}

/// Turns `src` into a go-getter address with its getter spelled out, as
/// `init` does before downloading: an address that is already a URL with a
/// scheme is kept as given; anything else goes through the detectors.
pub(super) fn detect(src: &str, dialect: Dialect) -> Result<String, String> {
    let (force, rest) = forced_getter(src);
    let (get_src, mut subdir) = split(rest, dialect);
    if GoUrl::parse(get_src.as_bytes()).is_ok_and(|u| !u.scheme.is_empty()) {
        return Ok(src.to_owned());
    }
    for detector in PackageDetector::ALL {
        let Some(result) = detector.run(&get_src, dialect)? else {
            continue;
        };
        let (detected_force, result) = forced_getter(&result);
        let (mut result, detected_subdir) = split(result, dialect);
        if !detected_subdir.is_empty() {
            subdir = if subdir.is_empty() {
                detected_subdir
            } else {
                join(&detected_subdir, &subdir)
            };
        }
        if !subdir.is_empty() {
            let mut url =
                GoUrl::parse(result.as_bytes()).map_err(|e| format!("Error parsing URL: {e}"))?;
            url.path.extend_from_slice(b"//");
            url.path.extend_from_slice(subdir.as_bytes());
            url.raw_path = url.path.clone();
            result = url.to_text();
        }
        let force = if force.is_empty() {
            detected_force
        } else {
            force
        };
        return Ok(if force.is_empty() {
            result
        } else {
            format!("{force}::{result}")
        });
    }
    Err(match dialect {
        Dialect::Terraform => format!("invalid source address: {src}"),
        Dialect::OpenTofu => format!("invalid source string: {src}"),
    })
}

/// `github.com/OWNER/REPO[/SUBDIR]`: a Git repository over https.
/// Terraform cuts the query off first and puts it back on the URL; OpenTofu
/// wraps go-getter's detector to do the same by appending it to the result.
fn github(src: &str, dialect: Dialect) -> Result<Option<String>, String> {
    let (src, query) = match src.split_once('?') {
        Some((src, query)) => (src, query),
        None => (src, ""),
    };
    if !src.starts_with("github.com/") {
        return Ok(None);
    }
    let parts: Vec<&str> = src.split('/').collect();
    if parts.len() < 3 {
        return Err("GitHub URLs should be github.com/username/repo".to_owned());
    }
    let mut url = GoUrl::parse(format!("https://{}", parts[..3].join("/")).as_bytes())
        .map_err(|e| format!("error parsing GitHub URL: {e}"))?;
    if dialect == Dialect::Terraform {
        url.raw_query = query.as_bytes().to_vec();
    }
    if !url.path.ends_with(b".git") {
        url.path.extend_from_slice(b".git");
    }
    if parts.len() > 3 {
        url.path
            .extend_from_slice(format!("//{}", parts[3..].join("/")).as_bytes());
    }
    let mut out = format!("git::{}", url.to_text());
    if dialect == Dialect::OpenTofu && !query.is_empty() {
        out.push('?');
        out.push_str(query);
    }
    Ok(Some(out))
}

/// `git@HOST:PATH` (scp-like SSH): `git::ssh://git@HOST/PATH`, the query
/// re-encoded. Only the user `git` makes it a Git address.
fn git_ssh(src: &str, dialect: Dialect) -> Result<Option<String>, String> {
    if src.is_empty() {
        return Ok(None);
    }
    let Some((user, host, path)) = ssh_pattern(src) else {
        return Ok(None);
    };
    let (path, query) = match path.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (path, None),
    };
    let mut url = GoUrl::from_parts("ssh", user, host, path);
    if let Some(query) = query {
        let (values, error) = parse_query(query.as_bytes());
        if let Some(error) = error {
            return Err(match dialect {
                Dialect::Terraform => format!("error parsing Git SSH URL: {error}"),
                Dialect::OpenTofu => format!("error parsing GitHub SSH URL: {error}"),
            });
        }
        url.raw_query = encode_query(&values);
    }
    if user != "git" {
        return Ok(None);
    }
    Ok(Some(format!("git::{}", url.to_text())))
}

/// `^(?:([^@]+)@)?([^:]+):/?(.+)$` as Go's regexp matches it (leftmost
/// first): user, host and path.
fn ssh_pattern(s: &str) -> Option<(&str, &str, &str)> {
    if let Some(at) = s.find('@').filter(|&at| at > 0)
        && let Some((host, path)) = host_and_path(&s[at + 1..])
    {
        return Some((&s[..at], host, path));
    }
    host_and_path(s).map(|(host, path)| ("", host, path))
}

/// `([^:]+):/?(.+)$`
fn host_and_path(s: &str) -> Option<(&str, &str)> {
    let colon = s.find(':').filter(|&c| c > 0)?;
    let rest = &s[colon + 1..];
    if rest.is_empty() || rest.contains('\n') {
        return None;
    }
    let path = match rest.strip_prefix('/') {
        Some(path) if !path.is_empty() => path,
        _ => rest,
    };
    Some((&s[..colon], path))
}

/// `bitbucket.org/OWNER/REPO`: a Git repository over https. Terraform
/// assumes Git; OpenTofu asks Bitbucket's API whether it is Git or
/// Mercurial, which tfdisco does not (D11): Git in both dialects.
fn bitbucket(src: &str, _: Dialect) -> Result<Option<String>, String> {
    if !src.starts_with("bitbucket.org/") {
        return Ok(None);
    }
    let mut url = GoUrl::parse(format!("https://{src}").as_bytes())
        .map_err(|e| format!("error parsing BitBucket URL: {e}"))?;
    if !url.path.ends_with(b".git") {
        url.path.extend_from_slice(b".git");
    }
    Ok(Some(format!("git::{}", url.to_text())))
}

/// `…googleapis.com/storage/VERSION/BUCKET/OBJECT`: Google Cloud Storage.
/// Terraform looks for `googleapis.com/`, OpenTofu (go-getter 1.8) for
/// `.googleapis.com/`.
fn gcs(src: &str, dialect: Dialect) -> Result<Option<String>, String> {
    let marker = match dialect {
        Dialect::Terraform => "googleapis.com/",
        Dialect::OpenTofu => ".googleapis.com/",
    };
    if !src.contains(marker) {
        return Ok(None);
    }
    let parts: Vec<&str> = src.split('/').collect();
    if parts.len() < 5 {
        return Err("URL is not a valid GCS URL".to_owned());
    }
    let url = format!(
        "https://www.googleapis.com/storage/{}/{}/{}",
        parts[2],
        parts[3],
        parts[4..].join("/")
    );
    let url = GoUrl::parse(url.as_bytes()).map_err(|e| format!("error parsing GCS URL: {e}"))?;
    Ok(Some(format!("gcs::{}", url.to_text())))
}

/// `….amazonaws.com/…`: Amazon S3, path style (`s3[-REGION].amazonaws.com/
/// BUCKET/KEY`) or virtual-host style (`BUCKET.s3[-.]REGION.amazonaws.com/
/// KEY`), told apart by the number of dots in the first part.
fn s3(src: &str, _: Dialect) -> Result<Option<String>, String> {
    if !src.contains(".amazonaws.com/") {
        return Ok(None);
    }
    let parts: Vec<&str> = src.split('/').collect();
    let host: Vec<&str> = parts[0].split('.').collect();
    let key = parts[1..].join("/");
    let url = match host.as_slice() {
        [region, _, _] => format!("https://{region}.amazonaws.com/{key}"),
        [bucket, region, _, _] => format!("https://{region}.amazonaws.com/{bucket}/{key}"),
        [bucket, "s3", region, _, _] => format!("https://s3.{region}.amazonaws.com/{bucket}/{key}"),
        _ => return Err("URL is not a valid S3 URL".to_owned()),
    };
    let url = GoUrl::parse(url.as_bytes()).map_err(|e| format!("error parsing S3 URL: {e}"))?;
    Ok(Some(format!("s3::{}", url.to_text())))
}

/// The last detector, which claims everything left: an absolute path is a
/// `file:///` URL (paths as on Unix); anything else is the error `init`
/// gives for an address it does not know.
fn absolute_path(src: &str, dialect: Dialect) -> Result<Option<String>, String> {
    if src.is_empty() {
        return Ok(None);
    }
    match src.strip_prefix('/') {
        Some(path) => Ok(Some(format!("file:///{path}"))),
        None => Err(format!(
            "{} cannot detect a supported external module source type for {src}",
            match dialect {
                Dialect::Terraform => "Terraform",
                Dialect::OpenTofu => "OpenTofu",
            }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_getters() {
        assert_eq!(forced_getter("git::https://x"), ("git", "https://x"));
        assert_eq!(forced_getter("s3::x"), ("s3", "x"));
        assert_eq!(forced_getter("::x"), ("", "::x"));
        assert_eq!(forced_getter("git::"), ("", "git::"));
        assert_eq!(forced_getter("git::a\nb"), ("", "git::a\nb"));
        assert_eq!(forced_getter("g-t::x"), ("", "g-t::x"));
    }

    #[test]
    fn the_ssh_pattern_matches_as_go_regexp() {
        assert_eq!(
            ssh_pattern("git@github.com:a/b"),
            Some(("git", "github.com", "a/b"))
        );
        assert_eq!(ssh_pattern("git@h:/a"), Some(("git", "h", "a")));
        assert_eq!(ssh_pattern("git@h:/"), Some(("git", "h", "/")));
        assert_eq!(ssh_pattern("a@:b"), Some(("", "a@", "b")));
        assert_eq!(ssh_pattern("x:y@z:w"), Some(("x:y", "z", "w")));
        assert_eq!(ssh_pattern("h:p"), Some(("", "h", "p")));
        assert_eq!(ssh_pattern("git@h:"), None);
        assert_eq!(ssh_pattern("git@h:a\nb"), None);
        assert_eq!(ssh_pattern("@h:p"), Some(("", "@h", "p")));
        assert_eq!(ssh_pattern("no colon"), None);
    }

    #[test]
    fn raw_split_keeps_the_subdir_as_written() {
        assert_eq!(
            split_raw("https://h/p//a/./b?q"),
            ("https://h/p?q".to_owned(), "a/./b".to_owned())
        );
        assert_eq!(
            split_subdir("https://h/p//a/./b?q"),
            ("https://h/p?q".to_owned(), "a/b".to_owned())
        );
    }
}
