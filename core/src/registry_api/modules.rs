//! The module registry: versions and download locations
//! (docs/behaviour.md, API-4 to API-7).

use std::time::Instant;

use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use url::Url;

use super::{check_version, endpoint, read_ok};
use crate::transfer::{Goal, Next, Transfer};
use crate::{
    Config, Credentials, Dialect, Error, ModulePackage, ModuleSource, Services, StartError,
};

const SERVICE: &str = "modules.v1";
const X_TERRAFORM_GET: &str = "x-terraform-get";

/// The versions of a module package, in the registry's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleVersions {
    /// The module asked about.
    pub source: ModuleSource,
    /// The URL the versions were read from (after redirects).
    pub url: Url,
    /// The versions, as the registry lists them.
    pub versions: Vec<String>,
}

/// Where to download one version of a module package from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleLocation {
    /// The module asked about (its subdirectory, if any, applies inside the
    /// package).
    pub source: ModuleSource,
    /// The version asked about.
    pub version: String,
    /// The location: a go-getter address (`git::https://…`, `https://….zip`,
    /// `s3::…`) or, with `use_registry_credentials` set, a direct http(s)
    /// URL. A location starting `/`, `./` or `../` is resolved against the
    /// download request's URL, as Terraform resolves it.
    pub location: String,
    /// OpenTofu's direct packages: whether the registry's credentials go
    /// with the package download. `None` for a go-getter address.
    pub use_registry_credentials: Option<bool>,
    /// The go-getter address parsed as `init` parses it: getter, package
    /// address, subdirectory, query parts (docs/behaviour.md, PKG-1 to
    /// PKG-9). `None` for OpenTofu's direct packages.
    pub package: Option<ModulePackage>,
}

impl ModuleLocation {
    /// Where in the package the module is: the location's subdirectory
    /// joined with the source's own `//subdir` (docs/behaviour.md, PKG-8).
    pub fn module_subdir(&self) -> String {
        match &self.package {
            Some(package) => package.join_subdir(self.source.subdir()),
            None => self.source.subdir().to_owned(),
        }
    }
}

/// The goal of a module versions request
/// (`GET <modules.v1>/<namespace>/<name>/<system>/versions`).
#[derive(Clone, Debug)]
pub struct ModuleVersionsRequest {
    source: ModuleSource,
}

