//! Provider source addresses: `[HOSTNAME/][NAMESPACE/]TYPE`
//! (docs/behaviour.md, SRC-1 to SRC-5).

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use super::SourceError;
use crate::hostname::idn;
use crate::{Dialect, Hostname, go_quote};

/// The namespace of a v0.12-style bare name such as `aws`.
const UNKNOWN_NAMESPACE: &str = "?";
/// The namespace of legacy addresses (`-/aws`), valid only on the dialect's
/// default registry.
const LEGACY_NAMESPACE: &str = "-";
/// The namespace of the providers built into the CLI.
const BUILTIN_NAMESPACE: &str = "builtin";

const FORMAT: &str =
    r#"The "source" attribute must be in the format "[hostname/][namespace/]name""#;
const FQN: &str = r#"Expected FQN in the format "hostname/namespace/name""#;

/// A provider's source address, such as `hashicorp/aws` or
/// `registry.example.com/acme/widgets`.
///
/// The namespace and type are normalized (lower case, Unicode NFC); the
/// hostname is a [`Hostname`]. Equality, ordering and hashing compare the
/// hostname, namespace and type, as Go's `Provider` struct does.
///
/// ```
/// use tfdisco_core::{Dialect, ProviderSource};
///
/// let aws = ProviderSource::parse("HashiCorp/AWS", Dialect::Terraform)?;
/// assert_eq!(aws.to_string(), "registry.terraform.io/hashicorp/aws");
/// assert_eq!(aws.for_display(), "hashicorp/aws");
/// assert_eq!(aws.namespace(), "hashicorp");
/// assert_eq!(aws.type_name(), "aws");
///
/// let tofu = ProviderSource::parse("hashicorp/aws", Dialect::OpenTofu)?;
/// assert_eq!(tofu.host().as_str(), "registry.opentofu.org");
/// # Ok::<(), tfdisco_core::SourceError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ProviderSource {
    host: Hostname,
    namespace: String,
    type_name: String,
    dialect: Dialect,
}

