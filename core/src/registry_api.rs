//! Registry requests, the second use of the transfer engine: from a source
//! address and its host's [`Services`] to the registry's answer, with every
//! rule of the engine (redirects, D4–D6, deadline, retries, content type,
//! size, gzip) unchanged (docs/behaviour.md, API-1 to API-12).
//!
//! Each request is a [`Goal`](crate::Goal): it says which URL to fetch,
//! which statuses are answers and what the JSON body becomes. Credentials
//! are the source host's, sent to the endpoint the discovery document names
//! even on another host, but only over https (D9; the engine never sends
//! credentials over http).

/// The parts every registry and network mirror goal shares, for its
/// `impl Goal`: its name in traces, its kind of request (its limits,
/// retries and headers: `Registry` unless given), its host (that of its
/// field `$about`, the source or the mirror), and failures named after the
/// [`RegistryCall`] `$call`.
macro_rules! registry_goal {
    ($name:literal, $call:ident, $about:ident) => {
        crate::registry_api::registry_goal!($name, $call, $about, Registry);
    };
    ($name:literal, $call:ident, $about:ident, $kind:ident) => {
        const NAME: &'static str = $name;
        const KIND: crate::RequestKind = crate::RequestKind::$kind;

        fn host(&self) -> &crate::Hostname {
            self.$about.host()
        }

        fn present_error(&self, error: crate::Error) -> crate::Error {
            crate::registry_api::wrap(crate::RegistryCall::$call, error)
        }
    };
}
pub(crate) use registry_goal;

mod modules;
mod providers;

use std::fmt;

use http::StatusCode;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use url::Url;

use crate::error::Subject;
use crate::transfer::Next;
use crate::{Dialect, Error, Services, Version};

pub use modules::{ModuleDownloadRequest, ModuleLocation, ModuleVersions, ModuleVersionsRequest};
pub use providers::PlatformPackage;
pub use providers::{
    Platform, ProviderPackage, ProviderPackageRequest, ProviderVersion, ProviderVersions,
    ProviderVersionsRequest, SigningKey,
};

/// Which registry request an [`Error::Registry`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RegistryCall {
    /// `GET <modules.v1>/<namespace>/<name>/<system>/versions`
    ModuleVersions,
    /// `GET <modules.v1>/<namespace>/<name>/<system>/<version>/download`
    ModuleDownload,
    /// `GET <providers.v1>/<namespace>/<type>/versions`
    ProviderVersions,
    /// `GET <providers.v1>/<namespace>/<type>/<version>/download/<os>/<arch>`
    ProviderPackage,
    /// A file the registry named: a package's `SHA256SUMS`, its signature,
    /// its archive (`Transfer::download`).
    Download,
    /// `GET <mirror>/<host>/<namespace>/<type>/index.json`
    MirrorVersions,
    /// `GET <mirror>/<host>/<namespace>/<type>/<version>.json`
    MirrorArchives,
    /// `GET https://<registry>/v2/<repository>/tags/list` (an OCI
    /// registry).
    OciTags,
    /// `GET https://<registry>/v2/<repository>/manifests/<reference>`.
    OciManifest,
    /// `GET https://<registry>/v2/<repository>/blobs/<digest>`.
    OciBlob,
    /// A token from an OCI registry's token service.
    OciToken,
    /// The manifest and the package blob of an `oci://` module source
    /// (OpenTofu's OCI module getter).
    OciModule,
    /// `POST <login.v1 token URL>`: `terraform login`'s token request.
    LoginToken,
    /// `GET <tfe.v2>ping`, before the pasted token's check.
    TfePing,
    /// `GET <tfe.v2>account/details`: the pasted token's check.
    TfeAccount,
}

impl RegistryCall {
    /// `error` as this request's failure ([`Error::Registry`]), so that its
    /// message names the request; an error already naming one is kept. A
    /// goal's [`present_error`](crate::Goal::present_error) calls it.
    pub fn wrap(self, error: Error) -> Error {
        wrap(self, error)
    }

