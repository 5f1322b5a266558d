//! The provider network mirror protocol, a fourth use of the transfer engine
//! (docs/behaviour.md, MIRROR-1 to MIRROR-9): a provider's versions from
//! `<base>/<host>/<namespace>/<type>/index.json`, a version's archives from
//! `<base>/<host>/<namespace>/<type>/<version>.json`, as Terraform's and
//! OpenTofu's `HTTPMirrorSource` read them, with the engine's rules for
//! redirects, retries, limits and credentials (the mirror host's, never
//! over http).
//!
//! ```
//! use tfdisco_core::{Dialect, NetworkMirror, ProviderSource, Version};
//!
//! let mirror = NetworkMirror::parse("https://mirror.example.com/providers/")?;
//! let source = ProviderSource::parse("127.0.0.1:8443/ns/alpha", Dialect::Terraform)?;
//! // The host's port stays in its path segment (D19).
//! assert_eq!(
//!     mirror.versions_url(&source).as_str(),
//!     "https://mirror.example.com/providers/127.0.0.1:8443/ns/alpha/index.json"
//! );
//! let version = Version::parse("1.1.0", Dialect::Terraform)?;
//! assert_eq!(
//!     mirror.archives_url(&source, &version).as_str(),
//!     "https://mirror.example.com/providers/127.0.0.1:8443/ns/alpha/1.1.0.json"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use url::Url;

use crate::config::plain_http_allowed;
use crate::registry_api::{
    Extent, RegistryCall, nullable, parse_json, read_ok, read_ok_or, registry_goal, wrap,
};
use crate::transfer::{Goal, Next, Transfer};
use crate::version::Version;
use crate::{
    Config, Credentials, Dialect, Error, Hostname, Platform, ProviderSource, StartError, go_quote,
};

/// A provider network mirror: the base URL its documents are under
/// (`-net-mirror=URL`, a `network_mirror { url = … }` block).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NetworkMirror {
    base: Url,
    host: Hostname,
}

impl NetworkMirror {
    /// A mirror at `base`, which must be an `https:` URL with a host
    /// (MIRROR-1). Its credentials are those of that host, port included.
    pub fn new(base: Url) -> Result<NetworkMirror, NetworkMirrorUrlError> {
        let refused = || NetworkMirrorUrlError::NotHttps {
            given: base.to_string(),
        };
        if base.scheme() != "https" {
            return Err(refused());
        }
        let Some(name) = base.host_str().filter(|name| !name.is_empty()) else {
            return Err(refused());
        };
        let given = match base.port() {
            Some(port) => format!("{name}:{port}"),
            None => name.to_owned(),
        };
        let host = Hostname::parse(&given).map_err(|e| NetworkMirrorUrlError::Hostname {
            given: base.to_string(),
            problem: e.kind().to_string(),
        })?;
        Ok(NetworkMirror { base, host })
    }

    /// A mirror at the URL `given`, as a `network_mirror` block's `url` or
    /// `-net-mirror` gives it: parsed, then checked as [`NetworkMirror::new`]
    /// checks it. The one check of a mirror's URL, wherever it comes from.
    ///
    /// ```
    /// use tfdisco_core::NetworkMirror;
    ///
    /// assert!(NetworkMirror::parse("https://mirror.example.com/providers/").is_ok());
    /// let error = NetworkMirror::parse("http://mirror.example.com/").unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     r#"Cannot use "http://mirror.example.com/" as a URL for a network provider mirror: the mirror must be at an https: URL"#
    /// );
    /// ```
    pub fn parse(given: &str) -> Result<NetworkMirror, NetworkMirrorUrlError> {
        let url = Url::parse(given).map_err(|e| NetworkMirrorUrlError::Parse {
            given: given.to_owned(),
            problem: e.to_string(),
        })?;
        NetworkMirror::new(url)
    }

    /// The base URL, as given.
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The host whose credentials the mirror's documents are asked with.
    pub fn host(&self) -> &Hostname {
        &self.host
    }

    /// `index.json`'s URL for `source`.
    pub fn versions_url(&self, source: &ProviderSource) -> Url {
        self.endpoint(source, "index.json")
    }

