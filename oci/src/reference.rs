//! Where an artifact lives: a registry, a repository in it (OCI-1), and a
//! tag or digest in that repository (OCI-2).

use std::fmt;
use std::str::FromStr;

use tfdisco_core::go_quote;
use url::Url;

use crate::Digest;

/// A registry (`host[:port]`) and a repository in it, as ORAS checks them:
/// the repository is path components of lowercase letters and digits
/// separated by `.`, `_`, `__` or dashes, joined by `/` (the distribution
/// specification's grammar).
///
/// ```
/// use tfdisco_oci::RepositoryAddress;
/// let a = RepositoryAddress::parse("ghcr.io/opentofu/providers/aws")?;
/// assert_eq!((a.registry(), a.repository()), ("ghcr.io", "opentofu/providers/aws"));
/// assert_eq!(a.to_string(), "ghcr.io/opentofu/providers/aws");
/// assert!(RepositoryAddress::parse("ghcr.io/Upper").is_err());
/// # Ok::<(), tfdisco_oci::InvalidReference>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepositoryAddress {
    registry: Box<str>,
    repository: Box<str>,
    /// `https://REGISTRY/v2/`, made when the address is.
    api_root: Url,
}

/// A text that is not a usable repository address, tag or reference. The
/// messages are ORAS's, as OpenTofu prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidReference(String);

impl fmt::Display for InvalidReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidReference {}

impl RepositoryAddress {
    /// `REGISTRY/REPOSITORY`, split at the first `/`; no tag or digest.
    pub fn parse(address: &str) -> Result<RepositoryAddress, InvalidReference> {
        let (registry, repository) = address.split_once('/').unwrap_or((address, ""));
        if registry.is_empty() {
            return Err(InvalidReference(format!(
                "invalid reference: missing registry in {}",
                go_quote(address)
            )));
        }
        if repository.contains([':', '@']) {
            return Err(InvalidReference(
                "invalid reference: artifact tag or digest not allowed".to_owned(),
            ));
        }
        RepositoryAddress::new(registry, repository)
    }

    /// A registry and a repository in it.
    pub fn new(registry: &str, repository: &str) -> Result<RepositoryAddress, InvalidReference> {
        if !valid_registry(registry) {
            return Err(InvalidReference(format!(
                "invalid reference: invalid registry {}",
                go_quote(registry)
            )));
        }
        if !repository.split('/').all(valid_path_component) {
            return Err(InvalidReference(format!(
                "invalid reference: invalid repository {}",
                go_quote(repository)
            )));
        }
        let api_root = Url::parse(&format!("https://{registry}/v2/")).map_err(|e| {
            InvalidReference(format!(
                "invalid reference: invalid registry {}: {e}",
                go_quote(registry)
            ))
        })?;
        Ok(RepositoryAddress {
            registry: registry.into(),
            repository: repository.into(),
            api_root,
        })
    }

    /// The registry: a host, with its port if one was given.
    pub fn registry(&self) -> &str {
        &self.registry
    }

    /// The repository's name in the registry.
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// The registry's API root, `https://REGISTRY/v2/`.
    pub fn api_root(&self) -> Url {
        self.api_root.clone()
    }

    /// The URL of the manifest or index `reference` names:
    /// `https://REGISTRY/v2/NAME/manifests/REFERENCE`.
    ///
    /// ```
    /// use tfdisco_oci::{Reference, RepositoryAddress};
    /// let a = RepositoryAddress::parse("ghcr.io/opentofu/aws")?;
    /// let tag = Reference::Tag("1.0.0".parse()?);
    /// assert_eq!(
    ///     a.manifest_url(&tag).as_str(),
    ///     "https://ghcr.io/v2/opentofu/aws/manifests/1.0.0"
    /// );
    /// # Ok::<(), tfdisco_oci::InvalidReference>(())
    /// ```
    pub fn manifest_url(&self, reference: &Reference) -> Url {
        self.endpoint(&format!("manifests/{reference}"))
    }

    /// The URL of the blob `digest` names:
    /// `https://REGISTRY/v2/NAME/blobs/DIGEST`.
    ///
    /// ```
    /// use tfdisco_oci::{Algorithm, Digest, RepositoryAddress};
    /// let a = RepositoryAddress::parse("ghcr.io/opentofu/aws")?;
    /// let digest = Digest::of(Algorithm::Sha256, b"{}");
    /// assert_eq!(
    ///     a.blob_url(&digest).as_str(),
    ///     format!("https://ghcr.io/v2/opentofu/aws/blobs/{digest}")
    /// );
    /// # Ok::<(), tfdisco_oci::InvalidReference>(())
    /// ```
    pub fn blob_url(&self, digest: &Digest) -> Url {
        self.endpoint(&format!("blobs/{digest}"))
    }

