//! Module package addresses: what `init` downloads a module from — a module
//! registry's download location, or a module block's `source` that is
//! neither a local path nor a registry address — parsed as Terraform's
//! `moduleaddrs.ParseModuleSource` and OpenTofu's `addrs.ParseModuleSource`
//! parse them (docs/behaviour.md, PKG-1 to PKG-9).

mod detect;
mod getter;
mod go_url;
mod page_source;

use std::fmt;

use super::SourceError;
use super::module::split_subdir;
use crate::go_clean;
use crate::{Dialect, ModuleSource, go_quote};
use detect::{forced_getter, join};
use getter::archive;
use go_url::{GoUrl, Query, encode_query, query_get};

pub use detect::PackageDetector;
pub use getter::Getter;

/// The prefixes that make a source a local path.
const LOCAL_PREFIXES: [&str; 4] = ["./", "../", ".\\", "..\\"];

/// A module `source` as `init` reads it (Go's `addrs.ModuleSource`): a local
/// path, a module registry address, or a remote package.
///
/// ```
/// use tfdisco_core::{Dialect, ModuleAddress};
///
/// let parse = |s| ModuleAddress::parse(s, Dialect::Terraform);
/// assert!(matches!(parse("./vpc")?, ModuleAddress::Local(path) if path == "./vpc"));
/// assert!(matches!(parse("hashicorp/consul/aws")?, ModuleAddress::Registry(_)));
/// let ModuleAddress::Remote(package) = parse("github.com/acme/vpc//modules/subnet?ref=v1")? else {
///     unreachable!()
/// };
/// assert_eq!(package.address(), "git::https://github.com/acme/vpc.git?ref=v1");
/// assert_eq!(package.subdir(), "modules/subnet");
/// # Ok::<(), tfdisco_core::SourceError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleAddress {
    /// A path starting `./` or `../` (or with backslashes), cleaned: always
    /// `./…` or `../…`, with forward slashes.
    Local(String),
    /// A module registry address.
    Registry(ModuleSource),
    /// A package to download.
    Remote(ModulePackage),
}

impl ModuleAddress {
    /// Parses a module source as `init` does: a local path first, then a
    /// registry address (whatever parses as one is one), then a remote
    /// package (PKG-1).
    pub fn parse(given: &str, dialect: Dialect) -> Result<ModuleAddress, SourceError> {
        if LOCAL_PREFIXES.iter().any(|p| given.starts_with(p)) {
            let path = go_clean(&given.replace('\\', "/"));
            return Ok(ModuleAddress::Local(if path.starts_with("../") {
                path
            } else {
                format!("./{path}")
            }));
        }
        if let Ok(source) = ModuleSource::parse(given, dialect) {
            return Ok(ModuleAddress::Registry(source));
        }
        ModulePackage::parse_remote(given, dialect).map(ModuleAddress::Remote)
    }
}

/// Go's `String`.
impl fmt::Display for ModuleAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleAddress::Local(path) => f.write_str(path),
            ModuleAddress::Registry(source) => source.fmt(f),
            ModuleAddress::Remote(package) => package.fmt(f),
        }
    }
}

/// A remote module package: a go-getter address with its getter spelled
/// out (`git::https://…`, `https://….zip`, `s3::https://…`), the
/// subdirectory the module is in, and the query parts the getter reads.
///
/// ```
/// use tfdisco_core::{Dialect, Getter, ModulePackage};
///
/// let package = ModulePackage::parse(
///     "git@github.com:acme/vpc.git//modules/subnet?ref=v1.2.0&depth=1",
///     Dialect::Terraform,
/// )?;
/// assert_eq!(package.getter(), Some(Getter::Git));
/// assert_eq!(package.address(), "git::ssh://git@github.com/acme/vpc.git?depth=1&ref=v1.2.0");
/// assert_eq!(package.subdir(), "modules/subnet");
/// assert_eq!(package.revision(), Some("v1.2.0"));
/// assert_eq!(package.depth(), Some(1));
///
/// // An address `init` cannot read.
/// let error = ModulePackage::parse("?archive=zip", Dialect::Terraform).unwrap_err();
/// assert_eq!(
///     error.message(),
///     "Terraform cannot detect a supported external module source type for ?archive=zip"
/// );
/// # Ok::<(), tfdisco_core::SourceError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ModulePackage {
    given: String,
    address: String,
    /// The length of the `getter::` prefix of `address` (0 when none).
    forced: usize,
    subdir: String,
    getter_name: String,
    getter: Option<Getter>,
    /// Whether go-getter can read the URL (it can read every URL detection
    /// makes; checked so nothing is assumed).
    readable: bool,
    revision: Option<String>,
    depth: Option<u64>,
    /// Git's `sshkey`: a private key, in base64. Never shown.
    ssh_key: Option<String>,
    archive: Option<String>,
    checksum: Option<String>,
}