    /// `<version>.json`'s URL for `source`: the version in its normalized
    /// form.
    pub fn archives_url(&self, source: &ProviderSource, version: &Version) -> Url {
        self.endpoint(source, &format!("{version}.json"))
    }

    /// The base resolved as Go resolves a relative path against it (a base
    /// path without a trailing slash loses its last segment; query and
    /// fragment are dropped), then the source's host in comparison form,
    /// namespace, type and `leaf` as path segments (MIRROR-2). Go parses
    /// `host:port/…` as a URL and fails; a segment keeps the port (D19).
    fn endpoint(&self, source: &ProviderSource, leaf: &str) -> Url {
        let mut url = self.base.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop();
            segments.extend([
                source.host().as_str(),
                source.namespace(),
                source.type_name(),
                leaf,
            ]);
        }
        url
    }
}

impl fmt::Display for NetworkMirror {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "provider mirror {}", self.base)
    }
}

/// Why a URL cannot be a network mirror's base (MIRROR-1), in the CLIs'
/// words (the `provider_installation` block's diagnostics add a period).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NetworkMirrorUrlError {
    /// It is not a URL.
    Parse {
        /// What was given.
        given: String,
        /// Why it does not parse.
        problem: String,
    },
    /// It is not an `https:` URL with a host.
    NotHttps {
        /// What was given.
        given: String,
    },
    /// Its host is no valid hostname.
    Hostname {
        /// What was given.
        given: String,
        /// What is wrong with the host.
        problem: String,
    },
}

impl fmt::Display for NetworkMirrorUrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkMirrorUrlError::Parse { given, problem } => write!(
                f,
                "Cannot parse {} as a URL for a network provider mirror: {problem}",
                go_quote(given)
            ),
            NetworkMirrorUrlError::NotHttps { given } => write!(
                f,
                "Cannot use {} as a URL for a network provider mirror: the mirror must be at an \
                 https: URL",
                go_quote(given)
            ),
            NetworkMirrorUrlError::Hostname { given, problem } => {
                write!(f, "invalid provider mirror base URL {given}: {problem}")
            }
        }
    }
}

impl std::error::Error for NetworkMirrorUrlError {}

impl From<NetworkMirrorUrlError> for Error {
    /// [`Error::InvalidArgument`]: a mirror URL is an argument.
    fn from(e: NetworkMirrorUrlError) -> Error {
        Error::InvalidArgument {
            message: e.to_string(),
        }
    }
}

/// A provider's versions as a network mirror lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkMirrorVersions {
    /// The provider asked about.
    pub source: ProviderSource,
    /// The URL `index.json` was read from (after redirects).
    pub url: Url,
    /// The versions, sorted, each once.
    pub versions: Vec<Version>,
    /// Keys that are no version, skipped as the CLIs skip them.
    pub skipped: Vec<String>,
}

/// A version's archives as a network mirror lists them in `<version>.json`.
/// Only the entry of a platform asked for is checked
/// ([`NetworkMirrorArchives::archive`]), as the CLIs read only that one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkMirrorArchives {
    /// The provider asked about.
    pub source: ProviderSource,
    /// The version asked about.
    pub version: Version,
    /// The URL the document was read from (after redirects): archive URLs
    /// are relative to it.
    pub url: Url,
    mirror: NetworkMirror,
    plain_http_hosts: Vec<Hostname>,
    entries: BTreeMap<String, Option<RawArchive>>,
}

/// One platform's archive in a mirror's `<version>.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkMirrorArchive {
    /// The platform.
    pub platform: Platform,
    /// The archive, resolved against the document's URL.
    pub url: Url,
    /// Its file name, the last segment of its URL's path.
    pub filename: String,
    /// The hashes the mirror lists for it, `scheme:value` each (none: the
    /// archive cannot be checked).
    pub hashes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
struct RawArchive {
    #[serde(default, deserialize_with = "nullable")]
    url: String,
    #[serde(default, deserialize_with = "nullable")]
    hashes: Vec<String>,
}