    /// The URL of the repository's tag list (its first page):
    /// `https://REGISTRY/v2/NAME/tags/list`.
    ///
    /// ```
    /// use tfdisco_oci::RepositoryAddress;
    /// let a = RepositoryAddress::parse("127.0.0.1:5000/p/q")?;
    /// assert_eq!(a.tags_url().as_str(), "https://127.0.0.1:5000/v2/p/q/tags/list");
    /// # Ok::<(), tfdisco_oci::InvalidReference>(())
    /// ```
    pub fn tags_url(&self) -> Url {
        self.endpoint("tags/list")
    }

    /// The URL that opens a blob upload (a `POST`):
    /// `https://REGISTRY/v2/NAME/blobs/uploads/`.
    ///
    /// ```
    /// use tfdisco_oci::RepositoryAddress;
    /// let a = RepositoryAddress::parse("ghcr.io/opentofu/aws")?;
    /// assert_eq!(a.upload_url().as_str(), "https://ghcr.io/v2/opentofu/aws/blobs/uploads/");
    /// # Ok::<(), tfdisco_oci::InvalidReference>(())
    /// ```
    pub fn upload_url(&self) -> Url {
        self.endpoint("blobs/uploads/")
    }

    /// The upload URL asking to mount the blob `digest` from the
    /// repository `from` of the same registry (`?mount=DIGEST&from=NAME`):
    /// the registry answers `201` when it mounted the blob, else `202` and
    /// an ordinary upload session. Only `from`'s repository is sent: the
    /// caller checks that it is on this registry.
    ///
    /// ```
    /// use tfdisco_oci::{Algorithm, Digest, RepositoryAddress};
    /// let a = RepositoryAddress::parse("ghcr.io/opentofu/aws")?;
    /// let from = RepositoryAddress::parse("ghcr.io/opentofu/base")?;
    /// let digest = Digest::of(Algorithm::Sha256, b"{}");
    /// assert_eq!(
    ///     a.mount_url(&digest, &from).as_str(),
    ///     format!(
    ///         "https://ghcr.io/v2/opentofu/aws/blobs/uploads/?mount=sha256%3A{}&from=opentofu%2Fbase",
    ///         digest.hex()
    ///     )
    /// );
    /// # Ok::<(), tfdisco_oci::InvalidReference>(())
    /// ```
    pub fn mount_url(&self, digest: &Digest, from: &RepositoryAddress) -> Url {
        let mut url = self.upload_url();
        url.query_pairs_mut()
            .append_pair("mount", &digest.to_string())
            .append_pair("from", from.repository());
        url
    }

    /// `https://REGISTRY/v2/NAME/` and `rest`.
    fn endpoint(&self, rest: &str) -> Url {
        // The repository's components, a tag and a digest have no
        // character a URL path would read otherwise (`:` only after the
        // first `/`), so the join cannot fail.
        self.api_root
            .join(&format!("{}/{rest}", self.repository))
            .expect("a repository's path is a relative URL")
    }
}

impl fmt::Display for RepositoryAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)
    }
}

impl fmt::Debug for RepositoryAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RepositoryAddress({self})")
    }
}

/// `host[:port]` as a URL authority with nothing else (ORAS parses
/// `dummy://REGISTRY` and wants its host back).
fn valid_registry(registry: &str) -> bool {
    if registry.is_empty() || registry.contains(['/', '@', '?', '#', '\\']) {
        return false;
    }
    let Ok(url) = Url::parse(&format!("https://{registry}/")) else {
        return false;
    };
    let host = url.host_str().unwrap_or_default();
    let authority = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    authority.eq_ignore_ascii_case(registry) && url.path() == "/"
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`, the distribution specification's
/// path component.
fn valid_path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.first().is_none_or(|&b| !alnum(b)) || bytes.last().is_none_or(|&b| !alnum(b)) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let sep = &component[start..i];
        if !(sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|b| b == b'-')) {
            return false;
        }
    }
    true
}

/// A tag: `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`.
///
/// ```
/// use tfdisco_oci::Tag;
/// assert_eq!("1.2.0_beta.1".parse::<Tag>()?.as_str(), "1.2.0_beta.1");
/// assert!("1.2.0+beta".parse::<Tag>().is_err());
/// # Ok::<(), tfdisco_oci::InvalidReference>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(Box<str>);

impl Tag {
    /// The tag's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for Tag {
    type Err = InvalidReference;

    fn from_str(text: &str) -> Result<Tag, InvalidReference> {
        let bytes = text.as_bytes();
        let first = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let rest = |b: u8| first(b) || b == b'.' || b == b'-';
        if bytes.len() > 128 || !bytes.first().is_some_and(|&b| first(b)) {
            return Err(invalid_tag(text));
        }
        if !bytes[1..].iter().all(|&b| rest(b)) {
            return Err(invalid_tag(text));
        }
        Ok(Tag(text.into()))
    }
}

fn invalid_tag(text: &str) -> InvalidReference {
    InvalidReference(format!("invalid reference: invalid tag {}", go_quote(text)))
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag({})", self.0)
    }
}