impl ProviderSource {
    /// Parses a provider source as a configuration gives it (Go's
    /// `ParseProviderSource`): one part is a bare type (namespace `?`), two
    /// are namespace and type, three add the hostname. Without a hostname
    /// the dialect's default registry is meant.
    pub fn parse(given: &str, dialect: Dialect) -> Result<ProviderSource, SourceError> {
        let parts: Vec<&str> = given.split('/').collect();
        if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(SourceError::parser(
                "Invalid provider source string",
                FORMAT,
            ));
        }
        let given_type = parts[parts.len() - 1];
        let type_name = parse_part(given_type).map_err(|e| {
            SourceError::parser(
                "Invalid provider type",
                format!(
                    "Invalid provider type {} in source {}: {e}",
                    go_quote(given_type),
                    go_quote(given)
                ),
            )
        })?;
        let default_host = dialect.default_registry_host();
        if parts.len() == 1 {
            return Ok(ProviderSource {
                host: default_host,
                namespace: UNKNOWN_NAMESPACE.into(),
                type_name,
                dialect,
            });
        }
        let given_namespace = parts[parts.len() - 2];
        let namespace = if given_namespace == LEGACY_NAMESPACE {
            LEGACY_NAMESPACE.to_owned()
        } else {
            parse_part(given_namespace).map_err(|e| {
                SourceError::parser(
                    "Invalid provider namespace",
                    format!(
                        "Invalid provider namespace {} in source {}: {e}",
                        go_quote(given_namespace),
                        go_quote(given)
                    ),
                )
            })?
        };
        let host = if parts.len() == 3 {
            Hostname::parse(parts[0]).map_err(|e| {
                SourceError::parser(
                    "Invalid provider source hostname",
                    format!(
                        "Invalid provider source hostname {} in source {}: {e}",
                        go_quote(parts[0]),
                        go_quote(given)
                    ),
                )
            })?
        } else {
            default_host.clone()
        };
        if namespace == LEGACY_NAMESPACE && host != default_host {
            return Err(SourceError::parser(
                "Invalid provider namespace",
                format!(
                    "The legacy provider namespace \"-\" can be used only with hostname {}.",
                    default_host.display()
                ),
            ));
        }
        let source = ProviderSource {
            host,
            namespace,
            type_name,
            dialect,
        };
        source.check_type_prefix()?;
        Ok(source)
    }

    /// Parses a fully qualified address, `HOSTNAME/NAMESPACE/TYPE` with a
    /// namespace that is neither unknown nor legacy (Terraform's
    /// `ValidateProviderAddress`).
    pub fn parse_qualified(given: &str, dialect: Dialect) -> Result<ProviderSource, SourceError> {
        let source = ProviderSource::parse(given, dialect)?;
        if given.split('/').count() != 3 {
            return Err(SourceError::parser("Invalid provider address format", FQN));
        }
        source.validate()?;
        Ok(source)
    }

    /// Normalizes one namespace or type (Go's `ParseProviderPart`): lower
    /// case and NFC, refusing dots, `--`, punycode, leading or trailing
    /// dashes and characters other than letters, digits and dashes.
    pub fn normalize_part(given: &str) -> Result<String, SourceError> {
        parse_part(given).map_err(SourceError::new)
    }

    /// A source from its three parts as they are, without the parsing rules
    /// (Go's `Provider{…}` literal): `host` must be in comparison form, the
    /// namespace `-`, `?`, `builtin` or a normalized part, the type a
    /// normalized part. For addresses a configuration did not spell, such as
    /// legacy ones on another host.
    pub fn from_parts(
        host: &str,
        namespace: &str,
        type_name: &str,
        dialect: Dialect,
    ) -> Result<ProviderSource, SourceError> {
        let host = Hostname::from_comparison(host).map_err(|e| {
            SourceError::parser(
                "Unknown hostname",
                format!("Expected a hostname in comparison form: {e}"),
            )
        })?;
        let normalized = |part: &str| parse_part(part).is_ok_and(|p| p == part);
        if !(matches!(namespace, UNKNOWN_NAMESPACE | LEGACY_NAMESPACE) || normalized(namespace)) {
            return Err(SourceError::parser(
                "Unknown provider namespace",
                format!(
                    "Expected a normalized namespace, not {}",
                    go_quote(namespace)
                ),
            ));
        }
        if !normalized(type_name) {
            return Err(SourceError::parser(
                "Unknown provider type",
                format!("Expected a normalized type, not {}", go_quote(type_name)),
            ));
        }
        Ok(ProviderSource {
            host,
            namespace: namespace.to_owned(),
            type_name: type_name.to_owned(),
            dialect,
        })
    }

    /// The registry host.
    pub fn host(&self) -> &Hostname {
        &self.host
    }

    /// The namespace: normalized, or `?` for a bare type, `-` for a legacy
    /// address.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The provider type (Go's `Type`), such as `aws`.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The dialect whose defaults apply.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The short form for people: the hostname left out on the dialect's
    /// default registry (Go's `ForDisplay`).
    pub fn for_display(&self) -> String {
        if self.host == self.dialect.default_registry_host() {
            format!("{}/{}", self.namespace, self.type_name)
        } else {
            self.to_string()
        }
    }

    /// The bare type, for legacy and built-in providers (Go's
    /// `LegacyString`, which panics for the others).
    pub fn legacy_string(&self) -> Option<&str> {
        matches!(
            self.namespace.as_str(),
            LEGACY_NAMESPACE | BUILTIN_NAMESPACE
        )
        .then_some(self.type_name.as_str())
    }

    /// True for a provider built into the CLI: namespace `builtin` on
    /// `terraform.io` (and, for OpenTofu, on `opentofu.org`).
    pub fn is_builtin(&self) -> bool {
        let host = self.host.as_str();
        self.namespace == BUILTIN_NAMESPACE
            && match self.dialect {
                Dialect::Terraform => host == "terraform.io",
                Dialect::OpenTofu => host == "terraform.io" || host == "opentofu.org",
            }
    }

    /// True for the legacy namespace `-` on the dialect's default registry.
    pub fn is_legacy(&self) -> bool {
        self.namespace == LEGACY_NAMESPACE && self.host == self.dialect.default_registry_host()
    }

    /// False for a bare type (namespace `?`), whose namespace a registry
    /// lookup must find first.
    pub fn has_known_namespace(&self) -> bool {
        self.namespace != UNKNOWN_NAMESPACE
    }

    /// Whether the address is fully qualified: a known namespace that is not
    /// the legacy one (Terraform's `Provider.Validate`). Registry requests
    /// need this.
    pub fn validate(&self) -> Result<(), SourceError> {
        if !self.has_known_namespace() {
            return Err(SourceError::parser("Unknown provider namespace", FQN));
        }
        if self.is_legacy() {
            return Err(SourceError::parser(
                "Invalid legacy provider namespace",
                FQN,
            ));
        }
        Ok(())
    }

    /// Types may not repeat the product's name as a prefix: `terraform-`
    /// (and for OpenTofu `opentofu-`), with a suggestion when the prefix is
    /// the repository-style `…-provider-`.
    fn check_type_prefix(&self) -> Result<(), SourceError> {
        for prefix in TYPE_PREFIXES {
            if prefix.opentofu_only && self.dialect != Dialect::OpenTofu
                || !self.type_name.starts_with(prefix.redundant)
            {
                continue;
            }
            if let Some(suggested) = self.type_name.strip_prefix(prefix.user_error)
                && parse_part(suggested).is_ok()
            {
                let mut suggestion = self.clone();
                suggestion.type_name = suggested.to_owned();
                return Err(SourceError::parser(
                    "Invalid provider type",
                    format!(
                        "Provider source {} has a type with the prefix {}, which isn't valid. \
                         Although that prefix is {}, provider source strings should not include \
                         it.\n\nDid you mean {}?",
                        go_quote(&self.for_display()),
                        go_quote(prefix.user_error),
                        prefix.repositories,
                        go_quote(&suggestion.for_display()),
                    ),
                ));
            }
            return Err(SourceError::parser(
                "Invalid provider type",
                format!(
                    "Provider source {} has a type with the prefix {}, which isn't allowed \
                     because it would be redundant to name {} provider with that prefix. If you \
                     are the author of this provider, rename it to not include the prefix.",
                    go_quote(&self.to_string()),
                    go_quote(prefix.redundant),
                    prefix.product,
                ),
            ));
        }
        Ok(())
    }
}