impl NetworkMirrorArchives {
    /// The platforms the document has an entry for.
    pub fn platforms(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The archive of `platform` (MIRROR-6, MIRROR-7): [`Error::NotFound`]
    /// when the mirror has none; [`Error::InvalidResponse`] when its entry
    /// is `null`, its `url` is empty, unusable or not https, or a hash has
    /// no scheme.
    pub fn archive(&self, platform: &Platform) -> Result<NetworkMirrorArchive, Error> {
        let key = platform.to_string();
        let invalid = |problem| self.invalid(problem);
        let raw = match self.entries.get(&key) {
            None => {
                return Err(wrap(
                    RegistryCall::MirrorArchives,
                    Error::NotFound {
                        url: self.url.clone().into(),
                        message: format!(
                            "{} does not have a package of {} {} for {key}",
                            self.mirror, self.source, self.version
                        ),
                    },
                ));
            }
            Some(None) => return Err(invalid(format!("the archive of {key} is null"))),
            Some(Some(raw)) => raw,
        };
        if raw.url.is_empty() {
            return Err(invalid(format!("the archive of {key} has no url")));
        }
        let url = self.url.join(&raw.url).map_err(|e| {
            invalid(format!(
                "provider mirror returned invalid URL {}: {e}",
                go_quote(&raw.url)
            ))
        })?;
        if !self.may_fetch(&url) {
            return Err(invalid(format!(
                "the archive of {key} is at {url}: a network mirror's archives must be at \
                 https: URLs"
            )));
        }
        if let Some(bad) = raw.hashes.iter().find(|h| !has_scheme(h)) {
            return Err(invalid(invalid_hash(bad)));
        }
        let filename = url
            .path_segments()
            .and_then(|mut segments| segments.next_back())
            .unwrap_or_default()
            .to_owned();
        Ok(NetworkMirrorArchive {
            platform: platform.clone(),
            url,
            filename,
            hashes: raw.hashes.clone(),
        })
    }
}

impl NetworkMirrorArchives {
    /// The hashes listed for every platform, in the order of the
    /// platforms' names, each checked as [`NetworkMirrorArchives::archive`]
    /// checks those of one: what OpenTofu's `trust_all_hashes` takes
    /// (MIRROR-14). An entry that is `null` is an invalid answer (D20;
    /// OpenTofu crashes on one).
    pub fn all_hashes(&self) -> Result<Vec<String>, Error> {
        let mut hashes = Vec::new();
        for (key, raw) in &self.entries {
            let Some(raw) = raw else {
                return Err(self.invalid(format!("the archive of {key} is null")));
            };
            if let Some(bad) = raw.hashes.iter().find(|h| !has_scheme(h)) {
                return Err(self.invalid(invalid_hash(bad)));
            }
            hashes.extend(raw.hashes.iter().cloned());
        }
        Ok(hashes)
    }

    /// The document is not what the protocol says: `problem`.
    fn invalid(&self, problem: String) -> Error {
        wrap(
            RegistryCall::MirrorArchives,
            Error::InvalidResponse {
                url: self.url.clone().into(),
                problem,
            },
        )
    }

    /// https, or http to a host the caller allowed plain http (D5, D20).
    fn may_fetch(&self, url: &Url) -> bool {
        match url.scheme() {
            "https" => true,
            "http" => url
                .host_str()
                .is_some_and(|host| plain_http_allowed(&self.plain_http_hosts, host, url.port())),
            _ => false,
        }
    }
}

/// Whether a listed hash has a scheme before a colon (MIRROR-6).
fn has_scheme(hash: &str) -> bool {
    hash.find(':').is_some_and(|at| at >= 1)
}

/// The problem of a listed hash without a scheme, in the CLIs' words.
fn invalid_hash(hash: &str) -> String {
    format!(
        "provider mirror returned invalid provider hash {}: hash string must start with a \
         scheme keyword followed by a colon",
        go_quote(hash)
    )
}

/// The goal of a mirror's `index.json` request.
#[derive(Clone, Debug)]
pub struct NetworkMirrorVersionsRequest {
    source: ProviderSource,
    mirror: NetworkMirror,
    dialect: Dialect,
}

impl Transfer<NetworkMirrorVersionsRequest> {
    /// Starts asking `mirror` for `source`'s versions, sending
    /// `credentials` (the mirror host's) only over https.
    pub fn network_mirror_versions(
        mirror: &NetworkMirror,
        source: &ProviderSource,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Transfer<NetworkMirrorVersionsRequest>, StartError> {
        source.require_qualified().map_err(StartError::new)?;
        let goal = NetworkMirrorVersionsRequest {
            source: source.clone(),
            mirror: mirror.clone(),
            dialect: config.dialect(),
        };
        Transfer::get(goal, mirror.versions_url(source), config, credentials, now)
    }
}

impl Goal for NetworkMirrorVersionsRequest {
    type Output = NetworkMirrorVersions;
    registry_goal!("provider mirror versions", MirrorVersions, mirror, Mirror);

