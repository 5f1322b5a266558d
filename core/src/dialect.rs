//! Where Terraform and OpenTofu differ.

use std::fmt;
use std::str::FromStr;

use crate::Hostname;

/// Which implementation to match where Terraform and OpenTofu differ: the
/// service-id version rules, the `User-Agent` and CLI version requests
/// announce, and the default registry.
///
/// The default is OpenTofu-compatible. From text it is `opentofu` (or
/// `tofu`) or `terraform`, in any case; it shows as `opentofu` or
/// `terraform`.
///
/// ```
/// use tfdisco_core::Dialect;
///
/// assert_eq!("Tofu".parse::<Dialect>()?, Dialect::OpenTofu);
/// assert_eq!("TERRAFORM".parse::<Dialect>()?, Dialect::Terraform);
/// assert!("tf".parse::<Dialect>().is_err());
/// assert_eq!(Dialect::default().to_string(), "opentofu");
/// assert_eq!(Dialect::OpenTofu.command(), "tofu");
/// # Ok::<(), tfdisco_core::UnknownDialect>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// opentofu/svchost: versions are `v` plus an integer (`tfe.v2.1` quirk kept).
    #[default]
    OpenTofu,
    /// hashicorp/terraform-svchost: versions follow go-version (`modules.1`, `v1.1`, `v1-beta`).
    Terraform,
}

impl Dialect {
    /// The lower-case name: `opentofu` or `terraform`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenTofu => "opentofu",
            Dialect::Terraform => "terraform",
        }
    }

    /// The command people type for this dialect's CLI, as its messages
    /// name it: `terraform` or `tofu`.
    pub fn command(self) -> &'static str {
        match self {
            Dialect::OpenTofu => "tofu",
            Dialect::Terraform => "terraform",
        }
    }

    /// The registry used for addresses without a hostname.
    pub fn default_registry_host(self) -> Hostname {
        let name = match self {
            Dialect::OpenTofu => "registry.opentofu.org",
            Dialect::Terraform => "registry.terraform.io",
        };
        Hostname::from_comparison(name).expect("the default registries are in comparison form")
    }

    /// The CLI release tfdisco's requests announce by default, in the
    /// `User-Agent` and `X-Terraform-Version`: the current release of each,
    /// Terraform 1.15.9 and OpenTofu 1.12.6 (`Config::with_cli_version`
    /// sets another).
    pub fn default_cli_version(self) -> &'static str {
        match self {
            Dialect::OpenTofu => "1.12.6",
            Dialect::Terraform => "1.15.9",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Dialect`] from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown dialect {:?} (expected \"opentofu\", \"tofu\" or \"terraform\", in any case)",
            self.0
        )
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    /// Accepts `opentofu` (or `tofu`) and `terraform`, in any case.
    fn from_str(s: &str) -> Result<Dialect, UnknownDialect> {
        match s.to_ascii_lowercase().as_str() {
            "opentofu" | "tofu" => Ok(Dialect::OpenTofu),
            "terraform" => Ok(Dialect::Terraform),
            _ => Err(UnknownDialect(s.to_owned())),
        }
    }
}
