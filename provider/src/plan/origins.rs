//! Which origin each installation method gives a provider's packages
//! (docs/behaviour.md, INSTALL-13): the install run's choice, made here
//! with no I/O; what a method needs from disk (a filesystem mirror's
//! packages) or from its template (an OCI repository's address) the caller
//! supplies.

use std::path::Path;

use tfdisco_core::ProviderSource;
use tfdisco_oci::RepositoryAddress;

use super::Origin;
use crate::fs_mirror::LocalPackages;
use crate::installation::{MethodKind, ProviderInstallation};

/// Why no origin could be given.
#[derive(Debug)]
pub enum OriginError<E> {
    /// No method of the CLI configuration may install the provider; the
    /// message is the one the install run reports.
    NoMethod(String),
    /// What the caller's `packages` or `address` failed with.
    Caller(E),
}

impl ProviderInstallation {
    /// The origin of `source`'s packages: the installation methods that
    /// may install it, in priority order, asked as `init` asks them
    /// ([`Origin::Methods`]); and each method's name for the install
    /// report (`registry`, a network mirror's URL, a filesystem mirror's
    /// folder, an OCI repository). `packages` gives a filesystem mirror's
    /// packages (the caller scans it, once per run), `address` the OCI
    /// repository a `repository_template` names for `source`.
    pub fn origin_for<E>(
        &self,
        source: &ProviderSource,
        mut packages: impl FnMut(&Path) -> Result<LocalPackages, E>,
        mut address: impl FnMut(&str) -> Result<RepositoryAddress, E>,
    ) -> Result<(Origin, Vec<String>), OriginError<E>> {
        let mut origins = Vec::new();
        let mut names = Vec::new();
        for method in self.handling(source) {
            let (origin, name) = method_origin(&method.kind, &mut packages, &mut address)
                .map_err(OriginError::Caller)?;
            origins.push(origin);
            names.push(name);
        }
        if origins.is_empty() {
            return Err(OriginError::NoMethod(format!(
                "no installation method of the CLI configuration may install {source}"
            )));
        }
        Ok((Origin::Methods(origins), names))
    }
}

/// One installation method as the plan's origin, and its name for the
/// report.
fn method_origin<E>(
    kind: &MethodKind,
    packages: &mut impl FnMut(&Path) -> Result<LocalPackages, E>,
    address: &mut impl FnMut(&str) -> Result<RepositoryAddress, E>,
) -> Result<(Origin, String), E> {
    Ok(match kind {
        MethodKind::Direct { .. } => (Origin::Registry, "registry".to_owned()),
        MethodKind::NetworkMirror {
            mirror,
            trust_all_hashes,
            ..
        } => {
            // OpenTofu's `trust_all_hashes` (MIRROR-14); the CLI
            // configuration reads it only for OpenTofu.
            let origin = if *trust_all_hashes == Some(true) {
                Origin::TrustedNetworkMirror(mirror.clone())
            } else {
                Origin::NetworkMirror(mirror.clone())
            };
            (origin, mirror.base().to_string())
        }
        MethodKind::FilesystemMirror { path } => (
            Origin::Filesystem(packages(path)?),
            path.display().to_string(),
        ),
        MethodKind::OciMirror {
            repository_template,
        } => {
            let address = address(repository_template)?;
            let name = address.to_string();
            (Origin::OciMirror(address), name)
        }
    })
}
