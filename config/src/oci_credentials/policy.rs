//! The OCI credentials policy: every place credentials may come from, in
//! OpenTofu's order, and the choice of one for a repository
//! (docs/behaviour.md, OCICRED-5 to OCICRED-9).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use tfdisco_oci::OciCredentials;

use super::blocks::{OciBlockCredentials, OciCredentialsBlock, OciDefaultCredentialsBlock};
use super::docker_file::DockerStyleFile;
use super::docker_helper::{self, HelperEnv};
use super::error::OciCredentialsError;
use super::matching::{OciSpecificity, oci_auths_key_specificity};
use super::search::{OciHostOs, docker_style_search_locations};
use crate::hcl_text::read_limited_bytes;
use crate::{CliConfig, DEFAULT_HELPER_TIMEOUT, Env};

/// Where OCI registry credentials come from, as OpenTofu decides it
/// (OCICRED-5): the `oci_credentials` blocks (in configuration order), then
/// the `oci_default_credentials` block's helper, then, unless ambient
/// discovery is off, the Docker-style files (those listed in
/// `docker_style_config_files`, or those found by the default search).
///
/// Built by [`CliConfig::oci_credentials_policy`]; the files are read
/// then, and helpers are run only by [`credentials_for`] and
/// [`credentials_from`], when a source that is a helper is chosen.
///
/// [`credentials_for`]: OciCredentialsPolicy::credentials_for
/// [`credentials_from`]: OciCredentialsPolicy::credentials_from
///
/// ```
/// use tfdisco_config::{CliConfig, Env, OciSpecificity};
/// use tfdisco_oci::OciCredentials;
///
/// let config = CliConfig::from_sources([(
///     "/home/me/.tofurc",
///     r#"
///     oci_default_credentials { discover_ambient_credentials = false }
///     oci_credentials "ghcr.io" { username = "me" password = "s3cret" }
///     oci_credentials "ghcr.io/team/private" { access_token = "t0ken" refresh_token = "r" }
///     "#,
/// )]);
/// let policy = config.oci_credentials_policy(&Env::empty())?;
/// assert_eq!(
///     policy.config_locations(),
///     [r#"explicit oci_credentials "ghcr.io" block"#, r#"explicit oci_credentials "ghcr.io/team/private" block"#]
/// );
/// let source = policy.source_for("ghcr.io", "team/private/x")?.expect("found");
/// assert_eq!(source.specificity(), OciSpecificity::Repository(2));
/// assert_eq!(
///     policy.credentials_for("ghcr.io", "team/public")?,
///     Some(OciCredentials::basic("me", "s3cret"))
/// );
/// assert_eq!(policy.credentials_for("quay.io", "x")?, None); // anonymous
/// # Ok::<(), tfdisco_config::OciCredentialsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct OciCredentialsPolicy {
    configs: Vec<PolicyConfig>,
    helper_env: HelperEnv,
    ignored: Vec<String>,
    searched: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
enum PolicyConfig {
    Explicit(OciCredentialsBlock),
    GlobalHelper(String),
    DockerStyle(DockerStyleFile),
}

/// The source chosen for a repository: where it was configured, how
/// specific it is, and whether it is a credential helper. `Debug` shows no
/// secret.
#[derive(Clone, Debug)]
pub struct OciCredentialsLocation {
    location: String,
    specificity: OciSpecificity,
    registry: String,
    kind: SourceKind,
}

#[derive(Clone, Debug)]
enum SourceKind {
    Static(OciCredentials),
    Helper(String),
}

impl OciCredentialsLocation {
    /// Where it is configured, as OpenTofu names it: `explicit
    /// oci_credentials "LABEL" block`, `oci_default_credentials block`, or a
    /// Docker-style file's path.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// How specifically it covers the repository.
    pub fn specificity(&self) -> OciSpecificity {
        self.specificity
    }

    /// The credential helper's name, when the credentials come from one
    /// (run only by [`OciCredentialsPolicy::credentials_from`]).
    pub fn helper(&self) -> Option<&str> {
        match &self.kind {
            SourceKind::Helper(name) => Some(name),
            SourceKind::Static(_) => None,
        }
    }
}

impl PolicyConfig {
    fn location(&self) -> String {
        match self {
            PolicyConfig::Explicit(block) => block.location(),
            PolicyConfig::GlobalHelper(_) => "oci_default_credentials block".to_owned(),
            PolicyConfig::DockerStyle(file) => file.path.display().to_string(),
        }
    }

