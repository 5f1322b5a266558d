//! `include` / `exclude` patterns of the CLI configuration's installation
//! methods (docs/behaviour.md, INST-3 to INST-5).

use std::fmt;

use tfdisco_core::{Dialect, Hostname, ProviderSource, go_quote};

/// One `include` or `exclude` pattern of an installation method:
/// `HOSTNAME/NAMESPACE/TYPE` or `NAMESPACE/TYPE` (the dialect's default
/// registry), each part either `*` or a literal, with the wildcard shapes
/// both CLIs accept: `*/*/*`, `H/*/*`, `H/N/*`, `H/N/T`, `N/T`, `N/*`,
/// `*/*` (INST-3).
///
/// The literal parts are normalized as provider addresses are (the
/// hostname as `tfdisco_core::Hostname` compares it, namespace and type lower case and
/// NFC), so `HashiCorp/*` matches `registry.terraform.io/hashicorp/aws`.
///
/// ```
/// use tfdisco_core::{Dialect, ProviderSource};
/// use tfdisco_provider::ProviderPattern;
///
/// let pattern = ProviderPattern::parse("HashiCorp/*", Dialect::Terraform)?;
/// assert_eq!(pattern.to_string(), "registry.terraform.io/hashicorp/*");
/// assert_eq!(pattern.as_str(), "HashiCorp/*");
/// let aws = ProviderSource::parse("hashicorp/aws", Dialect::Terraform)?;
/// assert!(pattern.matches(&aws));
///
/// let err = ProviderPattern::parse("*/aws", Dialect::Terraform).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     r#"invalid provider matching pattern "*/aws": namespace can be a wildcard only if the provider type is also a wildcard"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProviderPattern {
    given: String,
    host: Option<Hostname>,
    namespace: Option<String>,
    type_name: Option<String>,
}

tfdisco_core::message_error! {
    /// A pattern that does not parse, with Go's message (INST-4).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct PatternError {
        /// The message: Go's text, naming the pattern.
        message: String,
    }
    fn new;
}

const WILDCARD: &str = "*";

impl ProviderPattern {
    /// Parses one pattern as both CLIs do (Go's
    /// `ParseMultiSourceMatchingPatterns` on one string): two or three
    /// parts; the hostname (three parts) checked first, then the type, then
    /// the namespace, then the wildcard shape (INST-3, INST-4).
    pub fn parse(given: &str, dialect: Dialect) -> Result<ProviderPattern, PatternError> {
        let quoted = go_quote(given);
        let parts: Vec<&str> = given.split('/').collect();
        let (host, namespace, type_name) = match parts[..] {
            [host, namespace, type_name] => (Some(host), namespace, type_name),
            [namespace, type_name] => (None, namespace, type_name),
            _ => {
                return Err(PatternError::new(format!(
                    "invalid provider matching pattern {quoted}: must have either two or \
                     three slash-separated segments"
                )));
            }
        };
        let host = match host {
            Some(WILDCARD) => None,
            Some(host) => Some(Hostname::parse(host).map_err(|e| {
                PatternError::new(format!(
                    "invalid hostname in provider matching pattern {quoted}: {}",
                    e.kind()
                ))
            })?),
            None => Some(dialect.default_registry_host()),
        };
        let literal = |part: &str| match part {
            WILDCARD => Ok(None),
            part => ProviderSource::normalize_part(part)
                .map(Some)
                .map_err(|_| ()),
        };
        let type_name = literal(type_name).map_err(|()| {
            PatternError::new(format!(
                "invalid provider type {} in provider matching pattern {quoted}: must either \
                 be the wildcard * or a provider type name",
                go_quote(type_name)
            ))
        })?;
        // Go names the type segment here, not the namespace: tfdisco names
        // the namespace (INST-4).
        let namespace = literal(namespace).map_err(|()| {
            PatternError::new(format!(
                "invalid registry namespace {} in provider matching pattern {quoted}: must \
                 either be the wildcard * or a literal namespace",
                go_quote(namespace)
            ))
        })?;
        if host.is_none() && (namespace.is_some() || type_name.is_some()) {
            return Err(PatternError::new(format!(
                "invalid provider matching pattern {quoted}: hostname can be a wildcard only \
                 if both namespace and provider type are also wildcards"
            )));
        }
        if namespace.is_none() && type_name.is_some() {
            return Err(PatternError::new(format!(
                "invalid provider matching pattern {quoted}: namespace can be a wildcard only \
                 if the provider type is also a wildcard"
            )));
        }
        Ok(ProviderPattern {
            given: given.to_owned(),
            host,
            namespace,
            type_name,
        })
    }

    /// Parses a list of patterns in order; the first that does not parse
    /// fails the whole list, as in Go.
    pub fn parse_all<S: AsRef<str>>(
        given: &[S],
        dialect: Dialect,
    ) -> Result<Vec<ProviderPattern>, PatternError> {
        given
            .iter()
            .map(|p| ProviderPattern::parse(p.as_ref(), dialect))
            .collect()
    }

    /// The pattern that matches exactly `provider`, written as its address
    /// (what the implied `direct` excludes, INST-9).
    pub fn exact(provider: &ProviderSource) -> ProviderPattern {
        ProviderPattern {
            given: provider.to_string(),
            host: Some(provider.host().clone()),
            namespace: Some(provider.namespace().to_owned()),
            type_name: Some(provider.type_name().to_owned()),
        }
    }

    /// Whether `provider` matches: every part is the wildcard or equal to
    /// the provider's (INST-5).
    pub fn matches(&self, provider: &ProviderSource) -> bool {
        self.host.as_ref().is_none_or(|h| h == provider.host())
            && self
                .namespace
                .as_deref()
                .is_none_or(|n| n == provider.namespace())
            && self
                .type_name
                .as_deref()
                .is_none_or(|t| t == provider.type_name())
    }

    /// The pattern as it was written.
    pub fn as_str(&self) -> &str {
        &self.given
    }

    /// The hostname, `None` for the wildcard.
    pub fn host(&self) -> Option<&Hostname> {
        self.host.as_ref()
    }

    /// The normalized namespace, `None` for the wildcard.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The normalized type, `None` for the wildcard.
    pub fn type_name(&self) -> Option<&str> {
        self.type_name.as_deref()
    }
}

/// The normalized pattern, always with three parts:
/// `registry.terraform.io/hashicorp/*`.
impl fmt::Display for ProviderPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Some(host) => f.write_str(&host.display())?,
            None => f.write_str(WILDCARD)?,
        }
        write!(
            f,
            "/{}/{}",
            self.namespace.as_deref().unwrap_or(WILDCARD),
            self.type_name.as_deref().unwrap_or(WILDCARD)
        )
    }
}