    /// Its name in messages: `provider versions`, ….
    pub fn name(self) -> &'static str {
        self.subject().request
    }

    pub(crate) fn subject(self) -> Subject {
        match self {
            RegistryCall::ModuleVersions => Subject {
                request: "module versions",
                url: "module versions URL",
                response: "module versions response",
                whole: "module versions request",
            },
            RegistryCall::ModuleDownload => Subject {
                request: "module download location",
                url: "module download URL",
                response: "module download response",
                whole: "module download request",
            },
            RegistryCall::ProviderVersions => Subject {
                request: "provider versions",
                url: "provider versions URL",
                response: "provider versions response",
                whole: "provider versions request",
            },
            RegistryCall::Download => Subject {
                request: "download",
                url: "download URL",
                response: "download",
                whole: "download",
            },
            RegistryCall::MirrorVersions => Subject {
                request: "provider mirror versions",
                url: "provider mirror versions URL",
                response: "provider mirror versions response",
                whole: "provider mirror versions request",
            },
            RegistryCall::MirrorArchives => Subject {
                request: "provider mirror archives",
                url: "provider mirror archives URL",
                response: "provider mirror archives response",
                whole: "provider mirror archives request",
            },
            RegistryCall::OciModule => Subject {
                request: "OCI module package",
                url: "OCI module package URL",
                response: "OCI module package response",
                whole: "OCI module package request",
            },
            RegistryCall::ProviderPackage => Subject {
                request: "provider package",
                url: "provider package URL",
                response: "provider package response",
                whole: "provider package request",
            },
            RegistryCall::OciTags => Subject {
                request: "OCI tag list",
                url: "OCI tag list URL",
                response: "OCI tag list",
                whole: "OCI tag list request",
            },
            RegistryCall::OciManifest => Subject {
                request: "OCI manifest",
                url: "OCI manifest URL",
                response: "OCI manifest",
                whole: "OCI manifest request",
            },
            RegistryCall::OciBlob => Subject {
                request: "OCI blob",
                url: "OCI blob URL",
                response: "OCI blob",
                whole: "OCI blob download",
            },
            RegistryCall::OciToken => Subject {
                request: "OCI registry token",
                url: "OCI token service URL",
                response: "OCI token service response",
                whole: "OCI token request",
            },
            RegistryCall::LoginToken => Subject {
                request: "login token",
                url: "login token URL",
                response: "login token response",
                whole: "login token request",
            },
            RegistryCall::TfePing => Subject {
                request: "tfe.v2 ping",
                url: "tfe.v2 ping URL",
                response: "tfe.v2 ping response",
                whole: "tfe.v2 ping",
            },
            RegistryCall::TfeAccount => Subject {
                request: "tfe.v2 account details",
                url: "tfe.v2 account details URL",
                response: "tfe.v2 account details response",
                whole: "tfe.v2 account details request",
            },
        }
    }
}

impl fmt::Display for RegistryCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The endpoint of a registry request: the base URL of service `id`,
/// then the path `segments` resolved against it as a relative reference,
/// as Terraform does (API-1): the module client first adds a missing
/// trailing slash to the base path (`trailing_slash`); the provider client
/// does not, so a base without one loses its last segment. The base's query
/// and fragment are dropped.
pub(crate) fn endpoint(
    services: &Services,
    id: &str,
    trailing_slash: bool,
    segments: &[&str],
) -> Result<Url, Error> {
    let mut base = services.service_url(id)?;
    if trailing_slash && !base.path().ends_with('/') {
        let path = format!("{}/", base.path());
        base.set_path(&path);
    }
    // `./` keeps a first segment such as `a:b` from reading as a scheme;
    // the segments are checked before they get here.
    let relative = format!("./{}", segments.join("/"));
    base.join(&relative).map_err(|e| Error::InvalidServiceUrl {
        host: services.host().display().into_owned(),
        id: id.to_owned(),
        problem: e.to_string(),
    })
}

