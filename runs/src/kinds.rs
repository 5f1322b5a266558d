//! The kinds of error the front ends (the `tfdisco` CLI's `--json`, the
//! Python and Node packages) report beside the core's `ErrorKind` names and
//! a lock run's `RunError::kind`: one list, so that each names them alike.

/// An option that cannot be used ([`OptionError`](crate::OptionError), a
/// client that does not build).
pub const INVALID_OPTION: &str = "invalid_option";
/// A credentials source that failed for a host
/// ([`CredentialsLookupError`](crate::CredentialsLookupError)).
pub const CREDENTIALS: &str = "credentials";
/// A file that is no provider package the hasher reads (the packages'
/// `hash_package`).
pub const INVALID_PACKAGE: &str = "invalid_package";
/// A login or logout that failed (`LoginFailure`).
pub const LOGIN: &str = "login";
