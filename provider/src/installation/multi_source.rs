//! How the answers of several installation methods combine (Go's
//! `MultiSource`, docs/behaviour.md INST-7): pure functions over the
//! answers, which the caller gets from the methods that handle the
//! provider, in priority order.

use std::fmt;

use tfdisco_core::{Platform, ProviderSource, Version};

/// Why one method has no answer for a provider (Go's `getproviders`
/// errors). The first three let the next method answer; `Other` ends the
/// query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MethodError<E> {
    /// The registry says it has no such provider
    /// (`ErrRegistryProviderNotKnown`).
    RegistryProviderNotKnown,
    /// The method has no such provider (`ErrProviderNotFound`).
    ProviderNotFound,
    /// The method has the provider but not this version for this platform
    /// (`ErrPlatformNotSupported`).
    PlatformNotSupported,
    /// Any other failure.
    Other(E),
}

/// Why the methods together have no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MultiSourceError<E> {
    /// No method had a version, and a registry said it does not know the
    /// provider.
    RegistryProviderNotKnown {
        /// The provider asked about.
        provider: Box<ProviderSource>,
    },
    /// No method had a version.
    ProviderNotFound {
        /// The provider asked about.
        provider: Box<ProviderSource>,
        /// The methods that were asked, as shown to people.
        sources: Vec<String>,
    },
    /// No method has a package of this version for this platform.
    PlatformNotSupported {
        /// The provider asked about.
        provider: Box<ProviderSource>,
        /// The version asked about.
        version: Box<Version>,
        /// The platform asked about.
        platform: Platform,
    },
    /// A method failed otherwise: the query stops there.
    Other(E),
}

impl<E: fmt::Display> fmt::Display for MultiSourceError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MultiSourceError::RegistryProviderNotKnown { provider } => write!(
                f,
                "provider registry {} does not have a provider named {provider}",
                provider.host().display()
            ),
            MultiSourceError::ProviderNotFound { provider, sources } => {
                write!(
                    f,
                    "provider {provider} was not found in any of the search locations"
                )?;
                if !sources.is_empty() {
                    f.write_str("\n")?;
                    for source in sources {
                        write!(f, "\n- {source}")?;
                    }
                }
                Ok(())
            }
            MultiSourceError::PlatformNotSupported {
                provider,
                version,
                platform,
            } => write!(
                f,
                "provider {provider} {version} is not available for {platform}"
            ),
            MultiSourceError::Other(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for MultiSourceError<E> {}

/// The versions the methods together offer, and their warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AvailableVersions {
    /// Every version any method offers, once, in ascending order.
    pub versions: Vec<Version>,
    /// The warnings of the methods that answered, in order.
    pub warnings: Vec<String>,
}

/// The union of the versions of `provider` that the methods handling it
/// offer (Go's `MultiSource.AvailableVersions`, INST-7).
///
/// `answers` holds, for each method that can handle the provider, in
/// priority order, a display name (for the not-found message) and its
/// answer: versions and warnings, or why it has none. A method that does
/// not know the provider is skipped (its warnings dropped); any other
/// failure ends the query. Without versions the error is
/// `RegistryProviderNotKnown` when some registry said so, otherwise
/// `ProviderNotFound` naming the methods (none when no method handles the
/// provider). [`ProviderInstallation::available_versions`](crate::ProviderInstallation::available_versions)
/// asks the methods for these answers, and gives an empty configuration's
/// answer: no versions and no error.
pub fn available_versions<E>(
    provider: &ProviderSource,
    answers: impl IntoIterator<Item = (String, Result<(Vec<Version>, Vec<String>), MethodError<E>>)>,
) -> Result<AvailableVersions, MultiSourceError<E>> {
    let mut out = AvailableVersions::default();
    let mut sources = Vec::new();
    let mut not_known = false;
    for (name, answer) in answers {
        sources.push(name);
        match answer {
            Ok((versions, warnings)) => {
                out.versions.extend(versions);
                out.warnings.extend(warnings);
            }
            Err(MethodError::RegistryProviderNotKnown) => not_known = true,
            Err(MethodError::ProviderNotFound | MethodError::PlatformNotSupported) => {}
            Err(MethodError::Other(e)) => return Err(MultiSourceError::Other(e)),
        }
    }
    out.versions.sort();
    out.versions.dedup();
    if out.versions.is_empty() {
        return Err(if not_known {
            MultiSourceError::RegistryProviderNotKnown {
                provider: Box::new(provider.clone()),
            }
        } else {
            MultiSourceError::ProviderNotFound {
                provider: Box::new(provider.clone()),
                sources,
            }
        });
    }
    Ok(out)
}

/// The first package the methods handling `provider` have for `version`
/// and `platform` (Go's `MultiSource.PackageMeta`, INST-7): the answers are
/// taken in priority order and no further than the first package, so a
/// lazy iterator asks no method after it. A method without the provider,
/// version or platform is skipped; any other failure ends the search.
/// Without a package the error is `PlatformNotSupported`. The package comes
/// back with its position among the answers.
///
/// ```
/// use tfdisco_core::{Dialect, Platform, ProviderSource, Version};
/// use tfdisco_provider::{MethodError, first_package};
///
/// let provider = ProviderSource::parse("hashicorp/foo", Dialect::Terraform)?;
/// let answers: Vec<Result<&str, MethodError<String>>> =
///     vec![Err(MethodError::PlatformNotSupported), Ok("from the second method")];
/// let found = first_package(&provider, &Version::new(1, 0, 0), &Platform::new("linux", "amd64"), answers);
/// assert_eq!(found, Ok((1, "from the second method")));
///
/// let none: Vec<Result<&str, MethodError<String>>> = vec![Err(MethodError::ProviderNotFound)];
/// let err = first_package(&provider, &Version::new(1, 0, 0), &Platform::new("linux", "amd64"), none).unwrap_err();
/// assert_eq!(err.to_string(), "provider registry.terraform.io/hashicorp/foo 1.0.0 is not available for linux_amd64");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn first_package<T, E>(
    provider: &ProviderSource,
    version: &Version,
    platform: &Platform,
    answers: impl IntoIterator<Item = Result<T, MethodError<E>>>,
) -> Result<(usize, T), MultiSourceError<E>> {
    for (i, answer) in answers.into_iter().enumerate() {
        match answer {
            Ok(package) => return Ok((i, package)),
            Err(MethodError::Other(e)) => return Err(MultiSourceError::Other(e)),
            Err(_) => {}
        }
    }
    Err(MultiSourceError::PlatformNotSupported {
        provider: Box::new(provider.clone()),
        version: Box::new(version.clone()),
        platform: platform.clone(),
    })
}