/// What a registry answer's status means: 200 is the document to read, 404
/// is [`Error::NotFound`] with `not_found`'s message, anything else (not
/// retried, not a followed redirect) an [`Error::Status`].
pub(crate) fn read_ok<T>(
    url: &Url,
    status: StatusCode,
    not_found: impl FnOnce() -> String,
) -> Next<T> {
    read_ok_or(url, status, || Error::NotFound {
        url: url.clone().into(),
        message: not_found(),
    })
}

/// [`read_ok`], a 404 being the error `missing` gives.
pub(crate) fn read_ok_or<T>(
    url: &Url,
    status: StatusCode,
    missing: impl FnOnce() -> Error,
) -> Next<T> {
    match status {
        StatusCode::OK => Next::ReadDocument,
        StatusCode::NOT_FOUND => Next::Finish(Err(missing())),
        status => Next::Finish(Err(Error::Status {
            url: url.clone().into(),
            status,
        })),
    }
}

/// How much of a registry response body is read as JSON.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extent {
    /// The first JSON value; what follows it is not read, as Go's
    /// `json.Decoder` reads the versions and package answers (API-7).
    First,
    /// The whole body, as `json.Unmarshal` reads OpenTofu's download answer.
    Whole,
}

/// Reads a registry response body: JSON of the shape `T` describes
/// (unknown fields ignored). Valid UTF-8, checked at once, is read as text,
/// so strings are not checked again one by one; other bodies as bytes, for
/// serde_json's error with its position.
pub(crate) fn parse_json<T: DeserializeOwned>(
    url: &Url,
    body: &[u8],
    extent: Extent,
) -> Result<T, Error> {
    fn read<'de, T: DeserializeOwned, R: serde_json::de::Read<'de>>(
        mut de: serde_json::Deserializer<R>,
        extent: Extent,
    ) -> serde_json::Result<T> {
        let value = T::deserialize(&mut de)?;
        if extent == Extent::Whole {
            de.end()?;
        }
        Ok(value)
    }
    let parsed = match std::str::from_utf8(body) {
        Ok(text) => read(serde_json::Deserializer::from_str(text), extent),
        Err(_) => read(serde_json::Deserializer::from_slice(body), extent),
    };
    parsed.map_err(|e| Error::InvalidJson {
        url: url.clone().into(),
        message: e.to_string(),
    })
}

/// `null` read as the type's default, as Go reads `null` into a slice or a
/// string: for `#[serde(default, deserialize_with = "nullable")]` fields.
pub(crate) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A failure as a registry request reports it: named after the request.
pub(crate) fn wrap(call: RegistryCall, error: Error) -> Error {
    match error {
        Error::Registry { .. } => error,
        error => Error::Registry {
            call,
            error: Box::new(error),
        },
    }
}

/// Checks a version a registry request is to name (`1.2.0`, `2.0.0-beta1`),
/// so that it can go into a URL path (API-3): a version as
/// [`Version::parse`] reads it, written in its normalized form,
/// `MAJOR.MINOR.PATCH` with an optional `-prerelease` and `+build`.
pub fn check_version(version: &str) -> Result<(), Error> {
    match Version::parse(version, Dialect::Terraform) {
        Ok(parsed) if parsed.to_string() == version => Ok(()),
        _ => Err(Error::InvalidArgument {
            message: format!(
                "invalid version {version:?}: expected MAJOR.MINOR.PATCH, \
                 with an optional -prerelease and +build"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for ok in [
            "1.0.0",
            "0.12.31",
            "1.2.3-beta.1",
            "1.2.3+build.5",
            "10.20.30-rc1+x",
        ] {
            assert!(check_version(ok).is_ok(), "{ok}");
        }
        for bad in [
            "1.0", "v1.0.0", "1.0.0-", "1..0", "1.0.0/x", "", "a.b.c", "01.0.0",
        ] {
            assert!(check_version(bad).is_err(), "{bad}");
        }
    }
}