    /// Every source of this config that covers the repository, in order;
    /// `Err(key)` for an `auths` entry that covers it but has no `:`.
    fn sources(
        &self,
        registry: &str,
        repository: &str,
    ) -> Vec<Result<(OciSpecificity, SourceKind), String>> {
        let mut out = Vec::new();
        match self {
            PolicyConfig::Explicit(block) => {
                if let Some(rank) = oci_auths_key_specificity(&block.label, registry, repository) {
                    let kind = match &block.credentials {
                        OciBlockCredentials::Basic { username, password } => {
                            SourceKind::Static(OciCredentials::basic(username, password))
                        }
                        // ORAS sends the access token as it is and never
                        // uses the refresh token beside it.
                        OciBlockCredentials::OAuth { access_token, .. } => {
                            SourceKind::Static(OciCredentials::access_token(access_token))
                        }
                        OciBlockCredentials::DockerCredentialsHelper(name) => {
                            SourceKind::Helper(name.clone())
                        }
                    };
                    out.push(Ok((rank, kind)));
                }
            }
            PolicyConfig::GlobalHelper(name) => {
                out.push(Ok((
                    OciSpecificity::Global,
                    SourceKind::Helper(name.clone()),
                )));
            }
            PolicyConfig::DockerStyle(file) => {
                for (key, auth) in &file.auths {
                    let Some(auth) = auth else { continue };
                    let Some(rank) = oci_auths_key_specificity(key, registry, repository) else {
                        continue;
                    };
                    match auth.iter().position(|&b| b == b':') {
                        Some(colon) => {
                            let username = String::from_utf8_lossy(&auth[..colon]);
                            let password = String::from_utf8_lossy(&auth[colon + 1..]);
                            out.push(Ok((
                                rank,
                                SourceKind::Static(OciCredentials::basic(&username, &password)),
                            )));
                        }
                        None => out.push(Err(key.clone())),
                    }
                }
                if let Some((_, name)) = file
                    .cred_helpers
                    .iter()
                    .find(|(domain, name)| domain == registry && !name.is_empty())
                {
                    out.push(Ok((
                        OciSpecificity::Domain,
                        SourceKind::Helper(name.clone()),
                    )));
                }
                if !file.creds_store.is_empty() {
                    out.push(Ok((
                        OciSpecificity::Global,
                        SourceKind::Helper(file.creds_store.clone()),
                    )));
                }
            }
        }
        out
    }
}

impl OciCredentialsPolicy {
    /// The policy of `config` on `os`, with the files and variables of
    /// `env` (OCICRED-5).
    pub(crate) fn build(
        config: &CliConfig,
        os: OciHostOs,
        env: &Env,
    ) -> Result<OciCredentialsPolicy, OciCredentialsError> {
        let mut policy = OciCredentialsPolicy {
            configs: config
                .oci
                .credentials
                .iter()
                .cloned()
                .map(PolicyConfig::Explicit)
                .collect(),
            helper_env: HelperEnv {
                path: env.var("PATH").map(ToOwned::to_owned),
                pathext: env.var("PATHEXT").map(ToOwned::to_owned),
                timeout: DEFAULT_HELPER_TIMEOUT,
            },
            ignored: Vec::new(),
            searched: Vec::new(),
        };
        // A second block was reported when the files were merged (OpenTofu
        // would panic here); the first one is used.
        let defaults = config.oci.defaults.first().cloned().unwrap_or_default();
        if let Some(helper) = defaults.docker_credentials_helper() {
            policy
                .configs
                .push(PolicyConfig::GlobalHelper(helper.to_owned()));
        }
        if defaults.discover_ambient_credentials() {
            policy.discover(&defaults, os, env)?;
        }
        Ok(policy)
    }

    fn discover(
        &mut self,
        defaults: &OciDefaultCredentialsBlock,
        os: OciHostOs,
        env: &Env,
    ) -> Result<(), OciCredentialsError> {
        if let Some(files) = defaults.docker_style_config_files() {
            // Listed files must all be there and readable.
            let mut problems = Vec::new();
            for path in files {
                self.searched.push(path.clone());
                match read_limited_bytes(path) {
                    Err(e) => problems.push(format!("reading {}: {e}", path.display())),
                    Ok(bytes) => match DockerStyleFile::parse(path, &bytes) {
                        Ok(file) => self.configs.push(PolicyConfig::DockerStyle(file)),
                        Err(e) => problems.push(format!("parsing {}: {e}", path.display())),
                    },
                }
            }
            if !problems.is_empty() {
                return Err(OciCredentialsError::DockerStyleFiles { problems });
            }
            return Ok(());
        }
        let mut previous: Option<PathBuf> = None;
        for path in docker_style_search_locations(os, env) {
            if previous.as_ref() == Some(&path) {
                continue;
            }
            previous = Some(path.clone());
            self.searched.push(path.clone());
            tracing::trace!(path = %path.display(), "OCI credentials discovery reading");
            let problem = match read_limited_bytes(&path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => format!("reading {}: {e}", path.display()),
                Ok(bytes) => match DockerStyleFile::parse(&path, &bytes) {
                    Ok(file) => {
                        self.configs.push(PolicyConfig::DockerStyle(file));
                        continue;
                    }
                    Err(e) => format!("parsing {}: {e}", path.display()),
                },
            };
            // Files found by searching are not OpenTofu's alone: a problem
            // with one is only reported, never fatal.
            tracing::warn!("Problems during OCI registry ambient credentials discovery: {problem}");
            self.ignored.push(problem);
        }
        Ok(())
    }