    fn on_head(
        &mut self,
        url: &Url,
        status: StatusCode,
        _: &HeaderMap,
    ) -> Next<NetworkMirrorVersions> {
        read_ok(url, status, || {
            format!("{} does not have provider {}", self.mirror, self.source)
        })
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<NetworkMirrorVersions, Error> {
        #[derive(Deserialize)]
        struct Document {
            #[serde(default, deserialize_with = "nullable")]
            versions: BTreeMap<String, Empty>,
        }
        #[derive(Deserialize, Default)]
        struct Empty {}
        let Document { versions: keys } =
            parse_json::<Option<Document>>(url, &body, Extent::First)?.unwrap_or(Document {
                versions: BTreeMap::new(),
            });
        let mut versions = Vec::with_capacity(keys.len());
        let mut skipped = Vec::new();
        for key in keys.into_keys() {
            match Version::parse(&key, self.dialect) {
                Ok(version) => versions.push(version),
                Err(_) => skipped.push(key),
            }
        }
        versions.sort();
        versions.dedup();
        Ok(NetworkMirrorVersions {
            source: self.source.clone(),
            url: url.clone(),
            versions,
            skipped,
        })
    }
}

/// The goal of a mirror's `<version>.json` request.
#[derive(Clone, Debug)]
pub struct NetworkMirrorArchivesRequest {
    source: ProviderSource,
    version: Version,
    mirror: NetworkMirror,
    plain_http_hosts: Vec<Hostname>,
}

impl Transfer<NetworkMirrorArchivesRequest> {
    /// Starts asking `mirror` for the archives of `source`'s `version`.
    pub fn network_mirror_archives(
        mirror: &NetworkMirror,
        source: &ProviderSource,
        version: &Version,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Transfer<NetworkMirrorArchivesRequest>, StartError> {
        source.require_qualified().map_err(StartError::new)?;
        let goal = NetworkMirrorArchivesRequest {
            source: source.clone(),
            version: version.clone(),
            mirror: mirror.clone(),
            plain_http_hosts: config.plain_http_hosts().to_vec(),
        };
        let url = mirror.archives_url(source, version);
        Transfer::get(goal, url, config, credentials, now)
    }
}

impl Goal for NetworkMirrorArchivesRequest {
    type Output = NetworkMirrorArchives;
    registry_goal!("provider mirror archives", MirrorArchives, mirror, Mirror);

    fn on_head(
        &mut self,
        url: &Url,
        status: StatusCode,
        _: &HeaderMap,
    ) -> Next<NetworkMirrorArchives> {
        // The CLIs ask for a version the index listed: its absence is the
        // mirror's fault, not a version that does not exist.
        read_ok_or(url, status, || Error::InvalidResponse {
            url: url.clone().into(),
            problem: format!(
                "provider mirror does not have archive index for previously-reported {} \
                 version {}",
                self.source, self.version
            ),
        })
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<NetworkMirrorArchives, Error> {
        #[derive(Deserialize)]
        struct Document {
            #[serde(default, deserialize_with = "nullable")]
            archives: BTreeMap<String, Option<RawArchive>>,
        }
        let entries = parse_json::<Option<Document>>(url, &body, Extent::First)?
            .map(|d| d.archives)
            .unwrap_or_default();
        Ok(NetworkMirrorArchives {
            source: self.source.clone(),
            version: self.version.clone(),
            url: url.clone(),
            mirror: self.mirror.clone(),
            plain_http_hosts: self.plain_http_hosts.clone(),
            entries,
        })
    }
}
