//! The two blocks OpenTofu reads OCI credentials settings from
//! (docs/behaviour.md, OCICRED-1 to OCICRED-4), as values.

use std::fmt;
use std::path::{Path, PathBuf};

/// What an `oci_credentials` block gives. `Debug` shows the username and
/// the helper's name, never a password or a token.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OciBlockCredentials {
    /// `username` and `password`: sent as `Basic`, or to a token service.
    Basic {
        /// The username.
        username: String,
        /// The password.
        password: String,
    },
    /// `access_token` and `refresh_token`.
    OAuth {
        /// The access token, sent as it is.
        access_token: String,
        /// The refresh token (OpenTofu requires it; ORAS does not use it
        /// while there is an access token).
        refresh_token: String,
    },
    /// `docker_credentials_helper`: the program `docker-credential-NAME`.
    DockerCredentialsHelper(String),
}

impl fmt::Debug for OciBlockCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OciBlockCredentials::Basic { username, .. } => f
                .debug_struct("Basic")
                .field("username", username)
                .field("password", &"***")
                .finish(),
            OciBlockCredentials::OAuth { .. } => f
                .debug_struct("OAuth")
                .field("access_token", &"***")
                .field("refresh_token", &"***")
                .finish(),
            OciBlockCredentials::DockerCredentialsHelper(name) => f
                .debug_tuple("DockerCredentialsHelper")
                .field(name)
                .finish(),
        }
    }
}

/// Where a block is: its file, and the position of its first key as HCL 1
/// counts it (line and column from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) file: PathBuf,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// The `file`, `line` and `column` accessors of a block's [`Place`] (in
/// the field `place`).
macro_rules! place_accessors {
    () => {
        /// The file the block is in.
        pub fn file(&self) -> &Path {
            &self.place.file
        }

        /// The line the block starts on.
        pub fn line(&self) -> usize {
            self.place.line
        }

        /// The column the block starts at.
        pub fn column(&self) -> usize {
            self.place.column
        }
    };
}

/// An `oci_credentials "LABEL" { … }` block of the CLI configuration
/// (OpenTofu only), checked (OCICRED-1, OCICRED-2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OciCredentialsBlock {
    pub(crate) label: String,
    pub(crate) credentials: OciBlockCredentials,
    pub(crate) place: Place,
}

impl OciCredentialsBlock {
    /// The label as written: a registry (`host[:port]`), or a registry and
    /// a repository path prefix (`host/some/path`).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// What the block gives.
    pub fn credentials(&self) -> &OciBlockCredentials {
        &self.credentials
    }

    place_accessors!();

    /// How OpenTofu names the block in messages:
    /// `explicit oci_credentials "LABEL" block`.
    pub fn location(&self) -> String {
        format!(
            "explicit oci_credentials {} block",
            tfdisco_core::go_quote(&self.label)
        )
    }
}

/// An `oci_default_credentials { … }` block of the CLI configuration
/// (OpenTofu only), read as OpenTofu reads it (OCICRED-3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OciDefaultCredentialsBlock {
    pub(crate) discover_ambient_credentials: bool,
    pub(crate) docker_style_config_files: Option<Vec<PathBuf>>,
    pub(crate) docker_credentials_helper: Option<String>,
    pub(crate) place: Place,
}

impl OciDefaultCredentialsBlock {
    /// `discover_ambient_credentials` (true unless set false): whether
    /// Docker-style files are read at all.
    pub fn discover_ambient_credentials(&self) -> bool {
        self.discover_ambient_credentials
    }

    /// `docker_style_config_files`, each made absolute against the
    /// directory of the file holding the block: `None` when not set (the
    /// default search), an empty list when set to `[]` (no file is read).
    pub fn docker_style_config_files(&self) -> Option<&[PathBuf]> {
        self.docker_style_config_files.as_deref()
    }

    /// `docker_credentials_helper`: the helper for every registry that
    /// nothing more specific covers. `None` when not set, and when the name
    /// was refused (OpenTofu keeps a refused name; tfdisco never runs it).
    pub fn docker_credentials_helper(&self) -> Option<&str> {
        self.docker_credentials_helper.as_deref()
    }

    place_accessors!();
}

impl Default for OciDefaultCredentialsBlock {
    /// The settings without a block: ambient discovery on, the default
    /// search, no global helper.
    fn default() -> OciDefaultCredentialsBlock {
        OciDefaultCredentialsBlock {
            discover_ambient_credentials: true,
            docker_style_config_files: None,
            docker_credentials_helper: None,
            place: Place {
                file: PathBuf::new(),
                line: 0,
                column: 0,
            },
        }
    }
}

/// A file's OCI blocks, before merging.
#[derive(Clone, Debug, Default)]
pub(crate) struct OciBlocks {
    pub(crate) credentials: Vec<OciCredentialsBlock>,
    pub(crate) defaults: Vec<OciDefaultCredentialsBlock>,
}