    /// How long a credential helper may run before it is killed
    /// ([`DEFAULT_HELPER_TIMEOUT`] unless changed).
    pub fn with_helper_timeout(mut self, timeout: Duration) -> OciCredentialsPolicy {
        self.helper_env.timeout = timeout;
        self
    }

    /// Where credentials may come from, in the order they are considered:
    /// `explicit oci_credentials "LABEL" block`, `oci_default_credentials
    /// block`, then each Docker-style file read (OpenTofu's
    /// `CredentialsConfigLocationForUI`), for a debug line.
    pub fn config_locations(&self) -> Vec<String> {
        self.configs.iter().map(PolicyConfig::location).collect()
    }

    /// Every Docker-style file path tried, found or not, in order.
    pub fn searched_files(&self) -> &[PathBuf] {
        &self.searched
    }

    /// Files of the default search that exist but could not be read or
    /// parsed, and were skipped (`reading PATH: …`, `parsing PATH: …`);
    /// OpenTofu logs them as warnings.
    pub fn ignored_files(&self) -> &[String] {
        &self.ignored
    }

    /// The source for `repository` (a path such as `team/app`; empty for
    /// the registry alone) of `registry` (`host[:port]`, compared exactly):
    /// of all the sources that cover it, the most specific, the first of
    /// equals (OCICRED-9). `None` when nothing covers it: requests go
    /// without credentials. Nothing is run.
    ///
    /// Fails, as OpenTofu does, when a source is chosen and some `auths`
    /// entry covering the repository has no `:` in its decoded `auth`.
    pub fn source_for(
        &self,
        registry: &str,
        repository: &str,
    ) -> Result<Option<OciCredentialsLocation>, OciCredentialsError> {
        let mut best: Option<OciCredentialsLocation> = None;
        let mut malformed = Vec::new();
        for config in &self.configs {
            for source in config.sources(registry, repository) {
                match source {
                    Err(key) => {
                        if let PolicyConfig::DockerStyle(file) = config {
                            malformed.push((file.path.clone(), key));
                        }
                    }
                    Ok((rank, kind)) => {
                        if best.as_ref().is_some_and(|b| rank <= b.specificity) {
                            continue;
                        }
                        best = Some(OciCredentialsLocation {
                            location: config.location(),
                            specificity: rank,
                            registry: registry.to_owned(),
                            kind,
                        });
                    }
                }
            }
        }
        // OpenTofu drops those errors when nothing was chosen.
        if best.is_some() && !malformed.is_empty() {
            return Err(OciCredentialsError::MalformedAuth {
                registry: registry.to_owned(),
                entries: malformed,
            });
        }
        Ok(best)
    }

    /// The credentials a source gives: its static ones, or what its helper
    /// answers for `https://REGISTRY` (OCICRED-10). `None` when the helper
    /// has none for it.
    pub fn credentials_from(
        &self,
        source: &OciCredentialsLocation,
    ) -> Result<Option<OciCredentials>, OciCredentialsError> {
        match &source.kind {
            SourceKind::Static(credentials) => Ok(Some(credentials.clone())),
            SourceKind::Helper(name) => {
                let url = format!("https://{}", source.registry);
                match docker_helper::get(name, &url, &self.helper_env) {
                    Ok(answer) => {
                        Ok(answer.map(|(user, secret)| OciCredentials::basic(&user, &secret)))
                    }
                    Err(problem) => Err(OciCredentialsError::Helper {
                        name: name.clone(),
                        problem,
                    }),
                }
            }
        }
    }

    /// The credentials for `repository` of `registry`:
    /// [`source_for`](OciCredentialsPolicy::source_for), then
    /// [`credentials_from`](OciCredentialsPolicy::credentials_from). `None`
    /// means anonymous requests, as in OpenTofu.
    pub fn credentials_for(
        &self,
        registry: &str,
        repository: &str,
    ) -> Result<Option<OciCredentials>, OciCredentialsError> {
        match self.source_for(registry, repository)? {
            Some(source) => self.credentials_from(&source),
            None => Ok(None),
        }
    }
}
