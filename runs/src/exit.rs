//! The exit codes of `tfdisco` and `tfdisco-dev`, and of every run (which
//! the Python and Node packages give as an error's `exit_code`): the one
//! table.

use tfdisco_core::ErrorKind;

/// Everything worked.
pub const SUCCESS: u8 = 0;
/// A request failed (network, TLS, status, content type, JSON, size,
/// redirects, timeout), a package did not verify, or a file could not be
/// read or written.
pub const FAILED: u8 = 1;
/// Bad usage, or an invalid hostname, service id, source address, version
/// or platform; a configuration or lock file that cannot be used.
pub const USAGE: u8 = 2;
/// What was asked for is not there: a service not provided, or not in that
/// version; a provider, module, version or platform the registry does not
/// have (404), or that no version or package fits; a read-only lock file
/// that would change.
pub const NOT_PROVIDED: u8 = 3;
/// A run cancelled (a shell's code for Ctrl-C).
pub const CANCELLED: u8 = 130;

/// The exit code for a failure of `kind`.
pub fn for_kind(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::InvalidHostname
        | ErrorKind::InvalidServiceId
        | ErrorKind::InvalidSource
        | ErrorKind::InvalidArgument => USAGE,
        ErrorKind::ServiceNotProvided | ErrorKind::VersionNotSupported | ErrorKind::NotFound => {
            NOT_PROVIDED
        }
        _ => FAILED,
    }
}
