//! Which repositories a label or an `auths` key covers, and how
//! specifically (docs/behaviour.md, OCICRED-2, OCICRED-8).
//!
//! The registry and repository grammar is `tfdisco_oci`'s
//! ([`RepositoryAddress`]); this module only splits the text the way ORAS's
//! `ParseReference` does before checking its parts.

use std::fmt;

use tfdisco_core::go_quote;
use tfdisco_oci::{Digest, RepositoryAddress, Tag};

/// How specifically a credentials source covers a repository; a more
/// specific source wins (OCICRED-8, OCICRED-9). The order is
/// `Global < Domain < Repository(1) < Repository(2) < …`.
///
/// ```
/// use tfdisco_config::{OciSpecificity, oci_auths_key_specificity};
/// assert_eq!(
///     oci_auths_key_specificity("example.net/foo", "example.net", "foo/bar"),
///     Some(OciSpecificity::Repository(1))
/// );
/// assert_eq!(oci_auths_key_specificity("example.net/foo/bar", "example.net", "foo"), None);
/// assert!(OciSpecificity::Global < OciSpecificity::Domain);
/// assert!(OciSpecificity::Domain < OciSpecificity::Repository(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OciSpecificity {
    /// A helper for every registry: `credsStore`, or the
    /// `oci_default_credentials` block's `docker_credentials_helper`.
    Global,
    /// An entry for a whole registry (`host[:port]`).
    Domain,
    /// An entry for the repositories under a path prefix of this many
    /// `/`-separated segments.
    Repository(usize),
}

impl fmt::Display for OciSpecificity {
    /// `global`, `domain`, `repository(N)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OciSpecificity::Global => f.write_str("global"),
            OciSpecificity::Domain => f.write_str("domain"),
            OciSpecificity::Repository(n) => write!(f, "repository({n})"),
        }
    }
}

/// A label or `auths` key split into registry and repository path (empty
/// for a registry alone), as OpenTofu's `ParseRepositoryAddressPrefix`
/// does (OCICRED-2): without a `/` the text must be a registry; with one,
/// it is read as ORAS reads a reference (split at the first `/`, then at
/// the first `@`, or else the first `:`), the registry and repository
/// checked first, and a tag or digest, valid or not, refused. Errors are
/// ORAS's texts (`invalid reference: …`).
pub(crate) fn parse_prefix(text: &str) -> Result<(&str, &str), String> {
    let Some((registry, path)) = text.split_once('/') else {
        check_registry(text)?;
        return Ok((text, ""));
    };
    let (repository, reference, is_tag) = match path.find('@') {
        Some(at) => {
            let before = &path[..at];
            let repository = before.split_once(':').map_or(before, |(r, _)| r);
            (repository, &path[at + 1..], false)
        }
        None => match path.split_once(':') {
            Some((repository, tag)) => (repository, tag, true),
            None => (path, "", false),
        },
    };
    RepositoryAddress::new(registry, repository).map_err(|e| e.to_string())?;
    if reference.is_empty() {
        // ORAS accepts `repo:` and `repo@` as having no reference.
        return Ok((registry, repository));
    }
    if is_tag {
        reference.parse::<Tag>().map_err(|e| e.to_string())?;
    } else {
        reference.parse::<Digest>().map_err(|e| {
            format!(
                "invalid reference: invalid digest {}: {}",
                go_quote(reference),
                e.problem
            )
        })?;
    }
    Err("invalid reference: artifact tag or digest not allowed".to_owned())
}

/// A registry alone, checked with the crate's grammar: with a repository
/// that is always valid, the only possible error is the registry's.
fn check_registry(registry: &str) -> Result<(), String> {
    RepositoryAddress::new(registry, "x")
        .map(drop)
        .map_err(|e| e.to_string())
}

