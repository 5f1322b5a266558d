//! Module registry source addresses:
//! `[HOSTNAME/]NAMESPACE/NAME/SYSTEM[//SUBDIR]` (docs/behaviour.md, SRC-6 to
//! SRC-9).

use std::fmt;

use super::SourceError;
use crate::{Dialect, Hostname, go_clean, go_quote};

/// Hosts that name version-control repositories, never module registries.
const VCS_HOSTS: [&str; 2] = ["github.com", "bitbucket.org"];

const NAME_RULE: &str = "must be between one and 64 characters, including ASCII letters, \
     digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix";

/// A module registry source address, such as `hashicorp/consul/aws` or
/// `app.terraform.io/acme/vpc/aws//modules/subnet`.
///
/// Only the hostname is normalized: the namespace, name and subdirectory
/// keep the case they were written in, as Terraform keeps them in registry
/// URLs.
///
/// ```
/// use tfdisco_core::{Dialect, ModuleSource};
///
/// let vpc = ModuleSource::parse("App.Terraform.io/Acme/vpc/aws//modules/subnet", Dialect::Terraform)?;
/// assert_eq!(vpc.host().as_str(), "app.terraform.io");
/// assert_eq!(vpc.package_path(), "Acme/vpc/aws");
/// assert_eq!(vpc.subdir(), "modules/subnet");
/// assert_eq!(vpc.to_string(), "app.terraform.io/Acme/vpc/aws//modules/subnet");
///
/// // Not a registry address: installed from the repository directly.
/// assert!(ModuleSource::parse("github.com/acme/vpc/aws", Dialect::Terraform).is_err());
/// # Ok::<(), tfdisco_core::SourceError>(())
/// ```
/// Equality and hashing compare hostname, namespace, name, target system
/// and subdirectory, whichever dialect parsed the source.
#[derive(Clone, Debug)]
pub struct ModuleSource {
    host: Hostname,
    namespace: String,
    name: String,
    target_system: String,
    subdir: String,
    dialect: Dialect,
}

impl ModuleSource {
    /// Parses a module registry source (Go's `ParseModuleSource`). Three
    /// parts mean the dialect's default registry; four start with a
    /// hostname, which must contain a dot and may not be `github.com` or
    /// `bitbucket.org`. A `//subdir` suffix is cleaned like a path and may
    /// not leave the package.
    pub fn parse(given: &str, dialect: Dialect) -> Result<ModuleSource, SourceError> {
        let (package, subdir) = split_subdir(given);
        if subdir.starts_with("../") {
            return Err(SourceError::new(format!(
                "subdirectory path {} leads outside of the module package",
                go_quote(&subdir)
            )));
        }
        let mut parts: Vec<&str> = package.split('/').collect();
        if parts.len() != 3 && parts.len() != 4 {
            return Err(SourceError::new(
                "a module registry source address must have either three or four slash-separated components",
            ));
        }
        let host = if parts.len() == 4 {
            let given_host = parts.remove(0);
            let host = Hostname::parse(given_host).map_err(|_| {
                SourceError::new(if given_host.contains("--") {
                    format!(
                        "invalid module registry hostname {}; internationalized domain names \
                         must be given as direct unicode characters, not in punycode",
                        go_quote(given_host)
                    )
                } else {
                    format!("invalid module registry hostname {}", go_quote(given_host))
                })
            })?;
            if !host.as_str().contains('.') {
                return Err(SourceError::new(
                    "invalid module registry hostname: must contain at least one dot",
                ));
            }
            host
        } else {
            dialect.default_registry_host()
        };
        if VCS_HOSTS.contains(&host.as_str()) {
            return Err(SourceError::new(format!(
                "can't use {} as a module registry host, because it's reserved for installing \
                 directly from version control repositories",
                go_quote(host.as_str())
            )));
        }
        let [namespace, name, target_system] = [parts[0], parts[1], parts[2]];
        if !is_registry_name(namespace) {
            return Err(SourceError::new(if namespace.contains('.') {
                "source address must have three more components after the hostname: the \
                 namespace, the name, and the target system"
                    .to_owned()
            } else {
                format!("invalid namespace {}: {NAME_RULE}", go_quote(namespace))
            }));
        }
        if !is_registry_name(name) {
            return Err(SourceError::new(format!(
                "invalid module name {}: {NAME_RULE}",
                go_quote(name)
            )));
        }
        if !is_target_system(target_system) {
            return Err(SourceError::new(if target_system.contains('?') {
                "module registry addresses may not include a query string portion".to_owned()
            } else {
                format!(
                    "invalid target system {}: must be between one and 64 ASCII letters or digits",
                    go_quote(target_system)
                )
            }));
        }
        Ok(ModuleSource {
            host,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            target_system: target_system.to_owned(),
            subdir,
            dialect,
        })
    }