impl ModulePackage {
    /// Parses `given` as `init` parses a registry's download location: it
    /// must be a remote package — not a local path nor a registry address
    /// ("must be a direct remote package address") — that detection can
    /// read (PKG-1 to PKG-6). Errors carry the CLI's words.
    pub fn parse(given: &str, dialect: Dialect) -> Result<ModulePackage, SourceError> {
        match ModuleAddress::parse(given, dialect)? {
            ModuleAddress::Remote(package) => Ok(package),
            ModuleAddress::Local(_) | ModuleAddress::Registry(_) => {
                Err(SourceError::new("must be a direct remote package address"))
            }
        }
    }

    /// Go's `parseModuleSourceRemote`: the subdirectory split off and
    /// checked, the rest detected, a subdirectory detection adds joined in
    /// front (PKG-2).
    fn parse_remote(given: &str, dialect: Dialect) -> Result<ModulePackage, SourceError> {
        let (raw, mut subdir) = split_subdir(given);
        if subdir.starts_with("../") {
            return Err(SourceError::new(format!(
                "subdirectory path {} leads outside of the module package",
                go_quote(&subdir)
            )));
        }
        let detected = detect::detect(&raw, dialect).map_err(SourceError::new)?;
        let (address, detected_subdir) = split_subdir(&detected);
        if !detected_subdir.is_empty() {
            subdir = if subdir.is_empty() {
                detected_subdir
            } else {
                join(&detected_subdir, &subdir)
            };
            if subdir.starts_with("../") {
                return Err(SourceError::new(format!(
                    "detected subdirectory path {} of {} leads outside of the module package",
                    go_quote(&subdir),
                    go_quote(&address)
                )));
            }
        }
        Ok(ModulePackage::new(given, address, subdir, dialect))
    }

    fn new(given: &str, address: String, subdir: String, dialect: Dialect) -> ModulePackage {
        let (forced, url) = forced_getter(&address);
        let (getter_name, query, path, readable) = match GoUrl::parse(url.as_bytes()) {
            Ok(parsed) => {
                let name = if forced.is_empty() {
                    parsed.scheme.clone()
                } else {
                    forced.to_owned()
                };
                let readable = !parsed.scheme.is_empty();
                (name, parsed.query(), parsed.path, readable)
            }
            Err(_) => (forced.to_owned(), Query::new(), Vec::new(), false),
        };
        let getter = Getter::named(&getter_name, dialect);
        let get = |key| query_get(&query, key).filter(|v| !v.is_empty());
        let forced = if forced.is_empty() {
            0
        } else {
            forced.len() + 2
        };
        ModulePackage {
            given: given.to_owned(),
            forced,
            subdir,
            revision: match getter {
                Some(Getter::Git) => get("ref"),
                Some(Getter::Hg) => get("rev"),
                _ => None,
            },
            depth: get("depth")
                .filter(|_| getter == Some(Getter::Git))
                .and_then(|d| d.parse::<i64>().ok())
                .and_then(|d| u64::try_from(d).ok())
                .filter(|&d| d > 0),
            ssh_key: get("sshkey").filter(|_| getter == Some(Getter::Git)),
            archive: archive(get("archive"), &path, dialect),
            checksum: get("checksum"),
            getter_name,
            getter,
            readable,
            address,
        }
    }

    /// Detection alone (Terraform's `detectRemoteSourceShorthands`,
    /// OpenTofu's `getter.Detect` with its detectors, no working
    /// directory): `address` with its getter spelled out, a subdirectory
    /// left in place (PKG-3 to PKG-6).
    pub fn detect(address: &str, dialect: Dialect) -> Result<String, SourceError> {
        detect::detect(address, dialect).map_err(SourceError::new)
    }

    /// Splits `//subdir` off an address as go-getter does (a `scheme://`
    /// and a `?query` are skipped over, the query stays on the address) and
    /// cleans the subdirectory like a path (Go's `SplitPackageSubdir`).
    pub fn split_subdir(address: &str) -> (String, String) {
        split_subdir(address)
    }

    /// The text parsed.
    pub fn given(&self) -> &str {
        &self.given
    }

    /// The package address `init` downloads (Go's `ModulePackage`): the
    /// forced getter if any, the URL, its query; no subdirectory.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The address without its `getter::` prefix: what the getter fetches.
    pub fn url(&self) -> &str {
        &self.address[self.forced..]
    }

