//! The CLI configuration's OCI credentials as a client's
//! [`tfdisco_oci::OciCredentialsSource`]: the policy is built the first time
//! an OCI registry needs credentials, as OpenTofu builds it only when it
//! contacts one (OCICRED-5), so that a Docker-style file that cannot be read
//! fails OCI requests only.

use std::fmt;
use std::sync::OnceLock;

use tfdisco_core::CredentialsError;
use tfdisco_oci::{OciCredentials, OciCredentialsSource};

use super::OciCredentialsPolicy;
use crate::{CliConfig, Env};

/// [`CliConfig::oci_credentials_source`]: the policy, made when first
/// needed.
pub struct CliOciCredentials {
    config: CliConfig,
    env: Env,
    policy: OnceLock<Result<OciCredentialsPolicy, String>>,
}

impl CliConfig {
    /// The OCI credentials source of this configuration in `env`, for a
    /// client (`ClientBuilder::oci_credentials`, which `cli_config` sets
    /// itself): [`CliConfig::oci_credentials_policy`], built when a
    /// registry first needs credentials.
    pub fn oci_credentials_source(&self, env: &Env) -> CliOciCredentials {
        CliOciCredentials {
            config: self.clone(),
            env: env.clone(),
            policy: OnceLock::new(),
        }
    }
}

impl CliOciCredentials {
    fn policy(&self) -> &Result<OciCredentialsPolicy, String> {
        self.policy.get_or_init(|| {
            self.config
                .oci_credentials_policy(&self.env)
                .map_err(|e| format!("invalid credentials configuration for OCI registries: {e}"))
        })
    }
}

impl OciCredentialsSource for CliOciCredentials {
    fn oci_credentials(
        &self,
        registry: &str,
        repository: &str,
    ) -> Result<Option<OciCredentials>, CredentialsError> {
        let policy = self.policy().as_ref().map_err(|e| e.clone())?;
        policy
            .credentials_for(registry, repository)
            .map_err(|e| format!("finding credentials for {registry:?}: {e}").into())
    }
}

impl fmt::Debug for CliOciCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CliOciCredentials")
            .field("policy", &self.policy.get())
            .finish_non_exhaustive()
    }
}