    /// The registry host.
    pub fn host(&self) -> &Hostname {
        &self.host
    }

    /// The namespace, as written.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The module name, as written.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The target system (`aws`, `azurerm`, …): lower-case ASCII letters and
    /// digits.
    pub fn target_system(&self) -> &str {
        &self.target_system
    }

    /// The subdirectory inside the package (after `//`), cleaned; empty when
    /// there is none.
    pub fn subdir(&self) -> &str {
        &self.subdir
    }

    /// The dialect whose default registry applies.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// `NAMESPACE/NAME/SYSTEM`, the part of registry API paths that names the
    /// package (Go's `ForRegistryProtocol`).
    pub fn package_path(&self) -> String {
        format!("{}/{}/{}", self.namespace, self.name, self.target_system)
    }

    /// The short form for people: the hostname left out on the dialect's
    /// default registry (Go's `ForDisplay`).
    pub fn for_display(&self) -> String {
        let mut out = if self.host == self.dialect.default_registry_host() {
            self.package_path()
        } else {
            format!("{}/{}", self.host.display(), self.package_path())
        };
        if !self.subdir.is_empty() {
            out.push_str("//");
            out.push_str(&self.subdir);
        }
        out
    }
}

impl ModuleSource {
    fn key(&self) -> (&Hostname, &str, &str, &str, &str) {
        (
            &self.host,
            &self.namespace,
            &self.name,
            &self.target_system,
            &self.subdir,
        )
    }
}

impl PartialEq for ModuleSource {
    fn eq(&self, other: &ModuleSource) -> bool {
        self.key() == other.key()
    }
}

impl Eq for ModuleSource {}

impl std::hash::Hash for ModuleSource {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

/// Go's `String`: the hostname's display form, the package path and the
/// subdirectory.
impl fmt::Display for ModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.host.display(), self.package_path())?;
        if !self.subdir.is_empty() {
            write!(f, "//{}", self.subdir)?;
        }
        Ok(())
    }
}

/// `^[0-9A-Za-z](?:[0-9A-Za-z-_]{0,62}[0-9A-Za-z])?$`
fn is_registry_name(s: &str) -> bool {
    let bytes = s.as_bytes();
    match bytes {
        [] => false,
        [only] => only.is_ascii_alphanumeric(),
        [first, middle @ .., last] => {
            bytes.len() <= 64
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && middle
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
        }
    }
}

/// `^[0-9a-z]{1,64}$`
fn is_target_system(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// Splits `//subdir` off a source (go-getter's rule: a `://` scheme
/// separator and a `?query` are skipped over) and cleans the subdirectory
/// as Go's `path.Clean` does.
pub(super) fn split_subdir(given: &str) -> (String, String) {
    let (package, subdir) = split_raw(given);
    let subdir = if subdir.is_empty() {
        subdir
    } else {
        go_clean(&subdir)
    };
    (package, subdir)
}

/// go-getter's `SourceDirSubdir`: [`split_subdir`] without the cleaning.
pub(super) fn split_raw(given: &str) -> (String, String) {
    let stop = given.find('?').unwrap_or(given.len());
    let offset = given[..stop].find("://").map_or(0, |i| i + 3);
    let Some(at) = given[offset..stop].find("//").map(|i| i + offset) else {
        return (given.to_owned(), String::new());
    };
    let mut package = given[..at].to_owned();
    let mut subdir = &given[at + 2..];
    if let Some(q) = subdir.find('?') {
        package.push_str(&subdir[q..]);
        subdir = &subdir[..q];
    }
    (package, subdir.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdir_split_as_go_getter() {
        assert_eq!(
            split_subdir("a/b/c//d/e"),
            ("a/b/c".to_owned(), "d/e".to_owned())
        );
        assert_eq!(
            split_subdir("a/b/c//d?ref=1"),
            ("a/b/c?ref=1".to_owned(), "d".to_owned())
        );
        assert_eq!(
            split_subdir("git::https://h/x//sub"),
            ("git::https://h/x".to_owned(), "sub".to_owned())
        );
        assert_eq!(
            split_subdir("a/b?x//y"),
            ("a/b?x//y".to_owned(), String::new())
        );
    }

    #[test]
    fn names_and_systems() {
        assert!(is_registry_name("a"));
        assert!(is_registry_name("a-b_c"));
        assert!(!is_registry_name("-a"));
        assert!(!is_registry_name("a_"));
        assert!(!is_registry_name(&"a".repeat(65)));
        assert!(is_registry_name(&"a".repeat(64)));
        assert!(is_target_system("aws2"));
        assert!(!is_target_system("AWS"));
        assert!(!is_target_system(""));
    }
}
