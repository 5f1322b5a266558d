//! OCI registry credentials as OpenTofu reads them (docs/behaviour.md,
//! OCICRED-1 to OCICRED-11): the CLI configuration's `oci_credentials` and
//! `oci_default_credentials` blocks, the Docker-style files found around
//! them, the choice of one source for a repository, and Docker-style
//! credential helpers.
//!
//! - [`CliConfig::oci_credentials_blocks`],
//!   [`CliConfig::oci_default_credentials_blocks`]: the blocks, checked
//!   when the files are read (problems are diagnostics).
//! - [`CliConfig::oci_credentials_policy`]: an [`OciCredentialsPolicy`],
//!   which reads the Docker-style files and then answers
//!   [`OciCredentialsPolicy::credentials_for`] a registry and repository
//!   with a [`tfdisco_oci::OciCredentials`], or none (anonymous).

mod blocks;
pub(crate) mod decode;
mod docker_file;
mod docker_helper;
mod error;
mod lazy;
mod matching;
mod policy;
mod search;

pub(crate) use blocks::OciBlocks;
pub use blocks::{OciBlockCredentials, OciCredentialsBlock, OciDefaultCredentialsBlock};
pub use error::{HelperProblem, OciCredentialsError};
pub use lazy::CliOciCredentials;
pub use matching::{OciSpecificity, oci_auths_key_specificity};
pub use policy::{OciCredentialsLocation, OciCredentialsPolicy};
pub use search::{OciHostOs, docker_style_search_locations};

use crate::{CliConfig, Env};

impl CliConfig {
    /// Every valid `oci_credentials` block, files in order (OpenTofu only;
    /// Terraform's configuration has none). Two blocks with one label are
    /// both kept, and reported.
    pub fn oci_credentials_blocks(&self) -> &[OciCredentialsBlock] {
        &self.oci.credentials
    }

    /// Every `oci_default_credentials` block, files in order (OpenTofu
    /// only). More than one is reported, and the first is used.
    pub fn oci_default_credentials_blocks(&self) -> &[OciDefaultCredentialsBlock] {
        &self.oci.defaults
    }

    /// The OCI credentials policy of this configuration on this system,
    /// with the home directory, `XDG_CONFIG_HOME`, `XDG_RUNTIME_DIR`
    /// (Linux) and the `PATH` for credential helpers read in `env`
    /// (OCICRED-5, OCICRED-6). The Docker-style files are read now; no
    /// helper is run.
    ///
    /// Fails only when files listed in `docker_style_config_files` cannot
    /// be read or parsed.
    pub fn oci_credentials_policy(
        &self,
        env: &Env,
    ) -> Result<OciCredentialsPolicy, OciCredentialsError> {
        self.oci_credentials_policy_for(OciHostOs::current(), env)
    }

    /// [`CliConfig::oci_credentials_policy`] with `os`'s search rules.
    pub fn oci_credentials_policy_for(
        &self,
        os: OciHostOs,
        env: &Env,
    ) -> Result<OciCredentialsPolicy, OciCredentialsError> {
        OciCredentialsPolicy::build(self, os, env)
    }
}