    /// The subdirectory of the package the module is in (after `//`),
    /// cleaned; empty when none. A glob such as `*` is kept.
    pub fn subdir(&self) -> &str {
        &self.subdir
    }

    /// The getter that downloads the package: the forced one, else the
    /// URL's scheme. `None` when the dialect's `init` has no getter of that
    /// name ([`getter_name`](Self::getter_name)), so it cannot download it.
    pub fn getter(&self) -> Option<Getter> {
        self.getter
    }

    /// The getter's name as the address gives it (`git`, `https`, `ftp`).
    pub fn getter_name(&self) -> &str {
        &self.getter_name
    }

    /// Whether the getter was forced with a `getter::` prefix.
    pub fn is_forced(&self) -> bool {
        self.forced > 0
    }

    /// The revision checked out: Git's `ref`, Mercurial's `rev`.
    pub fn revision(&self) -> Option<&str> {
        self.revision.as_deref()
    }

    /// Git's `depth` when it asks for a shallow clone (a positive integer;
    /// go-getter ignores any other value).
    pub fn depth(&self) -> Option<u64> {
        self.depth
    }

    /// Whether the address carries a Git `sshkey` (a private key, in
    /// base64; never shown).
    pub fn has_ssh_key(&self) -> bool {
        self.ssh_key.is_some()
    }

    /// Git's `sshkey` as go-getter reads it from the query (unescaped): a
    /// private key in standard base64. Never show it; show an address
    /// through [`without_ssh_key`] instead.
    pub fn ssh_key(&self) -> Option<&str> {
        self.ssh_key.as_deref()
    }

    /// The URL as go-getter names it in an error (`error downloading
    /// 'URL': …`): the getter's URL with `archive` and `checksum` taken out
    /// of the query and the query encoded again (keys sorted), a password
    /// and any `sshkey` value shown as `redacted` (go-getter's
    /// `RedactURL`).
    pub fn redacted_url(&self) -> String {
        let Ok(mut url) = GoUrl::parse(self.url().as_bytes()) else {
            return without_ssh_key(self.url()).into_owned();
        };
        let mut query = url.query();
        query.remove(&b"archive"[..]);
        query.remove(&b"checksum"[..]);
        if let Some((_, Some(password))) = &mut url.user {
            *password = REDACTED.as_bytes().to_vec();
        }
        if query_get(&query, "sshkey").is_some_and(|key| !key.is_empty()) {
            query.insert(b"sshkey".to_vec(), vec![REDACTED.as_bytes().to_vec()]);
        }
        url.raw_query = encode_query(&query);
        url.to_text()
    }

    /// The archive format go-getter unpacks the download as (`zip`,
    /// `tar.gz`, …): `?archive=`, else the path's extension; `None` when
    /// nothing is unpacked (`?archive=false`, an unknown format, no
    /// archive extension).
    pub fn archive(&self) -> Option<&str> {
        self.archive.as_deref()
    }

    /// `?checksum=` as given (`sha256:…`, `file:URL`), which go-getter checks
    /// the download against.
    pub fn checksum(&self) -> Option<&str> {
        self.checksum.as_deref()
    }

    /// The subdirectory of the module a registry source names: this
    /// package's subdirectory joined with the source's own `//subdir`, as
    /// both CLIs join them (Go's `FromRegistry`).
    pub fn join_subdir(&self, registry_subdir: &str) -> String {
        match (self.subdir.is_empty(), registry_subdir.is_empty()) {
            (false, false) => join(&self.subdir, registry_subdir),
            (_, false) => registry_subdir.to_owned(),
            _ => self.subdir.clone(),
        }
    }

    /// A registry's download location as `init` takes it: a package
    /// [`parse`](Self::parse) accepts and a getter exists for (PKG-1,
    /// PKG-7). The error is the CLI's words.
    pub(crate) fn from_location(location: &str, dialect: Dialect) -> Result<ModulePackage, String> {
        let package = ModulePackage::parse(location, dialect).map_err(|e| e.to_string())?;
        match package.download_refusal() {
            Some(refusal) => Err(refusal),
            None => Ok(package),
        }
    }

    /// Why `init` would refuse to download the package before fetching
    /// anything: go-getter's `download not supported for scheme 'ftp'`
    /// (its `invalid source string` for a URL it cannot read, which
    /// detection never makes).
    fn download_refusal(&self) -> Option<String> {
        if !self.readable {
            Some(format!("invalid source string: {}", self.address))
        } else if self.getter.is_none() {
            Some(format!(
                "download not supported for scheme '{}'",
                self.getter_name
            ))
        } else {
            None
        }
    }
}