/// How specifically an `auths` key of a Docker-style file, or an
/// `oci_credentials` label, covers the repository `repository` of
/// `registry` (OCICRED-8, OpenTofu's `ContainersAuthPropertyNameMatch`):
/// `None` when it does not.
///
/// A key without `/` must equal the registry exactly (no scheme is
/// stripped, case matters): [`OciSpecificity::Domain`]. A key with `/` is
/// read as a label (an unreadable one covers nothing); its registry must
/// equal `registry` and its path segments must be the first segments of
/// `repository`: [`OciSpecificity::Repository`] with their number.
pub fn oci_auths_key_specificity(
    key: &str,
    registry: &str,
    repository: &str,
) -> Option<OciSpecificity> {
    if key.is_empty() {
        return None;
    }
    let (domain, prefix) = if key.contains('/') {
        parse_prefix(key).ok()?
    } else {
        (key, "")
    };
    if domain != registry {
        return None;
    }
    if prefix.is_empty() {
        return Some(OciSpecificity::Domain);
    }
    let mut wanted = repository.split('/');
    let mut segments = 0;
    for segment in prefix.split('/') {
        if wanted.next() != Some(segment) {
            return None;
        }
        segments += 1;
    }
    Some(OciSpecificity::Repository(segments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_as_orasparsereference_reads_them() {
        assert_eq!(parse_prefix("example.com"), Ok(("example.com", "")));
        assert_eq!(parse_prefix("localhost:5000"), Ok(("localhost:5000", "")));
        assert_eq!(parse_prefix("example.com/a/b"), Ok(("example.com", "a/b")));
        assert_eq!(parse_prefix("example.com/a:"), Ok(("example.com", "a")));
        assert_eq!(parse_prefix("example.com/a@"), Ok(("example.com", "a")));
        assert_eq!(
            parse_prefix("example.com/a:v1"),
            Err("invalid reference: artifact tag or digest not allowed".into())
        );
        assert_eq!(
            parse_prefix("example.com/a:v1+x"),
            Err(r#"invalid reference: invalid tag "v1+x""#.into())
        );
        let digest = format!("sha256:{}", "a".repeat(64));
        assert_eq!(
            parse_prefix(&format!("example.com/a:v1@{digest}")),
            Err("invalid reference: artifact tag or digest not allowed".into())
        );
        assert!(
            parse_prefix("example.com/a@sha256:x")
                .expect_err("refused")
                .starts_with(r#"invalid reference: invalid digest "sha256:x": "#)
        );
        assert_eq!(
            parse_prefix("a b/a:v1"),
            Err(r#"invalid reference: invalid registry "a b""#.into())
        );
        assert_eq!(
            parse_prefix("example.com/Upper"),
            Err(r#"invalid reference: invalid repository "Upper""#.into())
        );
        assert_eq!(
            parse_prefix("example.com/"),
            Err(r#"invalid reference: invalid repository """#.into())
        );
        assert_eq!(
            parse_prefix("https://example.com"),
            Err(r#"invalid reference: invalid registry "https:""#.into())
        );
        assert_eq!(
            parse_prefix("exa mple.com"),
            Err(r#"invalid reference: invalid registry "exa mple.com""#.into())
        );
    }

    #[test]
    fn keys_match_by_whole_segments() {
        let m = oci_auths_key_specificity;
        assert_eq!(
            m("example.net", "example.net", ""),
            Some(OciSpecificity::Domain)
        );
        assert_eq!(m("example.net/foo", "example.net", ""), None);
        assert_eq!(m("example.net/fo", "example.net", "foo"), None);
        assert_eq!(
            m("https://index.docker.io/v1/", "index.docker.io", "x"),
            None
        );
        assert_eq!(m("Example.net", "example.net", "x"), None);
        assert_eq!(m("", "", ""), None);
        assert_eq!(
            m("example.net/a/b/c", "example.net", "a/b/c/d"),
            Some(OciSpecificity::Repository(3))
        );
        assert_eq!(OciSpecificity::Repository(2).to_string(), "repository(2)");
    }
}