/// What names a manifest in a repository: a tag or a digest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reference {
    /// A tag (which may move).
    Tag(Tag),
    /// A digest (which names exactly one manifest).
    Digest(Digest),
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reference::Tag(tag) => tag.fmt(f),
            Reference::Digest(digest) => digest.fmt(f),
        }
    }
}

impl From<Tag> for Reference {
    fn from(tag: Tag) -> Reference {
        Reference::Tag(tag)
    }
}

impl From<Digest> for Reference {
    fn from(digest: Digest) -> Reference {
        Reference::Digest(digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_addresses() {
        for (text, want) in [
            ("example.net/a/b", Ok(("example.net", "a/b"))),
            ("127.0.0.1:5000/x", Ok(("127.0.0.1:5000", "x"))),
            ("[::1]:5000/x", Ok(("[::1]:5000", "x"))),
            (
                "r.example/a__b.c-d--e/f_g",
                Ok(("r.example", "a__b.c-d--e/f_g")),
            ),
            ("/a", Err("missing registry")),
            ("r.example/a:1.0", Err("tag or digest")),
            ("r.example/a@sha256:00", Err("tag or digest")),
            ("r.example/A", Err("invalid repository")),
            ("r.example/a//b", Err("invalid repository")),
            ("r.example/a___b", Err("invalid repository")),
            ("r.example/-a", Err("invalid repository")),
            ("r.example", Err("invalid repository")),
            ("user@r.example/a", Err("invalid registry")),
            ("r.example:port/a", Err("invalid registry")),
        ] {
            let got = RepositoryAddress::parse(text);
            match (want, got) {
                (Ok((registry, repository)), Ok(a)) => {
                    assert_eq!(
                        (a.registry(), a.repository()),
                        (registry, repository),
                        "{text}"
                    );
                }
                (Err(problem), Err(e)) => assert!(e.0.contains(problem), "{text}: {e}"),
                (want, got) => panic!("{text}: want {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn urls() {
        let a = RepositoryAddress::parse("127.0.0.1:5000/p/q").expect("valid");
        assert_eq!(a.api_root().as_str(), "https://127.0.0.1:5000/v2/");
        let digest: Digest =
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
                .parse()
                .expect("a digest");
        let tag = Reference::Tag("1.0.0_rc-1".parse().expect("a tag"));
        let from = RepositoryAddress::parse("127.0.0.1:5000/base/x").expect("valid");
        for (url, want) in [
            (a.tags_url(), "https://127.0.0.1:5000/v2/p/q/tags/list"),
            (
                a.manifest_url(&tag),
                "https://127.0.0.1:5000/v2/p/q/manifests/1.0.0_rc-1",
            ),
            (
                a.manifest_url(&Reference::Digest(digest.clone())),
                "https://127.0.0.1:5000/v2/p/q/manifests/sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            ),
            (
                a.blob_url(&digest),
                "https://127.0.0.1:5000/v2/p/q/blobs/sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            ),
            (
                a.upload_url(),
                "https://127.0.0.1:5000/v2/p/q/blobs/uploads/",
            ),
            (
                a.mount_url(&digest, &from),
                "https://127.0.0.1:5000/v2/p/q/blobs/uploads/?mount=sha256%3A44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a&from=base%2Fx",
            ),
        ] {
            assert_eq!(url.as_str(), want);
        }
        // Every repository the grammar allows, and every tag, stays in the
        // path: the separators and a leading digit are not read as a scheme,
        // a host or a query.
        let odd = RepositoryAddress::parse("[::1]:5000/a__b.c-d--e/0_g").expect("valid");
        let tag = Reference::Tag("_x.y-z".parse().expect("a tag"));
        assert_eq!(
            odd.manifest_url(&tag).as_str(),
            "https://[::1]:5000/v2/a__b.c-d--e/0_g/manifests/_x.y-z"
        );
    }

    #[test]
    fn tags() {
        let longest = "a".repeat(128);
        for ok in ["latest", "_x", "1.0.0-rc.1", "v1_2", longest.as_str()] {
            assert!(ok.parse::<Tag>().is_ok(), "{ok}");
        }
        let too_long = "a".repeat(129);
        for bad in ["", ".x", "-x", "1+2", "a/b", "a b", too_long.as_str()] {
            assert!(bad.parse::<Tag>().is_err(), "{bad}");
        }
    }
}