/// The fields, with every `sshkey` value left out ([`without_ssh_key`]).
impl fmt::Debug for ModulePackage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModulePackage")
            .field("given", &without_ssh_key(&self.given))
            .field("address", &without_ssh_key(&self.address))
            .field("subdir", &self.subdir)
            .field("getter_name", &self.getter_name)
            .field("getter", &self.getter)
            .field("revision", &self.revision)
            .field("depth", &self.depth)
            .field("ssh_key", &self.ssh_key.as_ref().map(|_| REDACTED))
            .field("archive", &self.archive)
            .field("checksum", &self.checksum)
            .finish_non_exhaustive()
    }
}

/// What stands for an `sshkey` value in [`without_ssh_key`].
const REDACTED: &str = "redacted";

/// `text` (a source address, or a message holding some) with the value
/// of every `sshkey=` query parameter replaced by `redacted` (go-getter's word): what is shown
/// of a Git address that carries a private key. `sshkey` counts where it
/// starts a parameter (after `?` or `&`); its value runs to the next `&`,
/// `#`, quote or white space.
///
/// ```
/// use tfdisco_core::without_ssh_key;
///
/// assert_eq!(
///     without_ssh_key("git::ssh://git@h/r.git?sshkey=a2V5&ref=v1"),
///     "git::ssh://git@h/r.git?sshkey=redacted&ref=v1"
/// );
/// assert_eq!(without_ssh_key("git::https://h/r.git?ref=v1"), "git::https://h/r.git?ref=v1");
/// ```
pub fn without_ssh_key(text: &str) -> std::borrow::Cow<'_, str> {
    const NAME: &str = "sshkey=";
    let starts = |i: usize| {
        text[i..].starts_with(NAME) && i > 0 && matches!(text.as_bytes()[i - 1], b'?' | b'&')
    };
    if !text.match_indices(NAME).any(|(i, _)| starts(i)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    for (i, _) in text.match_indices(NAME) {
        if i < rest || !starts(i) {
            continue;
        }
        let value = i + NAME.len();
        let end = text[value..]
            .find(|c: char| matches!(c, '&' | '#' | '"' | '\'' | '`') || c.is_whitespace())
            .map_or(text.len(), |n| value + n);
        out.push_str(&text[rest..value]);
        if end > value {
            out.push_str(REDACTED);
        }
        rest = end;
    }
    out.push_str(&text[rest..]);
    std::borrow::Cow::Owned(out)
}