/// A type prefix that only repeats the product's name.
struct TypePrefix {
    redundant: &'static str,
    /// The repository-style prefix, for which a suggestion is made.
    user_error: &'static str,
    product: &'static str,
    repositories: &'static str,
    opentofu_only: bool,
}

const TYPE_PREFIXES: [TypePrefix; 2] = [
    TypePrefix {
        redundant: "terraform-",
        user_error: "terraform-provider-",
        product: "a Terraform",
        repositories: "often used in the names of version control repositories for Terraform providers",
        opentofu_only: false,
    },
    TypePrefix {
        redundant: "opentofu-",
        user_error: "opentofu-provider-",
        product: "an OpenTofu",
        repositories: "sometimes used in the names of version control repositories for OpenTofu providers",
        opentofu_only: true,
    },
];

/// One namespace or type (Go's `ParseProviderPart`): no dots, no `--`, and
/// what x/net's Lookup profile accepts, mapped to its Unicode form (lower
/// case, NFC). Punycode is refused by the `--` rule.
fn parse_part(given: &str) -> Result<String, &'static str> {
    if given.is_empty() {
        return Err("must have at least one character");
    }
    if given.contains('.') {
        return Err("dots are not allowed");
    }
    if given.contains("--") {
        return Err("cannot use multiple consecutive dashes");
    }
    idn::lookup_to_unicode(&idn::go_tables(given))
        .map(|part| part.into_owned())
        .ok_or("must contain only letters, digits, and dashes, and may not use leading or trailing dashes")
}

/// Go's `String`: the hostname's display form, the namespace and the type.
impl fmt::Display for ProviderSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.host.display(),
            self.namespace,
            self.type_name
        )
    }
}

impl ProviderSource {
    fn key(&self) -> (&Hostname, &str, &str) {
        (&self.host, &self.namespace, &self.type_name)
    }
}

impl PartialEq for ProviderSource {
    fn eq(&self, other: &ProviderSource) -> bool {
        self.key() == other.key()
    }
}

impl Eq for ProviderSource {}

impl Hash for ProviderSource {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for ProviderSource {
    fn partial_cmp(&self, other: &ProviderSource) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Hostname, then namespace, then type (Go's `LessThan`).
impl Ord for ProviderSource {
    fn cmp(&self, other: &ProviderSource) -> Ordering {
        let (a, b) = (self.key(), other.key());
        a.0.as_str()
            .cmp(b.0.as_str())
            .then_with(|| a.1.cmp(b.1))
            .then_with(|| a.2.cmp(b.2))
    }
}