impl Transfer<ModuleVersionsRequest> {
    /// Starts asking `source`'s registry, whose discovered services are
    /// `services`, for the module's versions, sending `credentials` (the
    /// source host's) only over https.
    pub fn module_versions(
        services: &Services,
        source: &ModuleSource,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Transfer<ModuleVersionsRequest>, StartError> {
        // Checked by `ModuleSource::parse`: ASCII letters, digits, `-`, `_`.
        let package = source.package_path();
        let url =
            endpoint(services, SERVICE, true, &[&package, "versions"]).map_err(StartError::new)?;
        let goal = ModuleVersionsRequest {
            source: source.clone(),
        };
        Transfer::get(goal, url, config, credentials, now)
    }
}

impl Goal for ModuleVersionsRequest {
    type Output = ModuleVersions;
    registry_goal!("module versions", ModuleVersions, source);

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<ModuleVersions> {
        read_ok(url, status, || {
            format!("module {} not found", self.source.for_display())
        })
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<ModuleVersions, Error> {
        #[derive(Deserialize)]
        struct Document {
            modules: Vec<Module>,
        }
        #[derive(Deserialize)]
        struct Module {
            versions: Vec<Version>,
        }
        #[derive(Deserialize)]
        struct Version {
            version: String,
        }
        let document: Document = super::parse_json(url, &body, super::Extent::First)?;
        // Terraform reads the first module only, and needs one.
        let Some(module) = document.modules.into_iter().next() else {
            return Err(Error::InvalidResponse {
                url: url.clone().into(),
                problem: format!(
                    "the registry returned no versions for module {}",
                    self.source.for_display()
                ),
            });
        };
        Ok(ModuleVersions {
            source: self.source.clone(),
            url: url.clone(),
            versions: module.versions.into_iter().map(|v| v.version).collect(),
        })
    }
}

/// The goal of a module download request
/// (`GET <modules.v1>/<namespace>/<name>/<system>/<version>/download`).
#[derive(Clone, Debug)]
pub struct ModuleDownloadRequest {
    source: ModuleSource,
    version: String,
    dialect: Dialect,
    /// The request URL before redirects: the base of relative locations.
    first: Url,
    /// `X-Terraform-Get` of a 200 that OpenTofu reads the body of.
    header: Option<String>,
}

impl Transfer<ModuleDownloadRequest> {
    /// Starts asking `source`'s registry where to download `version` of the
    /// module from. `version` must be a semantic version.
    pub fn module_download(
        services: &Services,
        source: &ModuleSource,
        version: &str,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Transfer<ModuleDownloadRequest>, StartError> {
        let package = source.package_path();
        let url = check_version(version)
            .and_then(|()| endpoint(services, SERVICE, true, &[&package, version, "download"]))
            .map_err(StartError::new)?;
        let goal = ModuleDownloadRequest {
            source: source.clone(),
            version: version.to_owned(),
            dialect: config.dialect(),
            first: url.clone(),
            header: None,
        };
        Transfer::get(goal, url, config, credentials, now)
    }
}

impl ModuleDownloadRequest {
    fn location(
        &self,
        url: &Url,
        location: &str,
        flag: Option<bool>,
    ) -> Result<ModuleLocation, Error> {
        let invalid = |problem: String| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        };
        let location = if ["/", "./", "../"].iter().any(|p| location.starts_with(p)) {
            self.first
                .join(location)
                .map_err(|e| invalid(format!("unusable location {location:?}: {e}")))?
                .to_string()
        } else {
            location.to_owned()
        };
        if flag.is_some() {
            // OpenTofu's direct packages are plain http(s) URLs.
            let direct = Url::parse(&location)
                .map_err(|e| invalid(format!("unusable package URL {location:?}: {e}")))?;
            if !matches!(direct.scheme(), "http" | "https") || direct.fragment().is_some() {
                return Err(invalid(format!(
                    "unusable package URL {location:?}: only http and https URLs without a \
                     fragment are allowed"
                )));
            }
        }
        // A location `init` would refuse is refused here, in its words
        // (PKG-1, PKG-7).
        let package = match flag {
            Some(_) => None,
            None => Some(
                ModulePackage::from_location(&location, self.dialect).map_err(|e| {
                    invalid(format!(
                        "invalid source location {} for {} {}: {e}",
                        crate::go_quote(&location),
                        self.source,
                        self.version
                    ))
                })?,
            ),
        };
        Ok(ModuleLocation {
            source: self.source.clone(),
            version: self.version.clone(),
            location,
            use_registry_credentials: flag,
            package,
        })
    }

    fn no_location(url: &Url) -> Error {
        Error::InvalidResponse {
            url: url.clone().into(),
            problem: "the registry did not return a location for this package \
                      (no X-Terraform-Get header)"
                .to_owned(),
        }
    }
}

impl Goal for ModuleDownloadRequest {
    type Output = ModuleLocation;
    registry_goal!("module download", ModuleDownload, source);

    fn on_head(
        &mut self,
        url: &Url,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Next<ModuleLocation> {
        let header = headers
            .get(X_TERRAFORM_GET)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .filter(|v| !v.is_empty());
        match status {
            // OpenTofu: a 200 carries the location in a JSON body.
            StatusCode::OK if self.dialect == Dialect::OpenTofu => {
                self.header = header;
                Next::ReadDocument
            }
            StatusCode::OK | StatusCode::NO_CONTENT => Next::Finish(match header {
                Some(location) => self.location(url, &location, None),
                None => Err(ModuleDownloadRequest::no_location(url)),
            }),
            status => read_ok(url, status, || {
                format!(
                    "module {:?} version {:?} not found",
                    self.source.for_display(),
                    self.version
                )
            }),
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<ModuleLocation, Error> {
        #[derive(Deserialize)]
        struct Document {
            #[serde(default, deserialize_with = "super::nullable")]
            location: String,
            use_registry_credentials: Option<bool>,
        }
        let document: Document = super::parse_json(url, &body, super::Extent::Whole)?;
        match (
            document.location.is_empty(),
            document.use_registry_credentials,
        ) {
            (false, flag) => self.location(url, &document.location, flag),
            (true, None) => match self.header.clone() {
                Some(location) => self.location(url, &location, None),
                None => Err(ModuleDownloadRequest::no_location(url)),
            },
            (true, Some(_)) => Err(ModuleDownloadRequest::no_location(url)),
        }
    }
}