/// Go's `ModuleSourceRemote.String`: the address with `//subdir` before
/// its query.
impl fmt::Display for ModulePackage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.subdir.is_empty() {
            return f.write_str(&self.address);
        }
        match self.address.split_once('?') {
            Some((base, query)) => write!(f, "{base}//{}?{query}", self.subdir),
            None => write!(f, "{}//{}", self.address, self.subdir),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(s: &str) -> ModulePackage {
        ModulePackage::parse(s, Dialect::Terraform).expect(s)
    }

    #[test]
    fn every_ssh_key_value_is_left_out_and_nothing_else() {
        for (text, shown) in [
            ("h/r?sshkey=a2V5", "h/r?sshkey=redacted"),
            (
                "h/r?ref=v1&sshkey=a2V5&depth=1",
                "h/r?ref=v1&sshkey=redacted&depth=1",
            ),
            (
                r#"from "git::ssh://h/r?sshkey=a+/=": no"#,
                r#"from "git::ssh://h/r?sshkey=redacted": no"#,
            ),
            (
                "h/r?sshkey=a&sshkey=b#x",
                "h/r?sshkey=redacted&sshkey=redacted#x",
            ),
            ("h/r?sshkey=&ref=v1", "h/r?sshkey=&ref=v1"),
            ("h/r?xsshkey=a2V5", "h/r?xsshkey=a2V5"),
            ("h/sshkey=a2V5", "h/sshkey=a2V5"),
            ("sshkey=a2V5", "sshkey=a2V5"),
        ] {
            assert_eq!(without_ssh_key(text), shown, "{text}");
        }
    }

    #[test]
    fn query_parts_per_getter() {
        let git = package("git::https://h/r.git?ref=v1&depth=2&sshkey=a2V5&archive=false");
        assert_eq!(git.getter(), Some(Getter::Git));
        assert_eq!(
            git.url(),
            "https://h/r.git?ref=v1&depth=2&sshkey=a2V5&archive=false"
        );
        assert!(git.is_forced());
        assert_eq!(
            (git.revision(), git.depth(), git.has_ssh_key()),
            (Some("v1"), Some(2), true)
        );
        assert_eq!(git.archive(), None);
        assert_eq!(git.ssh_key(), Some("a2V5"));
        assert!(!format!("{git:?}").contains("a2V5"), "{git:?}");
        assert_eq!(
            package("git::ssh://g@h/r.git?sshkey=a%2BV5%3D").ssh_key(),
            Some("a+V5=")
        );
        assert_eq!(package("https://h/r.zip?sshkey=a2V5").ssh_key(), None);
        for (address, shown) in [
            (
                "git::ssh://u@h:22/r.git?ref=v1&sshkey=a2V5%2B&depth=1",
                "ssh://u@h:22/r.git?depth=1&ref=v1&sshkey=redacted",
            ),
            (
                "git::https://h/r.git?ref=v1&depth=1",
                "https://h/r.git?depth=1&ref=v1",
            ),
            ("git::https://u:pw@h/r.git", "https://u:redacted@h/r.git"),
            (
                "git::https://h/r.git?archive=zip&checksum=x",
                "https://h/r.git",
            ),
            (
                "git::https://h/r.git?x=a%20b&sshkey=",
                "https://h/r.git?sshkey=&x=a+b",
            ),
        ] {
            assert_eq!(package(address).redacted_url(), shown, "{address}");
        }
        for (depth, want) in [
            ("0", None),
            ("-1", None),
            ("%2B3", Some(3)),
            ("+3", None),
            ("x", None),
            ("007", Some(7)),
        ] {
            assert_eq!(
                package(&format!("git::https://h/r?depth={depth}")).depth(),
                want,
                "{depth}"
            );
        }
        let hg = package("hg::https://h/r?rev=abc&ref=no");
        assert_eq!(
            (hg.getter(), hg.revision()),
            (Some(Getter::Hg), Some("abc"))
        );
        let http = package("https://h/m.tar.gz?ref=no&checksum=sha256:00");
        assert_eq!(http.getter(), Some(Getter::Https));
        assert!(!http.is_forced());
        assert_eq!((http.revision(), http.archive()), (None, Some("tar.gz")));
        assert_eq!(http.checksum(), Some("sha256:00"));
        assert_eq!(package("https://h/m?archive=zip").archive(), Some("zip"));
        assert_eq!(package("https://h/m?archive=rar").archive(), None);
        assert_eq!(package("https://h/m.tbz2").archive(), Some("tbz2"));
        let tofu = ModulePackage::parse("https://h/m.tbz2", Dialect::OpenTofu).expect("parses");
        assert_eq!(tofu.archive(), None);
        assert_eq!(package("https://h/zip").archive(), None);
    }

    #[test]
    fn getters_init_has() {
        assert_eq!(package("HTTPS://h/x").getter(), Some(Getter::Https));
        let upper = package("GIT::https://h/x");
        assert_eq!((upper.getter(), upper.getter_name()), (None, "GIT"));
        assert_eq!(
            upper.download_refusal().as_deref(),
            Some("download not supported for scheme 'GIT'")
        );
        assert_eq!(package("oci://r/x").getter(), None);
        // Detection can make a URL go-getter cannot read: a path with a
        // control character (never a registry's location: it starts `/`).
        let odd = package("/a\u{1}b");
        assert_eq!(odd.address(), "file:///a\u{1}b");
        assert_eq!(
            odd.download_refusal().as_deref(),
            Some("invalid source string: file:///a\u{1}b")
        );
        let tofu = ModulePackage::parse("oci://r/x", Dialect::OpenTofu).expect("parses");
        assert_eq!(tofu.getter(), Some(Getter::Oci));
        assert_eq!(tofu.download_refusal(), None);
    }

    #[test]
    fn subdirs_join_as_from_registry() {
        let p = package("https://h/x//a/b?q=1");
        assert_eq!(p.to_string(), "https://h/x//a/b?q=1");
        assert_eq!(p.join_subdir("c/../d"), "a/b/d");
        assert_eq!(p.join_subdir(""), "a/b");
        assert_eq!(package("https://h/x").join_subdir("c"), "c");
    }

    #[test]
    fn local_and_registry_addresses_are_not_packages() {
        for s in [
            "./x",
            ".\\x",
            "../x",
            "hashicorp/consul/aws",
            "example.com/a/b/c//d",
        ] {
            assert_eq!(
                ModulePackage::parse(s, Dialect::OpenTofu).map_err(|e| e.to_string()),
                Err("must be a direct remote package address".to_owned()),
                "{s}"
            );
        }
    }
}
