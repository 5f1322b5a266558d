//! The exit codes of `tfdisco` and `tfdisco-dev`.

use tfdisco_core::ErrorKind;

/// Everything worked.
pub const SUCCESS: u8 = 0;
/// Discovery failed: network, TLS, status, content type, JSON, size,
/// redirects, timeout.
pub const DISCOVERY_FAILED: u8 = 1;
/// Bad usage, or an invalid hostname, service id, source address, version
/// or platform.
pub const USAGE: u8 = 2;
/// A requested service is not provided, or not in that version; or the
/// registry has no such provider, module, version or platform (404).
pub const NOT_PROVIDED: u8 = 3;

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
        _ => DISCOVERY_FAILED,
    }
}
